//! The same records in every shape users' tools write:
//! `cargo run --release --example shapes -- IN.json OUTDIR`.
//!
//! IN.json is a JSON array of records (`examples/gen.rs` writes one). OUTDIR gets one file a
//! shape, each with the `folio.toml` lines that read it (`FILE.toml`, often empty) (`tests/shapes/mod.rs` says what
//! each shape is and who writes it). The integration tests make the same shapes from their
//! own records through the same module.

#[path = "../tests/shapes/mod.rs"]
mod shapes;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, out] = args.as_slice() else {
        eprintln!("usage: shapes IN.json OUTDIR");
        std::process::exit(2);
    };
    let text = std::fs::read(input).expect("reading the records");
    let records: Vec<serde_json::Map<String, serde_json::Value>> =
        serde_json::from_slice(&text).expect("IN.json is an array of objects");
    let out = std::path::Path::new(out);
    std::fs::create_dir_all(out).expect("creating OUTDIR");
    for shape in shapes::Shape::ALL {
        let bytes = shape.write(&records);
        std::fs::write(out.join(shape.file_name()), bytes).expect("writing a shape");
        let config = out.join(format!("{}.toml", shape.file_name()));
        std::fs::write(config, shape.input_config()).expect("writing a shape's config");
        println!("{} {}", shape.name(), shape.file_name());
    }
}
