//! Over something fixed: a robot (or a moved body) must stand above the lab's floor or a
//! fixed body such as a platform. One put down beside the floor would fall for as long as
//! the lab runs, costing the lab's thread and showing its owner nothing, so it is refused
//! with where the floor is.

use vlab_sim::scene::{EnvironmentModel, Footprint, SceneModel, static_footprints};

/// Something would stand over nothing fixed; the lab is unchanged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "{what} would stand at x {x:.2}, z {z:.2}, over nothing fixed, and fall for as long as the lab runs: \
     the lab's floor spans x 0 to {width} and z 0 to {length}; place it there (or on something fixed)"
)]
pub struct OffTheGround {
    /// What would stand there: `robot 'name'`, or a body's name in quotes.
    pub what: String,
    /// Where its main body would be, along world X.
    pub x: f32,
    /// ... and world Z.
    pub z: f32,
    /// The floor's extent along X.
    pub width: f32,
    /// ... and along Z.
    pub length: f32,
}

/// What holds things up in a lab: its floor's extent and the footprints of its fixed
/// bodies. A lab without an environment has no floor to miss: its scene decides what
/// holds robots up, and everything stands.
pub struct Ground {
    floor: Option<(f32, f32)>,
    support: Vec<Footprint>,
}

impl Ground {
    /// The ground of a lab whose model is `model`, with `addition`'s fixed bodies (an
    /// insertion may bring its own platform) and environment.
    pub fn of(model: &SceneModel, addition: Option<&SceneModel>) -> Ground {
        let environment: Option<&EnvironmentModel> =
            model.environment.as_ref().or(addition.and_then(|a| a.environment.as_ref()));
        let mut support = static_footprints(model);
        if let Some(addition) = addition {
            support.extend(static_footprints(addition));
        }
        Ground { floor: environment.map(|e| (e.width, e.length)), support }
    }

    /// Whether something whose main body is at `position` stands over something fixed.
    pub fn holds(&self, position: [f32; 3]) -> bool {
        if self.floor.is_none() {
            return true;
        }
        let [x, y, z] = position;
        // Ground points are `[x, -z]`, as a program's map has them.
        let point = [f64::from(x), -f64::from(z)];
        self.support.iter().any(|support| support.bottom <= f64::from(y) && support.contains(point))
    }

    /// `Ok` when [`Ground::holds`] `position`, else why not, for `what`.
    pub fn check(&self, what: &str, position: [f32; 3]) -> Result<(), OffTheGround> {
        let Some((width, length)) = self.floor.filter(|_| !self.holds(position)) else { return Ok(()) };
        Err(OffTheGround { what: what.to_owned(), x: position[0], z: position[2], width, length })
    }

    /// The floor's extent along X and Z, if the lab has an environment.
    pub fn floor(&self) -> Option<(f32, f32)> {
        self.floor
    }
}

/// Whether every robot of `addition` stands over something fixed once inserted into a
/// lab whose model is `model`.
pub fn check(model: &SceneModel, addition: &SceneModel) -> Result<(), OffTheGround> {
    if addition.robots.is_empty() {
        return Ok(());
    }
    let ground = Ground::of(model, Some(addition));
    for robot in &addition.robots {
        let Some(body) = addition.bodies.get(robot.main_body) else { continue };
        ground.check(&format!("robot '{}'", robot.name), body.pose.position)?;
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
        assert_eq!((refused.what.as_str(), refused.x, refused.z), ("robot 'out'", -3.0, 2.0));
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
        assert!(Ground::of(&SceneModel::empty(), None).holds([1e6, 0.0, 1e6]));
    }

    #[test]
    fn a_position_a_million_metres_away_stands_on_nothing() {
        let lab = model("environment wallrect { width 12; length 10; height 0.5; }");
        let refused = Ground::of(&lab, None).check("'crate'", [1e6, 0.5, 2.0]).unwrap_err();
        assert!(refused.to_string().starts_with("'crate' would stand at x 1000000.00"), "{refused}");
    }
}
