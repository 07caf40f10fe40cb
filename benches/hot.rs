//! The hot path, measured with divan: parsing and resolving a record (its per-language item bytes),
//! assembling a page from item bytes, and compressing a page at candidate levels.
//! `cargo bench --bench hot`

use std::path::Path;

use folio::config::{Overrides, Project};
use folio::load::record::{Findings, Resolver};
use folio::load::tree::Json;
use folio::model::{Origin, Record};
use folio::render::{Links, PageInfo, standard};
use folio::routes::Map;
use folio::routes::layout::Variant;

fn main() {
    divan::main();
}

fn project() -> Project {
    let toml = "[listing]\nlanguages = [\"en\", \"fr\", \"de\", \"ja\"]\n[fields.name]\nlocalized = true\n[fields.description]\nlocalized = true\n";
    let root = Path::new("/nonexistent");
    Project::from_toml(toml, Path::new("folio.toml"), root, root, &Overrides::default()).unwrap()
}

fn raw(id: usize) -> String {
    let text =
        "ancient stone river tower garden quiet famous harbour old city walls views ".repeat(3);
    format!(
        r#"{{"id":{id},"name":{{"en":"Tower {id}","fr":"Tour {id}","de":"Turm {id}","ja":"塔{id}"}},"description":{{"en":"{text}","fr":"{text}","de":"{text}","ja":"古い石造りの塔と庭園、川沿いの旧市街の眺め。古い石造りの塔と庭園、川沿いの旧市街の眺め。"}},"category":"museum","location":{{"lat":48.8584,"lon":2.2945}},"rating":4.5,"tags":["history","view"],"url":"https://example.org/attractions/{id}"}}"#
    )
}

fn records(p: &Project, n: usize) -> Vec<Record> {
    let r = Resolver::new(p);
    (0..n)
        .map(|i| {
            let text = raw(i);
            let Ok(Json::Object(obj)) = folio::load::parse(&text) else { unreachable!() };
            r.resolve(obj, Origin { file: 0, line: 1, element: None }, &mut Findings::default())
                .unwrap()
        })
        .collect()
}

#[divan::bench]
fn resolve_record(b: divan::Bencher) {
    let p = project();
    let r = Resolver::new(&p);
    let text = raw(7);
    b.bench(|| {
        let Ok(Json::Object(obj)) = folio::load::parse(divan::black_box(&text)) else {
            unreachable!()
        };
        r.resolve(obj, Origin { file: 0, line: 1, element: None }, &mut Findings::default())
    });
}

#[divan::bench(args = [10, 100])]
fn assemble_page(b: divan::Bencher, size: usize) {
    let p = project();
    let recs = records(&p, size);
    let links =
        Links::new(&Map::new(&p.shape, 10_000), Variant { lang: 1, prefixed: true }, p.url_style);
    let info = PageInfo::new(10_000, size as u64, 3);
    let mut out = Vec::with_capacity(64 * 1024);
    b.bench_local(|| {
        out.clear();
        standard::write(&info, &links, true, &mut out, |out| {
            for (i, r) in recs.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                r.write_item(1, out);
            }
        });
        out.len()
    });
}

fn page(size: usize) -> Vec<u8> {
    let p = project();
    let recs = records(&p, size);
    let links =
        Links::new(&Map::new(&p.shape, 10_000), Variant { lang: 0, prefixed: true }, p.url_style);
    let mut out = Vec::new();
    standard::write(&PageInfo::new(10_000, size as u64, 3), &links, true, &mut out, |out| {
        for (i, r) in recs.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            r.write_item(0, out);
        }
    });
    out
}

/// libdeflate, folio's gzip backend, at candidate levels (folio uses `compress::GZIP_LEVEL`). The bench page
/// is synthetic and far more repetitive than real pages (brotli 4 beats 2 on it, the
/// reverse of real data): choose levels with `examples/codecs.rs` on a real build.
#[divan::bench(args = [1, 6, 9])]
fn gzip_page_of_20(b: divan::Bencher, level: i32) {
    let page = page(20);
    let mut gz = libdeflater::Compressor::new(libdeflater::CompressionLvl::new(level).unwrap());
    let mut out = vec![0; gz.gzip_compress_bound(page.len())];
    b.counter(divan::counter::BytesCount::new(page.len()))
        .bench_local(|| gz.gzip_compress(&page, &mut out).unwrap());
}

/// brotli as folio writes `.br` siblings (the C library at `compress::BROTLI_QUALITY`).
#[divan::bench]
fn brotli_page_of_20(b: divan::Bencher) {
    let page = page(20);
    b.counter(divan::counter::BytesCount::new(page.len()))
        .bench(|| folio::compress::Codec::Brotli.compress(&page).len());
}
