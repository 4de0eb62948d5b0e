//! What must survive a restart: the labs (the digests of their instructor tokens, join
//! codes, scenes and settings), the sessions of the students who joined them (digests
//! of their tokens), and what was uploaded into a lab and removed from it, in order and
//! compacted, so a restart rebuilds each lab as it was; and a course's classes
//! (`classes`) with their assignments, submissions and grades (`assignments`). Beside
//! it, in a file of its own, the server key, so the operator can print it again.
//!
//! Two databases, one seam (`backends`): [`Store`], [`AttemptStore`] and
//! [`RecordingStore`] are enums of a SQLite backend and a PostgreSQL one, each method
//! forwarded, so the classroom calls them the same whichever `--db` named. SQLite
//! through `rusqlite` (bundled; this module and its SQLite files) is the default: a
//! classroom server gets persistence with no other service to install, and the file
//! can be copied or inspected with standard tools. PostgreSQL (`postgres`) is for
//! servers that share one database. Neither database nor its backups hold a token
//! anybody could use.

pub mod assignments;
pub mod attempts;
mod backends;
pub mod classes;
mod compaction;
mod insertions;
pub mod postgres;
pub mod recordings;
mod schema;
#[cfg(test)]
pub mod test_pg;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

pub use assignments::{AssignmentRecord, EvaluationRecord, SubmissionRecord};
pub use attempts::{AttemptRow, SqliteAttemptStore, attempts_file_of};
pub use backends::{AttemptStore, Database, RecordingStore, Store};
pub use classes::{ClassRecord, StudentRecord};
pub use recordings::{ChunkRow, SqliteRecordingStore, recordings_file_of};

use vlab_lab::secret::TokenDigest;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused.
    #[error("database {path}: {source}")]
    Sqlite {
        /// The database file.
        path: String,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The file's permissions could not be made private.
    #[error("database {path}: cannot make it readable by this user only: {source}")]
    Private {
        /// The database file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The key file could not be read or written.
    #[error("key file {path}: {source}")]
    KeyFile {
        /// The key file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file was written by a newer VLab.
    #[error("database {path} has schema version {found}; this build knows up to {SCHEMA_VERSION}")]
    TooNew {
        /// The database file.
        path: String,
        /// The version found.
        found: i64,
    },
    /// PostgreSQL refused a statement.
    #[error("database {database}: {}", postgres::client::describe(.source))]
    Postgres {
        /// The database, without its password.
        database: String,
        /// The driver's error.
        source: tokio_postgres::Error,
    },
    /// The database cannot be reached (down, restarting, too slow to answer): the call
    /// changed nothing, and the next one connects again.
    #[error("the database is unavailable; nothing was changed ({database}: {reason})")]
    Unavailable {
        /// The database, without its password.
        database: String,
        /// Why.
        reason: String,
    },
    /// A kept entry does not read back as what was written.
    #[error("database {path}: {what}")]
    Corrupt {
        /// The database file.
        path: String,
        /// Which entry, and what is wrong with it.
        what: String,
    },
}

impl StoreError {
    /// Whether the database could not be reached (rather than refused or failed).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable { .. })
    }
}

const SCHEMA_VERSION: i64 = 8;

/// A lab as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabRecord {
    /// Its id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The digest of its instructor's bearer token.
    pub instructor: TokenDigest,
    /// The seed of its random generator.
    pub seed: u64,
    /// The code students join with.
    pub join_code: String,
    /// Where its scene comes from.
    pub scene: LabScene,
    /// The instructor's settings, as JSON (`LabSettings`).
    pub settings_json: String,
}

/// Where a lab's scene comes from, so a restart can build it again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LabScene {
    /// The embedded demo yard.
    #[default]
    Demo,
    /// A file of the scene library (`diffbot.vlab`).
    Library(String),
    /// Text uploaded when the lab was created.
    Source(String),
}

/// Something done to a lab's scene after it opened, kept to be done again at restart.
#[derive(Clone, Debug, PartialEq)]
pub enum Insertion {
    /// A scene or robots uploaded: the files as they came, and who owns the robots.
    Upload {
        /// The owner of the robots (`None`: the lab's own, from the instructor's scene).
        owner: Option<(u32, String)>,
        /// The main file's name.
        main_name: String,
        /// Its text.
        main_text: String,
        /// Included files, by name.
        files: std::collections::BTreeMap<String, String>,
        /// Meshes, textures and WebAssembly modules, by name.
        assets: std::collections::BTreeMap<String, Vec<u8>>,
        /// The file sent as the form's `program` field, if any.
        program: Option<String>,
        /// The robots it added, when it added nothing else: removing them all makes it
        /// moot (`None`: it added more, or it is not known).
        only_robots: Option<Vec<String>>,
    },
    /// A robot's program replaced.
    Program {
        /// The robot.
        robot: String,
        /// The program's main (or project) file.
        program: String,
        /// Text files, by name.
        files: std::collections::BTreeMap<String, String>,
        /// WebAssembly modules, by name.
        binaries: std::collections::BTreeMap<String, Vec<u8>>,
    },
    /// Objects a participant or the instructor added (docs/classroom.md, "Objects from
    /// everyone"): the `.vlab` text as inserted, and who owns them.
    Objects {
        /// Their owner (the instructor is participant 0).
        owner: Option<(u32, String)>,
        /// The main file's name.
        main_name: String,
        /// Its text (a palette item as written out with its name and place).
        main_text: String,
        /// Included files, by name.
        files: std::collections::BTreeMap<String, String>,
    },
    /// An object (a body of no robot) taken out.
    ObjectRemoval {
        /// Its name.
        name: String,
    },
    /// A robot taken out.
    Removal {
        /// Its name.
        robot: String,
    },
    /// The start a robot is put back at, moved.
    Start {
        /// The robot.
        robot: String,
        /// Where its main body starts, metres.
        position: [f32; 3],
        /// Its heading there, radians (`None`: as it started).
        heading: Option<f32>,
    },
    /// A body or a whole robot moved by hand (dragged in the 3D view, or placed by
    /// coordinates), at rest.
    Move {
        /// The body or robot.
        name: String,
        /// Where its (main) body went, metres.
        position: [f32; 3],
        /// Its heading there, radians (`None`: as it was).
        heading: Option<f32>,
    },
    /// The room changed (sizes, materials, gravity).
    Room {
        /// The fields changed.
        change: vlab_protocol::RoomChange,
    },
}

/// A student's session in a lab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRecord {
    /// The lab.
    pub lab: String,
    /// Their id in the lab.
    pub user: u32,
    /// Their display name.
    pub name: String,
    /// The digest of their bearer token.
    pub token: TokenDigest,
}

/// Opens (creating if needed) the SQLite file at `path`, readable by the server's user
/// only; with the path as errors show it.
fn open_private(path: &Path) -> Result<(Connection, String), StoreError> {
    let display = path.display().to_string();
    let connection = Connection::open(path).map_err(|source| StoreError::Sqlite { path: display.clone(), source })?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| StoreError::Private { path: display.clone(), source: e })?;
    }
    Ok((connection, display))
}

/// The server's database.
pub struct SqliteStore {
    connection: Connection,
    path: String,
    /// Where the server key is written (`None`: in memory, kept in `memory_key`).
    key_file: Option<PathBuf>,
    memory_key: Option<String>,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        // Tokens' digests and students' programs are in it.
        let (connection, display) = open_private(path)?;
        let mut store = SqliteStore { connection, path: display, key_file: Some(key_file_of(path)), memory_key: None };
        store.migrate()?;
        Ok(store)
    }

    /// An in-memory database (tests).
    pub fn in_memory() -> Result<SqliteStore, StoreError> {
        let connection =
            Connection::open_in_memory().map_err(|source| StoreError::Sqlite { path: ":memory:".into(), source })?;
        let mut store = SqliteStore { connection, path: ":memory:".into(), key_file: None, memory_key: None };
        store.migrate()?;
        Ok(store)
    }

    fn sqlite(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        |source| StoreError::Sqlite { path: self.path.clone(), source }
    }

    /// The server key as last saved, if any.
    pub fn server_key(&self) -> Result<Option<String>, StoreError> {
        let Some(file) = &self.key_file else { return Ok(self.memory_key.clone()) };
        read_key_file(file)
    }

    /// Saves the server key to the key file, readable by the server's user only.
    pub fn save_server_key(&mut self, key: &str) -> Result<(), StoreError> {
        let Some(file) = &self.key_file else {
            self.memory_key = Some(key.to_owned());
            return Ok(());
        };
        write_key_file(file, key)
    }

    /// Whether the database answers.
    pub fn health(&self) -> Result<(), StoreError> {
        self.connection.query_row("SELECT 1", [], |_| Ok(())).map_err(self.sqlite())
    }

    /// Every lab that was not closed.
    pub fn open_labs(&self) -> Result<Vec<LabRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare(&format!("SELECT {LAB_COLUMNS} FROM labs WHERE closed = 0 ORDER BY created_at, id"))
            .map_err(self.sqlite())?;
        let rows = statement.query_map([], lab_of_row).map_err(self.sqlite())?;
        rows.collect::<Result<Vec<_>, _>>().map_err(self.sqlite())
    }

    /// Marks a lab closed: it is not opened again at the next start.
    pub fn close_lab(&self, id: &str) -> Result<(), StoreError> {
        // Its checkpoint goes with it: a lab opened again under this id starts afresh.
        let transaction = self.connection.unchecked_transaction().map_err(self.sqlite())?;
        transaction.execute("UPDATE labs SET closed = 1 WHERE id = ?1", params![id]).map_err(self.sqlite())?;
        transaction.execute("DELETE FROM lab_checkpoints WHERE lab = ?1", params![id]).map_err(self.sqlite())?;
        transaction.commit().map_err(self.sqlite())
    }

    /// Keeps lab `lab`'s last checkpoint (taken at `step`, as JSON), replacing the one
    /// before.
    pub fn save_checkpoint(&self, lab: &str, step: u64, checkpoint: &str) -> Result<(), StoreError> {
        self.connection
            .execute(
                "INSERT OR REPLACE INTO lab_checkpoints (lab, step, checkpoint) VALUES (?1, ?2, ?3)",
                params![lab, step as i64, checkpoint],
            )
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Lab `lab`'s last kept checkpoint, as JSON, if any.
    pub fn checkpoint(&self, lab: &str) -> Result<Option<String>, StoreError> {
        self.connection
            .query_row("SELECT checkpoint FROM lab_checkpoints WHERE lab = ?1", params![lab], |row| row.get(0))
            .optional()
            .map_err(self.sqlite())
    }

    /// Changes a lab's settings.
    pub fn save_settings(&self, id: &str, settings_json: &str) -> Result<(), StoreError> {
        self.connection
            .execute("UPDATE labs SET settings = ?2 WHERE id = ?1", params![id, settings_json])
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Stores a student's session.
    pub fn save_session(&self, session: &SessionRecord) -> Result<(), StoreError> {
        self.connection
            .execute(
                "INSERT OR REPLACE INTO sessions (lab, user_id, name, token_digest) VALUES (?1, ?2, ?3, ?4)",
                params![session.lab, session.user, session.name, session.token.to_hex()],
            )
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Ends student `user`'s session in lab `lab` (the instructor removed them) and
    /// records the removal of each of `robots`, theirs, all in one transaction. Returns
    /// the removals' sequence numbers, in `robots`' order (to [`SqliteStore::forget_insertion`]
    /// one the lab no longer needs).
    pub fn remove_session(&mut self, lab: &str, user: u32, robots: &[String]) -> Result<Vec<i64>, StoreError> {
        let path = self.path.clone();
        let sqlite = move |source| StoreError::Sqlite { path: path.clone(), source };
        let transaction = self.connection.transaction().map_err(&sqlite)?;
        transaction
            .execute("DELETE FROM sessions WHERE lab = ?1 AND user_id = ?2", params![lab, user])
            .map_err(&sqlite)?;
        let mut seqs = Vec::with_capacity(robots.len());
        for robot in robots {
            transaction
                .execute("INSERT INTO insertions (lab, kind, robot) VALUES (?1, 'removal', ?2)", params![lab, robot])
                .map_err(&sqlite)?;
            seqs.push(transaction.last_insert_rowid());
        }
        transaction.commit().map_err(&sqlite)?;
        Ok(seqs)
    }

    /// Changes a lab's join code.
    pub fn save_join_code(&self, id: &str, join_code: &str) -> Result<(), StoreError> {
        self.connection
            .execute("UPDATE labs SET join_code = ?2 WHERE id = ?1", params![id, join_code])
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// The sessions of a lab, by user id.
    pub fn sessions(&self, lab: &str) -> Result<Vec<SessionRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare("SELECT lab, user_id, name, token_digest FROM sessions WHERE lab = ?1 ORDER BY user_id")
            .map_err(self.sqlite())?;
        let rows = statement
            .query_map(params![lab], |row| {
                Ok(SessionRecord {
                    lab: row.get(0)?,
                    user: row.get(1)?,
                    name: row.get(2)?,
                    token: digest_of_column(row, 3)?,
                })
            })
            .map_err(self.sqlite())?;
        rows.collect::<Result<Vec<_>, _>>().map_err(self.sqlite())
    }

    /// The lab with this id, if stored.
    pub fn lab(&self, id: &str) -> Result<Option<LabRecord>, StoreError> {
        self.connection
            .query_row(&format!("SELECT {LAB_COLUMNS} FROM labs WHERE id = ?1"), params![id], lab_of_row)
            .optional()
            .map_err(self.sqlite())
    }

    /// Stores a lab, replacing any with the same id (and opening it again if closed).
    pub fn save_lab(&self, lab: &LabRecord) -> Result<(), StoreError> {
        let (kind, text) = match &lab.scene {
            LabScene::Demo => ("demo", ""),
            LabScene::Library(name) => ("library", name.as_str()),
            LabScene::Source(text) => ("source", text.as_str()),
        };
        self.connection
            .execute(
                "INSERT INTO labs (id, name, instructor_digest, seed, join_code, scene_kind, scene_text, settings, closed)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0)
                 ON CONFLICT(id) DO UPDATE SET name = ?2, instructor_digest = ?3, seed = ?4, join_code = ?5,
                     scene_kind = ?6, scene_text = ?7, settings = ?8, closed = 0",
                params![
                    lab.id,
                    lab.name,
                    lab.instructor.to_hex(),
                    lab.seed as i64,
                    lab.join_code,
                    kind,
                    text,
                    lab.settings_json
                ],
            )
            .map(|_| ())
            .map_err(self.sqlite())
    }
}

/// The server key kept in `file`, if any.
fn read_key_file(file: &Path) -> Result<Option<String>, StoreError> {
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(Some(text.trim().to_owned()).filter(|key| !key.is_empty())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(StoreError::KeyFile { path: file.display().to_string(), source }),
    }
}

/// Writes the server key to `file`, readable by the server's user only.
fn write_key_file(file: &Path, key: &str) -> Result<(), StoreError> {
    let error = |source| StoreError::KeyFile { path: file.display().to_string(), source };
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(0o600);
        // An existing file keeps its mode through `open`: made private first.
        if file.exists() {
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600)).map_err(error)?;
        }
    }
    use std::io::Write;
    options.open(file).and_then(|mut f| writeln!(f, "{key}")).map_err(error)
}

const LAB_COLUMNS: &str = "id, name, instructor_digest, seed, join_code, scene_kind, scene_text, settings";

/// Where the server key of the database at `db` is kept: `vlab.db` → `vlab.db.key`.
pub fn key_file_of(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".key");
    PathBuf::from(name)
}

/// A digest column; a malformed one (a file edited by hand) matches no token.
fn digest_of_column(row: &rusqlite::Row, index: usize) -> rusqlite::Result<TokenDigest> {
    let hex: String = row.get(index)?;
    Ok(TokenDigest::from_hex(&hex).unwrap_or_else(|| TokenDigest::of(&vlab_lab::secret::new_token())))
}

fn lab_of_row(row: &rusqlite::Row) -> rusqlite::Result<LabRecord> {
    let text: String = row.get(6)?;
    let scene = match row.get::<_, String>(5)?.as_str() {
        "library" => LabScene::Library(text),
        "source" => LabScene::Source(text),
        _ => LabScene::Demo,
    };
    Ok(LabRecord {
        id: row.get(0)?,
        name: row.get(1)?,
        instructor: digest_of_column(row, 2)?,
        seed: row.get::<_, i64>(3)? as u64,
        join_code: row.get(4)?,
        scene,
        settings_json: row.get(7)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labs_round_trip_and_survive_reopening() {
        for backend in test_pg::TestBackend::each() {
            labs_round_trip_and_survive_reopening_on(&backend);
        }
    }

    fn labs_round_trip_and_survive_reopening_on(backend: &test_pg::TestBackend) {
        let record = LabRecord {
            id: "demo".into(),
            name: "Demo".into(),
            instructor: TokenDigest::of("t0k"),
            seed: u64::MAX,
            join_code: "ABCDEF".into(),
            scene: LabScene::Library("diffbot.vlab".into()),
            settings_json: "{}".into(),
        };
        {
            let store = backend.store();
            assert_eq!(store.lab("demo").unwrap(), None);
            store.save_lab(&record).unwrap();
        }
        let store = backend.store();
        assert_eq!(store.lab("demo").unwrap(), Some(record.clone()), "{}", backend.name());
        let renamed = LabRecord { name: "Renamed".into(), ..record };
        store.save_lab(&renamed).unwrap();
        assert_eq!(store.lab("demo").unwrap(), Some(renamed.clone()));
        assert_eq!(store.open_labs().unwrap(), vec![renamed]);
        store.close_lab("demo").unwrap();
        assert!(store.open_labs().unwrap().is_empty());
        let session =
            SessionRecord { lab: "demo".into(), user: 1, name: "Ana".into(), token: TokenDigest::of("s3cret") };
        store.save_session(&session).unwrap();
        assert_eq!(store.sessions("demo").unwrap(), vec![session]);
        store.save_join_code("demo", "NEWCOD").unwrap();
        assert_eq!(store.lab("demo").unwrap().unwrap().join_code, "NEWCOD");
        let upload = Insertion::Upload {
            owner: Some((1, "Ana".into())),
            main_name: "bot.vlab".into(),
            main_text: "robot r { body { b { shape box(1,1,1); } } }".into(),
            files: [("inc.vlab".to_owned(), "// nothing".to_owned())].into(),
            assets: [("wheel.obj".to_owned(), vec![0u8, 1, 2, 255])].into(),
            program: Some("main.py".into()),
            only_robots: Some(vec!["r".into()]),
        };
        let replaced = Insertion::Program {
            robot: "r".into(),
            program: "bot.wasm".into(),
            files: [("notes.py".to_owned(), "x = 1".to_owned())].into(),
            binaries: [("bot.wasm".to_owned(), vec![0u8, 0x61, 0x73, 0x6d])].into(),
        };
        let mut store = store;
        store.record_insertion("demo", &upload).unwrap();
        store.record_insertion("demo", &replaced).unwrap();
        store.record_insertion("demo", &Insertion::Removal { robot: "r".into() }).unwrap();
        let log: Vec<Insertion> = store.insertions("demo").unwrap().into_iter().map(|(_, i)| i).collect();
        assert_eq!(log, vec![upload, replaced, Insertion::Removal { robot: "r".into() }]);
        assert!(store.insertions("other").unwrap().is_empty());
        // Removing Ana: her session goes, and the removal of her robot is recorded.
        let seqs = store.remove_session("demo", 1, &["r2".to_owned()]).unwrap();
        assert_eq!(seqs.len(), 1);
        assert!(store.sessions("demo").unwrap().is_empty());
        assert_eq!(
            store.insertions("demo").unwrap().last().map(|(_, i)| i),
            Some(&Insertion::Removal { robot: "r2".into() })
        );
        // Compacting forgets the robot r uploaded, reprogrammed and removed, and its files.
        assert_eq!(store.compact("demo").unwrap(), 3);
        let log: Vec<Insertion> = store.insertions("demo").unwrap().into_iter().map(|(_, i)| i).collect();
        assert_eq!(log, vec![Insertion::Removal { robot: "r2".into() }]);
        // A change of the room comes back as it was given, and stays through compaction.
        let room = Insertion::Room {
            change: vlab_protocol::RoomChange { width: Some(14.5), ground: Some("Wood".into()), ..Default::default() },
        };
        store.record_insertion("demo", &room).unwrap();
        assert_eq!(store.compact("demo").unwrap(), 0);
        let log: Vec<Insertion> = store.insertions("demo").unwrap().into_iter().map(|(_, i)| i).collect();
        assert_eq!(log, vec![Insertion::Removal { robot: "r2".into() }, room]);
        assert_eq!(test_pg::rows_in(&store, "insertion_assets"), 0, "{}", backend.name());
    }

    #[test]
    fn the_server_key_file_is_private_and_a_version_4_file_keeps_no_token_in_clear() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("vlab-store-v4-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("old.db");
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(key_file_of(&path));
        {
            // A file as version 4 left it: tokens in clear.
            let mut old = SqliteStore {
                connection: Connection::open(&path).unwrap(),
                path: "old.db".into(),
                key_file: None,
                memory_key: None,
            };
            old.connection.execute_batch("PRAGMA user_version = 0").unwrap();
            old.migrate_to(4).unwrap();
            old.connection
                .execute_batch(
                    "INSERT INTO labs (id, name, instructor_token, seed) VALUES ('demo', 'Demo', 'demo-secret-token', 1);
                     INSERT INTO labs (id, name, instructor_token, seed) VALUES ('physics', 'P', 'lab-secret-token', 1);
                     INSERT INTO sessions (lab, user_id, name, token) VALUES ('physics', 1, 'Ana', 'ana-secret-token');",
                )
                .unwrap();
        }
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(store.server_key().unwrap().as_deref(), Some("demo-secret-token"), "kept for `vlab key`");
        let mode = std::fs::metadata(key_file_of(&path)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "key file mode {mode:o}");
        assert!(store.lab("demo").unwrap().unwrap().instructor.matches("demo-secret-token"));
        assert!(store.lab("physics").unwrap().unwrap().instructor.matches("lab-secret-token"));
        assert!(store.sessions("physics").unwrap()[0].token.matches("ana-secret-token"));
        drop(store);
        let bytes = std::fs::read(&path).unwrap();
        for token in ["demo-secret-token", "lab-secret-token", "ana-secret-token"] {
            let found = bytes.windows(token.len()).any(|w| w == token.as_bytes());
            assert!(!found, "{token} is still somewhere in the file");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn lab(id: &str) -> LabRecord {
        LabRecord {
            id: id.into(),
            name: "Physics".into(),
            instructor: TokenDigest::of("t0k"),
            seed: 7,
            join_code: "ABCDEF".into(),
            scene: LabScene::Library("diffbot.vlab".into()),
            settings_json: "{}".into(),
        }
    }

    /// A folder of its own and the path of a database file in it, no file there yet.
    fn fresh_file(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("vlab-store-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.db"));
        let _ = std::fs::remove_file(&path);
        (dir, path)
    }

    /// The file at `path` as schema version `version` left it.
    fn store_at_version(path: &std::path::Path, version: i64) -> SqliteStore {
        let (connection, shown) = open_private(path).unwrap();
        let mut old = SqliteStore { connection, path: shown, key_file: None, memory_key: None };
        old.migrate_to(version).unwrap();
        old
    }

    #[test]
    fn a_version_5_file_gains_the_course_and_keeps_its_labs() {
        let (dir, path) = fresh_file("v5");
        {
            let old = store_at_version(&path, 5);
            old.save_lab(&lab("physics")).unwrap();
            let session =
                SessionRecord { lab: "physics".into(), user: 1, name: "Ana".into(), token: TokenDigest::of("t") };
            old.save_session(&session).unwrap();
        }
        let store = SqliteStore::open(&path).unwrap();
        let version: i64 = store.connection.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        assert_eq!(store.lab("physics").unwrap(), Some(lab("physics")), "its labs as they were");
        assert_eq!(store.sessions("physics").unwrap().len(), 1);
        assert!(store.classes().unwrap().is_empty(), "and an empty course");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_version_6_assignment_reads_with_no_score_rule() {
        let (dir, path) = fresh_file("v6");
        {
            let old = store_at_version(&path, 6);
            old.connection
                .execute_batch(
                    "INSERT INTO assignments (class, title, challenge, challenge_title, robot, points, opens_at, seeds)
                     VALUES ('c', 'Parking', 'challenges/park', 'Park it', 'diffbot', 10, 0, '[7]')",
                )
                .unwrap();
        }
        let store = SqliteStore::open(&path).unwrap();
        let kept = store.assignments("c").unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(
            (kept[0].title.as_str(), kept[0].score_rule.as_str(), kept[0].seeds.as_slice()),
            ("Parking", "", &[7][..])
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_lab_keeps_its_last_checkpoint_until_it_is_closed() {
        for backend in test_pg::TestBackend::each() {
            let store = backend.store();
            store.save_lab(&lab("physics")).unwrap();
            assert_eq!(store.checkpoint("physics").unwrap(), None, "{}: none before the first", backend.name());
            store.save_checkpoint("physics", 1200, r#"{"step":1200,"bodies":[]}"#).unwrap();
            store.save_checkpoint("physics", 2400, r#"{"step":2400,"bodies":[]}"#).unwrap();
            let store = backend.store();
            assert_eq!(store.checkpoint("physics").unwrap().as_deref(), Some(r#"{"step":2400,"bodies":[]}"#));
            assert_eq!(test_pg::rows_in(&store, "lab_checkpoints"), 1, "{}: the last one only", backend.name());
            store.close_lab("physics").unwrap();
            assert_eq!(store.checkpoint("physics").unwrap(), None, "{}: closed, it goes", backend.name());
        }
    }

    #[test]
    fn a_version_7_file_gains_the_checkpoints_and_keeps_its_labs() {
        let (dir, path) = fresh_file("v7");
        store_at_version(&path, 7).save_lab(&lab("physics")).unwrap();
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(store.lab("physics").unwrap(), Some(lab("physics")));
        assert_eq!(store.checkpoint("physics").unwrap(), None);
        store.save_checkpoint("physics", 5, "{}").unwrap();
        assert_eq!(store.checkpoint("physics").unwrap().as_deref(), Some("{}"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let mut store = SqliteStore::in_memory().unwrap();
        store.connection.execute_batch("PRAGMA user_version = 99").unwrap();
        assert!(matches!(store.migrate(), Err(StoreError::TooNew { found: 99, .. })));
    }
}
