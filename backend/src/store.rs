//! What must survive a restart, in one SQLite file: the labs (their instructor tokens,
//! join codes, scenes and settings), the sessions of the students who joined them, and
//! every scene and robot uploaded into a lab (and every robot removed), in order, so a
//! restart rebuilds each lab as it was set up.
//!
//! SQLite through `rusqlite` (bundled): a classroom server gets persistence with no
//! other service to install, and the file can be copied or inspected with standard
//! tools. The schema version lives in `PRAGMA user_version`.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

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
    /// The file was written by a newer VLab.
    #[error("database {path} has schema version {found}; this build knows up to {SCHEMA_VERSION}")]
    TooNew {
        /// The database file.
        path: String,
        /// The version found.
        found: i64,
    },
}

const SCHEMA_VERSION: i64 = 4;

/// A lab as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabRecord {
    /// Its id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The bearer token of its instructor.
    pub instructor_token: String,
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
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// A robot taken out.
    Removal {
        /// Its name.
        robot: String,
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
    /// Their bearer token.
    pub token: String,
}

/// The server's database.
pub struct Store {
    connection: Connection,
    path: String,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let display = path.display().to_string();
        let connection =
            Connection::open(path).map_err(|source| StoreError::Sqlite { path: display.clone(), source })?;
        // Tokens and students' programs are in it: readable by the server's user only.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                .map_err(|e| StoreError::Private { path: display.clone(), source: e })?;
        }
        let store = Store { connection, path: display };
        store.migrate()?;
        Ok(store)
    }

    /// An in-memory database (tests).
    pub fn in_memory() -> Result<Store, StoreError> {
        let connection =
            Connection::open_in_memory().map_err(|source| StoreError::Sqlite { path: ":memory:".into(), source })?;
        let store = Store { connection, path: ":memory:".into() };
        store.migrate()?;
        Ok(store)
    }

    fn sqlite(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        |source| StoreError::Sqlite { path: self.path.clone(), source }
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let version: i64 =
            self.connection.query_row("PRAGMA user_version", [], |row| row.get(0)).map_err(self.sqlite())?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::TooNew { path: self.path.clone(), found: version });
        }
        if version < 1 {
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
        if version < 2 {
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
        if version < 3 {
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
        if version < 4 {
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
        Ok(())
    }

    /// Appends what was done to lab `lab`'s scene; returns its sequence number (to
    /// [`Store::forget_insertion`] it if the lab refuses it after all).
    pub fn record_insertion(&mut self, lab: &str, insertion: &Insertion) -> Result<i64, StoreError> {
        let path = self.path.clone();
        let sqlite = move |source| StoreError::Sqlite { path: path.clone(), source };
        let transaction = self.connection.transaction().map_err(&sqlite)?;
        let seq = match insertion {
            Insertion::Upload { owner, main_name, main_text, files, assets, program } => {
                let files = serde_json::to_string(files).expect("file maps serialise");
                transaction
                    .execute(
                        "INSERT INTO insertions (lab, kind, owner_id, owner_name, main_name, main_text, files, program)
                         VALUES (?1, 'upload', ?2, ?3, ?4, ?5, ?6, ?7)",
                        params![
                            lab,
                            owner.as_ref().map(|o| o.0),
                            owner.as_ref().map(|o| &o.1),
                            main_name,
                            main_text,
                            files,
                            program
                        ],
                    )
                    .map_err(&sqlite)?;
                let seq = transaction.last_insert_rowid();
                for (name, bytes) in assets {
                    transaction
                        .execute(
                            "INSERT INTO insertion_assets (seq, name, bytes) VALUES (?1, ?2, ?3)",
                            params![seq, name, bytes],
                        )
                        .map_err(&sqlite)?;
                }
                seq
            }
            Insertion::Program { robot, program, files, binaries } => {
                let files = serde_json::to_string(files).expect("file maps serialise");
                transaction
                    .execute(
                        "INSERT INTO insertions (lab, kind, robot, main_name, files)
                         VALUES (?1, 'program', ?2, ?3, ?4)",
                        params![lab, robot, program, files],
                    )
                    .map_err(&sqlite)?;
                let seq = transaction.last_insert_rowid();
                for (name, bytes) in binaries {
                    transaction
                        .execute(
                            "INSERT INTO insertion_assets (seq, name, bytes) VALUES (?1, ?2, ?3)",
                            params![seq, name, bytes],
                        )
                        .map_err(&sqlite)?;
                }
                seq
            }
            Insertion::Removal { robot } => {
                transaction
                    .execute(
                        "INSERT INTO insertions (lab, kind, robot) VALUES (?1, 'removal', ?2)",
                        params![lab, robot],
                    )
                    .map_err(&sqlite)?;
                transaction.last_insert_rowid()
            }
        };
        transaction.commit().map_err(&sqlite)?;
        Ok(seq)
    }

    /// Takes back insertion `seq` (kept before the lab was asked, and refused by it).
    pub fn forget_insertion(&mut self, seq: i64) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = move |source| StoreError::Sqlite { path: path.clone(), source };
        let transaction = self.connection.transaction().map_err(&sqlite)?;
        transaction.execute("DELETE FROM insertion_assets WHERE seq = ?1", params![seq]).map_err(&sqlite)?;
        transaction.execute("DELETE FROM insertions WHERE seq = ?1", params![seq]).map_err(&sqlite)?;
        transaction.commit().map_err(&sqlite)
    }

    /// What was done to lab `lab`'s scene, in order.
    pub fn insertions(&self, lab: &str) -> Result<Vec<Insertion>, StoreError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT seq, kind, owner_id, owner_name, main_name, main_text, files, robot, program
                 FROM insertions WHERE lab = ?1 ORDER BY seq",
            )
            .map_err(self.sqlite())?;
        type Row = (i64, String, Option<u32>, Option<String>, String, String, String, String, Option<String>);
        let rows: Vec<Row> = statement
            .query_map(params![lab], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?))
            })
            .map_err(self.sqlite())?
            .collect::<Result<_, _>>()
            .map_err(self.sqlite())?;
        let mut assets = self
            .connection
            .prepare("SELECT name, bytes FROM insertion_assets WHERE seq = ?1")
            .map_err(self.sqlite())?;
        let mut insertions = Vec::new();
        for (seq, kind, owner_id, owner_name, main_name, main_text, files, robot, program) in rows {
            if kind == "removal" {
                insertions.push(Insertion::Removal { robot });
                continue;
            }
            let assets = assets
                .query_map(params![seq], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?)))
                .map_err(self.sqlite())?
                .collect::<Result<_, _>>()
                .map_err(self.sqlite())?;
            let files = serde_json::from_str(&files).unwrap_or_default();
            if kind == "program" {
                insertions.push(Insertion::Program { robot, program: main_name, files, binaries: assets });
                continue;
            }
            insertions.push(Insertion::Upload {
                owner: owner_id.zip(owner_name),
                main_name,
                main_text,
                files,
                assets,
                program,
            });
        }
        Ok(insertions)
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
        self.connection
            .execute("UPDATE labs SET closed = 1 WHERE id = ?1", params![id])
            .map(|_| ())
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
                "INSERT OR REPLACE INTO sessions (lab, user_id, name, token) VALUES (?1, ?2, ?3, ?4)",
                params![session.lab, session.user, session.name, session.token],
            )
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Ends student `user`'s session in lab `lab` (the instructor removed them) and
    /// records the removal of each of `robots`, theirs, all in one transaction. Returns
    /// the removals' sequence numbers, in `robots`' order (to [`Store::forget_insertion`]
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
            .prepare("SELECT lab, user_id, name, token FROM sessions WHERE lab = ?1 ORDER BY user_id")
            .map_err(self.sqlite())?;
        let rows = statement
            .query_map(params![lab], |row| {
                Ok(SessionRecord { lab: row.get(0)?, user: row.get(1)?, name: row.get(2)?, token: row.get(3)? })
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
                "INSERT INTO labs (id, name, instructor_token, seed, join_code, scene_kind, scene_text, settings, closed)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0)
                 ON CONFLICT(id) DO UPDATE SET name = ?2, instructor_token = ?3, seed = ?4, join_code = ?5,
                     scene_kind = ?6, scene_text = ?7, settings = ?8, closed = 0",
                params![lab.id, lab.name, lab.instructor_token, lab.seed as i64, lab.join_code, kind, text, lab.settings_json],
            )
            .map(|_| ())
            .map_err(self.sqlite())
    }
}

const LAB_COLUMNS: &str = "id, name, instructor_token, seed, join_code, scene_kind, scene_text, settings";

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
        instructor_token: row.get(2)?,
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
        let dir = std::env::temp_dir().join(format!("vlab-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("test.db");
        let _ = std::fs::remove_file(&path);
        let record = LabRecord {
            id: "demo".into(),
            name: "Demo".into(),
            instructor_token: "t0k".into(),
            seed: u64::MAX,
            join_code: "ABCDEF".into(),
            scene: LabScene::Library("diffbot.vlab".into()),
            settings_json: "{}".into(),
        };
        {
            let store = Store::open(&path).unwrap();
            assert_eq!(store.lab("demo").unwrap(), None);
            store.save_lab(&record).unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.lab("demo").unwrap(), Some(record.clone()));
        let renamed = LabRecord { name: "Renamed".into(), ..record };
        store.save_lab(&renamed).unwrap();
        assert_eq!(store.lab("demo").unwrap(), Some(renamed.clone()));
        assert_eq!(store.open_labs().unwrap(), vec![renamed]);
        store.close_lab("demo").unwrap();
        assert!(store.open_labs().unwrap().is_empty());
        let session = SessionRecord { lab: "demo".into(), user: 1, name: "Ana".into(), token: "s3cret".into() };
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
        assert_eq!(store.insertions("demo").unwrap(), vec![upload, replaced, Insertion::Removal { robot: "r".into() }]);
        assert!(store.insertions("other").unwrap().is_empty());
        // Removing Ana: her session goes, and the removal of her robot is recorded.
        let seqs = store.remove_session("demo", 1, &["r2".to_owned()]).unwrap();
        assert_eq!(seqs.len(), 1);
        assert!(store.sessions("demo").unwrap().is_empty());
        assert_eq!(store.insertions("demo").unwrap().last(), Some(&Insertion::Removal { robot: "r2".into() }));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let store = Store::in_memory().unwrap();
        store.connection.execute_batch("PRAGMA user_version = 99").unwrap();
        assert!(matches!(store.migrate(), Err(StoreError::TooNew { found: 99, .. })));
    }
}
