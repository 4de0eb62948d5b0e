//! C and C++ fixtures compiled to WebAssembly by the test itself, with Debian's clang
//! and the wasm32 sysroot, the way the server's compiler builds a student's program:
//! a WASI reactor (`-mexec-model=reactor`) including the lab's headers
//! (`vlab_programs::native_api::HEADERS`) and nothing of the host's.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The language of a fixture.
#[derive(Clone, Copy, Debug)]
pub enum Lang {
    C,
    Cpp,
}

/// The wasm32 sysroot's folders.
const SYSROOT_INCLUDE: &str = "/usr/include/wasm32-wasi";
const LIBCXX_INCLUDE: &str = "/usr/include/wasm32-wasi/c++/v1";

/// What a build needs, each with the Debian package that provides it.
fn missing_packages() -> Vec<&'static str> {
    let mut missing = Vec::new();
    let runs = |tool: &str| Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    if !runs("clang") || !runs("clang++") {
        missing.push("clang");
    }
    if !runs("wasm-ld") {
        missing.push("lld");
    }
    let files: [(&str, &'static str); 4] = [
        ("/usr/include/wasm32-wasi/stdio.h", "wasi-libc"),
        ("/usr/include/wasm32-wasi/c++/v1/iostream", "libc++-dev-wasm32"),
        ("/usr/lib/wasm32-wasi/libc++abi.a", "libc++abi-14-dev-wasm32"),
        ("/usr/lib/wasm32-wasi/libc++.a", "libc++-dev-wasm32"),
    ];
    for (file, package) in files {
        if !Path::new(file).exists() && !missing.contains(&package) {
            missing.push(package);
        }
    }
    if !missing.contains(&"clang") && !builtins_present() {
        missing.push("libclang-rt-dev-wasm32");
    }
    missing
}

/// Whether clang's wasm32 builtins library (`libclang_rt.builtins-wasm32.a`) is there.
fn builtins_present() -> bool {
    let Ok(output) = Command::new("clang").arg("--print-resource-dir").output() else { return false };
    let dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    dir.join("lib/wasi/libclang_rt.builtins-wasm32.a").exists()
}

/// A fresh folder under the system's temporary one.
fn scratch() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("vlab-native-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("include")).expect("a scratch folder");
    dir
}

/// `source` compiled and linked to a WebAssembly module, or clang's diagnostics.
fn try_compile(lang: Lang, source: &str) -> Result<Vec<u8>, String> {
    let missing = missing_packages();
    assert!(
        missing.is_empty(),
        "cannot build C and C++ fixtures: install the Debian package(s) {} (`cargo xtask test` installs them)",
        missing.join(", ")
    );
    let dir = scratch();
    for (path, text) in vlab_programs::native_api::HEADERS {
        let file = dir.join("include").join(path);
        std::fs::create_dir_all(file.parent().expect("a folder")).expect("the header's folder");
        std::fs::write(&file, text).expect("the header");
    }
    let (driver, file, mut system) = match lang {
        Lang::C => ("clang", "program.c", vec![]),
        Lang::Cpp => ("clang++", "program.cpp", vec!["-isystem", LIBCXX_INCLUDE, "-fno-exceptions"]),
    };
    system.extend(["-isystem", SYSROOT_INCLUDE]);
    std::fs::write(dir.join(file), source).expect("the source");
    let output = Command::new(driver)
        .current_dir(&dir)
        .args(["--target=wasm32-wasi", "-mexec-model=reactor", "-Oz", "-Wall", "-Werror", "-nostdlibinc"])
        .args(system)
        .args(["-I", "include", "-o", "program.wasm", file])
        .output()
        .map_err(|e| format!("cannot run {driver}: {e}"))?;
    let module = std::fs::read(dir.join("program.wasm"));
    let _ = std::fs::remove_dir_all(&dir);
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    module.map_err(|e| format!("no module: {e}"))
}

/// `source` compiled, which must succeed.
pub fn compile(lang: Lang, source: &str) -> Vec<u8> {
    try_compile(lang, source).unwrap_or_else(|e| panic!("the fixture does not compile:\n{e}"))
}
