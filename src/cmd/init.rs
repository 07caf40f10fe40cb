//! `folio init`: writes `init::files` into the project folder. A folder that already has
//! a `folio.toml` or a `data/` is refused unless `--force`; then the old `folio.toml` is
//! kept as `folio.toml.bak`, existing files are never replaced, and no sample data goes
//! into an existing `data/` (it would mix with the user's records). Every path is one of
//! init's own, resolved below the folder with no symlinked folder on the way.

use std::fs;
use std::path::Path;

use anyhow::Context;

use super::say;
use crate::cli::InitArgs;
use folio::error::Failure;
use folio::init::{self, InitFile, Options};
use folio::output::paths::Confined;

pub fn run(args: InitArgs) -> Result<(), Failure> {
    let cwd = std::env::current_dir().context("reading the working directory")?;
    let dir = args.dir.as_deref().map_or_else(|| cwd.clone(), |d| cwd.join(d));
    let shown = match folio::diag::display_path(&dir) {
        p if p.as_os_str().is_empty() => ".".into(),
        p => p,
    };
    let languages: Vec<String> =
        args.languages.iter().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect();
    let default_language = args
        .default_language
        .clone()
        .or_else(|| languages.first().cloned())
        .unwrap_or_else(|| "en".into());
    let options = Options { languages, default_language, resource: args.resource.clone() };
    let files = init::files(&options)
        .map_err(|errors| Failure::Usage(format!("folio init: {}", errors.join("; "))))?;

    let has_config = dir.join("folio.toml").exists();
    let has_data = dir.join("data").exists();
    if (has_config || has_data) && !args.force {
        let what = if has_config { "a folio.toml" } else { "a data/ folder" };
        return Err(Failure::Refused(
            format!(
                "`{}` already has {what}: folio init starts new projects only; pass --force to \
             add what is missing (the old folio.toml is kept as folio.toml.bak)",
                shown.display()
            )
            .into(),
        ));
    }
    fs::create_dir_all(&dir).with_context(|| format!("creating `{}`", shown.display()))?;
    let mut confined = Confined::new(&dir);
    let mut written = Vec::new();
    let mut skipped = Vec::new();
    for file in &files {
        let path = confined
            .resolve(file.rel)
            .map_err(|why| Failure::Refused(format!("not writing `{}`: {why}", file.rel).into()))?;
        if file.data && has_data {
            skipped.push(file.rel);
            continue;
        }
        let exists = fs::symlink_metadata(&path).is_ok();
        if exists && file.rel != "folio.toml" {
            skipped.push(file.rel);
            continue;
        }
        if exists {
            keep_old_config(&dir, &path)?;
        }
        write_new(&path, file)?;
        written.push(file.rel);
    }

    say(format_args!("Created a folio project in {}:", shown.display()))?;
    say(format_args!("  {}", written.join("  ")))?;
    if !skipped.is_empty() {
        say(format_args!("Kept as they were: {}", skipped.join("  ")))?;
    }
    if has_data {
        say(format_args!(
            "data/ has your records: [fields] in folio.toml describes the sample's; edit it to \
             match yours (folio check says what does not fit)."
        ))?;
    }
    if skipped.contains(&".gitignore") {
        say(format_args!("Add /output/ and /hosting/ to your .gitignore: folio writes them."))?;
    }
    say(format_args!("Next:"))?;
    if dir != cwd {
        say(format_args!("  cd {}", shell_word(&shown)))?;
    }
    say(format_args!("  folio check    # validate data/ and folio.toml"))?;
    say(format_args!("  folio build    # write output/ and hosting/"))?;
    say(format_args!(
        "  folio serve    # preview on http://127.0.0.1:8080/{}",
        folio::routes::layout::EXPLORER
    ))?;
    Ok(())
}

/// Moves an existing `folio.toml` to `folio.toml.bak`, refusing to replace an older one.
fn keep_old_config(dir: &Path, path: &Path) -> Result<(), Failure> {
    let backup = dir.join("folio.toml.bak");
    if fs::symlink_metadata(&backup).is_ok() {
        return Err(Failure::Refused(
            format!(
                "`{}` exists: move it away so folio init can keep the current folio.toml there",
                folio::diag::display_path(&backup).display()
            )
            .into(),
        ));
    }
    fs::rename(path, &backup).with_context(|| format!("keeping `{}`", path.display()))?;
    Ok(())
}

/// Creates `path` (and its folder); never follows or replaces anything already there.
fn write_new(path: &Path, file: &InitFile) -> Result<(), Failure> {
    let shown = folio::diag::display_path(path);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).with_context(|| format!("creating `{}`", shown.display()))?;
    }
    folio::output::paths::create_new(path, false, |out| out.write_all(file.contents.as_bytes()))
        .and_then(|out| out.sync_all())
        .with_context(|| format!("creating `{}`", shown.display()))?;
    Ok(())
}

/// A path as one word a shell reads back unchanged.
fn shell_word(path: &Path) -> String {
    let s = path.to_string_lossy();
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c)) {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
