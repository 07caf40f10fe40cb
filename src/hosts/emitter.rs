//! What every emitter takes and gives: the routing context ([`HostCtx`]) in, its files
//! ([`HostFile`], each for the server's folder or the published one) out, and the one way
//! a host's template is filled ([`fill`]).

use minijinja::{AutoEscape, Environment, UndefinedBehavior};

use crate::config::Shape;
use crate::routes::ErrorCode;

/// Where a host file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// `hosting_dir`: server-side configs.
    Hosting,
    /// `output_dir`: files the host reads from the published folder.
    Output,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostFile {
    pub dir: Dir,
    /// Relative to its folder, `/`-separated.
    pub name: String,
    pub contents: String,
}

impl HostFile {
    pub(super) fn hosting(name: &str, contents: String) -> HostFile {
        HostFile { dir: Dir::Hosting, name: name.into(), contents }
    }

    pub(super) fn output(name: &str, contents: String) -> HostFile {
        HostFile { dir: Dir::Output, name: name.into(), contents }
    }
}

/// What every emitter gets: what folio.toml says, and nothing of the data. An emitter
/// of a file published with the pages is also handed the listing's map (its page counts).
#[derive(Debug, Clone)]
pub struct HostCtx<'a> {
    pub shape: &'a Shape,
    /// Absolute path of the published folder on the server (`[hosting] root`).
    pub root: String,
    /// `[hosting] listen`, e.g. `127.0.0.1:8080`.
    pub listen: String,
    /// With `[hosting.cloudflare] serve_from = "r2"`: the bucket and key prefix of
    /// `[deploy] url`, which the Cloudflare Worker reads.
    pub r2: Option<R2>,
}

pub use crate::config::R2;

impl<'a> HostCtx<'a> {
    /// `host:port` split for configs that want them apart.
    pub fn listen_parts(&self) -> (&str, &str) {
        self.listen.rsplit_once(':').unwrap_or((&self.listen, "80"))
    }

    /// The path of an error document below the mount point, e.g. `/api/errors/x.json`.
    pub fn error_path(&self, code: ErrorCode) -> String {
        self.shape.path(&code.file())
    }

    /// The context of the emitters' unit tests: `shape` served from `/srv/site/output`
    /// on 127.0.0.1:9000.
    #[cfg(test)]
    pub(crate) fn sample(shape: &'a Shape) -> HostCtx<'a> {
        HostCtx {
            shape,
            root: "/srv/site/output".into(),
            listen: "127.0.0.1:9000".into(),
            r2: None,
        }
    }
}

/// The one file a server-side `render` writes for the sample table's shape
/// (`routes::sample(mount)`), checked to be `name` in `hosting/`: what each emitter's unit
/// tests read.
#[cfg(test)]
pub(crate) fn sample_file(
    render: fn(&HostCtx) -> Vec<HostFile>,
    mount: &str,
    name: &str,
) -> String {
    let routes = crate::routes::sample(mount);
    let files = render(&HostCtx::sample(&routes.shape));
    let dir = Dir::Hosting;
    assert_eq!(files.len(), 1);
    assert_eq!((files[0].dir, files[0].name.as_str()), (dir, name));
    files[0].contents.clone()
}

/// Fills a host file's template (the first of `templates`; the others are partials it
/// includes by name) with `ctx`, and with `names`: the API's folders and media types
/// ([`crate::routes::names`]), which no template spells itself. Blocks take their line
/// with them; undefined names are errors, so a typo in a template fails its emitter's
/// unit test.
pub(super) fn fill(templates: &[(&'static str, &'static str)], ctx: minijinja::Value) -> String {
    let mut env = Environment::new();
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(true)
        .build()
        .expect("the default delimiters");
    env.set_syntax(syntax);
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.add_global("names", minijinja::value::Serde(crate::routes::names()));
    for (name, source) in templates {
        env.add_template(name, source).expect("a host template parses");
    }
    let main = env.get_template(templates[0].0).expect("added above");
    main.render(ctx).expect("a host template renders with its context")
}
