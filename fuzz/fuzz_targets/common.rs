//! What the loader targets share: a project whose schema makes every loader path run,
//! and the property every problem must have (a line inside the file).

use std::path::Path;
use std::sync::OnceLock;

use folio::config::{Config, Overrides, Project};
use folio::diag::Problem;

const CONFIG: &str = concat!(
    "[listing]\nlanguages = [\"en\", \"fr\", \"ja\"]\nsort = [\"-rating\", \"name\"]\n",
    include_str!("../../tests/fixtures/fields.toml")
);

pub fn project() -> &'static Project {
    static PROJECT: OnceLock<Project> = OnceLock::new();
    PROJECT.get_or_init(|| {
        let root = Path::new("/nonexistent/fuzz");
        Config::from_str(CONFIG, Path::new("folio.toml"))
            .expect("the fuzz config parses")
            .validate(Path::new("folio.toml"), root, root, &Overrides::default())
            .expect("the fuzz config is valid")
    })
}

/// The first byte picks the batch size (1..=64 bytes, so batches split everywhere); the
/// rest is the file.
pub fn split(data: &[u8]) -> (usize, &[u8]) {
    match data.split_first() {
        Some((b, rest)) => (1 + usize::from(*b % 64), rest),
        None => (1, data),
    }
}

/// Every problem names a line between 1 and `last`, the file's last line.
pub fn assert_lines_inside(problems: &[Problem], last: u64) {
    for p in problems {
        if let Some(line) = p.line {
            assert!((1..=last).contains(&line), "line {line} outside 1..={last}: {p}");
        }
    }
}
