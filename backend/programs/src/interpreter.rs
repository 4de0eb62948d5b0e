//! The real Python interpreter, resolved once: `python3` may be a shell shim (pyenv),
//! so it is asked, unsandboxed, where its binary, standard library and shared libraries
//! are; programs then always run that binary directly, and the sandbox lets them read
//! exactly those places.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde::Deserialize;

use super::ProgramError;

/// Environment variable naming the interpreter to use instead of `python3` on `PATH`.
pub const PYTHON_ENV: &str = "VLAB_PYTHON";

/// Asked of the interpreter once: where it lives and what it loads. It imports the
/// modules students commonly use so that their shared libraries are known.
const PROBE: &str = r#"
import sys, sysconfig, json
for name in ("ctypes", "json", "math", "random", "traceback", "io", "os", "time",
             "collections", "heapq", "bisect", "statistics", "itertools", "functools",
             "struct", "array", "datetime", "decimal", "fractions", "zlib", "hashlib",
             "select", "cmath", "copy", "dataclasses", "enum", "re", "string",
             "textwrap", "typing", "unicodedata", "operator"):
    try:
        __import__(name)
    except Exception:
        pass
libs = []
with open("/proc/self/maps") as maps:
    for line in maps:
        parts = line.split()
        if len(parts) >= 6 and parts[5].startswith("/") and ".so" in parts[5] and parts[5] not in libs:
            libs.append(parts[5])
print(json.dumps({
    "executable": sys.executable,
    "prefix": sys.prefix,
    "base_prefix": sys.base_prefix,
    "stdlib": sysconfig.get_path("stdlib"),
    "platstdlib": sysconfig.get_path("platstdlib"),
    "version": list(sys.version_info[:3]),
    "libs": libs,
}))
"#;

/// A Python interpreter and the files it needs.
#[derive(Clone, Debug, Deserialize)]
pub struct Interpreter {
    /// The real binary (no shim).
    pub executable: PathBuf,
    /// `sys.prefix`.
    pub prefix: PathBuf,
    /// `sys.base_prefix`.
    pub base_prefix: PathBuf,
    /// The standard library folder.
    pub stdlib: PathBuf,
    /// The platform-specific standard library folder.
    pub platstdlib: PathBuf,
    /// `(major, minor, micro)`.
    pub version: Vec<u32>,
    /// Shared objects it loaded (the dynamic loader among them).
    pub libs: Vec<PathBuf>,
}

impl Interpreter {
    /// The interpreter of this server: `$VLAB_PYTHON`, else `python3` on `PATH`, asked
    /// once per process.
    pub fn system() -> Result<&'static Interpreter, ProgramError> {
        static RESOLVED: OnceLock<Result<Interpreter, String>> = OnceLock::new();
        RESOLVED
            .get_or_init(|| {
                let name = std::env::var_os(PYTHON_ENV).unwrap_or_else(|| "python3".into());
                Interpreter::probe(&PathBuf::from(name))
            })
            .as_ref()
            .map_err(|e| ProgramError::NoInterpreter(e.clone()))
    }

    /// Asks `python` (any name or path) where it really is.
    pub fn probe(python: &std::path::Path) -> Result<Interpreter, String> {
        let output = Command::new(python)
            .args(["-I", "-S", "-B", "-c", PROBE])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
        if !output.status.success() {
            return Err(format!("{} failed: {}", python.display(), String::from_utf8_lossy(&output.stderr).trim()));
        }
        let mut found: Interpreter = serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("{} answered unexpectedly: {e}", python.display()))?;
        if found.version.first().copied().unwrap_or(0) < 3 || found.version.get(1).copied().unwrap_or(0) < 8 {
            return Err(format!("Python 3.8 or newer is needed, {} is {:?}", python.display(), found.version));
        }
        found.executable = std::fs::canonicalize(&found.executable)
            .map_err(|e| format!("cannot resolve {}: {e}", found.executable.display()))?;
        Ok(found)
    }

    /// The dynamic loader among its libraries (`ld-linux-*.so`), if it is dynamic.
    pub fn loader(&self) -> Option<&PathBuf> {
        self.libs.iter().find(|lib| lib.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("ld-")))
    }
}
