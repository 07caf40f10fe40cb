//! folio.toml: any text parses into a config or an error naming the file, and a parsed
//! config validates into a project or errors naming the file, without a panic.
#![no_main]

use std::path::Path;

use folio::config::{Config, Overrides};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let name = Path::new("folio.toml");
    match Config::from_str(text, name) {
        Err(e) => assert!(e.to_string().starts_with("folio.toml"), "{e}"),
        Ok(config) => {
            let root = Path::new("/nonexistent/fuzz");
            if let Err(errors) = config.validate(name, root, root, &Overrides::default()) {
                assert!(!errors.is_empty());
                for e in errors {
                    assert!(e.to_string().starts_with("folio.toml"), "{e}");
                }
            }
        }
    }
});
