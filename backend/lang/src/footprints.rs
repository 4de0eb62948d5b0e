//! The lab's static geometry as a program's map sees it: every fixed part that belongs
//! to no robot (walls, posts, furniture, the floor) as its footprint on the ground, a
//! convex polygon, with the heights it spans. Programs rasterize these into an
//! occupancy grid at the resolution they choose (`robot.map()` in Python), on their own
//! CPU rather than the lab's.
//!
//! Ground coordinates are those of an `Odometry` reading: `x` along world X, `y` along
//! world −Z.

use vlab_protocol::pose::{add, rotate};
pub use vlab_protocol::program_protocol::Footprint;

use crate::model::{Motion, Pose, SceneModel, Shape};

/// Points sampled around a round shape's circles: a 16-gon is within 2% of the circle.
const ROUND_SAMPLES: usize = 16;

/// The footprints of `model`'s fixed parts that belong to no robot.
pub fn static_footprints(model: &SceneModel) -> Vec<Footprint> {
    model
        .bodies
        .iter()
        .filter(|body| body.motion == Motion::Fixed && body.robot.is_none())
        .flat_map(|body| body.parts.iter().map(move |part| footprint(&body.pose.compose(&part.local), &part.shape)))
        .collect()
}

/// The footprint of `shape` placed at `pose` (world frame).
fn footprint(pose: &Pose, shape: &Shape) -> Footprint {
    let local = surface_points(shape);
    let (position, rotation) = (pose.position.map(f64::from), pose.rotation.map(f64::from));
    let world: Vec<[f64; 3]> = local.iter().map(|p| add(rotate(rotation, *p), position)).collect();
    let bottom = world.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
    let top = world.iter().map(|p| p[1]).fold(f64::NEG_INFINITY, f64::max);
    let ground: Vec<[f64; 2]> = world.iter().map(|p| [p[0], -p[2]]).collect();
    Footprint { polygon: convex_hull(ground), bottom, top }
}

/// Points whose convex hull is the shape (boxes: corners; round shapes: their circles,
/// and their extremes along every axis).
fn surface_points(shape: &Shape) -> Vec<[f64; 3]> {
    let circle = |radius: f64, z: f64| -> Vec<[f64; 3]> {
        (0..ROUND_SAMPLES)
            .map(|k| {
                let angle = std::f64::consts::TAU * k as f64 / ROUND_SAMPLES as f64;
                // A polygon around the circle (not inscribed): the footprint never
                // shrinks below the shape.
                let r = radius / (std::f64::consts::PI / ROUND_SAMPLES as f64).cos();
                [r * angle.cos(), r * angle.sin(), z]
            })
            .collect()
    };
    match *shape {
        Shape::Box { half_extents: [x, y, z] } => {
            let (x, y, z) = (f64::from(x), f64::from(y), f64::from(z));
            let mut corners = Vec::with_capacity(8);
            for sx in [-x, x] {
                for sy in [-y, y] {
                    for sz in [-z, z] {
                        corners.push([sx, sy, sz]);
                    }
                }
            }
            corners
        }
        Shape::ConvexHull { ref points } => points.iter().map(|p| p.map(f64::from)).collect(),
        Shape::Sphere { radius } => {
            let r = f64::from(radius);
            // Three great circles: round from above whichever way it is turned.
            let mut points = circle(r, 0.0);
            points.extend(circle(r, 0.0).into_iter().map(|[a, b, c]| [a, c, b]));
            points.extend(circle(r, 0.0).into_iter().map(|[a, b, c]| [c, a, b]));
            points
        }
        Shape::Cylinder { radius, half_length } | Shape::Capsule { radius, half_length } => {
            let (r, h) = (f64::from(radius), f64::from(half_length));
            let capped = matches!(shape, Shape::Capsule { .. });
            let mut points = Vec::new();
            for end in [-h, h] {
                points.extend(circle(r, end));
                if capped {
                    // The caps: the end circles' sphere reaches r beyond each end.
                    points.extend(circle(r, 0.0).into_iter().map(|[a, b, c]| [a, c, b + end]));
                    points.push([0.0, 0.0, end + end.signum() * r]);
                }
            }
            points
        }
    }
}

/// The convex hull of `points`, counter-clockwise (Andrew's monotone chain).
fn convex_hull(mut points: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    points.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    points.dedup_by(|a, b| (a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9);
    if points.len() < 3 {
        return points;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(points.len() + 1);
    for pass in [points.clone(), points.into_iter().rev().collect()] {
        let start = hull.len();
        for p in pass {
            while hull.len() >= start + 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 1e-12 {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MapLoader, Options, interpret};

    fn model(source: &str) -> SceneModel {
        interpret(source, "t.vlab", &MapLoader::new(), &Options::default()).unwrap().model
    }

    #[test]
    fn a_turned_wall_a_post_and_a_ball_have_their_footprints_and_robots_have_none() {
        let scene = model(
            "static wall { shape box(4, 1, 0.2); pos(5, 0.5, 3); rot_axis(0, 1, 0, 1.5707963); }
             static post { shape cylinder(0.25, 2); pos(1, 1, 1); rot_axis(1, 0, 0, 1.5707963); }
             static ball { shape sphere(0.25); pos(8, 2, 8); }
             crate1 { shape box(1, 1, 1); pos(3, 0.5, 3); }
             robot bot { body { static chassis { shape box(0.4, 0.2, 0.3); pos(6, 0.3, 6); } } }",
        );
        let prints = static_footprints(&scene);
        assert_eq!(prints.len(), 3, "the fixed parts of no robot: {prints:?}");
        let wall = &prints[0];
        // Turned 90° about Y: 4 m along world Z (z 1 to 5: y −5 to −1 on the ground),
        // 0.2 m along X.
        assert!(wall.contains([5.0, -4.9]) && wall.contains([5.05, -1.1]));
        assert!(!wall.contains([5.2, -3.0]) && !wall.contains([5.0, -5.1]));
        assert!((wall.bottom - 0.0).abs() < 1e-6 && (wall.top - 1.0).abs() < 1e-6);
        let post = &prints[1];
        // A cylinder stood up (its axis turned onto Y): a 0.25 m circle around (1, −1).
        assert!(post.contains([1.24, -1.0]) && !post.contains([1.3, -1.0]));
        assert!((post.bottom - 0.0).abs() < 1e-5 && (post.top - 2.0).abs() < 1e-5, "{post:?}");
        let ball = &prints[2];
        assert!(ball.contains([8.0, -8.24]) && !ball.contains([8.0, -8.3]));
        assert!((ball.bottom - 1.75).abs() < 1e-2 && (ball.top - 2.25).abs() < 1e-2, "{ball:?}");
    }

    #[test]
    fn the_hull_is_counter_clockwise_and_drops_inner_points() {
        let hull = convex_hull(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.5, 0.5], [1.0, 0.0]]);
        assert_eq!(hull, [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]);
    }
}
