//! Who may write an export now: each caller one at a time, each lab's students a few
//! together, the whole server a few more. An export holds its slot while it is written;
//! a client that stops reading loses it (see [`super::pipe`]), so nobody holds one for
//! long without taking its bytes, and one caller or one lab never takes them all.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::classroom::ClassroomError;
use vlab_lab::Caller;

/// Exports one caller (the instructor of a lab, one student of it) may have written at
/// once: a download takes one, and nobody needs two running to get both files.
pub const MAX_EXPORTS_PER_CALLER: usize = 1;

/// Exports the students of one lab may have written at once, all together. The lab's
/// instructor is not counted: her own slot is always hers, so her students, slow or
/// hostile, never lock her out.
pub const MAX_STUDENT_EXPORTS_PER_LAB: usize = 2;

/// Exports written at once on the whole server: each keeps a blocking thread and, while
/// its client reads, a core reading and compressing. One lab takes at most three (its
/// students' two and its instructor's one), so one lab or one caller never takes them
/// all; a whole class of labs downloading at once waits its turn instead of slowing
/// every lab.
pub const MAX_CONCURRENT_EXPORTS: usize = 8;

/// The least an export's client must read: one block of [`MIN_READ_BYTES`] in this
/// long, else its export ends and its slot is given back. A browser saving a file
/// reads far faster; a client that opened an export and never reads loses it after
/// this, not after the [`super::pipe::EXPORT_TIME_LIMIT`].
pub const MIN_READ_WINDOW: Duration = Duration::from_secs(30);

/// The block [`MIN_READ_WINDOW`] counts: an export is sent in blocks of this size.
pub const MIN_READ_BYTES: usize = super::pipe::BLOCK_BYTES;

/// What a refused export is told to wait, seconds.
pub const EXPORT_RETRY_AFTER_SECS: u64 = 5;

/// How many exports may be written at once, and how fast their clients must read.
/// `ExportLimits::default()` is the constants above; tests shorten the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportLimits {
    /// Exports of one caller at once.
    pub per_caller: usize,
    /// Exports of one lab's students together at once.
    pub per_lab: usize,
    /// Exports on the whole server at once.
    pub total: usize,
    /// The longest a client may take to read one block of an export.
    pub read_window: Duration,
}

impl Default for ExportLimits {
    fn default() -> ExportLimits {
        ExportLimits {
            per_caller: MAX_EXPORTS_PER_CALLER,
            per_lab: MAX_STUDENT_EXPORTS_PER_LAB,
            total: MAX_CONCURRENT_EXPORTS,
            read_window: MIN_READ_WINDOW,
        }
    }
}

/// The exports being written on a server, by lab and caller.
pub struct ExportSlots {
    limits: ExportLimits,
    taken: Mutex<Vec<(String, Caller)>>,
}

/// One export's slot, given back when dropped.
pub struct ExportSlot {
    slots: Arc<ExportSlots>,
    lab: String,
    caller: Caller,
}

impl ExportSlots {
    /// No export written yet, within `limits`.
    pub fn new(limits: ExportLimits) -> ExportSlots {
        ExportSlots { limits, taken: Mutex::new(Vec::new()) }
    }

    /// The limits in force.
    pub fn limits(&self) -> ExportLimits {
        self.limits
    }

    /// A slot for an export of lab `lab` by `caller`, or why not: the caller's own
    /// export under way (`TooMany`, 429), the lab's students' (`TooMany`), or the
    /// server's (`Busy`, 503).
    pub fn take(self: &Arc<Self>, lab: &str, caller: Caller) -> Result<ExportSlot, ClassroomError> {
        let limits = self.limits;
        let mut taken = self.taken.lock().expect("export slots lock");
        let of_lab = |who: &(String, Caller)| who.0 == lab;
        let retry_after = EXPORT_RETRY_AFTER_SECS;
        if taken.iter().filter(|who| of_lab(who) && who.1 == caller).count() >= limits.per_caller {
            return Err(ClassroomError::TooMany {
                message: format!(
                    "you are already downloading {} of this lab's recording: let it finish (or cancel it), then try again",
                    exports(limits.per_caller)
                ),
                retry_after,
            });
        }
        let students = taken.iter().filter(|who| of_lab(who) && matches!(who.1, Caller::Student(_))).count();
        if matches!(caller, Caller::Student(_)) && students >= limits.per_lab {
            return Err(ClassroomError::TooMany {
                message: format!(
                    "students of this lab are downloading {} already: try again in {retry_after} s",
                    exports(limits.per_lab)
                ),
                retry_after,
            });
        }
        if taken.len() >= limits.total {
            return Err(ClassroomError::Busy {
                message: format!(
                    "the server is writing {} already: try again in {retry_after} s",
                    exports(limits.total)
                ),
                retry_after,
            });
        }
        taken.push((lab.to_owned(), caller));
        Ok(ExportSlot { slots: Arc::clone(self), lab: lab.to_owned(), caller })
    }

    /// Exports being written now.
    pub fn in_use(&self) -> usize {
        self.taken.lock().expect("export slots lock").len()
    }
}

impl Drop for ExportSlot {
    fn drop(&mut self) {
        let mut taken = self.slots.taken.lock().expect("export slots lock");
        if let Some(index) = taken.iter().position(|(lab, caller)| *lab == self.lab && *caller == self.caller) {
            taken.swap_remove(index);
        }
    }
}

/// "1 export", "2 exports".
fn exports(count: usize) -> String {
    if count == 1 { "an export".into() } else { format!("{count} exports") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(per_caller: usize, per_lab: usize, total: usize) -> Arc<ExportSlots> {
        Arc::new(ExportSlots::new(ExportLimits { per_caller, per_lab, total, read_window: MIN_READ_WINDOW }))
    }

    fn status(refused: ClassroomError) -> (&'static str, String) {
        match refused {
            ClassroomError::TooMany { message, retry_after: 5 } => ("too many", message),
            ClassroomError::Busy { message, retry_after: 5 } => ("busy", message),
            other => panic!("unexpected refusal {other:?}"),
        }
    }

    #[test]
    fn one_export_per_caller_and_the_next_once_it_ends() {
        let slots = slots(1, 2, 8);
        let ana = Caller::Student(1);
        let first = slots.take("demo", ana).unwrap();
        let (kind, message) = status(slots.take("demo", ana).err().unwrap());
        assert_eq!(kind, "too many");
        assert_eq!(
            message,
            "you are already downloading an export of this lab's recording: let it finish (or cancel it), then try again"
        );
        // The same student id in another lab is another caller.
        let elsewhere = slots.take("other", ana).unwrap();
        drop(first);
        let again = slots.take("demo", ana).unwrap();
        assert_eq!(slots.in_use(), 2);
        drop((again, elsewhere));
        assert_eq!(slots.in_use(), 0);
    }

    #[test]
    fn a_labs_students_share_their_slots_and_never_take_the_instructors() {
        let slots = slots(1, 2, 8);
        let student = Caller::Student;
        let _held = [slots.take("demo", student(1)).unwrap(), slots.take("demo", student(2)).unwrap()];
        let (kind, message) = status(slots.take("demo", student(3)).err().unwrap());
        assert_eq!(
            (kind, message.as_str()),
            ("too many", "students of this lab are downloading 2 exports already: try again in 5 s")
        );
        let _instructor = slots.take("demo", Caller::Instructor).unwrap();
        let _other_lab = slots.take("other", student(3)).unwrap();
    }

    #[test]
    fn the_server_writes_at_most_its_total_and_one_lab_never_takes_it_all() {
        let slots = slots(1, 2, 4);
        let student = Caller::Student;
        let mut held = vec![
            slots.take("a", student(1)).unwrap(),
            slots.take("a", student(2)).unwrap(),
            slots.take("a", Caller::Instructor).unwrap(),
        ];
        // One lab holds three of the four: the next lab still gets one.
        held.push(slots.take("b", Caller::Instructor).unwrap());
        let (kind, message) = status(slots.take("c", Caller::Instructor).err().unwrap());
        assert_eq!((kind, message.as_str()), ("busy", "the server is writing 4 exports already: try again in 5 s"));
        held.pop();
        assert!(slots.take("c", Caller::Instructor).is_ok(), "a slot given back is taken again");
        assert!(ExportLimits::default().total > ExportLimits::default().per_lab + ExportLimits::default().per_caller);
    }
}
