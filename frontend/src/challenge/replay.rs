//! An attempt's replay as the 3D view plays it: its own scene (the attempt's world and
//! zones), and at any time the recorded moment at or before it as a frame of that scene.
//!
//! The replay's frames carry the poses of its moving bodies only, in the order of
//! `moving`; a frame here names them by body id, as a live frame does, so the view
//! places them with the code that places live frames.

use vlab_protocol::{AttemptReplay, BodyId, BodyPose, Frame, ReplayEvent, SceneSnapshot};

/// One attempt's replay, ready to be shown.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayTrack {
    replay: AttemptReplay,
}

impl ReplayTrack {
    /// The replay the server sent.
    pub fn new(replay: AttemptReplay) -> ReplayTrack {
        ReplayTrack { replay }
    }

    /// The attempt's number.
    pub fn attempt(&self) -> u64 {
        self.replay.attempt.id
    }

    /// The challenge's title.
    pub fn challenge(&self) -> &str {
        &self.replay.attempt.challenge
    }

    /// The attempt's world, with the zones as its seed drew them.
    pub fn scene(&self) -> SceneSnapshot {
        SceneSnapshot { zones: self.replay.zones.clone(), ..self.replay.snapshot.clone() }
    }

    /// The time of its last recorded moment, seconds (0 without any).
    pub fn duration(&self) -> f64 {
        self.replay.frames.last().map_or(0.0, |frame| frame.time)
    }

    /// What happened, as it happened.
    pub fn events(&self) -> &[ReplayEvent] {
        &self.replay.events
    }

    /// The recorded moment at or before `time` (the first one before it starts) as a
    /// frame of [`ReplayTrack::scene`]; `None` without recorded moments.
    pub fn frame_at(&self, time: f64) -> Option<Frame> {
        let frames = &self.replay.frames;
        let index = frames.partition_point(|frame| frame.time <= time).saturating_sub(1);
        let moment = frames.get(index)?;
        let poses = self
            .replay
            .moving
            .iter()
            .zip(&moment.poses)
            .map(|(&body, pose)| BodyPose { id: BodyId(body), position: pose.position, rotation: pose.rotation })
            .collect();
        Some(Frame { epoch: self.replay.snapshot.epoch, step: index as u64, time: moment.time, poses })
    }
}

/// `12.4 s / 21.9 s`: the time shown and the replay's length.
pub fn replay_time_text(time: f64, duration: f64) -> String {
    format!("{:.1} s / {:.1} s", time.max(0.0), duration.max(0.0))
}

/// Where playing reaches after `elapsed` seconds from `time`, and whether that is the
/// end (playing stops there).
pub fn advance(time: f64, elapsed: f64, duration: f64) -> (f64, bool) {
    let next = time + elapsed.max(0.0);
    if next >= duration { (duration, true) } else { (next, false) }
}

#[cfg(test)]
mod tests {
    use vlab_protocol::{AttemptProgress, AttemptReport, Pose, ReplayFrame, ZoneShapeView, ZoneView};

    use super::*;

    fn pose(x: f32) -> Pose {
        Pose { position: [x, 0.05, 2.0], rotation: [0.0, 0.0, 0.0, 1.0] }
    }

    fn track() -> ReplayTrack {
        ReplayTrack::new(AttemptReplay {
            attempt: AttemptReport {
                id: 12,
                robot: "diffbot_ana".into(),
                challenge: "Park".into(),
                seed: 7,
                status: AttemptProgress::Solved,
                ahead: None,
                reason: None,
                score: Some(0.2),
                sim_secs: Some(0.2),
                console: vec![],
            },
            snapshot: SceneSnapshot { epoch: 3, sky: [0, 0, 0], bodies: vec![], links: vec![], zones: vec![] },
            zones: vec![ZoneView {
                name: "bay".into(),
                shape: ZoneShapeView::Box { half_extents: [0.4, 0.025, 0.4] },
                pose: pose(5.4),
                color: [0, 200, 0],
            }],
            moving: vec![4, 7],
            frames: vec![
                ReplayFrame { time: 0.0, poses: vec![pose(1.0), pose(1.1)] },
                ReplayFrame { time: 0.1, poses: vec![pose(2.0), pose(2.1)] },
                ReplayFrame { time: 0.2, poses: vec![pose(3.0), pose(3.1)] },
            ],
            events: vec![ReplayEvent { time: 0.1, text: "entered bay".into() }],
        })
    }

    #[test]
    fn the_scene_is_the_attempt_s_world_with_its_zones() {
        let scene = track().scene();
        assert_eq!((scene.epoch, scene.zones.len()), (3, 1));
        assert_eq!(track().duration(), 0.2);
        assert_eq!(track().attempt(), 12);
        assert_eq!(track().challenge(), "Park");
    }

    #[test]
    fn a_time_shows_the_moment_at_or_before_it_with_the_moving_bodies_by_id() {
        let track = track();
        let frame = track.frame_at(0.15).unwrap();
        assert_eq!((frame.epoch, frame.step, frame.time), (3, 1, 0.1));
        assert_eq!(frame.poses.iter().map(|p| p.id.0).collect::<Vec<_>>(), vec![4, 7]);
        assert_eq!(frame.poses[1].position[0], 2.1);
        assert_eq!(track.frame_at(-1.0).unwrap().step, 0, "before the start: the first moment");
        assert_eq!(track.frame_at(99.0).unwrap().step, 2, "past the end: the last");
        assert_eq!(track.frame_at(0.1).unwrap().step, 1, "exactly at a moment: that one");
    }

    #[test]
    fn playing_stops_at_the_end_and_the_time_reads_against_the_length() {
        assert_eq!(advance(1.0, 0.5, 21.9), (1.5, false));
        assert_eq!(advance(21.8, 0.5, 21.9), (21.9, true));
        assert_eq!(replay_time_text(12.43, 21.9), "12.4 s / 21.9 s");
    }
}
