//! Where an inserted robot may stand: above something fixed of the lab (its floor, or a
//! fixed body such as a platform). A robot put down beside the floor would fall for as
//! long as the lab runs, costing the lab's thread and showing its owner nothing, so it
//! is refused with where the floor is.

use vlab_sim::scene::{Footprint, SceneModel, static_footprints};

/// A robot of an insertion stands over nothing fixed; the lab is unchanged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "robot '{robot}' would stand at x {x:.2}, z {z:.2}, over nothing fixed, and fall for as long as the lab runs: \
     the lab's floor spans x 0 to {width} and z 0 to {length}; place it there (or on something fixed)"
)]
pub struct OffTheGround {
    /// The robot.
    pub robot: String,
    /// Where its main body would be, along world X.
    pub x: f32,
    /// ... and world Z.
    pub z: f32,
    /// The floor's extent along X.
    pub width: f32,
    /// ... and along Z.
    pub length: f32,
}

/// Whether every robot of `addition` stands over something fixed once inserted into a
/// lab whose model is `model`. A lab without an environment has no floor to miss: its
/// scene decides what holds robots up.
pub fn check(model: &SceneModel, addition: &SceneModel) -> Result<(), OffTheGround> {
    let Some(environment) = model.environment.as_ref().or(addition.environment.as_ref()) else { return Ok(()) };
    if addition.robots.is_empty() {
        return Ok(());
    }
    let ground: Vec<Footprint> = static_footprints(model).into_iter().chain(static_footprints(addition)).collect();
    for robot in &addition.robots {
        let Some(body) = addition.bodies.get(robot.main_body) else { continue };
        let [x, y, z] = body.pose.position;
        // Ground points are `[x, -z]`, as a program's map has them.
        let point = [f64::from(x), -f64::from(z)];
        if !ground.iter().any(|support| support.bottom <= f64::from(y) && support.contains(point)) {
            return Err(OffTheGround {
                robot: robot.name.clone(),
                x,
                z,
                width: environment.width,
                length: environment.length,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::{self, MapLoader};

    fn model(source: &str) -> SceneModel {
        let options = scene::Options::default();
        scene::interpret(source, "s.vlab", &MapLoader::new(), &options).expect("the scene builds").model
    }

    fn robot_at(name: &str, x: f64, z: f64) -> SceneModel {
        model(&format!("robot {name} {{ body {{ {name}_base {{ shape box(0.2, 0.1, 0.2); pos({x}, 0.1, {z}); }} }} }}"))
    }

    #[test]
    fn a_robot_beside_the_floor_is_refused_with_where_the_floor_is() {
        let lab = model("environment wallrect { width 12; length 10; height 0.5; }");
        assert_eq!(check(&lab, &robot_at("in", 2.0, 3.0)), Ok(()));
        assert_eq!(check(&lab, &robot_at("edge", 12.0, 10.0)), Ok(()), "the floor's very edge holds");
        let refused = check(&lab, &robot_at("out", -3.0, 2.0)).unwrap_err();
        assert_eq!((refused.robot.as_str(), refused.x, refused.z), ("out", -3.0, 2.0));
        let message = refused.to_string();
        assert!(message.contains("x -3.00, z 2.00") && message.contains("x 0 to 12 and z 0 to 10"), "{message}");
        assert!(check(&lab, &robot_at("far", 5.0, 10.5)).is_err());
    }

    #[test]
    fn something_fixed_outside_the_room_holds_a_robot_up_but_not_from_above() {
        let mut lab = model("environment wallrect { width 12; length 10; height 0.5; }");
        let platform = model("static platform { shape box(2, 0.2, 2); pos(-3, 0.1, 2); }");
        lab.merge(&platform).unwrap();
        assert_eq!(check(&lab, &robot_at("on_it", -3.0, 2.0)), Ok(()));
        let shelf = model("static shelf { shape box(2, 0.2, 2); pos(-6, 3, 2); }");
        lab.merge(&shelf).unwrap();
        assert!(check(&lab, &robot_at("under_it", -6.0, 2.0)).is_err(), "a shelf above is no ground");
    }

    #[test]
    fn a_lab_without_an_environment_leaves_it_to_its_scene() {
        assert_eq!(check(&SceneModel::empty(), &robot_at("anywhere", -30.0, 2.0)), Ok(()));
    }
}
