//! The PostgreSQL schema and how a database is brought up to it: each part (the store,
//! the attempts, the recordings) has its row in `schema_version` and its numbered
//! steps, applied in one transaction under an advisory lock, so servers opening the
//! same database at once apply each step once.

use super::client::Pg;
use crate::store::StoreError;

/// The advisory lock every migration takes (any number, the same in every server).
const MIGRATION_LOCK: i64 = 0x766c_6162; // "vlab"

/// Step 1 of the store: what SQLite's schema version 7 holds; step 2, its version 8
/// (each lab's last checkpoint). Integers are BIGINT (ids,
/// seeds' bits, Unix seconds), booleans BOOLEAN, files BYTEA.
pub const STORE_STEPS: &[&str] = &[
    "
    CREATE TABLE labs (
        id                TEXT PRIMARY KEY,
        name              TEXT NOT NULL,
        instructor_digest TEXT NOT NULL,
        seed              BIGINT NOT NULL,
        created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
        join_code         TEXT NOT NULL DEFAULT '',
        scene_kind        TEXT NOT NULL DEFAULT 'demo',
        scene_text        TEXT NOT NULL DEFAULT '',
        settings          TEXT NOT NULL DEFAULT '',
        closed            BOOLEAN NOT NULL DEFAULT FALSE
    );
    CREATE TABLE sessions (
        lab          TEXT NOT NULL REFERENCES labs(id),
        user_id      BIGINT NOT NULL,
        name         TEXT NOT NULL,
        token_digest TEXT NOT NULL,
        PRIMARY KEY (lab, user_id)
    );
    CREATE TABLE insertions (
        seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        lab         TEXT NOT NULL,
        kind        TEXT NOT NULL,
        owner_id    BIGINT,
        owner_name  TEXT,
        main_name   TEXT NOT NULL DEFAULT '',
        main_text   TEXT NOT NULL DEFAULT '',
        files       TEXT NOT NULL DEFAULT '{}',
        robot       TEXT NOT NULL DEFAULT '',
        program     TEXT,
        only_robots TEXT
    );
    CREATE INDEX insertions_by_lab ON insertions (lab, seq);
    CREATE TABLE insertion_assets (
        seq   BIGINT NOT NULL REFERENCES insertions(seq),
        name  TEXT NOT NULL,
        bytes BYTEA NOT NULL,
        PRIMARY KEY (seq, name)
    );
    CREATE TABLE classes (
        id             TEXT PRIMARY KEY,
        name           TEXT NOT NULL,
        code           TEXT NOT NULL UNIQUE,
        teacher_digest TEXT NOT NULL,
        created_at     BIGINT NOT NULL
    );
    CREATE TABLE students (
        class       TEXT NOT NULL REFERENCES classes(id),
        id          BIGINT NOT NULL,
        name        TEXT NOT NULL,
        pin_digest  TEXT,
        link_digest TEXT,
        removed     BOOLEAN NOT NULL DEFAULT FALSE,
        PRIMARY KEY (class, id)
    );
    CREATE TABLE class_sessions (
        digest     TEXT PRIMARY KEY,
        class      TEXT NOT NULL,
        student    BIGINT NOT NULL,
        created_at BIGINT NOT NULL
    );
    CREATE TABLE class_labs (
        lab   TEXT PRIMARY KEY,
        class TEXT NOT NULL
    );
    CREATE TABLE class_lab_members (
        lab     TEXT NOT NULL,
        student BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        PRIMARY KEY (lab, student)
    );
    CREATE TABLE assignments (
        id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        class           TEXT NOT NULL,
        title           TEXT NOT NULL,
        challenge       TEXT NOT NULL,
        challenge_title TEXT NOT NULL,
        robot           TEXT NOT NULL,
        points          DOUBLE PRECISION NOT NULL,
        opens_at        BIGINT NOT NULL,
        due_at          BIGINT,
        seeds           TEXT NOT NULL,
        students        TEXT,
        version         BIGINT NOT NULL DEFAULT 1,
        score_rule      TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE submissions (
        id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        assignment   BIGINT NOT NULL REFERENCES assignments(id),
        student      BIGINT NOT NULL,
        submitted_at BIGINT NOT NULL,
        late         BOOLEAN NOT NULL,
        main_name    TEXT NOT NULL
    );
    CREATE TABLE submission_files (
        submission BIGINT NOT NULL REFERENCES submissions(id),
        name       TEXT NOT NULL,
        bytes      BYTEA NOT NULL,
        PRIMARY KEY (submission, name)
    );
    CREATE TABLE evaluations (
        id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        submission BIGINT NOT NULL REFERENCES submissions(id),
        version    BIGINT NOT NULL,
        challenge  TEXT NOT NULL,
        robot      TEXT NOT NULL,
        points     DOUBLE PRECISION NOT NULL,
        started_at BIGINT NOT NULL,
        status     TEXT NOT NULL,
        grade      DOUBLE PRECISION,
        reason     TEXT,
        trials     TEXT NOT NULL
    );
    CREATE TABLE trial_replays (
        evaluation BIGINT NOT NULL REFERENCES evaluations(id),
        number     BIGINT NOT NULL,
        replay     BYTEA NOT NULL,
        PRIMARY KEY (evaluation, number)
    );
    CREATE INDEX submissions_by_assignment ON submissions (assignment, student);
    CREATE INDEX evaluations_by_submission ON evaluations (submission);
    CREATE INDEX evaluations_by_status ON evaluations (status);
    CREATE INDEX assignments_by_class ON assignments (class);
",
    "
    CREATE TABLE lab_checkpoints (
        lab        TEXT PRIMARY KEY,
        step       BIGINT NOT NULL,
        checkpoint TEXT NOT NULL
    );
",
];

/// Step 1 of the attempts: SQLite's attempts file, version 1. Step 2: the sequence every
/// server sharing the database numbers attempts from (`PgAttemptStore::next_id`), going
/// on after the highest attempt kept.
pub const ATTEMPT_STEPS: &[&str] = &[
    "
    CREATE TABLE attempts (
        id        BIGINT PRIMARY KEY,
        lab       TEXT NOT NULL,
        robot     TEXT NOT NULL,
        user_id   BIGINT NOT NULL,
        name      TEXT NOT NULL,
        challenge TEXT NOT NULL,
        seed      TEXT NOT NULL,
        status    TEXT NOT NULL,
        reason    TEXT,
        score     DOUBLE PRECISION,
        sim_secs  DOUBLE PRECISION NOT NULL,
        console   TEXT NOT NULL
    );
    CREATE INDEX attempts_by_lab ON attempts (lab, user_id, id);
    CREATE TABLE attempt_replays (
        id    BIGINT PRIMARY KEY REFERENCES attempts(id),
        bytes BYTEA NOT NULL
    );
",
    "
    CREATE SEQUENCE attempt_ids;
    SELECT setval('attempt_ids', COALESCE((SELECT MAX(id) FROM attempts), 0) + 1, false);
",
];

/// Step 1 of the recordings: SQLite's recordings file, version 2.
pub const RECORDING_STEPS: &[&str] = &["
    CREATE TABLE chunks (
        id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        lab        TEXT NOT NULL,
        run        BIGINT NOT NULL,
        epoch      BIGINT NOT NULL,
        first_step BIGINT NOT NULL,
        last_step  BIGINT NOT NULL,
        first_time DOUBLE PRECISION NOT NULL,
        last_time  DOUBLE PRECISION NOT NULL,
        trails     TEXT NOT NULL,
        bytes      BIGINT NOT NULL,
        data       BYTEA NOT NULL
    );
    CREATE INDEX chunks_by_step ON chunks (lab, run, first_step);
    CREATE INDEX chunks_by_epoch ON chunks (lab, run, epoch);
    CREATE TABLE scenes (
        lab      TEXT NOT NULL,
        run      BIGINT NOT NULL,
        epoch    BIGINT NOT NULL,
        snapshot TEXT NOT NULL,
        bytes    BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (lab, run, epoch)
    );
"];

/// Brings part `part` of the database up to `steps.len()`, in one transaction under
/// the migration lock.
pub fn migrate(pg: &Pg, part: &str, steps: &[&str]) -> Result<(), StoreError> {
    migrate_to(pg, part, steps, steps.len())
}

/// Brings part `part` up to version `target` (tests of the steps use a lower one).
pub fn migrate_to(pg: &Pg, part: &str, steps: &[&str], target: usize) -> Result<(), StoreError> {
    pg.transaction(|pg| {
        // Held to the transaction's end: a second server waits here, then finds the
        // steps done.
        pg.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        pg.batch("CREATE TABLE IF NOT EXISTS schema_version (part TEXT PRIMARY KEY, version BIGINT NOT NULL)")?;
        let version = match pg.query_opt("SELECT version FROM schema_version WHERE part = $1", &[&part])? {
            Some(row) => pg.get::<i64>(&row, 0)?,
            None => 0,
        };
        if version > steps.len() as i64 {
            return Err(StoreError::TooNew { path: format!("{} ({part})", pg.shown()), found: version });
        }
        for step in steps.iter().take(target).skip(version as usize) {
            pg.batch(step)?;
        }
        if (version as usize) < target {
            pg.execute(
                "INSERT INTO schema_version (part, version) VALUES ($1, $2)
                 ON CONFLICT (part) DO UPDATE SET version = $2",
                &[&part, &(target as i64)],
            )?;
        }
        Ok(())
    })
}
