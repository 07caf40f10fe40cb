//! `folio check`: the pipeline stopped after loading; every problem, or a summary.

use crate::cli::CheckArgs;
use crate::config::{Fallback, Overrides};
use crate::error::Failure;
use crate::site;

pub fn run(args: CheckArgs) -> Result<(), Failure> {
    let overrides = Overrides { data_dir: args.data, ..Overrides::default() };
    let project = site::project(args.config.as_deref(), &overrides)?;
    let listing = site::load(&project)?;
    let data = &listing.data;
    for w in &data.warnings {
        eprintln!("warning: {w}");
    }
    println!(
        "{} records in {} files; languages: {} (default {})",
        data.records.len(),
        data.files.len(),
        project.languages.join(", "),
        project.languages[project.default_language]
    );
    if data.missing.is_empty() {
        println!("missing translations: none");
    } else {
        let fallback = match project.fallback {
            Fallback::Default => "the default language's value",
            Fallback::Null => "null",
            Fallback::Error => "an error",
        };
        println!("missing translations (filled with {fallback}):");
        for (lang_index, lang) in project.languages.iter().enumerate() {
            let fields: Vec<String> = data
                .missing
                .iter()
                .filter(|((l, _), _)| *l == lang_index)
                .map(|((_, field), n)| format!("{field} {n}"))
                .collect();
            if !fields.is_empty() {
                println!("  {lang}: {}", fields.join(", "));
            }
        }
    }
    Ok(())
}
