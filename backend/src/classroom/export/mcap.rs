//! The MCAP export: every moving body's pose on every recorded frame
//! (`/bodies/<body>`, `foxglove.FrameTransform` from `world`), every sensor reading
//! (`/robots/<robot>/sensors/<sensor>`: `foxglove.LaserScan` for scans, their true
//! scan on `…/true`; `vlab.SensorReading` with `measured` and `true` for the others),
//! console lines (`/robots/<robot>/console`) and the lab's events
//! (`/lab/events`, whole-lab exports only) as `foxglove.Log`. Log and publish times
//! are simulation time in nanoseconds, written in order.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use ::mcap::records::{MessageHeader, Metadata};
use ::mcap::write::NoSeek;
use ::mcap::{Compression, WriteOptions};
use serde::Serialize;
use vlab_protocol::pose::{from_wxyz, identity, multiply};
use vlab_protocol::{AttemptReplay, BodyPose, ConsoleSource, RobotPose, SceneSnapshot, SensorValue};

use super::schemas::{self, FrameTransform, LaserScan, Log, Pose, Quaternion, SensorReading, Time, Vector3};
use super::{ExportError, ExportPlan, Readings, time_of};
use crate::classroom::Recordings;
use vlab_lab::recording::{Chunk, Record, RobotReading};

/// The frame every pose and scan is given in: the lab's world (Y up, as in the lab).
const WORLD: &str = "world";
/// Messages are compressed in MCAP chunks of about this many bytes (before
/// compression), which is also about what the writer holds in memory.
const MCAP_CHUNK_BYTES: u64 = 1024 * 1024;

/// Writes `plan`'s recording as MCAP into `out`.
pub fn write(plan: &ExportPlan, recordings: &Recordings, out: impl Write) -> Result<(), ExportError> {
    let mut file = McapFile::new(options().create(NoSeek::new(out))?)?;
    match write_messages(plan, recordings, &mut file) {
        Ok(()) => {
            file.writer.finish()?;
            Ok(())
        }
        Err(error) => {
            // Without a footer: a cut-off file must not read as a whole one.
            drop(file.writer.into_inner());
            Err(error)
        }
    }
}

/// Writes an attempt's replay as MCAP into `out`: its bodies' poses
/// (`/bodies/<body>`), its robot's console (`/robots/<robot>/console`) and what
/// happened (`/attempt/events`), in simulation time from its start.
pub fn write_attempt(replay: &AttemptReplay, out: impl Write) -> Result<(), ExportError> {
    let mut file = McapFile::new(options().create(NoSeek::new(out))?)?;
    let attempt = &replay.attempt;
    let metadata = BTreeMap::from([
        ("attempt".to_owned(), attempt.id.to_string()),
        ("robot".to_owned(), attempt.robot.clone()),
        ("challenge".to_owned(), attempt.challenge.clone()),
        ("seed".to_owned(), attempt.seed.to_string()),
        ("status".to_owned(), serde_json::to_value(attempt.status).map(|v| v.to_string()).unwrap_or_default()),
        ("score".to_owned(), attempt.score.map(|s| s.to_string()).unwrap_or_default()),
        ("time".to_owned(), "simulation time since the attempt started, nanoseconds".to_owned()),
    ]);
    file.writer.write_metadata(&Metadata { name: "vlab.attempt".into(), metadata })?;
    let mut bodies = Bodies::default();
    for &id in &replay.moving {
        if let Some(body) = replay.snapshot.bodies.get(id as usize) {
            bodies.names.insert(id, body.name.clone());
        }
    }
    for frame in &replay.frames {
        for (&id, pose) in replay.moving.iter().zip(&frame.poses) {
            let pose = BodyPose { id: vlab_protocol::BodyId(id), position: pose.position, rotation: pose.rotation };
            file.pose(&bodies, &pose, frame.time)?;
        }
    }
    for line in &attempt.console {
        file.log(
            &format!("/robots/{}/console", attempt.robot),
            line.time,
            level(line.source),
            &line.text,
            &attempt.robot,
        )?;
    }
    for event in &replay.events {
        file.log("/attempt/events", event.time, 2, &event.text, "attempt")?;
    }
    file.release(None)?;
    file.writer.finish()?;
    Ok(())
}

/// How every export is written.
fn options() -> WriteOptions {
    WriteOptions::new()
        .library(concat!("vlab-", env!("CARGO_PKG_VERSION")))
        .compression(Some(Compression::Zstd))
        // One thread per export: the labs' threads come first.
        .compression_threads(0)
        .chunk_size(Some(MCAP_CHUNK_BYTES))
        // The file is streamed to the client as it is written: nothing to seek back to.
        .disable_seeking(true)
}

fn write_messages(
    plan: &ExportPlan,
    recordings: &Recordings,
    file: &mut McapFile<impl Write>,
) -> Result<(), ExportError> {
    let mut metadata = BTreeMap::from([
        ("lab".to_owned(), plan.lab.id().to_owned()),
        ("run".to_owned(), plan.run.to_string()),
        ("from_step".to_owned(), plan.from.to_string()),
        ("to_step".to_owned(), plan.to.to_string()),
        ("time".to_owned(), "simulation time, nanoseconds".to_owned()),
    ]);
    if let Some(robot) = &plan.robot {
        metadata.insert("robot".to_owned(), robot.clone());
    }
    file.writer.write_metadata(&Metadata { name: "vlab.export".into(), metadata })?;
    let mut readings = Readings::new();
    let mut bodies = Bodies::default();
    plan.each_chunk(recordings, |chunk, first| {
        if first || bodies.epoch != Some(chunk.epoch) {
            bodies.load(plan, recordings, chunk);
            key_poses(plan, file, &bodies, chunk)?;
        }
        for record in &chunk.records {
            match record {
                Record::Frame { step, time, poses } if plan.spans(*step) => {
                    for pose in poses {
                        file.pose(&bodies, pose, *time)?;
                    }
                }
                Record::Console { robot, lines } if plan.covers(robot) => {
                    for line in lines.iter().filter(|line| plan.spans(line.step)) {
                        let topic = format!("/robots/{robot}/console");
                        file.log(&topic, line.time, level(line.source), &line.text, robot)?;
                    }
                }
                Record::Event { step, text } if plan.robot.is_none() && plan.spans(*step) => {
                    file.log("/lab/events", time_of(chunk, *step), 2, text, "lab")?;
                }
                Record::Control { step, action } if plan.robot.is_none() && plan.spans(*step) => {
                    let action = serde_json::to_string(action).expect("control actions serialise");
                    file.log("/lab/events", time_of(chunk, *step), 2, &format!("time control: {action}"), "lab")?;
                }
                _ => {}
            }
        }
        for reading in readings.of(plan, chunk) {
            file.reading(reading)?;
        }
        // A later chunk may still hold a message a few steps older than its start (a
        // reading recorded after it was taken): what is before this chunk's start is
        // safe to write, the rest waits for the next chunk.
        file.release(Some(nanos(chunk.first_time)))
    })?;
    file.release(None)
}

/// Every moving body's pose at the start of the range (or of a new scene): the
/// chunk's keyframe, followed through its frames before the range.
fn key_poses(
    plan: &ExportPlan,
    file: &mut McapFile<impl Write>,
    bodies: &Bodies,
    chunk: &Chunk,
) -> Result<(), ExportError> {
    let mut poses: BTreeMap<u32, BodyPose> = chunk.keyframe.iter().map(|p| (p.id.0, *p)).collect();
    let mut time = chunk.first_time;
    for record in &chunk.records {
        if let Record::Frame { step, time: at, poses: moved } = record
            && *step < plan.from
        {
            poses.extend(moved.iter().map(|p| (p.id.0, *p)));
            time = *at;
        }
    }
    for pose in poses.values() {
        file.pose(bodies, pose, time)?;
    }
    Ok(())
}

/// The export's bodies in one scene epoch: id → name.
#[derive(Default)]
struct Bodies {
    epoch: Option<u32>,
    names: HashMap<u32, String>,
}

impl Bodies {
    /// The names of the bodies of `chunk`'s scene that the export covers, from the
    /// scene kept with the run (or the live one, for the current run's scene that is
    /// on its way to the store). Without either, a robot's main body still goes by the
    /// robot's name, and a whole-lab export names the others by id.
    fn load(&mut self, plan: &ExportPlan, recordings: &Recordings, chunk: &Chunk) {
        self.epoch = Some(chunk.epoch);
        self.names.clear();
        let lab = plan.lab.id();
        let kept = recordings.read(|store| store.scene(lab, plan.run, chunk.epoch)).ok().flatten();
        let json = kept.or_else(|| (plan.run == plan.live_run).then(|| plan.lab.viewers().snapshot_json().to_string()));
        let snapshot = json
            .and_then(|json| serde_json::from_str::<SceneSnapshot>(&json).ok())
            .filter(|snapshot| snapshot.epoch == chunk.epoch);
        match snapshot {
            Some(snapshot) => {
                let covered = snapshot.bodies.into_iter().filter(|body| match (&plan.robot, &body.robot) {
                    (None, _) => true,
                    (Some(robot), Some(owner)) => robot == owner,
                    (Some(_), None) => false,
                });
                self.names.extend(covered.map(|body| (body.id.0, body.name)));
            }
            None => {
                tracing::warn!(%lab, run = plan.run, epoch = chunk.epoch, "an exported scene is not recorded");
                let robots = chunk.robots.iter().filter(|r| plan.covers(&r.name));
                self.names.extend(robots.map(|r| (r.main_body.0, r.name.clone())));
                if plan.robot.is_none() {
                    for pose in &chunk.keyframe {
                        self.names.entry(pose.id.0).or_insert_with(|| format!("body{}", pose.id.0));
                    }
                }
            }
        }
    }
}

/// A message waiting to be written in time order.
struct Pending {
    nanos: u64,
    channel: u16,
    data: Vec<u8>,
}

/// Which schema a channel's messages follow.
#[derive(Clone, Copy)]
enum Schema {
    Transform,
    Scan,
    Log,
    Reading,
}

/// The file being written: its schemas, channels (one per topic, added as they first
/// appear), and messages not yet written.
struct McapFile<W: Write> {
    writer: ::mcap::Writer<NoSeek<W>>,
    schemas: [u16; 4],
    channels: HashMap<String, u16>,
    sequences: HashMap<u16, u32>,
    pending: Vec<Pending>,
}

impl<W: Write> McapFile<W> {
    fn new(mut writer: ::mcap::Writer<NoSeek<W>>) -> Result<McapFile<W>, ExportError> {
        let mut schemas = [0; 4];
        for (slot, (name, schema)) in
            [schemas::FRAME_TRANSFORM, schemas::LASER_SCAN, schemas::LOG, schemas::SENSOR_READING].iter().enumerate()
        {
            schemas[slot] = writer.add_schema(name, schemas::ENCODING, schema.as_bytes())?;
        }
        Ok(McapFile { writer, schemas, channels: HashMap::new(), sequences: HashMap::new(), pending: Vec::new() })
    }

    fn channel(&mut self, topic: &str, schema: Schema) -> Result<u16, ExportError> {
        if let Some(id) = self.channels.get(topic) {
            return Ok(*id);
        }
        let schema_id = self.schemas[schema as usize];
        let id = self.writer.add_channel(schema_id, topic, schemas::MESSAGE_ENCODING, &BTreeMap::new())?;
        self.channels.insert(topic.to_owned(), id);
        Ok(id)
    }

    fn push(&mut self, topic: &str, schema: Schema, time: f64, message: &impl Serialize) -> Result<(), ExportError> {
        let channel = self.channel(topic, schema)?;
        let data = serde_json::to_vec(message).expect("messages serialise");
        self.pending.push(Pending { nanos: nanos(time), channel, data });
        Ok(())
    }

    /// Writes the waiting messages older than `before` (all with `None`), oldest
    /// first (in the order they came among equals).
    fn release(&mut self, before: Option<u64>) -> Result<(), ExportError> {
        self.pending.sort_by_key(|p| p.nanos);
        let ready = match before {
            Some(before) => self.pending.partition_point(|p| p.nanos < before),
            None => self.pending.len(),
        };
        for message in self.pending.drain(..ready) {
            let sequence = self.sequences.entry(message.channel).or_insert(0);
            *sequence += 1;
            let header = MessageHeader {
                channel_id: message.channel,
                sequence: *sequence,
                log_time: message.nanos,
                publish_time: message.nanos,
            };
            self.writer.write_to_known_channel(&header, &message.data)?;
        }
        Ok(())
    }

    fn pose(&mut self, bodies: &Bodies, pose: &BodyPose, time: f64) -> Result<(), ExportError> {
        let Some(name) = bodies.names.get(&pose.id.0) else { return Ok(()) };
        let [x, y, z] = pose.position.map(f64::from);
        let message = FrameTransform {
            timestamp: Time::of_nanos(nanos(time)),
            parent_frame_id: WORLD,
            child_frame_id: name,
            translation: Vector3 { x, y, z },
            rotation: Quaternion::from(pose.rotation.map(f64::from)),
        };
        self.push(&format!("/bodies/{name}"), Schema::Transform, time, &message)
    }

    fn log(&mut self, topic: &str, time: f64, level: u8, text: &str, name: &str) -> Result<(), ExportError> {
        let message = Log { timestamp: Time::of_nanos(nanos(time)), level, message: text, name, file: "", line: 0 };
        self.push(topic, Schema::Log, time, &message)
    }

    fn reading(&mut self, reading: &RobotReading) -> Result<(), ExportError> {
        let sensor = &reading.sensor;
        let (Some(step), Some(time)) = (sensor.step, sensor.time) else { return Ok(()) };
        let topic = format!("/robots/{}/sensors/{}", reading.robot, sensor.name);
        let timestamp = Time::of_nanos(nanos(time));
        if let Some(SensorValue::Scan { .. }) = &sensor.measured {
            for (topic, value) in [(topic.clone(), &sensor.measured), (format!("{topic}/true"), &sensor.truth)] {
                if let Some(scan) =
                    value.as_ref().and_then(|value| laser_scan(timestamp, value, sensor.origin.as_ref()))
                {
                    self.push(&topic, Schema::Scan, time, &scan)?;
                }
            }
            return Ok(());
        }
        let message = SensorReading {
            timestamp,
            step,
            robot: &reading.robot,
            sensor: &sensor.name,
            kind: &sensor.kind,
            measured: sensor.measured.as_ref(),
            truth: sensor.truth.as_ref(),
        };
        self.push(&topic, Schema::Reading, time, &message)
    }
}

/// A scan as `foxglove.LaserScan`, in the world frame from the sensor's origin.
fn laser_scan<'a>(timestamp: Time, value: &'a SensorValue, origin: Option<&RobotPose>) -> Option<LaserScan<'a>> {
    let SensorValue::Scan { angle_min, angle_step, ranges, .. } = value else { return None };
    let (position, orientation) = match origin {
        Some(origin) => {
            let [x, y, z] = origin.position;
            (Vector3 { x, y, z }, scan_plane(from_wxyz(origin.quaternion)))
        }
        None => (Vector3 { x: 0.0, y: 0.0, z: 0.0 }, scan_plane(identity())),
    };
    let end_angle = angle_min + angle_step * ranges.len().saturating_sub(1) as f64;
    Some(LaserScan {
        timestamp,
        frame_id: WORLD,
        pose: Pose { position, orientation },
        start_angle: *angle_min,
        end_angle,
        ranges,
        intensities: [],
    })
}

/// A sensor's orientation turned so that its scan plane is the `x-y` plane Foxglove
/// draws a scan in: VLab scans in the sensor's X/−Z plane (Y up), counter-clockwise
/// seen from above, so the scan's `y` is the sensor's −Z and its `z` the sensor's Y: a
/// quarter turn back about the sensor's X.
fn scan_plane(sensor: [f64; 4]) -> Quaternion {
    let half = std::f64::consts::FRAC_1_SQRT_2;
    Quaternion::from(multiply(sensor, [-half, 0.0, 0.0, half]))
}

/// Simulation seconds as whole nanoseconds (MCAP's log time).
fn nanos(seconds: f64) -> u64 {
    (seconds.max(0.0) * 1e9).round() as u64
}

/// A console line's log level: output is info, the standard error an error, the lab's
/// own words (started, stopped and why) a warning.
fn level(source: ConsoleSource) -> u8 {
    match source {
        ConsoleSource::Print | ConsoleSource::Log => 2,
        ConsoleSource::Lab => 3,
        ConsoleSource::Stderr => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `v` turned by a Foxglove quaternion.
    fn rotate(q: Quaternion, v: [f64; 3]) -> [f64; 3] {
        vlab_protocol::pose::rotate([q.x, q.y, q.z, q.w], v)
    }

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-12)
    }

    #[test]
    fn a_scan_lies_in_the_sensors_ground_plane() {
        let level = scan_plane(identity());
        // Forward stays forward; the scan's left (+y) is the sensor's −Z; its up is Y.
        assert!(close(rotate(level, [1.0, 0.0, 0.0]), [1.0, 0.0, 0.0]));
        assert!(close(rotate(level, [0.0, 1.0, 0.0]), [0.0, 0.0, -1.0]));
        assert!(close(rotate(level, [0.0, 0.0, 1.0]), [0.0, 1.0, 0.0]));
        // A sensor turned a quarter left (about +Y): its scan's forward is world −Z.
        let half = std::f64::consts::FRAC_1_SQRT_2;
        let turned = scan_plane([0.0, half, 0.0, half]);
        assert!(close(rotate(turned, [1.0, 0.0, 0.0]), [0.0, 0.0, -1.0]));
        assert!(close(rotate(turned, [0.0, 0.0, 1.0]), [0.0, 1.0, 0.0]));
    }

    #[test]
    fn times_are_whole_nanoseconds() {
        assert_eq!(nanos(1.5), 1_500_000_000);
        assert_eq!(nanos(1.0 / 240.0), 4_166_667);
        let time = Time::of_nanos(2_000_000_001);
        assert_eq!(serde_json::to_string(&time).unwrap(), r#"{"sec":2,"nsec":1}"#);
    }
}
