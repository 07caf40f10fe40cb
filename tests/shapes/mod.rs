//! One set of records written in each shape that users' tools write, byte for byte as
//! those tools write it. The shape benchmark (`scripts/bench-shapes.sh`, through
//! `examples/shapes.rs`) and the integration tests (`tests/it/shapes.rs`) both make their
//! inputs here, so what is measured is what is tested.
//!
//! Records are JSON objects: a localized field is an object of language codes, a list
//! field a list of strings, a nested field an object. CSV shapes flatten them the way a
//! spreadsheet export does (dotted headers, lists joined with `|`, null as an empty cell).

#![allow(dead_code)] // each includer uses part of it

use serde_json::{Map, Value};

type Record = Map<String, Value>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The whole array on one line: Python's `json.dump`, `JSON.stringify`, pandas'
    /// `to_json(orient="records")`, most HTTP APIs.
    OneLine,
    /// Indented by 2: `jq .`, `JSON.stringify(x, null, 2)`, editors.
    Pretty,
    /// An array with one record a line.
    PerLine,
    /// JSON Lines: `jq -c '.[]'`, pandas' `to_json(lines=True)`, log pipelines.
    JsonLines,
    /// RFC 4180 CSV with LF line ends.
    Csv,
    /// A spreadsheet's "CSV UTF-8": a BOM and CRLF.
    ExcelUs,
    /// A spreadsheet in a European locale: BOM, CRLF, `;` between fields and decimal
    /// commas (read with `csv_delimiter = ";"` and `decimal_separator = ","`).
    ExcelEu,
    /// A sheet's "Tab-separated values" download: tabs and CRLF.
    Tsv,
}

impl Shape {
    pub const ALL: [Shape; 8] = [
        Shape::OneLine,
        Shape::Pretty,
        Shape::PerLine,
        Shape::JsonLines,
        Shape::Csv,
        Shape::ExcelUs,
        Shape::ExcelEu,
        Shape::Tsv,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::OneLine => "one-line JSON",
            Shape::Pretty => "pretty JSON",
            Shape::PerLine => "JSON, a record a line",
            Shape::JsonLines => "JSON Lines",
            Shape::Csv => "CSV",
            Shape::ExcelUs => "CSV, spreadsheet (US)",
            Shape::ExcelEu => "CSV, spreadsheet (EU)",
            Shape::Tsv => "TSV",
        }
    }

    pub fn file_name(self) -> &'static str {
        match self {
            Shape::OneLine => "oneline.json",
            Shape::Pretty => "pretty.json",
            Shape::PerLine => "perline.json",
            Shape::JsonLines => "records.jsonl",
            Shape::Csv => "comma.csv",
            Shape::ExcelUs => "excel-us.csv",
            Shape::ExcelEu => "excel-eu.csv",
            Shape::Tsv => "sheet.tsv",
        }
    }

    /// What `folio.toml` needs besides the project's own settings to read this shape.
    pub fn input_config(self) -> &'static str {
        match self {
            Shape::ExcelEu => "[input]\ncsv_delimiter = \";\"\ndecimal_separator = \",\"\n",
            _ => "",
        }
    }

    /// The file's bytes.
    pub fn write(self, records: &[Record]) -> Vec<u8> {
        match self {
            Shape::OneLine => {
                spaced(&Value::Array(records.iter().cloned().map(Value::Object).collect()))
            }
            Shape::Pretty => {
                let mut text = serde_json::to_vec_pretty(records).expect("records serialize");
                text.push(b'\n');
                text
            }
            Shape::PerLine => {
                let lines: Vec<Vec<u8>> =
                    records.iter().map(|r| spaced(&Value::Object(r.clone()))).collect();
                let mut out = b"[\n".to_vec();
                out.extend(lines.join(&b",\n"[..]));
                out.extend(b"\n]\n");
                out
            }
            Shape::JsonLines => records
                .iter()
                .flat_map(|r| {
                    let mut line = spaced(&Value::Object(r.clone()));
                    line.push(b'\n');
                    line
                })
                .collect(),
            Shape::Csv => table(records, b',', "\n", false, false),
            Shape::ExcelUs => table(records, b',', "\r\n", false, true),
            Shape::ExcelEu => table(records, b';', "\r\n", true, true),
            Shape::Tsv => table(records, b'\t', "\r\n", false, false),
        }
    }
}

/// JSON on one line with Python's default separators (`", "` and `": "`), non-ASCII
/// written as is: what `json.dumps(x, ensure_ascii=False)` gives.
fn spaced(value: &Value) -> Vec<u8> {
    struct Python;
    impl serde_json::ser::Formatter for Python {
        fn begin_array_value<W: ?Sized + std::io::Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_key<W: ?Sized + std::io::Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_value<W: ?Sized + std::io::Write>(
            &mut self,
            w: &mut W,
        ) -> std::io::Result<()> {
            w.write_all(b": ")
        }
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Python);
    serde::Serialize::serialize(value, &mut ser).expect("a value serializes");
    out
}

/// A record as one row: dotted keys for nested objects, in the record's own order.
fn flatten(prefix: &str, record: &Record, out: &mut Vec<(String, Value)>) {
    for (key, value) in record {
        let key = format!("{prefix}{key}");
        match value {
            Value::Object(inner) => flatten(&format!("{key}."), inner, out),
            other => out.push((key, other.clone())),
        }
    }
}

/// A cell as a spreadsheet writes it.
fn cell(value: &Value, decimal_comma: bool) -> String {
    match value {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join("|"),
        Value::Number(n) if decimal_comma && n.is_f64() => n.to_string().replace('.', ","),
        other => other.to_string(),
    }
}

fn table(
    records: &[Record],
    delimiter: u8,
    newline: &str,
    decimal_comma: bool,
    bom: bool,
) -> Vec<u8> {
    let rows: Vec<Vec<(String, Value)>> = records
        .iter()
        .map(|r| {
            let mut row = Vec::new();
            flatten("", r, &mut row);
            row
        })
        .collect();
    let mut header: Vec<String> = Vec::new();
    for row in &rows {
        for (key, _) in row {
            if !header.contains(key) {
                header.push(key.clone());
            }
        }
    }
    let terminator = match newline {
        "\r\n" => csv::Terminator::CRLF,
        _ => csv::Terminator::Any(b'\n'),
    };
    let mut out = if bom { "\u{feff}".as_bytes().to_vec() } else { Vec::new() };
    {
        let mut w = csv::WriterBuilder::new()
            .delimiter(delimiter)
            .terminator(terminator)
            .from_writer(&mut out);
        w.write_record(&header).expect("writing to memory");
        for row in &rows {
            let cells = header.iter().map(|h| {
                row.iter()
                    .find(|(k, _)| k == h)
                    .map_or_else(String::new, |(_, v)| cell(v, decimal_comma))
            });
            w.write_record(cells).expect("writing to memory");
        }
        w.flush().expect("writing to memory");
    }
    out
}
