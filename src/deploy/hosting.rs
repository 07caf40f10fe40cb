//! The `hosting/` files a deploy names: no deploy publishes them (a user installs each on
//! its server or CDN by hand), so the store's record keeps each one's digest, and a deploy
//! of a build whose files differ from the last one's says which, and how to publish each.

use std::collections::BTreeMap;

use crate::config::Project;

/// One `hosting/` file of the build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostFile {
    /// Below the hosting folder, as the record keys it.
    pub name: String,
    /// As the user finds it (`hosting/nginx.conf`).
    pub shown: String,
    pub digest: u128,
    /// How it reaches its server ([`crate::hosts::publish_step`]).
    pub step: &'static str,
}

/// A `hosting/` file that differs from the one the last deploy published, or that it had
/// none of.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Changed {
    pub file: String,
    /// No file of that name was published last time (a target added).
    pub new: bool,
    pub step: String,
}

/// The project's `hosting/` files, as its build writes them (folio.toml alone decides
/// them: they need no data).
pub fn files(project: &Project) -> Vec<HostFile> {
    let folder = crate::diag::display_path(&project.hosting_dir);
    let mut files: Vec<HostFile> = (crate::site::server_files(project).into_iter())
        .flat_map(|(target, files)| {
            let step = crate::hosts::publish_step(target);
            files.into_iter().map(move |f| (f, step))
        })
        .map(|(f, step)| HostFile {
            shown: folder.join(&f.name).display().to_string(),
            digest: xxhash_rust::xxh3::xxh3_128(f.contents.as_bytes()),
            name: f.name,
            step,
        })
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    files
}

/// What the record keeps of `files`.
pub fn digests(files: &[HostFile]) -> BTreeMap<String, u128> {
    files.iter().map(|f| (f.name.clone(), f.digest)).collect()
}

/// The files of `files` that differ from `last` (what the record says was published). A
/// record that names none (a first deploy, or a record of a folio before this one) has
/// nothing to compare with: the docs ask for every host file to be installed once.
pub fn changed(files: &[HostFile], last: &BTreeMap<String, u128>) -> Vec<Changed> {
    if last.is_empty() {
        return Vec::new();
    }
    (files.iter())
        .filter(|f| last.get(&f.name) != Some(&f.digest))
        .map(|f| Changed {
            file: f.shown.clone(),
            new: !last.contains_key(&f.name),
            step: f.step.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, digest: u128) -> HostFile {
        HostFile { name: name.into(), shown: format!("hosting/{name}"), digest, step: "reload" }
    }

    #[test]
    fn a_file_is_named_when_its_digest_moved_or_it_is_new_and_never_on_a_first_deploy() {
        let files = [file("Caddyfile", 1), file("nginx.conf", 2), file("folio.lua", 3)];
        assert_eq!(changed(&files, &BTreeMap::new()), []);
        let last = BTreeMap::from([("nginx.conf".to_string(), 2), ("Caddyfile".to_string(), 9)]);
        let got = changed(&files, &last);
        let named: Vec<(&str, bool)> = got.iter().map(|c| (c.file.as_str(), c.new)).collect();
        assert_eq!(named, [("hosting/Caddyfile", false), ("hosting/folio.lua", true)]);
        assert_eq!(changed(&files, &digests(&files)), []);
    }
}
