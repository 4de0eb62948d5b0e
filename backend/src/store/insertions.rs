//! The log of what was done to each lab's scene (uploads, program replacements,
//! removals, starts and things moved by hand, the room changed), kept in order to be done again at restart, and compacted: what a later
//! entry undid or replaced leaves the log, its files with it.

use rusqlite::params;

use super::compaction::{self, Entry, Kind};
use super::{Insertion, SqliteStore, StoreError};

impl SqliteStore {
    /// Appends what was done to lab `lab`'s scene; returns its sequence number (to
    /// [`SqliteStore::forget_insertion`] it if the lab refuses it after all).
    pub fn record_insertion(&mut self, lab: &str, insertion: &Insertion) -> Result<i64, StoreError> {
        let path = self.path.clone();
        let sqlite = move |source| StoreError::Sqlite { path: path.clone(), source };
        let transaction = self.connection.transaction().map_err(&sqlite)?;
        let seq = match insertion {
            Insertion::Upload { owner, main_name, main_text, files, assets, program, only_robots } => {
                let files = serde_json::to_string(files).expect("file maps serialise");
                let only_robots = only_robots.as_ref().map(|r| serde_json::to_string(r).expect("names serialise"));
                transaction
                    .execute(
                        "INSERT INTO insertions (lab, kind, owner_id, owner_name, main_name, main_text, files, program, only_robots)
                         VALUES (?1, 'upload', ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                        params![
                            lab,
                            owner.as_ref().map(|o| o.0),
                            owner.as_ref().map(|o| &o.1),
                            main_name,
                            main_text,
                            files,
                            program,
                            only_robots
                        ],
                    )
                    .map_err(&sqlite)?;
                let seq = transaction.last_insert_rowid();
                keep_files(&transaction, seq, assets).map_err(&sqlite)?;
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
                keep_files(&transaction, seq, binaries).map_err(&sqlite)?;
                seq
            }
            Insertion::Start { robot, position, heading } => {
                let start = serde_json::json!({ "position": position, "heading": heading }).to_string();
                inserted_row(
                    &transaction,
                    "INSERT INTO insertions (lab, kind, robot, main_text) VALUES (?1, 'start', ?2, ?3)",
                    params![lab, robot, start],
                )
                .map_err(&sqlite)?
            }
            Insertion::Move { name, position, heading } => {
                // The pose as a start's is kept; `robot` names the thing moved.
                let pose = serde_json::json!({ "position": position, "heading": heading }).to_string();
                inserted_row(
                    &transaction,
                    "INSERT INTO insertions (lab, kind, robot, main_text) VALUES (?1, 'move', ?2, ?3)",
                    params![lab, name, pose],
                )
                .map_err(&sqlite)?
            }
            Insertion::Objects { owner, main_name, main_text, files } => {
                let files = serde_json::to_string(files).expect("file maps serialise");
                inserted_row(
                    &transaction,
                    "INSERT INTO insertions (lab, kind, owner_id, owner_name, main_name, main_text, files)
                         VALUES (?1, 'objects', ?2, ?3, ?4, ?5, ?6)",
                    params![
                        lab,
                        owner.as_ref().map(|o| o.0),
                        owner.as_ref().map(|o| &o.1),
                        main_name,
                        main_text,
                        files
                    ],
                )
                .map_err(&sqlite)?
            }
            Insertion::Room { change } => {
                let change = serde_json::to_string(change).expect("a room change serialises");
                inserted_row(
                    &transaction,
                    "INSERT INTO insertions (lab, kind, main_text) VALUES (?1, 'room', ?2)",
                    params![lab, change],
                )
                .map_err(&sqlite)?
            }
            Insertion::ObjectRemoval { name } => inserted_row(
                &transaction,
                "INSERT INTO insertions (lab, kind, robot) VALUES (?1, 'object_removal', ?2)",
                params![lab, name],
            )
            .map_err(&sqlite)?,
            Insertion::Removal { robot } => inserted_row(
                &transaction,
                "INSERT INTO insertions (lab, kind, robot) VALUES (?1, 'removal', ?2)",
                params![lab, robot],
            )
            .map_err(&sqlite)?,
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

    /// What was done to lab `lab`'s scene, in order, each with its sequence number.
    pub fn insertions(&self, lab: &str) -> Result<Vec<(i64, Insertion)>, StoreError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT seq, kind, owner_id, owner_name, main_name, main_text, files, robot, program, only_robots
                 FROM insertions WHERE lab = ?1 ORDER BY seq",
            )
            .map_err(self.sqlite())?;
        type Row =
            (i64, String, Option<u32>, Option<String>, String, String, String, String, Option<String>, Option<String>);
        let rows: Vec<Row> = statement
            .query_map(params![lab], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                ))
            })
            .map_err(self.sqlite())?
            .collect::<Result<_, _>>()
            .map_err(self.sqlite())?;
        let mut assets = self
            .connection
            .prepare("SELECT name, bytes FROM insertion_assets WHERE seq = ?1")
            .map_err(self.sqlite())?;
        let mut insertions = Vec::new();
        for (seq, kind, owner_id, owner_name, main_name, main_text, files, robot, program, only_robots) in rows {
            if kind == "object_removal" {
                insertions.push((seq, Insertion::ObjectRemoval { name: robot }));
                continue;
            }
            if kind == "objects" {
                let files = serde_json::from_str(&files).unwrap_or_default();
                let owner = owner_id.zip(owner_name);
                insertions.push((seq, Insertion::Objects { owner, main_name, main_text, files }));
                continue;
            }
            if kind == "removal" {
                insertions.push((seq, Insertion::Removal { robot }));
                continue;
            }
            if kind == "room" {
                let change = serde_json::from_str(&main_text).map_err(|source| StoreError::Corrupt {
                    path: self.path.clone(),
                    what: format!("the change of the room kept as entry {seq}: {source}"),
                })?;
                insertions.push((seq, Insertion::Room { change }));
                continue;
            }
            if kind == "start" {
                let start: StartRow = serde_json::from_str(&main_text).map_err(|source| StoreError::Corrupt {
                    path: self.path.clone(),
                    what: format!("the start of robot {robot} kept as entry {seq}: {source}"),
                })?;
                insertions.push((seq, Insertion::Start { robot, position: start.position, heading: start.heading }));
                continue;
            }
            if kind == "move" {
                let pose: StartRow = serde_json::from_str(&main_text).map_err(|source| StoreError::Corrupt {
                    path: self.path.clone(),
                    what: format!("the move of {robot} kept as entry {seq}: {source}"),
                })?;
                insertions.push((seq, Insertion::Move { name: robot, position: pose.position, heading: pose.heading }));
                continue;
            }
            let assets = assets
                .query_map(params![seq], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?)))
                .map_err(self.sqlite())?
                .collect::<Result<_, _>>()
                .map_err(self.sqlite())?;
            let files = serde_json::from_str(&files).unwrap_or_default();
            if kind == "program" {
                insertions.push((seq, Insertion::Program { robot, program: main_name, files, binaries: assets }));
                continue;
            }
            let only_robots = only_robots.and_then(|names| serde_json::from_str(&names).ok());
            insertions.push((
                seq,
                Insertion::Upload {
                    owner: owner_id.zip(owner_name),
                    main_name,
                    main_text,
                    files,
                    assets,
                    program,
                    only_robots,
                },
            ));
        }
        Ok(insertions)
    }

    /// Notes that upload `seq` added robots `names` and nothing else (learnt when it
    /// was done again, for uploads kept before this was recorded).
    pub fn note_only_robots(&self, seq: i64, names: &[String]) -> Result<(), StoreError> {
        let names = serde_json::to_string(names).expect("names serialise");
        self.connection
            .execute("UPDATE insertions SET only_robots = ?2 WHERE seq = ?1 AND kind = 'upload'", params![seq, names])
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Forgets what no longer matters in lab `lab`'s log (see [`compaction`]): programs
    /// replaced since or robots removed since, and uploads of robots all removed since,
    /// with their removals and their files. The file gives the space back. Returns how
    /// many entries went.
    pub fn compact(&mut self, lab: &str) -> Result<usize, StoreError> {
        let path = self.path.clone();
        let sqlite = move |source| StoreError::Sqlite { path: path.clone(), source };
        let entries: Vec<Entry> = self
            .connection
            .prepare("SELECT seq, kind, robot, only_robots FROM insertions WHERE lab = ?1 ORDER BY seq")
            .and_then(|mut statement| {
                statement
                    .query_map(params![lab], |r| {
                        let kind = match r.get::<_, String>(1)?.as_str() {
                            "upload" => Kind::Upload,
                            "program" => Kind::Program,
                            "start" => Kind::Start,
                            "move" => Kind::Move,
                            "room" => Kind::Room,
                            "removal" => Kind::Removal,
                            _ => Kind::Kept,
                        };
                        let only_robots: Option<String> = r.get(3)?;
                        Ok(Entry {
                            seq: r.get(0)?,
                            kind,
                            robot: r.get(2)?,
                            only_robots: only_robots.and_then(|names| serde_json::from_str(&names).ok()),
                        })
                    })?
                    .collect()
            })
            .map_err(&sqlite)?;
        let forgotten = compaction::forgettable(&entries);
        if forgotten.is_empty() {
            return Ok(0);
        }
        let transaction = self.connection.transaction().map_err(&sqlite)?;
        for seq in &forgotten {
            transaction.execute("DELETE FROM insertion_assets WHERE seq = ?1", params![seq]).map_err(&sqlite)?;
            transaction.execute("DELETE FROM insertions WHERE seq = ?1", params![seq]).map_err(&sqlite)?;
        }
        transaction.commit().map_err(&sqlite)?;
        // The pragma frees a page per step: stepped to its end, it frees them all.
        let mut vacuum = self.connection.prepare("PRAGMA incremental_vacuum").map_err(&sqlite)?;
        let mut steps = vacuum.query([]).map_err(&sqlite)?;
        while steps.next().map_err(&sqlite)?.is_some() {}
        Ok(forgotten.len())
    }
}

/// Keeps the binary files of insertion `seq` (meshes, textures, modules).
fn keep_files(
    transaction: &rusqlite::Transaction,
    seq: i64,
    files: &std::collections::BTreeMap<String, Vec<u8>>,
) -> rusqlite::Result<()> {
    for (name, bytes) in files {
        transaction.execute(
            "INSERT INTO insertion_assets (seq, name, bytes) VALUES (?1, ?2, ?3)",
            params![seq, name, bytes],
        )?;
    }
    Ok(())
}

/// A robot's start as kept in an entry's text.
#[derive(serde::Deserialize)]
struct StartRow {
    position: [f32; 3],
    heading: Option<f32>,
}

/// Inserts one row of the log with `sql` and its `values`; the row's sequence number.
fn inserted_row(
    transaction: &rusqlite::Transaction,
    sql: &str,
    values: impl rusqlite::Params,
) -> rusqlite::Result<i64> {
    transaction.execute(sql, values)?;
    Ok(transaction.last_insert_rowid())
}
