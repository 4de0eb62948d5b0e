//! Labs' recordings on PostgreSQL (see the SQLite store's `recordings`): chunks and
//! scenes in tables of their own, each lab within its byte budget, oldest chunks first.

use std::ops::RangeInclusive;

use tokio_postgres::Row;
use vlab_protocol::{RecordedTrail, RunSummary};

use super::client::Pg;
use super::schema;
use crate::store::StoreError;
use crate::store::recordings::ChunkRow;

/// The recordings of every lab, in tables of their own in the server's database.
pub struct PgRecordingStore {
    pub(in crate::store) pg: Pg,
}

impl PgRecordingStore {
    /// Connects to the database at `url` and brings the recordings' tables up to date.
    pub fn open(url: &str) -> Result<PgRecordingStore, StoreError> {
        let pg = Pg::connect(url)?;
        schema::migrate(&pg, "recordings", schema::RECORDING_STEPS)?;
        Ok(PgRecordingStore { pg })
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
        let row = self.pg.query_one(
            "INSERT INTO chunks (lab, run, epoch, first_step, last_step, first_time, last_time, trails, bytes, data)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
            &[
                &lab,
                &i64::from(row.run),
                &i64::from(row.epoch),
                &(row.first_step as i64),
                &(row.last_step as i64),
                &times.0,
                &times.1,
                &trails,
                &bytes,
                &data,
            ],
        )?;
        self.pg.get(&row, 0)
    }

    /// Keeps the scene snapshot (JSON) of `epoch` in `run` of lab `lab`.
    pub fn keep_scene(&self, lab: &str, run: u32, epoch: u32, snapshot: &str) -> Result<(), StoreError> {
        self.pg
            .execute(
                "INSERT INTO scenes (lab, run, epoch, snapshot, bytes) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (lab, run, epoch) DO UPDATE SET snapshot = $4, bytes = $5",
                &[&lab, &i64::from(run), &i64::from(epoch), &snapshot, &(snapshot.len() as i64)],
            )
            .map(|_| ())
    }

    /// The bytes lab `lab`'s recording takes (chunks and scenes).
    pub fn bytes(&self, lab: &str) -> Result<u64, StoreError> {
        let row = self.pg.query_one(
            "SELECT (SELECT COALESCE(SUM(bytes), 0) FROM chunks WHERE lab = $1)::BIGINT
                  + (SELECT COALESCE(SUM(bytes), 0) FROM scenes WHERE lab = $1)::BIGINT",
            &[&lab],
        )?;
        Ok(self.pg.get::<i64>(&row, 0)? as u64)
    }

    /// Drops lab `lab`'s oldest chunks (and the scenes no chunk needs any more) until
    /// its recording takes at most `budget` bytes; how many chunks went.
    pub fn trim(&self, lab: &str, budget: u64) -> Result<usize, StoreError> {
        let over = self.bytes(lab)?.saturating_sub(budget);
        if over == 0 {
            return Ok(0);
        }
        // The oldest chunks while what they free stays short of `over`, and the one
        // that reaches it: the SQLite store's loop, as one window.
        let doomed = self.pg.query(
            "DELETE FROM chunks WHERE id IN (
                 SELECT id FROM (SELECT id, (SUM(bytes) OVER (ORDER BY id))::BIGINT - bytes AS before FROM chunks WHERE lab = $1) o
                 WHERE before < $2)
             RETURNING id",
            &[&lab, &(over as i64)],
        )?;
        self.pg.execute(
            "DELETE FROM scenes WHERE lab = $1 AND NOT EXISTS (
                 SELECT 1 FROM chunks c WHERE c.lab = scenes.lab AND c.run = scenes.run AND c.epoch = scenes.epoch)
             AND (run < (SELECT COALESCE(MAX(run), 0) FROM chunks WHERE lab = $1)
                  OR epoch < (SELECT MIN(c.epoch) FROM chunks c WHERE c.lab = scenes.lab AND c.run = scenes.run))",
            &[&lab],
        )?;
        Ok(doomed.len())
    }

    /// The chunk of lab `lab`'s run `run` that holds `step`.
    pub fn chunk_at(&self, lab: &str, run: u32, step: u64) -> Result<Option<(ChunkRow, Vec<u8>)>, StoreError> {
        let row = self.pg.query_opt(
            "SELECT id, run, epoch, first_step, last_step, data FROM chunks
             WHERE lab = $1 AND run = $2 AND first_step <= $3 ORDER BY first_step DESC, id DESC LIMIT 1",
            &[&lab, &i64::from(run), &(step as i64)],
        )?;
        row.map(|row| Ok((self.chunk_row(&row)?, self.pg.get(&row, 5)?))).transpose()
    }

    /// The chunks of lab `lab`'s run `run` that overlap steps `from..=to`, in order.
    pub fn chunks(&self, lab: &str, run: u32, from: u64, to: u64) -> Result<Vec<(ChunkRow, Vec<u8>)>, StoreError> {
        let rows = self.pg.query(
            "SELECT id, run, epoch, first_step, last_step, data FROM chunks
             WHERE lab = $1 AND run = $2 AND last_step >= $3 AND first_step <= $4 ORDER BY id",
            &[&lab, &i64::from(run), &(from as i64), &(to as i64)],
        )?;
        rows.iter().map(|row| Ok((self.chunk_row(row)?, self.pg.get(row, 5)?))).collect()
    }

    /// The trails kept with the chunks of lab `lab`'s run `run` that overlap `steps`.
    pub fn trails(
        &self,
        lab: &str,
        run: u32,
        steps: RangeInclusive<u64>,
        longest: u64,
    ) -> Result<Vec<RecordedTrail>, StoreError> {
        let (from, to) = (*steps.start(), *steps.end());
        let earliest = from.saturating_sub(longest);
        let rows = self.pg.query(
            "SELECT trails FROM chunks WHERE lab = $1 AND run = $2 AND first_step BETWEEN $3 AND $4
             AND last_step >= $5 ORDER BY id",
            &[&lab, &i64::from(run), &(earliest as i64), &(to as i64), &(from as i64)],
        )?;
        let mut trails = Vec::new();
        for row in &rows {
            // A row that does not read is skipped: trails are a view, never worth a failure.
            trails.extend(serde_json::from_str::<Vec<RecordedTrail>>(self.pg.get(row, 0)?).unwrap_or_default());
        }
        Ok(trails)
    }

    /// The snapshot JSON of `epoch` in `run` of lab `lab`, if kept.
    pub fn scene(&self, lab: &str, run: u32, epoch: u32) -> Result<Option<String>, StoreError> {
        let row = self.pg.query_opt(
            "SELECT snapshot FROM scenes WHERE lab = $1 AND run = $2 AND epoch = $3",
            &[&lab, &i64::from(run), &i64::from(epoch)],
        )?;
        row.map(|row| self.pg.get(&row, 0)).transpose()
    }

    /// Every run of lab `lab` still (partly) kept, oldest first.
    pub fn runs(&self, lab: &str) -> Result<Vec<RunSummary>, StoreError> {
        let rows = self.pg.query(
            "SELECT run, MIN(first_step), MAX(last_step), MIN(first_time), MAX(last_time) FROM chunks
             WHERE lab = $1 GROUP BY run ORDER BY run",
            &[&lab],
        )?;
        rows.iter()
            .map(|r| {
                Ok(RunSummary {
                    run: self.pg.get::<i64>(r, 0)? as u32,
                    first_step: self.pg.get::<i64>(r, 1)? as u64,
                    last_step: self.pg.get::<i64>(r, 2)? as u64,
                    first_time: self.pg.get(r, 3)?,
                    last_time: self.pg.get(r, 4)?,
                })
            })
            .collect()
    }

    /// The highest run number lab `lab` has kept (scenes or chunks), if any.
    pub fn last_run(&self, lab: &str) -> Result<Option<u32>, StoreError> {
        let row = self.pg.query_one(
            "SELECT MAX(run) FROM (SELECT run FROM chunks WHERE lab = $1 UNION ALL SELECT run FROM scenes WHERE lab = $1) r",
            &[&lab],
        )?;
        Ok(self.pg.get::<Option<i64>>(&row, 0)?.map(|run| run as u32))
    }

    /// Copies chunk `id` into run `to` as it is.
    pub fn copy_chunk(&self, id: i64, to: u32) -> Result<(), StoreError> {
        self.pg
            .execute(
                "INSERT INTO chunks (lab, run, epoch, first_step, last_step, first_time, last_time, trails, bytes, data)
                 SELECT lab, $2, epoch, first_step, last_step, first_time, last_time, trails, bytes, data
                 FROM chunks WHERE id = $1",
                &[&id, &i64::from(to)],
            )
            .map(|_| ())
    }

    /// Copies every scene of lab `lab`'s run `from` into run `to`.
    pub fn copy_scenes(&self, lab: &str, from: u32, to: u32) -> Result<(), StoreError> {
        self.pg
            .execute(
                "INSERT INTO scenes (lab, run, epoch, snapshot, bytes)
                 SELECT lab, $3, epoch, snapshot, bytes FROM scenes WHERE lab = $1 AND run = $2
                 ON CONFLICT (lab, run, epoch) DO UPDATE SET snapshot = EXCLUDED.snapshot, bytes = EXCLUDED.bytes",
                &[&lab, &i64::from(from), &i64::from(to)],
            )
            .map(|_| ())
    }

    /// Forgets everything lab `lab` recorded (the lab was closed).
    pub fn forget(&self, lab: &str) -> Result<(), StoreError> {
        self.pg.execute("DELETE FROM chunks WHERE lab = $1", &[&lab])?;
        self.pg.execute("DELETE FROM scenes WHERE lab = $1", &[&lab]).map(|_| ())
    }

    fn chunk_row(&self, r: &Row) -> Result<ChunkRow, StoreError> {
        Ok(ChunkRow {
            id: self.pg.get(r, 0)?,
            run: self.pg.get::<i64>(r, 1)? as u32,
            epoch: self.pg.get::<i64>(r, 2)? as u32,
            first_step: self.pg.get::<i64>(r, 3)? as u64,
            last_step: self.pg.get::<i64>(r, 4)? as u64,
        })
    }
}
