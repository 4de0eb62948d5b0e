//! The seam between the classroom and the database it runs on: [`Store`],
//! [`AttemptStore`] and [`RecordingStore`] are each an enum of a SQLite backend (a file,
//! the default) and a PostgreSQL one (`postgres://…`), every method forwarded to the
//! backend that holds the data. The classroom holds and calls them as before and never
//! asks which database it has.
//!
//! An enum rather than a trait object: both backends are known here, the methods stay
//! inherent (call sites, closures over `&mut Store` and tests unchanged), and a method
//! one backend lacks fails to compile in [`forward!`]'s list instead of at run time.

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use vlab_lab::secret::TokenDigest;
use vlab_protocol::{EvaluationStatus, RecordedTrail, RunSummary, StudentId, Trial, UserId};

use super::postgres::{self, PgAttemptStore, PgRecordingStore, PgStore};
use super::{
    AssignmentRecord, AttemptRow, ChunkRow, ClassRecord, EvaluationRecord, Insertion, LabRecord, SessionRecord,
    SqliteAttemptStore, SqliteRecordingStore, SqliteStore, StoreError, StudentRecord, SubmissionRecord,
};

/// Forwards each listed method of `$seam` to its `Sqlite` or `Postgres` backend.
macro_rules! forward {
    ($seam:ident {
        $( $(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty; )*
        mut:
        $( $(#[$mdoc:meta])* fn $mname:ident(&mut self $(, $marg:ident: $mty:ty)*) -> $mret:ty; )*
    }) => {
        impl $seam {
            $(
                $(#[$doc])*
                pub fn $name(&self $(, $arg: $ty)*) -> Result<$ret, StoreError> {
                    match self {
                        $seam::Sqlite(store) => store.$name($($arg),*),
                        $seam::Postgres(store) => store.$name($($arg),*),
                    }
                }
            )*
            $(
                $(#[$mdoc])*
                pub fn $mname(&mut self $(, $marg: $mty)*) -> Result<$mret, StoreError> {
                    match self {
                        $seam::Sqlite(store) => store.$mname($($marg),*),
                        $seam::Postgres(store) => store.$mname($($marg),*),
                    }
                }
            )*
        }
    };
}

/// Which database a server keeps its data in, as `--db` names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// A SQLite file; the attempts, the recordings and the key in files beside it.
    Sqlite(PathBuf),
    /// A PostgreSQL URL (`postgres://` or `postgresql://`); everything in that database
    /// but the key, which stays in a file of the server's.
    Postgres(String),
}

impl Database {
    /// `db` read: a URL of PostgreSQL's, else a SQLite file's path.
    pub fn parse(db: &str) -> Database {
        if postgres::is_url(db) { Database::Postgres(db.to_owned()) } else { Database::Sqlite(PathBuf::from(db)) }
    }
}

impl std::fmt::Display for Database {
    /// The database as shown to people: a path, or the URL without its password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Sqlite(path) => write!(f, "{}", path.display()),
            Database::Postgres(url) => match url.parse::<tokio_postgres::Config>() {
                Ok(config) => f.write_str(&postgres::client::shown(&config)),
                Err(_) => f.write_str("postgres://…"),
            },
        }
    }
}

/// The server's database: labs, sessions, the labs' logs, the course.
pub enum Store {
    /// A SQLite file (or memory).
    Sqlite(SqliteStore),
    /// A PostgreSQL database.
    Postgres(PgStore),
}

impl Store {
    /// Opens (creating if needed) the SQLite database at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        SqliteStore::open(path).map(Store::Sqlite)
    }

    /// An in-memory SQLite database (tests, servers that keep nothing).
    pub fn in_memory() -> Result<Store, StoreError> {
        SqliteStore::in_memory().map(Store::Sqlite)
    }

    /// Opens `database`; on PostgreSQL the server key is kept in `key_file`.
    pub fn open_database(database: &Database, key_file: &Path) -> Result<Store, StoreError> {
        match database {
            Database::Sqlite(path) => Store::open(path),
            Database::Postgres(url) => PgStore::open(url, key_file.to_owned()).map(Store::Postgres),
        }
    }
}

forward!(Store {
    /// Whether the database answers.
    fn health(&self) -> ();
    /// The server key as last saved, if any.
    fn server_key(&self) -> Option<String>;
    /// Every lab that was not closed.
    fn open_labs(&self) -> Vec<LabRecord>;
    /// Marks a lab closed: it is not opened again at the next start.
    fn close_lab(&self, id: &str) -> ();
    /// Keeps lab `lab`'s last checkpoint (taken at `step`, as JSON).
    fn save_checkpoint(&self, lab: &str, step: u64, checkpoint: &str) -> ();
    /// Lab `lab`'s last kept checkpoint, as JSON, if any.
    fn checkpoint(&self, lab: &str) -> Option<String>;
    /// Changes a lab's settings.
    fn save_settings(&self, id: &str, settings_json: &str) -> ();
    /// Stores a student's session.
    fn save_session(&self, session: &SessionRecord) -> ();
    /// Changes a lab's join code.
    fn save_join_code(&self, id: &str, join_code: &str) -> ();
    /// The sessions of a lab, by user id.
    fn sessions(&self, lab: &str) -> Vec<SessionRecord>;
    /// The lab with this id, if stored.
    fn lab(&self, id: &str) -> Option<LabRecord>;
    /// Stores a lab, replacing any with the same id (and opening it again if closed).
    fn save_lab(&self, lab: &LabRecord) -> ();
    /// What was done to lab `lab`'s scene, in order, each with its sequence number.
    fn insertions(&self, lab: &str) -> Vec<(i64, Insertion)>;
    /// Notes that upload `seq` added robots `names` and nothing else.
    fn note_only_robots(&self, seq: i64, names: &[String]) -> ();
    /// Keeps a new class.
    fn save_class(&self, class: &ClassRecord, created_at: i64) -> ();
    /// Every class, oldest first.
    fn classes(&self) -> Vec<ClassRecord>;
    /// Class `class`'s roster, removed students included, by id.
    fn students(&self, class: &str) -> Vec<StudentRecord>;
    /// Adds or changes a student of class `class`.
    fn save_student(&self, class: &str, student: &StudentRecord) -> ();
    /// Keeps a class session.
    fn save_class_session(&self, class: &str, student: StudentId, digest: TokenDigest, at: i64) -> ();
    /// Every class session: (class, student, digest).
    fn class_sessions(&self) -> Vec<(String, StudentId, TokenDigest)>;
    /// Lab `lab` belongs to class `class`.
    fn save_class_lab(&self, class: &str, lab: &str) -> ();
    /// Every lab that belongs to a class: (lab, class).
    fn class_labs(&self) -> Vec<(String, String)>;
    /// Who student `student` is in lab `lab`, if she entered it before.
    fn lab_member(&self, lab: &str, student: StudentId) -> Option<u32>;
    /// Renames participant `user` of lab `lab`.
    fn rename_session(&self, lab: &str, user: u32, name: &str) -> ();
    /// Every member of lab `lab` who came from its class: (student, participant id).
    fn lab_members(&self, lab: &str) -> Vec<(StudentId, u32)>;
    /// Keeps a new assignment; returns its id.
    fn save_assignment(&self, assignment: &AssignmentRecord) -> i64;
    /// Changes a kept assignment.
    fn update_assignment(&self, assignment: &AssignmentRecord) -> ();
    /// Class `class`'s assignments, oldest first.
    fn assignments(&self, class: &str) -> Vec<AssignmentRecord>;
    /// Assignment `id`, of any class.
    fn assignment(&self, id: i64) -> Option<AssignmentRecord>;
    /// Assignment `assignment`'s submissions (of `student` only, if given), oldest first.
    fn submissions(&self, assignment: i64, student: Option<StudentId>) -> Vec<SubmissionRecord>;
    /// Submission `id`.
    fn submission(&self, id: i64) -> Option<SubmissionRecord>;
    /// Submission `id`'s files, by name.
    fn submission_files(&self, id: i64) -> Vec<(String, Vec<u8>)>;
    /// Keeps a new evaluation of a kept submission; returns its id.
    fn save_evaluation(&self, evaluation: &EvaluationRecord) -> i64;
    /// Evaluation `id`.
    fn evaluation(&self, id: i64) -> Option<EvaluationRecord>;
    /// Submission `submission`'s latest evaluation.
    fn latest_evaluation(&self, submission: i64) -> Option<EvaluationRecord>;
    /// Every evaluation not over (queued or running), oldest first, with its class.
    fn unfinished_evaluations(&self) -> Vec<(String, EvaluationRecord)>;
    /// Evaluation `id` is now `status`.
    fn set_evaluation_status(&self, id: i64, status: EvaluationStatus) -> ();
    /// Evaluation `id` is over: `status` (graded or failed), its grade and why it failed.
    fn finish_evaluation(&self, id: i64, status: EvaluationStatus, grade: f64, reason: Option<&str>) -> ();
    /// The JSON of trial `number` of evaluation `id`'s replay, if kept.
    fn trial_replay(&self, id: i64, number: u32) -> Option<Vec<u8>>;
    mut:
    /// Saves the server key to the key file, readable by the server's user only.
    fn save_server_key(&mut self, key: &str) -> ();
    /// Ends student `user`'s session in lab `lab` and records the removal of each of
    /// `robots`, in one transaction; the removals' sequence numbers, in order.
    fn remove_session(&mut self, lab: &str, user: u32, robots: &[String]) -> Vec<i64>;
    /// Changes a student and ends her sessions, in one transaction.
    fn save_student_ending_sessions(&mut self, class: &str, student: &StudentRecord) -> ();
    /// Student `student` entered lab `session.lab` as `session.user`, in one transaction.
    fn save_lab_member(&mut self, student: StudentId, session: &SessionRecord) -> ();
    /// Keeps a submission with its files and its first evaluation, in one transaction.
    fn save_submission(
        &mut self,
        submission: &SubmissionRecord,
        files: &[(String, Vec<u8>)],
        evaluation: &EvaluationRecord
    ) -> (i64, i64);
    /// Trial `trial.number` of evaluation `id` ended, with its replay, in one
    /// transaction; every trial of the evaluation as kept now.
    fn save_trial(&mut self, id: i64, trial: &Trial, replay: Option<&[u8]>) -> Vec<Trial>;
    /// Appends what was done to lab `lab`'s scene; returns its sequence number (to
    /// [`Store::forget_insertion`] it if the lab refuses it after all).
    fn record_insertion(&mut self, lab: &str, insertion: &Insertion) -> i64;
    /// Takes back insertion `seq` (kept before the lab was asked, and refused by it).
    fn forget_insertion(&mut self, seq: i64) -> ();
    /// Forgets what no longer matters in lab `lab`'s log; how many entries went.
    fn compact(&mut self, lab: &str) -> usize;
});

/// Where finished attempts and their replays are kept.
pub enum AttemptStore {
    /// A SQLite file of their own (or memory).
    Sqlite(SqliteAttemptStore),
    /// Tables of their own in the server's PostgreSQL database.
    Postgres(PgAttemptStore),
}

impl AttemptStore {
    /// Opens (or creates) the SQLite file at `path`.
    pub fn open(path: &Path) -> Result<AttemptStore, StoreError> {
        SqliteAttemptStore::open(path).map(AttemptStore::Sqlite)
    }

    /// A store in memory (tests, and servers that keep nothing).
    pub fn in_memory() -> Result<AttemptStore, StoreError> {
        SqliteAttemptStore::in_memory().map(AttemptStore::Sqlite)
    }

    /// The attempts of `database`: the file beside a SQLite one, tables of PostgreSQL's.
    pub fn open_database(database: &Database) -> Result<AttemptStore, StoreError> {
        match database {
            Database::Sqlite(path) => AttemptStore::open(&super::attempts_file_of(path)),
            Database::Postgres(url) => PgAttemptStore::open(url).map(AttemptStore::Postgres),
        }
    }
}

forward!(AttemptStore {
    /// The highest attempt number kept (0 when none is).
    fn last_id(&self) -> u64;
    /// Attempt `id`, if kept.
    fn row(&self, id: u64) -> Option<AttemptRow>;
    /// Lab `lab`'s attempts, newest first; only `user`'s when given.
    fn rows(&self, lab: &str, user: Option<UserId>) -> Vec<AttemptRow>;
    /// The JSON of attempt `id`'s replay, if still kept.
    fn replay(&self, id: u64) -> Option<Vec<u8>>;
    mut:
    /// The number the next attempt takes: never one given before, by this server or by
    /// any other sharing the database.
    fn next_id(&mut self) -> u64;
    /// Keeps a finished attempt and its replay's JSON, then lets the participant's
    /// older replays go.
    fn save(&mut self, row: &AttemptRow, replay_json: Option<&[u8]>) -> ();
});

/// Where labs' recordings are kept.
pub enum RecordingStore {
    /// A SQLite file of their own (or memory).
    Sqlite(SqliteRecordingStore),
    /// Tables of their own in the server's PostgreSQL database.
    Postgres(PgRecordingStore),
}

impl RecordingStore {
    /// Opens (creating if needed) the SQLite recordings file at `path`.
    pub fn open(path: &Path) -> Result<RecordingStore, StoreError> {
        SqliteRecordingStore::open(path).map(RecordingStore::Sqlite)
    }

    /// An in-memory one (a server without a database, tests).
    pub fn in_memory() -> Result<RecordingStore, StoreError> {
        SqliteRecordingStore::in_memory().map(RecordingStore::Sqlite)
    }

    /// The recordings of `database`: the file beside a SQLite one, tables of
    /// PostgreSQL's.
    pub fn open_database(database: &Database) -> Result<RecordingStore, StoreError> {
        match database {
            Database::Sqlite(path) => RecordingStore::open(&super::recordings_file_of(path)),
            Database::Postgres(url) => PgRecordingStore::open(url).map(RecordingStore::Postgres),
        }
    }
}

forward!(RecordingStore {
    /// Keeps a chunk of lab `lab`: its place, its trails (JSON) and its encoded bytes.
    fn keep_chunk(&self, lab: &str, row: &ChunkRow, times: (f64, f64), trails: &[RecordedTrail], data: &[u8]) -> i64;
    /// Keeps the scene snapshot (JSON) of `epoch` in `run` of lab `lab`.
    fn keep_scene(&self, lab: &str, run: u32, epoch: u32, snapshot: &str) -> ();
    /// The bytes lab `lab`'s recording takes (chunks and scenes).
    fn bytes(&self, lab: &str) -> u64;
    /// Drops lab `lab`'s oldest chunks until its recording takes at most `budget`
    /// bytes; how many chunks went.
    fn trim(&self, lab: &str, budget: u64) -> usize;
    /// The chunk of lab `lab`'s run `run` that holds `step`.
    fn chunk_at(&self, lab: &str, run: u32, step: u64) -> Option<(ChunkRow, Vec<u8>)>;
    /// The chunks of lab `lab`'s run `run` that overlap steps `from..=to`, in order.
    fn chunks(&self, lab: &str, run: u32, from: u64, to: u64) -> Vec<(ChunkRow, Vec<u8>)>;
    /// The trails kept with the chunks of lab `lab`'s run `run` that overlap `steps`.
    fn trails(&self, lab: &str, run: u32, steps: RangeInclusive<u64>, longest: u64) -> Vec<RecordedTrail>;
    /// The snapshot JSON of `epoch` in `run` of lab `lab`, if kept.
    fn scene(&self, lab: &str, run: u32, epoch: u32) -> Option<String>;
    /// Every run of lab `lab` still (partly) kept, oldest first.
    fn runs(&self, lab: &str) -> Vec<RunSummary>;
    /// The highest run number lab `lab` has kept (scenes or chunks), if any.
    fn last_run(&self, lab: &str) -> Option<u32>;
    /// Copies chunk `id` into run `to` as it is.
    fn copy_chunk(&self, id: i64, to: u32) -> ();
    /// Copies every scene of lab `lab`'s run `from` into run `to`.
    fn copy_scenes(&self, lab: &str, from: u32, to: u32) -> ();
    /// Forgets everything lab `lab` recorded (the lab was closed).
    fn forget(&self, lab: &str) -> ();
    mut:
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_names_postgresql_and_shows_without_its_password() {
        let database = Database::parse("postgres://vlab:s3cret@db.school.example:5433/labs");
        assert_eq!(database, Database::Postgres("postgres://vlab:s3cret@db.school.example:5433/labs".into()));
        assert_eq!(database.to_string(), "postgres://vlab@db.school.example:5433/labs");
        assert!(matches!(Database::parse("postgresql://h/x"), Database::Postgres(_)));
        assert_eq!(Database::parse("vlab.db"), Database::Sqlite(PathBuf::from("vlab.db")));
        assert_eq!(Database::parse("/var/lib/postgres.db").to_string(), "/var/lib/postgres.db");
    }
}
