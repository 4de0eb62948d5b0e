//! The C and C++ robot API as the compiler sees it: the headers a C or C++ program
//! includes (`#include <vlab.h>`, `#include <plugins/robot_software_api.h>`), built on
//! the WebAssembly robot API (`vlab_protocol::robot_abi`). The compiler writes them
//! into its include folder; programs compile against nothing else of the server.

/// Every header, as `(path under the include folder, contents)`.
pub const HEADERS: &[(&str, &str)] = &[
    ("vlab.h", include_str!("../native/include/vlab.h")),
    ("plugins/robot_software_api.h", include_str!("../native/include/plugins/robot_software_api.h")),
];
