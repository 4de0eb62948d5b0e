//! What must survive a restart, in one SQLite file: the labs and their instructor tokens.
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
    /// The file was written by a newer VLab.
    #[error("database {path} has schema version {found}; this build knows up to {SCHEMA_VERSION}")]
    TooNew {
        /// The database file.
        path: String,
        /// The version found.
        found: i64,
    },
}

const SCHEMA_VERSION: i64 = 1;

/// A lab as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabRecord {
    /// Its id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The bearer token of its instructor.
    pub instructor_token: String,
    /// The seed of its random generator.
    pub seed: u64,
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
        Ok(())
    }

    /// The lab with this id, if stored.
    pub fn lab(&self, id: &str) -> Result<Option<LabRecord>, StoreError> {
        self.connection
            .query_row("SELECT id, name, instructor_token, seed FROM labs WHERE id = ?1", params![id], |row| {
                Ok(LabRecord {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    instructor_token: row.get(2)?,
                    seed: row.get::<_, i64>(3)? as u64,
                })
            })
            .optional()
            .map_err(self.sqlite())
    }

    /// Stores a lab, replacing any with the same id.
    pub fn save_lab(&self, lab: &LabRecord) -> Result<(), StoreError> {
        self.connection
            .execute(
                "INSERT INTO labs (id, name, instructor_token, seed) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(id) DO UPDATE SET name = ?2, instructor_token = ?3, seed = ?4",
                params![lab.id, lab.name, lab.instructor_token, lab.seed as i64],
            )
            .map(|_| ())
            .map_err(self.sqlite())
    }
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
        let record =
            LabRecord { id: "demo".into(), name: "Demo".into(), instructor_token: "t0k".into(), seed: u64::MAX };
        {
            let store = Store::open(&path).unwrap();
            assert_eq!(store.lab("demo").unwrap(), None);
            store.save_lab(&record).unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.lab("demo").unwrap(), Some(record.clone()));
        let renamed = LabRecord { name: "Renamed".into(), ..record };
        store.save_lab(&renamed).unwrap();
        assert_eq!(store.lab("demo").unwrap(), Some(renamed));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let store = Store::in_memory().unwrap();
        store.connection.execute_batch("PRAGMA user_version = 99").unwrap();
        assert!(matches!(store.migrate(), Err(StoreError::TooNew { found: 99, .. })));
    }
}
