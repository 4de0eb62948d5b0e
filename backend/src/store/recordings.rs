//! Where labs' recordings are kept: a SQLite file of their own beside the database
//! (`vlab.db` → `vlab.recordings.db`), so the bulky, steadily growing part never
//! slows or swells the file that holds labs and sessions, and can be deleted alone.
//!
//! A chunk is a row (its steps, its trails as JSON, its bytes compressed); a scene
//! epoch's snapshot is a row. Each lab's rows stay within a byte budget: the oldest
//! chunks go first, and the file gives their pages back (incremental auto-vacuum).

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};
use vlab_protocol::{RecordedTrail, RunSummary};

use super::StoreError;

const RECORDINGS_SCHEMA_VERSION: i64 = 2;
/// Pages given back to the file system after a trim, at most (a few MiB).
const VACUUM_PAGES: u32 = 1024;

/// The recordings file of database `db`.
pub fn recordings_file_of(db: &Path) -> PathBuf {
    let mut name = db.file_stem().unwrap_or_default().to_os_string();
    name.push(".recordings.db");
    db.with_file_name(name)
}

/// A kept chunk's place, without its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkRow {
    /// Its row id (increasing in the order chunks were kept).
    pub id: i64,
    /// Its run.
    pub run: u32,
    /// Its scene epoch.
    pub epoch: u32,
    /// Its first step.
    pub first_step: u64,
    /// Its last step.
    pub last_step: u64,
}

/// The recordings of every lab of a server.
pub struct SqliteRecordingStore {
    connection: Connection,
    path: String,
}

impl SqliteRecordingStore {
    /// Opens (creating if needed) the recordings file at `path`.
    pub fn open(path: &Path) -> Result<SqliteRecordingStore, StoreError> {
        // Students' readings and consoles are in it.
        let (connection, display) = super::open_private(path)?;
        let mut store = SqliteRecordingStore { connection, path: display };
        store.migrate()?;
        Ok(store)
    }

    /// An in-memory one (a server without a database, tests).
    pub fn in_memory() -> Result<SqliteRecordingStore, StoreError> {
        let connection =
            Connection::open_in_memory().map_err(|source| StoreError::Sqlite { path: ":memory:".into(), source })?;
        let mut store = SqliteRecordingStore { connection, path: ":memory:".into() };
        store.migrate()?;
        Ok(store)
    }

    fn sqlite(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        |source| StoreError::Sqlite { path: self.path.clone(), source }
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let version: i64 =
            self.connection.query_row("PRAGMA user_version", [], |row| row.get(0)).map_err(self.sqlite())?;
        if version > RECORDINGS_SCHEMA_VERSION {
            return Err(StoreError::TooNew { path: self.path.clone(), found: version });
        }
        if version < 1 {
            // Auto-vacuum must be chosen before the first table exists.
            self.connection
                .execute_batch(
                    "PRAGMA auto_vacuum = INCREMENTAL;
                     BEGIN;
                     CREATE TABLE IF NOT EXISTS chunks (
                         id         INTEGER PRIMARY KEY AUTOINCREMENT,
                         lab        TEXT NOT NULL,
                         run        INTEGER NOT NULL,
                         epoch      INTEGER NOT NULL,
                         first_step INTEGER NOT NULL,
                         last_step  INTEGER NOT NULL,
                         first_time REAL NOT NULL,
                         last_time  REAL NOT NULL,
                         trails     TEXT NOT NULL,
                         bytes      INTEGER NOT NULL,
                         data       BLOB NOT NULL
                     );
                     CREATE INDEX IF NOT EXISTS chunks_by_step ON chunks (lab, run, first_step);
                     CREATE TABLE IF NOT EXISTS scenes (
                         lab      TEXT NOT NULL,
                         run      INTEGER NOT NULL,
                         epoch    INTEGER NOT NULL,
                         snapshot TEXT NOT NULL,
                         PRIMARY KEY (lab, run, epoch)
                     );
                     PRAGMA user_version = 1;
                     COMMIT;",
                )
                .map_err(self.sqlite())?;
        }
        if version < 2 {
            // A scene's size is kept beside it, so the budget's sum never reads the
            // snapshots themselves; chunks are found by epoch to tell which scenes
            // no kept chunk needs.
            self.connection
                .execute_batch(
                    "BEGIN;
                     ALTER TABLE scenes ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
                     UPDATE scenes SET bytes = octet_length(snapshot);
                     CREATE INDEX IF NOT EXISTS chunks_by_epoch ON chunks (lab, run, epoch);
                     PRAGMA user_version = 2;
                     COMMIT;",
                )
                .map_err(self.sqlite())?;
        }
        // Chunks are written every few seconds per lab: a write-ahead log keeps those
        // writes short and lets readers (a viewer seeking) go on meanwhile. A crash may
        // lose the last chunk, never corrupt the file.
        self.connection
            .execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
            .map_err(self.sqlite())?;
        Ok(())
    }

    /// Keeps a chunk of lab `lab`: its place, its trails (JSON) and its encoded bytes.
    pub fn keep_chunk(
        &self,
        lab: &str,
        row: &ChunkRow,
        times: (f64, f64),
        trails: &[RecordedTrail],
        data: &[u8],
    ) -> Result<i64, StoreError> {
        let trails = serde_json::to_string(trails).expect("trails serialise");
        let bytes = (data.len() + trails.len()) as i64;
        self.connection
            .execute(
                "INSERT INTO chunks (lab, run, epoch, first_step, last_step, first_time, last_time, trails, bytes, data)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    lab,
                    row.run,
                    row.epoch,
                    row.first_step as i64,
                    row.last_step as i64,
                    times.0,
                    times.1,
                    trails,
                    bytes,
                    data
                ],
            )
            .map_err(self.sqlite())?;
        Ok(self.connection.last_insert_rowid())
    }

    /// Keeps the scene snapshot (JSON) of `epoch` in `run` of lab `lab`.
    pub fn keep_scene(&self, lab: &str, run: u32, epoch: u32, snapshot: &str) -> Result<(), StoreError> {
        self.connection
            .execute(
                "INSERT OR REPLACE INTO scenes (lab, run, epoch, snapshot, bytes) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![lab, run, epoch, snapshot, snapshot.len() as i64],
            )
            .map_err(self.sqlite())?;
        Ok(())
    }

    /// The bytes lab `lab`'s recording takes (chunks and scenes).
    pub fn bytes(&self, lab: &str) -> Result<u64, StoreError> {
        let chunks: i64 = self
            .connection
            .query_row("SELECT COALESCE(SUM(bytes), 0) FROM chunks WHERE lab = ?1", [lab], |r| r.get(0))
            .map_err(self.sqlite())?;
        let scenes: i64 = self
            .connection
            .query_row("SELECT COALESCE(SUM(bytes), 0) FROM scenes WHERE lab = ?1", [lab], |r| r.get(0))
            .map_err(self.sqlite())?;
        Ok((chunks + scenes) as u64)
    }

    /// Drops lab `lab`'s oldest chunks (and the scenes no chunk needs any more) until
    /// its recording takes at most `budget` bytes; returns how many chunks went.
    ///
    /// Called after every kept chunk, so it costs index lookups, never a read of what
    /// is kept: the sizes are columns of their own.
    pub fn trim(&self, lab: &str, budget: u64) -> Result<usize, StoreError> {
        let over = self.bytes(lab)?.saturating_sub(budget);
        if over == 0 {
            return Ok(0);
        }
        let mut oldest = self
            .connection
            .prepare("SELECT id, bytes FROM chunks WHERE lab = ?1 ORDER BY id")
            .map_err(self.sqlite())?;
        let mut rows = oldest.query([lab]).map_err(self.sqlite())?;
        let (mut doomed, mut freed) = (Vec::new(), 0u64);
        while freed < over
            && let Some(row) = rows.next().map_err(self.sqlite())?
        {
            doomed.push(row.get::<_, i64>(0).map_err(self.sqlite())?);
            freed += row.get::<_, i64>(1).map_err(self.sqlite())? as u64;
        }
        drop(rows);
        for id in &doomed {
            self.connection.execute("DELETE FROM chunks WHERE id = ?1", [id]).map_err(self.sqlite())?;
        }
        // A scene no kept chunk shows: one of an older run, or of an epoch of the
        // current run before its oldest kept chunk (later ones may still get chunks).
        self.connection
            .execute(
                "DELETE FROM scenes WHERE lab = ?1 AND NOT EXISTS (
                     SELECT 1 FROM chunks c WHERE c.lab = scenes.lab AND c.run = scenes.run AND c.epoch = scenes.epoch)
                 AND (run < (SELECT COALESCE(MAX(run), 0) FROM chunks WHERE lab = ?1)
                      OR epoch < (SELECT MIN(c.epoch) FROM chunks c WHERE c.lab = scenes.lab AND c.run = scenes.run))",
                [lab],
            )
            .map_err(self.sqlite())?;
        self.connection.execute_batch(&format!("PRAGMA incremental_vacuum({VACUUM_PAGES});")).map_err(self.sqlite())?;
        Ok(doomed.len())
    }

    /// The chunk of lab `lab`'s run `run` that holds `step`: the last one starting at
    /// or before it.
    pub fn chunk_at(&self, lab: &str, run: u32, step: u64) -> Result<Option<(ChunkRow, Vec<u8>)>, StoreError> {
        self.connection
            .query_row(
                "SELECT id, run, epoch, first_step, last_step, data FROM chunks
                 WHERE lab = ?1 AND run = ?2 AND first_step <= ?3 ORDER BY first_step DESC, id DESC LIMIT 1",
                params![lab, run, step as i64],
                |r| Ok((chunk_row(r)?, r.get(5)?)),
            )
            .optional()
            .map_err(self.sqlite())
    }

    /// The chunks of lab `lab`'s run `run` that overlap steps `from..=to`, in order,
    /// with their bytes.
    pub fn chunks(&self, lab: &str, run: u32, from: u64, to: u64) -> Result<Vec<(ChunkRow, Vec<u8>)>, StoreError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT id, run, epoch, first_step, last_step, data FROM chunks
                 WHERE lab = ?1 AND run = ?2 AND last_step >= ?3 AND first_step <= ?4 ORDER BY id",
            )
            .map_err(self.sqlite())?;
        let rows = statement
            .query_map(params![lab, run, from as i64, to as i64], |r| Ok((chunk_row(r)?, r.get(5)?)))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(self.sqlite())?;
        Ok(rows)
    }

    /// The trails kept with lab `lab`'s run `run` chunks that overlap `steps`, in
    /// order. Chunks are at most `longest` steps long: only those starting within that
    /// many steps before the range are looked at, so the cost follows the range, never
    /// the run's length.
    pub fn trails(
        &self,
        lab: &str,
        run: u32,
        steps: RangeInclusive<u64>,
        longest: u64,
    ) -> Result<Vec<RecordedTrail>, StoreError> {
        let (from, to) = (*steps.start(), *steps.end());
        let mut statement = self
            .connection
            .prepare(
                "SELECT trails FROM chunks WHERE lab = ?1 AND run = ?2 AND first_step BETWEEN ?3 AND ?4
                 AND last_step >= ?5 ORDER BY id",
            )
            .map_err(self.sqlite())?;
        let earliest = from.saturating_sub(longest);
        let texts = statement
            .query_map(params![lab, run, earliest as i64, to as i64, from as i64], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(self.sqlite())?;
        // A row that does not read is skipped: trails are a view, never worth a failure.
        Ok(texts.iter().flat_map(|t| serde_json::from_str::<Vec<RecordedTrail>>(t).unwrap_or_default()).collect())
    }

    /// The snapshot JSON of `epoch` in `run` of lab `lab`, if kept.
    pub fn scene(&self, lab: &str, run: u32, epoch: u32) -> Result<Option<String>, StoreError> {
        self.connection
            .query_row(
                "SELECT snapshot FROM scenes WHERE lab = ?1 AND run = ?2 AND epoch = ?3",
                params![lab, run, epoch],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.sqlite())
    }

    /// Every run of lab `lab` still (partly) kept, oldest first.
    pub fn runs(&self, lab: &str) -> Result<Vec<RunSummary>, StoreError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT run, MIN(first_step), MAX(last_step), MIN(first_time), MAX(last_time) FROM chunks
                 WHERE lab = ?1 GROUP BY run ORDER BY run",
            )
            .map_err(self.sqlite())?;
        let runs = statement
            .query_map([lab], |r| {
                Ok(RunSummary {
                    run: r.get(0)?,
                    first_step: r.get::<_, i64>(1)? as u64,
                    last_step: r.get::<_, i64>(2)? as u64,
                    first_time: r.get(3)?,
                    last_time: r.get(4)?,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(self.sqlite())?;
        Ok(runs)
    }

    /// The highest run number lab `lab` has kept (scenes or chunks), if any.
    pub fn last_run(&self, lab: &str) -> Result<Option<u32>, StoreError> {
        self.connection
            .query_row(
                "SELECT MAX(run) FROM (SELECT run FROM chunks WHERE lab = ?1 UNION ALL SELECT run FROM scenes WHERE lab = ?1)",
                [lab],
                |r| r.get(0),
            )
            .map_err(self.sqlite())
    }

    /// Copies chunk `id` into run `to` as it is.
    pub fn copy_chunk(&self, id: i64, to: u32) -> Result<(), StoreError> {
        self.connection
            .execute(
                "INSERT INTO chunks (lab, run, epoch, first_step, last_step, first_time, last_time, trails, bytes, data)
                 SELECT lab, ?2, epoch, first_step, last_step, first_time, last_time, trails, bytes, data
                 FROM chunks WHERE id = ?1",
                params![id, to],
            )
            .map_err(self.sqlite())?;
        Ok(())
    }

    /// Copies every scene of lab `lab`'s run `from` into run `to`.
    pub fn copy_scenes(&self, lab: &str, from: u32, to: u32) -> Result<(), StoreError> {
        self.connection
            .execute(
                "INSERT OR REPLACE INTO scenes (lab, run, epoch, snapshot)
                 SELECT lab, ?3, epoch, snapshot FROM scenes WHERE lab = ?1 AND run = ?2",
                params![lab, from, to],
            )
            .map_err(self.sqlite())?;
        Ok(())
    }

    /// Forgets everything lab `lab` recorded (the lab was closed).
    pub fn forget(&self, lab: &str) -> Result<(), StoreError> {
        self.connection.execute("DELETE FROM chunks WHERE lab = ?1", [lab]).map_err(self.sqlite())?;
        self.connection.execute("DELETE FROM scenes WHERE lab = ?1", [lab]).map_err(self.sqlite())?;
        self.connection.execute_batch(&format!("PRAGMA incremental_vacuum({VACUUM_PAGES});")).map_err(self.sqlite())?;
        Ok(())
    }
}

fn chunk_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChunkRow> {
    Ok(ChunkRow {
        id: r.get(0)?,
        run: r.get(1)?,
        epoch: r.get(2)?,
        first_step: r.get::<_, i64>(3)? as u64,
        last_step: r.get::<_, i64>(4)? as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::RecordingStore;
    use crate::store::test_pg::TestBackend;

    fn row(run: u32, first_step: u64, last_step: u64) -> ChunkRow {
        ChunkRow { id: 0, run, epoch: 1, first_step, last_step }
    }

    fn keep(store: &RecordingStore, run: u32, first: u64, last: u64, bytes: usize) {
        let times = (first as f64 / 240.0, last as f64 / 240.0);
        store.keep_chunk("demo", &row(run, first, last), times, &[], &vec![7; bytes]).unwrap();
    }

    #[test]
    fn the_chunk_holding_a_step_is_the_last_one_starting_before_it() {
        for backend in TestBackend::each() {
            the_chunk_holding_a_step_is_the_last_one_starting_before_it_on(&backend.recordings());
        }
    }

    fn the_chunk_holding_a_step_is_the_last_one_starting_before_it_on(store: &RecordingStore) {
        keep(store, 1, 0, 480, 10);
        keep(store, 1, 480, 960, 10);
        keep(store, 2, 0, 480, 10);
        let (found, _) = store.chunk_at("demo", 1, 700).unwrap().unwrap();
        assert_eq!((found.first_step, found.last_step), (480, 960));
        assert_eq!(store.chunk_at("demo", 1, 480).unwrap().unwrap().0.first_step, 480);
        assert_eq!(store.chunk_at("demo", 2, 700).unwrap().unwrap().0.run, 2);
        assert!(store.chunk_at("other", 1, 700).unwrap().is_none());
        let spans: Vec<_> = store.chunks("demo", 1, 500, 2000).unwrap().iter().map(|(r, _)| r.first_step).collect();
        assert_eq!(spans, vec![480]);
        assert_eq!(store.last_run("demo").unwrap(), Some(2));
        assert_eq!(store.last_run("other").unwrap(), None);
    }

    #[test]
    fn trails_are_read_from_the_chunks_overlapping_the_range_only() {
        for backend in TestBackend::each() {
            trails_are_read_from_the_chunks_overlapping_the_range_only_on(&backend.recordings());
        }
    }

    fn trails_are_read_from_the_chunks_overlapping_the_range_only_on(store: &RecordingStore) {
        let point = |step| vlab_protocol::TrailPoint { step, x: 0.0, y: 0.0, theta: 0.0 };
        for i in 0..10u64 {
            let trail = RecordedTrail { robot: "r".into(), truth: vec![point(i * 480)], ..Default::default() };
            let times = (i as f64 * 2.0, (i + 1) as f64 * 2.0);
            store.keep_chunk("demo", &row(1, i * 480, (i + 1) * 480), times, &[trail], &[7; 10]).unwrap();
        }
        let steps = |from, to| -> Vec<u64> {
            let trails = store.trails("demo", 1, from..=to, 480).unwrap();
            trails.iter().flat_map(|t| t.truth.iter().map(|p| p.step)).collect()
        };
        // Steps 2000..=3000 lie in the chunks starting at 1920, 2400 and 2880.
        assert_eq!(steps(2000, 3000), vec![1920, 2400, 2880]);
        assert_eq!(steps(0, 100), vec![0]);
        assert_eq!(steps(4800, 9000), vec![4320], "the last chunk ends at 4800");
    }

    #[test]
    fn a_lab_over_its_budget_loses_its_oldest_chunks_first() {
        for backend in TestBackend::each() {
            a_lab_over_its_budget_loses_its_oldest_chunks_first_on(&backend.recordings());
        }
    }

    fn a_lab_over_its_budget_loses_its_oldest_chunks_first_on(store: &RecordingStore) {
        for i in 0..10 {
            keep(store, 1, i * 480, (i + 1) * 480, 1000);
        }
        keep_other(store);
        let dropped = store.trim("demo", 4500).unwrap();
        assert_eq!(dropped, 6);
        let runs = store.runs("demo").unwrap();
        assert_eq!((runs[0].first_step, runs[0].last_step), (6 * 480, 10 * 480));
        assert!(store.bytes("demo").unwrap() <= 4500);
        assert_eq!(store.runs("other").unwrap().len(), 1, "another lab's recording is untouched");
    }

    #[test]
    fn scenes_no_kept_chunk_shows_go_with_the_trim_in_the_current_run_too() {
        for backend in TestBackend::each() {
            scenes_no_kept_chunk_shows_go_with_the_trim_in_the_current_run_too_on(&backend.recordings());
        }
    }

    fn scenes_no_kept_chunk_shows_go_with_the_trim_in_the_current_run_too_on(store: &RecordingStore) {
        // A long run whose scene changed at every chunk (robots added and removed).
        for epoch in 0..10u32 {
            store.keep_scene("demo", 1, epoch, &"s".repeat(500)).unwrap();
            let row = ChunkRow { id: 0, run: 1, epoch, first_step: u64::from(epoch) * 480, last_step: 480 };
            store.keep_chunk("demo", &row, (0.0, 2.0), &[], &[7; 1000]).unwrap();
        }
        // The newest scene has no chunk yet: it is the one being recorded.
        store.keep_scene("demo", 1, 10, &"s".repeat(500)).unwrap();
        // Each chunk is its 1000 bytes and its trails' `[]`.
        assert_eq!(store.bytes("demo").unwrap(), 10 * 1002 + 11 * 500);
        let dropped = store.trim("demo", 11_000).unwrap();
        assert_eq!(dropped, 5, "the 4520 bytes over take the 5 oldest chunks");
        let kept: Vec<u32> = (0..=10).filter(|e| store.scene("demo", 1, *e).unwrap().is_some()).collect();
        assert_eq!(kept, vec![5, 6, 7, 8, 9, 10], "the scenes of kept chunks and the one still open");
        assert_eq!(store.bytes("demo").unwrap(), 5 * 1002 + 6 * 500);
        assert_eq!(store.trim("demo", 11_000).unwrap(), 0, "within the budget nothing more goes");
    }

    #[test]
    fn a_version_1_file_learns_its_scenes_sizes() {
        let connection = Connection::open_in_memory().unwrap();
        connection
            .execute_batch(
                "CREATE TABLE chunks (id INTEGER PRIMARY KEY AUTOINCREMENT, lab TEXT NOT NULL, run INTEGER NOT NULL,
                     epoch INTEGER NOT NULL, first_step INTEGER NOT NULL, last_step INTEGER NOT NULL,
                     first_time REAL NOT NULL, last_time REAL NOT NULL, trails TEXT NOT NULL, bytes INTEGER NOT NULL,
                     data BLOB NOT NULL);
                 CREATE INDEX chunks_by_step ON chunks (lab, run, first_step);
                 CREATE TABLE scenes (lab TEXT NOT NULL, run INTEGER NOT NULL, epoch INTEGER NOT NULL,
                     snapshot TEXT NOT NULL, PRIMARY KEY (lab, run, epoch));
                 INSERT INTO scenes VALUES ('demo', 1, 0, 'héllo');
                 PRAGMA user_version = 1;",
            )
            .unwrap();
        let mut store = SqliteRecordingStore { connection, path: ":memory:".into() };
        store.migrate().unwrap();
        assert_eq!(store.bytes("demo").unwrap(), 6, "bytes, not characters");
        assert_eq!(store.scene("demo", 1, 0).unwrap().as_deref(), Some("héllo"));
    }

    fn keep_other(store: &RecordingStore) {
        store.keep_chunk("other", &row(1, 0, 480), (0.0, 2.0), &[], &[1; 3000]).unwrap();
    }

    #[test]
    fn the_recordings_file_sits_beside_the_database() {
        assert_eq!(
            recordings_file_of(Path::new("/var/lib/vlab/vlab.db")),
            Path::new("/var/lib/vlab/vlab.recordings.db")
        );
    }
}
