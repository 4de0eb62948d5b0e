//! The built-in demo lab: a walled room, a few dozen props dropped from above, and
//! wheeled robots whose hinge motors keep them driving in circles.
//!
//! Built from the lab's seed, so the same seed gives the same room.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{
    EnvironmentKind, EnvironmentModel,
    BodyModel, JointKind, JointModel, MotorModel, Motion, Palette, PartModel, Pose, RobotModel, SceneModel, Shape,
};

/// Floor size along X and Z, metres.
const ROOM_SIZE: f32 = 12.0;
const WALL_HEIGHT: f32 = 0.8;
const WALL_THICKNESS: f32 = 0.2;
const PROP_COUNT: usize = 36;

/// The demo scene for `seed`.
pub fn demo_scene(seed: u64) -> SceneModel {
    let palette = Palette::default();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut scene = SceneModel::empty();
    add_room(&mut scene, &palette);
    add_props(&mut scene, &palette, &mut rng);
    let carts = [
        ("rover_red", [3.0, 3.0], 0.0, "Red", (-7.0, -4.5)),
        ("rover_blue", [9.0, 6.0], 2.0, "Blue", (-4.0, -7.5)),
        ("rover_green", [4.0, 9.0], -1.0, "Green", (-6.0, -5.0)),
    ];
    for (name, [x, z], yaw, color, (left, right)) in carts {
        add_cart(&mut scene, &palette, name, [x, z], yaw, color, [left, right]);
    }
    scene
}

fn part(shape: Shape, local: Pose, material: super::Material, density: f32, friction: f32) -> PartModel {
    PartModel { shape, local, material, density, friction, restitution: 0.05, name: None, mesh: None }
}

fn fixed_box(name: &str, center: [f32; 3], half_extents: [f32; 3], material: super::Material) -> BodyModel {
    BodyModel {
        name: name.to_owned(),
        motion: Motion::Fixed,
        pose: Pose::at(center),
        parts: vec![part(Shape::Box { half_extents }, Pose::IDENTITY, material, 0.0, 0.8)],
        robot: None,
    }
}

fn add_room(scene: &mut SceneModel, palette: &Palette) {
    // Declared like a `wallrect` of the scene language (an outdoor fence, no ceiling),
    // so the lab has an environment and uploads cannot add a second one.
    scene.environment = Some(EnvironmentModel {
        kind: EnvironmentKind::WallRect,
        width: ROOM_SIZE,
        length: ROOM_SIZE,
        height: WALL_HEIGHT,
        sky: palette.get("Grey"),
        ground: palette.get("Tiles"),
        walls: palette.get("Pattern"),
        ceiling: palette.get("Grey"),
        erp: None,
        cfm: None,
    });
    let half = ROOM_SIZE / 2.0;
    let h = WALL_HEIGHT / 2.0;
    let t = WALL_THICKNESS / 2.0;
    // The floor's top face is the plane y = 0.
    scene.bodies.push(fixed_box("floor", [half, -0.05, half], [half + t * 2.0, 0.05, half + t * 2.0], palette.get("Tiles")));
    let walls = [
        ("wall_south", [half, h, -t], [half + 2.0 * t, h, t]),
        ("wall_north", [half, h, ROOM_SIZE + t], [half + 2.0 * t, h, t]),
        ("wall_west", [-t, h, half], [t, h, half]),
        ("wall_east", [ROOM_SIZE + t, h, half], [t, h, half]),
    ];
    for (name, center, half_extents) in walls {
        scene.bodies.push(fixed_box(name, center, half_extents, palette.get("Pattern")));
    }
}

fn add_props(scene: &mut SceneModel, palette: &Palette, rng: &mut ChaCha8Rng) {
    const COLORS: [&str; 7] = ["Red", "Orange", "Yellow", "Green", "Blue", "Purple", "Wood"];
    for i in 0..PROP_COUNT {
        let size = rng.random_range(0.12..0.3f32);
        let shape = match i % 3 {
            0 => Shape::Box {
                half_extents: [size, size * rng.random_range(0.6..1.4f32), size * rng.random_range(0.6..1.4f32)],
            },
            1 => Shape::Sphere { radius: size },
            _ => Shape::Cylinder { radius: size * 0.7, half_length: size * rng.random_range(0.8..1.6f32) },
        };
        let position = [
            rng.random_range(0.8..ROOM_SIZE - 0.8),
            rng.random_range(0.6..4.0f32),
            rng.random_range(0.8..ROOM_SIZE - 0.8),
        ];
        let axis = normalize([rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)]);
        let angle = rng.random_range(0.0..std::f32::consts::TAU);
        let material = palette.get(COLORS[i % COLORS.len()]);
        let density = if material.name == "Wood" { 600.0 } else { 400.0 };
        scene.bodies.push(BodyModel {
            name: format!("prop_{i:02}"),
            motion: Motion::Dynamic,
            pose: Pose::at_turned(position, axis, angle),
            parts: vec![part(shape, Pose::IDENTITY, material, density, 0.6)],
            robot: None,
        });
    }
}

/// A differential-drive cart facing +X (before `yaw`): a chassis with a caster ball at
/// the front and two motored wheels at the back whose axles run along Z.
fn add_cart(
    scene: &mut SceneModel,
    palette: &Palette,
    name: &str,
    [x, z]: [f32; 2],
    yaw: f32,
    color: &str,
    wheel_speeds: [f32; 2],
) {
    const WHEEL_RADIUS: f32 = 0.08;
    const WHEEL_HALF_WIDTH: f32 = 0.02;
    const TRACK_HALF: f32 = 0.19;
    const CHASSIS_Y: f32 = 0.1;
    let turn = |[lx, ly, lz]: [f32; 3]| {
        let (sin, cos) = yaw.sin_cos();
        // Rotation about +Y by `yaw`.
        [x + lx * cos + lz * sin, ly, z - lx * sin + lz * cos]
    };
    let chassis_index = scene.bodies.len();
    scene.bodies.push(BodyModel {
        name: format!("{name}_chassis"),
        motion: Motion::Dynamic,
        pose: Pose::at_turned(turn([0.0, CHASSIS_Y, 0.0]), [0.0, 1.0, 0.0], yaw),
        parts: vec![
            part(Shape::Box { half_extents: [0.2, 0.05, 0.15] }, Pose::IDENTITY, palette.get(color), 500.0, 0.5),
            part(
                Shape::Box { half_extents: [0.06, 0.04, 0.1] },
                Pose::at([-0.06, 0.09, 0.0]),
                palette.get("RobotWhite"),
                300.0,
                0.5,
            ),
            // The caster: a frictionless ball under the front.
            part(Shape::Sphere { radius: 0.04 }, Pose::at([0.15, -0.06, 0.0]), palette.get("Steel"), 500.0, 0.0),
        ],
        robot: Some(name.to_owned()),
    });
    scene.robots.push(RobotModel { name: name.to_owned(), main_body: chassis_index, program: None });
    let axle = {
        let (sin, cos) = yaw.sin_cos();
        [sin, 0.0, cos] // local +Z turned by yaw
    };
    for (side, sign, speed) in [("left", -1.0f32, wheel_speeds[0]), ("right", 1.0, wheel_speeds[1])] {
        let center = turn([-0.05, WHEEL_RADIUS, sign * TRACK_HALF]);
        let wheel_index = scene.bodies.len();
        scene.bodies.push(BodyModel {
            name: format!("{name}_wheel_{side}"),
            motion: Motion::Dynamic,
            pose: Pose::at_turned(center, [0.0, 1.0, 0.0], yaw),
            parts: vec![part(
                Shape::Cylinder { radius: WHEEL_RADIUS, half_length: WHEEL_HALF_WIDTH },
                Pose::IDENTITY,
                palette.get("Rubber"),
                800.0,
                1.2,
            )],
            robot: Some(name.to_owned()),
        });
        scene.joints.push(JointModel {
            name: format!("{name}_motor_{side}"),
            body1: chassis_index,
            body2: wheel_index,
            kind: JointKind::Hinge {
                anchor: center,
                axis: axle,
                motor: Some(MotorModel { target_velocity: speed, max_force: 2.0 }),
            },
            erp: None,
            cfm: None,
        });
    }
}

fn normalize(v: [f32; 3]) -> [f32; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if n < 1e-6 { [0.0, 1.0, 0.0] } else { v.map(|c| c / n) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_room_and_another_seed_another() {
        assert_eq!(demo_scene(7), demo_scene(7));
        assert_ne!(demo_scene(7), demo_scene(8));
    }

    #[test]
    fn the_demo_has_a_room_props_and_robots_with_motors() {
        let scene = demo_scene(1);
        assert!(scene.bodies.len() >= 40, "{} bodies", scene.bodies.len());
        assert_eq!(scene.robots.len(), 3);
        let motors = scene
            .joints
            .iter()
            .filter(|j| matches!(j.kind, JointKind::Hinge { motor: Some(_), .. }))
            .count();
        assert_eq!(motors, 6);
        assert!(scene.bodies.iter().any(|b| b.name == "floor" && b.motion == Motion::Fixed));
    }
}
