//! Labs' recordings as the classroom keeps and serves them: a keeper thread writes
//! the chunks every lab hands it (and keeps each lab within its budget), and viewers'
//! seeks and exports read them back, each within its share of the server (seeks take
//! turns, [`SeekTurns`]; exports take slots, [`super::export::ExportSlots`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast};
use vlab_protocol::{RecordingSummary, ServerMsg};

use super::export::{ExportLimits, ExportSlots};
use crate::store::{ChunkRow, RecordingStore, StoreError};
use vlab_lab::recording::{Chunk, Kept, RecordingQueue, RecordingSink, recording_queue};

/// Closed chunks waiting for the keeper, over all labs: at one chunk every two
/// seconds per lab, the keeper would have to stall for minutes to fill it (the queue
/// is bounded in bytes too: `recording::MAX_QUEUED_BYTES`).
const QUEUE: usize = 256;
/// Recording summaries waiting for websockets (each keeps only the latest of its lab).
const UPDATES: usize = 64;
/// What a lab may keep unless the server says otherwise.
pub const DEFAULT_RECORDING_BUDGET_BYTES: u64 = 512 * 1024 * 1024;

/// Seeks answered at once on the whole server, all labs and viewers together. A seek
/// reads and decompresses one chunk, reads a window of trails and writes an answer of
/// up to a few hundred KB, on a blocking thread: two at once keep a core's worth of
/// answers flowing (a seek takes milliseconds) while the labs keep the other cores, and
/// bound what seeks hold in memory at once to two answers in the making, however many
/// pages scrub.
pub const MAX_SEEKS_IN_FLIGHT: usize = 2;

/// How long a seek waits for its turn before it is answered "busy, try again": past
/// this the server is answering far more seeks than a class scrubbing makes, and a
/// page is better told than kept waiting (its next drag asks again).
pub const SEEK_TURN_PATIENCE: Duration = Duration::from_secs(2);

/// The recordings of every lab of a server. Clones share everything (the store, the
/// keeper's queue, the seeks' turns, the export slots).
#[derive(Clone)]
pub struct Recordings {
    store: Arc<Mutex<RecordingStore>>,
    sink: RecordingSink,
    budget: u64,
    summaries: Arc<Mutex<BTreeMap<String, RecordingSummary>>>,
    updates: broadcast::Sender<(String, Arc<str>)>,
    seeks: Arc<SeekTurns>,
    exports: Arc<ExportSlots>,
}

impl Recordings {
    /// Keeps recordings in `store`, each lab within `budget` bytes, exports within
    /// `exports`; starts the keeper.
    pub fn start(store: RecordingStore, budget: u64, exports: ExportLimits) -> Recordings {
        let (sink, queue) = recording_queue(QUEUE);
        let store = Arc::new(Mutex::new(store));
        let summaries = Arc::new(Mutex::new(BTreeMap::new()));
        let updates = broadcast::channel(UPDATES).0;
        let keeper =
            Keeper { store: Arc::clone(&store), budget, summaries: Arc::clone(&summaries), updates: updates.clone() };
        std::thread::Builder::new()
            .name("recording-keeper".into())
            .spawn(move || keeper.run(queue))
            .expect("the recording keeper's thread starts");
        let seeks = Arc::new(SeekTurns::new(MAX_SEEKS_IN_FLIGHT));
        let exports = Arc::new(ExportSlots::new(exports));
        Recordings { store, sink, budget, summaries, updates, seeks, exports }
    }

    /// The seeks' turns.
    pub fn seeks(&self) -> &Arc<SeekTurns> {
        &self.seeks
    }

    /// The export slots.
    pub fn exports(&self) -> &Arc<ExportSlots> {
        &self.exports
    }

    /// Where a lab hands its closed chunks.
    pub fn sink(&self) -> RecordingSink {
        self.sink.clone()
    }

    /// The number the next run of lab `lab` takes (after those kept before a restart).
    pub fn next_run(&self, lab: &str) -> Result<u32, StoreError> {
        Ok(self.store.lock().expect("recordings lock").last_run(lab)?.map_or(1, |run| run + 1))
    }

    /// Lab `lab` opens and records run `run` (its summary names that run at once, not
    /// only once its first chunk is kept).
    pub fn begin(&self, lab: &str, run: u32) {
        let store = self.store.lock().expect("recordings lock");
        match summarise(&store, lab, Some(run), self.budget) {
            Ok(summary) => {
                self.summaries.lock().expect("summaries lock").insert(lab.to_owned(), summary);
            }
            Err(error) => tracing::warn!(%lab, %error, "could not summarise a recording"),
        }
    }

    /// What lab `lab` has recorded.
    pub fn summary(&self, lab: &str) -> RecordingSummary {
        if let Some(summary) = self.summaries.lock().expect("summaries lock").get(lab) {
            return summary.clone();
        }
        let store = self.store.lock().expect("recordings lock");
        summarise(&store, lab, None, self.budget).unwrap_or_default()
    }

    /// Summaries as they change: `(lab, ServerMsg::Recording JSON)`.
    pub fn updates(&self) -> broadcast::Receiver<(String, Arc<str>)> {
        self.updates.subscribe()
    }

    /// Runs `read` on the store.
    pub fn read<T>(&self, read: impl FnOnce(&RecordingStore) -> Result<T, StoreError>) -> Result<T, StoreError> {
        read(&self.store.lock().expect("recordings lock"))
    }

    /// Waits until everything labs handed the keeper before now is kept.
    pub async fn settled(&self) {
        let (done, kept) = tokio::sync::oneshot::channel();
        if self.sink.send(Kept::Barrier(done)).is_ok() {
            let _ = kept.await;
        }
    }

    /// Forgets lab `lab`'s recording (it was closed).
    pub fn forget(&self, lab: &str) {
        self.summaries.lock().expect("summaries lock").remove(lab);
        if let Err(error) = self.store.lock().expect("recordings lock").forget(lab) {
            tracing::warn!(%lab, %error, "could not forget a closed lab's recording");
        }
    }
}

/// Turns to answer a seek: at most a fixed number at once on the whole server, taken
/// in the order asked (a page waiting for one is served before pages that asked later).
pub struct SeekTurns {
    turns: Arc<Semaphore>,
    cap: usize,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
    answered: AtomicUsize,
    busy: AtomicUsize,
}

/// What the seeks' turns have seen, for the operator's figures and the tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeekStats {
    /// Seeks being answered now.
    pub in_flight: usize,
    /// The most ever answered at once.
    pub most_in_flight: usize,
    /// Seeks that had their turn.
    pub answered: usize,
    /// Seeks answered "busy" (no turn within [`SEEK_TURN_PATIENCE`]).
    pub busy: usize,
}

/// A seek's turn: held while it is answered, given back when dropped.
pub struct SeekTurn {
    turns: Arc<SeekTurns>,
    _permit: OwnedSemaphorePermit,
}

impl SeekTurns {
    fn new(cap: usize) -> SeekTurns {
        SeekTurns {
            turns: Arc::new(Semaphore::new(cap)),
            cap,
            in_flight: AtomicUsize::new(0),
            most_in_flight: AtomicUsize::new(0),
            answered: AtomicUsize::new(0),
            busy: AtomicUsize::new(0),
        }
    }

    /// Waits for a turn, at most `patience`; `None` when none came (the server is busy).
    pub async fn take(self: &Arc<Self>, patience: Duration) -> Option<SeekTurn> {
        let permit = tokio::time::timeout(patience, Arc::clone(&self.turns).acquire_owned()).await;
        let Ok(Ok(permit)) = permit else {
            self.busy.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_in_flight.fetch_max(now, Ordering::SeqCst);
        self.answered.fetch_add(1, Ordering::Relaxed);
        Some(SeekTurn { turns: Arc::clone(self), _permit: permit })
    }

    /// Seeks answered at once at most.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// What the turns have seen so far.
    pub fn stats(&self) -> SeekStats {
        SeekStats {
            in_flight: self.in_flight.load(Ordering::SeqCst),
            most_in_flight: self.most_in_flight.load(Ordering::SeqCst),
            answered: self.answered.load(Ordering::Relaxed),
            busy: self.busy.load(Ordering::Relaxed),
        }
    }
}

impl Drop for SeekTurn {
    fn drop(&mut self) {
        self.turns.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The keeper thread: writes what labs hand it, trims, tells viewers.
struct Keeper {
    store: Arc<Mutex<RecordingStore>>,
    budget: u64,
    summaries: Arc<Mutex<BTreeMap<String, RecordingSummary>>>,
    updates: broadcast::Sender<(String, Arc<str>)>,
}

impl Keeper {
    fn run(self, queue: RecordingQueue) {
        // Ends when every lab and the classroom have let go of the sink.
        while let Ok(kept) = queue.recv() {
            let (lab, run) = match &kept {
                Kept::Chunk { lab, chunk, .. } => (lab.clone(), chunk.run),
                Kept::Scene { lab, run, .. } => (lab.clone(), *run),
                Kept::Fork { lab, to, .. } => (lab.clone(), *to),
                Kept::Barrier(_) => {
                    let Kept::Barrier(done) = kept else { unreachable!() };
                    let _ = done.send(());
                    continue;
                }
            };
            let store = self.store.lock().expect("recordings lock");
            if let Err(error) = keep(&store, kept, self.budget) {
                // The lab goes on; the gap shows as a jump in its timeline.
                // An unavailable database is logged once, by the store, not per chunk.
                if error.is_unavailable() {
                    tracing::debug!(%lab, %error, "could not keep a recorded chunk");
                } else {
                    tracing::error!(%lab, %error, "could not keep a recorded chunk");
                }
            }
            match summarise(&store, &lab, Some(run), self.budget) {
                Ok(summary) => self.publish(lab, summary),
                Err(error) if error.is_unavailable() => {
                    tracing::debug!(%lab, %error, "could not summarise a recording")
                }
                Err(error) => tracing::warn!(%lab, %error, "could not summarise a recording"),
            }
        }
    }

    fn publish(&self, lab: String, summary: RecordingSummary) {
        let mut summaries = self.summaries.lock().expect("summaries lock");
        if summaries.get(&lab) == Some(&summary) {
            return;
        }
        summaries.insert(lab.clone(), summary.clone());
        drop(summaries);
        let json = serde_json::to_string(&ServerMsg::Recording(summary)).expect("summaries serialise");
        // Nobody watching is fine.
        let _ = self.updates.send((lab, json.into()));
    }
}

fn keep(store: &RecordingStore, kept: Kept, budget: u64) -> Result<(), StoreError> {
    match kept {
        Kept::Barrier(_) => Ok(()),
        Kept::Scene { lab, run, epoch, snapshot } => store.keep_scene(&lab, run, epoch, &snapshot),
        Kept::Fork { lab, from, to, until } => {
            store.copy_scenes(&lab, from, to)?;
            for (row, bytes) in store.chunks(&lab, from, 0, until)? {
                if row.first_step >= until {
                    continue;
                }
                if row.last_step <= until {
                    store.copy_chunk(row.id, to)?;
                    continue;
                }
                match Chunk::decode(&bytes) {
                    Ok(chunk) => {
                        let cut = Chunk { run: to, ..chunk.truncated(until) };
                        keep_chunk(store, &lab, &cut)?;
                    }
                    Err(error) => {
                        tracing::error!(%lab, %error, "a kept chunk does not read; the new run starts without it")
                    }
                }
            }
            store.trim(&lab, budget)?;
            Ok(())
        }
        Kept::Chunk { lab, chunk, .. } => {
            keep_chunk(store, &lab, &chunk)?;
            store.trim(&lab, budget)?;
            Ok(())
        }
    }
}

fn keep_chunk(store: &RecordingStore, lab: &str, chunk: &Chunk) -> Result<(), StoreError> {
    let row = ChunkRow {
        id: 0,
        run: chunk.run,
        epoch: chunk.epoch,
        first_step: chunk.first_step,
        last_step: chunk.last_step,
    };
    store.keep_chunk(lab, &row, (chunk.first_time, chunk.last_time), &chunk.trails, &chunk.encode())?;
    Ok(())
}

/// Lab `lab`'s summary, its current run being `run` (`None`: the last kept).
fn summarise(store: &RecordingStore, lab: &str, run: Option<u32>, budget: u64) -> Result<RecordingSummary, StoreError> {
    let runs = store.runs(lab)?;
    let run = run.or_else(|| runs.last().map(|r| r.run)).unwrap_or(0);
    let current = runs.iter().find(|r| r.run == run);
    Ok(RecordingSummary {
        run,
        first_step: current.map(|r| r.first_step),
        last_step: current.map(|r| r.last_step),
        dropped: current.is_some_and(|r| r.first_step > 0),
        bytes: store.bytes(lab)?,
        budget_bytes: budget,
        runs,
    })
}

/// The chunk of `run` holding `step`, from the lab's open chunk (`tail`) or the store.
pub fn chunk_holding(recordings: &Recordings, lab: &str, tail: &Chunk, step: u64) -> Result<Option<Chunk>, StoreError> {
    if tail.first_step <= step {
        return Ok(Some(tail.clone()));
    }
    let found = recordings.read(|store| store.chunk_at(lab, tail.run, step))?;
    match found {
        Some((_, bytes)) => match Chunk::decode(&bytes) {
            Ok(chunk) => Ok(Some(chunk)),
            Err(error) => {
                tracing::error!(%lab, %error, "a kept chunk does not read");
                Ok(None)
            }
        },
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn seeks_take_turns_up_to_the_cap_and_one_past_it_is_told_busy() {
        let turns = Arc::new(SeekTurns::new(2));
        let patience = Duration::from_millis(50);
        let first = turns.take(patience).await.expect("a turn under the cap");
        let second = turns.take(patience).await.expect("a turn at the cap");
        assert!(turns.take(patience).await.is_none(), "past the cap, after the patience");
        assert_eq!(turns.stats(), SeekStats { in_flight: 2, most_in_flight: 2, answered: 2, busy: 1 });
        drop(first);
        let third = turns.take(patience).await.expect("a turn given back is taken again");
        drop((second, third));
        assert_eq!(turns.stats(), SeekStats { in_flight: 0, most_in_flight: 2, answered: 3, busy: 1 });
    }

    #[tokio::test]
    async fn a_seek_waiting_gets_the_turn_given_back() {
        let turns = Arc::new(SeekTurns::new(1));
        let held = turns.take(Duration::from_millis(50)).await.unwrap();
        let waiting = tokio::spawn({
            let turns = Arc::clone(&turns);
            async move { turns.take(Duration::from_secs(20)).await.is_some() }
        });
        tokio::task::yield_now().await;
        drop(held);
        assert!(waiting.await.unwrap(), "the waiting seek had its turn");
    }
}
