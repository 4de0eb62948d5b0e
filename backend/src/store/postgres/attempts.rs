//! Finished attempts and their replays on PostgreSQL (see the SQLite store's
//! `attempts`): the same rows, the same replays kept per participant.

use tokio_postgres::Row;
use vlab_protocol::UserId;

use super::client::Pg;
use super::schema;
use crate::store::StoreError;
use crate::store::attempts::{AttemptRow, COLUMNS, COMPRESSION_LEVEL, MAX_REPLAY_BYTES, REPLAYS_KEPT, RawRow, parse};

/// The attempts, in tables of their own in the server's PostgreSQL database.
pub struct PgAttemptStore {
    pub(in crate::store) pg: Pg,
}

impl PgAttemptStore {
    /// Connects to the database at `url` and brings the attempts' tables up to date.
    pub fn open(url: &str) -> Result<PgAttemptStore, StoreError> {
        let pg = Pg::connect(url)?;
        schema::migrate(&pg, "attempts", schema::ATTEMPT_STEPS)?;
        Ok(PgAttemptStore { pg })
    }

    /// The highest attempt number kept (0 when none is).
    pub fn last_id(&self) -> Result<u64, StoreError> {
        let row = self.pg.query_one("SELECT MAX(id) FROM attempts", &[])?;
        Ok(self.pg.get::<Option<i64>>(&row, 0)?.unwrap_or(0) as u64)
    }

    /// The number the next attempt takes, from the database's sequence `attempt_ids`.
    ///
    /// Every server sharing the database takes its numbers there, one per attempt as it
    /// is queued: a sequence never gives a number twice, whoever asks, and its numbers
    /// grow in the order they are asked for, so "newest first" (the lists, the replays
    /// kept) stays true when a lab moves to another server. Blocks of numbers reserved
    /// per server would save a round trip per attempt (an attempt runs for seconds) but
    /// would number a moved lab's new attempts below its old ones.
    pub fn next_id(&mut self) -> Result<u64, StoreError> {
        let row = self.pg.query_one("SELECT nextval('attempt_ids')", &[])?;
        Ok(self.pg.get::<i64>(&row, 0)? as u64)
    }

    /// Keeps a finished attempt and its replay's JSON (compressed here), then lets the
    /// participant's older replays go.
    pub fn save(&mut self, row: &AttemptRow, replay_json: Option<&[u8]>) -> Result<(), StoreError> {
        let console = serde_json::to_string(&row.console).expect("console lines serialise");
        let status = serde_json::to_value(row.status).expect("a status serialises");
        let user = i64::from(row.user);
        self.pg.transaction(|pg| {
            pg.execute(
                "INSERT INTO attempts (id, lab, robot, user_id, name, challenge, seed, status, reason, score, sim_secs, console)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                &[
                    &(row.id as i64),
                    &row.lab,
                    &row.robot,
                    &user,
                    &row.name,
                    &row.challenge,
                    &row.seed.to_string(),
                    &status.as_str().unwrap_or("error"),
                    &row.reason,
                    &row.score,
                    &row.sim_secs,
                    &console,
                ],
            )?;
            if let Some(json) = replay_json {
                let bytes = zstd::bulk::compress(json, COMPRESSION_LEVEL).expect("compressing into memory cannot fail");
                pg.execute("INSERT INTO attempt_replays (id, bytes) VALUES ($1, $2)", &[&(row.id as i64), &bytes])?;
            }
            let kept = kept_replays(pg, &row.lab, user)?;
            pg.execute(
                "DELETE FROM attempt_replays WHERE id IN (SELECT id FROM attempts WHERE lab = $1 AND user_id = $2)
                 AND NOT (id = ANY($3))",
                &[&row.lab, &user, &kept],
            )
            .map(|_| ())
        })
    }

    /// Attempt `id`, if kept.
    pub fn row(&self, id: u64) -> Result<Option<AttemptRow>, StoreError> {
        let row = self.pg.query_opt(&format!("SELECT {COLUMNS} FROM attempts WHERE id = $1"), &[&(id as i64)])?;
        row.map(|row| parse(self.raw(&row)?, self.pg.shown())).transpose()
    }

    /// Lab `lab`'s attempts, newest first; only `user`'s when given.
    pub fn rows(&self, lab: &str, user: Option<UserId>) -> Result<Vec<AttemptRow>, StoreError> {
        let rows = self.pg.query(
            &format!(
                "SELECT {COLUMNS} FROM attempts WHERE lab = $1 AND ($2::BIGINT IS NULL OR user_id = $2) ORDER BY id DESC"
            ),
            &[&lab, &user.map(i64::from)],
        )?;
        rows.iter().map(|row| parse(self.raw(row)?, self.pg.shown())).collect()
    }

    /// The JSON of attempt `id`'s replay, if still kept.
    pub fn replay(&self, id: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let row = self.pg.query_opt("SELECT bytes FROM attempt_replays WHERE id = $1", &[&(id as i64)])?;
        row.map(|row| {
            zstd::bulk::decompress(self.pg.get(&row, 0)?, MAX_REPLAY_BYTES).map_err(|e| StoreError::Corrupt {
                path: self.pg.shown().to_owned(),
                what: format!("the replay of attempt {id} does not decompress: {e}"),
            })
        })
        .transpose()
    }

    fn raw(&self, row: &Row) -> Result<RawRow, StoreError> {
        let pg = &self.pg;
        Ok(RawRow {
            id: pg.get(row, 0)?,
            lab: pg.get(row, 1)?,
            robot: pg.get(row, 2)?,
            user: pg.get::<i64>(row, 3)? as UserId,
            name: pg.get(row, 4)?,
            challenge: pg.get(row, 5)?,
            seed: pg.get(row, 6)?,
            status: pg.get(row, 7)?,
            reason: pg.get(row, 8)?,
            score: pg.get(row, 9)?,
            sim_secs: pg.get(row, 10)?,
            console: pg.get(row, 11)?,
        })
    }
}

/// The attempts of `user` in `lab` whose replays stay (the SQLite store's rule: her
/// latest [`REPLAYS_KEPT`] and her best; a missing score sorts last, as in SQLite).
fn kept_replays(pg: &Pg, lab: &str, user: i64) -> Result<Vec<i64>, StoreError> {
    let latest = pg.query(
        "SELECT id FROM attempts WHERE lab = $1 AND user_id = $2 ORDER BY id DESC LIMIT $3",
        &[&lab, &user, &(REPLAYS_KEPT as i64)],
    )?;
    let best = pg.query(
        "SELECT id FROM attempts WHERE lab = $1 AND user_id = $2
         ORDER BY (status = 'solved') DESC, score DESC NULLS LAST, sim_secs ASC LIMIT 1",
        &[&lab, &user],
    )?;
    latest.iter().chain(&best).map(|row| pg.get(row, 0)).collect()
}
