//! Helpers shared by the integration tests.

#![allow(dead_code)]

use vlab_scene::{Interpretation, MapLoader, Options, SourceLoader, interpret};

/// Interprets `source` as `main.vlab` with no other files; panics on error.
pub fn run(source: &str) -> Interpretation {
    run_with(source, &MapLoader::new())
}

/// Interprets `source` with `loader`; panics on error.
pub fn run_with(source: &str, loader: &dyn SourceLoader) -> Interpretation {
    interpret(source, "main.vlab", loader, &Options::default()).unwrap_or_else(|e| panic!("{}", e[0]))
}

/// The `print_*` lines of `source`.
pub fn log(source: &str) -> Vec<String> {
    run(source).log
}

/// The first error of `source`, as `file:line:col: message`.
pub fn error(source: &str) -> String {
    error_with(source, &MapLoader::new(), &Options::default())
}

/// The first error of `source` with `loader` and `options`.
pub fn error_with(source: &str, loader: &dyn SourceLoader, options: &Options) -> String {
    match interpret(source, "main.vlab", loader, options) {
        Ok(_) => panic!("expected an error from:\n{source}"),
        Err(errors) => errors[0].to_string(),
    }
}
