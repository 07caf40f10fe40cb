//! `folio check`: the pipeline stopped after loading; every problem, or a summary.

use super::say;
use crate::cli::CheckArgs;
use crate::config::{Fallback, Overrides, Project};
use crate::error::Failure;
use crate::site;

pub fn run(args: CheckArgs) -> Result<(), Failure> {
    let overrides = Overrides { data_dir: args.data, ..Overrides::default() };
    let project = Project::discover(args.config.as_deref(), &overrides)?;
    let listing = site::load(&project);
    // Template problems are shown whatever the data, then the data's.
    match (site::check_templates(&project, listing.as_ref().ok()), listing) {
        (Ok(()), Ok(listing)) => summary(&project, &listing),
        (Err(templates), Ok(_)) => Err(templates),
        (Ok(()), Err(data)) => Err(data),
        (Err(templates), Err(data)) => {
            for line in templates.details() {
                crate::diag::eprint(&line);
            }
            Err(data)
        }
    }
}

fn summary(project: &Project, listing: &site::Listing) -> Result<(), Failure> {
    let data = &listing.data;
    for w in &data.warnings {
        crate::diag::eprint(&format!("warning: {w}"));
    }
    say(format_args!(
        "{} records in {} files; languages: {} (default {})",
        data.records.len(),
        data.files.len(),
        project.languages.join(", "),
        project.languages[project.default_language]
    ))?;
    if data.missing.is_empty() {
        say(format_args!("missing translations: none"))?;
    } else {
        let fallback = match project.fallback {
            Fallback::Default => "the default language's value",
            Fallback::Null => "null",
            Fallback::Error => "an error",
        };
        say(format_args!("missing translations (filled with {fallback}):"))?;
        for (lang_index, lang) in project.languages.iter().enumerate() {
            let fields: Vec<String> = data
                .missing
                .iter()
                .filter(|((l, _), _)| *l == lang_index)
                .map(|((_, field), n)| format!("{field} {n}"))
                .collect();
            if !fields.is_empty() {
                say(format_args!("  {lang}: {}", fields.join(", ")))?;
            }
        }
    }
    Ok(())
}
