//! How much one lab holds, whoever adds to it: its bodies and its cameras' rays. The
//! whole class shares one world and one thread, so these are checked on the lab's
//! thread as an insertion is made, where two uploads sent at once cannot both pass.

use vlab_scene::catalogue::MAX_CAMERA_RAYS_PER_LAB;

use vlab_sim::scene::SceneModel;

/// The most rigid bodies a lab may hold, whoever inserts them (the 30-robot classroom
/// scene has 356).
pub const MAX_LAB_BODIES: usize = 5_000;

/// What an insertion would take past the lab's capacity; the lab is unchanged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OverCapacity {
    /// Too many bodies (see [`MAX_LAB_BODIES`]).
    #[error(
        "this lab has {have} bodies and this adds {adding}: a lab holds at most {MAX_LAB_BODIES} (remove something first)"
    )]
    Bodies {
        /// Bodies in the lab.
        have: usize,
        /// Bodies the insertion adds.
        adding: usize,
    },
    /// Its cameras would cast too many rays (see [`MAX_CAMERA_RAYS_PER_LAB`]).
    #[error(
        "this lab's cameras cast {have:.0} rays per second of simulation time and this adds {adding:.0}: a lab's \
         cameras together cast at most {MAX_CAMERA_RAYS_PER_LAB} (use smaller images or a lower rate, or remove a \
         camera robot first)"
    )]
    CameraRays {
        /// Rays per second the lab's cameras cast.
        have: f64,
        /// Rays per second the insertion's cameras would add.
        adding: f64,
    },
}

/// Whether `addition` fits in a lab whose model is `model`.
pub fn check(model: &SceneModel, addition: &SceneModel) -> Result<(), OverCapacity> {
    let (have, adding) = (model.bodies.len(), addition.bodies.len());
    if have + adding > MAX_LAB_BODIES {
        return Err(OverCapacity::Bodies { have, adding });
    }
    let (have, adding) = (camera_rays(model), camera_rays(addition));
    if adding > 0.0 && have + adding > MAX_CAMERA_RAYS_PER_LAB as f64 {
        return Err(OverCapacity::CameraRays { have, adding });
    }
    Ok(())
}

/// Rays per second of simulation time all of `model`'s cameras cast.
fn camera_rays(model: &SceneModel) -> f64 {
    model.sensors.iter().filter_map(|device| device.camera_rays_per_second()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::{self, MapLoader};

    fn model(source: &str) -> SceneModel {
        let options = scene::Options::default();
        scene::interpret(source, "s.vlab", &MapLoader::new(), &options).expect("the scene builds").model
    }

    /// A robot with `cameras` cameras of `width` × `height` at `rate` images a second.
    fn camera_robot(name: &str, cameras: usize, (width, height, rate): (u32, u32, f64)) -> String {
        let devices: String =
            (0..cameras).map(|i| format!("Camera cam{i} {{ width {width}; height {height}; rate {rate}; }}")).collect();
        format!("robot {name} {{ body {{ {name}_base {{ shape box(0.2, 0.1, 0.2); pos(0, 0.1, 0); {devices} }} }} }}")
    }

    #[test]
    fn cameras_fill_a_lab_up_to_its_budget_exactly() {
        assert_eq!(MAX_CAMERA_RAYS_PER_LAB, 960_000, "five robots' budgets: ten default cameras");
        let mut lab = SceneModel::empty();
        for i in 0..5 {
            let robot = model(&camera_robot(&format!("r{i}"), 2, (160, 120, 5.0)));
            assert_eq!(check(&lab, &robot), Ok(()), "robot {i}");
            lab.merge(&robot).unwrap();
        }
        assert_eq!(camera_rays(&lab), 960_000.0);
        // One more ray a second is refused; a robot without cameras still fits.
        let tiny = model(&camera_robot("tiny", 1, (1, 1, 1.0)));
        let refused = check(&lab, &tiny).unwrap_err();
        assert_eq!(refused, OverCapacity::CameraRays { have: 960_000.0, adding: 1.0 });
        assert!(refused.to_string().contains("cast 960000 rays per second") && refused.to_string().contains("adds 1:"));
        assert_eq!(check(&lab, &model(&camera_robot("blind", 0, (1, 1, 1.0)))), Ok(()));
    }

    #[test]
    fn bodies_fill_a_lab_up_to_its_limit_exactly() {
        let mut lab = SceneModel::empty();
        let one = model(&camera_robot("one", 0, (1, 1, 1.0)));
        let body = one.bodies[0].clone();
        lab.bodies = vec![body; MAX_LAB_BODIES - 1];
        assert_eq!(check(&lab, &one), Ok(()));
        lab.bodies.push(lab.bodies[0].clone());
        assert_eq!(check(&lab, &one), Err(OverCapacity::Bodies { have: MAX_LAB_BODIES, adding: 1 }));
    }
}
