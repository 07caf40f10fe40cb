//! `folio deploy`: `[deploy]` with the command line's overrides, the deploy itself, then
//! the plan (with `--dry-run`) or one summary line, and the purge list file.

use std::io::IsTerminal;

use anyhow::Context;

use super::{Bar, say};
use crate::cli::DeployArgs;
use crate::config::{Overrides, Project};
use crate::deploy::{self, Options};
use crate::error::Failure;

pub fn run(args: DeployArgs) -> Result<(), Failure> {
    let project = Project::discover(args.config.as_deref(), &Overrides::default())?;
    let d = &project.deploy;
    let url = args.to.clone().unwrap_or_else(|| d.url.clone());
    if url.is_empty() {
        return Err(Failure::Refused(format!(
            "nowhere to deploy: set `url` under [deploy] in {}, or pass --to s3://bucket/prefix",
            project.config_path.display()
        )));
    }
    let opts = Options {
        url,
        endpoint: args.endpoint.clone().unwrap_or_else(|| d.endpoint.clone()),
        region: d.region.clone(),
        dry_run: args.dry_run,
        force: args.force,
        max_deletes: args.max_deletes.unwrap_or(d.max_deletes),
        concurrency: d.concurrency as usize,
        siblings: d.siblings,
    };
    let deployed = if !args.quiet && std::io::stderr().is_terminal() {
        deploy::deploy(&project, &opts, &Bar::new("objects"))?
    } else {
        deploy::deploy(&project, &opts, &())?
    };
    for w in &deployed.warnings {
        crate::diag::eprint(&format!("warning: {w}"));
    }
    if let Some(path) = &args.purge_list {
        let mut objects: Vec<String> = (deployed.uploaded.iter().map(|(k, _)| k.clone()))
            .chain(deployed.deleted.iter().cloned())
            .collect();
        objects.sort();
        let reference = format!(
            "folio-{}-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            objects.len()
        );
        let doc = deployed.purge.to_json(&deployed.base_url, &objects, &reference);
        let text = serde_json::to_string_pretty(&doc).expect("plain JSON") + "\n";
        std::fs::write(path, text).with_context(|| format!("writing `{}`", path.display()))?;
    }
    if deployed.dry_run {
        for (key, reason) in &deployed.uploaded {
            say(format_args!("upload {key} ({})", reason.as_str()))?;
        }
        for key in &deployed.deleted {
            say(format_args!("delete {key}"))?;
        }
    }
    // With --dry-run, the counts are what a deploy would do.
    let (command, tail) = match deployed.dry_run {
        true => ("folio deploy --dry-run", "; nothing was sent".to_string()),
        false => ("folio deploy", format!(", {:.2} s", deployed.seconds)),
    };
    if deployed.dry_run || !args.quiet {
        say(format_args!(
            "{command}: {}: {} uploaded, {} unchanged, {} deleted, {} bytes{tail}",
            deployed.target,
            deployed.uploaded.len(),
            deployed.unchanged,
            deployed.deleted.len(),
            deployed.bytes,
        ))?;
    }
    Ok(())
}
