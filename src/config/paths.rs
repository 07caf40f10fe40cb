//! The project's folders: resolved against the config's folder (or, for command-line
//! values, the working directory), compared before they exist, and refused where folio
//! would write over the project, its data, or publish its host configs.

use std::path::{Component, Path, PathBuf};

use super::{Config, Overrides};

/// Joins `path` onto `base` and removes `.` and `..` lexically, then resolves symlinks in
/// the longest prefix that exists, so folders can be compared before they exist.
pub fn normalize(base: &Path, path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in base.join(path).components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    let mut existing = out.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return out,
        }
    }
    let mut real = existing.canonicalize().unwrap_or_else(|_| existing.to_path_buf());
    real.extend(rest.iter().rev());
    real
}

/// The resolved folders of a project.
pub struct ProjectFolders {
    pub root: PathBuf,
    pub data: PathBuf,
    pub output: PathBuf,
    pub templates: PathBuf,
    pub hosting: PathBuf,
}

impl ProjectFolders {
    /// Resolves the config's folders (against `root`) and the overrides (against `cwd`);
    /// every refusal goes to `err`.
    pub fn resolve(
        config: &Config,
        root: &Path,
        cwd: &Path,
        overrides: &Overrides,
        err: &mut dyn FnMut(&str, String),
    ) -> ProjectFolders {
        let pick = |over: &Option<PathBuf>, own: &Path| match over {
            Some(p) => normalize(cwd, p),
            None => normalize(root, own),
        };
        let root_real = normalize(root, Path::new("."));
        let data_dir = pick(&overrides.data_dir, &config.data_dir);
        let output_dir = pick(&overrides.output_dir, &config.output_dir);
        let templates_dir = normalize(root, &config.templates_dir);
        let hosting_dir = normalize(root, &config.hosting_dir);
        let shown = |p: &Path| crate::diag::display_path(p).display().to_string();
        let out = shown(&output_dir);
        if output_dir == root_real {
            err(
                "output_dir",
                format!(
                    "output_dir `{out}` is the project folder; folio needs a folder of its own"
                ),
            );
        } else if root_real.starts_with(&output_dir) {
            err(
                "output_dir",
                format!(
                    "output_dir `{out}` contains the project folder; folio needs a folder of its own"
                ),
            );
        }
        if output_dir == data_dir {
            err("output_dir", format!("output_dir `{out}` is the data folder"));
        } else if output_dir.starts_with(&data_dir) {
            err(
                "output_dir",
                format!("output_dir `{out}` is inside the data folder `{}`", shown(&data_dir)),
            );
        } else if data_dir.starts_with(&output_dir) {
            err(
                "output_dir",
                format!("output_dir `{out}` contains the data folder `{}`", shown(&data_dir)),
            );
        }
        if hosting_dir.starts_with(&output_dir) {
            err(
                "hosting_dir",
                format!(
                    "hosting_dir `{}` is inside output_dir `{out}`; host configs must not be published",
                    shown(&hosting_dir)
                ),
            );
        } else if hosting_dir == root_real
            || root_real.starts_with(&hosting_dir)
            || hosting_dir == data_dir
        {
            err(
                "hosting_dir",
                format!("hosting_dir `{}` must be a folder of its own", shown(&hosting_dir)),
            );
        }
        ProjectFolders {
            root: root_real,
            data: data_dir,
            output: output_dir,
            templates: templates_dir,
            hosting: hosting_dir,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::project;

    #[test]
    fn refuses_output_folders_that_would_swallow_the_project_or_data() {
        for (text, needle) in [
            ("output_dir = \".\"", "is the project folder"),
            ("output_dir = \"..\"", "contains the project folder"),
            ("output_dir = \"data\"", "is the data folder"),
            ("output_dir = \"data/out\"", "is inside the data folder"),
            ("data_dir = \"site/data\"\noutput_dir = \"site\"", "contains the data folder"),
            ("hosting_dir = \"output/hosting\"", "hosting_dir"),
        ] {
            let err = project(text).unwrap_err();
            assert!(err.iter().any(|e| e.contains(needle)), "{text}: {err:?}");
        }
    }
}
