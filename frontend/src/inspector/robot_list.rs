//! Which robots a scene snapshot holds: the names its bodies carry, once each, in scene order; and which of them the list marks late (its program needs more CPU per control step than its share).

use vlab_protocol::{RobotReport, SceneSnapshot};

use crate::programs::console_log::late_badge;

/// The robots of `snapshot`, in the order their first body appears (the scene's order).
pub fn robot_names(snapshot: &SceneSnapshot) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for robot in snapshot.bodies.iter().filter_map(|body| body.robot.as_ref()) {
        if !names.contains(robot) {
            names.push(robot.clone());
        }
    }
    names
}

/// The late badge beside `robot` in the list, from `report` (the inspected robot's, the
/// only one the page receives): `None` when the report is another robot's, or its program
/// keeps up.
pub fn list_late_badge(robot: &str, report: Option<&RobotReport>) -> Option<String> {
    report.filter(|report| report.name == robot).and_then(|report| late_badge(&report.program))
}

#[cfg(test)]
mod tests {
    use vlab_protocol::{BodyId, BodyView, Lateness, Pose, ProgramState, ProgramStatus, RobotPose};

    use super::*;

    fn body(id: u32, robot: Option<&str>) -> BodyView {
        BodyView {
            id: BodyId(id),
            name: format!("b{id}"),
            parts: vec![],
            pose: Pose::IDENTITY,
            fixed: false,
            robot: robot.map(str::to_owned),
            owner: None,
        }
    }

    #[test]
    fn each_robot_once_in_scene_order() {
        let snapshot = SceneSnapshot {
            epoch: 1,
            sky: [0, 0, 0],
            links: vec![],
            zones: vec![],
            bodies: vec![
                body(0, None),
                body(1, Some("rover_red")),
                body(2, Some("rover_red")),
                body(3, Some("arm")),
                body(4, None),
                body(5, Some("rover_red")),
            ],
        };
        assert_eq!(robot_names(&snapshot), ["rover_red", "arm"]);
    }

    #[test]
    fn a_scene_without_robots_lists_none() {
        let snapshot =
            SceneSnapshot { epoch: 1, sky: [0, 0, 0], bodies: vec![body(0, None)], links: vec![], zones: vec![] };
        assert!(robot_names(&snapshot).is_empty());
    }

    #[test]
    fn the_late_badge_is_the_reported_robot_s_alone() {
        let report = RobotReport {
            name: "rover_red".into(),
            step: 240,
            time: 1.0,
            pose: RobotPose { position: [0.0; 3], quaternion: [1.0, 0.0, 0.0, 0.0], heading: 0.0 },
            sensors: vec![],
            actuators: vec![],
            keys: vec![],
            program: ProgramStatus {
                file: Some("main.py".into()),
                language: Some("PYTHON".into()),
                state: ProgramState::Running,
                message: None,
                late: Some(Lateness::cpu(45.0, 20.0)),
            },
            owner: None,
            console: None,
        };
        assert_eq!(list_late_badge("rover_red", Some(&report)).as_deref(), Some("late: 45 ms of CPU per 20 ms step"));
        assert_eq!(list_late_badge("arm", Some(&report)), None);
        assert_eq!(list_late_badge("rover_red", None), None);
        let keeping_up = RobotReport { program: ProgramStatus { late: None, ..report.program.clone() }, ..report };
        assert_eq!(list_late_badge("rover_red", Some(&keeping_up)), None);
    }
}
