//! How many bytes each student keeps on the server in each lab: the uploads their
//! robots came from and the programs they replaced, as the store keeps them, within
//! [`STUDENT_UPLOAD_BUDGET_BYTES`]; and the triangles the server builds from the mesh
//! files of those uploads for pages to draw, within [`STUDENT_MESH_BUDGET_BYTES`].
//! Removing a robot gives its bytes back (its upload leaves the store, and its meshes
//! the lab when no other robot uses them). The instructor has no budget.
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

/// The most bytes of triangles the server keeps for the meshes of a student's robots in
/// one lab (about 800,000 vertices with normals and indices): a detailed robot of
/// hundreds of thousands of triangles fits, while a small file that places one mesh
/// thousands of times (up to [`vlab_sim::mesh::MAX_VERTICES`] each) cannot make the server
/// hold gigabytes. Triangles are several times their file's size, hence a budget of
/// their own. With 30 students a lab keeps at most 960 MiB of them.
pub const STUDENT_MESH_BUDGET_BYTES: u64 = 32 * 1024 * 1024;

/// The least one mesh counts against [`STUDENT_MESH_BUDGET_BYTES`], however few its
/// triangles: every mesh is a draw call on every page, so a student's robots draw at
/// most 1,024 meshes in a lab.
pub const MIN_BYTES_PER_MESH: u64 = 32 * 1024;

/// What a file's triangles (`triangles`, as pages fetch them) count against a
/// student's [`STUDENT_MESH_BUDGET_BYTES`]: their bytes, and at least
/// [`MIN_BYTES_PER_MESH`] for each mesh.
pub fn mesh_cost(triangles: &[u8]) -> u64 {
    let meshes = vlab_protocol::count_meshes(triangles).unwrap_or(0) as u64;
    (triangles.len() as u64).max(meshes * MIN_BYTES_PER_MESH)
}

/// What an upload, a program or a robot costs: bytes kept in the store, and bytes of
/// triangles kept for its meshes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// The files, as the store keeps them.
    pub files: u64,
    /// The triangles read from its meshes.
    pub meshes: u64,
}

impl Cost {
    /// Files only (a program).
    pub fn files(bytes: u64) -> Cost {
        Cost { files: bytes, meshes: 0 }
    }

    fn plus(self, other: Cost) -> Cost {
        Cost { files: self.files + other.files, meshes: self.meshes + other.meshes }
    }

    fn minus(self, other: Cost) -> Cost {
        Cost { files: self.files.saturating_sub(other.files), meshes: self.meshes.saturating_sub(other.meshes) }
    }

    /// A share of `n` parts, the rest going to the first (`first`).
    fn share(self, n: u64, first: bool) -> Cost {
        let n = n.max(1);
        let part = |total: u64| total / n + if first { total % n } else { 0 };
        Cost { files: part(self.files), meshes: part(self.meshes) }
    }
}

/// What one robot of a student costs.
#[derive(Clone, Copy, Default)]
struct RobotCost {
    /// Its share of the upload it came in (files and meshes).
    upload: Cost,
    /// The program that replaced the upload's, if any (the latest only: the store
    /// forgets the ones before).
    program: u64,
}

#[derive(Default)]
struct Accounts {
    /// By lab, student and robot.
    robots: HashMap<(String, UserId), HashMap<String, RobotCost>>,
    /// Reserved by uploads still on their way in, by lab and student.
    pending: HashMap<(String, UserId), Cost>,
}

impl Accounts {
    fn used(&self, key: &(String, UserId)) -> Cost {
        let kept = self.robots.get(key).map_or(Cost::default(), |robots| {
            robots.values().fold(Cost::default(), |sum, c| sum.plus(c.upload).plus(Cost::files(c.program)))
        });
        kept.plus(self.pending.get(key).copied().unwrap_or_default())
    }
}

/// The byte accounts of every student in every lab.
#[derive(Clone, Default)]
pub struct UploadBudget {
    accounts: Arc<Mutex<Accounts>>,
}

/// Why an upload does not fit.
#[derive(Debug, PartialEq, Eq)]
pub enum OverBudget {
    /// Its files: `used` bytes kept (or on the way in) already, `adding` more.
    Files {
        /// Bytes the student keeps (or has on the way in) already.
        used: u64,
        /// Bytes this upload adds.
        adding: u64,
    },
    /// The triangles of its meshes.
    Meshes {
        /// Bytes of triangles the student's robots have already.
        used: u64,
        /// Bytes of triangles this upload's meshes add.
        adding: u64,
    },
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            OverBudget::Files { used, adding } => write!(
                f,
                "your robots and programs in this lab take {} and this upload adds {}: a student may keep at most {} \
                 in a lab (remove one of your robots first, or make the upload smaller)",
                mib(used),
                mib(adding),
                mib(STUDENT_UPLOAD_BUDGET_BYTES)
            ),
            OverBudget::Meshes { used, adding } => write!(
                f,
                "the meshes of your robots in this lab take {} to draw and this upload's add {}: a student's may \
                 take at most {} in a lab (use meshes with fewer triangles, or remove one of your robots first)",
                mib(used),
                mib(adding),
                mib(STUDENT_MESH_BUDGET_BYTES)
            ),
        }
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
    cost: Cost,
}

impl UploadBudget {
    /// Holds `cost` of student `user`'s budgets in lab `lab`, if it fits both; `checked`
    /// false holds it whatever the totals (uploads done again at start-up).
    pub fn reserve(&self, lab: &str, user: UserId, cost: Cost, checked: bool) -> Result<Reservation, OverBudget> {
        let key = (lab.to_owned(), user);
        let mut accounts = self.accounts.lock().expect("budget lock");
        let used = accounts.used(&key);
        if checked && used.files + cost.files > STUDENT_UPLOAD_BUDGET_BYTES {
            return Err(OverBudget::Files { used: used.files, adding: cost.files });
        }
        if checked && used.meshes + cost.meshes > STUDENT_MESH_BUDGET_BYTES {
            return Err(OverBudget::Meshes { used: used.meshes, adding: cost.meshes });
        }
        let pending = accounts.pending.entry(key.clone()).or_default();
        *pending = pending.plus(cost);
        Ok(Reservation { accounts: Arc::clone(&self.accounts), key, cost })
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

    /// Bytes of files student `user` keeps in lab `lab`, reservations included.
    pub fn used(&self, lab: &str, user: UserId) -> u64 {
        self.accounts.lock().expect("budget lock").used(&(lab.to_owned(), user)).files
    }

    /// Bytes of triangles the meshes of student `user`'s robots take in lab `lab`,
    /// reservations included.
    pub fn meshes_used(&self, lab: &str, user: UserId) -> u64 {
        self.accounts.lock().expect("budget lock").used(&(lab.to_owned(), user)).meshes
    }
}

impl Reservation {
    /// The upload is in: its cost is that of `robots`, shared between them.
    pub fn keep_as_upload(mut self, robots: &[String]) {
        let cost = std::mem::take(&mut self.cost);
        let mut accounts = release(&self.accounts, &self.key, cost);
        let mine = accounts.robots.entry(self.key.clone()).or_default();
        for (i, robot) in robots.iter().enumerate() {
            mine.insert(robot.clone(), RobotCost { upload: cost.share(robots.len() as u64, i == 0), program: 0 });
        }
    }

    /// The program is in: its bytes replace robot `robot`'s program's.
    pub fn keep_as_program(mut self, robot: &str) {
        let cost = std::mem::take(&mut self.cost);
        let mut accounts = release(&self.accounts, &self.key, cost);
        accounts.robots.entry(self.key.clone()).or_default().entry(robot.to_owned()).or_default().program = cost.files;
    }
}

/// Takes `cost` out of `key`'s pending one.
fn release<'a>(accounts: &'a Mutex<Accounts>, key: &(String, UserId), cost: Cost) -> MutexGuard<'a, Accounts> {
    let mut accounts = accounts.lock().expect("budget lock");
    if let Some(pending) = accounts.pending.get_mut(key) {
        *pending = pending.minus(cost);
    }
    accounts
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // A kept reservation has nothing left to give back.
        if self.cost != Cost::default() {
            drop(release(&self.accounts, &self.key, self.cost));
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
        budget.reserve("lab", 1, Cost::files(5 * MIB), true).unwrap().keep_as_upload(&["a".into()]);
        budget.reserve("lab", 1, Cost::files(3 * MIB), true).unwrap().keep_as_upload(&["b".into()]);
        assert_eq!(budget.used("lab", 1), STUDENT_UPLOAD_BUDGET_BYTES);
        assert_eq!(
            budget.reserve("lab", 1, Cost::files(1), true).err(),
            Some(OverBudget::Files { used: 8 * MIB, adding: 1 })
        );
        assert_eq!(budget.used("lab", 2), 0, "others are not charged");
        assert_eq!(budget.used("other", 1), 0, "nor other labs");
        budget.robot_removed("lab", 1, "a");
        assert_eq!(budget.used("lab", 1), 3 * MIB);
        budget.reserve("lab", 1, Cost::files(5 * MIB), true).unwrap().keep_as_upload(&["c".into()]);
    }

    #[test]
    fn a_failed_upload_gives_its_reservation_back_and_pending_ones_count() {
        let budget = UploadBudget::default();
        let first = budget.reserve("lab", 1, Cost::files(6 * MIB), true).unwrap();
        assert!(budget.reserve("lab", 1, Cost::files(3 * MIB), true).is_err(), "the one on its way in counts");
        drop(first);
        assert_eq!(budget.used("lab", 1), 0);
        budget.reserve("lab", 1, Cost::files(3 * MIB), true).unwrap().keep_as_upload(&["a".into()]);
        assert_eq!(budget.used("lab", 1), 3 * MIB);
    }

    #[test]
    fn a_program_replaces_the_last_one_and_a_shared_upload_is_split() {
        let budget = UploadBudget::default();
        budget.reserve("lab", 1, Cost::files(3 * MIB + 1), true).unwrap().keep_as_upload(&[
            "a".into(),
            "b".into(),
            "c".into(),
        ]);
        assert_eq!(budget.used("lab", 1), 3 * MIB + 1);
        budget.reserve("lab", 1, Cost::files(MIB), true).unwrap().keep_as_program("a");
        budget.reserve("lab", 1, Cost::files(MIB), true).unwrap().keep_as_program("a");
        assert_eq!(budget.used("lab", 1), 4 * MIB + 1, "the second program replaced the first");
        budget.robot_removed("lab", 1, "a");
        assert_eq!(budget.used("lab", 1), 2 * MIB);
        budget.reserve("lab", 1, Cost::files(100 * MIB), false).unwrap().keep_as_upload(&["d".into()]);
        assert_eq!(budget.used("lab", 1), 102 * MIB, "uploads done again are counted, not refused");
        budget.forget_lab("lab");
        assert_eq!(budget.used("lab", 1), 0);
    }

    #[test]
    fn meshes_have_their_own_budget_shared_like_the_files_and_given_back_with_the_robot() {
        let budget = UploadBudget::default();
        let meshes = |files: u64, meshes: u64| Cost { files, meshes };
        budget.reserve("lab", 1, meshes(MIB, 20 * MIB + 1), true).unwrap().keep_as_upload(&["a".into(), "b".into()]);
        budget.reserve("lab", 1, meshes(MIB, 12 * MIB - 1), true).unwrap().keep_as_upload(&["c".into()]);
        assert_eq!(budget.meshes_used("lab", 1), STUDENT_MESH_BUDGET_BYTES, "the last byte of the budget");
        assert_eq!(budget.used("lab", 1), 2 * MIB, "the files' budget is apart");
        assert_eq!(
            budget.reserve("lab", 1, meshes(0, 1), true).err(),
            Some(OverBudget::Meshes { used: 32 * MIB, adding: 1 })
        );
        assert!(budget.reserve("lab", 1, Cost::files(MIB), true).is_ok(), "a program draws nothing");
        budget.robot_removed("lab", 1, "b");
        assert_eq!(budget.meshes_used("lab", 1), 22 * MIB, "b's half of the first upload (its rest went to a)");
        budget.reserve("lab", 1, meshes(0, 10 * MIB), true).unwrap().keep_as_upload(&["d".into()]);
        assert!(budget.reserve("lab", 1, meshes(0, 1), true).is_err());
        let message = OverBudget::Meshes { used: 32 * MIB, adding: MIB }.to_string();
        assert!(message.contains("use meshes with fewer triangles"), "{message}");
        assert!(message.contains("take 32.0 MiB to draw") && message.contains("at most 32.0 MiB"), "{message}");
    }

    #[test]
    fn a_mesh_counts_its_bytes_and_at_least_its_draw_call() {
        let mesh = |positions: usize| vlab_protocol::TriangleMesh {
            positions: vec![[0.0; 3]; positions],
            normals: None,
            indices: None,
            uvs: None,
            colors: None,
            transform: vlab_protocol::IDENTITY,
        };
        let small = vlab_protocol::encode_triangles(&[mesh(3), mesh(3)]).unwrap();
        assert_eq!(mesh_cost(&small), 2 * MIN_BYTES_PER_MESH, "two draw calls");
        let large = vlab_protocol::encode_triangles(&[mesh(30_000)]).unwrap();
        assert_eq!(mesh_cost(&large), large.len() as u64, "its bytes");
        assert!(large.len() as u64 > MIN_BYTES_PER_MESH);
        assert_eq!(STUDENT_MESH_BUDGET_BYTES / MIN_BYTES_PER_MESH, 1024, "the documented number of meshes");
    }
}
