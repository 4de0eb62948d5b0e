//! Where finished attempts at labs' challenges are kept: a SQLite file of their own
//! beside the database (`vlab.db` → `vlab.attempts.db`), so a board and its replays
//! outlive a restart without swelling the file of labs and sessions.
//!
//! An attempt is a row (who, what, how it ended, its console as JSON); its replay is a
//! row of its own (JSON, zstd-compressed). Each participant keeps the replays of her
//! latest [`REPLAYS_KEPT`] attempts in a lab and of her best: older ones go, their
//! rows stay.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};
use vlab_protocol::{AttemptProgress, ConsoleLine, UserId};

use super::StoreError;

const ATTEMPTS_SCHEMA_VERSION: i64 = 1;
/// zstd's level for replays: its fast end (a replay is written once, when its attempt
/// ends, on an attempts worker).
pub(super) const COMPRESSION_LEVEL: i32 = 3;
/// A replay never decompresses past this (a 60 s attempt is well under 2 MB).
pub(super) const MAX_REPLAY_BYTES: usize = 64 * 1024 * 1024;
/// Replays kept per participant and lab, besides her best attempt's.
pub const REPLAYS_KEPT: usize = 10;

/// The attempts file of database `db`.
pub fn attempts_file_of(db: &Path) -> PathBuf {
    let mut name = db.file_stem().unwrap_or_default().to_os_string();
    name.push(".attempts.db");
    db.with_file_name(name)
}

/// A finished attempt as kept.
#[derive(Clone, Debug, PartialEq)]
pub struct AttemptRow {
    /// Its number.
    pub id: u64,
    /// Its lab.
    pub lab: String,
    /// The robot tried.
    pub robot: String,
    /// Whose attempt it counts as (the robot's owner).
    pub user: UserId,
    /// That participant's name when it ran.
    pub name: String,
    /// The challenge's title.
    pub challenge: String,
    /// The trial's seed.
    pub seed: u64,
    /// How it ended.
    pub status: AttemptProgress,
    /// Why it failed, or the program's error.
    pub reason: Option<String>,
    /// Its score, where the rule gives one.
    pub score: Option<f64>,
    /// Simulation seconds it took.
    pub sim_secs: f64,
    /// The robot's console.
    pub console: Vec<ConsoleLine>,
}

/// The attempts file.
pub struct SqliteAttemptStore {
    connection: Connection,
    path: String,
    /// The last number [`SqliteAttemptStore::next_id`] gave (`None`: none yet).
    last_given: Option<u64>,
}

impl SqliteAttemptStore {
    /// Opens (or creates) the file at `path`.
    pub fn open(path: &Path) -> Result<SqliteAttemptStore, StoreError> {
        let shown = path.display().to_string();
        let connection = Connection::open(path).map_err(|source| StoreError::Sqlite { path: shown.clone(), source })?;
        SqliteAttemptStore::with(connection, shown)
    }

    /// A store in memory (tests, and servers that keep nothing).
    pub fn in_memory() -> Result<SqliteAttemptStore, StoreError> {
        let connection =
            Connection::open_in_memory().map_err(|source| StoreError::Sqlite { path: ":memory:".into(), source })?;
        SqliteAttemptStore::with(connection, ":memory:".into())
    }

    fn with(connection: Connection, path: String) -> Result<SqliteAttemptStore, StoreError> {
        let store = SqliteAttemptStore { connection, path, last_given: None };
        let version: i64 =
            store.connection.query_row("PRAGMA user_version", [], |row| row.get(0)).map_err(store.sqlite())?;
        if version > ATTEMPTS_SCHEMA_VERSION {
            return Err(StoreError::TooNew { path: store.path.clone(), found: version });
        }
        store
            .connection
            .execute_batch(
                "PRAGMA journal_mode = WAL;
                 PRAGMA synchronous = NORMAL;
                 CREATE TABLE IF NOT EXISTS attempts (
                     id        INTEGER PRIMARY KEY,
                     lab       TEXT NOT NULL,
                     robot     TEXT NOT NULL,
                     user_id   INTEGER NOT NULL,
                     name      TEXT NOT NULL,
                     challenge TEXT NOT NULL,
                     seed      TEXT NOT NULL,
                     status    TEXT NOT NULL,
                     reason    TEXT,
                     score     REAL,
                     sim_secs  REAL NOT NULL,
                     console   TEXT NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS attempts_by_lab ON attempts (lab, user_id, id);
                 CREATE TABLE IF NOT EXISTS replays (
                     id    INTEGER PRIMARY KEY REFERENCES attempts(id),
                     bytes BLOB NOT NULL
                 );
                 PRAGMA user_version = 1;",
            )
            .map_err(store.sqlite())?;
        Ok(store)
    }

    fn sqlite(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        move |source| StoreError::Sqlite { path: self.path.clone(), source }
    }

    fn corrupt(&self, what: String) -> StoreError {
        StoreError::Corrupt { path: self.path.clone(), what }
    }

    /// The highest attempt number kept (0 when none is).
    pub fn last_id(&self) -> Result<u64, StoreError> {
        let last: Option<i64> =
            self.connection.query_row("SELECT MAX(id) FROM attempts", [], |row| row.get(0)).map_err(self.sqlite())?;
        Ok(last.unwrap_or(0) as u64)
    }

    /// The number the next attempt takes: one past the highest kept, then counted here.
    /// The file is one server's own (a second server has a file of its own), so a
    /// counter in memory is enough, and numbers go on after a restart.
    pub fn next_id(&mut self) -> Result<u64, StoreError> {
        let last = match self.last_given {
            Some(last) => last,
            None => self.last_id()?,
        };
        self.last_given = Some(last + 1);
        Ok(last + 1)
    }

    /// Keeps a finished attempt and its replay's JSON (compressed here), then lets the
    /// participant's older replays go.
    pub fn save(&mut self, row: &AttemptRow, replay_json: Option<&[u8]>) -> Result<(), StoreError> {
        let console = serde_json::to_string(&row.console).expect("console lines serialise");
        let status = serde_json::to_value(row.status).expect("a status serialises");
        let transaction =
            self.connection.transaction().map_err(|source| StoreError::Sqlite { path: self.path.clone(), source })?;
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite { path: path.clone(), source };
        transaction
            .execute(
                "INSERT INTO attempts (id, lab, robot, user_id, name, challenge, seed, status, reason, score, sim_secs, console)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    row.id as i64,
                    row.lab,
                    row.robot,
                    row.user,
                    row.name,
                    row.challenge,
                    row.seed.to_string(),
                    status.as_str().unwrap_or("error"),
                    row.reason,
                    row.score,
                    row.sim_secs,
                    console,
                ],
            )
            .map_err(&sqlite)?;
        if let Some(json) = replay_json {
            let bytes = zstd::bulk::compress(json, COMPRESSION_LEVEL).expect("compressing into memory cannot fail");
            transaction
                .execute("INSERT INTO replays (id, bytes) VALUES (?1, ?2)", params![row.id as i64, bytes])
                .map_err(&sqlite)?;
        }
        let kept = kept_replays(&transaction, &row.lab, row.user).map_err(&sqlite)?;
        transaction
            .execute(
                &format!(
                    "DELETE FROM replays WHERE id IN (SELECT id FROM attempts WHERE lab = ?1 AND user_id = ?2)
                     AND id NOT IN ({})",
                    kept.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
                ),
                params![row.lab, row.user],
            )
            .map_err(&sqlite)?;
        transaction.commit().map_err(&sqlite)
    }

    /// Attempt `id`, if kept.
    pub fn row(&self, id: u64) -> Result<Option<AttemptRow>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM attempts WHERE id = ?1");
        let raw = self.connection.query_row(&sql, params![id as i64], read_raw).optional().map_err(self.sqlite())?;
        raw.map(|raw| self.parse(raw)).transpose()
    }

    /// Lab `lab`'s attempts, newest first; only `user`'s when given.
    pub fn rows(&self, lab: &str, user: Option<UserId>) -> Result<Vec<AttemptRow>, StoreError> {
        let sql =
            format!("SELECT {COLUMNS} FROM attempts WHERE lab = ?1 AND (?2 IS NULL OR user_id = ?2) ORDER BY id DESC");
        let raws: Vec<RawRow> = self
            .connection
            .prepare(&sql)
            .and_then(|mut statement| statement.query_map(params![lab, user], read_raw)?.collect())
            .map_err(self.sqlite())?;
        raws.into_iter().map(|raw| self.parse(raw)).collect()
    }

    /// The JSON of attempt `id`'s replay, if still kept.
    pub fn replay(&self, id: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let bytes: Option<Vec<u8>> = self
            .connection
            .query_row("SELECT bytes FROM replays WHERE id = ?1", params![id as i64], |row| row.get(0))
            .optional()
            .map_err(self.sqlite())?;
        bytes
            .map(|bytes| {
                zstd::bulk::decompress(&bytes, MAX_REPLAY_BYTES)
                    .map_err(|e| self.corrupt(format!("the replay of attempt {id} does not decompress: {e}")))
            })
            .transpose()
    }

    fn parse(&self, raw: RawRow) -> Result<AttemptRow, StoreError> {
        parse(raw, &self.path)
    }
}

pub(super) const COLUMNS: &str =
    "id, lab, robot, user_id, name, challenge, seed, status, reason, score, sim_secs, console";

/// A row as the database gives it, before its JSON and numbers are read.
pub(super) struct RawRow {
    pub id: i64,
    pub lab: String,
    pub robot: String,
    pub user: UserId,
    pub name: String,
    pub challenge: String,
    pub seed: String,
    pub status: String,
    pub reason: Option<String>,
    pub score: Option<f64>,
    pub sim_secs: f64,
    pub console: String,
}

/// A row of `COLUMNS` as SQLite gives it.
fn read_raw(row: &rusqlite::Row<'_>) -> rusqlite::Result<RawRow> {
    Ok(RawRow {
        id: row.get(0)?,
        lab: row.get(1)?,
        robot: row.get(2)?,
        user: row.get(3)?,
        name: row.get(4)?,
        challenge: row.get(5)?,
        seed: row.get(6)?,
        status: row.get(7)?,
        reason: row.get(8)?,
        score: row.get(9)?,
        sim_secs: row.get(10)?,
        console: row.get(11)?,
    })
}

/// The attempts of `user` in `lab` whose replays stay: her latest [`REPLAYS_KEPT`], and
/// her best (solved first, then the highest score, then the lowest time: the board
/// breaks ties by its rule, and keeps this one's replay in every case that matters).
fn kept_replays(connection: &Connection, lab: &str, user: UserId) -> rusqlite::Result<Vec<i64>> {
    let mut kept: Vec<i64> = connection
        .prepare("SELECT id FROM attempts WHERE lab = ?1 AND user_id = ?2 ORDER BY id DESC LIMIT ?3")?
        .query_map(params![lab, user, REPLAYS_KEPT as i64], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let best: Vec<i64> = connection
        .prepare(
            "SELECT id FROM attempts WHERE lab = ?1 AND user_id = ?2
             ORDER BY (status = 'solved') DESC, score DESC, sim_secs ASC LIMIT 1",
        )?
        .query_map(params![lab, user], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    kept.extend(best);
    Ok(kept)
}

/// A kept row read: its status, console and seed parsed (`path`: for errors).
pub(super) fn parse(raw: RawRow, path: &str) -> Result<AttemptRow, StoreError> {
    let id = raw.id as u64;
    let bad = |what: &str| StoreError::Corrupt { path: path.to_owned(), what: format!("attempt {id}: {what}") };
    let status = serde_json::from_value(serde_json::Value::String(raw.status)).map_err(|_| bad("unknown status"))?;
    let console = serde_json::from_str(&raw.console).map_err(|_| bad("its console does not read"))?;
    let seed = raw.seed.parse().map_err(|_| bad("its seed is not a number"))?;
    Ok(AttemptRow {
        id,
        lab: raw.lab,
        robot: raw.robot,
        user: raw.user,
        name: raw.name,
        challenge: raw.challenge,
        seed,
        status,
        reason: raw.reason,
        score: raw.score,
        sim_secs: raw.sim_secs,
        console,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::AttemptStore;
    use crate::store::test_pg::TestBackend;

    fn row(id: u64, user: UserId, status: AttemptProgress, score: Option<f64>) -> AttemptRow {
        AttemptRow {
            id,
            lab: "lab1".into(),
            robot: format!("bot{user}"),
            user,
            name: format!("Student {user}"),
            challenge: "Park".into(),
            seed: u64::MAX - id,
            status,
            reason: None,
            score,
            sim_secs: 12.5,
            console: vec![ConsoleLine {
                step: 1,
                time: 0.0,
                source: vlab_protocol::ConsoleSource::Print,
                text: "hi".into(),
            }],
        }
    }

    #[test]
    fn an_attempt_and_its_replay_read_back_as_kept_and_survive_reopening() {
        for backend in TestBackend::each() {
            {
                let mut store = backend.attempts();
                assert_eq!(store.last_id().unwrap(), 0);
                store.save(&row(7, 3, AttemptProgress::Solved, Some(21.5)), Some(b"{\"frames\":[]}")).unwrap();
            }
            let store = backend.attempts();
            assert_eq!(store.last_id().unwrap(), 7, "numbers go on after a restart ({})", backend.name());
            assert_eq!(store.row(7).unwrap(), Some(row(7, 3, AttemptProgress::Solved, Some(21.5))));
            assert_eq!(store.replay(7).unwrap().as_deref(), Some(&b"{\"frames\":[]}"[..]));
            assert_eq!(store.row(8).unwrap(), None);
            assert_eq!(store.rows("lab1", None).unwrap().len(), 1);
            assert!(store.rows("lab1", Some(4)).unwrap().is_empty());
        }
    }

    #[test]
    fn attempt_numbers_go_on_after_the_kept_ones_and_after_a_restart_and_two_servers_never_share_one() {
        for backend in TestBackend::each() {
            let name = backend.name();
            {
                let mut store = backend.attempts();
                assert_eq!(store.next_id().unwrap(), 1, "{name}: the first is 1");
                assert_eq!(store.next_id().unwrap(), 2, "{name}");
                store.save(&row(2, 3, AttemptProgress::Solved, Some(1.0)), None).unwrap();
            }
            let mut again = backend.attempts();
            assert_eq!(again.next_id().unwrap(), 3, "{name}: after a restart, after the highest kept");
            if let TestBackend::Postgres(_) = backend {
                // A second server on the same database: every number is new to both.
                let mut other = backend.attempts();
                let mut given: Vec<u64> = Vec::new();
                for _ in 0..5 {
                    given.push(again.next_id().unwrap());
                    given.push(other.next_id().unwrap());
                }
                let mut distinct = given.clone();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!(distinct.len(), given.len(), "{name}: {given:?}");
                assert!(given.iter().all(|&id| id > 3), "{name}: {given:?}");
                again.save(&row(given[0], 3, AttemptProgress::Failed, None), Some(b"a")).unwrap();
                other.save(&row(given[1], 4, AttemptProgress::Failed, None), Some(b"b")).unwrap();
                assert_eq!(other.replay(given[0]).unwrap().as_deref(), Some(&b"a"[..]), "both are kept, each its own");
                assert_eq!(again.replay(given[1]).unwrap().as_deref(), Some(&b"b"[..]));
            }
        }
    }

    #[test]
    fn a_database_numbered_before_its_sequence_goes_on_after_its_highest_attempt() {
        let backend = TestBackend::each().into_iter().nth(1).unwrap();
        let TestBackend::Postgres(db) = &backend else { unreachable!() };
        let pg = crate::store::postgres::client::Pg::connect(&db.url).unwrap();
        // The attempts' first step only, as a server of the version before kept them.
        crate::store::postgres::schema::migrate_to(&pg, "attempts", crate::store::postgres::schema::ATTEMPT_STEPS, 1)
            .unwrap();
        pg.batch(
            "INSERT INTO attempts (id, lab, robot, user_id, name, challenge, seed, status, sim_secs, console)
             VALUES (41, 'lab1', 'bot', 3, 'Ana', 'Park', '1', 'failed', 1.0, '[]')",
        )
        .unwrap();
        let mut store = backend.attempts();
        assert_eq!(store.next_id().unwrap(), 42);
    }

    #[test]
    fn the_attempts_file_sits_beside_the_database() {
        assert_eq!(attempts_file_of(Path::new("/var/lib/vlab/vlab.db")), Path::new("/var/lib/vlab/vlab.attempts.db"));
    }

    #[test]
    fn a_participant_keeps_the_replays_of_her_latest_attempts_and_of_her_best() {
        for backend in TestBackend::each() {
            a_participant_keeps_the_replays_of_her_latest_attempts_and_of_her_best_on(backend.attempts());
        }
    }

    fn a_participant_keeps_the_replays_of_her_latest_attempts_and_of_her_best_on(mut store: AttemptStore) {
        store.save(&row(1, 3, AttemptProgress::Solved, Some(20.0)), Some(b"best")).unwrap();
        for id in 2..=(REPLAYS_KEPT as u64 + 3) {
            store.save(&row(id, 3, AttemptProgress::Failed, None), Some(b"later")).unwrap();
        }
        store.save(&row(100, 4, AttemptProgress::Failed, None), Some(b"another's")).unwrap();
        assert!(store.replay(1).unwrap().is_some(), "her best stays");
        assert!(store.replay(2).unwrap().is_none(), "older ones go");
        assert!(store.replay(REPLAYS_KEPT as u64 + 3).unwrap().is_some());
        assert!(store.replay(4).unwrap().is_some(), "her latest {REPLAYS_KEPT} stay");
        assert!(store.replay(100).unwrap().is_some(), "another's are hers");
        assert_eq!(store.rows("lab1", Some(3)).unwrap().len(), REPLAYS_KEPT + 3, "every row stays");
        assert_eq!(store.rows("lab1", Some(3)).unwrap()[0].id, REPLAYS_KEPT as u64 + 3, "newest first");
    }
}
