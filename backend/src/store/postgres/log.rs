//! The labs' logs on PostgreSQL (see the SQLite store's `insertions`): appended in
//! order (an identity column), read back in that order, compacted by the same rule.

use std::collections::BTreeMap;

use tokio_postgres::types::ToSql;

use super::PgStore;
use super::client::Pg;
use crate::store::compaction::{self, Entry, Kind};
use crate::store::{Insertion, StoreError};

/// The columns of one log row, unset ones left empty as SQLite's defaults.
#[derive(Default)]
struct LogRow<'a> {
    kind: &'a str,
    owner: Option<&'a (u32, String)>,
    main_name: &'a str,
    main_text: String,
    files: String,
    robot: &'a str,
    program: Option<&'a str>,
    only_robots: Option<String>,
}

impl PgStore {
    /// Appends what was done to lab `lab`'s scene; returns its sequence number.
    pub fn record_insertion(&mut self, lab: &str, insertion: &Insertion) -> Result<i64, StoreError> {
        let files = |files: &BTreeMap<String, String>| serde_json::to_string(files).expect("file maps serialise");
        let pose = |position: &[f32; 3], heading: &Option<f32>| {
            serde_json::json!({ "position": position, "heading": heading }).to_string()
        };
        let empty = BTreeMap::new();
        let (row, assets) = match insertion {
            Insertion::Upload { owner, main_name, main_text, files: texts, assets, program, only_robots } => (
                LogRow {
                    kind: "upload",
                    owner: owner.as_ref(),
                    main_name,
                    main_text: main_text.clone(),
                    files: files(texts),
                    program: program.as_deref(),
                    only_robots: only_robots.as_ref().map(|r| serde_json::to_string(r).expect("names serialise")),
                    ..LogRow::default()
                },
                assets,
            ),
            Insertion::Program { robot, program, files: texts, binaries } => (
                LogRow { kind: "program", robot, main_name: program, files: files(texts), ..LogRow::default() },
                binaries,
            ),
            Insertion::Start { robot, position, heading } => {
                (LogRow { kind: "start", robot, main_text: pose(position, heading), ..LogRow::default() }, &empty)
            }
            Insertion::Move { name, position, heading } => {
                (LogRow { kind: "move", robot: name, main_text: pose(position, heading), ..LogRow::default() }, &empty)
            }
            Insertion::Objects { owner, main_name, main_text, files: texts } => (
                LogRow {
                    kind: "objects",
                    owner: owner.as_ref(),
                    main_name,
                    main_text: main_text.clone(),
                    files: files(texts),
                    ..LogRow::default()
                },
                &empty,
            ),
            Insertion::Room { change } => (
                LogRow {
                    kind: "room",
                    main_text: serde_json::to_string(change).expect("a room change serialises"),
                    ..LogRow::default()
                },
                &empty,
            ),
            Insertion::ObjectRemoval { name } => {
                (LogRow { kind: "object_removal", robot: name, ..LogRow::default() }, &empty)
            }
            Insertion::Removal { robot } => (LogRow { kind: "removal", robot, ..LogRow::default() }, &empty),
        };
        let files = if row.files.is_empty() { "{}".to_owned() } else { row.files.clone() };
        self.pg.transaction(|pg| {
            let values: [&(dyn ToSql + Sync); 10] = [
                &lab,
                &row.kind,
                &row.owner.map(|o| i64::from(o.0)),
                &row.owner.map(|o| o.1.as_str()),
                &row.main_name,
                &row.main_text,
                &files,
                &row.robot,
                &row.program,
                &row.only_robots,
            ];
            let inserted = pg.query_one(
                "INSERT INTO insertions (lab, kind, owner_id, owner_name, main_name, main_text, files, robot, program,
                     only_robots)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING seq",
                &values,
            )?;
            let seq: i64 = pg.get(&inserted, 0)?;
            for (name, bytes) in assets {
                pg.execute(
                    "INSERT INTO insertion_assets (seq, name, bytes) VALUES ($1, $2, $3)",
                    &[&seq, name, bytes],
                )?;
            }
            Ok(seq)
        })
    }

    /// Takes back insertion `seq` (kept before the lab was asked, and refused by it).
    pub fn forget_insertion(&mut self, seq: i64) -> Result<(), StoreError> {
        self.pg.transaction(|pg| forget(pg, seq))
    }

    /// What was done to lab `lab`'s scene, in order, each with its sequence number.
    pub fn insertions(&self, lab: &str) -> Result<Vec<(i64, Insertion)>, StoreError> {
        let pg = &self.pg;
        let rows = pg.query(
            "SELECT seq, kind, owner_id, owner_name, main_name, main_text, files, robot, program, only_robots
             FROM insertions WHERE lab = $1 ORDER BY seq",
            &[&lab],
        )?;
        let mut insertions = Vec::with_capacity(rows.len());
        for row in &rows {
            let seq: i64 = pg.get(row, 0)?;
            let kind: &str = pg.get(row, 1)?;
            let owner = pg.get::<Option<i64>>(row, 2)?.map(|id| id as u32).zip(pg.get::<Option<String>>(row, 3)?);
            let main_name: String = pg.get(row, 4)?;
            let main_text: String = pg.get(row, 5)?;
            let files: BTreeMap<String, String> = serde_json::from_str(pg.get(row, 6)?).unwrap_or_default();
            let robot: String = pg.get(row, 7)?;
            let corrupt = |what: String| StoreError::Corrupt { path: pg.shown().to_owned(), what };
            let insertion = match kind {
                "object_removal" => Insertion::ObjectRemoval { name: robot },
                "objects" => Insertion::Objects { owner, main_name, main_text, files },
                "removal" => Insertion::Removal { robot },
                "room" => Insertion::Room {
                    change: serde_json::from_str(&main_text)
                        .map_err(|source| corrupt(format!("the change of the room kept as entry {seq}: {source}")))?,
                },
                "start" => {
                    let start: Pose = serde_json::from_str(&main_text).map_err(|source| {
                        corrupt(format!("the start of robot {robot} kept as entry {seq}: {source}"))
                    })?;
                    Insertion::Start { robot, position: start.position, heading: start.heading }
                }
                "move" => {
                    let pose: Pose = serde_json::from_str(&main_text)
                        .map_err(|source| corrupt(format!("the move of {robot} kept as entry {seq}: {source}")))?;
                    Insertion::Move { name: robot, position: pose.position, heading: pose.heading }
                }
                "program" => Insertion::Program { robot, program: main_name, files, binaries: self.assets(seq)? },
                _ => Insertion::Upload {
                    owner,
                    main_name,
                    main_text,
                    files,
                    assets: self.assets(seq)?,
                    program: pg.get(row, 8)?,
                    only_robots: pg.get::<Option<&str>>(row, 9)?.and_then(|names| serde_json::from_str(names).ok()),
                },
            };
            insertions.push((seq, insertion));
        }
        Ok(insertions)
    }

    fn assets(&self, seq: i64) -> Result<BTreeMap<String, Vec<u8>>, StoreError> {
        let rows = self.pg.query("SELECT name, bytes FROM insertion_assets WHERE seq = $1", &[&seq])?;
        rows.iter().map(|row| Ok((self.pg.get(row, 0)?, self.pg.get(row, 1)?))).collect()
    }

    /// Notes that upload `seq` added robots `names` and nothing else.
    pub fn note_only_robots(&self, seq: i64, names: &[String]) -> Result<(), StoreError> {
        let names = serde_json::to_string(names).expect("names serialise");
        self.pg
            .execute("UPDATE insertions SET only_robots = $2 WHERE seq = $1 AND kind = 'upload'", &[&seq, &names])
            .map(|_| ())
    }

    /// Forgets what no longer matters in lab `lab`'s log (the SQLite store's rule, in
    /// `compaction`); how many entries went.
    pub fn compact(&mut self, lab: &str) -> Result<usize, StoreError> {
        let pg = &self.pg;
        let rows =
            pg.query("SELECT seq, kind, robot, only_robots FROM insertions WHERE lab = $1 ORDER BY seq", &[&lab])?;
        let entries = rows
            .iter()
            .map(|row| {
                let kind = match pg.get::<&str>(row, 1)? {
                    "upload" => Kind::Upload,
                    "program" => Kind::Program,
                    "start" => Kind::Start,
                    "move" => Kind::Move,
                    "room" => Kind::Room,
                    "removal" => Kind::Removal,
                    _ => Kind::Kept,
                };
                Ok(Entry {
                    seq: pg.get(row, 0)?,
                    kind,
                    robot: pg.get(row, 2)?,
                    only_robots: pg.get::<Option<&str>>(row, 3)?.and_then(|names| serde_json::from_str(names).ok()),
                })
            })
            .collect::<Result<Vec<Entry>, StoreError>>()?;
        let forgotten = compaction::forgettable(&entries);
        if forgotten.is_empty() {
            return Ok(0);
        }
        // PostgreSQL's autovacuum gives the space back.
        pg.transaction(|pg| forgotten.iter().try_for_each(|seq| forget(pg, *seq)))?;
        Ok(forgotten.len())
    }
}

fn forget(pg: &Pg, seq: i64) -> Result<(), StoreError> {
    pg.execute("DELETE FROM insertion_assets WHERE seq = $1", &[&seq])?;
    pg.execute("DELETE FROM insertions WHERE seq = $1", &[&seq]).map(|_| ())
}

/// A robot's start, or a thing's pose, as kept in an entry's text.
#[derive(serde::Deserialize)]
struct Pose {
    position: [f32; 3],
    heading: Option<f32>,
}
