//! Which robot is under the pointer: the eye's ray through the clicked pixel against every body's parts, nearest first, and what counts as a click rather than a drag.
//!
//! Parts are tested as the unit primitives they are drawn with ([`primitives`]), through
//! their collision shapes: a part drawn with a mesh file is picked by its shape, which is
//! what the physics sees of it anyway. Every body can hide a robot behind it (a prop, a
//! wall), so the nearest body wins and only a robot's body picks a robot. What the
//! picture leaves out (the ceiling from above, a wall cut away) is left out here too.

use vlab_protocol::pose::{sub, unrotate};

use crate::view3d::cutaway::{blocks_view, primitive_box};
use crate::view3d::primitives::{PrimitiveKind, primitives};
use crate::view3d::screen::Ray;
use crate::view3d::world::{World, ceiling_height, hides_ceiling};

/// How far the pointer may travel between press and release, in CSS pixels, for it to
/// be a click (a pick) rather than a drag (an orbit or a pan).
pub const CLICK_TOLERANCE_PX: f64 = 5.0;

/// Whether a press and release with the pointer travelling `path_px` in between (the sum
/// of every move, so a drag back to where it started is still a drag) is a click.
pub fn is_click(path_px: f64) -> bool {
    path_px <= CLICK_TOLERANCE_PX
}

/// The robot whose body the ray meets first, if the first body it meets is a robot's.
/// What the picture leaves out is not in the way: the ceiling seen from above, a wall
/// between the `eye` and the `focus` it looks at (`cutaway`).
pub fn pick_robot(world: &World, ray: &Ray, eye: [f32; 3], focus: [f32; 3]) -> Option<String> {
    let index = pick_body(world, ray, eye, focus)?;
    world.snapshot()?.bodies[index].robot.clone()
}

/// The index of the body the ray meets first, as [`pick_robot`] sees them.
pub fn pick_body(world: &World, ray: &Ray, eye: [f32; 3], focus: [f32; 3]) -> Option<usize> {
    let snapshot = world.snapshot()?;
    let mut nearest: Option<(f32, usize)> = None;
    for (index, (body, world_from_body)) in snapshot.bodies.iter().zip(world.poses()).enumerate() {
        if hides_ceiling(ceiling_height(body), eye[1]) {
            continue;
        }
        // The room's walls may stand between the eye and what it looks at; an object
        // somebody added (a ramp, a wall segment) is never left out, so it can be grabbed.
        let may_be_cut = body.fixed && body.robot.is_none() && body.owner.is_none();
        for part in &body.parts {
            let world_from_part = world_from_body.compose(&part.local);
            for primitive in primitives(part) {
                let pose = world_from_part.compose(&primitive.part_from_primitive);
                if may_be_cut {
                    let (min, max) = primitive_box(pose.position, pose.rotation, primitive.scale);
                    if blocks_view(min, max, eye, focus) {
                        continue;
                    }
                }
                let Some(t) = hit_scaled(primitive.kind, &pose, primitive.scale, ray) else { continue };
                if nearest.is_none_or(|(best, _)| t < best) {
                    nearest = Some((t, index));
                }
            }
        }
    }
    nearest.map(|(_, index)| index)
}

/// Distance along `ray` to a unit primitive placed at `pose` and scaled by `scale`.
fn hit_scaled(kind: PrimitiveKind, pose: &vlab_protocol::Pose, scale: [f32; 3], ray: &Ray) -> Option<f32> {
    // Into the unit primitive's frame: the same `t` reaches the same point there, since
    // the map is affine and applied to origin and direction alike.
    let s = scale.map(|s| s.abs().max(1e-6));
    let origin = unrotate(pose.rotation, sub(ray.origin, pose.position));
    let direction = unrotate(pose.rotation, ray.direction);
    let origin = [origin[0] / s[0], origin[1] / s[1], origin[2] / s[2]];
    let direction = [direction[0] / s[0], direction[1] / s[1], direction[2] / s[2]];
    unit_hit(kind, origin, direction)
}

/// Smallest `t ≥ 0` where `origin + t·direction` meets the unit primitive (from inside: 0).
pub fn unit_hit(kind: PrimitiveKind, origin: [f32; 3], direction: [f32; 3]) -> Option<f32> {
    match kind {
        PrimitiveKind::Cube => slabs(origin, direction),
        PrimitiveKind::Sphere => {
            let (a, b, c) = quadratic(origin, direction, [0, 1, 2]);
            first_root(a, b, c)
        }
        PrimitiveKind::Cylinder => {
            // The side (radius 1 about Z) within |z| ≤ 1, then the caps.
            let (a, b, c) = quadratic(origin, direction, [0, 1]);
            let side = first_root(a, b, c).filter(|&t| (origin[2] + t * direction[2]).abs() <= 1.0);
            let caps = [-1.0f32, 1.0].into_iter().filter_map(|z| {
                if direction[2].abs() < 1e-12 {
                    return None;
                }
                let t = (z - origin[2]) / direction[2];
                let (x, y) = (origin[0] + t * direction[0], origin[1] + t * direction[1]);
                (t >= 0.0 && x * x + y * y <= 1.0).then_some(t)
            });
            let inside = origin[0] * origin[0] + origin[1] * origin[1] <= 1.0 && origin[2].abs() <= 1.0;
            if inside {
                return Some(0.0);
            }
            side.into_iter().chain(caps).min_by(f32::total_cmp)
        }
    }
}

/// `|o + t·d|² = 1` over the given axes, as `a·t² + b·t + c = 0`.
fn quadratic(o: [f32; 3], d: [f32; 3], axes: impl IntoIterator<Item = usize> + Clone) -> (f32, f32, f32) {
    let sum = |f: &dyn Fn(usize) -> f32| axes.clone().into_iter().map(f).sum::<f32>();
    (sum(&|k| d[k] * d[k]), sum(&|k| 2.0 * o[k] * d[k]), sum(&|k| o[k] * o[k]) - 1.0)
}

/// The smallest non-negative root (0 when the origin is inside: `c ≤ 0`).
fn first_root(a: f32, b: f32, c: f32) -> Option<f32> {
    if c <= 0.0 {
        return Some(0.0);
    }
    let discriminant = b * b - 4.0 * a * c;
    if a <= 0.0 || discriminant < 0.0 {
        return None;
    }
    let near = (-b - discriminant.sqrt()) / (2.0 * a);
    (near >= 0.0).then_some(near)
}

/// The ray against the box `[-1, 1]` on every axis (the slab method).
fn slabs(origin: [f32; 3], direction: [f32; 3]) -> Option<f32> {
    let (mut enter, mut leave) = (0.0f32, f32::INFINITY);
    for k in 0..3 {
        if direction[k].abs() < 1e-12 {
            if origin[k].abs() > 1.0 {
                return None;
            }
            continue;
        }
        let (a, b) = ((-1.0 - origin[k]) / direction[k], (1.0 - origin[k]) / direction[k]);
        enter = enter.max(a.min(b));
        leave = leave.min(a.max(b));
    }
    (enter <= leave).then_some(enter)
}

#[cfg(test)]
mod tests {
    use vlab_protocol::{BodyId, BodyView, Material, PartView, Pose, SceneSnapshot, Shape};

    use super::*;
    use crate::view3d::orbit_camera::OrbitCamera;
    use crate::view3d::screen::{Viewport, pixel_ray, project};
    use vlab_protocol::pose::axis_angle;

    fn part(shape: Shape) -> PartView {
        PartView {
            shape,
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
        }
    }

    fn body(id: u32, name: &str, shape: Shape, position: [f32; 3], robot: Option<&str>) -> BodyView {
        BodyView {
            id: BodyId(id),
            name: name.into(),
            parts: vec![part(shape)],
            pose: Pose { position, rotation: axis_angle([0.0, 1.0, 0.0], 0.4) },
            fixed: robot.is_none(),
            robot: robot.map(str::to_owned),
            owner: None,
        }
    }

    /// The point the tests' eye looks at: the floor's middle.
    const MIDDLE: [f32; 3] = [0.0, 0.0, 0.0];

    /// An eye over the floor's middle, `y` high.
    fn eye(y: f32) -> [f32; 3] {
        [0.0, y, 0.0]
    }

    fn down(x: f32, z: f32) -> Ray {
        Ray { origin: [x, 10.0, z], direction: [0.0, -1.0, 0.0] }
    }

    fn yard() -> World {
        let mut world = World::default();
        world.apply_snapshot(SceneSnapshot {
            epoch: 1,
            sky: [0, 0, 0],
            links: vec![],
            zones: vec![],
            bodies: vec![
                body(0, "floor", Shape::Box { half_extents: [6.0, 0.05, 6.0] }, [0.0, -0.05, 0.0], None),
                body(1, "cart", Shape::Box { half_extents: [0.2, 0.05, 0.15] }, [2.0, 0.1, 2.0], Some("cart")),
                body(2, "ball", Shape::Sphere { radius: 0.1 }, [-2.0, 0.1, 0.0], Some("ball")),
                body(3, "wheel", Shape::Cylinder { radius: 0.2, half_length: 0.05 }, [0.0, 0.2, 3.0], Some("wheely")),
                body(4, "ceiling", Shape::Box { half_extents: [6.0, 0.05, 6.0] }, [0.0, 3.0, 0.0], None),
            ],
        });
        world
    }

    #[test]
    fn a_click_is_a_press_and_release_that_hardly_moved() {
        assert!(is_click(0.0));
        assert!(is_click(CLICK_TOLERANCE_PX));
        assert!(!is_click(CLICK_TOLERANCE_PX + 1.0));
    }

    #[test]
    fn the_unit_primitives_are_met_where_they_are() {
        let from_x = |kind| unit_hit(kind, [-5.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
        assert_eq!(from_x(PrimitiveKind::Cube), Some(4.0));
        assert!((from_x(PrimitiveKind::Sphere).unwrap() - 4.0).abs() < 1e-5);
        assert!((from_x(PrimitiveKind::Cylinder).unwrap() - 4.0).abs() < 1e-5);
        // Along the cylinder's axis: its cap.
        assert_eq!(unit_hit(PrimitiveKind::Cylinder, [0.0, 0.0, 5.0], [0.0, 0.0, -1.0]), Some(4.0));
        // A cube's corner region is outside the sphere and the cylinder.
        let corner = |kind| unit_hit(kind, [0.95, 0.95, 5.0], [0.0, 0.0, -1.0]);
        assert_eq!(corner(PrimitiveKind::Cube), Some(4.0));
        assert_eq!(corner(PrimitiveKind::Sphere), None);
        assert_eq!(corner(PrimitiveKind::Cylinder), None);
        // Pointing away: no hit; from inside: at once.
        assert_eq!(unit_hit(PrimitiveKind::Cube, [-5.0, 0.0, 0.0], [-1.0, 0.0, 0.0]), None);
        assert_eq!(unit_hit(PrimitiveKind::Sphere, [0.0; 3], [1.0, 0.0, 0.0]), Some(0.0));
    }

    #[test]
    fn a_ray_down_onto_a_robot_picks_it_and_onto_the_floor_picks_nothing() {
        let world = yard();
        assert_eq!(pick_robot(&world, &down(2.0, 2.0), eye(20.0), MIDDLE).as_deref(), Some("cart"));
        assert_eq!(pick_robot(&world, &down(2.15, 2.05), eye(20.0), MIDDLE).as_deref(), Some("cart"), "near its edge");
        assert_eq!(pick_robot(&world, &down(-2.0, 0.05), eye(20.0), MIDDLE).as_deref(), Some("ball"));
        assert_eq!(pick_robot(&world, &down(0.1, 3.0), eye(20.0), MIDDLE).as_deref(), Some("wheely"));
        assert_eq!(pick_robot(&world, &down(1.0, 1.0), eye(20.0), MIDDLE), None, "the floor");
        assert_eq!(pick_robot(&world, &down(9.0, 9.0), eye(20.0), MIDDLE), None, "nothing at all");
    }

    #[test]
    fn the_ceiling_hides_robots_from_an_eye_under_it_only() {
        let world = yard();
        // Seen from above the room, the lid is left out; from inside it is there, and a
        // ray from above meets it first.
        assert_eq!(pick_robot(&world, &down(2.0, 2.0), eye(20.0), MIDDLE).as_deref(), Some("cart"));
        assert_eq!(pick_robot(&world, &down(2.0, 2.0), eye(1.5), MIDDLE), None);
        let under = Ray { origin: [2.0, 2.9, 2.0], direction: [0.0, -1.0, 0.0] };
        assert_eq!(pick_robot(&world, &under, eye(2.9), MIDDLE).as_deref(), Some("cart"));
    }

    #[test]
    fn a_body_in_front_hides_the_robot_behind_it() {
        let mut world = yard();
        let mut snapshot = world.snapshot().unwrap().clone();
        snapshot.bodies.push(body(5, "crate", Shape::Box { half_extents: [0.5; 3] }, [2.0, 2.0, 2.0], None));
        world.apply_snapshot(snapshot);
        assert_eq!(pick_robot(&world, &down(2.0, 2.0), eye(20.0), MIDDLE), None);
    }

    #[test]
    fn a_wall_cut_away_from_the_picture_does_not_hide_the_robot_behind_it() {
        let mut world = yard();
        let mut snapshot = world.snapshot().unwrap().clone();
        // A tall wall between an eye low in the south and the cart.
        snapshot.bodies.push(body(5, "wall", Shape::Box { half_extents: [3.0, 1.5, 0.1] }, [2.0, 1.5, 4.0], None));
        world.apply_snapshot(snapshot);
        let eye = [2.0, 1.0, 9.0];
        let at_the_cart = Ray { origin: eye, direction: normalize([0.0, -0.9, -6.9]) };
        assert_eq!(
            pick_robot(&world, &at_the_cart, eye, [2.0, 0.1, 2.0]).as_deref(),
            Some("cart"),
            "the camera follows the cart"
        );
        assert_eq!(
            pick_robot(&world, &at_the_cart, eye, [2.0, 0.1, 7.0]),
            None,
            "looking at a point before the wall, it stands"
        );
    }

    fn normalize(v: [f32; 3]) -> [f32; 3] {
        let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / length)
    }

    #[test]
    fn clicking_where_a_robot_is_drawn_picks_it() {
        let world = yard();
        let mut camera = OrbitCamera::framing(world.framing_bounds().unwrap(), 16.0 / 9.0);
        camera.orbit(80.0, 20.0);
        let view = Viewport { width: 1280.0, height: 720.0 };
        for robot in ["cart", "ball", "wheely"] {
            let (pixel, _) = project(&camera, view, world.robot_position(robot).unwrap()).unwrap();
            let ray = pixel_ray(&camera, view, pixel[0], pixel[1]);
            assert_eq!(pick_robot(&world, &ray, camera.eye(), camera.target).as_deref(), Some(robot));
        }
    }
}
