//! Deterministic benchmark data: `cargo run --release --example gen -- N OUT.json [SEED]`.
//!
//! Writes N attractions as one JSON array in shuffled order (so a build must sort), each
//! with an integer id, a name and a 150–300-character description in en, fr, de and ja
//! (ja in Japanese script), one of 12 categories, a location, a rating, 1–4 tags and a
//! url: about 1.8 KB a record. The same N and seed always give the same bytes.

use std::io::{BufWriter, Write};

/// xorshift64*: small, fast and deterministic; quality is irrelevant here.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[self.below(words.len())]
    }
}

const CATEGORIES: [&str; 12] = [
    "landmark", "museum", "temple", "nature", "park", "palace", "ruins", "church", "market",
    "bridge", "beach", "garden",
];
const TAGS: [&str; 16] = [
    "unesco",
    "view",
    "history",
    "architecture",
    "family",
    "hiking",
    "art",
    "food",
    "night",
    "photo",
    "quiet",
    "crowded",
    "free",
    "guided",
    "seasonal",
    "iconic",
];
const EN: [&str; 20] = [
    "ancient", "stone", "river", "tower", "garden", "quiet", "famous", "harbour", "old", "city",
    "walls", "views", "market", "built", "century", "visitors", "hill", "gate", "royal", "lake",
];
const FR: [&str; 20] = [
    "ancien",
    "pierre",
    "rivière",
    "tour",
    "jardin",
    "calme",
    "célèbre",
    "port",
    "vieux",
    "ville",
    "remparts",
    "vue",
    "marché",
    "construit",
    "siècle",
    "visiteurs",
    "colline",
    "porte",
    "royal",
    "lac",
];
const DE: [&str; 20] = [
    "alte",
    "Stein",
    "Fluss",
    "Turm",
    "Garten",
    "ruhig",
    "berühmt",
    "Hafen",
    "Altstadt",
    "Stadt",
    "Mauern",
    "Aussicht",
    "Markt",
    "erbaut",
    "Jahrhundert",
    "Besucher",
    "Hügel",
    "Tor",
    "königlich",
    "See",
];
const JA: [&str; 20] = [
    "古い",
    "石造りの",
    "川",
    "塔",
    "庭園",
    "静かな",
    "有名な",
    "港",
    "旧市街",
    "都市",
    "城壁",
    "眺め",
    "市場",
    "建てられた",
    "世紀",
    "観光客",
    "丘",
    "門",
    "王宮",
    "湖",
];

fn sentence(rng: &mut Rng, words: &[&str], sep: &str, min: usize, max: usize) -> String {
    let target = min + rng.below(max - min);
    let mut s = String::new();
    while s.chars().count() < target {
        if !s.is_empty() {
            s.push_str(sep);
        }
        s.push_str(rng.pick(words));
    }
    s.chars().take(max).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: gen N OUT.json [SEED]");
        std::process::exit(2);
    }
    let n: usize = args[1].parse().expect("N is a number");
    let seed: u64 = args.get(3).map_or(42, |s| s.parse().expect("SEED is a number"));
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut ids: Vec<u64> = (1..=n as u64).collect();
    for i in (1..ids.len()).rev() {
        ids.swap(i, rng.below(i + 1));
    }
    let file = std::fs::File::create(&args[2]).expect("creating the output file");
    let mut out = BufWriter::new(file);
    out.write_all(b"[\n").unwrap();
    for (i, id) in ids.iter().enumerate() {
        let names = [
            format!("{} {}", sentence(&mut rng, &EN, " ", 8, 20), id),
            format!("{} {}", sentence(&mut rng, &FR, " ", 8, 20), id),
            format!("{} {}", sentence(&mut rng, &DE, " ", 8, 20), id),
            format!("{}{}", sentence(&mut rng, &JA, "", 4, 10), id),
        ];
        let descriptions = [
            sentence(&mut rng, &EN, " ", 150, 300),
            sentence(&mut rng, &FR, " ", 150, 300),
            sentence(&mut rng, &DE, " ", 150, 300),
            sentence(&mut rng, &JA, "", 150, 300),
        ];
        let mut tags: Vec<&str> = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let t = rng.pick(&TAGS);
            if !tags.contains(&t) {
                tags.push(t);
            }
        }
        let record = serde_json::json!({
            "id": id,
            "name": {"en": names[0], "fr": names[1], "de": names[2], "ja": names[3]},
            "description": {"en": descriptions[0], "fr": descriptions[1], "de": descriptions[2], "ja": descriptions[3]},
            "category": CATEGORIES[rng.below(12)],
            "location": {"lat": (rng.below(1_800_000) as f64 - 900_000.0) / 10_000.0,
                         "lon": (rng.below(3_600_000) as f64 - 1_800_000.0) / 10_000.0},
            "rating": (10 + rng.below(41)) as f64 / 10.0,
            "tags": tags,
            "url": format!("https://example.org/attractions/{id}"),
        });
        if i > 0 {
            out.write_all(b",\n").unwrap();
        }
        serde_json::to_writer(&mut out, &record).unwrap();
    }
    out.write_all(b"\n]\n").unwrap();
    out.flush().unwrap();
}
