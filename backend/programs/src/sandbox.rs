//! The sandbox of a Python program (Linux): Landlock, seccomp, namespaces, an empty
//! capability bounding set, and rlimits.
//!
//! The workspace forbids `unsafe`, so there is no `pre_exec` hook: a dedicated
//! **spawner thread** confines itself instead (Landlock, seccomp filters, the bounding
//! set and `unshare` are all per thread), then spawns the interpreter, which inherits
//! all of it. The thread then waits, doing nothing else, until the program is dropped:
//! it is the "parent" `PR_SET_PDEATHSIG` watches. rlimits are process-wide, so the lab
//! sets them on the child with `prlimit` right after the spawn, before the child is
//! told anything (the trusted bootstrap waits on its stdin). Stage 2 of the seccomp
//! policy (no fork, no exec, signals only to itself) is compiled here once the child's
//! pid is known and installed by the bootstrap before any student code runs; the lab
//! then checks `/proc/<pid>/status` shows every filter in place before it goes on.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};
use rustix::process::{Pid, Resource, Rlimit, prlimit};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

use super::interpreter::Interpreter;
use super::{Limits, ProgramError};

/// Number of seccomp filters a confined child carries once the bootstrap ran: stage 1
/// (deny-list, `clone3` → `ENOSYS`) and stage 2.
pub(crate) const FILTERS_WHEN_CONFINED: u32 = 3;

/// A confined child and the thread that spawned it.
pub(crate) struct Spawned {
    /// The interpreter process.
    pub child: Child,
    /// Dropping it lets the spawner thread end.
    pub keepalive: mpsc::Sender<()>,
    /// The spawner thread.
    pub thread: JoinHandle<()>,
}

/// What the child is started with.
pub(crate) struct Launch {
    pub interpreter: &'static Interpreter,
    pub folder: PathBuf,
    pub args: Vec<String>,
    /// The child's whole environment (nothing of the server's is passed on).
    pub env: Vec<(String, String)>,
    pub thread_name: String,
}

/// Spawns the interpreter inside the sandbox, or refuses.
pub(crate) fn spawn(launch: Launch, limits: &Limits) -> Result<Spawned, ProgramError> {
    let filters = stage1_filters().map_err(ProgramError::SandboxUnavailable)?;
    let (result_tx, result_rx) = mpsc::channel();
    let (keepalive, release) = mpsc::channel::<()>();
    let thread = std::thread::Builder::new()
        .name(launch.thread_name.clone())
        .stack_size(256 * 1024)
        .spawn(move || {
            // Before seccomp, which denies the program (and this thread) the call.
            super::placement::place_this_thread();
            let spawned = confine_this_thread(&launch, &filters).and_then(|()| {
                Command::new(&launch.interpreter.executable)
                    .args(&launch.args)
                    .env_clear()
                    .envs(launch.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                    .current_dir(&launch.folder)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .process_group(0)
                    .spawn()
                    .map_err(|e| ProgramError::Start(format!("cannot run the interpreter: {e}")))
            });
            let ok = spawned.is_ok();
            if result_tx.send(spawned).is_ok() && ok {
                // Until the program is dropped: this thread is the child's parent.
                let _ = release.recv();
            }
        })
        .map_err(|e| ProgramError::Start(format!("cannot start a thread: {e}")))?;
    let mut child = match result_rx.recv() {
        Ok(Ok(child)) => child,
        Ok(Err(e)) => {
            let _ = thread.join();
            return Err(e);
        }
        Err(_) => return Err(ProgramError::Start("the spawner thread failed".into())),
    };
    if let Err(e) = set_rlimits(child.id(), limits) {
        let _ = child.kill();
        let _ = child.wait();
        return Err(ProgramError::SandboxUnavailable(format!("cannot set resource limits: {e}")));
    }
    // Programs yield the CPU to the lab's thread: on a busy machine the physics keeps
    // its pace and programs share what is left. Without CAP_SYS_NICE the child cannot
    // undo it.
    if let Err(e) = rustix::process::setpriority_process(Some(pid_of(&child)), PROGRAM_NICENESS) {
        tracing::debug!(error = %e, "could not lower a program's priority");
    }
    Ok(Spawned { child, keepalive, thread })
}

/// Confines the calling thread: namespaces, capabilities, Landlock, seccomp stage 1.
fn confine_this_thread(launch: &Launch, filters: &[BpfProgram]) -> Result<(), ProgramError> {
    use nix::sched::{CloneFlags, unshare};
    // No network, no System V IPC shared with anybody; tolerated when not permitted
    // (seccomp and Landlock deny sockets anyway).
    let _ = unshare(CloneFlags::CLONE_NEWNET | CloneFlags::CLONE_NEWIPC);
    drop_bounding_set();
    restrict_files(launch.interpreter, &launch.folder)?;
    for filter in filters {
        seccompiler::apply_filter(filter)
            .map_err(|e| ProgramError::SandboxUnavailable(format!("seccomp cannot be installed: {e}")))?;
    }
    Ok(())
}

/// Empties the capability bounding set, so a child running as root gets no capability
/// at exec (it cannot raise its limits or override file permissions). Only root can,
/// and only root needs it.
pub(crate) fn drop_bounding_set() {
    use rustix::thread::{CapabilitySet, remove_capability_from_bounding_set};
    for capability in CapabilitySet::all().iter() {
        let _ = remove_capability_from_bounding_set(capability);
    }
}

/// Landlock: read (and execute for the interpreter and the loader) only what Python
/// needs and the program's folder; nothing writable; no TCP; signals and abstract unix
/// sockets only within the sandbox. Fails closed below ABI 3 or when not enforced.
fn restrict_files(python: &Interpreter, folder: &Path) -> Result<(), ProgramError> {
    let refuse = |what: String| ProgramError::SandboxUnavailable(format!("Landlock: {what}"));
    let mut executables = vec![python.executable.clone()];
    executables.extend(python.loader().cloned());
    let mut readable: Vec<PathBuf> = vec![
        python.prefix.clone(),
        python.base_prefix.clone(),
        python.stdlib.clone(),
        python.platstdlib.clone(),
        folder.to_path_buf(),
    ];
    readable.extend(python.libs.iter().cloned());
    readable.extend(
        ["/etc/ld.so.cache", "/etc/localtime", "/usr/lib/locale/C.utf8"]
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.exists()),
    );
    landlock(&executables, &readable, &[]).map_err(refuse)
}

/// Confines the calling thread with Landlock: `executables` may be read and executed,
/// `readable` read, `writable` read and written, nothing else; no TCP; signals and
/// abstract unix sockets only within the sandbox. `Err` says why it cannot be enforced
/// (below ABI 3, or not at all): the caller then refuses to run anything.
pub(crate) fn landlock(executables: &[PathBuf], readable: &[PathBuf], writable: &[PathBuf]) -> Result<(), String> {
    let abi = ABI::V3;
    let status = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.set_compatibility(CompatLevel::BestEffort).handle_access(AccessFs::from_all(ABI::V6)))
        .and_then(|r| r.handle_access(AccessNet::from_all(ABI::V6)))
        .and_then(|r| r.scope(Scope::from_all(ABI::V6)))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(executables, AccessFs::from_read(abi) | AccessFs::Execute)))
        .and_then(|r| r.add_rules(path_beneath_rules(readable, AccessFs::from_read(abi) & !AccessFs::Execute)))
        .and_then(|r| r.add_rules(path_beneath_rules(writable, AccessFs::from_all(abi) & !AccessFs::Execute)))
        .and_then(|r| r.restrict_self())
        .map_err(|e| e.to_string())?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("not enforced by this kernel".into());
    }
    match status.landlock {
        LandlockStatus::Available { effective_abi, .. } if effective_abi >= ABI::V3 => Ok(()),
        LandlockStatus::Available { effective_abi, .. } => {
            Err(format!("ABI {} is too old (3 or newer is needed)", effective_abi as i32))
        }
        other => Err(format!("{other:?}")),
    }
}

/// The niceness of every program's process (0 is the lab's; 19 the lowest priority).
pub const PROGRAM_NICENESS: i32 = 10;

/// The child's pid, as the process calls take it.
fn pid_of(child: &std::process::Child) -> Pid {
    Pid::from_raw(child.id() as i32).expect("a spawned child has a positive pid")
}

/// The rlimits of the child, set from the lab right after the spawn.
fn set_rlimits(pid: u32, limits: &Limits) -> std::io::Result<()> {
    let pid = Pid::from_raw(pid as i32).ok_or_else(|| std::io::Error::other("no pid"))?;
    let both = |n: u64| Rlimit { current: Some(n), maximum: Some(n) };
    // Soft CPU limit: SIGXCPU; the hard one a second later: SIGKILL.
    prlimit(Some(pid), Resource::Cpu, Rlimit { current: Some(limits.cpu_secs), maximum: Some(limits.cpu_secs + 1) })?;
    prlimit(Some(pid), Resource::As, both(limits.memory_mib * 1024 * 1024))?;
    prlimit(Some(pid), Resource::Nofile, both(limits.open_files))?;
    prlimit(Some(pid), Resource::Fsize, both(0))?;
    prlimit(Some(pid), Resource::Core, both(0))?;
    prlimit(Some(pid), Resource::Stack, both(16 * 1024 * 1024))?;
    Ok(())
}

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

fn arch() -> Result<TargetArch, String> {
    std::env::consts::ARCH.try_into().map_err(|e| format!("seccomp: unsupported architecture: {e:?}"))
}

fn cond(arg: u8, len: SeccompCmpArgLen, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, len, op, value).map_err(|e| e.to_string())
}

fn compile(rules: Rules, errno: i32) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno as u32), arch()?)
        .map_err(|e| format!("seccomp: {e}"))?;
    filter.try_into().map_err(|e: seccompiler::BackendError| format!("seccomp: {e}"))
}

/// Stage 1, installed on the spawner thread and so inherited by the interpreter: the
/// deny-list (`EPERM`), and `clone3` → `ENOSYS` so that glibc falls back to `clone`,
/// whose flags stage 2 can inspect.
pub(crate) fn stage1_filters() -> Result<Vec<BpfProgram>, String> {
    let mut rules = Rules::new();
    let denied: &[i64] = &[
        libc::SYS_socket,
        libc::SYS_socketpair,
        libc::SYS_execveat,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_bpf,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_memfd_create,
        libc::SYS_shmget,
        libc::SYS_shmat,
        libc::SYS_shmctl,
        libc::SYS_shmdt,
        libc::SYS_semget,
        libc::SYS_semop,
        libc::SYS_semctl,
        libc::SYS_semtimedop,
        libc::SYS_msgget,
        libc::SYS_msgsnd,
        libc::SYS_msgrcv,
        libc::SYS_msgctl,
        libc::SYS_mq_open,
        libc::SYS_mq_unlink,
        libc::SYS_mq_timedsend,
        libc::SYS_mq_timedreceive,
        libc::SYS_mq_notify,
        libc::SYS_mq_getsetattr,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
        libc::SYS_fchmod,
        libc::SYS_fchmodat,
        libc::SYS_fchown,
        libc::SYS_fchownat,
        libc::SYS_utimensat,
        libc::SYS_setxattr,
        libc::SYS_lsetxattr,
        libc::SYS_fsetxattr,
        libc::SYS_removexattr,
        libc::SYS_lremovexattr,
        libc::SYS_fremovexattr,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_kexec_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_acct,
        libc::SYS_quotactl,
        // Its CPUs are the lab's choice (`placement`): it may not move onto the labs'.
        libc::SYS_sched_setaffinity,
    ];
    #[cfg(target_arch = "x86_64")]
    let legacy: &[i64] = &[
        libc::SYS_setrlimit,
        libc::SYS_chmod,
        libc::SYS_chown,
        libc::SYS_lchown,
        libc::SYS_utime,
        libc::SYS_utimes,
        libc::SYS_futimesat,
    ];
    #[cfg(not(target_arch = "x86_64"))]
    let legacy: &[i64] = &[libc::SYS_setrlimit];
    for &nr in denied.iter().chain(legacy) {
        rules.insert(nr, vec![]);
    }
    // prlimit64 may read limits (new == NULL), never set them.
    rules.insert(
        libc::SYS_prlimit64,
        vec![
            SeccompRule::new(vec![cond(2, SeccompCmpArgLen::Qword, SeccompCmpOp::Ne, 0)?])
                .map_err(|e| e.to_string())?,
        ],
    );
    let mut clone3 = Rules::new();
    clone3.insert(libc::SYS_clone3, vec![]);
    Ok(vec![compile(rules, libc::EPERM)?, compile(clone3, libc::ENOSYS)?])
}

/// Stage 2 for the child `pid`, as hex of the raw BPF instructions (8 bytes each,
/// native order) for the bootstrap's `prctl(PR_SET_SECCOMP)`: no new processes (clone
/// only for threads), no exec, signals only to itself, no leaving its process group or
/// its parent-death signal, no pidfds.
pub(crate) fn stage2_hex(pid: u32) -> Result<String, String> {
    use SeccompCmpArgLen::{Dword, Qword};
    let rule = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions).map_err(|e| e.to_string());
    let pid = u64::from(pid);
    let mut rules = Rules::new();
    #[cfg(target_arch = "x86_64")]
    for nr in [libc::SYS_fork, libc::SYS_vfork] {
        rules.insert(nr, vec![]);
    }
    rules.insert(libc::SYS_execve, vec![]);
    rules.insert(libc::SYS_execveat, vec![]);
    rules.insert(
        libc::SYS_clone,
        vec![rule(vec![cond(0, Qword, SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64), 0)?])?],
    );
    rules.insert(
        libc::SYS_kill,
        vec![rule(vec![cond(0, Dword, SeccompCmpOp::Ne, pid)?, cond(0, Dword, SeccompCmpOp::Ne, 0)?])?],
    );
    rules.insert(libc::SYS_tkill, vec![rule(vec![cond(0, Dword, SeccompCmpOp::Ne, pid)?])?]);
    rules.insert(libc::SYS_tgkill, vec![rule(vec![cond(0, Dword, SeccompCmpOp::Ne, pid)?])?]);
    rules.insert(libc::SYS_rt_sigqueueinfo, vec![rule(vec![cond(0, Dword, SeccompCmpOp::Ne, pid)?])?]);
    rules.insert(libc::SYS_rt_tgsigqueueinfo, vec![rule(vec![cond(0, Dword, SeccompCmpOp::Ne, pid)?])?]);
    // The program stays in the process group the lab kills, and dies with the lab: it
    // may not leave the group, start a session, undo its parent-death signal, or hold
    // another process by a pidfd.
    for nr in
        [libc::SYS_setpgid, libc::SYS_setsid, libc::SYS_pidfd_open, libc::SYS_pidfd_send_signal, libc::SYS_pidfd_getfd]
    {
        rules.insert(nr, vec![]);
    }
    rules.insert(libc::SYS_prctl, vec![rule(vec![cond(0, Dword, SeccompCmpOp::Eq, libc::PR_SET_PDEATHSIG as u64)?])?]);
    let program = compile(rules, libc::EPERM)?;
    let mut hex = String::with_capacity(program.len() * 16);
    for instruction in &program {
        let mut bytes = Vec::with_capacity(8);
        bytes.extend(instruction.code.to_ne_bytes());
        bytes.push(instruction.jt);
        bytes.push(instruction.jf);
        bytes.extend(instruction.k.to_ne_bytes());
        for byte in bytes {
            hex.push_str(&format!("{byte:02x}"));
        }
    }
    Ok(hex)
}

/// Checks in `/proc/<pid>/status` that the child is filtered as it should be:
/// seccomp in filter mode with every filter, and no new privileges.
pub(crate) fn verify_confined(pid: u32) -> Result<(), ProgramError> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| ProgramError::SandboxUnavailable(format!("cannot check the program's confinement: {e}")))?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(':')).map(|v| v.trim().to_string()))
    };
    let seccomp = field("Seccomp");
    let filters: u32 = field("Seccomp_filters").and_then(|v| v.parse().ok()).unwrap_or(0);
    let nnp = field("NoNewPrivs");
    if seccomp.as_deref() != Some("2") || filters < FILTERS_WHEN_CONFINED || nnp.as_deref() != Some("1") {
        return Err(ProgramError::SandboxUnavailable(format!(
            "seccomp is not in force (Seccomp {seccomp:?}, {filters} filters, NoNewPrivs {nnp:?})"
        )));
    }
    Ok(())
}
