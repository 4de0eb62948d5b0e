//! The compiler this server has: Debian's clang, lld and the wasm32 sysroot, found once,
//! with the files the sandbox lets it read and the Debian packages missing for C and
//! for C++.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::registry::SourceLanguage;

/// Where Debian's `wasi-libc` puts the sysroot's headers and libraries.
const SYSROOT_INCLUDE: &str = "/usr/include/wasm32-wasi";
const SYSROOT_LIB: &str = "/usr/lib/wasm32-wasi";

/// What a compile needs, and the Debian package that brings it.
struct Need {
    /// A file that must exist (or, for the linker and the builtins, a path the
    /// compiler answers).
    what: Needed,
    package: &'static str,
    cpp_only: bool,
}

enum Needed {
    Clang,
    Linker,
    Builtins,
    File(&'static str),
}

const NEEDS: &[Need] = &[
    Need { what: Needed::Clang, package: "clang", cpp_only: false },
    Need { what: Needed::Linker, package: "lld", cpp_only: false },
    Need { what: Needed::File("/usr/include/wasm32-wasi/stdlib.h"), package: "wasi-libc", cpp_only: false },
    Need { what: Needed::File("/usr/lib/wasm32-wasi/libc.a"), package: "wasi-libc", cpp_only: false },
    Need { what: Needed::Builtins, package: "libclang-rt-dev-wasm32", cpp_only: false },
    Need {
        what: Needed::File("/usr/include/wasm32-wasi/c++/v1/iostream"),
        package: "libc++-dev-wasm32",
        cpp_only: true,
    },
    Need { what: Needed::File("/usr/lib/wasm32-wasi/libc++.a"), package: "libc++-dev-wasm32", cpp_only: true },
    Need { what: Needed::File("/usr/lib/wasm32-wasi/libc++abi.a"), package: "libc++abi-14-dev-wasm32", cpp_only: true },
];

/// Every Debian package the compiler uses, as `apt-get install` takes them.
pub const DEBIAN_PACKAGES: &[&str] =
    &["clang", "lld", "wasi-libc", "libclang-rt-dev-wasm32", "libc++-dev-wasm32", "libc++abi-14-dev-wasm32"];

/// The compiler found on this server.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// The clang binary itself (symbolic links resolved).
    pub clang: PathBuf,
    /// The linker clang runs (`wasm-ld`), resolved.
    pub linker: PathBuf,
    /// The shell that sets the compile's resource limits before it runs clang.
    pub shell: PathBuf,
    /// Clang's own headers and runtime (`-print-resource-dir`).
    pub resource_dir: PathBuf,
    /// Shared libraries of clang, the linker and the shell, and the dynamic loader.
    pub libraries: Vec<PathBuf>,
    /// `clang --version`'s first line: part of every cache key.
    pub version: String,
}

impl Toolchain {
    /// The sysroot's headers.
    pub fn sysroot_include(&self) -> &'static Path {
        Path::new(SYSROOT_INCLUDE)
    }

    /// The sysroot's libraries.
    pub fn sysroot_lib(&self) -> &'static Path {
        Path::new(SYSROOT_LIB)
    }
}

/// What this server can compile.
#[derive(Clone, Debug)]
pub struct Detected {
    /// The compiler, when clang runs at all.
    pub toolchain: Option<Toolchain>,
    /// Debian packages missing for C.
    pub missing_for_c: Vec<&'static str>,
    /// Debian packages missing for C++ (those for C included).
    pub missing_for_cpp: Vec<&'static str>,
}

impl Detected {
    /// The packages `language` still needs; empty when it compiles here.
    pub fn missing(&self, language: SourceLanguage) -> &[&'static str] {
        match language {
            SourceLanguage::C => &self.missing_for_c,
            SourceLanguage::Cpp => &self.missing_for_cpp,
        }
    }
}

/// The toolchain of this server, looked for once.
pub fn detected() -> &'static Detected {
    static DETECTED: OnceLock<Detected> = OnceLock::new();
    DETECTED.get_or_init(detect)
}

fn detect() -> Detected {
    let clang = find_in_path("clang").and_then(|p| p.canonicalize().ok());
    let ask = |args: &[&str]| -> Option<String> {
        let clang = clang.as_ref()?;
        let output = Command::new(clang).args(args).env_clear().output().ok()?;
        output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let version = ask(&["--version"]).and_then(|v| v.lines().next().map(str::to_owned));
    let linker = ask(&["--target=wasm32-wasi", "-print-prog-name=wasm-ld"])
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && p.exists())
        .and_then(|p| p.canonicalize().ok());
    let builtins = ask(&["--target=wasm32-wasi", "-print-libgcc-file-name"]).map(PathBuf::from).filter(|p| p.exists());
    let resource_dir = ask(&["-print-resource-dir"]).map(PathBuf::from).filter(|p| p.is_dir());
    let mut missing_for_c = Vec::new();
    let mut missing_for_cpp = Vec::new();
    for need in NEEDS {
        let present = match need.what {
            Needed::Clang => version.is_some(),
            Needed::Linker => linker.is_some(),
            Needed::Builtins => builtins.is_some(),
            Needed::File(path) => Path::new(path).exists(),
        };
        if present {
            continue;
        }
        if !need.cpp_only && !missing_for_c.contains(&need.package) {
            missing_for_c.push(need.package);
        }
        if !missing_for_cpp.contains(&need.package) {
            missing_for_cpp.push(need.package);
        }
    }
    let shell = Path::new("/bin/sh").canonicalize().ok();
    let toolchain = match (clang, linker, shell, resource_dir, version) {
        (Some(clang), Some(linker), Some(shell), Some(resource_dir), Some(version)) => {
            let libraries = shared_libraries(&[&clang, &linker, &shell]);
            Some(Toolchain { clang, linker, shell, resource_dir, libraries, version })
        }
        _ => None,
    };
    if toolchain.is_none() && !missing_for_c.contains(&"clang") {
        missing_for_c.insert(0, "clang");
        missing_for_cpp.insert(0, "clang");
    }
    Detected { toolchain, missing_for_c, missing_for_cpp }
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| p.is_file())
}

/// The shared libraries `binaries` load, as `ldd` lists them (the loader included),
/// resolved: the only libraries the sandbox lets them read.
fn shared_libraries(binaries: &[&Path]) -> Vec<PathBuf> {
    let mut libraries: Vec<PathBuf> = Vec::new();
    for binary in binaries {
        let Ok(output) = Command::new("ldd").arg(binary).env_clear().output() else { continue };
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            // `libz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x...)` or `/lib64/ld-linux-x86-64.so.2 (0x...)`
            let path = line.split_whitespace().find(|word| word.starts_with('/')).map(PathBuf::from);
            let Some(path) = path else { continue };
            for found in [Some(path.clone()), path.canonicalize().ok()].into_iter().flatten() {
                if !libraries.contains(&found) {
                    libraries.push(found);
                }
            }
        }
    }
    libraries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpp_needs_everything_c_needs() {
        let detected = detected();
        for package in &detected.missing_for_c {
            assert!(detected.missing_for_cpp.contains(package), "{package}");
        }
        for package in detected.missing_for_cpp.iter().chain(&detected.missing_for_c) {
            assert!(DEBIAN_PACKAGES.contains(package), "{package} is one of the packages xtask installs");
        }
    }

    #[test]
    fn a_toolchain_found_names_its_libraries() {
        if let Some(toolchain) = &detected().toolchain {
            assert!(toolchain.version.contains("clang"), "{}", toolchain.version);
            assert!(toolchain.libraries.iter().any(|l| l.to_string_lossy().contains("libc.so")), "{toolchain:?}");
        }
    }
}
