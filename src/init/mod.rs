//! `folio init`'s files: a commented `folio.toml` for the chosen languages and resource,
//! six sample records (three in CSV, three in JSON Lines) with one translation left out so
//! the fallback shows, `templates/README.md` and a `.gitignore`. Pure: [`files`] returns
//! what to write; `cmd::init` writes it. The config is checked by the same validation as
//! `folio build`, so a bad `--languages` is refused with the build's own message.

use std::path::Path;

use serde_json::{Value, json};

use crate::config::{self, Overrides, Project};

/// What `folio init` was asked for.
#[derive(Debug, Clone)]
pub struct Options {
    pub languages: Vec<String>,
    pub default_language: String,
    pub resource: String,
}

/// One file to write, relative to the project folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitFile {
    pub rel: &'static str,
    pub contents: String,
    /// A data file: `--force` adds it when missing, never replaces it.
    pub data: bool,
}

const CONFIG: &str = include_str!("folio.toml.j2");
const TEMPLATES_README: &str = include_str!("templates-README.md");
const GITIGNORE: &str =
    "# Written by folio build; rebuilt from data/ and folio.toml.\n/output/\n/hosting/\n";

/// A sample attraction: id, the name and summary by language (English first), and the
/// fields every language shares.
struct Sample {
    id: u64,
    name: &'static [(&'static str, &'static str)],
    summary: &'static [(&'static str, &'static str)],
    category: &'static str,
    country: &'static str,
    lat: f64,
    lon: f64,
    tags: &'static [&'static str],
    rating: f64,
}

const SAMPLES: [Sample; 6] = [
    Sample {
        id: 1,
        name: &[
            ("en", "Eiffel Tower"),
            ("fr", "Tour Eiffel"),
            ("de", "Eiffelturm"),
            ("es", "Torre Eiffel"),
            ("it", "Torre Eiffel"),
            ("ja", "エッフェル塔"),
            ("pt", "Torre Eiffel"),
            ("nl", "Eiffeltoren"),
        ],
        summary: &[
            ("en", "Wrought-iron tower built for the 1889 World's Fair."),
            ("fr", "Tour en fer puddlé construite pour l'Exposition universelle de 1889."),
            ("de", "Schmiedeeiserner Turm, gebaut für die Weltausstellung 1889."),
            ("es", "Torre de hierro forjado construida para la Exposición Universal de 1889."),
            ("it", "Torre in ferro battuto costruita per l'Esposizione universale del 1889."),
            ("ja", "1889年のパリ万博のために建てられた錬鉄製の塔。"),
            ("pt", "Torre de ferro forjado construída para a Exposição Universal de 1889."),
            ("nl", "Smeedijzeren toren, gebouwd voor de wereldtentoonstelling van 1889."),
        ],
        category: "landmark",
        country: "FR",
        lat: 48.8584,
        lon: 2.2945,
        tags: &["architecture", "view"],
        rating: 4.7,
    },
    Sample {
        id: 2,
        name: &[
            ("en", "Colosseum"),
            ("fr", "Colisée"),
            ("de", "Kolosseum"),
            ("es", "Coliseo"),
            ("it", "Colosseo"),
            ("ja", "コロッセオ"),
            ("pt", "Coliseu"),
            ("nl", "Colosseum"),
        ],
        summary: &[
            ("en", "Amphitheatre of ancient Rome, finished in 80 AD."),
            ("fr", "Amphithéâtre de la Rome antique, achevé en 80."),
            ("de", "Amphitheater des antiken Rom, im Jahr 80 vollendet."),
            ("es", "Anfiteatro de la antigua Roma, terminado en el año 80."),
            ("it", "Anfiteatro dell'antica Roma, completato nell'80 d.C."),
            ("ja", "西暦80年に完成した古代ローマの円形闘技場。"),
            ("pt", "Anfiteatro da Roma antiga, concluído no ano 80."),
            ("nl", "Amfitheater van het oude Rome, voltooid in het jaar 80."),
        ],
        category: "ruins",
        country: "IT",
        lat: 41.8902,
        lon: 12.4922,
        tags: &["history", "architecture"],
        rating: 4.8,
    },
    Sample {
        id: 3,
        name: &[
            ("en", "Sagrada Família"),
            ("fr", "Sagrada Família"),
            ("de", "Sagrada Família"),
            ("es", "Sagrada Familia"),
            ("it", "Sagrada Família"),
            ("ja", "サグラダ・ファミリア"),
            ("pt", "Sagrada Família"),
            ("nl", "Sagrada Família"),
        ],
        summary: &[
            ("en", "Gaudí's basilica in Barcelona, under construction since 1882."),
            ("fr", "Basilique de Gaudí à Barcelone, en construction depuis 1882."),
            ("de", "Gaudís Basilika in Barcelona, im Bau seit 1882."),
            ("es", "Basílica de Gaudí en Barcelona, en construcción desde 1882."),
            ("it", "Basilica di Gaudí a Barcellona, in costruzione dal 1882."),
            ("ja", "1882年から建設が続くバルセロナのガウディの聖堂。"),
            ("pt", "Basílica de Gaudí em Barcelona, em construção desde 1882."),
            ("nl", "Gaudí's basiliek in Barcelona, in aanbouw sinds 1882."),
        ],
        category: "religious",
        country: "ES",
        lat: 41.4036,
        lon: 2.1744,
        tags: &["architecture", "gaudi"],
        rating: 4.8,
    },
    Sample {
        id: 4,
        name: &[
            ("en", "Neuschwanstein Castle"),
            ("fr", "Château de Neuschwanstein"),
            ("de", "Schloss Neuschwanstein"),
            ("es", "Castillo de Neuschwanstein"),
            ("it", "Castello di Neuschwanstein"),
            ("ja", "ノイシュヴァンシュタイン城"),
            ("pt", "Castelo de Neuschwanstein"),
            ("nl", "Slot Neuschwanstein"),
        ],
        summary: &[
            ("en", "Nineteenth-century palace on a crag above Hohenschwangau."),
            ("fr", "Palais du XIXe siècle sur un escarpement au-dessus de Hohenschwangau."),
            ("de", "Schloss aus dem 19. Jahrhundert auf einem Felsen über Hohenschwangau."),
            ("es", "Palacio del siglo XIX sobre un risco encima de Hohenschwangau."),
            ("it", "Palazzo ottocentesco su uno sperone sopra Hohenschwangau."),
            ("ja", "ホーエンシュヴァンガウを見下ろす岩山に建つ19世紀の城。"),
            ("pt", "Palácio do século XIX num penhasco sobre Hohenschwangau."),
            ("nl", "Negentiende-eeuws paleis op een rots boven Hohenschwangau."),
        ],
        category: "castle",
        country: "DE",
        lat: 47.5576,
        lon: 10.7498,
        tags: &["castle", "view"],
        rating: 4.6,
    },
    Sample {
        id: 5,
        name: &[
            ("en", "Fushimi Inari Taisha"),
            ("fr", "Fushimi Inari-taisha"),
            ("de", "Fushimi Inari-taisha"),
            ("es", "Fushimi Inari-taisha"),
            ("it", "Fushimi Inari-taisha"),
            ("ja", "伏見稲荷大社"),
            ("pt", "Fushimi Inari-taisha"),
            ("nl", "Fushimi Inari-taisha"),
        ],
        summary: &[
            ("en", "Kyoto shrine known for its thousands of vermilion torii gates."),
            ("fr", "Sanctuaire de Kyoto connu pour ses milliers de torii vermillon."),
            ("de", "Schrein in Kyoto, bekannt für Tausende zinnoberrote Torii."),
            ("es", "Santuario de Kioto conocido por sus miles de torii bermellón."),
            ("it", "Santuario di Kyoto noto per le sue migliaia di torii vermigli."),
            ("ja", "数千基の朱塗りの鳥居で知られる京都の神社。"),
            ("pt", "Santuário de Quioto conhecido pelos milhares de torii vermelhos."),
            ("nl", "Schrijn in Kyoto, bekend om zijn duizenden vermiljoenrode torii."),
        ],
        category: "religious",
        country: "JP",
        lat: 34.9671,
        lon: 135.7727,
        tags: &["shrine", "hiking"],
        rating: 4.7,
    },
    Sample {
        id: 6,
        name: &[
            ("en", "Table Mountain"),
            ("fr", "Montagne de la Table"),
            ("de", "Tafelberg"),
            ("es", "Montaña de la Mesa"),
            ("it", "Table Mountain"),
            ("ja", "テーブルマウンテン"),
            ("pt", "Montanha da Mesa"),
            ("nl", "Tafelberg"),
        ],
        summary: &[
            ("en", "Flat-topped mountain overlooking Cape Town."),
            ("fr", "Montagne au sommet plat qui domine Le Cap."),
            ("de", "Berg mit flachem Gipfel über Kapstadt."),
            ("es", "Montaña de cima plana que domina Ciudad del Cabo."),
            ("it", "Montagna dalla cima piatta che domina Città del Capo."),
            ("ja", "ケープタウンを見下ろす頂上が平らな山。"),
            ("pt", "Montanha de topo plano sobre a Cidade do Cabo."),
            ("nl", "Berg met een vlakke top boven Kaapstad."),
        ],
        category: "nature",
        country: "ZA",
        lat: -33.9628,
        lon: 18.4098,
        tags: &["hiking", "view"],
        rating: 4.7,
    },
];

/// The record in `lang`: its translation, else the English text for the default
/// language (so every record has a name), else none (a missing translation).
fn text(table: &[(&str, &'static str)], lang: &str, default: &str) -> Option<&'static str> {
    let own = table.iter().find(|(l, _)| *l == lang).map(|(_, t)| *t);
    own.or_else(|| (lang == default).then(|| table[0].1))
}

/// Is this (record, language, field) the translation left out on purpose? The summary of
/// the last record in the second language, when there is one.
fn left_out(o: &Options, id: u64, lang: &str, field: &str) -> bool {
    let second = o.languages.iter().find(|l| **l != o.default_language);
    id == SAMPLES[SAMPLES.len() - 1].id
        && field == "summary"
        && Some(lang) == second.map(String::as_str)
}

fn localized(o: &Options, s: &Sample, field: &str) -> Vec<(String, Option<&'static str>)> {
    let table = if field == "name" { s.name } else { s.summary };
    (o.languages.iter())
        .map(|lang| {
            let t = text(table, lang, &o.default_language);
            (lang.clone(), t.filter(|_| !left_out(o, s.id, lang, field)))
        })
        .collect()
}

fn csv_file(o: &Options, samples: &[Sample]) -> String {
    let mut w =
        csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    let mut header = vec!["id".to_string()];
    for field in ["name", "summary"] {
        header.extend(o.languages.iter().map(|l| format!("{field}.{l}")));
    }
    header.extend(
        ["category", "country", "location.lat", "location.lon", "tags", "rating"].map(String::from),
    );
    w.write_record(&header).expect("writes to memory");
    for s in samples {
        let mut row = vec![s.id.to_string()];
        for field in ["name", "summary"] {
            row.extend(
                localized(o, s, field).into_iter().map(|(_, t)| t.unwrap_or("").to_string()),
            );
        }
        row.extend([
            s.category.to_string(),
            s.country.to_string(),
            s.lat.to_string(),
            s.lon.to_string(),
            s.tags.join("|"),
            s.rating.to_string(),
        ]);
        w.write_record(&row).expect("writes to memory");
    }
    String::from_utf8(w.into_inner().expect("flushes to memory")).expect("UTF-8 in, UTF-8 out")
}

fn jsonl_file(o: &Options, samples: &[Sample]) -> String {
    let mut out = String::new();
    for s in samples {
        let by_lang = |field: &str| -> Value {
            let map = localized(o, s, field).into_iter().filter_map(|(l, t)| Some((l, json!(t?))));
            Value::Object(map.collect())
        };
        let record = json!({
            "id": s.id,
            "name": by_lang("name"),
            "summary": by_lang("summary"),
            "category": s.category,
            "country": s.country,
            "location": {"lat": s.lat, "lon": s.lon},
            "tags": s.tags,
            "rating": s.rating,
        });
        out.push_str(&record.to_string());
        out.push('\n');
    }
    out
}

fn config(o: &Options) -> String {
    let quoted: Vec<String> = o.languages.iter().map(|l| format!("\"{l}\"")).collect();
    let env = minijinja::Environment::new();
    let ctx = minijinja::context! {
        resource => &o.resource,
        languages => quoted.join(", "),
        default_language => &o.default_language,
    };
    env.render_str(CONFIG, ctx).expect("the built-in config template renders") + "\n"
}

/// Every file of a new project, or the config's problems when the options make an
/// invalid config (a language that is no tag, a resource that is no path segment).
pub fn files(o: &Options) -> Result<Vec<InitFile>, Vec<String>> {
    let toml = config(o);
    let name = Path::new("folio.toml");
    let root = Path::new("/");
    Project::from_toml(&toml, name, root, root, &Overrides::default()).map_err(|e| match e {
        config::Error::Invalid { errors, .. } => errors.into_iter().map(|e| e.message).collect(),
        other => vec![other.to_string()],
    })?;
    let (first, rest) = SAMPLES.split_at(3);
    Ok(vec![
        InitFile { rel: "folio.toml", contents: toml, data: false },
        InitFile { rel: "data/attractions.csv", contents: csv_file(o, first), data: true },
        InitFile { rel: "data/more.jsonl", contents: jsonl_file(o, rest), data: true },
        InitFile {
            rel: "templates/README.md",
            contents: TEMPLATES_README.to_string(),
            data: false,
        },
        InitFile { rel: ".gitignore", contents: GITIGNORE.to_string(), data: false },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(langs: &[&str]) -> Options {
        Options {
            languages: langs.iter().map(|l| l.to_string()).collect(),
            default_language: langs[0].to_string(),
            resource: "sights".into(),
        }
    }

    #[test]
    fn the_config_names_the_languages_and_resource_and_every_key() {
        let f = files(&options(&["en", "fr"])).unwrap();
        let toml = &f[0].contents;
        assert!(toml.contains("languages = [\"en\", \"fr\"]"), "{toml}");
        assert!(toml.contains("resource = \"sights\""));
        assert!(toml.contains("default_language = \"en\""));
        // Optional keys are there, commented out.
        for key in
            ["# fields = ", "# envelope = ", "# url_style = ", "# precompress = ", "# url = "]
        {
            assert!(toml.contains(key), "no {key:?} in\n{toml}");
        }
    }

    #[test]
    fn one_translation_is_left_out_and_unknown_languages_fall_back() {
        let f = files(&options(&["en", "fr"])).unwrap();
        let csv = &f[1].contents;
        assert!(csv.starts_with("id,name.en,name.fr,summary.en,summary.fr,category,"), "{csv}");
        assert!(csv.contains("Tour Eiffel"));
        let jsonl = &f[2].contents;
        let last: Value = serde_json::from_str(jsonl.lines().last().unwrap()).unwrap();
        assert_eq!(last["summary"].as_object().unwrap().len(), 1, "{last}");
        assert_eq!(last["name"]["fr"], "Montagne de la Table");

        // A language with no sample translations: its default-language text is English.
        let f =
            files(&Options { default_language: "th".into(), ..options(&["th", "en"]) }).unwrap();
        let first: Value = serde_json::from_str(f[2].contents.lines().next().unwrap()).unwrap();
        assert_eq!(first["name"]["th"], "Neuschwanstein Castle");
    }

    #[test]
    fn bad_options_get_the_builds_own_messages() {
        let err = files(&options(&["EN"])).unwrap_err();
        assert!(err[0].contains("`EN` is not lowercase: write `en`"), "{err:?}");
        let err = files(&Options { resource: "a/b".into(), ..options(&["en"]) }).unwrap_err();
        assert!(err[0].contains("must be a lowercase path segment"), "{err:?}");
        let err =
            files(&Options { default_language: "de".into(), ..options(&["en"]) }).unwrap_err();
        assert!(err[0].contains("default_language `de` is not one of"), "{err:?}");
    }
}
