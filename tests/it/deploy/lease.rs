//! Taking turns: a build waits for a deploy of its project (and a file edited by hand
//! mid-deploy stops it), two deploys to one store take turns by a lease renewed while held,
//! and a killed deploy's lease is taken over once it lapses.

use super::*;

fn a_build_waits_for_a_deploy_which_publishes_one_build(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    add_a_record(&p);
    p.folio(&["build"]).success();
    let b = published(&p);
    // The deploy of B stops midway (at its third upload), holding the output folder.
    let gate = Gate::new();
    let mut deploy = remote.command(&p, &[]);
    deploy.envs(gate.env("wait-upload:3")).stdout(Stdio::null()).stderr(Stdio::null());
    let mut deploy = Running(deploy.spawn().unwrap());
    gate.wait_reached(&mut deploy);
    // Meanwhile the data changes again and a build starts: it waits, saying so.
    rename_first_record(&p);
    let (mut build, said) = p.spawn_folio(&["build"], &[]);
    said.wait_for(
        "waiting for another folio command (a build or a deploy) to finish with `output`",
    );
    assert!(build.try_wait().unwrap().is_none(), "the build waits");
    let refused = p.folio(&["build", "--no-wait"]).fails(1);
    assert!(refused.stderr().contains("another folio command"), "{}", refused.stderr());
    assert!(published(&p) == b, "output/ is still build B");
    gate.open();
    assert!(deploy.wait().unwrap().success());
    assert!(build.wait().unwrap().success(), "{}", said.all());
    assert!(remote.objects() == b, "the deploy published build B, all of it and only it");
    let c = published(&p);
    assert!(c != b);
    remote.deploy(&p, &[]).success();
    assert!(remote.objects() == c);
}
on_every_store!(a_build_waits_for_a_deploy_which_publishes_one_build, prefix = "travel");

fn a_file_changed_behind_folios_back_stops_the_deploy(remote: &Remote) {
    // The lock keeps folio's builds out; a hand edit during a deploy is caught by the MD5
    // the scan took: what is sent is exactly what was hashed.
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let a = published(&p);
    add_a_record(&p);
    p.folio(&["build"]).success();
    let b = published(&p);
    let gate = Gate::new();
    let mut deploy = remote.command(&p, &[]);
    deploy.envs(gate.env("wait-upload:3")).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut deploy = Running(deploy.spawn().unwrap());
    let said = Stderr::of(&mut deploy);
    gate.wait_reached(&mut deploy);
    // The index goes up after every page: it has not been read yet.
    let edited = b"{\"edited\": \"by hand, mid-deploy\"}\n";
    p.write("output/api/index.json", edited);
    gate.open();
    let code = deploy.wait().unwrap().code();
    let said = said.all();
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("`output/api/index.json` changed while it was being deployed"), "{said}");
    assert!(remote.objects().values().all(|v| v != edited), "the edited bytes were not sent");
    each_old_or_new(remote, &a, &b);
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    assert!(remote.objects() == b);
}
on_every_store!(a_file_changed_behind_folios_back_stops_the_deploy, prefix = "travel");

fn two_deploys_to_one_store_take_turns_and_leave_one_build(remote: &Remote) {
    // Two CI jobs, each with its own checkout and build, publish to the same store at once.
    let first = Project::sample();
    first.folio(&["build"]).success();
    let second = Project::sample();
    add_a_record(&second);
    second.folio(&["build"]).success();
    // Leases of four seconds (a renewal through moto on a busy runner came 1.5 s late, past
    // a two-second lease's fence): the first deploy, held midway for longer than that,
    // keeps it by renewing it.
    let gate = Gate::new();
    let mut one = remote.command(&first, &[]);
    one.envs(gate.env("wait-upload:3,lease:4")).stdout(Stdio::null()).stderr(Stdio::null());
    let mut one = Running(one.spawn().unwrap());
    gate.wait_reached(&mut one);
    let refused =
        remote.deploy_env(&second, &["--no-wait"], &[("FOLIO_FAULT", "lease:4")]).fails(1);
    assert!(refused.stderr().contains("another folio deploy is "), "{}", refused.stderr());
    let mut two = remote.command(&second, &[]);
    two.env("FOLIO_FAULT", "lease:4").stdout(Stdio::null()).stderr(Stdio::piped());
    let mut two = Running(two.spawn().unwrap());
    let said = Stderr::of(&mut two);
    said.wait_for("waiting");
    // Longer than a lease lasts unrenewed: the first keeps renewing it, so the second
    // goes on waiting.
    std::thread::sleep(Duration::from_millis(5000));
    assert!(two.try_wait().unwrap().is_none(), "the second deploy waits");
    gate.open();
    assert!(one.wait().unwrap().success());
    assert!(two.wait().unwrap().success(), "{}", said.all());
    assert!(remote.objects() == published(&second), "the store is the second build, whole");
    // And folio's record agrees: a third deploy of the same build changes nothing.
    assert_eq!(counts(&remote.deploy(&second, &[]).success()), (0, SAMPLE_OBJECTS, 0));
}
on_every_store!(two_deploys_to_one_store_take_turns_and_leave_one_build, prefix = "travel");

fn a_killed_deploys_lease_is_taken_over_once_it_lapses(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    // Four seconds, as above: the one that takes over renews through a busy runner too.
    let lease = ("FOLIO_FAULT", "kill-upload:3,lease:4");
    let run = remote.deploy_env(&p, &[], &[lease]);
    assert_ne!(run.code(), Some(0), "killed");
    let started = Instant::now();
    remote.deploy_env(&p, &[], &[("FOLIO_FAULT", "lease:4")]).success();
    eprintln!("the next deploy went ahead after {:?}", started.elapsed());
    assert!(remote.objects() == published(&p));
}
on_every_store!(a_killed_deploys_lease_is_taken_over_once_it_lapses, prefix = "travel");

fn letting_go_of_the_lease_is_conditional_on_the_holders_version(remote: &Remote) {
    // On the store's own protocol, seen by a proxy: the last write of the lease is a put
    // that marks it free, made only if the lease is still the version this deploy wrote
    // (`If-Match` on S3 and Azure, the generation on GCS), never a delete.
    let server = match remote {
        Remote::S3 { server, .. } | Remote::Azure { server, .. } | Remote::Gcs { server, .. } => {
            *server
        }
        Remote::Dir(_) => unreachable!("stores with leases only"),
    };
    let proxy = Proxy::start(server, usize::MAX);
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.through(proxy.port).deploy(&p, &[]).success();
    let heads = proxy.heads();
    let lease: Vec<&String> = heads
        .iter()
        .filter(|h| {
            let line = h.lines().next().unwrap_or("");
            percent_encoding::percent_decode_str(line).decode_utf8_lossy().contains(LEASE)
        })
        .collect();
    let last = lease.last().unwrap_or_else(|| panic!("the lease was not written: {heads:#?}"));
    let line = last.lines().next().unwrap();
    assert!(line.starts_with("PUT ") || line.starts_with("POST "), "{line}");
    let lower = last.to_ascii_lowercase();
    let conditional = lower.contains("\r\nif-match:")
        || lower.contains("x-goog-if-generation-match:")
        || line.contains("ifGenerationMatch=");
    assert!(conditional, "letting go is not conditional:\n{last}");
    assert!(!lower.contains("if-match: *"), "{last}");
    let decoded =
        |h: &String| percent_encoding::percent_decode_str(h).decode_utf8_lossy().to_string();
    assert!(
        !heads.iter().any(|h| h.starts_with("DELETE ") && decoded(h).contains(LEASE)),
        "a delete"
    );
}
on_every_store!(
    letting_go_of_the_lease_is_conditional_on_the_holders_version,
    prefix = "travel",
    headers
);
