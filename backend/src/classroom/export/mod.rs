//! Exports of a lab's recording: one run (or a span of its steps), the whole lab's or
//! one robot's, as CSV (one row per sensor reading, [`csv`]) or MCAP (poses, readings
//! and console lines for Foxglove and other robotics tools, [`mcap`]).
//!
//! An export is planned on the async side (permission, run and range checked, so a
//! refusal is a plain error answer), then written on a blocking thread chunk by chunk
//! as the store gives them back, into a [`pipe`] that the response body drains: a long
//! run costs a few chunks of memory, never the whole file (docs/recording.md,
//! "Exports"). Each export holds one of the server's [`slots`] while it is written.

mod csv;
pub(crate) mod mcap;
pub mod pipe;
mod schemas;
pub mod slots;

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use vlab_protocol::RunSummary;
use vlab_protocol::permissions::Action;

use super::access::{authorize, authorize_on_robot};
use super::{Classroom, ClassroomError, Recordings};
use crate::store::StoreError;
use vlab_lab::recording::{Chunk, ChunkError, RobotReading};
use vlab_lab::{Caller, LabHandle};

pub use pipe::{ExportStream, stream};
pub use slots::{ExportLimits, ExportSlot, ExportSlots};

/// Exports of the classroom's recordings.
#[derive(Clone, Copy)]
pub struct ClassroomExports<'a> {
    pub(in crate::classroom) classroom: &'a Classroom,
}

/// Steps of a run read from the store at a time: a few chunks (a chunk spans at most
/// 2 s of simulation time, 480 steps at the default step), so the store's lock is held
/// briefly and memory holds only those.
const WINDOW_STEPS: u64 = 2400;
/// A reading is recorded up to a few steps after it was taken (sensors are looked at
/// every 5 steps): chunks this far past the end of the range are read too, so a
/// reading taken at its last steps is not missed.
const LATE_STEPS: u64 = 16;

/// What an export is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// One row per sensor reading.
    Csv,
    /// Foxglove's well-known JSON schemas in an MCAP file.
    Mcap,
}

impl ExportFormat {
    /// The response's `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            ExportFormat::Csv => "text/csv; charset=utf-8",
            ExportFormat::Mcap => "application/octet-stream",
        }
    }
}

/// Which part of which run: `None`s mean the current run, from its first kept step to
/// its last.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportRange {
    /// The run.
    pub run: Option<u32>,
    /// The first step.
    pub from: Option<u64>,
    /// The last step.
    pub to: Option<u64>,
}

/// Why an export stopped once its bytes had begun to flow (the answer's status is
/// sent by then: the body is cut short, so no client takes it for a whole file).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The store could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A kept chunk does not read.
    #[error(transparent)]
    Chunk(#[from] ChunkError),
    /// The client went away, or read too slowly to finish within the time limit.
    #[error("the export could not be sent: {0}")]
    Io(#[from] std::io::Error),
    /// The MCAP writer refused (a fault of ours).
    #[error("the MCAP file could not be written: {0}")]
    Mcap(#[from] ::mcap::McapError),
}

/// An export checked and ready to write.
pub struct ExportPlan {
    lab: Arc<LabHandle>,
    caller: Caller,
    robot: Option<String>,
    format: ExportFormat,
    run: u32,
    /// The run being recorded when the export was asked for (its scene may not be
    /// kept yet: the live one stands in).
    live_run: u32,
    from: u64,
    to: u64,
    /// The last step asked for, if the request limited the span (it names the file).
    asked_to: Option<u64>,
}

impl ClassroomExports<'_> {
    /// Checks an export of lab `lab`'s recording by `caller`: the whole lab's
    /// (`robot: None`, the instructor) or robot `robot`'s (its owner and the
    /// instructor), of the run and steps `range` names, which must be kept.
    pub fn plan(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        robot: Option<&str>,
        format: ExportFormat,
        range: ExportRange,
    ) -> Result<ExportPlan, ClassroomError> {
        match robot {
            None => authorize(caller, Action::ExportRecording)?,
            Some(robot) => authorize_on_robot(lab, caller, Action::ExportRobotRecording, robot)?,
        }
        let recordings = self.classroom.recordings.as_ref().ok_or_else(not_recording)?;
        let live_run = recordings.summary(lab.id()).run;
        let run = range.run.unwrap_or(live_run);
        let runs = recordings.read(|store| store.runs(lab.id()))?;
        let Some(span) = runs.iter().find(|r| r.run == run) else {
            return Err(ClassroomError::NotFound(format!("run {run} is not recorded: {}", kept(&runs))));
        };
        if let (Some(from), Some(to)) = (range.from, range.to)
            && from > to
        {
            return Err(ClassroomError::Unreadable(format!("'from' (step {from}) is after 'to' (step {to})")));
        }
        let from = range.from.unwrap_or(span.first_step);
        let to = range.to.unwrap_or(span.last_step);
        if to < span.first_step || from > span.last_step {
            let asked = match (range.from, range.to) {
                (Some(from), Some(to)) => format!("at steps {from}–{to}"),
                (Some(from), None) => format!("from step {from} on"),
                _ => format!("up to step {to}"),
            };
            return Err(ClassroomError::NotFound(format!(
                "nothing is recorded {asked}: run {run} keeps steps {}–{}",
                span.first_step, span.last_step
            )));
        }
        Ok(ExportPlan {
            lab: Arc::clone(lab),
            caller,
            robot: robot.map(str::to_owned),
            format,
            run,
            live_run,
            from: from.max(span.first_step),
            to: to.min(span.last_step),
            asked_to: range.to,
        })
    }
}

impl ClassroomExports<'_> {
    /// Starts writing `plan` on a blocking thread, streamed as it is written, within the
    /// export slots: refused (`TooMany`, `Busy`) when its caller, its lab's students or
    /// the server have as many under way as they may. Its client must take a block
    /// within the slots' read window, or the export ends and its slot is given back.
    pub fn start(self, plan: ExportPlan) -> Result<ExportStream, ClassroomError> {
        let recordings = self.classroom.recordings.as_ref().ok_or_else(not_recording)?.clone();
        let slot = recordings.exports().take(plan.lab.id(), plan.caller)?;
        let read_window = recordings.exports().limits().read_window;
        Ok(stream(read_window, move |out| {
            // Held until the last byte is written, and given back before the last block
            // goes: a client that read it all may ask for the next at once.
            let _slot = slot;
            plan.write(&recordings, out)
        }))
    }
}

impl ExportPlan {
    /// The name the file is saved under, the page's own: see
    /// [`vlab_protocol::export_file_name`].
    pub fn file_name(&self) -> String {
        let csv = matches!(self.format, ExportFormat::Csv);
        vlab_protocol::export_file_name(self.lab.id(), self.robot.as_deref(), csv, self.run, self.asked_to)
    }

    /// The response's `Content-Type`.
    pub fn content_type(&self) -> &'static str {
        self.format.content_type()
    }

    /// Writes the export into `out` (on a blocking thread: it reads the store and
    /// decompresses chunks).
    fn write(&self, recordings: &Recordings, out: impl Write) -> Result<(), ExportError> {
        match self.format {
            ExportFormat::Csv => csv::write(self, recordings, out),
            ExportFormat::Mcap => mcap::write(self, recordings, out),
        }
    }

    /// Whether robot `robot`'s records belong in the export.
    fn covers(&self, robot: &str) -> bool {
        self.robot.as_deref().is_none_or(|r| r == robot)
    }

    /// Whether `step` is in the range.
    fn spans(&self, step: u64) -> bool {
        (self.from..=self.to).contains(&step)
    }

    /// Visits every kept chunk of the run that overlaps the range, in order, reading
    /// a window of steps from the store at a time; `visit` learns whether it is the
    /// first.
    fn each_chunk(
        &self,
        recordings: &Recordings,
        mut visit: impl FnMut(&Chunk, bool) -> Result<(), ExportError>,
    ) -> Result<(), ExportError> {
        let lab = self.lab.id();
        let end = self.to.saturating_add(LATE_STEPS);
        let mut cursor = self.from;
        let mut last_id = i64::MIN;
        loop {
            let window_end = cursor.saturating_add(WINDOW_STEPS - 1).min(end);
            let rows = recordings.read(|store| store.chunks(lab, self.run, cursor, window_end))?;
            // A chunk spanning two windows comes back with both: ids grow in the order
            // a run's chunks were kept, so the second time is skipped.
            for (row, bytes) in rows {
                if row.id <= last_id {
                    continue;
                }
                let first = last_id == i64::MIN;
                last_id = row.id;
                visit(&Chunk::decode(&bytes)?, first)?;
            }
            if window_end >= end {
                return Ok(());
            }
            cursor = window_end + 1;
        }
    }
}

/// Which readings an export takes: those of its robots within its steps, each once.
struct Readings {
    /// The step of each sensor's (robot, sensor) latest reading taken.
    last: HashMap<(String, String), u64>,
}

impl Readings {
    fn new() -> Readings {
        Readings { last: HashMap::new() }
    }

    /// The chunk's readings the export takes, in step order (a file a student sorts
    /// by nothing reads top to bottom in time): its key readings that were not taken
    /// yet (the first chunk's, which came before the range; and a reading the recorder
    /// kept only as a later chunk's key reading, such as a sensor's first) and those it
    /// recorded.
    fn of<'c>(&mut self, plan: &ExportPlan, chunk: &'c Chunk) -> Vec<&'c RobotReading> {
        let keys = chunk.key_readings.iter();
        let recorded = chunk.records.iter().filter_map(|record| match record {
            vlab_lab::recording::Record::Reading(reading) => Some(reading.as_ref()),
            _ => None,
        });
        let mut taken: Vec<&RobotReading> = keys.chain(recorded).filter(|reading| self.take(plan, reading)).collect();
        // Stable: readings of one step keep the order the lab took them in.
        taken.sort_by_key(|reading| reading.sensor.step);
        taken
    }

    fn take(&mut self, plan: &ExportPlan, reading: &RobotReading) -> bool {
        let Some(step) = reading.sensor.step else { return false };
        if !plan.covers(&reading.robot) || !plan.spans(step) {
            return false;
        }
        let key = (reading.robot.clone(), reading.sensor.name.clone());
        match self.last.get(&key) {
            // Readings of one sensor come in step order (a key reading is the latest
            // at its chunk's start): one at or before the last taken was taken
            // already, so no reading is taken twice, within a chunk or across.
            Some(last) if *last >= step => false,
            _ => {
                self.last.insert(key, step);
                true
            }
        }
    }
}

/// The simulation time of `step` in `chunk`, from its bounds (the step is fixed within
/// a chunk).
fn time_of(chunk: &Chunk, step: u64) -> f64 {
    if chunk.last_step <= chunk.first_step {
        return chunk.first_time;
    }
    let dt = (chunk.last_time - chunk.first_time) / (chunk.last_step - chunk.first_step) as f64;
    chunk.first_time + (step as f64 - chunk.first_step as f64) * dt
}

/// What a lab keeps, in words, for a 404.
fn kept(runs: &[RunSummary]) -> String {
    if runs.is_empty() {
        return "this lab has recorded nothing yet".into();
    }
    let spans: Vec<String> =
        runs.iter().map(|r| format!("run {} (steps {}–{})", r.run, r.first_step, r.last_step)).collect();
    format!("this lab keeps {}", spans.join(", "))
}

fn not_recording() -> ClassroomError {
    ClassroomError::NotFound("this server records nothing (its recording budget is 0)".into())
}
