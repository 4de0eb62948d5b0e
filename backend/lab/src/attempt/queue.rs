//! The server's attempts, queued fairly: each student's attempts wait in her own line,
//! and the workers take the students in turn, so one student's loop of attempts never
//! starves the others. A student has at most [`QueueLimits::per_student`] attempts
//! waiting or running, the server [`QueueLimits::waiting`] waiting in all. The workers
//! run as programs do (on the programs' CPUs, at their lower priority), never on a
//! lab's thread, so the labs keep their pace while attempts run.
//!
//! Attempts are numbered by the queue's [`Numbering`]: a counter of its own, or the
//! server's store when servers sharing a database must never give one number twice.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::{AttemptError, AttemptOutcome};

/// An attempt's number: unique among every number its queue's [`Numbering`] gives.
pub type AttemptId = u64;

/// Where a queue takes each attempt's number from, as it is queued: the next number, or
/// why none can be had now (the database that hands them out cannot be reached).
pub type Numbering = Box<dyn Fn() -> Result<AttemptId, String> + Send + Sync>;

/// What an attempt does when its turn comes, given its number.
pub type AttemptJob = Box<dyn FnOnce(AttemptId) -> Result<AttemptOutcome, AttemptError> + Send>;

/// Where an attempt is.
#[derive(Clone, Debug, PartialEq)]
pub enum AttemptState {
    /// Waiting for a worker: `ahead` attempts of any student go before it.
    Queued {
        /// Attempts that run before it.
        ahead: usize,
    },
    /// A worker runs it.
    Running,
    /// Over.
    Done(Result<AttemptOutcome, String>),
}

/// The queue's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueLimits {
    /// Attempts run at once (default: one per two CPUs, at least one).
    pub workers: usize,
    /// Attempts one student may have waiting or running (default 3).
    pub per_student: usize,
    /// Attempts waiting server-wide (default 64).
    pub waiting: usize,
    /// Finished attempts whose results are kept, the oldest forgotten first (default 4096).
    pub kept: usize,
}

impl Default for QueueLimits {
    fn default() -> QueueLimits {
        let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        QueueLimits { workers: (cpus / 2).max(1), per_student: 3, waiting: 64, kept: 4096 }
    }
}

/// Why an attempt was not queued.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueueRefusal {
    /// The student has her share waiting or running.
    #[error("you have {limit} attempts waiting or running, the most one student may: wait for one to end")]
    StudentBusy {
        /// [`QueueLimits::per_student`].
        limit: usize,
    },
    /// The server has as many waiting as it takes.
    #[error("the server has {limit} attempts waiting, the most it takes: try again in a minute")]
    Full {
        /// [`QueueLimits::waiting`].
        limit: usize,
    },
    /// No number could be had for it (see [`Numbering`]).
    #[error("attempts cannot be numbered now ({reason}): try again in a moment")]
    Unnumbered {
        /// Why, as the numbering said.
        reason: String,
    },
}

#[derive(Default)]
struct Lines {
    /// Each student's waiting attempts, in order.
    waiting: BTreeMap<String, VecDeque<(AttemptId, AttemptJob)>>,
    /// The students with attempts waiting, in the order their turns come.
    turns: VecDeque<String>,
    /// Attempts waiting or running, by student.
    open: HashMap<String, usize>,
    states: HashMap<AttemptId, AttemptState>,
    /// Finished attempts, the oldest first.
    finished: VecDeque<AttemptId>,
    closing: bool,
}

struct Shared {
    lines: Mutex<Lines>,
    work: Condvar,
    limits: QueueLimits,
    numbering: Numbering,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Lines> {
        self.lines.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The server's attempts and the workers that run them.
pub struct AttemptQueue {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl AttemptQueue {
    /// A queue with `limits.workers` workers, each on a thread of its own.
    pub fn new(limits: QueueLimits) -> AttemptQueue {
        AttemptQueue::numbered_after(limits, 0)
    }

    /// The same, its attempts numbered from `last + 1` by a counter of its own.
    pub fn numbered_after(limits: QueueLimits, last: AttemptId) -> AttemptQueue {
        let last = AtomicU64::new(last);
        AttemptQueue::numbered_by(limits, Box::new(move || Ok(last.fetch_add(1, Ordering::Relaxed) + 1)))
    }

    /// The same, each attempt numbered by `numbering` as it is queued.
    pub fn numbered_by(limits: QueueLimits, numbering: Numbering) -> AttemptQueue {
        let shared = Arc::new(Shared { lines: Mutex::new(Lines::default()), work: Condvar::new(), limits, numbering });
        let workers = (0..limits.workers.max(1))
            .map(|i| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("attempts-{i}"))
                    .spawn(move || work(&shared))
                    .expect("a thread for attempts")
            })
            .collect();
        AttemptQueue { shared, workers }
    }

    /// Queues `job` in `student`'s line.
    pub fn submit(&self, student: &str, job: AttemptJob) -> Result<AttemptId, QueueRefusal> {
        self.room_for(&self.shared.lock(), student)?;
        // Numbered outside the lock (the numbering may ask a database), then checked
        // again: a number taken for a refused attempt is a gap, never a repeat.
        let id = (self.shared.numbering)().map_err(|reason| QueueRefusal::Unnumbered { reason })?;
        let mut lines = self.shared.lock();
        self.room_for(&lines, student)?;
        let line = lines.waiting.entry(student.to_owned()).or_default();
        line.push_back((id, job));
        if line.len() == 1 {
            lines.turns.push_back(student.to_owned());
        }
        *lines.open.entry(student.to_owned()).or_default() += 1;
        lines.states.insert(id, AttemptState::Queued { ahead: 0 });
        drop(lines);
        self.shared.work.notify_one();
        Ok(id)
    }

    /// Whether `student`'s next attempt has room now, or why not.
    fn room_for(&self, lines: &Lines, student: &str) -> Result<(), QueueRefusal> {
        let limits = self.shared.limits;
        if lines.open.get(student).copied().unwrap_or(0) >= limits.per_student {
            return Err(QueueRefusal::StudentBusy { limit: limits.per_student });
        }
        if lines.waiting.values().map(VecDeque::len).sum::<usize>() >= limits.waiting {
            return Err(QueueRefusal::Full { limit: limits.waiting });
        }
        Ok(())
    }

    /// Where attempt `id` is (`None`: no such attempt, or forgotten long since).
    pub fn state(&self, id: AttemptId) -> Option<AttemptState> {
        let lines = self.shared.lock();
        match lines.states.get(&id)? {
            AttemptState::Queued { .. } => Some(AttemptState::Queued { ahead: ahead_of(&lines, id) }),
            other => Some(other.clone()),
        }
    }
}

impl Drop for AttemptQueue {
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.work.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// How many attempts run before waiting attempt `id`: the workers' order, played out
/// (one attempt of each student in turn; at most [`QueueLimits::waiting`] of them).
fn ahead_of(lines: &Lines, id: AttemptId) -> usize {
    let mut turns = lines.turns.clone();
    let mut taken: HashMap<String, usize> = HashMap::new();
    let mut ahead = 0;
    while let Some(student) = turns.pop_front() {
        let Some(line) = lines.waiting.get(&student) else { continue };
        let next = taken.entry(student.clone()).or_default();
        let Some((queued, _)) = line.get(*next) else { continue };
        if *queued == id {
            return ahead;
        }
        *next += 1;
        ahead += 1;
        if *next < line.len() {
            turns.push_back(student);
        }
    }
    ahead
}

/// A worker: takes the next student's next attempt, runs it, keeps its result.
fn work(shared: &Shared) {
    vlab_programs::placement::run_this_thread_as_a_program();
    loop {
        let (id, student, job) = {
            let mut lines = shared.lock();
            loop {
                if lines.closing {
                    return;
                }
                if let Some(next) = take_next(&mut lines) {
                    break next;
                }
                lines = shared.work.wait(lines).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(id)))
            .unwrap_or_else(|_| {
                tracing::error!(attempt = id, %student, "an attempt panicked");
                Err(AttemptError::Crashed)
            })
            .map_err(|error| error.to_string());
        let mut lines = shared.lock();
        lines.states.insert(id, AttemptState::Done(result));
        if let Some(open) = lines.open.get_mut(&student) {
            *open -= 1;
            if *open == 0 {
                lines.open.remove(&student);
            }
        }
        lines.finished.push_back(id);
        while lines.finished.len() > shared.limits.kept {
            if let Some(oldest) = lines.finished.pop_front() {
                lines.states.remove(&oldest);
            }
        }
    }
}

/// The next attempt to run: the first of the student whose turn it is, who then goes
/// to the back of the turns if she has more waiting.
fn take_next(lines: &mut Lines) -> Option<(AttemptId, String, AttemptJob)> {
    let student = lines.turns.pop_front()?;
    let line = lines.waiting.get_mut(&student)?;
    let (id, job) = line.pop_front()?;
    if line.is_empty() {
        lines.waiting.remove(&student);
    } else {
        lines.turns.push_back(student.clone());
    }
    lines.states.insert(id, AttemptState::Running);
    Some((id, student, job))
}

#[cfg(test)]
mod tests {
    use super::super::AttemptStatus;
    use super::*;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    fn outcome(steps: u64) -> AttemptOutcome {
        AttemptOutcome {
            status: AttemptStatus::TimedOut,
            steps,
            sim_secs: 0.0,
            score: None,
            consoles: BTreeMap::new(),
            recording: None,
        }
    }

    fn one_worker(per_student: usize, waiting: usize) -> AttemptQueue {
        AttemptQueue::new(QueueLimits { workers: 1, per_student, waiting, kept: 16 })
    }

    fn wait_done(queue: &AttemptQueue, id: AttemptId) -> Result<AttemptOutcome, String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(AttemptState::Done(result)) = queue.state(id) {
                return result;
            }
            assert!(Instant::now() < deadline, "attempt {id} never finished");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn students_take_turns_however_many_one_of_them_sends() {
        let queue = one_worker(3, 64);
        let (order_tx, order) = mpsc::channel();
        let (gate_tx, gate) = mpsc::channel::<()>();
        let job = |label: &'static str, gate: Option<mpsc::Receiver<()>>| -> AttemptJob {
            let order_tx = order_tx.clone();
            Box::new(move |_| {
                if let Some(gate) = gate {
                    let _ = gate.recv();
                }
                order_tx.send(label).unwrap();
                Ok(outcome(0))
            })
        };
        // Ada's first attempt holds the worker until everybody has sent theirs.
        let first = queue.submit("ada", job("ada 1", Some(gate))).unwrap();
        while queue.state(first) != Some(AttemptState::Running) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let ada2 = queue.submit("ada", job("ada 2", None)).unwrap();
        let ada3 = queue.submit("ada", job("ada 3", None)).unwrap();
        let bob = queue.submit("bob", job("bob 1", None)).unwrap();
        assert_eq!(queue.state(bob), Some(AttemptState::Queued { ahead: 1 }), "only ada 2 before bob's");
        assert_eq!(queue.state(ada3), Some(AttemptState::Queued { ahead: 2 }));
        assert_eq!(queue.state(ada2), Some(AttemptState::Queued { ahead: 0 }));
        gate_tx.send(()).unwrap();
        wait_done(&queue, ada3).unwrap();
        let ran: Vec<&str> = order.try_iter().collect();
        assert_eq!(ran, ["ada 1", "ada 2", "bob 1", "ada 3"]);
    }

    #[test]
    fn a_student_has_her_share_and_the_server_its_waiting_room() {
        let queue = one_worker(2, 2);
        let (gate_tx, gate) = mpsc::channel::<()>();
        let held: AttemptJob = Box::new(move |_| {
            let _ = gate.recv();
            Ok(outcome(1))
        });
        let first = queue.submit("ada", held).unwrap();
        while queue.state(first) != Some(AttemptState::Running) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let quick = || -> AttemptJob { Box::new(|_| Ok(outcome(2))) };
        queue.submit("ada", quick()).unwrap();
        assert_eq!(queue.submit("ada", quick()), Err(QueueRefusal::StudentBusy { limit: 2 }), "two open: her share");
        queue.submit("bob", quick()).unwrap();
        assert_eq!(queue.submit("cy", quick()), Err(QueueRefusal::Full { limit: 2 }), "two waiting: the room is full");
        gate_tx.send(()).unwrap();
        assert_eq!(wait_done(&queue, first).unwrap().steps, 1);
    }

    #[test]
    fn a_failing_or_panicking_attempt_is_a_result_and_the_worker_goes_on() {
        let queue = one_worker(3, 8);
        let failing = queue.submit("ada", Box::new(|_| Err(AttemptError::NoRobot("cart".into())))).unwrap();
        let panicking = queue.submit("ada", Box::new(|_| panic!("a bug"))).unwrap();
        let fine = queue.submit("ada", Box::new(|_| Ok(outcome(3)))).unwrap();
        assert_eq!(wait_done(&queue, failing), Err("there is no robot 'cart' in the attempt's world".into()));
        assert_eq!(wait_done(&queue, panicking), Err(AttemptError::Crashed.to_string()));
        assert_eq!(wait_done(&queue, fine).unwrap().steps, 3);
    }

    #[test]
    fn attempts_take_their_numbers_from_the_numbering_and_one_it_cannot_number_is_refused_unqueued() {
        let limits = QueueLimits { workers: 1, per_student: 3, waiting: 8, kept: 16 };
        let given = Arc::new(Mutex::new(vec![Ok(40), Err("the database is away".to_owned()), Ok(7)]));
        let numbering = {
            let given = Arc::clone(&given);
            Box::new(move || given.lock().unwrap().remove(0))
        };
        let queue = AttemptQueue::numbered_by(limits, numbering);
        let first = queue.submit("ada", Box::new(|_| Ok(outcome(1)))).unwrap();
        assert_eq!(first, 40);
        let refused = queue.submit("ada", Box::new(|_| Ok(outcome(2))));
        assert_eq!(refused, Err(QueueRefusal::Unnumbered { reason: "the database is away".into() }));
        let next = queue.submit("ada", Box::new(|id| Ok(outcome(id)))).unwrap();
        assert_eq!(next, 7, "whatever the numbering gives");
        assert_eq!(wait_done(&queue, next).unwrap().steps, 7, "the job is given its number");
        assert!(given.lock().unwrap().is_empty());
    }

    #[test]
    fn a_refused_attempt_takes_no_place_and_the_counter_goes_on_after_its_last() {
        let queue = AttemptQueue::numbered_after(QueueLimits { workers: 1, per_student: 1, waiting: 8, kept: 16 }, 9);
        let (gate_tx, gate) = mpsc::channel::<()>();
        let held: AttemptJob = Box::new(move |_| {
            let _ = gate.recv();
            Ok(outcome(1))
        });
        assert_eq!(queue.submit("ada", held), Ok(10));
        assert_eq!(queue.submit("ada", Box::new(|_| Ok(outcome(2)))), Err(QueueRefusal::StudentBusy { limit: 1 }));
        assert_eq!(queue.submit("bob", Box::new(|_| Ok(outcome(3)))), Ok(11), "a refusal spends no number");
        gate_tx.send(()).unwrap();
        wait_done(&queue, 11).unwrap();
    }
}
