//! Which robots a scene snapshot holds: the names its bodies carry, once each, in scene order.

use vlab_protocol::SceneSnapshot;

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

#[cfg(test)]
mod tests {
    use vlab_protocol::{BodyId, BodyView, Pose};

    use super::*;

    fn body(id: u32, robot: Option<&str>) -> BodyView {
        BodyView {
            id: BodyId(id),
            name: format!("b{id}"),
            parts: vec![],
            pose: Pose::IDENTITY,
            fixed: false,
            robot: robot.map(str::to_owned),
        }
    }

    #[test]
    fn each_robot_once_in_scene_order() {
        let snapshot = SceneSnapshot {
            epoch: 1,
            sky: [0, 0, 0],
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
        let snapshot = SceneSnapshot { epoch: 1, sky: [0, 0, 0], bodies: vec![body(0, None)] };
        assert!(robot_names(&snapshot).is_empty());
    }
}
