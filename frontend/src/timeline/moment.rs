//! A recorded moment into the page: the 3D view takes its scene (when it differs) and poses, the inspector the picked robot's report then, the trails its path up to then.

use leptos::prelude::*;
use vlab_protocol::{Frame, ProgramState, ProgramStatus, RecordedMoment, RobotReport};

use super::replay::Replay;
use super::seek::Seeker;
use crate::view3d::ViewState;
use crate::view3d::world::FrameOutcome;

/// Shows `moment` if the page is still seeking (one answering a seek from before going
/// live is dropped).
pub fn show_moment(seeker: Seeker, view: ViewState, moment: RecordedMoment) {
    let Seeker { timeline, inspector, .. } = seeker;
    if !timeline.replay.try_update(|replay| replay.take_moment(&moment)).unwrap_or(false) {
        return;
    }
    let RecordedMoment { step, time, snapshot, epoch, poses, robots, trails, .. } = moment;
    if let Some(snapshot) = snapshot {
        // Its bodies may differ from the live scene's (a robot added or removed since).
        view.show_scene(snapshot);
    }
    if view.place(&Frame { epoch, step, time, poses }) != Some(FrameOutcome::Applied) {
        // The view holds another scene than the moment's: ask again, for the scene too.
        timeline.replay.update(Replay::forget_scene);
        if let Some(target) = timeline.replay.with_untracked(Replay::target) {
            seeker.seek(target);
        }
        return;
    }
    let Some(robot) = inspector.inspected.get_untracked() else { return };
    let report = robots.into_iter().find(|report| report.name == robot);
    let trail = trails.iter().find(|trail| trail.robot == robot);
    inspector.overlay.update_value(|overlay| overlay.show_recorded(&robot, report.as_ref(), trail));
    // The estimate row reads the belief: its estimate then.
    inspector.belief.set(inspector.overlay.with_value(|overlay| overlay.belief().cloned()));
    let live = inspector.robot_report.with_untracked(|live| live.as_ref().map(|r| (r.name.clone(), r.program.clone())));
    inspector.robot_report.set(report.map(|recorded| with_live_program(recorded, live)));
}

/// A recorded report with the program status of the live one (same robot): a
/// recording keeps what the robot sensed and did, not its program's status, and a
/// panel saying "No program" for a robot whose program runs is wrong.
fn with_live_program(mut recorded: RobotReport, live: Option<(String, ProgramStatus)>) -> RobotReport {
    if let Some((name, program)) = live
        && name == recorded.name
        && recorded.program.state == ProgramState::None
    {
        recorded.program = program;
    }
    recorded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(name: &str, state: ProgramState) -> RobotReport {
        RobotReport {
            name: name.into(),
            step: 1,
            time: 0.0,
            pose: vlab_protocol::RobotPose { position: [0.0; 3], quaternion: [1.0, 0.0, 0.0, 0.0], heading: 0.0 },
            sensors: vec![],
            actuators: vec![],
            keys: vec![],
            program: ProgramStatus { file: Some("main.py".into()), language: None, state, message: None, late: None },
            owner: None,
            console: None,
        }
    }

    #[test]
    fn a_recorded_moment_keeps_the_program_status_of_its_robot() {
        let live = report("ana", ProgramState::Running).program;
        let shown = with_live_program(report("ana", ProgramState::None), Some(("ana".into(), live.clone())));
        assert_eq!(shown.program, live, "not 'No program' while scrubbing a robot whose program runs");
        let other = with_live_program(report("bob", ProgramState::None), Some(("ana".into(), live)));
        assert_eq!(other.program.state, ProgramState::None, "another robot's status is not borrowed");
    }
}
