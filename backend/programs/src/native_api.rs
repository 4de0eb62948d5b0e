//! The C and C++ robot API as the compiler sees it: the headers a C or C++ program
//! includes (`#include <vlab.h>`, `#include <plugins/robot_software_api.h>`), built on
//! the WebAssembly robot API (`vlab_protocol::robot_abi`). The compiler writes them
//! into its include folder; programs compile against nothing else of the server.

/// Every header, as `(path under the include folder, contents)`.
pub const HEADERS: &[(&str, &str)] = &[
    ("vlab.h", include_str!("../native/include/vlab.h")),
    ("plugins/robot_software_api.h", include_str!("../native/include/plugins/robot_software_api.h")),
];

#[cfg(test)]
mod tests {
    use vlab_protocol::robot_abi::{ABI_VERSION, IMPORTS};

    use super::HEADERS;

    fn header(path: &str) -> &'static str {
        HEADERS.iter().find(|(p, _)| *p == path).map(|(_, text)| *text).expect("the header")
    }

    #[test]
    fn vlab_h_declares_every_import_of_the_robot_api_and_its_version() {
        let vlab = header("vlab.h");
        for name in IMPORTS {
            assert!(vlab.contains(&format!("VLAB_IMPORT(\"{name}\")")), "vlab.h does not declare `{name}`");
        }
        assert_eq!(vlab.matches("VLAB_IMPORT(\"").count(), IMPORTS.len(), "vlab.h declares an import the lab lacks");
        assert!(vlab.contains(&format!("#define VLAB_ABI_VERSION {ABI_VERSION}\n")));
    }

    #[test]
    fn the_cpp_header_builds_on_vlab_h() {
        let api = header("plugins/robot_software_api.h");
        assert!(api.contains("#include <vlab.h>"));
        assert!(api.contains("#define ROBOT_SOFTWARE_PLUGIN(Class, name)"));
    }
}
