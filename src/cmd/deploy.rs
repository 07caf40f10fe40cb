//! `folio deploy`: `[deploy]` with the command line's overrides, the deploy itself, then
//! the plan (with `--dry-run`) or one summary line, and the purge list file.

use std::io::IsTerminal;
use std::path::Path;

use super::{Bar, say};
use crate::cli::{DeployArgs, DeployFormat};
use folio::config::{DeployOverrides, Overrides};
use folio::deploy::purge::PurgeList;
use folio::deploy::{self, Hooks, Options, Settle};
use folio::error::Failure;
use folio::output::lock::Busy;
use folio::output::user_file::UserFile;
use folio::site::Progress;

pub fn run(args: DeployArgs) -> Result<(), Failure> {
    if args.from_data {
        super::allocator::lean();
    }
    let purge = match (args.no_purge, args.purge.is_empty()) {
        (true, _) => Some(Vec::new()),
        (false, true) => None,
        (false, false) => Some(args.purge.clone()),
    };
    let deploy = DeployOverrides {
        url: args.to.clone(),
        endpoint: args.endpoint.clone(),
        region: args.region.clone(),
        purge,
        max_deletes: args.max_deletes,
        purge_wait: args.purge_wait,
        max_purge_paths: args.max_purge_paths,
    };
    let overrides = Overrides { deploy, ..Overrides::default() };
    let project = super::discover(args.config.path.as_deref(), &overrides)?;
    let settle = Settle { drop: args.drop_owed.clone(), moved: args.move_owed.clone() };
    let opts = Options {
        dry_run: args.dry_run,
        force: args.force,
        repair: args.repair,
        from_data: args.from_data,
        settle,
    };
    // An unwritable purge list is found out before anything is sent.
    let mut purge_file = args.purge_list.as_deref().map(PurgeFile::create).transpose()?;
    // A purge list on stdout (`-`, `/dev/stdout`) has stdout to itself: the rest goes to
    // stderr, so that `--purge-list - | jq` reads JSON only.
    let to_stderr = purge_file.as_ref().is_some_and(|f| f.0.is_stdout());
    let json = args.format == DeployFormat::Json;
    if json && to_stderr {
        return Err(Failure::Usage(
            "--format json and a purge list on stdout would mix two JSON documents: write the purge list to a file".into(),
        ));
    }
    let say = |line: std::fmt::Arguments| {
        if to_stderr {
            super::messages::eprint(&line.to_string());
            Ok(())
        } else {
            say(line)
        }
    };
    let mut write_purge = |list: &PurgeList| match purge_file.as_mut() {
        Some(file) => file.write(list),
        None => Ok(()),
    };
    let note = super::messages::note;
    let busy = if args.no_wait { Busy::Refuse } else { Busy::Wait(&note) };
    let bar;
    let progress: &dyn Progress = if !args.quiet && std::io::stderr().is_terminal() {
        bar = Bar::new("objects");
        &bar
    } else {
        &()
    };
    let hooks = Hooks {
        progress,
        busy,
        purge_list: args.purge_list.is_some().then_some(&mut write_purge as deploy::WritePurgeList),
    };
    let deployed = deploy::deploy(&project, &opts, hooks)?;
    for w in &deployed.warnings {
        super::messages::warn(w);
    }
    // Said whatever --quiet says: no deploy publishes these, and the next will not say it.
    for changed in &deployed.hosting {
        super::messages::warn(&host_file_changed(changed));
    }
    if json {
        let text = super::messages::json(&report(&deployed));
        return super::print(|out| out.write_all(text.as_bytes()));
    }
    if deployed.dry_run {
        for (key, reason) in &deployed.uploaded {
            say(format_args!("upload {key} ({})", reason.as_str()))?;
        }
        for key in &deployed.deleted {
            say(format_args!("delete {key}"))?;
        }
        for sent in &deployed.purges {
            for item in &sent.items {
                say(format_args!("purge {} {item}", sent.cdn))?;
            }
        }
    }
    // With --dry-run, the counts are what a deploy would do.
    let (command, tail) = match deployed.dry_run {
        true => ("folio deploy --dry-run", "; nothing was sent".to_string()),
        false => ("folio deploy", format!(", {:.2} s", deployed.seconds)),
    };
    if deployed.dry_run || !args.quiet {
        let requests = deployed.requests.map(|r| format!("; requests: {r}")).unwrap_or_default();
        say(format_args!(
            "{command}: {}: {} uploaded, {} unchanged, {} deleted, {} bytes{tail}{requests}",
            deployed.target,
            deployed.uploaded.len(),
            deployed.unchanged,
            deployed.deleted.len(),
            deployed.bytes,
        ))?;
        for sent in &deployed.purges {
            say(format_args!("{}", purged(sent, deployed.dry_run)))?;
        }
    }
    Ok(())
}

/// A `hosting/` file that differs from the one the last deploy published, and what to do.
fn host_file_changed(changed: &folio::deploy::HostFileChanged) -> String {
    let what = if changed.new { "is new since" } else { "changed since" };
    format!("{} {what} the last deploy, which does not publish it: {}", changed.file, changed.step)
}

/// `--format json`: the deploy as one object.
fn report(d: &folio::deploy::Deployed) -> serde_json::Value {
    use serde_json::json;
    let purges: Vec<serde_json::Value> = (d.purges.iter())
        .map(|p| {
            json!({
                "cdn": p.cdn, "objects": p.objects, "requests": p.requests, "exact": p.exact,
                "wildcards": p.wildcards, "ids": p.ids, "waits": p.waits,
                "items": if d.dry_run { json!(p.items) } else { json!(null) },
            })
        })
        .collect();
    let requests = d.requests.map(
        |r| json!({"list": r.list, "head": r.head, "get": r.get, "put": r.put, "delete": r.delete}),
    );
    let mut out = json!({
        "target": d.target,
        "dry_run": d.dry_run,
        "uploaded": d.uploaded.len(),
        "unchanged": d.unchanged,
        "deleted": d.deleted.len(),
        "bytes": d.bytes,
        "seconds": if d.dry_run { json!(null) } else { json!(d.seconds) },
        "requests": requests,
        "purges": purges,
        "hosting_changed": d.hosting,
        "warnings": d.warnings,
    });
    if d.dry_run {
        let uploads: Vec<serde_json::Value> =
            d.uploaded.iter().map(|(key, r)| json!({"key": key, "reason": r.as_str()})).collect();
        out["uploads"] = uploads.into();
        out["deletes"] = json!(d.deleted);
    }
    out
}

/// One CDN's purge in a line: what it covered, in how many requests, and for CloudFront
/// what it counts against the month's free paths.
fn purged(sent: &folio::deploy::cdn::Sent, dry_run: bool) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let (exact, wild, request) = if sent.billed_paths {
        (("path", "paths"), ("wildcard", "wildcards"), ("invalidation", "invalidations"))
    } else {
        (("URL", "URLs"), ("prefix", "prefixes"), ("request", "requests"))
    };
    let mut line = format!(
        "{} {}: {} changed objects as {} and {} in {}",
        if dry_run { "would purge" } else { "purged" },
        sent.cdn,
        sent.objects,
        plural(sent.exact, exact.0, exact.1),
        plural(sent.wildcards, wild.0, wild.1),
        plural(sent.requests, request.0, request.1),
    );
    if !sent.ids.is_empty() {
        line.push_str(&format!(" ({})", sent.ids.join(", ")));
    }
    if sent.billed_paths {
        line.push_str(&format!(
            "; {} of the {} paths a month CloudFront invalidates free",
            sent.exact + sent.wildcards,
            folio::deploy::cdn::FREE_PATHS
        ));
    }
    if sent.waits > 0 {
        line.push_str(&format!("; waited {} times as it asked", sent.waits));
    }
    line
}

/// The purge list file (`output::user_file`): checked before the deploy sends anything,
/// so a path that cannot be written is refused first, and written once the deploy is done.
struct PurgeFile(UserFile);

impl PurgeFile {
    fn create(path: &Path) -> Result<PurgeFile, Failure> {
        UserFile::open(path).map(PurgeFile).map_err(|why| {
            Failure::Refused(
                format!(
                    "cannot write the purge list `{}` ({why}); nothing was sent",
                    path.display()
                )
                .into(),
            )
        })
    }

    fn write(&mut self, list: &PurgeList) -> Result<(), Failure> {
        let reference = format!(
            "folio-{}-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            list.objects.len()
        );
        // On stdout (`--purge-list -`) it may land in a CI log, as any JSON folio prints.
        let text = super::messages::json(&list.to_json(&reference));
        let shown = self.0.shown().to_string();
        self.0.write(text.as_bytes()).map_err(|e| {
            Failure::Other(
                anyhow::Error::from(e).context(format!("writing the purge list to `{shown}`")),
            )
        })
    }
}
