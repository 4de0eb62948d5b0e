//! [`WasmWorker`]: runs one robot's WebAssembly program on a thread of its own, so a
//! module computing for its whole fuel budget never makes the lab's thread wait.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::thread::JoinHandle;
use std::time::Duration;

use super::WasmProgram;
use crate::{Controller, ProgramError, Reply, StepInput};

/// Stack of the program's thread on top of its WebAssembly stack cap: a Rust thread's
/// usual, for wasmtime's own frames and the host functions.
const HOST_STACK_BYTES: usize = 2 * 1024 * 1024;

/// How much less the program's thread counts than the lab's for the scheduler.
const NICENESS: i32 = 10;

/// [`WasmWorker::cpu`] when the thread's clock cannot be read.
const NO_CLOCK: u64 = u64::MAX;

/// What the lab asks of the program's thread.
enum Order {
    /// Run `post_step` with these readings, then `pre_step`, and answer.
    Step(StepInput),
    /// Stop the program and end.
    Stop,
}

/// Runs one robot's WebAssembly program on a thread of its own, named `wasm-<robot>`:
/// the lab's side of a [`WasmProgram`] that computes while the lab goes on stepping.
///
/// As soon as it is spawned the thread runs the program's first answer (`init`, then
/// `pre_step`). [`Controller::send_step`] hands the readings to the thread and returns
/// at once; the thread runs `post_step` then `pre_step` (within the step's fuel) and
/// sends the answer back, which [`Controller::receive`] waits for (up to
/// [`WasmLimits::step_budget`](super::WasmLimits::step_budget), or
/// [`WasmLimits::startup_budget`](super::WasmLimits::startup_budget) for the first)
/// and [`Controller::try_receive`] takes if it has arrived. The thread runs at a lower
/// priority (nice 10) than the lab's, so under load the physics wins the CPU, and
/// [`Controller::cpu_time`] reads the thread's own CPU clock. Any failure, a timeout
/// included, stops the program for good: every later call returns the same error.
pub struct WasmWorker {
    robot: String,
    /// Orders to the thread; `None` once it has been told to end.
    orders: Option<Sender<Order>>,
    /// Its answers, one per order to step and one for the start.
    answers: Receiver<Result<Reply, ProgramError>>,
    /// The thread, until it is joined; it returns the result of stopping the program.
    thread: Option<JoinHandle<Result<(), ProgramError>>>,
    /// The thread's CPU time, nanoseconds ([`NO_CLOCK`]: unreadable), published by the
    /// thread after each call.
    cpu: Arc<AtomicU64>,
    step_budget: Duration,
    startup_budget: Duration,
    /// Whether an answer is owed: the first one, or the one to the last step sent.
    awaiting: bool,
    /// Whether the first answer has come.
    answered: bool,
    failed: Option<ProgramError>,
}

impl WasmWorker {
    /// Moves `program` (started, not yet asked anything) to a new thread, which
    /// computes its first answer at once. `Err` only when the thread cannot be made.
    pub fn spawn(program: WasmProgram) -> Result<WasmWorker, ProgramError> {
        let robot = program.robot().to_owned();
        let limits = program.limits().clone();
        let (orders, inbox) = mpsc::channel();
        let (outbox, answers) = mpsc::channel();
        let cpu = Arc::new(AtomicU64::new(0));
        let clock = Arc::clone(&cpu);
        let thread = std::thread::Builder::new()
            .name(format!("wasm-{}", robot.replace('\0', "")))
            .stack_size(limits.stack_bytes.saturating_add(HOST_STACK_BYTES))
            .spawn(move || run(program, &inbox, &outbox, &clock))
            .map_err(|e| ProgramError::Start(format!("cannot make a thread for the program: {e}")))?;
        Ok(WasmWorker {
            robot,
            orders: Some(orders),
            answers,
            thread: Some(thread),
            cpu,
            step_budget: limits.step_budget,
            startup_budget: limits.startup_budget,
            awaiting: true,
            answered: false,
            failed: None,
        })
    }

    /// Takes the thread's answer: waiting up to `wait`, or only if it is there.
    fn answer(&mut self, wait: Option<Duration>) -> Result<Option<Reply>, ProgramError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if !self.awaiting {
            // The lab's mistake, not the program's, but the exchange is lost all the same.
            return Err(self.fail(ProgramError::Protocol("an answer was asked for before a step was sent".into())));
        }
        let answer = match wait {
            Some(budget) => self.answers.recv_timeout(budget).map_err(|e| match e {
                RecvTimeoutError::Timeout => ProgramError::Timeout { ms: budget.as_millis() },
                RecvTimeoutError::Disconnected => vanished(),
            }),
            None => match self.answers.try_recv() {
                Ok(answer) => Ok(answer),
                Err(TryRecvError::Empty) => return Ok(None),
                Err(TryRecvError::Disconnected) => Err(vanished()),
            },
        };
        match answer {
            Ok(Ok(reply)) => {
                self.awaiting = false;
                self.answered = true;
                Ok(Some(reply))
            }
            Ok(Err(e)) | Err(e) => Err(self.fail(e)),
        }
    }

    /// Stops the program for good with `error` (kept for later calls) and returns it:
    /// the thread is told to end once its call in progress, bounded by fuel, is over.
    fn fail(&mut self, error: ProgramError) -> ProgramError {
        self.dismiss();
        self.failed = Some(error.clone());
        self.awaiting = false;
        error
    }

    /// Tells the thread to stop the program and end, without waiting for it.
    fn dismiss(&mut self) {
        if let Some(orders) = self.orders.take() {
            // An error only means the thread has already ended.
            let _ = orders.send(Order::Stop);
        }
    }
}

/// The error of a program whose thread ended without answering (a panic in the runtime).
fn vanished() -> ProgramError {
    ProgramError::Crashed { signal: "its thread ended without an answer".into() }
}

/// The program's thread: the first answer, then one answer per step until told to stop
/// or until the lab is gone; returns the result of stopping the program.
fn run(
    mut program: WasmProgram,
    orders: &Receiver<Order>,
    answers: &Sender<Result<Reply, ProgramError>>,
    cpu: &AtomicU64,
) -> Result<(), ProgramError> {
    yield_to_the_labs();
    publish_cpu_time(cpu);
    let first = program.receive();
    publish_cpu_time(cpu);
    if answers.send(first).is_err() {
        return program.stop();
    }
    while let Ok(Order::Step(input)) = orders.recv() {
        let answer = program.send_step(&input).and_then(|()| program.receive());
        publish_cpu_time(cpu);
        if answers.send(answer).is_err() {
            break;
        }
    }
    let stopped = program.stop();
    publish_cpu_time(cpu);
    stopped
}

/// Makes the calling thread yield to the lab's under load (nice 10; only this thread,
/// as Linux keeps a niceness per thread) and run where Python programs run, off the
/// CPU the labs' threads keep (`controller::placement`). A failure costs nothing but
/// that.
fn yield_to_the_labs() {
    if let Err(e) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), NICENESS) {
        tracing::debug!(error = %e, "could not lower a WebAssembly program's priority");
    }
    #[cfg(target_os = "linux")]
    crate::placement::place_this_thread();
}

/// Publishes the calling thread's CPU time.
fn publish_cpu_time(cpu: &AtomicU64) {
    let nanos = nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(|spent| u64::try_from(Duration::from(spent).as_nanos()).unwrap_or(NO_CLOCK - 1))
        .unwrap_or(NO_CLOCK);
    cpu.store(nanos, Ordering::Release);
}

impl Controller for WasmWorker {
    fn robot(&self) -> &str {
        &self.robot
    }

    fn send_step(&mut self, input: &StepInput) -> Result<(), ProgramError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.awaiting {
            // The lab's mistake, not the program's: collect the previous answer first.
            return Err(self.fail(ProgramError::Protocol("a step was sent before the previous answer".into())));
        }
        let sent = self.orders.as_ref().is_some_and(|orders| orders.send(Order::Step(input.clone())).is_ok());
        if !sent {
            return Err(self.fail(vanished()));
        }
        self.awaiting = true;
        Ok(())
    }

    fn receive(&mut self) -> Result<Reply, ProgramError> {
        let budget = if self.answered { self.step_budget } else { self.startup_budget };
        self.answer(Some(budget)).map(|reply| reply.expect("a wait ends with an answer or an error"))
    }

    fn try_receive(&mut self) -> Result<Option<Reply>, ProgramError> {
        self.answer(None)
    }

    fn cpu_time(&self) -> Option<Duration> {
        match self.cpu.load(Ordering::Acquire) {
            NO_CLOCK => None,
            nanos => Some(Duration::from_nanos(nanos)),
        }
    }

    /// Tells the thread to stop the program and waits for it to end: at most the end
    /// of a call in progress, which its fuel bounds. `Ok` unless the program had failed.
    fn stop(&mut self) -> Result<(), ProgramError> {
        if let Some(e) = &self.failed {
            return if *e == ProgramError::Stopped { Ok(()) } else { Err(e.clone()) };
        }
        self.dismiss();
        let stopped = match self.thread.take().map(JoinHandle::join) {
            Some(Ok(stopped)) => stopped,
            Some(Err(_)) => Err(vanished()),
            None => Ok(()),
        };
        self.failed = Some(ProgramError::Stopped);
        self.awaiting = false;
        stopped
    }

    fn error(&self) -> Option<&ProgramError> {
        self.failed.as_ref()
    }
}

impl Drop for WasmWorker {
    /// Tells the thread to stop the program, without waiting for it.
    fn drop(&mut self) {
        self.dismiss();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::wasm::{WasmLimits, WasmSpec};

    /// A module with a DiffDrive: `init` runs `init`, `post_step` runs `post`, and
    /// `pre_step` drives at 0.5 m/s.
    fn module(init: &str, post: &str) -> Vec<u8> {
        wat::parse_str(format!(
            r#"(module
                (import "vlab" "set_drive" (func $set_drive (param i32 f64 f64) (result i32)))
                (func (export "vlab_abi_version") (result i32) (i32.const 1))
                (func $burn (param $n i32) (local $i i32)
                    (loop $again
                        (local.set $i (i32.add (local.get $i) (i32.const 1)))
                        (br_if $again (i32.lt_u (local.get $i) (local.get $n)))))
                (func (export "init") {init})
                (func (export "post_step") {post})
                (func (export "pre_step") (drop (call $set_drive (i32.const 0) (f64.const 0.5) (f64.const 0)))))"#
        ))
        .expect("valid WAT")
    }

    fn worker(module: Vec<u8>, limits: WasmLimits) -> WasmWorker {
        let spec = WasmSpec::new("bot", module).actuator("drive", "DiffDrive").limits(limits);
        WasmWorker::spawn(WasmProgram::start(spec).expect("it starts")).expect("a thread")
    }

    fn step(step: u64) -> StepInput {
        StepInput { step, time_secs: step as f64 / 240.0, sensors: BTreeMap::new() }
    }

    #[test]
    fn it_answers_every_step_then_stops_cleanly() {
        let mut worker = worker(module("", ""), WasmLimits::default());
        assert_eq!(worker.robot(), "bot");
        assert_eq!(worker.receive().unwrap().step, None);
        for k in 1..=5 {
            worker.send_step(&step(k * 5)).unwrap();
            let reply = worker.receive().unwrap();
            assert_eq!(reply.step, Some(k * 5));
            assert!(reply.commands.contains_key("drive"));
        }
        assert!(worker.cpu_time().is_some());
        assert_eq!(worker.stop(), Ok(()));
        assert_eq!(worker.error(), Some(&ProgramError::Stopped));
        assert_eq!(worker.stop(), Ok(()), "stopping twice is harmless");
        assert_eq!(worker.send_step(&step(30)), Err(ProgramError::Stopped));
        assert_eq!(worker.try_receive(), Err(ProgramError::Stopped));
    }

    #[test]
    fn an_answer_later_than_its_budget_stops_the_program_for_good() {
        // No budget at all and a first answer burning 160 million instructions: the
        // wait ends before the answer comes.
        let limits =
            WasmLimits { startup_budget: Duration::ZERO, step_budget: Duration::ZERO, ..WasmLimits::default() };
        let mut worker = worker(module("(call $burn (i32.const 20000000))", ""), limits);
        let timeout = ProgramError::Timeout { ms: 0 };
        assert_eq!(worker.receive(), Err(timeout.clone()));
        assert_eq!(worker.error(), Some(&timeout));
        assert_eq!(worker.try_receive(), Err(timeout.clone()));
        assert_eq!(worker.send_step(&step(5)), Err(timeout.clone()));
        assert_eq!(worker.stop(), Err(timeout));
    }

    #[test]
    fn the_lab_asking_out_of_turn_is_a_protocol_error() {
        let mut worker = worker(module("", ""), WasmLimits::default());
        let early = worker.send_step(&step(5)).unwrap_err();
        assert_eq!(early, ProgramError::Protocol("a step was sent before the previous answer".into()));
        assert_eq!(worker.receive(), Err(early));

        let mut worker = self::worker(module("", ""), WasmLimits::default());
        worker.receive().unwrap();
        let twice = worker.try_receive().unwrap_err();
        assert_eq!(twice, ProgramError::Protocol("an answer was asked for before a step was sent".into()));
    }

    #[test]
    fn stopping_waits_for_a_step_in_progress_and_dropping_does_not() {
        let mut worker = worker(module("", "(call $burn (i32.const 5000000))"), WasmLimits::default());
        worker.receive().unwrap();
        worker.send_step(&step(5)).unwrap();
        assert_eq!(worker.stop(), Ok(()));
        let before = worker.cpu_time().expect("the thread's clock");
        assert!(before > Duration::ZERO);

        // Dropped while a step runs: the thread is told to end, and nobody waits.
        let mut dropped = self::worker(module("", "(call $burn (i32.const 5000000))"), WasmLimits::default());
        dropped.receive().unwrap();
        dropped.send_step(&step(5)).unwrap();
        drop(dropped);
    }
}
