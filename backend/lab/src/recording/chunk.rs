//! A recorded chunk: a few seconds of one run, self-contained (it starts with every
//! moving body's pose and every sensor's latest reading), so any step in it can be
//! shown from it alone; and its bytes as they are kept (JSON, zstd-compressed).

use serde::{Deserialize, Serialize};
use vlab_protocol::{
    ActuatorCommands, BodyId, BodyPose, ConsoleLine, ControlAction, Estimate, RecordedTrail, SensorReport,
};

/// zstd's level for kept chunks: its fast end, which still shrinks the JSON of
/// readings about fivefold.
const COMPRESSION_LEVEL: i32 = 3;

/// Most bytes a kept chunk may expand to when read back: far above what a chunk can
/// hold (`Recorder` closes them well before), so only a corrupt row is refused.
const MAX_DECOMPRESSED_BYTES: usize = 256 * 1024 * 1024;

/// A few seconds of one run of a lab.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// The run it belongs to.
    pub run: u32,
    /// The scene epoch its body ids refer to (one chunk never spans two).
    pub epoch: u32,
    /// Its first step and that step's simulation time.
    pub first_step: u64,
    /// Seconds.
    pub first_time: f64,
    /// Its last step and that step's simulation time.
    pub last_step: u64,
    /// Seconds.
    pub last_time: f64,
    /// The robots in the lab during the chunk and how to follow them.
    pub robots: Vec<RecordedRobot>,
    /// Every moving body's pose at `first_step`.
    pub keyframe: Vec<BodyPose>,
    /// Every robot's sensors' latest readings at `first_step`.
    pub key_readings: Vec<RobotReading>,
    /// Every program's latest estimate at `first_step`.
    pub key_estimates: Vec<RobotEstimate>,
    /// What happened, in order.
    pub records: Vec<Record>,
    /// The robots' paths during the chunk, sampled (also kept beside the chunk, so
    /// trails over a whole run are read without opening every chunk).
    pub trails: Vec<RecordedTrail>,
}

/// A robot as a chunk follows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedRobot {
    /// Its name.
    pub name: String,
    /// Its main body (its true pose).
    pub main_body: BodyId,
    /// Its owner's display name (`None`: the lab's own robot).
    pub owner: Option<String>,
}

/// One sensor's reading, with its robot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RobotReading {
    /// The robot.
    pub robot: String,
    /// The reading, with its step and simulation time.
    pub sensor: SensorReport,
}

/// A program's estimate, with its robot and when it was published.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RobotEstimate {
    /// The robot.
    pub robot: String,
    /// The control step it came with.
    pub step: u64,
    /// Simulation time then, seconds.
    pub time: f64,
    /// The estimate.
    pub estimate: Estimate,
}

/// Something that happened in a lab, in the order it happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// The poses of the bodies that moved, as viewers received them (before the
    /// frame encoding rounds the rotations).
    Frame {
        /// The step.
        step: u64,
        /// Simulation time, seconds.
        time: f64,
        /// Poses, by ascending id.
        poses: Vec<BodyPose>,
    },
    /// A sensor's new reading.
    Reading(Box<RobotReading>),
    /// A program's new estimate.
    Estimate(RobotEstimate),
    /// Console lines of a robot's program (and the lab's words about it).
    Console {
        /// The robot.
        robot: String,
        /// The lines, with their steps.
        lines: Vec<ConsoleLine>,
    },
    /// Commands that reached a robot's actuators.
    Command {
        /// The step before which they applied.
        step: u64,
        /// The robot.
        robot: String,
        /// Who gave them.
        source: CommandSource,
        /// By actuator name.
        commands: ActuatorCommands,
    },
    /// A robot held still (its program starting or stopping).
    Hold {
        /// The step.
        step: u64,
        /// The robot.
        robot: String,
    },
    /// The world changed between steps (what a re-simulation does again).
    Change {
        /// The step after which it changed.
        step: u64,
        /// What changed.
        change: Change,
    },
    /// Keys held for a robot's keyboard sensors.
    Keys {
        /// The step they were set at.
        step: u64,
        /// The robot.
        robot: String,
        /// The keys.
        keys: Vec<String>,
    },
    /// The instructor's time control.
    Control {
        /// The step it took effect at.
        step: u64,
        /// What was done.
        action: ControlAction,
    },
    /// Something inserted, removed, moved or reset, in words.
    Event {
        /// The step.
        step: u64,
        /// What happened.
        text: String,
    },
}

/// A change of the world between two steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Change {
    /// An insertion: the `index`-th of the run, kept by the lab (scene models are not
    /// recorded).
    Inserted {
        /// Its place among the run's insertions.
        index: usize,
    },
    /// A robot taken out.
    Removed {
        /// The robot.
        robot: String,
    },
    /// An object (a body of no robot) taken out.
    ObjectRemoved {
        /// The object.
        name: String,
    },
    /// A robot put back at its start.
    RobotReset {
        /// The robot.
        robot: String,
    },
    /// The start a robot is put back at, moved.
    StartMoved {
        /// The robot.
        robot: String,
        /// Where its main body starts now.
        position: [f32; 3],
        /// Its heading there, radians (`None`: the start's).
        heading: Option<f32>,
    },
    /// A body, or a robot as a whole, moved by hand.
    Moved {
        /// Its name.
        name: String,
        /// Where to.
        position: [f32; 3],
        /// Its new heading, radians (`None`: turned as it was).
        heading: Option<f32>,
    },
    /// The room changed (sizes, materials, gravity).
    Room {
        /// The fields changed.
        room: vlab_protocol::RoomChange,
    },
}

impl Change {
    /// Whether it changes which robots and bodies the lab has, or where they start: such
    /// a change given right after a step belongs to that step (a rewind there keeps it),
    /// since the classroom keeps it too.
    pub fn is_structural(&self) -> bool {
        matches!(
            self,
            Change::Inserted { .. }
                | Change::Removed { .. }
                | Change::ObjectRemoved { .. }
                | Change::StartMoved { .. }
                | Change::Room { .. }
        )
    }
}

impl Record {
    /// Whether a re-simulation to step `target` gives this input: those given before
    /// it, and insertions and removals given right after it.
    pub fn replayed_before(&self, target: u64) -> bool {
        match (self, self.input_step()) {
            (Record::Change { change, .. }, Some(at)) => at < target || (at == target && change.is_structural()),
            (_, Some(at)) => at < target,
            (_, None) => false,
        }
    }

    /// The step a record of an input or a change was given at (`None` for the rest).
    pub fn input_step(&self) -> Option<u64> {
        match self {
            Record::Command { step, .. } | Record::Hold { step, .. } | Record::Keys { step, .. } => Some(*step),
            Record::Change { step, .. } => Some(*step),
            _ => None,
        }
    }
}

/// Who commanded a robot's actuators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandSource {
    /// Its program.
    Program,
    /// Somebody by hand (the page's actuator panel or the HTTP API).
    Hand,
}

/// Why kept bytes could not be read back as a chunk.
#[derive(Debug, thiserror::Error)]
pub enum ChunkError {
    /// The bytes are not zstd, or expand past the limit.
    #[error("a recorded chunk does not decompress: {0}")]
    Compression(std::io::Error),
    /// The JSON inside is not a chunk of this version.
    #[error("a recorded chunk does not read as one: {0}")]
    Format(#[from] serde_json::Error),
}

impl Chunk {
    /// The bytes kept in the store.
    pub fn encode(&self) -> Vec<u8> {
        let json = serde_json::to_vec(self).expect("chunks serialise");
        zstd::bulk::compress(&json, COMPRESSION_LEVEL).expect("compressing into memory cannot fail")
    }

    /// A chunk from the bytes [`Chunk::encode`] made.
    pub fn decode(bytes: &[u8]) -> Result<Chunk, ChunkError> {
        let json = zstd::bulk::decompress(bytes, MAX_DECOMPRESSED_BYTES).map_err(ChunkError::Compression)?;
        Ok(serde_json::from_slice(&json)?)
    }

    /// The chunk as it was up to step `until` (a run forked there by a rewind): what
    /// was shown up to it, and the inputs given before it.
    pub fn truncated(mut self, until: u64) -> Chunk {
        if self.last_step <= until {
            return self;
        }
        self.records.retain_mut(|record| match record {
            Record::Frame { step, .. } => *step <= until,
            Record::Reading(reading) => reading.sensor.step.is_none_or(|step| step <= until),
            Record::Estimate(estimate) => estimate.step <= until,
            Record::Console { lines, .. } => {
                lines.retain(|line| line.step <= until);
                !lines.is_empty()
            }
            Record::Change { step, change } => *step < until || (*step == until && change.is_structural()),
            Record::Command { step, .. }
            | Record::Hold { step, .. }
            | Record::Keys { step, .. }
            | Record::Control { step, .. }
            | Record::Event { step, .. } => *step < until,
        });
        for trail in &mut self.trails {
            trail.truth.retain(|p| p.step <= until);
            trail.odometry.retain(|p| p.step <= until);
            trail.estimate.retain(|p| p.step <= until);
        }
        // Time is step × dt: the span scales.
        let per_step = (self.last_time - self.first_time) / (self.last_step - self.first_step) as f64;
        self.last_time = self.first_time + per_step * (until.max(self.first_step) - self.first_step) as f64;
        self.last_step = until.max(self.first_step);
        self
    }

    /// Whether the chunk has nothing worth keeping (no step went by and nothing
    /// happened).
    pub fn is_empty(&self) -> bool {
        self.records.is_empty() && self.first_step == self.last_step
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_protocol::SensorValue;

    fn reading(robot: &str, step: u64, ranges: Vec<f32>) -> RobotReading {
        let scan = SensorValue::Scan { angle_min: -1.0, angle_step: 0.01, max_range: 8.0, ranges };
        RobotReading {
            robot: robot.into(),
            sensor: SensorReport {
                name: "Lidar1".into(),
                kind: "Lidar".into(),
                rate: Some(10.0),
                step: Some(step),
                time: Some(step as f64 / 240.0),
                measured: Some(scan.clone()),
                truth: Some(scan),
                origin: None,
            },
        }
    }

    #[test]
    fn a_chunk_reads_back_as_it_was_kept() {
        let chunk = Chunk {
            run: 3,
            epoch: 2,
            first_step: 480,
            first_time: 2.0,
            last_step: 960,
            last_time: 4.0,
            keyframe: vec![BodyPose { id: BodyId(4), position: [1.0, 0.25, -2.0], rotation: [0.0, 0.0, 0.0, 1.0] }],
            key_readings: vec![reading("ana_bot", 470, vec![1.5; 180])],
            records: vec![
                Record::Frame { step: 484, time: 484.0 / 240.0, poses: vec![] },
                Record::Reading(Box::new(reading("ana_bot", 494, (0..180).map(|i| i as f32 * 0.01).collect()))),
                Record::Control { step: 500, action: ControlAction::Pause },
            ],
            ..Chunk::default()
        };
        let bytes = chunk.encode();
        assert_eq!(Chunk::decode(&bytes).unwrap(), chunk);
    }

    #[test]
    fn repeated_readings_shrink_several_times() {
        let records: Vec<Record> = (0..100)
            .map(|i| {
                let ranges = (0..360).map(|b| 2.0 + (b % 7) as f32 * 0.1).collect();
                Record::Reading(Box::new(reading("ana_bot", i * 24, ranges)))
            })
            .collect();
        let chunk = Chunk { records, ..Chunk::default() };
        let json = serde_json::to_vec(&chunk).unwrap().len();
        let kept = chunk.encode().len();
        assert!(kept * 4 < json, "{json} bytes of JSON kept in {kept}");
    }

    #[test]
    fn a_chunk_cut_at_a_step_keeps_what_was_shown_up_to_it_and_the_inputs_before_it() {
        let record_at = |step: u64| Record::Hold { step, robot: "ana_bot".into() };
        let chunk = Chunk {
            first_step: 100,
            first_time: 1.0,
            last_step: 200,
            last_time: 2.0,
            records: vec![
                Record::Frame { step: 150, time: 1.5, poses: vec![] },
                record_at(150),
                Record::Frame { step: 160, time: 1.6, poses: vec![] },
                record_at(160),
                Record::Frame { step: 170, time: 1.7, poses: vec![] },
            ],
            ..Chunk::default()
        };
        let cut = chunk.truncated(160);
        assert_eq!((cut.last_step, cut.last_time), (160, 1.6));
        assert_eq!(
            cut.records,
            vec![
                Record::Frame { step: 150, time: 1.5, poses: vec![] },
                record_at(150),
                Record::Frame { step: 160, time: 1.6, poses: vec![] }
            ]
        );
    }

    #[test]
    fn bytes_that_are_not_a_chunk_are_refused() {
        assert!(matches!(Chunk::decode(b"not zstd"), Err(ChunkError::Compression(_))));
        let not_a_chunk = zstd::bulk::compress(b"{\"run\": \"three\"}", 1).unwrap();
        assert!(matches!(Chunk::decode(&not_a_chunk), Err(ChunkError::Format(_))));
    }
}
