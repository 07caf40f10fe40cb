//! `folio deploy`: `[deploy]` with the command line's overrides, the deploy itself, then
//! the plan (with `--dry-run`) or one summary line, and the purge list file.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use super::{Bar, say};
use crate::cli::DeployArgs;
use crate::config::{Overrides, Project};
use crate::deploy::purge::PurgeList;
use crate::deploy::{self, Hooks, Options};
use crate::error::Failure;
use crate::output::lock::Busy;
use crate::site::Progress;

pub fn run(args: DeployArgs) -> Result<(), Failure> {
    let project = Project::discover(args.config.path.as_deref(), &Overrides::default())?;
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
    // An unwritable purge list is found out before anything is sent.
    let mut purge_file = args.purge_list.as_deref().map(PurgeFile::create).transpose()?;
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
        let requests = deployed.requests.map(|r| format!("; requests: {r}")).unwrap_or_default();
        say(format_args!(
            "{command}: {}: {} uploaded, {} unchanged, {} deleted, {} bytes{tail}{requests}",
            deployed.target,
            deployed.uploaded.len(),
            deployed.unchanged,
            deployed.deleted.len(),
            deployed.bytes,
        ))?;
    }
    Ok(())
}

/// The purge list file. A temporary file beside it is made before the deploy sends
/// anything, so a path that cannot be written is refused first; the list is written into
/// it and renamed into place once the deploy is done, so the file is whole or absent.
struct PurgeFile {
    path: PathBuf,
    tmp: Option<tempfile::NamedTempFile>,
}

impl PurgeFile {
    fn create(path: &Path) -> Result<PurgeFile, Failure> {
        let refused = |why: String| {
            Failure::Refused(format!(
                "cannot write the purge list `{}` ({why}); nothing was sent",
                path.display()
            ))
        };
        if path.is_dir() {
            return Err(refused("it is a folder".into()));
        }
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let mut builder = tempfile::Builder::new();
        builder.prefix(".folio-purge-");
        #[cfg(unix)]
        {
            // A purge list is read by other steps and users: not the temp file's 0600.
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o644));
        }
        let tmp = builder.tempfile_in(dir).map_err(|e| refused(e.to_string()))?;
        Ok(PurgeFile { path: path.to_path_buf(), tmp: Some(tmp) })
    }

    fn write(&mut self, list: &PurgeList) -> Result<(), Failure> {
        let reference = format!(
            "folio-{}-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            list.objects.len()
        );
        let text = serde_json::to_string_pretty(&list.to_json(&reference)).expect("plain JSON");
        let shown = self.path.display().to_string();
        let mut tmp = self.tmp.take().expect("the purge list is written once");
        let io = |e: std::io::Error| {
            Failure::Other(anyhow::Error::from(e).context(format!("writing `{shown}`")))
        };
        tmp.write_all(text.as_bytes()).and_then(|()| tmp.write_all(b"\n")).map_err(io)?;
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(&self.path).map_err(|e| io(e.error))?;
        Ok(())
    }
}
