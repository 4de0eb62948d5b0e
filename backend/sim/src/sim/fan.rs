//! A lidar's whole fan of rays cast at once: the colliders near the scan's disc are
//! gathered once per reading, and each is tried only by the beams whose angles can
//! reach it.
//!
//! Casting the beams one by one searched the query index once per beam (a search that
//! cost more than the hits themselves, the same props found by a hundred neighbouring
//! beams). Here one search finds every collider whose bounds meet the scan's plane
//! within its range, and the slice of each collider the plane can cut (inside its
//! bounding circle in that plane) spans an interval of angles: only the beams inside
//! it are cast on it, with the same per-shape hits as a single ray ([`super::ray_hit`]).
//! The answers are those of [`World::cast_ray`] beam by beam: every collider a beam
//! could hit is among the gathered ones, and the culling only skips pairs that cannot
//! meet.

use rapier3d::prelude::*;

use super::World;
use super::probe::{ColliderTag, RayFilter};

/// Slack on every distance test of the culling, metres: the beams come rounded to
/// `f32` from the sensor's own frame, so they stray from the plane by micrometres over
/// their range; a millimetre keeps the culling conservative at no measurable cost.
const DISTANCE_SLACK: Real = 1e-3;
/// Slack on every angle of the culling, radians (well under a lidar's beam spacing).
const ANGLE_SLACK: Real = 1e-3;

/// A planar fan of beams from one point.
#[derive(Clone, Copy, Debug)]
pub struct Fan<'a> {
    /// Where every beam starts, world frame.
    pub origin: [f32; 3],
    /// The scanner's orientation (x, y, z, w): its beams lie in its local XZ plane.
    pub rotation: [f32; 4],
    /// Angle of the first beam, radians, counter-clockwise from local +X seen from
    /// above (towards local −Z).
    pub angle_min: f32,
    /// Angle between neighbouring beams, radians (0 with a single beam).
    pub angle_step: f32,
    /// Each beam's unit direction in the world frame, beam `i` at
    /// `angle_min + i × angle_step`.
    pub directions: &'a [[f32; 3]],
}

/// The beams that may hit one collider.
struct Reach {
    /// No beam meets it nearer than this, metres.
    nearest: Real,
    /// The angles (radians, in the fan's frame) between which beams may meet it; `None`:
    /// any beam may.
    angles: Option<(Real, Real)>,
}

/// The fan's frame and the culling's tests, computed once per cast.
struct Sweep {
    /// The fan's frame (the plane is its XZ), and its inverse.
    frame: Pose,
    inverse: Pose,
    /// The plane's normal, world frame.
    normal: Vector,
    /// When the fan spans at most a half-turn, the world direction of its middle beam:
    /// nothing behind the origin along it can be hit.
    ahead: Option<Vector>,
    reach: Real,
}

impl Sweep {
    fn new(fan: &Fan, reach: Real) -> Sweep {
        let [x, y, z, w] = fan.rotation;
        let frame = Pose::from_parts(Vector::from_array(fan.origin), Rotation::from_xyzw(x, y, z, w).normalize());
        let span = fan.angle_step * fan.directions.len().saturating_sub(1) as Real;
        let ahead = (span <= std::f32::consts::PI).then(|| {
            let middle = fan.angle_min + span / 2.0;
            frame.rotation * Vector::new(middle.cos(), 0.0, -middle.sin())
        });
        Sweep { frame, inverse: frame.inverse(), normal: frame.rotation * Vector::Y, ahead, reach }
    }

    /// Whether anything inside the world box `mins..maxs` may lie on the fan.
    fn meets_box(&self, mins: Vector, maxs: Vector) -> bool {
        let (center, half) = ((mins + maxs) / 2.0, (maxs - mins) / 2.0);
        let offset = center - self.frame.translation;
        if self.normal.dot(offset).abs() > self.normal.abs().dot(half) + DISTANCE_SLACK {
            return false;
        }
        let outside = (mins - self.frame.translation).max(self.frame.translation - maxs).max(Vector::ZERO);
        if outside.length_squared() > (self.reach + DISTANCE_SLACK).powi(2) {
            return false;
        }
        self.ahead.is_none_or(|ahead| ahead.dot(offset) + ahead.abs().dot(half) >= -DISTANCE_SLACK)
    }

    /// Which beams may hit `collider` and how near: `None` when none can.
    fn reach(&self, collider: &Collider) -> Option<Reach> {
        let relative = self.inverse * collider.position();
        let shape = collider.shape();
        // The collider's bounds in the fan's frame: a box (its own local bounds,
        // turned: centre and half axes) and a sphere about the box's centre.
        let (center, axes, radius) = match shape.as_ball() {
            Some(ball) => (relative.translation, None, ball.radius),
            None => {
                let (center, half) = local_bounds(shape);
                let axes = [Vector::X * half.x, Vector::Y * half.y, Vector::Z * half.z].map(|a| relative.rotation * a);
                (relative * center, Some(axes), half.length())
            }
        };
        let extent = axes.map_or(Vector::splat(radius), |[a, b, c]| a.abs() + b.abs() + c.abs());
        if center.y.abs() > extent.y + DISTANCE_SLACK {
            return None;
        }
        // The plane cuts the collider within a circle about its centre's foot: the
        // sphere's slice, or the circle round the box's slice, whichever is smaller.
        let slice = (radius * radius - center.y * center.y).max(0.0).min(extent.x * extent.x + extent.z * extent.z);
        let slice = slice.sqrt() + DISTANCE_SLACK;
        let distance = center.x.hypot(center.z);
        if distance - slice > self.reach {
            return None;
        }
        let middle = (-center.z).atan2(center.x);
        if distance > slice {
            let half = (slice / distance).asin() + ANGLE_SLACK;
            return Some(Reach { nearest: distance - slice, angles: Some((middle - half, middle + half)) });
        }
        // The origin is inside the circle: a wall, the floor, a large prop close by.
        // Unless the box stands over the origin, its outline in the plane subtends
        // less than a half-turn, spanned by its corners.
        let angles = match axes {
            Some(axes) if !over_origin(center, &axes) => Some(corner_angles(center, &axes, middle)),
            _ => None,
        };
        Some(Reach { nearest: 0.0, angles })
    }
}

/// Whether the box of centre `center` and half axes `axes` (the fan's frame) meets the
/// line through the origin along the plane's normal (local Y), give or take the slack:
/// then its outline in the plane surrounds the origin.
fn over_origin(center: Vector, axes: &[Vector; 3]) -> bool {
    let (mut low, mut high) = (Real::NEG_INFINITY, Real::INFINITY);
    for axis in axes {
        let half = axis.length();
        if half <= 0.0 {
            continue;
        }
        let unit = *axis / half;
        // Along this axis the line's points sit at s·unit.y; the box spans
        // unit·center ± (half + slack).
        let (near, far) = (unit.dot(center) - half - DISTANCE_SLACK, unit.dot(center) + half + DISTANCE_SLACK);
        if unit.y.abs() < 1e-6 {
            if near > 0.0 || far < 0.0 {
                return false;
            }
            continue;
        }
        let (a, b) = (near / unit.y, far / unit.y);
        low = low.max(a.min(b));
        high = high.min(a.max(b));
    }
    low <= high
}

/// The angles spanned by the eight corners of the box of centre `center` and half axes
/// `axes` (the fan's frame), seen from the origin, unwrapped about `middle` (the
/// centre's angle, inside the span as the box's outline is convex), with the slack.
fn corner_angles(center: Vector, axes: &[Vector; 3], middle: Real) -> (Real, Real) {
    let (mut low, mut high): (Real, Real) = (0.0, 0.0);
    for corner in 0..8 {
        let sign = |bit: usize| if corner & bit == 0 { -1.0 } else { 1.0 };
        let p = center + axes[0] * sign(1) + axes[1] * sign(2) + axes[2] * sign(4);
        let mut offset = (-p.z).atan2(p.x) - middle;
        if offset > std::f32::consts::PI {
            offset -= std::f32::consts::TAU;
        } else if offset < -std::f32::consts::PI {
            offset += std::f32::consts::TAU;
        }
        low = low.min(offset);
        high = high.max(offset);
    }
    (middle + low - ANGLE_SLACK, middle + high + ANGLE_SLACK)
}

/// The centre and half extents of a shape's bounds in its own frame: read off the
/// primitives (the engine finds a cylinder's through its support map, which showed in
/// profiles), asked of the others.
fn local_bounds(shape: &dyn Shape) -> (Vector, Vector) {
    if let Some(cuboid) = shape.as_cuboid() {
        return (Vector::ZERO, cuboid.half_extents);
    }
    if let Some(cylinder) = shape.as_cylinder() {
        return (Vector::ZERO, Vector::new(cylinder.radius, cylinder.half_height, cylinder.radius));
    }
    let bounds = shape.compute_local_aabb();
    (bounds.center(), bounds.half_extents())
}

impl World {
    /// Casts every beam of `fan` up to `max_distance`, through the colliders `filter`
    /// lets a ray see: `ranges[i]` becomes the distance to what beam `i` hit first
    /// (`None`: nothing within range), exactly as [`World::cast_ray`] answers for it.
    ///
    /// # Panics
    /// If `ranges` and `fan.directions` differ in length.
    pub fn cast_fan(&self, fan: &Fan, max_distance: f32, filter: RayFilter, ranges: &mut [Option<f32>]) {
        assert_eq!(ranges.len(), fan.directions.len(), "one range per beam");
        ranges.fill(None);
        let sweep = Sweep::new(fan, max_distance);
        let sees = |collider: &Collider| {
            let tag = ColliderTag::unpack(collider.user_data);
            let own = filter.ignore_robot.is_some() && tag.robot == filter.ignore_robot;
            !(collider.is_sensor() || own || filter.through_transparent && tag.transparent)
        };
        let mut try_collider = |collider: &Collider| {
            if sees(collider) {
                cast_on(fan, &sweep, collider, max_distance, ranges);
            }
        };
        if self.queries_stale {
            // Right after an insertion the query index lacks the new colliders: every
            // collider is tried (as `cast_ray` does).
            self.physics.all_colliders().for_each(|(_, collider)| try_collider(collider));
            return;
        }
        let colliders = &self.physics.colliders;
        for leaf in self.query_index().leaves(|node| sweep.meets_box(node.mins(), node.maxs())) {
            if let Some((collider, _)) = colliders.get_unknown_gen(leaf) {
                try_collider(collider);
            }
        }
    }
}

/// Casts the beams of `fan` that may reach `collider` on it, each bounded by its
/// nearest hit so far (as the query index bounds a single ray's search).
fn cast_on(fan: &Fan, sweep: &Sweep, collider: &Collider, max_distance: Real, ranges: &mut [Option<f32>]) {
    let Some(Reach { nearest, angles }) = sweep.reach(collider) else { return };
    let seen = super::ray_hit::FromOrigin::new(collider, Vector::from_array(fan.origin));
    let mut cast = |beam: usize| {
        let bound = ranges[beam].unwrap_or(max_distance);
        // A beam that already hit something nearer than the collider can come skips it.
        if bound < nearest {
            return;
        }
        if let Some(distance) = seen.distance(Vector::from_array(fan.directions[beam]), bound)
            && distance <= bound
        {
            ranges[beam] = Some(distance);
        }
    };
    let beams = fan.directions.len();
    let (Some((low, high)), true) = (angles, fan.angle_step > 0.0) else {
        (0..beams).for_each(cast);
        return;
    };
    // The interval lies within a half-turn about its middle, in (−π, π] give or take
    // the slack; the beams may span a whole turn from anywhere: the interval is tried
    // a turn either way too (its copies never overlap, so no beam is cast twice).
    for turn in [-std::f32::consts::TAU, 0.0, std::f32::consts::TAU] {
        let first = ((low + turn - fan.angle_min) / fan.angle_step).ceil().max(0.0);
        let last = ((high + turn - fan.angle_min) / fan.angle_step).floor().min((beams - 1) as Real);
        if first <= last {
            (first as usize..=last as usize).for_each(&mut cast);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (the test needs no statistics, only variety).
    struct Dice(u64);

    impl Dice {
        fn unit(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn between(&mut self, low: f32, high: f32) -> f32 {
            low + (high - low) * self.unit()
        }

        fn rotation(&mut self, tilt: f32) -> Rotation {
            let yaw = Rotation::from_rotation_y(self.between(-3.2, 3.2));
            let axis = Vector::new(self.between(-1.0, 1.0), 0.0, self.between(-1.0, 1.0)).normalize_or(Vector::X);
            yaw * Rotation::from_axis_angle(axis, self.between(-tilt, tilt))
        }
    }

    /// A lab of fixed colliders of every shape the scene language makes, and a
    /// triangle mesh: walls and a floor, props of random size and pose (some of
    /// robots 0 to 2, some transparent, some drawn only), many of them near the
    /// origins the fans start from.
    fn lab(dice: &mut Dice) -> World {
        let mut world = World::empty(-9.81, 1.0 / 240.0);
        let add = |world: &mut World, builder: ColliderBuilder, pose: Pose, tag: ColliderTag| {
            let body = world.physics.insert_body(RigidBodyBuilder::fixed().pose(pose));
            world.physics.insert_collider(builder.user_data(tag.pack()), Some(body));
        };
        let plain = ColliderTag { robot: None, transparent: false, color: [1, 2, 3] };
        add(
            &mut world,
            ColliderBuilder::cuboid(10.0, 0.05, 10.0),
            Pose::from_translation(Vector::new(0.0, -0.05, 0.0)),
            plain,
        );
        for (x, z, hx, hz) in
            [(10.0, 0.0, 0.05, 10.0), (-10.0, 0.0, 0.05, 10.0), (0.0, 10.0, 10.0, 0.05), (0.0, -10.0, 10.0, 0.05)]
        {
            add(
                &mut world,
                ColliderBuilder::cuboid(hx, 1.5, hz),
                Pose::from_translation(Vector::new(x, 1.5, z)),
                plain,
            );
        }
        let hull = [[0.0, 0.0, 0.0], [0.3, 0.0, 0.0], [0.0, 0.25, 0.0], [0.0, 0.0, 0.2], [0.2, 0.2, 0.2]]
            .map(Vector::from_array);
        let mesh_vertices = vec![
            Vector::new(-0.4, 0.0, -0.4),
            Vector::new(0.4, 0.0, -0.4),
            Vector::new(0.0, 0.5, 0.0),
            Vector::new(0.0, 0.0, 0.4),
        ];
        let mesh_indices = vec![[0, 1, 2], [1, 3, 2], [3, 0, 2], [0, 3, 1]];
        for n in 0..160 {
            let size = dice.between(0.02, 0.4);
            let builder = match n % 7 {
                0 => ColliderBuilder::cuboid(size, dice.between(0.02, 0.3), dice.between(0.02, 0.5)),
                1 => ColliderBuilder::ball(size),
                2 => ColliderBuilder::cylinder(dice.between(0.02, 0.3), size),
                3 => ColliderBuilder::capsule_y(dice.between(0.02, 0.3), size),
                4 => ColliderBuilder::convex_hull(&hull.map(|p| p * size * 4.0)).expect("a hull"),
                5 => ColliderBuilder::trimesh(mesh_vertices.clone(), mesh_indices.clone()).expect("a mesh"),
                _ => ColliderBuilder::cuboid(dice.between(0.5, 3.0), 0.4, 0.05),
            };
            // Half the props crowd the middle, where the fans start.
            let spread = if n % 2 == 0 { 2.0 } else { 9.0 };
            let position =
                Vector::new(dice.between(-spread, spread), dice.between(-0.2, 0.6), dice.between(-spread, spread));
            let tag = ColliderTag {
                robot: (dice.unit() < 0.3).then(|| (dice.unit() * 3.0) as u32),
                transparent: dice.unit() < 0.15,
                color: [0; 3],
            };
            let builder = builder.sensor(dice.unit() < 0.05);
            add(&mut world, builder, Pose::from_parts(position, dice.rotation(3.2)), tag);
        }
        world
    }

    /// A fan of `beams` beams over `fov` from `origin`, turned by `rotation`, as a
    /// lidar sets it out (beam directions computed in its frame, then turned).
    fn fan_directions(rotation: Rotation, fov: f32, beams: usize) -> (f32, f32, Vec<[f32; 3]>) {
        let step = if beams > 1 { fov / (beams - 1) as f32 } else { 0.0 };
        let first = if beams > 1 { -fov / 2.0 } else { 0.0 };
        let directions = (0..beams)
            .map(|i| {
                let angle = first + step * i as f32;
                (rotation * Vector::new(angle.cos(), 0.0, -angle.sin())).to_array()
            })
            .collect();
        (first, step, directions)
    }

    #[test]
    fn a_fan_answers_as_its_beams_cast_one_by_one() {
        let mut dice = Dice(0x2545_f491_4f6c_dd1d);
        let (mut hits, mut misses, mut inside, mut compared) = (0, 0, 0, 0);
        for scene in 0..4 {
            let mut world = lab(&mut dice);
            world.step();
            for fan_index in 0..60 {
                // The index's path and, now and then, the one right after an insertion.
                world.queries_stale = fan_index % 5 == 0;
                let origin = Vector::new(dice.between(-3.0, 3.0), dice.between(0.0, 0.5), dice.between(-3.0, 3.0));
                // Mostly level, as lidars on robots are; every fourth at any angle.
                let tilt = if fan_index % 4 == 0 { 3.2 } else { 0.1 };
                let rotation = dice.rotation(tilt);
                let fov = [std::f32::consts::PI, std::f32::consts::TAU, 0.5, dice.between(0.1, 6.2)][fan_index % 4];
                let beams = [180, 360, 1, (dice.unit() * 720.0) as usize + 1][(fan_index + scene) % 4];
                let max_distance = [8.0, 0.3, dice.between(0.5, 15.0)][fan_index % 3];
                let filter = RayFilter {
                    ignore_robot: (dice.unit() < 0.7).then(|| (dice.unit() * 3.0) as u32),
                    through_transparent: dice.unit() < 0.5,
                };
                let (angle_min, angle_step, directions) = fan_directions(rotation, fov, beams);
                let fan = Fan {
                    origin: origin.to_array(),
                    rotation: rotation.to_array(),
                    angle_min,
                    angle_step,
                    directions: &directions,
                };
                let mut ranges = vec![Some(-1.0); beams];
                world.cast_fan(&fan, max_distance, filter, &mut ranges);
                for (beam, direction) in directions.iter().enumerate() {
                    let single = world.cast_ray(fan.origin, *direction, max_distance, filter);
                    let context =
                        || format!("scene {scene} fan {fan_index} beam {beam}: {:?} against {single:?}", ranges[beam]);
                    match (ranges[beam], single) {
                        (Some(fan), Some(single)) => {
                            // The same hits on the same rays: the same floats.
                            assert!(fan == single, "{}", context());
                            assert!(fan <= max_distance, "{}", context());
                            hits += 1;
                            inside += usize::from(fan == 0.0);
                        }
                        (None, None) => misses += 1,
                        _ => panic!("{}", context()),
                    }
                    compared += 1;
                }
            }
        }
        assert!(
            hits > 20_000 && misses > 10_000 && inside > 1000,
            "{hits} hits, {misses} misses, {inside} from inside of {compared}"
        );
    }

    #[test]
    fn a_tilted_fan_over_a_floor_meets_it_all_round() {
        // The floor's outline surrounds the origin: every beam that dips reaches it,
        // whichever way it points.
        let mut world = World::empty(-9.81, 1.0 / 240.0);
        let body = world.physics.insert_body(RigidBodyBuilder::fixed().translation(Vector::new(3.0, -0.05, -2.0)));
        let floor = ColliderBuilder::cuboid(6.0, 0.05, 6.0)
            .user_data(ColliderTag { robot: None, transparent: false, color: [0; 3] }.pack());
        world.physics.insert_collider(floor, Some(body));
        world.step();
        let rotation = Rotation::from_rotation_x(0.3);
        let (angle_min, angle_step, directions) = fan_directions(rotation, std::f32::consts::TAU, 360);
        let origin = [0.0, 0.1, 0.0];
        let fan = Fan { origin, rotation: rotation.to_array(), angle_min, angle_step, directions: &directions };
        let mut ranges = vec![None; 360];
        world.cast_fan(&fan, 8.0, RayFilter::default(), &mut ranges);
        let singles: Vec<_> =
            directions.iter().map(|d| world.cast_ray(origin, *d, 8.0, RayFilter::default())).collect();
        assert_eq!(ranges, singles);
        let (dipping, rising) =
            (directions.iter().filter(|d| d[1] < -0.05).count(), ranges.iter().filter(|r| r.is_none()).count());
        assert!(dipping > 150 && ranges.iter().flatten().count() >= dipping && rising > 100, "{ranges:?}");
    }

    #[test]
    fn a_fan_skips_its_own_robot_and_sees_through_glass_only_as_light() {
        let mut world = World::empty(-9.81, 1.0 / 240.0);
        let mut wall = |x: f32, tag: ColliderTag| {
            let body = world.physics.insert_body(RigidBodyBuilder::fixed().translation(Vector::new(x, 0.0, 0.0)));
            world.physics.insert_collider(ColliderBuilder::cuboid(0.05, 1.0, 5.0).user_data(tag.pack()), Some(body));
        };
        wall(1.0, ColliderTag { robot: Some(0), transparent: false, color: [0; 3] });
        wall(2.0, ColliderTag { robot: None, transparent: true, color: [0; 3] });
        wall(3.0, ColliderTag { robot: None, transparent: false, color: [0; 3] });
        world.step();
        let (angle_min, angle_step, directions) = fan_directions(Rotation::IDENTITY, 0.0, 1);
        let fan =
            Fan { origin: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0], angle_min, angle_step, directions: &directions };
        let mut range = [None];
        let mut cast = |ignore_robot, through_transparent| {
            world.cast_fan(&fan, 10.0, RayFilter { ignore_robot, through_transparent }, &mut range);
            range[0]
        };
        assert_eq!(cast(None, true), Some(0.95), "another robot's wall");
        assert_eq!(cast(Some(0), false), Some(1.95), "its own robot skipped, glass stops sound");
        assert_eq!(cast(Some(0), true), Some(2.95), "light through glass");
    }
}
