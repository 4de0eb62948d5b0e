//! Gives the first module's imports from its JS glue short names, in the wasm and in the
//! glue alike, as a JS minifier shortens identifiers.
//!
//! *Why:* wasm-bindgen names each of them after the JS function it binds plus a hash
//! (`__wbg_createElement_8c9931a732ee2fea`) and puts them all in the module
//! `./vlab_frontend_bg.js`. Nothing else ever reads those names: the glue hands the
//! functions to `WebAssembly.instantiate` as one object whose keys are the names, and
//! the wasm asks for them by the same names. With four hundred of them the names were
//! about 21 KB of the first module; short ones are under 1 KB. The parts' imports (the
//! loader's functions, which the loader's own JS names) are left as they are.
//!
//! The glue is rewritten by exact text: every renamed import must be defined exactly
//! once, as wasm-bindgen writes it (`    <name>: function(`), or the build stops and
//! says which one, so a new wasm-bindgen that writes its glue differently cannot
//! produce a page whose imports do not match.

use anyhow::{Result, bail};

/// The module name the renamed imports get (instead of `./<stem>_bg.js`).
const SHORT_MODULE: &str = "w";

/// One import renamed: its name as wasm-bindgen wrote it, and its new one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renamed {
    pub old: String,
    pub new: String,
}

/// What [`shorten`] did, for [`rewrite_glue`].
#[derive(Debug, Default)]
pub struct Renames {
    /// The module the imports came from (`./vlab_frontend_bg.js`).
    pub module: String,
    pub imports: Vec<Renamed>,
}

/// Renames, in place, the imports (module, name) whose module is `glue_module`: to
/// [`SHORT_MODULE`] and a short name each, given in order.
pub fn shorten<'a>(imports: impl Iterator<Item = (&'a mut String, &'a mut String)>, glue_module: &str) -> Renames {
    let mut renames = Renames { module: glue_module.to_owned(), imports: Vec::new() };
    for (module, name) in imports {
        if module != glue_module {
            continue;
        }
        let new = short_name(renames.imports.len());
        *module = SHORT_MODULE.to_owned();
        renames.imports.push(Renamed { old: std::mem::replace(name, new.clone()), new });
    }
    renames
}

/// The glue `js` with the imports' keys and their module's key renamed as `renames` says.
pub fn rewrite_glue(js: &str, renames: &Renames) -> Result<String> {
    let mut js = replace_once(
        js,
        &format!("\"{}\": import", renames.module),
        &format!("\"{SHORT_MODULE}\": import"),
        "the key of the glue's import module",
    )?;
    for Renamed { old, new } in &renames.imports {
        js = replace_once(&js, &format!(" {old}: function("), &format!(" {new}: function("), old)?;
    }
    Ok(js)
}

/// `text` with the one occurrence of `from` replaced by `to`.
fn replace_once(text: &str, from: &str, to: &str, what: &str) -> Result<String> {
    match text.matches(from).count() {
        1 => Ok(text.replacen(from, to, 1)),
        found => bail!(
            "the JS glue defines {what} {found} times where once was expected (`{}`): \
             wasm-bindgen writes its glue differently now; the imports were not renamed",
            from.trim()
        ),
    }
}

/// The `index`th short name: `a`…`z`, `A`…`Z`, then two characters and more. Always a
/// JS identifier, never one the import object treats specially (`__proto__`).
fn short_name(index: usize) -> String {
    const FIRST: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const REST: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut name = vec![FIRST[index % FIRST.len()]];
    let mut rest = index / FIRST.len();
    while rest > 0 {
        rest -= 1;
        name.push(REST[rest % REST.len()]);
        rest /= REST.len();
    }
    String::from_utf8(name).expect("ASCII")
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    const GLUE: &str = "function __wbg_get_imports() {
    const import0 = {
        __proto__: null,
        __wbg_push_c9f4893fc209f768: function(arg0, arg1) {
            return arg0.push(arg1);
        },
        __wbindgen_init_externref_table: function() {
        },
    };
    return {
        __proto__: null,
        \"./app_bg.js\": import0,
        \"./app_parts.js\": import1,
    };
}";

    fn imports() -> Vec<(String, String)> {
        [
            ("./app_bg.js", "__wbg_push_c9f4893fc209f768"),
            ("./app_parts.js", "__wasm_split_load_editor"),
            ("./app_bg.js", "__wbindgen_init_externref_table"),
        ]
        .map(|(module, name)| (module.to_owned(), name.to_owned()))
        .to_vec()
    }

    #[test]
    fn renames_the_glue_imports_in_the_wasm_and_the_glue_alike() {
        let mut imports = imports();
        let renames = shorten(imports.iter_mut().map(|(module, name)| (module, name)), "./app_bg.js");
        assert_eq!(
            imports,
            [("w", "a"), ("./app_parts.js", "__wasm_split_load_editor"), ("w", "b")]
                .map(|(module, name)| (module.to_owned(), name.to_owned()))
                .to_vec(),
            "the loader's import keeps its name"
        );
        let js = rewrite_glue(GLUE, &renames).unwrap();
        assert!(js.contains("        a: function(arg0, arg1) {\n            return arg0.push(arg1);"), "{js}");
        assert!(js.contains("        b: function() {"), "{js}");
        assert!(js.contains("\"w\": import0,"), "{js}");
        assert!(js.contains("\"./app_parts.js\": import1,"), "{js}");
        assert!(!js.contains("__wbg_push") && !js.contains("__wbindgen_init") && !js.contains("app_bg"), "{js}");
        assert!(js.contains("__proto__: null"), "{js}");
    }

    #[test]
    fn a_glue_written_differently_stops_the_build() {
        let mut imports = imports();
        let renames = shorten(imports.iter_mut().map(|(module, name)| (module, name)), "./app_bg.js");
        let changed = GLUE
            .replace("__wbg_push_c9f4893fc209f768: function(arg0, arg1)", "__wbg_push_c9f4893fc209f768(arg0, arg1)");
        let error = rewrite_glue(&changed, &renames).unwrap_err().to_string();
        assert!(error.contains("__wbg_push_c9f4893fc209f768 0 times"), "{error}");
        let twice = GLUE.replace("\"./app_bg.js\": import0,", "\"./app_bg.js\": import0, \"./app_bg.js\": import0,");
        assert!(rewrite_glue(&twice, &renames).is_err());
    }

    #[test]
    fn short_names_are_distinct_identifiers() {
        let names: Vec<String> = (0..10_000).map(short_name).collect();
        assert_eq!(names[0], "a");
        assert_eq!(names[51], "Z");
        assert_eq!(names[52], "aa");
        assert_eq!(names.iter().collect::<HashSet<_>>().len(), names.len(), "no name twice");
        for name in &names {
            assert!(name.chars().next().unwrap().is_ascii_alphabetic(), "{name}");
            assert!(name.chars().all(|c| c.is_ascii_alphanumeric()), "{name}");
            assert!(name.len() <= 3, "{name}");
        }
    }
}
