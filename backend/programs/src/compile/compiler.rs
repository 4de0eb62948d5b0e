//! The server's compiling service: a compile runs on a blocking thread (never a lab's),
//! at most [`CompileLimits::at_once`] at a time server-wide, one per student, behind a
//! bounded queue; what it made is kept by digest, so the same sources are compiled
//! once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;

use super::cache::{ModuleCache, SourceDigest, digest};
use super::limits::CompileLimits;
use super::registry::{SourceLanguage, is_header};
use super::toolchain::{Toolchain, detected};
use super::{CompileError, CompileRequest, Compiled};
use crate::CodeProblem;
use crate::native_api::HEADERS;

/// Most errors and warnings passed on from one compile.
const MAX_DIAGNOSTICS: usize = 20;

/// Compiles C and C++ for a whole server.
pub struct Compiler {
    limits: CompileLimits,
    cache: ModuleCache,
    turns: Arc<Semaphore>,
    waiting: AtomicUsize,
    /// Who has a compile waiting or running.
    compiling: Mutex<HashSet<String>>,
    compiles: AtomicU64,
    /// This server's folder for compiles under way (removed as each ends).
    work: PathBuf,
    jobs: AtomicU64,
}

impl Compiler {
    /// A compiler keeping its modules in `cache_folder` (`None`: in memory).
    pub fn new(cache_folder: Option<PathBuf>, limits: CompileLimits) -> Compiler {
        static SERVERS: AtomicU64 = AtomicU64::new(0);
        let work = std::env::temp_dir().join(format!(
            "vlab-compile-{}-{}",
            std::process::id(),
            SERVERS.fetch_add(1, Ordering::Relaxed)
        ));
        Compiler {
            turns: Arc::new(Semaphore::new(limits.at_once.max(1))),
            limits,
            cache: ModuleCache::new(cache_folder),
            waiting: AtomicUsize::new(0),
            compiling: Mutex::default(),
            compiles: AtomicU64::new(0),
            work,
            jobs: AtomicU64::new(0),
        }
    }

    /// Its limits.
    pub fn limits(&self) -> &CompileLimits {
        &self.limits
    }

    /// How many times it ran the compiler (cache hits are not counted).
    pub fn compiles(&self) -> u64 {
        self.compiles.load(Ordering::Relaxed)
    }

    /// Compiles `request` for `who` (a student, so that each has one compile at a time;
    /// `None`: the server itself, restoring): from the cache if it was compiled before.
    pub async fn compile(&self, request: CompileRequest, who: Option<String>) -> Result<Compiled, CompileError> {
        let missing = detected().missing(request.language);
        if !missing.is_empty() {
            return Err(CompileError::Unavailable { language: request.language, packages: missing.to_vec() });
        }
        let toolchain = detected().toolchain.clone().expect("no package is missing, so clang was found");
        check_files(&request, &self.limits)?;
        let key = digest(&toolchain.version, &flags(request.language), HEADERS, &request.files);
        if let Some(module) = self.cache.get(&key) {
            return Ok(Compiled { module, warnings: Vec::new(), cached: true });
        }
        let _student = match who {
            Some(who) => Some(Student::enter(&self.compiling, who)?),
            None => None,
        };
        let _turn = self.wait_for_turn().await?;
        // Compiled meanwhile by an upload of the same sources.
        if let Some(module) = self.cache.get(&key) {
            return Ok(Compiled { module, warnings: Vec::new(), cached: true });
        }
        let folder = self.work.join(self.jobs.fetch_add(1, Ordering::Relaxed).to_string());
        let limits = self.limits.clone();
        let headers = self.work.join("include");
        self.compiles.fetch_add(1, Ordering::Relaxed);
        let compiled = tokio::task::spawn_blocking(move || {
            let result = compile_in(&folder, &headers, &toolchain, &request, &limits);
            let _ = std::fs::remove_dir_all(&folder);
            result
        })
        .await
        .map_err(|e| CompileError::Internal(format!("the compile stopped: {e}")))??;
        self.cache.put(&key, &compiled.module);
        Ok(compiled)
    }

    /// A turn to compile, waiting in the queue for it (bounded in length and time).
    async fn wait_for_turn(&self) -> Result<tokio::sync::OwnedSemaphorePermit, CompileError> {
        let busy = || CompileError::Busy { running: self.limits.at_once, waiting: self.limits.waiting };
        if let Ok(turn) = Arc::clone(&self.turns).try_acquire_owned() {
            return Ok(turn);
        }
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.limits.waiting {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(busy());
        }
        let turn = tokio::time::timeout(self.limits.queue_wait, Arc::clone(&self.turns).acquire_owned()).await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        match turn {
            Ok(Ok(turn)) => Ok(turn),
            _ => Err(busy()),
        }
    }

    /// The key the cache keeps `request`'s module under on this server.
    pub fn digest_of(&self, request: &CompileRequest) -> Option<SourceDigest> {
        let toolchain = detected().toolchain.as_ref()?;
        Some(digest(&toolchain.version, &flags(request.language), HEADERS, &request.files))
    }
}

impl Drop for Compiler {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

/// A student's one compile under way; leaves when dropped.
struct Student<'a> {
    compiling: &'a Mutex<HashSet<String>>,
    who: String,
}

impl<'a> Student<'a> {
    fn enter(compiling: &'a Mutex<HashSet<String>>, who: String) -> Result<Student<'a>, CompileError> {
        let mut under_way = compiling.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if !under_way.insert(who.clone()) {
            return Err(CompileError::AlreadyCompiling);
        }
        Ok(Student { compiling, who })
    }
}

impl Drop for Student<'_> {
    fn drop(&mut self) {
        self.compiling.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).remove(&self.who);
    }
}

/// The flags every compile of `language` takes, paths aside: part of the cache key.
pub(super) fn flags(language: SourceLanguage) -> Vec<String> {
    let mut flags = vec![
        "--target=wasm32-wasi",
        "-mexec-model=reactor",
        "-Oz",
        "-nostdlibinc",
        "-fno-color-diagnostics",
        "-fno-caret-diagnostics",
        "-ferror-limit=20",
        "-Wl,--strip-all",
    ];
    match language {
        SourceLanguage::C => flags.push("-std=c17"),
        SourceLanguage::Cpp => flags.extend(["--driver-mode=g++", "-std=c++17", "-fno-exceptions"]),
    }
    flags.into_iter().map(str::to_owned).collect()
}

/// Every name the compiler sees is a plain file name: nothing outside the program's
/// folder can be named, and no name is one of clang's options.
fn check_files(request: &CompileRequest, limits: &CompileLimits) -> Result<(), CompileError> {
    let main = request.main().to_owned();
    let problem = |file: &str, message: String| {
        CompileError::Files(CodeProblem { file: file.to_owned(), line: 1, col: 1, message })
    };
    if request.sources.is_empty() {
        return Err(problem(&main, "the project names no SRC file".into()));
    }
    if request.files.len() > limits.files {
        return Err(problem(&main, format!("a program may have at most {} source and header files", limits.files)));
    }
    for name in request.files.keys().chain(&request.sources) {
        let plain = !name.is_empty()
            && !name.starts_with(['.', '-'])
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !plain {
            return Err(problem(
                name,
                format!(
                    "'{name}' cannot be compiled: a file name is letters, digits, '_', '-' and '.', and starts with neither '.' nor '-'"
                ),
            ));
        }
    }
    for source in &request.sources {
        if !request.files.contains_key(source) {
            return Err(problem(source, format!("the source '{source}' was not uploaded with the robot")));
        }
        if is_header(source) {
            return Err(problem(source, format!("'{source}' is a header: list it in no SRC line, include it")));
        }
    }
    Ok(())
}

/// Compiles `request` in `folder` (its sources in `src/`, the module and clang's
/// temporary files in `out/`).
fn compile_in(
    folder: &Path,
    headers: &Path,
    toolchain: &Toolchain,
    request: &CompileRequest,
    limits: &CompileLimits,
) -> Result<Compiled, CompileError> {
    let internal = |e: std::io::Error| CompileError::Internal(e.to_string());
    let sources = folder.join("src");
    let output = folder.join("out");
    std::fs::create_dir_all(&sources).map_err(internal)?;
    std::fs::create_dir_all(&output).map_err(internal)?;
    write_headers(headers).map_err(internal)?;
    for (name, text) in &request.files {
        std::fs::write(sources.join(name), text).map_err(internal)?;
    }
    let module = output.join("program.wasm");
    let mut args = flags(request.language);
    if request.language == SourceLanguage::Cpp {
        args.extend(["-isystem".into(), toolchain.sysroot_include().join("c++/v1").display().to_string()]);
    }
    args.extend([
        "-isystem".into(),
        toolchain.sysroot_include().display().to_string(),
        "-I".into(),
        headers.display().to_string(),
        "-o".into(),
        module.display().to_string(),
    ]);
    args.extend(request.sources.iter().cloned());
    let ended = run(toolchain, args, &sources, headers, &output, limits)?;
    let diagnostics = super::diagnostics::parse(&ended.output, request.main());
    let (errors, warnings): (Vec<_>, Vec<_>) =
        diagnostics.into_iter().partition(|d| d.severity == super::Severity::Error);
    let errors: Vec<CodeProblem> = errors.into_iter().take(MAX_DIAGNOSTICS).map(|d| d.problem).collect();
    let warnings: Vec<CodeProblem> = warnings.into_iter().take(MAX_DIAGNOSTICS).map(|d| d.problem).collect();
    if let Some(hit) = ended.limit {
        return Err(CompileError::Limit { hit, message: hit.explain(limits), problems: errors });
    }
    if ended.code != Some(0) {
        if errors.is_empty() {
            let last: Vec<&str> = ended.output.lines().rev().take(3).collect();
            let said = last.into_iter().rev().collect::<Vec<_>>().join(" / ");
            let message = format!("the compiler failed (exit {:?}): {said}", ended.code);
            return Err(CompileError::Diagnostics(vec![CodeProblem {
                file: request.main().to_owned(),
                line: 1,
                col: 1,
                message,
            }]));
        }
        return Err(CompileError::Diagnostics(errors));
    }
    let bytes = std::fs::read(&module).map_err(|e| CompileError::Internal(format!("the module is missing: {e}")))?;
    Ok(Compiled { module: bytes.into(), warnings, cached: false })
}

/// The robot API's headers, written once into the folder every compile includes.
fn write_headers(folder: &Path) -> std::io::Result<()> {
    for (name, text) in HEADERS {
        let path = folder.join(name);
        if std::fs::read_to_string(&path).is_ok_and(|kept| kept == *text) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text)?;
    }
    std::fs::create_dir_all(folder)
}

#[cfg(target_os = "linux")]
fn run(
    toolchain: &Toolchain,
    args: Vec<String>,
    sources: &Path,
    headers: &Path,
    output: &Path,
    limits: &CompileLimits,
) -> Result<super::Ended, CompileError> {
    super::jail::run(super::jail::Job { toolchain, args, sources, headers, output, limits })
}

#[cfg(not(target_os = "linux"))]
fn run(
    _toolchain: &Toolchain,
    _args: Vec<String>,
    _sources: &Path,
    _headers: &Path,
    _output: &Path,
    _limits: &CompileLimits,
) -> Result<super::Ended, CompileError> {
    Err(CompileError::Sandbox("the compiler is confined with Linux's Landlock and seccomp".into()))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use super::*;
    use crate::compile::LimitHit;

    /// A robot program in C that needs nothing but the robot API, declared by hand.
    const DRIVER: &str = "\
__attribute__((import_module(\"vlab\"), import_name(\"actuator_find\"))) int actuator_find(const char *, int);
__attribute__((import_module(\"vlab\"), import_name(\"set_drive\"))) int set_drive(int, double, double);
__attribute__((export_name(\"vlab_abi_version\"))) int vlab_abi_version(void) { return 1; }
__attribute__((export_name(\"pre_step\"))) void pre_step(void) { set_drive(actuator_find(\"drive\", 5), 0.3, 0.0); }
";

    fn request(language: SourceLanguage, files: &[(&str, &str)]) -> CompileRequest {
        let files: BTreeMap<String, String> = files.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
        let sources = files.keys().filter(|n| !is_header(n)).cloned().collect();
        CompileRequest { language, sources, files }
    }

    /// Whether this machine compiles C; where it cannot, the refusal names the packages.
    fn compiles_here(language: SourceLanguage) -> bool {
        let missing = detected().missing(language);
        if !missing.is_empty() {
            eprintln!("no compiler here: {missing:?}");
        }
        missing.is_empty()
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    #[test]
    fn a_c_program_compiles_to_a_module_the_lab_accepts_and_is_kept() {
        if !compiles_here(SourceLanguage::C) {
            return;
        }
        let compiler = Compiler::new(None, CompileLimits::default());
        let program = request(SourceLanguage::C, &[("bot.c", DRIVER)]);
        let compiled = runtime().block_on(compiler.compile(program.clone(), Some("ana".into()))).unwrap();
        assert!(!compiled.cached);
        crate::check_module(&compiled.module).expect("the lab runs what the compiler made");
        let again = runtime().block_on(compiler.compile(program, Some("ana".into()))).unwrap();
        assert!(again.cached);
        assert_eq!(again.module, compiled.module);
        assert_eq!(compiler.compiles(), 1, "the same sources are compiled once");
    }

    /// Regression: libc++'s headers are a link into LLVM's folder, which the sandbox
    /// must let clang read (it refused `<iostream>` with "Permission denied").
    #[test]
    fn a_cpp_program_with_the_standard_library_and_the_robot_api_compiles() {
        if !compiles_here(SourceLanguage::Cpp) {
            return;
        }
        let compiler = Compiler::new(None, CompileLimits::default());
        let source = "#include <plugins/robot_software_api.h>\n#include <iostream>\n#include <string>\n#include <vector>\n\
            class Bot : public RobotSoftware {\npublic:\n    Bot(Robot *r) : RobotSoftware(r) {}\n\
            virtual void preStep() { std::vector<std::string> said{\"hi\"}; cout << said[0] << endl; }\n};\n\
            ROBOT_SOFTWARE_PLUGIN(Bot, \"Bot\")\n";
        let program = request(SourceLanguage::Cpp, &[("bot.cpp", source)]);
        let compiled = runtime().block_on(compiler.compile(program, None)).unwrap();
        crate::check_module(&compiled.module).expect("the lab runs what the compiler made");
    }

    #[test]
    fn errors_come_back_at_their_file_line_and_column() {
        if !compiles_here(SourceLanguage::Cpp) {
            return;
        }
        let compiler = Compiler::new(None, CompileLimits::default());
        let program = request(
            SourceLanguage::Cpp,
            &[("bot.cpp", "#include \"helper.h\"\nint main() {\n  return nope;\n}\n"), ("helper.h", "int x = 1;\n")],
        );
        let error = runtime().block_on(compiler.compile(program, None)).unwrap_err();
        let CompileError::Diagnostics(problems) = &error else { panic!("{error:?}") };
        assert_eq!((problems[0].file.as_str(), problems[0].line, problems[0].col), ("bot.cpp", 3, 10), "{problems:?}");
        assert!(problems[0].message.contains("nope"), "{problems:?}");
    }

    #[test]
    fn host_files_are_out_of_reach() {
        if !compiles_here(SourceLanguage::C) {
            return;
        }
        let compiler = Compiler::new(None, CompileLimits::default());
        for include in ["/etc/passwd", "/usr/include/stdio.h", "../../../../etc/hostname"] {
            let program = request(SourceLanguage::C, &[("bot.c", &format!("#include \"{include}\"\n{DRIVER}"))]);
            let error = runtime().block_on(compiler.compile(program, None)).unwrap_err();
            let CompileError::Diagnostics(problems) = &error else { panic!("{include}: {error:?}") };
            assert_eq!((problems[0].file.as_str(), problems[0].line), ("bot.c", 1), "{include}: {problems:?}");
        }
    }

    #[test]
    fn names_outside_the_folder_or_like_options_are_refused() {
        let limits = CompileLimits::default();
        for name in ["../bot.c", "-o.c", ".hidden.c", "dir/bot.c"] {
            let program = request(SourceLanguage::C, &[(name, DRIVER)]);
            assert!(matches!(check_files(&program, &limits), Err(CompileError::Files(_))), "{name}");
        }
        let missing =
            CompileRequest { sources: vec!["gone.c".into()], ..request(SourceLanguage::C, &[("bot.c", DRIVER)]) };
        assert!(matches!(check_files(&missing, &limits), Err(CompileError::Files(p)) if p.file == "gone.c"));
    }

    #[test]
    fn each_limit_stops_the_compile_with_its_reason() {
        if !compiles_here(SourceLanguage::Cpp) {
            return;
        }
        let tight = CompileLimits {
            wall: Duration::from_secs(3),
            cpu_secs: 2,
            output_bytes: 8 * 1024,
            file_bytes: 256 * 1024,
            ..CompileLimits::default()
        };
        let compiler = Compiler::new(None, tight);
        let warnings: String = (0..2000).map(|i| format!("int f{i}(void) {{ int unused{i}; return 0; }}\n")).collect();
        let cases: [(&str, &str, &[LimitHit]); 3] = [
            (
                "flood.c",
                &format!("#pragma clang diagnostic warning \"-Wunused-variable\"\n{warnings}"),
                &[LimitHit::Output],
            ),
            (
                "array.c",
                "char big[1 << 20] = {1};\n__attribute__((export_name(\"f\"))) int f(int i) { return big[i]; }\n",
                &[LimitHit::FileSize],
            ),
            (
                "forever.cpp",
                "template <class T, T... Is> struct S { static constexpr int n = sizeof...(Is); };\n\
                 int x = __make_integer_seq<S, int, 3000000>::n;\n",
                &[LimitHit::Cpu, LimitHit::Wall, LimitHit::Memory],
            ),
        ];
        for (name, source, hits) in cases {
            let language = if name.ends_with(".cpp") { SourceLanguage::Cpp } else { SourceLanguage::C };
            let error = runtime().block_on(compiler.compile(request(language, &[(name, source)]), None)).unwrap_err();
            let CompileError::Limit { hit, message, .. } = &error else { panic!("{name}: {error:?}") };
            assert!(hits.contains(hit), "{name}: {error:?}");
            assert_eq!(message, &hit.explain(compiler.limits()));
        }
    }

    #[test]
    fn a_student_compiles_one_program_at_a_time_and_the_queue_is_bounded() {
        let compiler = Compiler::new(None, CompileLimits { at_once: 1, waiting: 0, ..CompileLimits::default() });
        let _ana = Student::enter(&compiler.compiling, "lab/1".into()).unwrap();
        assert!(matches!(Student::enter(&compiler.compiling, "lab/1".into()), Err(CompileError::AlreadyCompiling)));
        assert!(Student::enter(&compiler.compiling, "lab/2".into()).is_ok(), "another student is not held up");
        let rt = runtime();
        let _turn = rt.block_on(compiler.wait_for_turn()).unwrap();
        assert!(matches!(rt.block_on(compiler.wait_for_turn()), Err(CompileError::Busy { .. })), "no room to wait");
    }
}
