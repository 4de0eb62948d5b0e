//! The labels over the robots: what one says (the robot's name, its owner's) and where on the canvas it goes, from the camera and the robot's place in the world.
//!
//! A label sits just above the robot's highest point; its anchor, the robot's main
//! body, is where a click picks it. A robot behind the eye, or far off the canvas, has
//! no place: its label hides.

use vlab_protocol::Participant;

use crate::classroom::forms::owner_of;
use crate::view3d::orbit_camera::OrbitCamera;
use crate::view3d::screen::{Viewport, on_viewport, project};
use crate::view3d::world::World;

/// Gap between a robot's top and its label's foot, metres.
const LIFT_M: f32 = 0.12;
/// How far beyond the canvas's edges a label may still be placed, CSS pixels (half of
/// it still shows).
const EDGE_MARGIN_PX: f32 = 60.0;

/// Who a label names as the owner: the participant who added the robot, or "lab" for
/// a robot that came with the lab's scene.
pub fn owner_text(robot: &str, participants: &[Participant]) -> String {
    owner_of(robot, participants).map_or_else(|| "lab".to_owned(), |owner| owner.name.clone())
}

/// Where a robot's label goes on the canvas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelPlace {
    /// The foot of the label (its bottom centre), CSS pixels from the canvas's top-left.
    pub foot: [f32; 2],
    /// Where the robot's main body is drawn: a click there picks it.
    pub anchor: [f32; 2],
}

/// The place of `robot`'s label; `None` when it should not show.
pub fn place_label(world: &World, camera: &OrbitCamera, viewport: Viewport, robot: &str) -> Option<LabelPlace> {
    let bounds = world.robot_bounds(robot)?;
    let top = [(bounds.min[0] + bounds.max[0]) * 0.5, bounds.max[1] + LIFT_M, (bounds.min[2] + bounds.max[2]) * 0.5];
    let (foot, _) = project(camera, viewport, top)?;
    let (anchor, _) = project(camera, viewport, world.robot_position(robot)?)?;
    on_viewport(viewport, foot, EDGE_MARGIN_PX).then_some(LabelPlace { foot, anchor })
}

/// Space kept between labels stacked to stay apart, CSS pixels.
const STACK_GAP_PX: f32 = 2.0;

/// How far each label rises so that none covers another: labels are given by their foot
/// (bottom centre) and size (width, height), CSS pixels; taken from the canvas's bottom
/// up (the nearest robots first, as the eye sees them), each rises above every label
/// already placed that it would overlap.
pub fn lifts(labels: &[([f32; 2], [f32; 2])]) -> Vec<f32> {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by(|&a, &b| labels[b].0[1].total_cmp(&labels[a].0[1]).then(a.cmp(&b)));
    let mut lift = vec![0.0f32; labels.len()];
    // Placed boxes: left, right, top, bottom.
    let mut placed: Vec<[f32; 4]> = Vec::new();
    for index in order {
        let ([x, foot_y], [width, height]) = labels[index];
        let (left, right) = (x - width * 0.5, x + width * 0.5);
        let mut bottom = foot_y;
        // Each rise clears one box; a box placed higher may then be in the way: again.
        while let Some(top) = placed
            .iter()
            .filter(|b| left < b[1] && b[0] < right && bottom - height < b[3] && b[2] < bottom)
            .map(|b| b[2])
            .reduce(f32::min)
        {
            bottom = top - STACK_GAP_PX;
        }
        lift[index] = foot_y - bottom;
        placed.push([left, right, bottom - height, bottom]);
    }
    lift
}

#[cfg(test)]
mod tests {
    use vlab_protocol::{BodyId, BodyView, Material, PartView, Pose, Role, SceneSnapshot, Shape};

    use super::*;

    fn participant(id: u32, name: &str, robots: &[&str]) -> Participant {
        Participant {
            id,
            name: name.into(),
            role: if id == 0 { Role::Instructor } else { Role::Student },
            online: true,
            robots: robots.iter().map(|r| (*r).to_owned()).collect(),
        }
    }

    #[test]
    fn labels_that_would_cover_one_another_stack_and_apart_ones_stay() {
        let size = [80.0, 30.0];
        // Two robots side by side in the picture, a third far off.
        let lifted = lifts(&[([100.0, 200.0], size), ([120.0, 195.0], size), ([400.0, 200.0], size)]);
        assert_eq!(lifted[0], 0.0, "the lowest stays");
        assert_eq!(lifted[1], 27.0, "rises above the first, 2 px apart");
        assert_eq!(lifted[2], 0.0, "far off, it stays");
        // Three on one spot: a stack.
        let stack = lifts(&[([100.0, 200.0], size); 3]);
        assert_eq!(stack, vec![0.0, 32.0, 64.0]);
    }

    #[test]
    fn a_label_names_whoever_added_the_robot_or_the_lab() {
        let people = [participant(0, "Prof", &["demo_bot"]), participant(3, "Ana", &["diffbot_ana"])];
        assert_eq!(owner_text("diffbot_ana", &people), "Ana");
        assert_eq!(owner_text("demo_bot", &people), "Prof");
        assert_eq!(owner_text("rover_red", &people), "lab");
    }

    fn world_with_robot_at(position: [f32; 3]) -> World {
        let mut world = World::default();
        world.apply_snapshot(SceneSnapshot {
            epoch: 1,
            sky: [0, 0, 0],
            links: vec![],
            zones: vec![],
            bodies: vec![BodyView {
                id: BodyId(0),
                name: "chassis".into(),
                parts: vec![PartView {
                    shape: Shape::Sphere { radius: 0.1 },
                    local: Pose::IDENTITY,
                    material: Material {
                        name: "m".into(),
                        color: [9, 9, 9, 255],
                        roughness: 0.5,
                        metallic: 0.0,
                        texture: None,
                        transparent: false,
                    },
                    mesh: None,
                }],
                pose: Pose { position, rotation: [0.0, 0.0, 0.0, 1.0] },
                fixed: false,
                robot: Some("cart".into()),
                owner: None,
            }],
        });
        world
    }

    #[test]
    fn the_label_stands_above_the_robot_and_hides_behind_the_eye() {
        let view = Viewport { width: 800.0, height: 600.0 };
        let camera = OrbitCamera::default();
        let world = world_with_robot_at(camera.target);
        let place = place_label(&world, &camera, view, "cart").unwrap();
        assert!((place.anchor[0] - 400.0).abs() < 0.01 && (place.anchor[1] - 300.0).abs() < 0.01);
        assert!(place.foot[1] < place.anchor[1], "above it on the screen");
        assert_eq!(place_label(&world, &camera, view, "other"), None);
        let behind = world_with_robot_at(std::array::from_fn(|k| 2.0 * camera.eye()[k] - camera.target[k]));
        assert_eq!(place_label(&behind, &camera, view, "cart"), None);
        let aside = world_with_robot_at([camera.target[0] + 500.0, camera.target[1], camera.target[2]]);
        assert_eq!(place_label(&aside, &camera, view, "cart"), None, "far off the canvas");
    }
}
