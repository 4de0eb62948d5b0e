//! Which CPUs robot programs run on: by default every CPU the server may use but one,
//! which the labs' threads keep to themselves.
//!
//! *Why:* a lab's thread steps the physics and must keep the class's pace; programs
//! are many small processes that wake together at each control step. Left to the
//! kernel, programs woken by the lab's thread land on its CPU, and thirty of them at
//! niceness 10 still outweigh the physics there (weight 110 each against 1024); kept
//! off one CPU, they can never take the physics' CPU, and they share warmer caches
//! where they do run. docs/performance.md has the figures (the `classroom_programs`
//! bench: 30 programs on every CPU against off the first, in one run);
//! docs/operations.md the setting (`vlab serve --program-cpus`).
//!
//! The choice is the server's, made once at its start ([`set_program_cpus`]); a
//! program's spawner thread takes it on before it starts the interpreter
//! ([`place_this_thread`]), so the program and any thread it starts inherit it, and the
//! sandbox denies `sched_setaffinity` to the program itself.

use std::fmt;
use std::str::FromStr;
use std::sync::RwLock;

/// Most CPUs a list may name (the kernel's default CPU set size).
pub const MAX_CPUS: usize = 1024;

/// Where robot programs may run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ProgramCpus {
    /// Every CPU the server may use but the first, when it may use two or more; all of
    /// them on a single CPU (the default).
    #[default]
    Auto,
    /// Every CPU the server may use, shared with the labs' threads.
    All,
    /// These CPUs (numbers as the kernel counts them).
    List(Vec<usize>),
}

/// A `--program-cpus` value that does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' at character {at}: {problem} (expected auto, all, or CPU numbers such as 1-3,5)")]
pub struct CpusParseError {
    /// The whole value.
    pub text: String,
    /// Where the problem starts, counted from 1.
    pub at: usize,
    /// What is wrong there.
    pub problem: String,
}

impl FromStr for ProgramCpus {
    type Err = CpusParseError;

    fn from_str(text: &str) -> Result<ProgramCpus, CpusParseError> {
        let trimmed = text.trim();
        match trimmed.to_ascii_lowercase().as_str() {
            "auto" => return Ok(ProgramCpus::Auto),
            "all" => return Ok(ProgramCpus::All),
            _ => {}
        }
        let error = |at: usize, problem: String| CpusParseError { text: text.to_owned(), at: at + 1, problem };
        let mut cpus = Vec::new();
        let mut offset = text.len() - text.trim_start().len();
        for part in trimmed.split(',') {
            let number = |s: &str, at: usize| -> Result<usize, CpusParseError> {
                let n: usize =
                    s.trim().parse().map_err(|_| error(at, format!("'{}' is not a CPU number", s.trim())))?;
                if n >= MAX_CPUS {
                    return Err(error(at, format!("CPU {n} is past the last one a list may name ({})", MAX_CPUS - 1)));
                }
                Ok(n)
            };
            match part.split_once('-') {
                Some((low, high)) => {
                    let (low_n, high_n) = (number(low, offset)?, number(high, offset + low.len() + 1)?);
                    if low_n > high_n {
                        return Err(error(offset, format!("the range {low_n}-{high_n} runs backwards")));
                    }
                    cpus.extend(low_n..=high_n);
                }
                None => cpus.push(number(part, offset)?),
            }
            offset += part.len() + 1;
        }
        cpus.sort_unstable();
        cpus.dedup();
        Ok(ProgramCpus::List(cpus))
    }
}

impl fmt::Display for ProgramCpus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgramCpus::Auto => f.write_str("auto"),
            ProgramCpus::All => f.write_str("all"),
            ProgramCpus::List(cpus) => f.write_str(&cpu_list(cpus)),
        }
    }
}

/// `cpus` (sorted) as the kernel writes CPU lists: `0-3,6`.
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j { cpus[i].to_string() } else { format!("{}-{}", cpus[i], cpus[j]) });
        i = j + 1;
    }
    parts.join(",")
}

/// Why a choice cannot be used on this machine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// A list that names no CPU the server may use.
    #[error("--program-cpus {asked}: the server may use only CPUs {allowed}")]
    NoneAllowed {
        /// The list asked for.
        asked: String,
        /// The CPUs the server may use.
        allowed: String,
    },
}

/// The CPUs programs get under `choice`, out of those the server may use (`allowed`,
/// sorted). A list keeps the CPUs of it the server may use, and must keep one.
pub fn resolve(choice: &ProgramCpus, allowed: &[usize]) -> Result<Vec<usize>, PlacementError> {
    match choice {
        ProgramCpus::Auto if allowed.len() >= 2 => Ok(allowed[1..].to_vec()),
        ProgramCpus::Auto | ProgramCpus::All => Ok(allowed.to_vec()),
        ProgramCpus::List(asked) => {
            let kept: Vec<usize> = asked.iter().copied().filter(|cpu| allowed.contains(cpu)).collect();
            if kept.is_empty() {
                return Err(PlacementError::NoneAllowed { asked: cpu_list(asked), allowed: cpu_list(allowed) });
            }
            Ok(kept)
        }
    }
}

/// The server's choice; [`ProgramCpus::Auto`] until it says otherwise.
static CHOICE: RwLock<ProgramCpus> = RwLock::new(ProgramCpus::Auto);

/// Sets where programs started from now on run (the server does it once, at its
/// start). Refuses a choice this machine cannot carry out, changing nothing.
/// Returns the CPUs programs get.
pub fn set_program_cpus(choice: ProgramCpus) -> Result<Vec<usize>, PlacementError> {
    let cpus = resolve(&choice, &allowed_cpus())?;
    *CHOICE.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = choice;
    Ok(cpus)
}

/// The CPUs programs started now get, from the calling thread's own CPUs.
pub fn program_cpus() -> Vec<usize> {
    let choice = CHOICE.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
    let allowed = allowed_cpus();
    resolve(&choice, &allowed).unwrap_or(allowed)
}

/// The CPUs the calling thread may run on, sorted (every CPU it could read, where the
/// kernel does not say: then nothing is restricted).
pub fn allowed_cpus() -> Vec<usize> {
    #[cfg(target_os = "linux")]
    {
        use nix::sched::{CpuSet, sched_getaffinity};
        use nix::unistd::Pid;
        if let Ok(set) = sched_getaffinity(Pid::from_raw(0)) {
            let cpus: Vec<usize> = (0..CpuSet::count()).filter(|&cpu| set.is_set(cpu).unwrap_or(false)).collect();
            if !cpus.is_empty() {
                return cpus;
            }
        }
    }
    let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    (0..n).collect()
}

/// Moves the calling thread (a program's spawner, before it starts the interpreter) to
/// the programs' CPUs, so the program inherits them. A failure leaves the thread where
/// it was: the program runs, only placed as the kernel likes.
#[cfg(target_os = "linux")]
pub(crate) fn place_this_thread() {
    use nix::sched::{CpuSet, sched_setaffinity};
    use nix::unistd::Pid;
    let cpus = program_cpus();
    let mut set = CpuSet::new();
    for &cpu in &cpus {
        let _ = set.set(cpu);
    }
    if let Err(e) = sched_setaffinity(Pid::from_raw(0), &set) {
        tracing::debug!(error = %e, cpus = %cpu_list(&cpus), "could not place a program on its CPUs");
    }
}

/// Makes the calling thread run as programs do: on the programs' CPUs, at their lower
/// priority, so work done for one student (an attempt's physics) leaves the labs'
/// threads their pace. Where either is refused the thread runs as it was.
#[cfg(target_os = "linux")]
pub fn run_this_thread_as_a_program() {
    place_this_thread();
    let tid = rustix::thread::gettid();
    if let Err(e) = rustix::process::setpriority_process(Some(tid), crate::sandbox::PROGRAM_NICENESS) {
        tracing::debug!(error = %e, "could not lower a thread to the programs' priority");
    }
}

/// Elsewhere threads run as they are.
#[cfg(not(target_os = "linux"))]
pub fn run_this_thread_as_a_program() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_as_the_kernel_writes_cpu_lists() {
        assert_eq!("auto".parse(), Ok(ProgramCpus::Auto));
        assert_eq!(" All ".parse(), Ok(ProgramCpus::All));
        assert_eq!("1-3,5".parse(), Ok(ProgramCpus::List(vec![1, 2, 3, 5])));
        assert_eq!("5, 1-2,2".parse(), Ok(ProgramCpus::List(vec![1, 2, 5])));
        assert_eq!(ProgramCpus::List(vec![1, 2, 3, 5, 7, 8]).to_string(), "1-3,5,7-8");
        assert_eq!(ProgramCpus::Auto.to_string(), "auto");
    }

    #[test]
    fn a_value_that_does_not_read_says_where() {
        let e = "1-x".parse::<ProgramCpus>().unwrap_err();
        assert_eq!((e.at, e.problem.as_str()), (3, "'x' is not a CPU number"));
        assert!(e.to_string().starts_with("'1-x' at character 3: 'x' is not a CPU number"), "{e}");
        let e = "0,3-1".parse::<ProgramCpus>().unwrap_err();
        assert_eq!((e.at, e.problem.as_str()), (3, "the range 3-1 runs backwards"));
        let e = "2000".parse::<ProgramCpus>().unwrap_err();
        assert_eq!(e.at, 1);
        assert!(e.problem.contains("past the last one"), "{e}");
        assert!("".parse::<ProgramCpus>().is_err());
        assert!("1,,2".parse::<ProgramCpus>().is_err());
    }

    #[test]
    fn auto_keeps_the_first_cpu_for_the_labs_when_there_are_two_or_more() {
        assert_eq!(resolve(&ProgramCpus::Auto, &[0, 1]), Ok(vec![1]));
        assert_eq!(resolve(&ProgramCpus::Auto, &[2, 3, 7]), Ok(vec![3, 7]));
        assert_eq!(resolve(&ProgramCpus::Auto, &[4]), Ok(vec![4]), "one CPU: shared");
        assert_eq!(resolve(&ProgramCpus::All, &[0, 1]), Ok(vec![0, 1]));
    }

    #[test]
    fn a_list_keeps_the_cpus_the_server_may_use_and_must_keep_one() {
        assert_eq!(resolve(&ProgramCpus::List(vec![1, 5]), &[0, 1, 2]), Ok(vec![1]));
        assert_eq!(
            resolve(&ProgramCpus::List(vec![4, 5]), &[0, 1]),
            Err(PlacementError::NoneAllowed { asked: "4-5".into(), allowed: "0-1".into() })
        );
        assert_eq!(
            PlacementError::NoneAllowed { asked: "4-5".into(), allowed: "0-1".into() }.to_string(),
            "--program-cpus 4-5: the server may use only CPUs 0-1"
        );
    }

    #[test]
    fn this_thread_may_use_at_least_one_cpu() {
        let allowed = allowed_cpus();
        assert!(!allowed.is_empty());
        assert!(allowed.windows(2).all(|w| w[0] < w[1]), "sorted: {allowed:?}");
        let programs = program_cpus();
        assert!(programs.iter().all(|cpu| allowed.contains(cpu)), "{programs:?} within {allowed:?}");
    }
}
