//! The database's schema and how an older file is brought up to it, one numbered step
//! at a time (`PRAGMA user_version` says which steps a file has had).

use rusqlite::params;

use super::{SCHEMA_VERSION, SqliteStore, StoreError};
use vlab_lab::secret::TokenDigest;

/// Step 6: a course (docs/classroom.md, "Running a course"). Classes with their teacher
/// (a token's digest) and code; students on a roster (PINs and one-time links as
/// digests, removed ones kept so their grades stay readable); class sessions (digests);
/// the labs a class owns and who each of its students is in each; assignments (their
/// hidden trials' seeds as JSON); submissions with their files; evaluations (their trials
/// as JSON, with the challenge, robot and points they ran for) and each trial's replay
/// (zstd-compressed JSON). Times are Unix seconds.
const COURSE_TABLES: &str = "BEGIN;
     CREATE TABLE IF NOT EXISTS classes (
         id             TEXT PRIMARY KEY,
         name           TEXT NOT NULL,
         code           TEXT NOT NULL UNIQUE,
         teacher_digest TEXT NOT NULL,
         created_at     INTEGER NOT NULL
     );
     CREATE TABLE IF NOT EXISTS students (
         class       TEXT NOT NULL REFERENCES classes(id),
         id          INTEGER NOT NULL,
         name        TEXT NOT NULL,
         pin_digest  TEXT,
         link_digest TEXT,
         removed     INTEGER NOT NULL DEFAULT 0,
         PRIMARY KEY (class, id)
     );
     CREATE TABLE IF NOT EXISTS class_sessions (
         digest     TEXT PRIMARY KEY,
         class      TEXT NOT NULL,
         student    INTEGER NOT NULL,
         created_at INTEGER NOT NULL
     );
     CREATE TABLE IF NOT EXISTS class_labs (
         lab   TEXT PRIMARY KEY,
         class TEXT NOT NULL
     );
     CREATE TABLE IF NOT EXISTS class_lab_members (
         lab     TEXT NOT NULL,
         student INTEGER NOT NULL,
         user_id INTEGER NOT NULL,
         PRIMARY KEY (lab, student)
     );
     CREATE TABLE IF NOT EXISTS assignments (
         id              INTEGER PRIMARY KEY AUTOINCREMENT,
         class           TEXT NOT NULL,
         title           TEXT NOT NULL,
         challenge       TEXT NOT NULL,
         challenge_title TEXT NOT NULL,
         robot           TEXT NOT NULL,
         points          REAL NOT NULL,
         opens_at        INTEGER NOT NULL,
         due_at          INTEGER,
         seeds           TEXT NOT NULL,
         students        TEXT,
         version         INTEGER NOT NULL DEFAULT 1
     );
     CREATE TABLE IF NOT EXISTS submissions (
         id           INTEGER PRIMARY KEY AUTOINCREMENT,
         assignment   INTEGER NOT NULL REFERENCES assignments(id),
         student      INTEGER NOT NULL,
         submitted_at INTEGER NOT NULL,
         late         INTEGER NOT NULL,
         main_name    TEXT NOT NULL
     );
     CREATE TABLE IF NOT EXISTS submission_files (
         submission INTEGER NOT NULL REFERENCES submissions(id),
         name       TEXT NOT NULL,
         bytes      BLOB NOT NULL,
         PRIMARY KEY (submission, name)
     );
     CREATE TABLE IF NOT EXISTS evaluations (
         id         INTEGER PRIMARY KEY AUTOINCREMENT,
         submission INTEGER NOT NULL REFERENCES submissions(id),
         version    INTEGER NOT NULL,
         challenge  TEXT NOT NULL,
         robot      TEXT NOT NULL,
         points     REAL NOT NULL,
         started_at INTEGER NOT NULL,
         status     TEXT NOT NULL,
         grade      REAL,
         reason     TEXT,
         trials     TEXT NOT NULL
     );
     CREATE TABLE IF NOT EXISTS trial_replays (
         evaluation INTEGER NOT NULL REFERENCES evaluations(id),
         number     INTEGER NOT NULL,
         replay     BLOB NOT NULL,
         PRIMARY KEY (evaluation, number)
     );
     CREATE INDEX IF NOT EXISTS submissions_by_assignment ON submissions (assignment, student);
     CREATE INDEX IF NOT EXISTS evaluations_by_submission ON evaluations (submission);
     CREATE INDEX IF NOT EXISTS evaluations_by_status ON evaluations (status);
     CREATE INDEX IF NOT EXISTS assignments_by_class ON assignments (class);
     PRAGMA user_version = 6;
     COMMIT;";

/// Step 8: each lab's last checkpoint (`vlab_lab::resume::KeptCheckpoint` as JSON).
const CHECKPOINT_TABLE: &str = "BEGIN;
     CREATE TABLE IF NOT EXISTS lab_checkpoints (
         lab        TEXT PRIMARY KEY,
         step       INTEGER NOT NULL,
         checkpoint TEXT NOT NULL
     );
     PRAGMA user_version = 8;
     COMMIT;";

impl SqliteStore {
    /// Brings the file up to [`SCHEMA_VERSION`].
    pub(super) fn migrate(&mut self) -> Result<(), StoreError> {
        self.migrate_to(SCHEMA_VERSION)
    }

    /// Brings the file up to version `target` (an older one: tests of the steps).
    pub(super) fn migrate_to(&mut self, target: i64) -> Result<(), StoreError> {
        let version: i64 =
            self.connection.query_row("PRAGMA user_version", [], |row| row.get(0)).map_err(self.sqlite())?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::TooNew { path: self.path.clone(), found: version });
        }
        if version < 1 && target >= 1 {
            self.connection
                .execute_batch(
                    "BEGIN;
                     CREATE TABLE IF NOT EXISTS labs (
                         id               TEXT PRIMARY KEY,
                         name             TEXT NOT NULL,
                         instructor_token TEXT NOT NULL,
                         seed             INTEGER NOT NULL,
                         created_at       TEXT NOT NULL DEFAULT (datetime('now'))
                     );
                     PRAGMA user_version = 1;
                     COMMIT;",
                )
                .map_err(self.sqlite())?;
        }
        if version < 2 && target >= 2 {
            self.connection
                .execute_batch(
                    "BEGIN;
                     ALTER TABLE labs ADD COLUMN join_code TEXT NOT NULL DEFAULT '';
                     ALTER TABLE labs ADD COLUMN scene_kind TEXT NOT NULL DEFAULT 'demo';
                     ALTER TABLE labs ADD COLUMN scene_text TEXT NOT NULL DEFAULT '';
                     ALTER TABLE labs ADD COLUMN settings TEXT NOT NULL DEFAULT '';
                     ALTER TABLE labs ADD COLUMN closed INTEGER NOT NULL DEFAULT 0;
                     CREATE TABLE IF NOT EXISTS sessions (
                         lab     TEXT NOT NULL REFERENCES labs(id),
                         user_id INTEGER NOT NULL,
                         name    TEXT NOT NULL,
                         token   TEXT NOT NULL,
                         PRIMARY KEY (lab, user_id)
                     );
                     PRAGMA user_version = 2;
                     COMMIT;",
                )
                .map_err(self.sqlite())?;
        }
        if version < 3 && target >= 3 {
            self.connection
                .execute_batch(
                    "BEGIN;
                     CREATE TABLE IF NOT EXISTS insertions (
                         seq        INTEGER PRIMARY KEY AUTOINCREMENT,
                         lab        TEXT NOT NULL,
                         kind       TEXT NOT NULL,
                         owner_id   INTEGER,
                         owner_name TEXT,
                         main_name  TEXT NOT NULL DEFAULT '',
                         main_text  TEXT NOT NULL DEFAULT '',
                         files      TEXT NOT NULL DEFAULT '{}',
                         robot      TEXT NOT NULL DEFAULT ''
                     );
                     CREATE TABLE IF NOT EXISTS insertion_assets (
                         seq   INTEGER NOT NULL REFERENCES insertions(seq),
                         name  TEXT NOT NULL,
                         bytes BLOB NOT NULL,
                         PRIMARY KEY (seq, name)
                     );
                     PRAGMA user_version = 3;
                     COMMIT;",
                )
                .map_err(self.sqlite())?;
        }
        if version < 4 && target >= 4 {
            // The program field of a robot upload; a 'program' row replaces a robot's
            // program (its files in `files`, its modules in `insertion_assets`).
            self.connection
                .execute_batch(
                    "BEGIN;
                     ALTER TABLE insertions ADD COLUMN program TEXT;
                     PRAGMA user_version = 4;
                     COMMIT;",
                )
                .map_err(self.sqlite())?;
        }
        if version < 5 && target >= 5 {
            self.hash_tokens()?;
        }
        if version < 6 && target >= 6 {
            self.connection.execute_batch(COURSE_TABLES).map_err(self.sqlite())?;
        }
        if version < 7 && target >= 7 {
            // Step 7: an assignment keeps its challenge's score rule in words, so its
            // trials' scores are shown with their unit.
            self.connection
                .execute_batch(
                    "BEGIN;
                     ALTER TABLE assignments ADD COLUMN score_rule TEXT NOT NULL DEFAULT '';
                     PRAGMA user_version = 7;
                     COMMIT;",
                )
                .map_err(self.sqlite())?;
        }
        if version < 8 && target >= 8 {
            // Step 8: each lab's last checkpoint (its step and moving bodies, as JSON),
            // which a lab opened again goes on from.
            self.connection.execute_batch(CHECKPOINT_TABLE).map_err(self.sqlite())?;
        }
        Ok(())
    }

    /// Step 5: tokens kept as digests (the demo lab's, the server key, saved to the key
    /// file first so the operator can still print it); uploads that add only robots
    /// list them, so removing them all lets the upload go; and the file shrinks when
    /// they go (incremental auto-vacuum, which only a `VACUUM` can switch on).
    fn hash_tokens(&mut self) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = move |source| StoreError::Sqlite { path: path.clone(), source };
        let demo: Option<String> =
            self.connection.query_row("SELECT instructor_token FROM labs WHERE id = 'demo'", [], |r| r.get(0)).ok();
        if let Some(token) = demo.filter(|t| !t.is_empty())
            && self.server_key()?.is_none()
        {
            self.save_server_key(&token)?;
        }
        let transaction = self.connection.transaction().map_err(&sqlite)?;
        transaction
            .execute_batch(
                "ALTER TABLE labs RENAME COLUMN instructor_token TO instructor_digest;
                 ALTER TABLE sessions RENAME COLUMN token TO token_digest;
                 ALTER TABLE insertions ADD COLUMN only_robots TEXT;",
            )
            .map_err(&sqlite)?;
        let digest = |token: String| TokenDigest::of(&token).to_hex();
        let labs: Vec<(String, String)> = transaction
            .prepare("SELECT id, instructor_digest FROM labs")
            .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
            .map_err(&sqlite)?;
        for (id, token) in labs {
            transaction
                .execute("UPDATE labs SET instructor_digest = ?2 WHERE id = ?1", params![id, digest(token)])
                .map_err(&sqlite)?;
        }
        let sessions: Vec<(String, u32, String)> = transaction
            .prepare("SELECT lab, user_id, token_digest FROM sessions")
            .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect())
            .map_err(&sqlite)?;
        for (lab, user, token) in sessions {
            transaction
                .execute(
                    "UPDATE sessions SET token_digest = ?3 WHERE lab = ?1 AND user_id = ?2",
                    params![lab, user, digest(token)],
                )
                .map_err(&sqlite)?;
        }
        transaction.execute_batch("PRAGMA user_version = 5;").map_err(&sqlite)?;
        transaction.commit().map_err(&sqlite)?;
        // Rewrites the whole file: no page keeps a token in clear, and auto-vacuum takes.
        self.connection.execute_batch("PRAGMA auto_vacuum = INCREMENTAL; VACUUM;").map_err(self.sqlite())
    }
}
