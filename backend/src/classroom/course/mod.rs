//! A course over weeks (docs/classroom.md, "Running a course"): classes with their
//! roster, students signed in by class code, name and PIN (or a one-time link), the labs
//! a class owns and who each student is in each, assignments graded over hidden trials,
//! the gradebook and the teacher's overview.
//!
//! Every class lives in memory ([`Course`]) and in the store, written there first: a
//! change the store refuses is not made. In a cluster the other servers change the
//! store too: each change here is told ([`Course::tell_changes_to`]) so that they read
//! the course again ([`Course::reload`]), and what is not found here (a class, a token)
//! is looked for in the store once more before it is refused. A class's teacher is the instructor of every
//! lab of the class (the lab keeps her token's digest); a student's class session is her
//! token in each lab she entered (`Classroom::caller` asks the course when a lab does
//! not know a token).

mod assignments;
mod classes;
mod evaluation;
mod grades;
pub mod leases;
mod lessons;
mod overview;
mod pins;
mod submissions;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

use vlab_protocol::permissions::{Action, Standing};
use vlab_protocol::{StudentId, UserId};

use super::{Classroom, ClassroomError};
use crate::store::{ClassRecord, Store, StoreError, StudentRecord};
use vlab_lab::secret::TokenDigest;

pub use evaluation::{Evaluations, credit, grade};
pub use grades::csv as gradebook_csv;
pub use pins::PinGuard;
pub use submissions::HandIn;

/// Who is calling, to a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassCaller {
    /// Its teacher.
    Teacher,
    /// One of its students, signed in.
    Student(StudentId),
    /// Nobody it knows (no token).
    Nobody,
}

impl ClassCaller {
    /// The caller's standing toward what is student `whose`'s (`None`: the class itself).
    pub fn toward(self, whose: Option<StudentId>) -> Standing {
        match self {
            ClassCaller::Teacher => Standing::in_class(true, None, whose),
            ClassCaller::Student(me) => Standing::in_class(false, Some(me), whose),
            ClassCaller::Nobody => Standing::in_class(false, None, whose),
        }
    }

    /// `Ok` when the permission table lets the caller take `action` on what is
    /// student `whose`'s (`None`: the class as a whole).
    pub fn may(self, action: Action, whose: Option<StudentId>) -> Result<(), ClassroomError> {
        action.check(self.toward(whose)).map_err(|denial| ClassroomError::Denied { action, denial, robot: None })
    }

    /// The student calling, if a student is.
    pub fn student(self) -> Option<StudentId> {
        match self {
            ClassCaller::Student(id) => Some(id),
            _ => None,
        }
    }
}

/// One class as the server holds it.
#[derive(Clone, Debug)]
pub struct ClassState {
    /// As kept.
    pub record: ClassRecord,
    /// Its roster by id, removed students included.
    pub students: BTreeMap<StudentId, StudentRecord>,
    /// Its students' sessions.
    pub sessions: Vec<(TokenDigest, StudentId)>,
}

impl ClassState {
    /// Student `id`, unless removed.
    pub fn student(&self, id: StudentId) -> Option<&StudentRecord> {
        self.students.get(&id).filter(|s| !s.removed)
    }

    /// The students on its roster now.
    pub fn roster(&self) -> impl Iterator<Item = &StudentRecord> {
        self.students.values().filter(|s| !s.removed)
    }
}

/// Every class of the server.
#[derive(Default)]
struct Classes {
    by_id: BTreeMap<String, ClassState>,
    /// The class of each lab that belongs to one.
    lab_class: HashMap<String, String>,
    /// Who each student is in each lab she entered: (lab, student) → participant.
    members: HashMap<(String, StudentId), UserId>,
}

/// The server's classes and where they are kept.
pub struct Course {
    classes: RwLock<Classes>,
    store: Arc<Mutex<Store>>,
    pins: PinGuard,
    /// Told of every change made here (cluster mode); unset on a server alone.
    on_change: OnceLock<OnChange>,
    /// When the course was last read again because something was not found here.
    looked_again: Mutex<Option<Instant>>,
}

/// What is told of a change to the course made on this server.
pub type OnChange = Arc<dyn Fn() + Send + Sync>;

/// What is not found here is looked for in the store again at most this often: a
/// stream of wrong tokens costs the store one reading of the course a second.
const LOOK_AGAIN_EVERY: Duration = Duration::from_secs(1);

impl Course {
    /// The course kept in `store`, read from it.
    pub fn load(store: Arc<Mutex<Store>>) -> Result<Course, StoreError> {
        let classes = Course::read_classes(&store)?;
        Ok(Course {
            classes: RwLock::new(classes),
            store,
            pins: PinGuard::default(),
            on_change: OnceLock::new(),
            looked_again: Mutex::new(None),
        })
    }

    /// Cluster mode: `tell` is called after each change made here, and what is not
    /// found here is looked for in the store again. Set once; later calls are ignored.
    pub fn tell_changes_to(&self, tell: OnChange) {
        let _ = self.on_change.set(tell);
    }

    /// Reads the course from the store again (another server changed it).
    pub fn reload(&self) -> Result<(), StoreError> {
        let fresh = Course::read_classes(&self.store)?;
        *self.classes.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = fresh;
        Ok(())
    }

    /// `find` in the course; in cluster mode, when it finds nothing, once more after
    /// reading the course again (at most once per [`LOOK_AGAIN_EVERY`]).
    fn find<T>(&self, find: impl Fn(&Classes) -> Option<T>) -> Option<T> {
        if let Some(found) = find(&self.read()) {
            return Some(found);
        }
        if self.on_change.get().is_none() || !self.may_look_again() {
            return None;
        }
        if let Err(error) = self.reload() {
            tracing::warn!(%error, "the course could not be read again");
        }
        find(&self.read())
    }

    fn may_look_again(&self) -> bool {
        let mut last = self.looked_again.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if last.is_some_and(|at| at.elapsed() < LOOK_AGAIN_EVERY) {
            return false;
        }
        *last = Some(Instant::now());
        true
    }

    fn read_classes(store: &Mutex<Store>) -> Result<Classes, StoreError> {
        let mut classes = Classes::default();
        {
            let store = store.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            for record in store.classes()? {
                let students = store.students(&record.id)?.into_iter().map(|s| (s.id, s)).collect();
                classes.by_id.insert(record.id.clone(), ClassState { record, students, sessions: Vec::new() });
            }
            for (class, student, digest) in store.class_sessions()? {
                if let Some(state) = classes.by_id.get_mut(&class) {
                    state.sessions.push((digest, student));
                }
            }
            for (lab, class) in store.class_labs()? {
                for (student, user) in store.lab_members(&lab)? {
                    classes.members.insert((lab.clone(), student), user);
                }
                classes.lab_class.insert(lab, class);
            }
        }
        Ok(classes)
    }

    /// Runs `change` on the store: the store's answer decides.
    pub(crate) fn keep<T>(
        &self,
        change: impl FnOnce(&mut Store) -> Result<T, StoreError>,
    ) -> Result<T, ClassroomError> {
        Ok(change(&mut self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))?)
    }

    /// The store, for work that outlives a request (evaluations).
    pub(crate) fn store(&self) -> Arc<Mutex<Store>> {
        Arc::clone(&self.store)
    }

    /// Class `id` as it is now.
    ///
    /// (Also how the network reads who is calling: [`ClassroomCourse::caller`].)
    pub fn class(&self, id: &str) -> Result<ClassState, ClassroomError> {
        self.find(|classes| classes.by_id.get(id).cloned()).ok_or_else(|| no_class(id))
    }

    /// Who the bearer of `token` is to class `class` (no token: nobody). An unknown
    /// token is refused, so a mistyped one is noticed.
    pub fn caller(&self, class: &str, token: Option<&str>) -> Result<ClassCaller, ClassroomError> {
        let token = token.filter(|t| !t.is_empty());
        let digest = token.map(TokenDigest::of);
        // `Some(None)`: the class is here, the token is not (yet: looked for again).
        let look = |classes: &Classes| {
            let state = classes.by_id.get(class)?;
            let Some(token) = token else { return Some(Some(ClassCaller::Nobody)) };
            if state.record.teacher.matches(token) {
                return Some(Some(ClassCaller::Teacher));
            }
            let student = state.sessions.iter().find(|(d, _)| Some(*d) == digest).map(|(_, student)| *student);
            student.map(|student| Some(ClassCaller::Student(student)))
        };
        match self.find(look) {
            Some(Some(caller)) => Ok(caller),
            _ if self.read().by_id.contains_key(class) => {
                Err(ClassroomError::UnknownClassToken { class: class.to_owned() })
            }
            _ => Err(no_class(class)),
        }
    }

    /// The class lab `lab` belongs to, if any.
    pub fn class_of_lab(&self, lab: &str) -> Option<String> {
        self.find(|classes| classes.lab_class.get(lab).cloned())
    }

    /// Who the bearer of `token` is in lab `lab` by her class session: her participant
    /// id there, if the lab belongs to her class and she entered it.
    pub fn lab_member(&self, lab: &str, token: &str) -> Option<UserId> {
        let digest = TokenDigest::of(token);
        self.find(|classes| {
            let class = classes.by_id.get(classes.lab_class.get(lab)?)?;
            let student = class.sessions.iter().find(|(d, _)| *d == digest)?.1;
            classes.members.get(&(lab.to_owned(), student)).copied()
        })
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Classes> {
        self.classes.read().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The classes, to change with what the store keeps. Every change is made through
    /// here: when it is done (the store has kept it), the other servers of a cluster are
    /// told.
    fn write(&self) -> Changing<'_> {
        let classes = self.classes.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        Changing { classes, tell: self.on_change.get() }
    }
}

/// The classes being changed; the change is told when it is done (dropped).
struct Changing<'a> {
    classes: std::sync::RwLockWriteGuard<'a, Classes>,
    tell: Option<&'a OnChange>,
}

impl std::ops::Deref for Changing<'_> {
    type Target = Classes;

    fn deref(&self) -> &Classes {
        &self.classes
    }
}

impl std::ops::DerefMut for Changing<'_> {
    fn deref_mut(&mut self) -> &mut Classes {
        &mut self.classes
    }
}

impl Drop for Changing<'_> {
    fn drop(&mut self) {
        if let Some(tell) = self.tell {
            tell();
        }
    }
}

fn no_class(id: &str) -> ClassroomError {
    ClassroomError::NoClass(format!("no class '{id}' on this server"))
}

/// The classroom's course, for one request.
#[derive(Clone, Copy)]
pub struct ClassroomCourse<'a> {
    pub(super) classroom: &'a Classroom,
}

impl<'a> ClassroomCourse<'a> {
    fn course(self) -> &'a Course {
        &self.classroom.course
    }

    /// Who the bearer of `token` is to class `class`.
    pub fn caller(self, class: &str, token: Option<&str>) -> Result<ClassCaller, ClassroomError> {
        self.course().caller(class, token)
    }

    /// Starts again every evaluation a stopped server left unfinished (at start-up,
    /// with the labs restored); returns how many.
    pub fn resume(self) -> Result<usize, ClassroomError> {
        self.classroom.evaluations.resume()
    }

    /// Cluster mode: every evaluation from now on runs only while this server holds its
    /// lease in `leases`.
    pub fn run_evaluations_under(self, leases: Arc<dyn leases::EvaluationLeases>) {
        self.classroom.evaluations.run_under(leases);
    }

    /// Cluster mode: claims and runs, once, unfinished evaluations no server holds;
    /// returns how many.
    pub async fn take_over_evaluations(self) -> Result<usize, String> {
        self.classroom.evaluations.take_over().await
    }
}

/// Unix seconds now.
pub fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}
