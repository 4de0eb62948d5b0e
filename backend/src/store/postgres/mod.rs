//! The store on PostgreSQL: the same records, semantics and errors as the SQLite store
//! (labs, sessions, the labs' logs with their compaction, the course; the attempts and
//! the recordings in tables of their own in the same database), for servers that share
//! one database (cluster mode) or an operator who keeps the data in PostgreSQL.
//!
//! Through `tokio-postgres` (the rust-postgres project's asynchronous driver): plain
//! SQL as the SQLite store writes it, no database needed to compile (sqlx's checked
//! queries need one) and no macro build cost. Its synchronous callers are served by
//! [`client::Pg`]: every call bounded in time, an unreachable database a
//! [`StoreError::Unavailable`], the connection made again on the next call.
//!
//! What the SQLite mode keeps beside the file stays on the server's disk: the server
//! key in a key file (`--key-file`), compiled programs in their cache folder.

pub mod attempts;
pub mod client;
mod course;
mod log;
pub mod recordings;
pub(in crate::store) mod schema;

use std::path::PathBuf;

use client::Pg;
use vlab_lab::secret::TokenDigest;

use super::{LabRecord, LabScene, SessionRecord, StoreError};

pub use attempts::PgAttemptStore;
pub use recordings::PgRecordingStore;

/// Whether `db` names a PostgreSQL database rather than a SQLite file.
pub fn is_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

/// The server's database on PostgreSQL.
pub struct PgStore {
    pub(in crate::store) pg: Pg,
    key_file: PathBuf,
}

impl PgStore {
    /// Connects to the database at `url`, brings its schema up to date; the server key
    /// is kept in `key_file`.
    pub fn open(url: &str, key_file: PathBuf) -> Result<PgStore, StoreError> {
        let pg = Pg::connect(url)?;
        schema::migrate(&pg, "store", schema::STORE_STEPS)?;
        Ok(PgStore { pg, key_file })
    }

    /// Whether the database answers.
    pub fn health(&self) -> Result<(), StoreError> {
        self.pg.batch("SELECT 1")
    }

    /// The server key as last saved, if any.
    pub fn server_key(&self) -> Result<Option<String>, StoreError> {
        super::read_key_file(&self.key_file)
    }

    /// Saves the server key to the key file, readable by the server's user only.
    pub fn save_server_key(&mut self, key: &str) -> Result<(), StoreError> {
        super::write_key_file(&self.key_file, key)
    }

    /// Every lab that was not closed.
    pub fn open_labs(&self) -> Result<Vec<LabRecord>, StoreError> {
        let rows =
            self.pg.query(&format!("SELECT {LAB_COLUMNS} FROM labs WHERE NOT closed ORDER BY created_at, id"), &[])?;
        rows.iter().map(|row| self.lab_of_row(row)).collect()
    }

    /// Marks a lab closed: it is not opened again at the next start.
    pub fn close_lab(&self, id: &str) -> Result<(), StoreError> {
        // Its checkpoint goes with it: a lab opened again under this id starts afresh.
        self.pg.transaction(|pg| {
            pg.execute("UPDATE labs SET closed = TRUE WHERE id = $1", &[&id])?;
            pg.execute("DELETE FROM lab_checkpoints WHERE lab = $1", &[&id]).map(|_| ())
        })
    }

    /// Keeps lab `lab`'s last checkpoint (taken at `step`, as JSON), replacing the one
    /// before.
    pub fn save_checkpoint(&self, lab: &str, step: u64, checkpoint: &str) -> Result<(), StoreError> {
        self.pg
            .execute(
                "INSERT INTO lab_checkpoints (lab, step, checkpoint) VALUES ($1, $2, $3)
                 ON CONFLICT (lab) DO UPDATE SET step = $2, checkpoint = $3",
                &[&lab, &(step as i64), &checkpoint],
            )
            .map(|_| ())
    }

    /// Lab `lab`'s last kept checkpoint, as JSON, if any.
    pub fn checkpoint(&self, lab: &str) -> Result<Option<String>, StoreError> {
        let row = self.pg.query_opt("SELECT checkpoint FROM lab_checkpoints WHERE lab = $1", &[&lab])?;
        Ok(row.map(|row| row.get(0)))
    }

    /// Changes a lab's settings.
    pub fn save_settings(&self, id: &str, settings_json: &str) -> Result<(), StoreError> {
        self.pg.execute("UPDATE labs SET settings = $2 WHERE id = $1", &[&id, &settings_json]).map(|_| ())
    }

    /// Stores a student's session.
    pub fn save_session(&self, session: &SessionRecord) -> Result<(), StoreError> {
        save_session(&self.pg, session)
    }

    /// Ends a student's session and records the removal of each of her robots, in one
    /// transaction; the removals' sequence numbers.
    pub fn remove_session(&mut self, lab: &str, user: u32, robots: &[String]) -> Result<Vec<i64>, StoreError> {
        self.pg.transaction(|pg| {
            pg.execute("DELETE FROM sessions WHERE lab = $1 AND user_id = $2", &[&lab, &i64::from(user)])?;
            let mut seqs = Vec::with_capacity(robots.len());
            for robot in robots {
                let row = pg.query_one(
                    "INSERT INTO insertions (lab, kind, robot) VALUES ($1, 'removal', $2) RETURNING seq",
                    &[&lab, robot],
                )?;
                seqs.push(pg.get(&row, 0)?);
            }
            Ok(seqs)
        })
    }

    /// Changes a lab's join code.
    pub fn save_join_code(&self, id: &str, join_code: &str) -> Result<(), StoreError> {
        self.pg.execute("UPDATE labs SET join_code = $2 WHERE id = $1", &[&id, &join_code]).map(|_| ())
    }

    /// The sessions of a lab, by user id.
    pub fn sessions(&self, lab: &str) -> Result<Vec<SessionRecord>, StoreError> {
        let rows = self
            .pg
            .query("SELECT lab, user_id, name, token_digest FROM sessions WHERE lab = $1 ORDER BY user_id", &[&lab])?;
        rows.iter()
            .map(|row| {
                Ok(SessionRecord {
                    lab: self.pg.get(row, 0)?,
                    user: self.pg.get::<i64>(row, 1)? as u32,
                    name: self.pg.get(row, 2)?,
                    token: digest_or_none(&self.pg.get::<String>(row, 3)?),
                })
            })
            .collect()
    }

    /// The lab with this id, if stored.
    pub fn lab(&self, id: &str) -> Result<Option<LabRecord>, StoreError> {
        let row = self.pg.query_opt(&format!("SELECT {LAB_COLUMNS} FROM labs WHERE id = $1"), &[&id])?;
        row.map(|row| self.lab_of_row(&row)).transpose()
    }

    /// Stores a lab, replacing any with the same id (and opening it again if closed).
    pub fn save_lab(&self, lab: &LabRecord) -> Result<(), StoreError> {
        let (kind, text) = match &lab.scene {
            LabScene::Demo => ("demo", ""),
            LabScene::Library(name) => ("library", name.as_str()),
            LabScene::Source(text) => ("source", text.as_str()),
        };
        self.pg
            .execute(
                "INSERT INTO labs (id, name, instructor_digest, seed, join_code, scene_kind, scene_text, settings, closed)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, FALSE)
                 ON CONFLICT (id) DO UPDATE SET name = $2, instructor_digest = $3, seed = $4, join_code = $5,
                     scene_kind = $6, scene_text = $7, settings = $8, closed = FALSE",
                &[
                    &lab.id,
                    &lab.name,
                    &lab.instructor.to_hex(),
                    &(lab.seed as i64),
                    &lab.join_code,
                    &kind,
                    &text,
                    &lab.settings_json,
                ],
            )
            .map(|_| ())
    }

    fn lab_of_row(&self, row: &tokio_postgres::Row) -> Result<LabRecord, StoreError> {
        let text: String = self.pg.get(row, 6)?;
        let scene = match self.pg.get::<&str>(row, 5)? {
            "library" => LabScene::Library(text),
            "source" => LabScene::Source(text),
            _ => LabScene::Demo,
        };
        Ok(LabRecord {
            id: self.pg.get(row, 0)?,
            name: self.pg.get(row, 1)?,
            instructor: digest_or_none(&self.pg.get::<String>(row, 2)?),
            seed: self.pg.get::<i64>(row, 3)? as u64,
            join_code: self.pg.get(row, 4)?,
            scene,
            settings_json: self.pg.get(row, 7)?,
        })
    }
}

const LAB_COLUMNS: &str = "id, name, instructor_digest, seed, join_code, scene_kind, scene_text, settings";

fn save_session(pg: &Pg, session: &SessionRecord) -> Result<(), StoreError> {
    pg.execute(
        "INSERT INTO sessions (lab, user_id, name, token_digest) VALUES ($1, $2, $3, $4)
         ON CONFLICT (lab, user_id) DO UPDATE SET name = $3, token_digest = $4",
        &[&session.lab, &i64::from(session.user), &session.name, &session.token.to_hex()],
    )
    .map(|_| ())
}

/// A digest column; a malformed one (edited by hand) matches no token, as in SQLite.
fn digest_or_none(hex: &str) -> TokenDigest {
    TokenDigest::from_hex(hex).unwrap_or_else(|| TokenDigest::of(&vlab_lab::secret::new_token()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_pg::{TestDatabase, with_dbname};

    fn key_file(db: &TestDatabase) -> PathBuf {
        std::env::temp_dir().join(format!("{}.key", db.url.rsplit('/').next().unwrap()))
    }

    #[test]
    fn servers_opening_one_new_database_at_once_migrate_it_once() {
        let db = TestDatabase::create();
        let (url, key) = (db.url.clone(), key_file(&db));
        let opened: Vec<Result<(), String>> = std::thread::scope(|scope| {
            let opens: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        PgStore::open(&url, key.clone()).map(|_| ()).map_err(|e| e.to_string())?;
                        PgAttemptStore::open(&url).map(|_| ()).map_err(|e| e.to_string())?;
                        PgRecordingStore::open(&url).map(|_| ()).map_err(|e| e.to_string())
                    })
                })
                .collect();
            opens.into_iter().map(|open| open.join().unwrap()).collect()
        });
        assert!(opened.iter().all(Result::is_ok), "{opened:?}");
        let store = PgStore::open(&db.url, key_file(&db)).unwrap();
        let versions = store.pg.query("SELECT part, version FROM schema_version ORDER BY part", &[]).unwrap();
        let versions: Vec<(String, i64)> = versions.iter().map(|r| (r.get(0), r.get(1))).collect();
        assert_eq!(versions, vec![("attempts".to_owned(), 2), ("recordings".to_owned(), 1), ("store".to_owned(), 2)]);
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let db = TestDatabase::create();
        let store = PgStore::open(&db.url, key_file(&db)).unwrap();
        store.pg.batch("UPDATE schema_version SET version = 99 WHERE part = 'store'").unwrap();
        assert!(matches!(PgStore::open(&db.url, key_file(&db)), Err(StoreError::TooNew { found: 99, .. })));
    }

    #[test]
    fn an_unreachable_database_is_unavailable_and_the_next_call_connects_again() {
        let db = TestDatabase::create();
        let store = PgStore::open(&db.url, key_file(&db)).unwrap();
        let name = db.url.rsplit('/').next().unwrap().to_owned();
        let admin = Pg::connect(&with_dbname(&db.url, "postgres")).unwrap();
        // As a restarting server: no new connection taken, the store's own cut.
        admin.batch(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS false")).unwrap();
        admin
            .execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                &[&name],
            )
            .unwrap();
        let lab = |id: &str| LabRecord {
            id: id.into(),
            name: "Physics".into(),
            instructor: TokenDigest::of("t"),
            seed: 1,
            join_code: "ABCDEF".into(),
            scene: LabScene::Demo,
            settings_json: "{}".into(),
        };
        let refused = store.save_lab(&lab("physics"));
        assert!(matches!(refused, Err(StoreError::Unavailable { .. })), "{refused:?}");
        assert!(refused.unwrap_err().to_string().contains("nothing was changed"));
        assert!(matches!(store.health(), Err(StoreError::Unavailable { .. })), "still down");
        admin.batch(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS true")).unwrap();
        store.health().unwrap();
        store.save_lab(&lab("chemistry")).unwrap();
        let kept: Vec<String> = store.open_labs().unwrap().into_iter().map(|l| l.id).collect();
        assert_eq!(kept, ["chemistry"], "the refused lab was not kept");
    }

    #[test]
    fn a_statement_past_the_timeout_is_cut_and_counts_as_unavailable() {
        let db = TestDatabase::create();
        let store = PgStore::open(&db.url, key_file(&db)).unwrap();
        let sleep = format!("SELECT pg_sleep({})", STATEMENT_TIMEOUT_SECS_PLUS_ONE);
        assert!(matches!(store.pg.batch(&sleep), Err(StoreError::Unavailable { .. })));
        store.health().expect("the next call is served");
    }
    const STATEMENT_TIMEOUT_SECS_PLUS_ONE: u64 = client::STATEMENT_TIMEOUT.as_secs() + 1;

    /// The store's callers run on tokio's worker threads: no call may start a runtime
    /// there (which panics).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_from_a_tokio_worker_thread_are_served() {
        let db = TestDatabase::create();
        let store = PgStore::open(&db.url, key_file(&db)).unwrap();
        assert_eq!(store.open_labs().unwrap(), vec![]);
        let session = SessionRecord { lab: "x".into(), user: 1, name: "Ana".into(), token: TokenDigest::of("t") };
        assert!(matches!(store.save_session(&session), Err(StoreError::Postgres { .. })), "no lab x: refused");
        tokio::task::spawn_blocking(move || store.health()).await.unwrap().unwrap();
    }

    #[test]
    fn a_test_url_gets_another_database_name() {
        assert_eq!(with_dbname("postgres://u@h:1/postgres", "t"), "postgres://u@h:1/t");
        assert_eq!(with_dbname("postgres://u@h:1", "t"), "postgres://u@h:1/t");
        assert_eq!(with_dbname("postgresql://u@h/x?sslmode=disable", "t"), "postgresql://u@h/t?sslmode=disable");
        assert!(is_url("postgresql://h/x") && is_url("postgres://h/x") && !is_url("/var/lib/vlab.db"));
    }
}
