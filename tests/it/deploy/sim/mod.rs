//! A deterministic simulation of deploys (after TigerBeetle's VOPR): deploys of different
//! builds against one in-memory store on tokio's virtual clock, each through a client a
//! seeded schedule makes misbehave (`schedule.rs`: latency, kills at request boundaries,
//! freezes past the lease, lost answers), and a second writer forging folio's record
//! between deploys (`writer.rs`). What must hold after every step and every schedule is
//! in `check/`, one checker a property. This file is the driver.
//!
//! `cargo test` runs [`SEEDS`] seeds and those of `regressions.txt`; `scripts/sim.sh N`
//! runs N; a failing seed is printed and replays alone with `FOLIO_SIM_SEED=S`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use object_store::memory::InMemory;
use object_store::path::Path as Key;
use object_store::{ObjectStoreExt, PutPayload};

use super::{LEASE, add_a_record, rename_first_record, set_config};
use crate::harness::Project;
use clock::SimClock;
use process::Process;
use rng::Rng;
use schedule::Plan;
use store::{Chaos, SharedDebug};

mod cdn;
mod check;
mod clock;
mod process;
mod rng;
mod schedule;
mod store;
mod writer;

/// The paths a deploy may send its CDN at most (`[deploy] max_purge_paths`'s default).
const BOUND: usize = 30;

/// Seeds `cargo test` runs: 1 to this, and those of `regressions.txt`.
const SEEDS: u64 = 24;

const PREFIX: &str = "site";
const LIFETIME: Duration = Duration::from_secs(30);
const FOREIGN: &str = "theirs/report.csv";

/// The seeds of `regressions.txt`, each of which must say what it caught.
fn regressions() -> Vec<u64> {
    let text = include_str!("regressions.txt");
    let lines = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'));
    lines
        .map(|line| {
            let (seed, caught) = line.split_once('#').unwrap_or((line, ""));
            assert!(
                !caught.trim().is_empty(),
                "regressions.txt: seed {seed} says nothing of what it caught"
            );
            seed.trim().parse().unwrap_or_else(|_| panic!("regressions.txt: {line:?} is no seed"))
        })
        .collect()
}

/// What the simulation watches: the clients, every change the store took, every purge
/// list, and what breaks an invariant.
struct World {
    rng: Rng,
    clients: Vec<Client>,
    /// (virtual ms, key) of every change of an object's bytes (or its existence).
    changes: Vec<(u128, String)>,
    /// (virtual ms, keys) of every purge list written.
    purges: Vec<(u128, BTreeSet<String>)>,
    /// (virtual ms, keys) of every purge the CDN accepted.
    cdn_purges: Vec<(u128, BTreeSet<String>)>,
    /// (virtual ms, key) of every write that landed (also one of the same bytes), and of
    /// every key a record landed saying a deploy is about to write or delete: a deploy that
    /// takes over cannot know which of them a deploy cut short sent, and owes them all.
    written: Vec<(u128, String)>,
    /// Every batch the CDN accepted, and whether its deploy then struck it from the record.
    accepted: Vec<Accepted>,
    /// Every batch sent the CDN: (virtual ms, client, the keys it pays, how many batches
    /// the CDN had accepted before it was sent).
    sent: Vec<(u128, usize, BTreeSet<String>, usize)>,
    /// (virtual ms, keys, whether past what a deploy could leave) of every record the
    /// bucket's writer forged: past 100,000 keys, folio owes a purge of everything the
    /// build publishes instead.
    forged: Vec<(u128, BTreeSet<String>, bool)>,
    /// Whether links are checked at every step: not when a request lands late (a freeze
    /// in a send), which may put an old page back for a moment.
    links_checked: bool,
    broken: Vec<String>,
    /// Writes sent by a client that did not hold the lease, and leases let go by another.
    fence_broken: Vec<String>,
    start: tokio::time::Instant,
    /// The client whose lease the store holds now, as the lease's last write says.
    holder: Option<usize>,
}

impl World {
    fn now_ms(&self) -> u128 {
        self.start.elapsed().as_millis()
    }
}

type Shared = Arc<Mutex<World>>;

/// A batch the CDN accepted.
struct Accepted {
    /// When it was sent (a write landing after that may be in no purge yet) and accepted.
    sent: u128,
    at: u128,
    client: usize,
    keys: BTreeSet<String>,
    /// When a record write of its deploy landed after it (the strike): how many batches
    /// had been sent by then. A batch sent before it is not judged: its deploy could not
    /// know.
    struck: Option<usize>,
}

/// One client of the store: its schedule, and what became of it.
#[derive(Default)]
struct Client {
    plan: Plan,
    requests: u64,
    record_puts: u64,
    dead: bool,
    /// Frozen until then: nothing of the client runs, no request of it leaves, no answer
    /// reaches it.
    frozen_until: Option<tokio::time::Instant>,
    /// When the machine was suspended, for how long: time its monotonic clock missed.
    suspends: Vec<(tokio::time::Instant, Duration)>,
    /// Every path its deploy sent its CDN.
    paid_paths: Vec<String>,
}

/// Prints one line of the schedule's story when `FOLIO_SIM_TRACE` is set.
fn trace(world: &World, client: usize, what: std::fmt::Arguments) {
    if std::env::var_os("FOLIO_SIM_TRACE").is_some() {
        eprintln!("{:>7} ms  client {client}: {what}", world.now_ms());
    }
}

/// The three builds deploys publish: the sample (X); one record more and a size more (Y:
/// new pages); a record renamed and a size fewer (Z: changed pages, stale ones). Links are
/// path-form, so that a page names the objects it links to.
struct Builds {
    projects: Vec<(Project, folio::config::Project)>,
    /// Every key any of them publishes.
    keys: BTreeSet<String>,
}

fn validated(p: &Project) -> folio::config::Project {
    let cwd = p.dir.path();
    let text = p.read("folio.toml");
    let folio_toml = std::path::Path::new("folio.toml");
    let mut project =
        folio::config::Project::from_toml(&text, folio_toml, cwd, cwd, &Default::default())
            .unwrap();
    project.deploy.max_deletes = 100_000;
    project.deploy.concurrency = 4;
    project.deploy.purge_wait = Duration::from_secs(60);
    assert_eq!(project.deploy.max_purge_paths, BOUND);
    project
}

fn builds() -> Builds {
    let make = |change: &dyn Fn(&Project)| {
        let p = Project::sample();
        set_config(&p, "sort = [\"id\"]", "sort = [\"id\"]\nurl_style = \"path\"");
        change(&p);
        p.folio(&["build"]).success();
        let project = validated(&p);
        (p, project)
    };
    let x = make(&|_| {});
    let y = make(&|p| {
        add_a_record(p);
        set_config(p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [5, 10, 20, 50, 100]");
    });
    let z = make(&|p| {
        rename_first_record(p);
        set_config(p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
    });
    let keys = [&x, &y, &z].iter().flat_map(|(p, _)| published(p).into_keys()).collect();
    Builds { projects: vec![x, y, z], keys }
}

/// What a deploy of a build publishes: its files but hidden ones.
fn published(p: &Project) -> BTreeMap<String, Vec<u8>> {
    super::published(p)
}

const URL: &str = "s3://sim/site";

fn store_for(inner: &Arc<InMemory>, world: &Shared, client: usize) -> folio::deploy::store::Store {
    let chaos = Chaos { inner: inner.clone(), client, world: SharedDebug(world.clone()) };
    folio::deploy::store::Store {
        inner: Arc::new(chaos),
        target: folio::deploy::store::Target::parse(URL).unwrap(),
        keeps_headers: true,
        conditional: true,
        folder: None,
        requests: None,
        no_credentials: None,
        clock: Arc::new(SimClock { world: world.clone(), client }),
    }
}

/// Whether client `client` of seed `seed` publishes from the data (`--from-data`) rather
/// than from its build's `output/`: `FOLIO_SIM_SOURCE=build` or `data` says for every
/// deploy; otherwise every other client does, by seed, which draws nothing from the seed's
/// random source (a schedule is the same either way, and so must be what it settles to).
fn from_data(seed: u64, client: usize) -> bool {
    match std::env::var("FOLIO_SIM_SOURCE").as_deref() {
        Ok("build") => false,
        Ok("data") => true,
        _ => (seed as usize + client) % 2 == 1,
    }
}

/// Runs one deploy of `project` through client `client`; `Err` with why it failed.
async fn deploy(
    project: &folio::config::Project,
    inner: &Arc<InMemory>,
    world: &Shared,
    (client, from_data): (usize, bool),
) -> Result<(), String> {
    let store = store_for(inner, world, client);
    let note = |_: &str| {};
    let world_for_purge = world.clone();
    let mut write = |list: &folio::deploy::purge::PurgeList| {
        let mut w = world_for_purge.lock().unwrap();
        let at = w.now_ms();
        trace(&w, client, format_args!("purge list {:?}", list.objects));
        w.purges.push((at, list.objects.iter().cloned().collect()));
        Ok(())
    };
    let hooks = folio::deploy::Hooks {
        progress: &(),
        busy: folio::output::lock::Busy::Wait(&note),
        purge_list: Some(&mut write),
    };
    let options = folio::deploy::Options { from_data, ..Default::default() };
    let cdns: Vec<Box<dyn folio::deploy::cdn::Client>> =
        vec![Box::new(cdn::SimCdn { world: world.clone(), client, cdn: purged_cdn() })];
    let run = folio::deploy::deploy_to(project, &store, &options, hooks, LIFETIME, &cdns);
    let done = Process { deploy: Box::pin(run), world: world.clone(), client, wake: None }.await;
    done.map(drop).map_err(|e| e.to_string())
}

fn purged_cdn() -> folio::config::Cdn {
    folio::config::Cdn::CloudFront("SIMULATED1".into())
}

/// One seeded schedule; `Err` says which invariant broke.
fn run_seed(seed: u64, builds: &Builds) -> Result<String, String> {
    let mut rng = Rng(seed);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let inner = Arc::new(InMemory::new());
        let foreign = Key::from(format!("{PREFIX}/{FOREIGN}"));
        inner.put(&foreign, PutPayload::from("a,b\n")).await.unwrap();
        let deploys = 2 + rng.below(2) as usize;
        let mut story = Vec::new();
        let mut clients = vec![Client::default()];
        let mut starts = Vec::new();
        let mut late_sends = false;
        for i in 0..deploys {
            let schedule::Scheduled { plan, build, start, told, late_sends: late } =
                schedule::schedule(seed, i, &mut rng);
            late_sends |= late;
            story.extend(told);
            clients.push(Client { plan, ..Client::default() });
            starts.push((i + 1, build, start));
        }
        // The final deploy: the last scheduled one's build, with no mishap.
        let last = starts.last().map_or(2, |s| s.1);
        let world: Shared = Arc::new(Mutex::new(World {
            rng: Rng(seed ^ 0x5EED),
            clients,
            changes: Vec::new(),
            purges: Vec::new(),
            cdn_purges: Vec::new(),
            written: Vec::new(),
            accepted: Vec::new(),
            sent: Vec::new(),
            forged: Vec::new(),
            links_checked: !late_sends,
            broken: Vec::new(),
            fence_broken: Vec::new(),
            start: tokio::time::Instant::now(),
            holder: None,
        }));
        let mut tasks = Vec::new();
        let forger = writer::forgery(seed).map(|when| {
            let (inner, world) = (inner.clone(), world.clone());
            tokio::task::spawn_local(async move { writer::forge(&inner, &world, when).await })
        });
        for (client, build, start) in starts {
            let (inner, world, project) =
                (inner.clone(), world.clone(), builds.projects[build].1.clone());
            tasks.push(tokio::task::spawn_local(async move {
                tokio::time::sleep(start).await;
                deploy(&project, &inner, &world, (client, from_data(seed, client))).await
            }));
        }
        // Every deploy ends, or is dead (its requests hang): wait until the living ones end.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(3600);
        loop {
            let living = {
                let w = world.lock().unwrap();
                tasks
                    .iter()
                    .enumerate()
                    .filter(|(i, t)| !t.is_finished() && !w.clients[i + 1].dead)
                    .count()
            };
            if living == 0 {
                break;
            }
            if tokio::time::Instant::now() > deadline {
                return Err(format!(
                    "seed {seed}: deploys still running after an hour\n{}",
                    story.join("\n")
                ));
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        let mut outcomes = Vec::new();
        for (i, task) in tasks.into_iter().enumerate() {
            let dead = world.lock().unwrap().clients[i + 1].dead;
            if dead {
                task.abort();
                outcomes.push(format!("{i}: killed"));
            } else {
                let why = match task.await {
                    Ok(Ok(())) => "published".to_string(),
                    Ok(Err(e)) if e.contains("lost the deploy lease") => "lost its lease".into(),
                    Ok(Err(e)) if e.contains("changed under this deploy") => {
                        "fenced off the record".into()
                    }
                    Ok(Err(_)) => "failed".into(),
                    Err(_) => "panicked".into(),
                };
                outcomes.push(format!("{i}: {why}"));
            }
        }
        if let Some(forger) = forger {
            story.push(forger.await.unwrap());
        }
        // One clean deploy settles the store.
        world.lock().unwrap().clients.push(Client::default());
        let clean = world.lock().unwrap().clients.len() - 1;
        let settled =
            deploy(&builds.projects[last].1, &inner, &world, (clean, from_data(seed, clean))).await;
        let tell = |what: String| {
            Err(format!("seed {seed}: {what}\n{}\n{}", story.join("\n"), outcomes.join(", ")))
        };
        if let Err(why) = settled {
            return tell(format!("the clean deploy failed: {why}"));
        }
        let mut want = published(&builds.projects[last].0);
        want.insert(FOREIGN.to_string(), b"a,b\n".to_vec());
        if let Err(what) = check::settled::store_is(&inner, &want).await {
            return tell(what);
        }
        let w = world.lock().unwrap();
        let held = (check::fence::held(&w))
            .and_then(|()| check::links::held(&w))
            .and_then(|()| check::purged::held(&w))
            .and_then(|()| check::bounded::held(&w, BOUND))
            .and_then(|()| check::paid_once::held(&w))
            .and_then(|()| check::inside::held(&w, &builds.keys));
        if let Err(what) = held {
            return tell(what);
        }
        Ok(format!(
            "seed {seed}: {deploys} deploys ({}), {} changes, {} purge lists, {} CDN purges{}{}",
            outcomes.join(", "),
            w.changes.len(),
            w.purges.len(),
            w.cdn_purges.len(),
            if w.links_checked { "" } else { ", links not checked meanwhile (a late send)" },
            writer::forgery(seed)
                .map(|(_, kind)| format!(", the record forged ({kind:?})"))
                .unwrap_or_default()
        ))
    })
}

fn seeds() -> Vec<u64> {
    if let Some(seed) = std::env::var("FOLIO_SIM_SEED").ok().and_then(|s| s.parse().ok()) {
        return vec![seed];
    }
    let count = std::env::var("FOLIO_SIM_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(SEEDS);
    let first = std::env::var("FOLIO_SIM_FIRST").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut seeds: Vec<u64> = (first..first + count).collect();
    if std::env::var_os("FOLIO_SIM_SEEDS").is_none() {
        seeds.extend(regressions());
    }
    seeds
}

#[test]
fn deploys_under_seeded_schedules_settle_after_one_clean_deploy() {
    let builds = builds();
    let mut failures = Vec::new();
    let mut ran = 0;
    for seed in seeds() {
        ran += 1;
        match run_seed(seed, &builds) {
            Ok(summary) => {
                if std::env::var_os("FOLIO_SIM_VERBOSE").is_some() {
                    eprintln!("{summary}");
                }
            }
            Err(why) => failures.push(why),
        }
    }
    eprintln!("simulated {ran} schedules, {} failed", failures.len());
    assert!(
        failures.is_empty(),
        "{} of {ran} schedules failed; replay one with FOLIO_SIM_SEED=S:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn a_schedule_replays_the_same_way() {
    let builds = builds();
    let once = run_seed(7, &builds);
    let again = run_seed(7, &builds);
    assert_eq!(once, again, "seed 7 twice");
}
