//! Recording: the lab's thread writes down what happens (frames, readings, estimates,
//! console lines, commands, time control, insertions and removals) in chunks of a
//! few seconds, and hands each closed chunk to whoever keeps them.
//!
//! The recorder never waits: closed chunks go into a queue bounded in chunks and in
//! bytes; if the keeper falls that far behind, the chunk is dropped and counted rather
//! than slow the lab or let the queue take the server's memory. Each robot's records
//! are kept within a budget per second of simulation time ([`budget`]), so one robot's
//! flood cannot eat the lab's history. What a chunk holds and how a moment is rebuilt
//! from it: [`chunk`], [`moment`].

pub mod budget;
pub mod chunk;
pub mod moment;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvError, SendError, SyncSender, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use vlab_protocol::{BodyId, ConsoleLine, ConsoleSource, Frame, RecordedTrail, SensorReport, SensorValue, TrailPoint};

pub use budget::MAX_RECORDED_BYTES_PER_ROBOT_PER_SEC;
use budget::{RobotBudgets, Verdict, json_bytes};
pub use chunk::{Change, Chunk, ChunkError, CommandSource, Record, RecordedRobot, RobotEstimate, RobotReading};

use vlab_sim::robot::Robots;
use vlab_sim::scene::SceneModel;
use vlab_sim::sim::World;

/// A chunk closes after this much simulation time...
const CHUNK_SIM_SECS: f64 = 2.0;
/// ...or this much wall time with something in it (so a slow or paused lab still
/// keeps what happened within seconds: a server killed loses at most this)...
const CHUNK_WALL: Duration = Duration::from_secs(5);
/// ...or when it holds about this many bytes of records.
const CHUNK_BYTES: usize = 2 * 1024 * 1024;
/// Sensors are looked at every this many steps: a sensor read every step is recorded
/// at this pace (48 Hz at the default 1/240 s step), slower ones at each reading.
const READINGS_EVERY_STEPS: u64 = 5;
/// Frames are recorded at most this often, simulation time: viewers may get 60 a
/// second, but a timeline needs no more than a film, and frames are most of a
/// recording's bytes. Frames in between are merged into the next one recorded.
const FRAME_EVERY_SECS: f64 = 1.0 / 30.0;
/// A sensor read every step whose value does not change is recorded this often.
const UNCHANGED_EVERY_SECS: f64 = 1.0;
/// Trails are sampled about this often, simulation time.
const TRAIL_EVERY_SECS: f64 = 0.1;

/// What the recorder hands its keeper.
#[derive(Debug)]
pub enum Kept {
    /// A closed chunk of lab `lab`.
    Chunk {
        /// The lab's id.
        lab: String,
        /// The chunk.
        chunk: Box<Chunk>,
        /// About the memory it holds, as its records were added.
        bytes: usize,
    },
    /// Run `to` continues run `from` after a rewind to step `until`: it starts with
    /// what `from` recorded up to there.
    Fork {
        /// The lab's id.
        lab: String,
        /// The run rewound.
        from: u32,
        /// The run that goes on from the rewound step.
        to: u32,
        /// The step rewound to.
        until: u64,
    },
    /// Answered once everything handed before it is kept.
    Barrier(tokio::sync::oneshot::Sender<()>),
    /// The scene of `epoch` in `run`, as viewers received it (to show a moment of
    /// it again even after it changed).
    Scene {
        /// The lab's id.
        lab: String,
        /// The run.
        run: u32,
        /// The scene epoch.
        epoch: u32,
        /// The `SceneSnapshot` JSON.
        snapshot: Arc<str>,
    },
}

/// Bytes of closed chunks and scenes waiting for the keeper, over all labs, at most:
/// a busy class lab records about 5 MB a second before compression, so this is many
/// seconds of every lab, while a keeper starved of CPU cannot make the queue hold
/// hundreds of megabytes (its count of chunks alone would let it).
pub const MAX_QUEUED_BYTES: usize = 64 * 1024 * 1024;

/// Where closed chunks go: a queue to the keeper, bounded in items and in bytes.
#[derive(Clone)]
pub struct RecordingSink {
    sender: SyncSender<Kept>,
    queued_bytes: Arc<AtomicUsize>,
}

/// The keeper's end of the queue.
pub struct RecordingQueue {
    receiver: Receiver<Kept>,
    queued_bytes: Arc<AtomicUsize>,
}

/// A queue from labs to a keeper of at most `items` items and [`MAX_QUEUED_BYTES`].
pub fn recording_queue(items: usize) -> (RecordingSink, RecordingQueue) {
    let (sender, receiver) = sync_channel(items);
    let queued_bytes = Arc::new(AtomicUsize::new(0));
    (RecordingSink { sender, queued_bytes: Arc::clone(&queued_bytes) }, RecordingQueue { receiver, queued_bytes })
}

impl RecordingSink {
    /// Queues `kept` unless the queue is full, in items or in bytes.
    pub fn try_send(&self, kept: Kept) -> Result<(), TrySendError<Kept>> {
        let bytes = kept.bytes();
        let before = self.queued_bytes.fetch_add(bytes, Ordering::AcqRel);
        let refused = if before + bytes > MAX_QUEUED_BYTES && before > 0 {
            Err(TrySendError::Full(kept))
        } else {
            self.sender.try_send(kept)
        };
        if refused.is_err() {
            self.queued_bytes.fetch_sub(bytes, Ordering::AcqRel);
        }
        refused
    }

    /// Queues `kept`, waiting for room in items (not in bytes: for a barrier, which
    /// holds none).
    pub fn send(&self, kept: Kept) -> Result<(), SendError<Kept>> {
        let bytes = kept.bytes();
        self.queued_bytes.fetch_add(bytes, Ordering::AcqRel);
        self.sender.send(kept).inspect_err(|_| {
            self.queued_bytes.fetch_sub(bytes, Ordering::AcqRel);
        })
    }

    /// Bytes waiting for the keeper now.
    pub fn queued_bytes(&self) -> usize {
        self.queued_bytes.load(Ordering::Acquire)
    }
}

impl RecordingQueue {
    /// The next item, waiting for one; an error once every sink is gone.
    pub fn recv(&self) -> Result<Kept, RecvError> {
        let kept = self.receiver.recv()?;
        self.queued_bytes.fetch_sub(kept.bytes(), Ordering::AcqRel);
        Ok(kept)
    }
}

impl Kept {
    /// About the memory it holds (a chunk's estimate as it was recorded).
    fn bytes(&self) -> usize {
        match self {
            Kept::Chunk { bytes, .. } => *bytes,
            Kept::Scene { snapshot, .. } => snapshot.len(),
            Kept::Fork { .. } | Kept::Barrier(_) => 0,
        }
    }
}

/// The recording of one lab, on its thread.
pub struct Recorder {
    lab: String,
    sink: Option<RecordingSink>,
    run: u32,
    open: Chunk,
    opened_at: Instant,
    open_bytes: usize,
    /// Every moving body's latest recorded pose (a chunk's keyframe).
    keyframe: Frame,
    /// Frames received since the last one recorded, merged.
    pending: Option<Frame>,
    /// Simulation time of the last frame recorded.
    last_frame_time: f64,
    /// Every robot's sensors' latest readings, in declaration order.
    readings: BTreeMap<String, Vec<SensorReport>>,
    estimates: BTreeMap<String, RobotEstimate>,
    next_trail_step: u64,
    /// Chunks the keeper could not take in time.
    dropped: u64,
    /// Each robot's bytes recorded this second.
    budgets: RobotBudgets,
    /// Simulation seconds per step (for the time of inputs, which come with a step).
    dt_secs: f64,
}

impl Recorder {
    /// A recorder of lab `lab` starting run `run`; `sink: None` records nothing.
    pub fn new(lab: String, sink: Option<RecordingSink>, run: u32) -> Recorder {
        Recorder {
            lab,
            sink,
            run,
            open: Chunk { run, ..Chunk::default() },
            opened_at: Instant::now(),
            open_bytes: 0,
            keyframe: Frame::default(),
            pending: None,
            last_frame_time: f64::NEG_INFINITY,
            readings: BTreeMap::new(),
            estimates: BTreeMap::new(),
            next_trail_step: 0,
            dropped: 0,
            budgets: RobotBudgets::new(MAX_RECORDED_BYTES_PER_ROBOT_PER_SEC),
            dt_secs: 0.0,
        }
    }

    /// The same, keeping at most `bytes` of each robot's records per simulated second.
    #[cfg(test)]
    fn with_robot_budget(mut self, bytes: usize) -> Recorder {
        self.budgets = RobotBudgets::new(bytes);
        self
    }

    /// The run being recorded.
    pub fn run(&self) -> u32 {
        self.run
    }

    /// Whether it records at all.
    pub fn is_on(&self) -> bool {
        self.sink.is_some()
    }

    /// A new run begins (a reset): what the old one left open is closed, readings and
    /// estimates are forgotten. [`Recorder::scene`] follows.
    pub fn new_run(&mut self) {
        self.close();
        self.run += 1;
        self.readings.clear();
        self.estimates.clear();
        self.budgets.clear();
        self.next_trail_step = 0;
    }

    /// The scene changed (or the run began): the open chunk closes and the next starts
    /// from `keyframe` in the new epoch.
    pub fn scene(&mut self, keyframe: &Frame, snapshot: Arc<str>, model: &SceneModel, robots: &Robots) {
        if !self.is_on() {
            return;
        }
        self.close();
        self.pending = None;
        self.last_frame_time = f64::NEG_INFINITY;
        self.keyframe = keyframe.clone();
        self.readings.retain(|name, _| model.robots.iter().any(|r| &r.name == name));
        self.estimates.retain(|name, _| model.robots.iter().any(|r| &r.name == name));
        self.budgets.retain(|name| model.robots.iter().any(|r| r.name == name));
        self.open = self.fresh_chunk(keyframe.step, keyframe.time);
        self.open.robots = recorded_robots(model, robots);
        let kept = Kept::Scene { lab: self.lab.clone(), run: self.run, epoch: keyframe.epoch, snapshot };
        self.send(kept);
    }

    /// A frame went out to viewers.
    pub fn frame(&mut self, frame: &Frame) {
        if !self.is_on() || frame.epoch != self.open.epoch {
            return;
        }
        match &mut self.pending {
            Some(pending) => pending.absorb(frame.clone()),
            None => self.pending = Some(frame.clone()),
        }
        if frame.time - self.last_frame_time >= FRAME_EVERY_SECS - 1e-9 {
            self.flush_frame();
        }
        self.reached(frame.step, frame.time);
    }

    /// Records the merged frames not recorded yet.
    fn flush_frame(&mut self) {
        let Some(frame) = self.pending.take() else { return };
        self.last_frame_time = frame.time;
        self.keyframe.absorb(frame.clone());
        self.open_bytes += 32 + frame.poses.len() * 40;
        self.open.records.push(Record::Frame { step: frame.step, time: frame.time, poses: frame.poses });
    }

    /// Something happened (a command, time control, an event).
    pub fn record(&mut self, record: Record) {
        if !self.is_on() {
            return;
        }
        self.open_bytes += 200;
        self.open.records.push(record);
    }

    /// Inputs the robots were given at `step` (between it and the next). They count in
    /// their robot's budget but are always kept: a rewind gives them again.
    pub fn inputs(&mut self, step: u64, source: CommandSource, inputs: Vec<vlab_sim::robot::RobotInput>) {
        use vlab_sim::robot::RobotInput;
        if !self.is_on() {
            return;
        }
        let time = step as f64 * self.dt_secs;
        for input in inputs {
            let (robot, record) = match input {
                RobotInput::Command { robot, commands } => {
                    (robot.clone(), Record::Command { step, robot, source, commands })
                }
                RobotInput::Hold { robot } => (robot.clone(), Record::Hold { step, robot }),
                RobotInput::Keys { robot, keys } => (robot.clone(), Record::Keys { step, robot, keys }),
            };
            self.budgets.charge(&robot, time, json_bytes(&record));
            self.record(record);
        }
    }

    /// Console lines of robot `robot`: those within its budget.
    pub fn console(&mut self, robot: &str, lines: &[ConsoleLine]) {
        if !self.is_on() || lines.is_empty() {
            return;
        }
        let kept: Vec<ConsoleLine> =
            lines.iter().filter(|line| self.admit(robot, line.step, line.time, json_bytes(line))).cloned().collect();
        if kept.is_empty() {
            return;
        }
        self.open_bytes += kept.iter().map(|l| l.text.len() + 64).sum::<usize>();
        self.open.records.push(Record::Console { robot: robot.to_owned(), lines: kept });
    }

    /// Whether a record of `bytes` of robot `robot` at `step` / `time` fits in its
    /// budget; the first left out in a second is said in the recording.
    fn admit(&mut self, robot: &str, step: u64, time: f64, bytes: usize) -> bool {
        match self.budgets.admit(robot, time, bytes) {
            Verdict::Keep => true,
            Verdict::Drop => false,
            Verdict::DropAndSay => {
                let text = format!(
                    "recording of robot {robot} thinned: over its {} bytes/s; its readings, console lines and \
                     estimates are left out of the recording until the next second of simulation time",
                    self.budgets.limit()
                );
                self.open_bytes += text.len() + 64;
                let line = ConsoleLine { step, time, source: ConsoleSource::Lab, text };
                self.open.records.push(Record::Console { robot: robot.to_owned(), lines: vec![line] });
                false
            }
        }
    }

    /// After a physics step: new readings (every few steps), trail samples, and the
    /// chunk closed when it is full or old enough.
    pub fn after_step(&mut self, step: u64, time: f64, dt_secs: f64, world: &World, robots: &Robots) {
        if !self.is_on() {
            return;
        }
        self.dt_secs = dt_secs;
        if step.is_multiple_of(READINGS_EVERY_STEPS) {
            self.take_readings(robots);
        }
        if step >= self.next_trail_step {
            self.sample_trails(step, world, robots);
            self.next_trail_step = step + ((TRAIL_EVERY_SECS / dt_secs).round() as u64).max(1);
        }
        self.reached(step, time);
        let span = self.open.last_time - self.open.first_time;
        if span >= CHUNK_SIM_SECS || self.open_bytes >= CHUNK_BYTES {
            self.close();
        }
    }

    /// A program published a new estimate (kept within its robot's budget).
    pub fn estimate(&mut self, estimate: RobotEstimate) {
        if !self.is_on() || self.estimates.get(&estimate.robot).map(|e| e.estimate) == Some(estimate.estimate) {
            return;
        }
        let bytes = json_bytes(&estimate);
        if !self.admit(&estimate.robot, estimate.step, estimate.time, bytes) {
            return;
        }
        self.estimates.insert(estimate.robot.clone(), estimate.clone());
        self.open_bytes += 100;
        self.open.records.push(Record::Estimate(estimate));
    }

    /// Closes the open chunk if it has waited long enough in wall time (a slow or
    /// paused lab).
    pub fn close_if_old(&mut self) {
        if self.opened_at.elapsed() >= CHUNK_WALL {
            self.close();
        }
    }

    /// The lab was rewound to step `at` and goes on from there in a new run, which
    /// starts with what the current one recorded up to `at`; what it recorded after
    /// stays in the current one. [`Recorder::prime`] and [`Recorder::scene`] follow.
    pub fn fork(&mut self, at: u64) {
        self.close();
        let from = self.run;
        self.run += 1;
        self.send(Kept::Fork { lab: self.lab.clone(), from, to: self.run, until: at });
        self.readings.clear();
        self.estimates.clear();
        self.budgets.clear();
        self.pending = None;
        self.next_trail_step = at;
    }

    /// The lab was opened again and goes on from step `at` of run `from`, which a server
    /// before recorded: a new run starts with what `from` recorded up to `at`, as a
    /// rewind's does. What this run recorded since the lab opened (its uploads done
    /// again, at step 0, with no time passing) is dropped: it would only show as an
    /// empty run. [`Recorder::prime`] and [`Recorder::scene`] follow.
    pub fn go_on_from(&mut self, from: u32, at: u64) {
        if from == 0 || from >= self.run {
            // Not a run of this lab's recording (it records nothing, or was reset).
            self.new_run();
            return;
        }
        self.pending = None;
        self.run += 1;
        self.open = self.fresh_chunk(at, at as f64 * self.dt_secs);
        self.send(Kept::Fork { lab: self.lab.clone(), from, to: self.run, until: at });
        self.readings.clear();
        self.estimates.clear();
        self.budgets.clear();
        self.next_trail_step = at;
    }

    /// Learns every sensor's latest reading without recording it (after a rewind, the
    /// readings the new run starts from).
    pub fn prime(&mut self, robots: &Robots) {
        for robot in robots.all() {
            self.readings.insert(robot.name().to_owned(), robot.sensors().iter().map(|s| s.report()).collect());
        }
    }

    /// Takes the readings made since sensors were last looked at, then closes the open
    /// chunk (the lab pauses, ends a `step N`, or shuts down): what a paused lab shows
    /// is all in the recording.
    pub fn settle(&mut self, robots: &Robots) {
        if self.is_on() {
            self.take_readings(robots);
        }
        self.close();
    }

    /// Closes the open chunk now.
    pub fn close(&mut self) {
        if !self.is_on() {
            return;
        }
        // The chunk ends with the poses viewers last got.
        self.flush_frame();
        let (step, time, bytes) = (self.open.last_step, self.open.last_time, self.open_bytes);
        let next = self.fresh_chunk(step, time);
        let closed = std::mem::replace(&mut self.open, next);
        self.open.robots = closed.robots.clone();
        if closed.is_empty() {
            return;
        }
        self.send(Kept::Chunk { lab: self.lab.clone(), chunk: Box::new(closed), bytes });
    }

    /// The open chunk as it is now, for a viewer seeking the last seconds.
    pub fn tail(&self) -> Chunk {
        self.open.clone()
    }

    fn fresh_chunk(&mut self, step: u64, time: f64) -> Chunk {
        self.opened_at = Instant::now();
        self.open_bytes = 0;
        Chunk {
            run: self.run,
            epoch: self.keyframe.epoch,
            first_step: step,
            first_time: time,
            last_step: step,
            last_time: time,
            robots: Vec::new(),
            keyframe: self.keyframe.poses.clone(),
            key_readings: self
                .readings
                .iter()
                .flat_map(|(robot, sensors)| {
                    sensors.iter().map(|s| RobotReading { robot: robot.clone(), sensor: s.clone() })
                })
                .collect(),
            key_estimates: self.estimates.values().cloned().collect(),
            records: Vec::new(),
            trails: Vec::new(),
        }
    }

    fn reached(&mut self, step: u64, time: f64) {
        if step > self.open.last_step {
            self.open.last_step = step;
            self.open.last_time = time;
        }
    }

    fn take_readings(&mut self, robots: &Robots) {
        for robot in robots.all() {
            let name = robot.name();
            self.readings
                .entry(name.to_owned())
                // Nothing recorded yet: its first reading is a record too.
                .or_insert_with(|| robot.sensors().iter().map(|s| unread(s.report())).collect());
            for (index, sensor) in robot.sensors().iter().enumerate() {
                let Some(reading) = sensor.last() else { continue };
                if !self.is_new(name, index, reading) {
                    continue;
                }
                let report = sensor.report();
                let record = Record::Reading(Box::new(RobotReading { robot: name.to_owned(), sensor: report.clone() }));
                // Left out past the robot's budget, and not learnt either: the sensor's
                // next reading is recorded once there is room again.
                let bytes = json_bytes(&record);
                if !self.admit(name, reading.step, reading.time, bytes) {
                    continue;
                }
                self.open_bytes += bytes;
                self.open.records.push(record);
                let latest = self.readings.get_mut(name).expect("entered above");
                match latest.get_mut(index) {
                    Some(slot) => *slot = report,
                    None => latest.push(report),
                }
            }
        }
    }

    /// Whether robot `robot`'s sensor `index` has a reading worth recording: one newer
    /// than the last recorded; for a sensor read every step (a keyboard, a joint), when
    /// its value changed, and once a second while it does not.
    fn is_new(&self, robot: &str, index: usize, reading: &vlab_sim::robot::sensors::Reading) -> bool {
        let Some(known) = self.readings.get(robot).and_then(|latest| latest.get(index)) else { return true };
        if known.step.is_some_and(|known| known >= reading.step) {
            return false;
        }
        !(known.rate.is_none()
            && known.measured.as_ref() == Some(&reading.measured)
            && known.time.is_some_and(|t| reading.time - t < UNCHANGED_EVERY_SECS))
    }

    fn sample_trails(&mut self, step: u64, world: &World, robots: &Robots) {
        for recorded in &self.open.robots {
            let pose = world.pose(recorded.main_body.0 as usize);
            let truth = TrailPoint {
                step,
                x: f64::from(pose.position[0]),
                y: -f64::from(pose.position[2]),
                theta: vlab_sim::robot::frame::heading(&pose),
            };
            let odometry = robots.get(&recorded.name).and_then(|robot| {
                robot.sensors().iter().find_map(|s| match s.last().map(|r| &r.measured) {
                    Some(SensorValue::Pose2d { x, y, theta }) => Some(TrailPoint { step, x: *x, y: *y, theta: *theta }),
                    _ => None,
                })
            });
            let estimate = self.estimates.get(&recorded.name).map(|e| TrailPoint::of_estimate(step, &e.estimate));
            let trail = match self.open.trails.iter_mut().position(|t| t.robot == recorded.name) {
                Some(index) => &mut self.open.trails[index],
                None => {
                    self.open.trails.push(RecordedTrail { robot: recorded.name.clone(), ..RecordedTrail::default() });
                    self.open.trails.last_mut().expect("just pushed")
                }
            };
            trail.truth.push(truth);
            trail.odometry.extend(odometry);
            trail.estimate.extend(estimate);
        }
    }

    fn send(&mut self, kept: Kept) {
        let Some(sink) = &self.sink else { return };
        match sink.try_send(kept) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                self.dropped += 1;
                tracing::warn!(lab = %self.lab, dropped = self.dropped, "the recording's keeper is behind: a chunk was dropped");
            }
            // The keeper is gone (the server is shutting down): nothing to keep.
            Err(TrySendError::Disconnected(_)) => self.sink = None,
        }
    }
}

fn recorded_robots(model: &SceneModel, robots: &Robots) -> Vec<RecordedRobot> {
    model
        .robots
        .iter()
        .map(|r| RecordedRobot {
            name: r.name.clone(),
            main_body: BodyId(r.main_body as u32),
            owner: robots.get(&r.name).and_then(|robot| robot.owner()).map(|o| o.name.clone()),
        })
        .collect()
}

/// A sensor's report as before its first reading.
fn unread(report: SensorReport) -> SensorReport {
    SensorReport { step: None, time: None, measured: None, truth: None, origin: None, ..report }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::bare_step;
    use vlab_protocol::RadioMessage;
    use vlab_sim::scene;

    const DT: f64 = 1.0 / 240.0;

    /// A recorder of a lab with two still robots, `flood` (a radio) and `quiet` (a
    /// gyroscope read 10 times a second), keeping `budget` bytes of each a second.
    fn recorded_lab(budget: usize) -> (Recorder, RecordingQueue, World, Robots) {
        let source = "static ground { shape box(20, 0.2, 12); pos(5, -0.1, 5); }\n\
            robot flood { body { static flood_c { shape box(0.4, 0.2, 0.4); pos(0, 0.5, 5); Radio r { max_length 1024; max_heard 64; } } } }\n\
            robot quiet { body { static quiet_c { shape box(0.4, 0.2, 0.4); pos(3, 0.5, 5); Gyro g { rate 10; } } } }\n";
        let options = scene::Options { seed: 1, ..scene::Options::default() };
        let model = scene::interpret(source, "budget.vlab", &scene::MapLoader::new(), &options).unwrap().model;
        let mut world = World::build(&model).unwrap();
        let mut robots = Robots::configure(&model, 1).unwrap();
        robots.install(&mut world, 0, 0.0);
        let (sink, queue) = recording_queue(1024);
        let mut recorder = Recorder::new("lab".into(), Some(sink), 1).with_robot_budget(budget);
        recorder.scene(&Frame::default(), "{}".into(), &model, &robots);
        (recorder, queue, world, robots)
    }

    /// Steps `from + 1 ..= to`; at every control step (5 steps) robot `flood`'s radio
    /// hears `heard_bytes` bytes of messages.
    fn run(lab: &mut (Recorder, RecordingQueue, World, Robots), from: u64, to: u64, heard_bytes: usize) {
        let (recorder, _, world, robots) = lab;
        for step in from + 1..=to {
            bare_step(world, robots, step, DT);
            if step.is_multiple_of(5) {
                // A new text every time: an unchanged reading would be kept once a second.
                let heard = vec![RadioMessage { from: "far".into(), text: format!("{step:0>heard_bytes$}") }];
                robots.hear("flood", step, step as f64 * DT, heard, Vec::new());
            }
            recorder.after_step(step, step as f64 * DT, DT, world, robots);
        }
    }

    #[test]
    fn a_lab_opened_again_goes_on_in_a_fork_of_the_run_recorded_before_without_an_empty_run() {
        let mut lab = recorded_lab(usize::MAX);
        lab.0.go_on_from(0, 300);
        assert_eq!(lab.0.run(), 2, "no run known: a new run, as after a reset");
        // Opened again as run 3 (runs 1 and 2 are kept), its uploads done at step 0.
        lab.0.new_run();
        assert_eq!(lab.0.run(), 3);
        lab.0.record(Record::Change { step: 0, change: Change::Removed { robot: "quiet".into() } });
        while lab.1.receiver.try_recv().is_ok() {}
        lab.0.go_on_from(2, 1200);
        assert_eq!(lab.0.run(), 4, "the run going on");
        lab.0.close();
        let kept: Vec<_> = std::iter::from_fn(|| lab.1.receiver.try_recv().ok()).collect();
        assert!(
            matches!(kept.as_slice(), [Kept::Fork { from: 2, to: 4, until: 1200, .. }]),
            "a fork of the run before, and nothing of run 3: {:?}",
            kept.iter().map(|k| k.bytes()).collect::<Vec<_>>()
        );
    }

    /// Every record closed so far.
    fn records(lab: &mut (Recorder, RecordingQueue, World, Robots)) -> Vec<Record> {
        lab.0.close();
        let mut records = Vec::new();
        while let Ok(kept) = lab.1.receiver.try_recv() {
            if let Kept::Chunk { chunk, .. } = kept {
                records.extend(chunk.records);
            }
        }
        records
    }

    fn readings_of<'a>(records: &'a [Record], robot: &str) -> Vec<&'a RobotReading> {
        records
            .iter()
            .filter_map(|r| match r {
                Record::Reading(reading) if reading.robot == robot => Some(&**reading),
                _ => None,
            })
            .collect()
    }

    fn thinned_notes(records: &[Record]) -> Vec<(String, u64, String)> {
        records
            .iter()
            .filter_map(|r| match r {
                Record::Console { robot, lines } if lines[0].text.starts_with("recording of robot") => {
                    Some((robot.clone(), lines[0].step, lines[0].text.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// The bytes of the radio reading the recorder would keep for `heard_bytes` heard.
    fn radio_record_bytes(step: u64, heard_bytes: usize) -> usize {
        let value = SensorValue::Radio {
            heard: vec![RadioMessage { from: "far".into(), text: format!("{step:0>heard_bytes$}") }],
            sent: vec![],
        };
        let report = SensorReport {
            name: "r".into(),
            kind: "Radio".into(),
            rate: None,
            step: Some(step),
            time: Some(step as f64 * DT),
            measured: Some(value.clone()),
            truth: Some(value),
            origin: None,
        };
        json_bytes(&Record::Reading(Box::new(RobotReading { robot: "flood".into(), sensor: report })))
    }

    #[test]
    fn a_robot_is_recorded_whole_within_its_budget_exactly_and_thinned_one_byte_over() {
        // Steps 5 to 235: 47 radio readings in the first second of simulation time.
        let second: u64 = (1..=47).map(|i| radio_record_bytes(i * 5, 500) as u64).sum();
        let mut lab = recorded_lab(second as usize);
        run(&mut lab, 0, 235, 500);
        let kept = records(&mut lab);
        assert_eq!(readings_of(&kept, "flood").len(), 47);
        assert_eq!(thinned_notes(&kept), vec![]);

        let mut lab = recorded_lab(second as usize - 1);
        run(&mut lab, 0, 235, 500);
        let records = records(&mut lab);
        let flood: Vec<u64> = readings_of(&records, "flood").iter().map(|r| r.sensor.step.unwrap()).collect();
        assert_eq!(flood, (1..=46).map(|i| i * 5).collect::<Vec<_>>(), "the last one is a byte over");
        let notes = thinned_notes(&records);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!((notes[0].0.as_str(), notes[0].1), ("flood", 235));
        assert!(notes[0].2.contains(&format!("over its {} bytes/s", second - 1)), "{}", notes[0].2);
    }

    #[test]
    fn past_its_budget_a_robot_is_thinned_until_the_next_second_and_said_so_once_a_second() {
        let budget = 10 * radio_record_bytes(100, 500);
        let mut lab = recorded_lab(budget);
        run(&mut lab, 0, 479, 500);
        let kept = records(&mut lab);
        let flood: Vec<u64> = readings_of(&kept, "flood").iter().map(|r| r.sensor.step.unwrap()).collect();
        // Each second keeps the readings that fit in what is left of it, in order.
        let mut expected = Vec::new();
        for second in [0..240, 240..480] {
            let mut spent = 0;
            for step in second.filter(|s: &u64| *s > 0 && s.is_multiple_of(5)) {
                let bytes = radio_record_bytes(step, 500);
                if spent + bytes <= budget {
                    spent += bytes;
                    expected.push(step);
                }
            }
        }
        assert_eq!(flood, expected);
        assert!(flood.iter().any(|s| *s >= 240), "the next second records again: {flood:?}");
        let notes = thinned_notes(&kept);
        let seconds: Vec<u64> = notes.iter().map(|(_, step, _)| step / 240).collect();
        assert_eq!(seconds, vec![0, 1], "once a second: {notes:?}");

        // The quiet robot's gyroscope: every one of its 10 readings a second is kept, as
        // with no budget at all.
        let quiet: Vec<u64> = readings_of(&kept, "quiet").iter().map(|r| r.sensor.step.unwrap()).collect();
        let mut unbounded = recorded_lab(usize::MAX / 2);
        run(&mut unbounded, 0, 479, 500);
        let all = records(&mut unbounded);
        let every: Vec<u64> = readings_of(&all, "quiet").iter().map(|r| r.sensor.step.unwrap()).collect();
        assert_eq!(quiet, every);
        assert_eq!(quiet.len(), 20, "{quiet:?}");
    }

    #[test]
    fn console_lines_and_estimates_count_and_commands_count_but_stay() {
        let mut lab = recorded_lab(1000);
        let line = |step: u64, text: &str| ConsoleLine {
            step,
            time: step as f64 * DT,
            source: ConsoleSource::Print,
            text: text.into(),
        };
        let (recorder, ..) = &mut lab;
        recorder.dt_secs = DT;
        recorder.console("quiet", &[line(1, &"a".repeat(900)), line(1, &"b".repeat(500)), line(1, "c")]);
        let estimate = RobotEstimate {
            robot: "quiet".into(),
            step: 2,
            time: 2.0 * DT,
            estimate: vlab_protocol::Estimate { x: 1.0, y: 2.0, theta: 0.0 },
        };
        recorder.estimate(estimate.clone());
        let hold = || vec![vlab_sim::robot::RobotInput::Hold { robot: "quiet".into() }];
        recorder.inputs(3, CommandSource::Program, hold());
        // A new second: the commands of step 240 go first and use some of it.
        recorder.inputs(240, CommandSource::Program, hold());
        recorder.console("quiet", &[line(241, "d")]);
        let records = records(&mut lab);
        let lines: Vec<(u64, String)> = records
            .iter()
            .filter_map(|r| match r {
                Record::Console { lines, .. } => Some(lines.iter().map(|l| (l.step, l.text.clone()))),
                _ => None,
            })
            .flatten()
            .map(|(step, text)| (step, text.chars().take(30).collect()))
            .collect();
        assert_eq!(
            lines,
            vec![(1, "recording of robot quiet thinn".into()), (1, "a".repeat(30)), (241, "d".into())],
            "b and c did not fit"
        );
        assert!(!records.iter().any(|r| matches!(r, Record::Estimate(_))), "the estimate did not fit");
        let holds = records.iter().filter(|r| matches!(r, Record::Hold { .. })).count();
        assert_eq!(holds, 2, "commands are kept past the budget: a rewind gives them again");
    }

    fn scene(bytes: usize) -> Kept {
        Kept::Scene { lab: "demo".into(), run: 1, epoch: 0, snapshot: "s".repeat(bytes).into() }
    }

    #[test]
    fn the_queue_refuses_past_its_bytes_and_takes_again_once_the_keeper_reads() {
        let (sink, queue) = recording_queue(256);
        sink.try_send(scene(MAX_QUEUED_BYTES - 10)).unwrap();
        sink.try_send(scene(10)).unwrap();
        assert_eq!(sink.queued_bytes(), MAX_QUEUED_BYTES, "exactly at the bound");
        assert!(matches!(sink.try_send(scene(1)), Err(TrySendError::Full(_))), "one byte over");
        assert_eq!(sink.queued_bytes(), MAX_QUEUED_BYTES, "a refusal holds nothing");
        queue.recv().unwrap();
        assert_eq!(sink.queued_bytes(), 10);
        sink.try_send(scene(1000)).unwrap();
        assert_eq!(sink.queued_bytes(), 1010);
    }

    #[test]
    fn an_empty_queue_takes_one_item_larger_than_its_bytes() {
        let (sink, queue) = recording_queue(256);
        sink.try_send(scene(MAX_QUEUED_BYTES + 1)).unwrap();
        assert!(matches!(sink.try_send(scene(1)), Err(TrySendError::Full(_))));
        queue.recv().unwrap();
        assert_eq!(sink.queued_bytes(), 0);
    }

    #[test]
    fn the_queue_refuses_past_its_items_too() {
        let (sink, _queue) = recording_queue(2);
        sink.try_send(scene(1)).unwrap();
        sink.try_send(scene(1)).unwrap();
        assert!(matches!(sink.try_send(scene(1)), Err(TrySendError::Full(_))));
        assert_eq!(sink.queued_bytes(), 2);
    }
}
