//! How many bytes each student keeps on the server in each lab: the uploads their
//! robots came from and the programs they replaced, as the store keeps them. A student
//! stays within [`STUDENT_UPLOAD_BUDGET_BYTES`]; removing a robot gives its bytes back
//! (its upload leaves the store). The instructor has no budget.
//!
//! An upload reserves its bytes before it is inserted and keeps them once it is in, so
//! uploads sent at once cannot pass the budget together; one that fails gives its
//! reservation back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use vlab_protocol::UserId;

/// The most bytes a student's robots and programs may take in one lab: two uploads of
/// the largest size ([`super::MAX_UPLOAD_BYTES`]). With 30 students a lab keeps at most
/// 240 MiB of them.
pub const STUDENT_UPLOAD_BUDGET_BYTES: u64 = 8 * 1024 * 1024;

/// What one robot of a student costs.
#[derive(Clone, Copy, Default)]
struct RobotCost {
    /// Its share of the upload it came in.
    upload: u64,
    /// The program that replaced the upload's, if any (the latest only: the store
    /// forgets the ones before).
    program: u64,
}

#[derive(Default)]
struct Accounts {
    /// By lab, student and robot.
    robots: HashMap<(String, UserId), HashMap<String, RobotCost>>,
    /// Reserved by uploads still on their way in, by lab and student.
    pending: HashMap<(String, UserId), u64>,
}

impl Accounts {
    fn used(&self, key: &(String, UserId)) -> u64 {
        let kept: u64 = self.robots.get(key).map_or(0, |r| r.values().map(|c| c.upload + c.program).sum());
        kept + self.pending.get(key).copied().unwrap_or(0)
    }
}

/// The byte accounts of every student in every lab.
#[derive(Clone, Default)]
pub struct UploadBudget {
    accounts: Arc<Mutex<Accounts>>,
}

/// Why an upload does not fit.
#[derive(Debug, PartialEq, Eq)]
pub struct OverBudget {
    /// Bytes the student keeps (or has on the way in) already.
    pub used: u64,
    /// Bytes this upload adds.
    pub adding: u64,
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "your robots and programs in this lab take {} and this upload adds {}: a student may keep at most {} \
             in a lab (remove one of your robots first, or make the upload smaller)",
            mib(self.used),
            mib(self.adding),
            mib(STUDENT_UPLOAD_BUDGET_BYTES)
        )
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// Bytes held for an upload on its way in; given back when dropped unless kept.
#[must_use]
pub struct Reservation {
    accounts: Arc<Mutex<Accounts>>,
    key: (String, UserId),
    bytes: u64,
}

impl UploadBudget {
    /// Holds `bytes` of student `user`'s budget in lab `lab`, if they fit; `checked`
    /// false holds them whatever the total (uploads done again at start-up).
    pub fn reserve(&self, lab: &str, user: UserId, bytes: u64, checked: bool) -> Result<Reservation, OverBudget> {
        let key = (lab.to_owned(), user);
        let mut accounts = self.accounts.lock().expect("budget lock");
        let used = accounts.used(&key);
        if checked && used + bytes > STUDENT_UPLOAD_BUDGET_BYTES {
            return Err(OverBudget { used, adding: bytes });
        }
        *accounts.pending.entry(key.clone()).or_default() += bytes;
        Ok(Reservation { accounts: Arc::clone(&self.accounts), key, bytes })
    }

    /// A robot is gone: its bytes are free again.
    pub fn robot_removed(&self, lab: &str, user: UserId, robot: &str) {
        let mut accounts = self.accounts.lock().expect("budget lock");
        if let Some(robots) = accounts.robots.get_mut(&(lab.to_owned(), user)) {
            robots.remove(robot);
        }
    }

    /// Every account of a closed lab goes.
    pub fn forget_lab(&self, lab: &str) {
        let mut accounts = self.accounts.lock().expect("budget lock");
        accounts.robots.retain(|(l, _), _| l != lab);
        accounts.pending.retain(|(l, _), _| l != lab);
    }

    /// Bytes student `user` keeps in lab `lab`, reservations included.
    pub fn used(&self, lab: &str, user: UserId) -> u64 {
        self.accounts.lock().expect("budget lock").used(&(lab.to_owned(), user))
    }
}

impl Reservation {
    /// The upload is in: its bytes are the cost of `robots`, shared between them.
    pub fn keep_as_upload(mut self, robots: &[String]) {
        let bytes = std::mem::take(&mut self.bytes);
        let mut accounts = release(&self.accounts, &self.key, bytes);
        let share = bytes / robots.len().max(1) as u64;
        let mut rest = bytes - share * robots.len() as u64;
        let mine = accounts.robots.entry(self.key.clone()).or_default();
        for robot in robots {
            mine.insert(robot.clone(), RobotCost { upload: share + std::mem::take(&mut rest), program: 0 });
        }
    }

    /// The program is in: its bytes replace robot `robot`'s program's.
    pub fn keep_as_program(mut self, robot: &str) {
        let bytes = std::mem::take(&mut self.bytes);
        let mut accounts = release(&self.accounts, &self.key, bytes);
        accounts.robots.entry(self.key.clone()).or_default().entry(robot.to_owned()).or_default().program = bytes;
    }
}

/// Takes `bytes` out of `key`'s pending ones.
fn release<'a>(accounts: &'a Mutex<Accounts>, key: &(String, UserId), bytes: u64) -> MutexGuard<'a, Accounts> {
    let mut accounts = accounts.lock().expect("budget lock");
    if let Some(pending) = accounts.pending.get_mut(key) {
        *pending = pending.saturating_sub(bytes);
    }
    accounts
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // A kept reservation has no bytes left to give back.
        if self.bytes > 0 {
            drop(release(&self.accounts, &self.key, self.bytes));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1024 * 1024;

    #[test]
    fn the_budget_admits_exactly_its_size_and_a_removal_gives_bytes_back() {
        let budget = UploadBudget::default();
        budget.reserve("lab", 1, 5 * MIB, true).unwrap().keep_as_upload(&["a".into()]);
        budget.reserve("lab", 1, 3 * MIB, true).unwrap().keep_as_upload(&["b".into()]);
        assert_eq!(budget.used("lab", 1), STUDENT_UPLOAD_BUDGET_BYTES);
        assert_eq!(budget.reserve("lab", 1, 1, true).err(), Some(OverBudget { used: 8 * MIB, adding: 1 }));
        assert_eq!(budget.used("lab", 2), 0, "others are not charged");
        assert_eq!(budget.used("other", 1), 0, "nor other labs");
        budget.robot_removed("lab", 1, "a");
        assert_eq!(budget.used("lab", 1), 3 * MIB);
        budget.reserve("lab", 1, 5 * MIB, true).unwrap().keep_as_upload(&["c".into()]);
    }

    #[test]
    fn a_failed_upload_gives_its_reservation_back_and_pending_ones_count() {
        let budget = UploadBudget::default();
        let first = budget.reserve("lab", 1, 6 * MIB, true).unwrap();
        assert!(budget.reserve("lab", 1, 3 * MIB, true).is_err(), "the one on its way in counts");
        drop(first);
        assert_eq!(budget.used("lab", 1), 0);
        budget.reserve("lab", 1, 3 * MIB, true).unwrap().keep_as_upload(&["a".into()]);
        assert_eq!(budget.used("lab", 1), 3 * MIB);
    }

    #[test]
    fn a_program_replaces_the_last_one_and_a_shared_upload_is_split() {
        let budget = UploadBudget::default();
        budget.reserve("lab", 1, 3 * MIB + 1, true).unwrap().keep_as_upload(&["a".into(), "b".into(), "c".into()]);
        assert_eq!(budget.used("lab", 1), 3 * MIB + 1);
        budget.reserve("lab", 1, MIB, true).unwrap().keep_as_program("a");
        budget.reserve("lab", 1, MIB, true).unwrap().keep_as_program("a");
        assert_eq!(budget.used("lab", 1), 4 * MIB + 1, "the second program replaced the first");
        budget.robot_removed("lab", 1, "a");
        assert_eq!(budget.used("lab", 1), 2 * MIB);
        budget.reserve("lab", 1, 100 * MIB, false).unwrap().keep_as_upload(&["d".into()]);
        assert_eq!(budget.used("lab", 1), 102 * MIB, "uploads done again are counted, not refused");
        budget.forget_lab("lab");
        assert_eq!(budget.used("lab", 1), 0);
    }
}
