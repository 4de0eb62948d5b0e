//! One recorded moment rebuilt from the chunk that holds it: every moving body's pose
//! and the asked robots' readings as viewers had them at that step.

use std::ops::RangeInclusive;

use vlab_protocol::{BodyPose, Estimate, Frame, ProgramState, ProgramStatus, RecordedTrail, RobotReport, SensorReport};

use super::chunk::{Chunk, Record};
use vlab_sim::robot::frame::robot_pose;
use vlab_sim::scene::Pose;

/// What a chunk shows at one step.
#[derive(Clone, Debug, PartialEq)]
pub struct Moment {
    /// The step shown: the last frame at or before the step asked for (the chunk's
    /// first step when none is).
    pub step: u64,
    /// Its simulation time, seconds.
    pub time: f64,
    /// Every moving body's pose then.
    pub poses: Vec<BodyPose>,
    /// The asked robots then (sensors and true pose only).
    pub robots: Vec<RobotReport>,
    /// The asked robots' latest estimates then.
    pub estimates: Vec<(String, Estimate)>,
}

/// The moment of `chunk` at `step`, with the robots named in `robots`.
pub fn at(chunk: &Chunk, step: u64, robots: &[String]) -> Moment {
    let mut scene = Frame { epoch: chunk.epoch, step: chunk.first_step, time: chunk.first_time, poses: Vec::new() };
    scene.poses = chunk.keyframe.clone();
    let asked = |name: &str| robots.iter().any(|r| r == name);
    let mut readings: Vec<(String, Vec<SensorReport>)> = Vec::new();
    let mut note = |robot: &str, sensor: &SensorReport| {
        if !asked(robot) {
            return;
        }
        let sensors = match readings.iter().position(|(r, _)| r == robot) {
            Some(index) => &mut readings[index].1,
            None => {
                readings.push((robot.to_owned(), Vec::new()));
                &mut readings.last_mut().expect("just pushed").1
            }
        };
        match sensors.iter_mut().find(|s| s.name == sensor.name) {
            Some(slot) => *slot = sensor.clone(),
            None => sensors.push(sensor.clone()),
        }
    };
    for reading in &chunk.key_readings {
        note(&reading.robot, &reading.sensor);
    }
    let mut estimates: Vec<(String, Estimate)> =
        chunk.key_estimates.iter().filter(|e| asked(&e.robot)).map(|e| (e.robot.clone(), e.estimate)).collect();
    for record in &chunk.records {
        match record {
            Record::Frame { step: at, time, poses } if *at <= step => {
                scene.absorb(Frame { epoch: chunk.epoch, step: *at, time: *time, poses: poses.clone() });
            }
            Record::Reading(reading) if reading.sensor.step.is_some_and(|at| at <= step) => {
                note(&reading.robot, &reading.sensor);
            }
            Record::Estimate(e) if e.step <= step && asked(&e.robot) => {
                match estimates.iter_mut().find(|(robot, _)| *robot == e.robot) {
                    Some(slot) => slot.1 = e.estimate,
                    None => estimates.push((e.robot.clone(), e.estimate)),
                }
            }
            _ => {}
        }
    }
    let reports = robots
        .iter()
        .filter_map(|name| {
            let recorded = chunk.robots.iter().find(|r| &r.name == name)?;
            let main = scene.poses.iter().find(|p| p.id == recorded.main_body)?;
            let mut sensors = readings.iter().find(|(r, _)| r == name).map(|(_, s)| s.clone()).unwrap_or_default();
            // A sensor read every step is recorded only when its value changes: until
            // then it read the same at every step.
            for sensor in sensors.iter_mut().filter(|s| s.rate.is_none() && s.step.is_some_and(|at| at < scene.step)) {
                sensor.step = Some(scene.step);
                sensor.time = Some(scene.time);
            }
            Some(RobotReport {
                name: name.clone(),
                step: scene.step,
                time: scene.time,
                pose: robot_pose(&Pose { position: main.position, rotation: main.rotation }),
                sensors,
                actuators: Vec::new(),
                keys: Vec::new(),
                program: ProgramStatus {
                    file: None,
                    language: None,
                    state: ProgramState::None,
                    message: None,
                    late: None,
                },
                owner: recorded.owner.clone(),
                console: None,
            })
        })
        .collect();
    Moment { step: scene.step, time: scene.time, poses: scene.poses, robots: reports, estimates }
}

/// The trails of `robots` from chunks' samples (in run order) within `steps`: a
/// window before the step shown, so a trail's length follows the window, not the run.
pub fn trails<'a>(
    samples: impl IntoIterator<Item = &'a RecordedTrail>,
    robots: &[String],
    steps: RangeInclusive<u64>,
) -> Vec<RecordedTrail> {
    let mut trails: Vec<RecordedTrail> =
        robots.iter().map(|r| RecordedTrail { robot: r.clone(), ..RecordedTrail::default() }).collect();
    for sample in samples {
        let Some(trail) = trails.iter_mut().find(|t| t.robot == sample.robot) else { continue };
        let within = |points: &[vlab_protocol::TrailPoint]| {
            points.iter().filter(|p| steps.contains(&p.step)).copied().collect::<Vec<_>>()
        };
        trail.truth.extend(within(&sample.truth));
        trail.odometry.extend(within(&sample.odometry));
        trail.estimate.extend(within(&sample.estimate));
    }
    trails.retain(|t| !t.truth.is_empty());
    trails
}

#[cfg(test)]
mod tests {
    use super::super::chunk::{RecordedRobot, RobotEstimate, RobotReading};
    use super::*;
    use vlab_protocol::{BodyId, SensorValue, TrailPoint};

    fn pose(id: u32, x: f32) -> BodyPose {
        BodyPose { id: BodyId(id), position: [x, 0.1, 0.0], rotation: [0.0, 0.0, 0.0, 1.0] }
    }

    fn reading(step: u64, value: f64) -> RobotReading {
        RobotReading {
            robot: "ana_bot".into(),
            sensor: SensorReport {
                name: "Sonar1".into(),
                kind: "Sonar".into(),
                rate: Some(10.0),
                step: Some(step),
                time: Some(step as f64 / 240.0),
                measured: Some(SensorValue::Scalar { value }),
                truth: Some(SensorValue::Scalar { value }),
                origin: None,
            },
        }
    }

    fn chunk() -> Chunk {
        Chunk {
            run: 1,
            epoch: 2,
            first_step: 100,
            first_time: 100.0 / 240.0,
            last_step: 130,
            last_time: 130.0 / 240.0,
            robots: vec![RecordedRobot { name: "ana_bot".into(), main_body: BodyId(3), owner: Some("Ana".into()) }],
            keyframe: vec![pose(3, 1.0), pose(5, 7.0)],
            key_readings: vec![reading(96, 0.5)],
            key_estimates: vec![],
            records: vec![
                Record::Frame { step: 104, time: 104.0 / 240.0, poses: vec![pose(3, 1.1)] },
                Record::Reading(Box::new(reading(105, 0.6))),
                Record::Frame { step: 108, time: 108.0 / 240.0, poses: vec![pose(3, 1.2), pose(5, 7.5)] },
                Record::Estimate(RobotEstimate {
                    robot: "ana_bot".into(),
                    step: 110,
                    time: 110.0 / 240.0,
                    estimate: Estimate { x: 1.0, y: 0.0, theta: 0.0 },
                }),
                Record::Reading(Box::new(reading(115, 0.7))),
                Record::Frame { step: 120, time: 120.0 / 240.0, poses: vec![pose(3, 1.3)] },
            ],
            trails: vec![],
        }
    }

    #[test]
    fn a_step_between_frames_shows_the_frame_before_it() {
        let moment = at(&chunk(), 112, &["ana_bot".into()]);
        assert_eq!(moment.step, 108);
        assert_eq!(moment.poses, vec![pose(3, 1.2), pose(5, 7.5)]);
        let robot = &moment.robots[0];
        assert_eq!(robot.pose.position[0], 1.2f32 as f64);
        assert_eq!(robot.sensors[0].measured, Some(SensorValue::Scalar { value: 0.6 }), "the reading of step 105");
        assert_eq!(robot.owner.as_deref(), Some("Ana"));
        assert_eq!(moment.estimates, vec![("ana_bot".to_owned(), Estimate { x: 1.0, y: 0.0, theta: 0.0 })]);
    }

    #[test]
    fn the_first_step_shows_the_keyframe_and_the_key_readings() {
        let moment = at(&chunk(), 100, &["ana_bot".into()]);
        assert_eq!((moment.step, moment.poses.clone()), (100, vec![pose(3, 1.0), pose(5, 7.0)]));
        assert_eq!(moment.robots[0].sensors[0].step, Some(96));
        assert!(moment.estimates.is_empty());
    }

    #[test]
    fn robots_not_asked_for_are_left_out() {
        let moment = at(&chunk(), 130, &[]);
        assert_eq!(moment.step, 120);
        assert!(moment.robots.is_empty());
        let unknown = at(&chunk(), 130, &["bob_bot".into()]);
        assert!(unknown.robots.is_empty());
    }

    #[test]
    fn trails_join_chunks_and_keep_to_their_window() {
        let point = |step| TrailPoint { step, x: step as f64, y: 0.0, theta: 0.0 };
        let a = RecordedTrail { robot: "ana_bot".into(), truth: vec![point(0), point(24)], ..Default::default() };
        let b = RecordedTrail { robot: "ana_bot".into(), truth: vec![point(48), point(72)], ..Default::default() };
        let other = RecordedTrail { robot: "bob_bot".into(), truth: vec![point(0)], ..Default::default() };
        let trails = trails([&a, &other, &b], &["ana_bot".into()], 0..=50);
        assert_eq!(trails.len(), 1);
        assert_eq!(trails[0].truth.iter().map(|p| p.step).collect::<Vec<_>>(), vec![0, 24, 48]);
        let window = super::trails([&a, &b], &["ana_bot".into()], 24..=72);
        assert_eq!(
            window[0].truth.iter().map(|p| p.step).collect::<Vec<_>>(),
            vec![24, 48, 72],
            "from the window's start"
        );
    }
}
