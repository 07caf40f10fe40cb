//! `folio check`: the pipeline stopped after loading; every problem, or a summary. With
//! `--format json`, one JSON object on stdout says the same (for a CI step to read); with
//! `--format github`, GitHub Actions annotations on stdout, one a problem or warning, made
//! from that object. stderr and the exit code are those of the text format.

use serde_json::{Value, json};

use super::exit::Exit;
use super::say;
use crate::cli::{CheckArgs, Format};
use folio::config::{Fallback, Overrides, Project};
use folio::error::Failure;
use folio::site;

/// The version of the JSON report's layout; a change of its keys changes it.
const REPORT_VERSION: u64 = 2;

pub fn run(args: CheckArgs) -> Result<(), Failure> {
    let outcome = check(&args);
    match args.format {
        Format::Json => {
            let text = super::messages::json(&report(&outcome, args.missing));
            super::print(|out| out.write_all(text.as_bytes()))?;
        }
        Format::Github => {
            for line in annotations(&report(&outcome, false)) {
                super::messages::annotate(&line)?;
            }
        }
        Format::Text => {}
    }
    match outcome {
        Ok((project, listing)) => match args.format {
            Format::Text | Format::Github => summary(&project, &listing, args.missing),
            Format::Json => {
                warn(&listing);
                Ok(())
            }
        },
        Err(failures) => {
            // Every failure prints its lines here; the last one's summary is main's to say,
            // without "nothing was written": check never writes.
            for f in &failures {
                for line in f.details() {
                    super::messages::eprint(&line);
                }
            }
            let last = failures.last().expect("at least one failure");
            match last.exit_code() {
                1 => Err(Failure::Refused(
                    super::exit::message(last).replace("; nothing was written", "").into(),
                )),
                _ => Err(failures.into_iter().next_back().expect("at least one failure")),
            }
        }
    }
}

/// The project and its loaded listing, or every failure: the config's alone (nothing
/// else can be checked without it), else the templates' and the data's.
fn check(args: &CheckArgs) -> Result<(Project, site::Listing), Vec<Failure>> {
    let overrides = Overrides { data_dir: args.data.path.clone(), ..Overrides::default() };
    let project = super::discover(args.config.path.as_deref(), &overrides).map_err(|e| vec![e])?;
    let listing = site::load(&project);
    match (site::check_templates(&project, listing.as_ref().ok()), listing) {
        (Ok(()), Ok(mut listing)) => {
            // What each host would receive from a build of this listing.
            let site::HostLimits { over, near, .. } = site::host_limits(&project, &listing.map);
            if !over.is_empty() {
                return Err(vec![Failure::Limits(over)]);
            }
            // What only the loaded records show: a [fields] table no record has, a CSV
            // column of numbers published as strings.
            let hints = site::field_hints(&project, &listing.data);
            listing.data.warnings.extend(hints);
            let shown = folio::diag::display_path(&project.config_path).to_path_buf();
            listing.data.warnings.extend(near.into_iter().map(|message| folio::diag::Problem {
                file: usize::MAX,
                path: shown.clone(),
                line: None,
                column: None,
                field: Some("hosting.targets".into()),
                message,
                value: None,
                record: None,
                kind: None,
                count: 1,
            }));
            Ok((project, listing))
        }
        (Err(templates), Ok(_)) => Err(vec![templates]),
        (Ok(()), Err(data)) => Err(vec![data]),
        (Err(templates), Err(data)) => Err(vec![templates, data]),
    }
}

fn warn(listing: &site::Listing) {
    for w in &listing.data.warnings {
        super::messages::warn(&w.to_string());
    }
}

fn summary(project: &Project, listing: &site::Listing, by_record: bool) -> Result<(), Failure> {
    let data = &listing.data;
    warn(listing);
    let (records, files) = (data.records.len(), data.files.len());
    let s = |n: usize| if n == 1 { "" } else { "s" };
    say(format_args!(
        "{records} record{} in {files} file{}; languages: {} (default {})",
        s(records),
        s(files),
        project.shape.languages.join(", "),
        project.shape.languages[project.shape.default_language]
    ))?;
    if data.missing.is_empty() {
        say(format_args!("missing translations: none"))?;
    } else {
        say(format_args!("missing translations (filled with {}):", fallback(project.fallback)))?;
        for (lang_index, lang) in project.shape.languages.iter().enumerate() {
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
        if by_record {
            say(format_args!("missing translations by record:"))?;
            for m in site::missing_translations(project, data) {
                let place = match m.line {
                    Some(line) => format!("{}:{line}", m.path.display()),
                    None => m.path.display().to_string(),
                };
                let lang = &project.shape.languages[m.lang];
                say(format_args!("  {lang}: id {}: {} ({place})", m.id, m.fields.join(", ")))?;
            }
        }
    }
    Ok(())
}

/// The worklist of `--missing` as JSON: one entry a record and language.
fn missing_records(project: &Project, data: &folio::load::Dataset) -> Value {
    let list = site::missing_translations(project, data).into_iter().map(|m| {
        let id = match &m.id {
            folio::model::Id::Int(i) => json!(i),
            folio::model::Id::Str(s) => json!(s.as_ref()),
        };
        json!({
            "language": project.shape.languages[m.lang],
            "id": id,
            "fields": m.fields,
            "file": m.path.display().to_string(),
            "line": m.line,
        })
    });
    Value::Array(list.collect())
}

fn fallback(f: Fallback) -> &'static str {
    match f {
        Fallback::Default => "the default language's value",
        Fallback::Null => "null",
        Fallback::Error => "an error",
    }
}

/// One problem of the report: where (file, line, field; each may be null) and what.
fn problem(
    kind: &str,
    file: Option<String>,
    line: Option<u64>,
    field: Option<&str>,
    message: &str,
) -> Value {
    json!({"kind": kind, "file": file, "line": line, "field": field, "message": message})
}

/// A template message, `path:line: message` or `built-in NAME: message`, taken apart.
fn template_problem(message: &str) -> Value {
    let mut parts = message.splitn(3, ": ");
    let place = parts.next().unwrap_or_default();
    let (file, line) = match place.rsplit_once(':') {
        Some((file, line)) if line.parse::<u64>().is_ok() => (file, line.parse().ok()),
        _ => (place, None),
    };
    let rest = message.get(place.len() + 2..).unwrap_or(message);
    problem("template", Some(file.to_string()), line, None, rest)
}

fn problems(failure: &Failure) -> Vec<Value> {
    let path = |p: &std::path::Path| Some(p.display().to_string());
    match failure {
        Failure::Invalid(list) => list
            .iter()
            .map(|p| {
                let mut v = problem("data", path(&p.path), p.line, p.field.as_deref(), &p.message);
                v["column"] = json!(p.column);
                v["count"] = json!(p.count);
                v["record"] = p.record.as_ref().map_or(
                    Value::Null,
                    |at| json!({"index": at.index, "column": at.column, "id": at.id}),
                );
                v
            })
            .collect(),
        Failure::Config(list) => list
            .iter()
            .map(|e| {
                let mut v = problem("config", path(&e.path), e.line, None, &e.message);
                v["column"] = json!(e.column);
                v
            })
            .collect(),
        Failure::Template(list) => list.iter().map(|m| template_problem(m)).collect(),
        Failure::Limits(list) => list
            .iter()
            .map(|m| problem("hosting", None, None, Some("hosting.targets"), m))
            .collect(),
        other => vec![problem("usage", None, None, None, &other.to_string())],
    }
}

/// The report's problems and warnings as GitHub Actions workflow commands: one
/// `::error` (`::warning`) line each, at its file, line and column where it has them, its
/// record (index and id, for a line of many records) and field before its message.
fn annotations(report: &Value) -> Vec<String> {
    let each = |key: &str, level: &'static str| {
        let list = report[key].as_array().map(Vec::as_slice).unwrap_or_default();
        list.iter().map(move |problem| annotation(level, problem))
    };
    each("problems", "error").chain(each("warnings", "warning")).collect()
}

/// One problem of the report (`kind`, `file`, `line`, `field`, `message`, and `record` or
/// `column` when known) as `::LEVEL file=…,line=…,col=…,title=…::TEXT`.
fn annotation(level: &str, problem: &Value) -> String {
    let mut properties = Vec::new();
    if let Some(file) = problem["file"].as_str() {
        properties.push(format!("file={}", property(file)));
        if let Some(line) = problem["line"].as_u64() {
            properties.push(format!("line={line}"));
            let column = problem["record"]["column"].as_u64().or(problem["column"].as_u64());
            if let Some(column) = column {
                properties.push(format!("col={column}"));
            }
        }
    }
    if let Some(kind) = problem["kind"].as_str() {
        properties.push(format!("title={}", property(&format!("folio check ({kind})"))));
    }
    let mut text = String::new();
    if let Some(index) = problem["record"]["index"].as_u64() {
        text.push_str(&format!("record [{index}]"));
        if let Some(id) = problem["record"]["id"].as_str() {
            text.push_str(&format!(" (id {id})"));
        }
        text.push_str(": ");
    }
    if let Some(field) = problem["field"].as_str() {
        text.push_str(field);
        text.push_str(": ");
    }
    text.push_str(problem["message"].as_str().unwrap_or_default());
    format!("::{level} {}::{}", properties.join(","), message(&text))
}

/// A workflow command's message, escaped as the runner unescapes it: `%`, CR and LF (as
/// @actions/core's `escapeData`). The writer (`messages::annotate`) escapes what else
/// may not be printed as is, and shows `##[` as `#\u{23}[`: the runner reads a line it
/// parsed as `::error` no further, but nothing else need rely on that.
fn message(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property value: as a message, and `:` and `,` too, which end it.
fn property(text: &str) -> String {
    message(text).replace(':', "%3A").replace(',', "%2C")
}

/// The JSON report: stable keys, null where a value is unknown (no config, no data).
/// `missing_records` is null unless `by_record` (`--missing`) asks for the worklist.
fn report(outcome: &Result<(Project, site::Listing), Vec<Failure>>, by_record: bool) -> Value {
    match outcome {
        Ok((project, listing)) => {
            let data = &listing.data;
            let mut missing = serde_json::Map::new();
            for ((lang, field), n) in &data.missing {
                let entry = missing
                    .entry(project.shape.languages[*lang].clone())
                    .or_insert_with(|| json!({}));
                entry[field] = json!(n);
            }
            let warnings: Vec<Value> = (data.warnings.iter())
                .map(|w| {
                    problem(
                        "data",
                        Some(w.path.display().to_string()),
                        w.line,
                        w.field.as_deref(),
                        &w.message,
                    )
                })
                .collect();
            json!({
                "version": REPORT_VERSION,
                "ok": true,
                "exit_code": 0,
                "error": null,
                "records": data.records.len(),
                "files": data.files.len(),
                "languages": project.shape.languages,
                "default_language": project.shape.languages[project.shape.default_language],
                "fallback": match project.fallback {
                    Fallback::Default => "default",
                    Fallback::Null => "null",
                    Fallback::Error => "error",
                },
                "missing_translations": missing,
                "missing_records": if by_record { missing_records(project, data) } else { Value::Null },
                "problems": [],
                "warnings": warnings,
            })
        }
        Err(failures) => {
            let last = failures.last().expect("at least one failure");
            json!({
                "version": REPORT_VERSION,
                "ok": false,
                "exit_code": last.exit_code(),
                "error": super::exit::message(last),
                "records": null,
                "files": null,
                "languages": null,
                "default_language": null,
                "fallback": null,
                "missing_translations": null,
                "missing_records": null,
                "problems": failures.iter().flat_map(problems).collect::<Vec<_>>(),
                "warnings": [],
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_annotation_escapes_what_the_runner_would_read_as_its_own() {
        let problem = json!({
            "kind": "data", "file": "data/a,b:c%.json", "line": 1, "field": "name",
            "message": "100% \"x\"\r\nnext: line, two",
            "record": {"index": 3, "column": 81, "id": "17"},
        });
        assert_eq!(
            annotation("error", &problem),
            "::error file=data/a%2Cb%3Ac%25.json,line=1,col=81,title=folio check (data)::record [3] (id 17): name: 100%25 \"x\"%0D%0Anext: line, two"
        );
        // Without a line no column; without a file neither; a record with no valid id.
        let config = json!({"kind": "config", "file": "folio.toml", "line": null,
            "field": null, "message": "m", "column": 4});
        assert_eq!(
            annotation("warning", &config),
            "::warning file=folio.toml,title=folio check (config)::m"
        );
        let usage = json!({"kind": "usage", "file": null, "line": null, "field": null,
            "message": "no config", "record": {"index": 0, "column": 2, "id": null}});
        assert_eq!(
            annotation("error", &usage),
            "::error title=folio check (usage)::record [0]: no config"
        );
    }
}
