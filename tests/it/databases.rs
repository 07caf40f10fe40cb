//! docs/data.md's exports from a database, run as written against the real programs:
//! PostgreSQL as Debian packages it (a server started here, as a child listening on a unix
//! socket in a temporary folder only) and the sqlite3 shell; the pages built from each
//! export hold the rows, and every value of them as the database returns it to readers
//! nobody here wrote (psql's JSON, Python's sqlite3). Missing, they skip with a reason
//! locally and fail under CI, which installs them (.ci/run).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::{Project, Server, missing_is_ok, need, need_python_module, repo};

/// The fenced blocks of `lang` in the section of docs/data.md under `### {heading}`.
pub(crate) fn blocks(heading: &str, lang: &str) -> Vec<String> {
    let doc = std::fs::read_to_string(repo().join("docs/data.md")).unwrap();
    let section = doc.split(&format!("\n### {heading}\n")).nth(1).expect(heading);
    let section = section.split("\n### ").next().unwrap();
    let fence = format!("```{lang}\n");
    section.split(&fence).skip(1).map(|b| b.split("```").next().unwrap().to_string()).collect()
}

/// Runs a shell command of the docs in `dir`, with `env`; panics with what it said if it
/// fails.
fn sh(command: &str, dir: &Path, env: &[(&str, &str)]) {
    let out = Command::new("bash")
        .args(["-eo", "pipefail", "-c", command])
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command}\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The items of `lang`'s first page of 10.
fn items(p: &Project, lang: &str) -> Value {
    p.json(&format!("output/api/{lang}/attractions/10/1.json"))["data"].clone()
}

/// A PostgreSQL server program (`initdb`, `postgres`): on PATH, else in Debian's
/// `/usr/lib/postgresql/VERSION/bin`, the newest.
fn postgres_program(name: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths).map(|d| d.join(name)).find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(Result::ok)
            .filter_map(|e| {
                Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin").join(name)))
            })
            .filter(|(_, p)| p.is_file())
            .collect();
        versions.sort();
        versions.pop().map(|(_, p)| p)
    })
}

/// A PostgreSQL server of its own, on a unix socket in a temporary folder (no TCP), with a
/// superuser `folio` that needs no password; stopped (fast shutdown) when dropped.
pub(crate) struct Postgres {
    server: Option<Server>,
    pub(crate) url: String,
    _dir: tempfile::TempDir,
}

impl Postgres {
    pub(crate) fn start() -> Option<Postgres> {
        let (initdb, postgres) = (postgres_program("initdb"), postgres_program("postgres"));
        let found = initdb.is_some() && postgres.is_some() && need("psql");
        if !missing_is_ok(found, "PostgreSQL (Debian's postgresql)") {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        // The server refuses to run as root: as root, it runs as Debian's `postgres` user,
        // which then owns the folder.
        let root = rustix::process::geteuid().is_root();
        if root {
            let id = |flag: &str| {
                let out = Command::new("id").args([flag, "postgres"]).output().unwrap();
                assert!(out.status.success(), "no user postgres (Debian's package makes it)");
                String::from_utf8_lossy(&out.stdout).trim().parse::<u32>().unwrap()
            };
            std::os::unix::fs::chown(dir.path(), Some(id("-u")), Some(id("-g"))).unwrap();
        }
        let as_owner = |program: &Path| {
            if root {
                let mut c = Command::new("setpriv");
                c.args(["--reuid=postgres", "--regid=postgres", "--clear-groups", "--"])
                    .arg(program);
                c
            } else {
                Command::new(program)
            }
        };
        let data = dir.path().join("data");
        let out = as_owner(&initdb.unwrap())
            .arg("-D")
            .arg(&data)
            .args(["-U", "folio", "--auth=trust", "-E", "UTF8", "--no-locale"])
            .output()
            .unwrap();
        assert!(out.status.success(), "initdb: {}", String::from_utf8_lossy(&out.stderr));
        let log = std::fs::File::create(dir.path().join("log")).unwrap();
        let child = as_owner(&postgres.unwrap())
            .arg("-D")
            .arg(&data)
            .arg("-k")
            .arg(dir.path())
            .args(["-c", "listen_addresses="])
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut server = Server::of(child);
        let url = format!("postgresql:///postgres?host={}&user=folio", dir.path().display());
        let started = Instant::now();
        loop {
            let ready = Command::new("psql").args([&url, "-Atc", "SELECT 1"]).output().unwrap();
            if ready.status.success() {
                break;
            }
            let exited = server.child.try_wait().unwrap();
            if exited.is_some() || started.elapsed() > Duration::from_secs(60) {
                let log = std::fs::read_to_string(dir.path().join("log")).unwrap_or_default();
                panic!("PostgreSQL did not start ({exited:?}):\n{log}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(Postgres { server: Some(server), url, _dir: dir })
    }

    /// Runs SQL with psql, stopping at the first error.
    pub(crate) fn sql(&self, sql: &str) {
        let mut child = Command::new("psql")
            .args([&self.url, "-q", "-v", "ON_ERROR_STOP=1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(sql.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{sql}\n{}", String::from_utf8_lossy(&out.stderr));
    }

    /// The one value `sql` returns, as JSON (times in UTC), read by serde_json.
    fn json(&self, sql: &str) -> Value {
        let out = Command::new("psql")
            .args([&self.url, "-XAtc", sql])
            .env("PGTZ", "UTC")
            .output()
            .unwrap();
        assert!(out.status.success(), "{sql}\n{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

use std::os::unix::process::CommandExt;

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Some(mut server) = self.server.take() {
            // A fast shutdown (SIGINT) lets it release what it holds; the group is killed
            // after, whatever happened.
            let pid = server.child.id().to_string();
            let _ = Command::new("kill").args(["-INT", &pid]).status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while server.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// The rows both databases get: text that CSV must quote (a comma, quotes, a line end),
/// non-ASCII, NULLs, a missing translation.
const POSTGRES_ROWS: &str = "INSERT INTO attractions VALUES
 (1, 'Louvre', 'Le Louvre', 'Paris', 4.7, '1793-08-10', false, '{museum,art}', 48.8606, 2.3376, '2026-11-26 10:30:00+01'),
 (2, 'Orsay, \"the station\"', NULL, 'Paris', 4.0, NULL, true, '{museum}', NULL, NULL, NULL),
 (3, E'Opera\\nHouse', 'Opéra ✓', NULL, NULL, '1973-10-20', NULL, NULL, -33.8568, 151.2153, '2026-01-01 00:00:00+05:30');";

#[test]
fn postgresql_exports_as_docs_data_md_writes_them_build_the_rows() {
    if !need("bash") {
        return;
    }
    let Some(pg) = Postgres::start() else { return };
    let sql = blocks("PostgreSQL", "sql");
    pg.sql(&sql[0]);
    pg.sql(POSTGRES_ROWS);
    let commands = blocks("PostgreSQL", "sh");
    let config = &blocks("PostgreSQL", "toml")[0];
    // Times as UTC whatever the machine's zone (libpq's PGTZ), so that the pages are known.
    let env = [("DATABASE_URL", pg.url.as_str()), ("PGTZ", "UTC")];

    // CSV, with \copy.
    let csv = Project::new(config);
    sh(&commands[0], csv.dir.path(), &env);
    csv.folio(&["build"]).success();
    let want = json!([
        {"id": 1, "name": "Le Louvre", "city": "Paris", "rating": 4.7, "opened": "1793-08-10",
         "free": false, "tags": ["museum", "art"], "location": {"lat": 48.8606, "lon": 2.3376},
         "updated_at": "2026-11-26T09:30:00+00:00"},
        {"id": 2, "name": "Orsay, \"the station\"", "city": "Paris", "rating": 4.0, "opened": null,
         "free": true, "tags": ["museum"], "location": {"lat": null, "lon": null}, "updated_at": null},
        {"id": 3, "name": "Opéra ✓", "city": null, "rating": null, "opened": "1973-10-20",
         "free": null, "tags": null, "location": {"lat": -33.8568, "lon": 151.2153},
         "updated_at": "2025-12-31T18:30:00+00:00"}
    ]);
    assert_eq!(items(&csv, "fr"), want);
    assert_eq!(items(&csv, "en")[2]["name"], "Opera\nHouse");
    assert_eq!(items(&csv, "en")[1]["name"], "Orsay, \"the station\"", "no French: the fallback");

    // JSON, with json_agg: the same pages, byte for byte.
    let json = Project::new(config);
    sh(&commands[1], json.dir.path(), &env);
    json.folio(&["build"]).success();
    assert_eq!(json.tree("output/api"), csv.tree("output/api"));

    // An empty array: `[]` in both, the CSV cell holding it as JSON.
    pg.sql("UPDATE attractions SET tags = '{}' WHERE id = 2;");
    sh(&commands[0], csv.dir.path(), &env);
    sh(&commands[1], json.dir.path(), &env);
    csv.folio(&["build"]).success();
    json.folio(&["build"]).success();
    assert_eq!(
        (items(&csv, "en")[1]["tags"].clone(), items(&json, "en")[1]["tags"].clone()),
        (json!([]), json!([]))
    );
}

#[test]
fn sqlite_exports_as_docs_data_md_writes_them_build_the_rows() {
    if !need("bash") || !need("sqlite3") {
        return;
    }
    let p = Project::new("");
    let schema = &blocks("SQLite", "sql")[0];
    let rows = "INSERT INTO attractions VALUES
 (1, 'Louvre', 'Le Louvre', 'Paris', 4.7, '1793-08-10', 48.8606, 2.3376),
 (2, 'Orsay, \"the station\"', NULL, 'Paris', 4.0, NULL, NULL, NULL),
 (3, 'Opera' || char(10) || 'House', 'Opéra ✓', NULL, NULL, '1973-10-20', -33.8568, 151.2153);";
    sh(&format!("sqlite3 catalog.db <<'SQL'\n{schema}\n{rows}\nSQL"), p.dir.path(), &[]);
    let commands = blocks("SQLite", "sh");

    // -json: each REAL with 20 digits, refused undeclared, the nearest 64-bit value typed.
    sh(&commands[0], p.dir.path(), &[]);
    let text = p.read("data/attractions.json");
    assert!(text.contains("\"rating\":4.7000000000000001776"), "{text}");
    p.write("folio.toml", "[fields.opened]\ntype = \"date\"\n");
    let refused = p.folio(&["build"]).fails(1).stderr();
    assert!(refused.contains("data/attractions.json:1: rating:"), "{refused}");
    let typed = "[fields.rating]\ntype = \"number\"\n[fields.lat]\ntype = \"number\"\n[fields.lon]\ntype = \"number\"\n[fields.opened]\ntype = \"date\"\n";
    p.write("folio.toml", typed);
    p.folio(&["build"]).success();
    assert_eq!(
        items(&p, "en"),
        json!([
            {"id": 1, "name": "Louvre", "city": "Paris", "rating": 4.7, "opened": "1793-08-10", "lat": 48.8606, "lon": 2.3376},
            {"id": 2, "name": "Orsay, \"the station\"", "city": "Paris", "rating": 4.0, "opened": null, "lat": null, "lon": null},
            {"id": 3, "name": "Opera\nHouse", "city": null, "rating": null, "opened": "1973-10-20", "lat": -33.8568, "lon": 151.2153}
        ])
    );

    // -csv -header, with the column names folio reads, and the PostgreSQL folio.toml.
    std::fs::remove_file(p.path("data/attractions.json")).unwrap();
    sh(&commands[1], p.dir.path(), &[]);
    p.write("folio.toml", &blocks("PostgreSQL", "toml")[0]);
    p.folio(&["build"]).success();
    assert_eq!(
        items(&p, "fr"),
        json!([
            {"id": 1, "name": "Le Louvre", "city": "Paris", "rating": 4.7, "opened": "1793-08-10", "location": {"lat": 48.8606, "lon": 2.3376}},
            {"id": 2, "name": "Orsay, \"the station\"", "city": "Paris", "rating": 4.0, "opened": null, "location": {"lat": null, "lon": null}},
            {"id": 3, "name": "Opéra ✓", "city": null, "rating": null, "opened": "1973-10-20", "location": {"lat": -33.8568, "lon": 151.2153}}
        ])
    );

    // No rows: sqlite3 writes nothing, which is no JSON; the recipe's second line makes
    // it an empty listing.
    sh("sqlite3 catalog.db 'DELETE FROM attractions'", p.dir.path(), &[]);
    std::fs::remove_file(p.path("data/attractions.csv")).unwrap();
    let first_line = commands[0].lines().next().unwrap();
    sh(first_line, p.dir.path(), &[]);
    assert_eq!(p.read("data/attractions.json"), "");
    p.write("folio.toml", typed);
    assert!(p.folio(&["build"]).fails(1).stderr().contains("expected an array of objects"));
    sh(&commands[0], p.dir.path(), &[]);
    assert_eq!(p.read("data/attractions.json"), "[]\n");
    p.write("folio.toml", typed);
    p.folio(&["build"]).success();
    assert_eq!(items(&p, "en"), json!([]));
}

/// `n` finite doubles of every magnitude and sign, from random bits (splitmix64 with a
/// fixed seed: the same ones every run).
fn doubles(n: usize) -> Vec<f64> {
    let mut state: u64 = 58;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let x = f64::from_bits(z ^ (z >> 31));
        if x.is_finite() {
            out.push(x);
        }
    }
    out
}

/// Every item of `lang`'s listing, from its pages of 100.
fn listing(p: &Project, lang: &str) -> Vec<Value> {
    let mut all = Vec::new();
    for page in 1.. {
        let body = p.json(&format!("output/api/{lang}/attractions/100/{page}.json"));
        all.extend(body["data"].as_array().unwrap().iter().cloned());
        if page >= body["total_pages"].as_u64().unwrap() {
            return all;
        }
    }
    unreachable!()
}

/// The same value to a JSON reader: numbers by value (`4.50` is `4.5` and `0` is `0.0`,
/// but `-0.0` is not `0.0`), the rest as it is.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            x == y && x.is_sign_negative() == y.is_sign_negative()
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Where the items of a page differ from what the database returned, field by field.
fn differences(recipe: &str, want: &[Value], got: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    if want.len() != got.len() {
        out.push(format!("{recipe}: {} items for {} rows", got.len(), want.len()));
    }
    for (want, got) in want.iter().zip(got) {
        let id = &want["id"];
        let (want, got) = (want.as_object().unwrap(), got.as_object().unwrap());
        for (field, value) in want {
            match got.get(field) {
                Some(page) if same(value, page) => {}
                page => out.push(format!(
                    "{recipe}: id {id}: {field}: the database returned {value}, the page has {}",
                    page.map_or("nothing".to_string(), Value::to_string)
                )),
            }
        }
        for field in got.keys().filter(|k| !want.contains_key(*k)) {
            out.push(format!("{recipe}: id {id}: {field}: on the page, not in the database"));
        }
    }
    out
}

/// The name a page of `lang` shows for a row: the French one, else (the fallback) the
/// English.
fn name(row: &Value, lang: &str) -> Value {
    match &row["name_fr"] {
        Value::String(fr) if lang == "fr" => json!(fr),
        _ => row["name_en"].clone(),
    }
}

/// What CSV keeps of a value: all but an empty text, which is an empty cell, read as null
/// (docs/data.md says so).
fn in_csv(value: &Value) -> Value {
    if value == "" { Value::Null } else { value.clone() }
}

/// Rows of what CSV and JSON must carry: NULLs, numerics of every kind (`4.50`, `1e-7`,
/// `0.30000000000000004`, the largest double and the smallest), dates, times with a
/// fraction of a second and an offset, arrays with `|` inside an element and `NULL`
/// elements, an empty text, text CSV must quote, and unicode of every width.
const POSTGRES_EDGES: &str = "INSERT INTO attractions VALUES
 (1, 'Louvre', 'Le Louvre ✓', 'Paris', 4.50, '1793-08-10', false, '{museum,\"c|d\",NULL}', 0.30000000000000004, 1.7976931348623157e308, '2026-11-26 10:30:00.123456+01'),
 (2, E'Orsay, \"the station\"\\nnext line', NULL, '', 0.00, '2000-02-29', true, '{NULL}', 1e-7, -1.7976931348623157e308, '2026-01-01 00:00:00+05:30'),
 (3, E'a|b \\\\ and\\ta tab', '東京 🗼 ไทย', NULL, NULL, NULL, NULL, '{}', 5e-324, '-0', NULL),
 (4, 'Zürich', NULL, 'Zürich', 9.99, '0001-01-01', NULL, NULL, 123456789.12345679, 2.2250738585072014e-308, '1970-01-01 00:00:00+00');";

#[test]
fn postgresql_exports_keep_every_value_psql_returns() {
    if !need("bash") {
        return;
    }
    let Some(pg) = Postgres::start() else { return };
    pg.sql(&blocks("PostgreSQL", "sql")[0]);
    pg.sql(POSTGRES_EDGES);
    // And doubles of every magnitude, two a row.
    let random: Vec<String> = (doubles(400).chunks(2).enumerate())
        .map(|(i, xy)| {
            let (id, lat, lon) = (100 + i, xy[0], xy[1]);
            format!("({id}, 'r{id}', NULL, NULL, NULL, NULL, NULL, NULL, {lat:e}, {lon:e}, NULL)")
        })
        .collect();
    pg.sql(&format!("INSERT INTO attractions VALUES {};", random.join(",\n")));

    // What the database returns, in its own JSON, read by serde_json (exact for floats).
    let rows = pg.json("SELECT json_agg(a ORDER BY a.id) FROM attractions a");
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 204);
    assert_eq!(rows[0]["tags"], json!(["museum", "c|d", null]), "the rows are what they say");
    assert_eq!(rows[0]["lon"].as_f64(), Some(f64::MAX));
    assert_eq!(rows[1]["city"], "");

    let env = [("DATABASE_URL", pg.url.as_str()), ("PGTZ", "UTC")];
    let commands = blocks("PostgreSQL", "sh");
    let config = &blocks("PostgreSQL", "toml")[0];
    let mut wrong = Vec::new();
    for (recipe, command, csv) in [("CSV", &commands[0], true), ("JSON", &commands[1], false)] {
        let p = Project::new(config);
        sh(command, p.dir.path(), &env);
        p.folio(&["build"]).success();
        for lang in ["en", "fr"] {
            let want: Vec<Value> = (rows.iter())
                .map(|r| {
                    let city = if csv { in_csv(&r["city"]) } else { r["city"].clone() };
                    json!({
                        "id": r["id"], "name": name(r, lang), "city": city, "rating": r["rating"],
                        "opened": r["opened"], "free": r["free"], "tags": r["tags"],
                        "location": {"lat": r["lat"], "lon": r["lon"]}, "updated_at": r["updated_at"]
                    })
                })
                .collect();
            wrong.extend(differences(&format!("{recipe} ({lang})"), &want, &listing(&p, lang)));
        }
    }
    assert!(wrong.is_empty(), "{} differences:\n{}", wrong.len(), wrong.join("\n"));
}

/// Python's sqlite3 module on `db`, a reader nobody here wrote: inserts `rows` (arrays of
/// the table's columns, each value bound as a parameter, so a double goes in as its bits),
/// or with none reads every row back, each value as SQLite holds it.
fn python_sqlite(db: &Path, rows: Option<&Value>) -> Value {
    let script = r#"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
if sys.argv[2] == "insert":
    db.executemany("INSERT INTO attractions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", json.load(sys.stdin))
    db.commit()
    print("null")
else:
    rows = db.execute("SELECT * FROM attractions ORDER BY id")
    names = [column[0] for column in rows.description]
    print(json.dumps([dict(zip(names, row)) for row in rows], ensure_ascii=False, allow_nan=False))
"#;
    let mut child = Command::new(crate::harness::tool("python3"))
        .args(["-c", script])
        .arg(db)
        .arg(if rows.is_some() { "insert" } else { "read" })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let input = rows.map(Value::to_string).unwrap_or_default();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python3's sqlite3 failed");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn sqlite_exports_keep_every_value_sqlite_returns() {
    if !need("bash") || !need("sqlite3") || !need_python_module("sqlite3") {
        return;
    }
    let p = Project::new("");
    let schema = &blocks("SQLite", "sql")[0];
    sh(&format!("sqlite3 catalog.db <<'SQL'\n{schema}\nSQL"), p.dir.path(), &[]);
    let mut rows = vec![
        json!([
            1,
            "Louvre",
            "Le Louvre ✓",
            "Paris",
            4.5,
            "1793-08-10",
            0.30000000000000004,
            f64::MAX
        ]),
        json!([
            2,
            "Orsay, \"the station\"\nnext line",
            null,
            "",
            1e-7,
            "2000-02-29",
            -f64::MAX,
            5e-324
        ]),
        json!([
            3,
            "a|b \\ and\ta tab",
            "東京 🗼 ไทย",
            null,
            null,
            null,
            123456789.12345679,
            f64::MIN_POSITIVE
        ]),
    ];
    // And doubles of every magnitude, three a row: sqlite3's printf is off in the 17th
    // digit for some of them.
    for (i, x) in doubles(3000).chunks(3).enumerate() {
        let id = 100 + i;
        rows.push(json!([id, format!("r{id}"), null, null, x[0], null, x[1], x[2]]));
    }
    python_sqlite(&p.path("catalog.db"), Some(&Value::Array(rows)));
    let rows = python_sqlite(&p.path("catalog.db"), None);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 1003);
    assert_eq!(rows[0]["lon"].as_f64(), Some(f64::MAX), "the rows are what they say");
    assert_eq!(rows[1]["city"], "");
    let commands = blocks("SQLite", "sh");
    let mut wrong = Vec::new();

    // -json, with its REAL columns declared numbers.
    sh(&commands[0], p.dir.path(), &[]);
    let typed = "[fields.rating]\ntype = \"number\"\n[fields.lat]\ntype = \"number\"\n[fields.lon]\ntype = \"number\"\n[fields.opened]\ntype = \"date\"\n";
    p.write("folio.toml", typed);
    p.folio(&["build"]).success();
    let want: Vec<Value> = (rows.iter())
        .map(|r| {
            json!({
                "id": r["id"], "name": r["name_en"], "city": r["city"], "rating": r["rating"],
                "opened": r["opened"], "lat": r["lat"], "lon": r["lon"]
            })
        })
        .collect();
    wrong.extend(differences("-json (en)", &want, &listing(&p, "en")));

    // -csv, with the PostgreSQL folio.toml.
    std::fs::remove_file(p.path("data/attractions.json")).unwrap();
    sh(&commands[1], p.dir.path(), &[]);
    p.write("folio.toml", &blocks("PostgreSQL", "toml")[0]);
    p.folio(&["build"]).success();
    for lang in ["en", "fr"] {
        let want: Vec<Value> = (rows.iter())
            .map(|r| {
                json!({
                    "id": r["id"], "name": name(r, lang), "city": in_csv(&r["city"]),
                    "rating": r["rating"], "opened": r["opened"],
                    "location": {"lat": r["lat"], "lon": r["lon"]}
                })
            })
            .collect();
        wrong.extend(differences(&format!("-csv ({lang})"), &want, &listing(&p, lang)));
    }
    assert!(wrong.is_empty(), "{} differences:\n{}", wrong.len(), wrong.join("\n"));

    // A text in a REAL column stays text, which folio refuses; it is not made a number.
    sh(
        "sqlite3 catalog.db \"UPDATE attractions SET rating = 'n/a' WHERE id = 1\"",
        p.dir.path(),
        &[],
    );
    sh(&commands[1], p.dir.path(), &[]);
    let refused = p.folio(&["build"]).fails(1).stderr();
    assert!(
        refused.contains("data/attractions.csv:2: rating: \"n/a\" is not a number"),
        "{refused}"
    );
}
