//! Starts a throw-away service so that it dies with the test process, however that ends.
//!
//! The child asks the kernel for a signal when its parent dies (`PR_SET_PDEATHSIG`, set
//! in `pre_exec`, after the switch to another user, which would clear it). The "parent"
//! the kernel watches is the *thread* that spawned the child, and the test harness runs
//! each test on a thread that ends with the test: so every service is spawned by one
//! keeper thread that lives until the process exits.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};

/// A spawn request for the keeper thread: the command, the signal, where to answer.
type Request = (Command, i32, mpsc::Sender<io::Result<Child>>);

/// Spawns `command` from the keeper thread; the child gets `signal` when the test
/// process dies.
pub(crate) fn spawn(command: Command, signal: i32) -> io::Result<Child> {
    static KEEPER: OnceLock<Mutex<mpsc::Sender<Request>>> = OnceLock::new();
    let keeper = KEEPER.get_or_init(|| {
        let (requests, inbox) = mpsc::channel::<Request>();
        std::thread::Builder::new()
            .name("testkit-keeper".into())
            .spawn(move || {
                // Never returns while the process lives: the senders are in a static.
                for (mut command, signal, answer) in inbox {
                    die_with_parent(&mut command, signal);
                    let _ = answer.send(command.spawn());
                }
            })
            .expect("cannot start the test kit's keeper thread");
        Mutex::new(requests)
    });
    let (answer, answered) = mpsc::channel();
    keeper
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .send((command, signal, answer))
        .map_err(|_| io::Error::other("the test kit's keeper thread is gone"))?;
    answered.recv().map_err(|_| io::Error::other("the test kit's keeper thread is gone"))?
}

/// Makes `command`'s child receive `signal` when the spawning thread dies.
fn die_with_parent(command: &mut Command, signal: i32) {
    #[allow(unsafe_code)]
    // SAFETY: the hook runs in the forked child before exec and calls only `prctl`, which
    // is async-signal-safe and touches no memory of the parent's.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, signal as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
