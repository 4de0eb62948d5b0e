//! How one ray meets one collider: the engine's own answer, except for cylinders.
//!
//! The engine casts rays on a cylinder iteratively (GJK on its support map), and
//! profiling the classroom showed those casts costing more than the search through the
//! query index itself (wheels, lidar heads and a third of the props are cylinders). A
//! cylinder has a closed-form answer, exact rather than within the iteration's
//! tolerance, so it is solved here; every other shape keeps the engine's cast.

use rapier3d::parry::shape::FeatureId;
use rapier3d::prelude::*;

/// A lateral or axial component this small is treated as parallel.
const PARALLEL: Real = 1e-12;

/// The first point, within `max_toi`, where `ray` (world frame) meets `collider`
/// solid: a ray starting inside answers 0 with a zero normal. The normal is in the
/// world frame.
pub(crate) fn cast(collider: &Collider, ray: &Ray, max_toi: Real) -> Option<RayIntersection> {
    let pose = collider.position();
    match collider.shape().as_cylinder() {
        Some(cylinder) => {
            let local = ray.inverse_transform_by(pose);
            cylinder_hit(cylinder.half_height, cylinder.radius, &local, max_toi).map(|hit| hit.transform_by(pose))
        }
        None => collider.shape().cast_ray_and_get_normal(pose, ray, max_toi, true),
    }
}

/// The distance only (what ranging sensors ask), as [`cast`].
pub(crate) fn distance(collider: &Collider, ray: &Ray, max_toi: Real) -> Option<Real> {
    match collider.shape().as_cylinder() {
        Some(cylinder) => {
            let local = ray.inverse_transform_by(collider.position());
            cylinder_hit(cylinder.half_height, cylinder.radius, &local, max_toi).map(|hit| hit.time_of_impact)
        }
        None => collider.shape().cast_ray(collider.position(), ray, max_toi, true),
    }
}

/// One collider readied for many rays from one origin (a lidar's fan): the origin is
/// brought into the collider's frame once, each ray's direction as it comes. The
/// answers are [`distance`]'s to the bit (the same steps in the same order).
pub(crate) struct FromOrigin<'a> {
    shape: &'a dyn Shape,
    /// A cylinder's half height and radius, solved in closed form.
    cylinder: Option<(Real, Real)>,
    origin: Vector,
    unrotate: Rotation,
}

impl<'a> FromOrigin<'a> {
    /// `collider` seen from `origin` (world frame).
    pub(crate) fn new(collider: &'a Collider, origin: Vector) -> FromOrigin<'a> {
        let pose = collider.position();
        FromOrigin {
            shape: collider.shape(),
            cylinder: collider.shape().as_cylinder().map(|c| (c.half_height, c.radius)),
            origin: pose.inverse_transform_point(origin),
            unrotate: pose.rotation.inverse(),
        }
    }

    /// The distance along `direction` (unit, world frame) to the collider, as
    /// [`distance`] answers for the ray from the origin.
    pub(crate) fn distance(&self, direction: Vector, max_toi: Real) -> Option<Real> {
        let local = Ray::new(self.origin, self.unrotate * direction);
        match self.cylinder {
            Some((half_height, radius)) => {
                cylinder_hit(half_height, radius, &local, max_toi).map(|hit| hit.time_of_impact)
            }
            None => self.shape.cast_local_ray(&local, max_toi, true),
        }
    }
}

/// A solid cylinder along local Y (`|y| ≤ half_height`, `x² + z² ≤ radius²`) against
/// `ray` in its frame: the span of the ray inside the infinite cylinder intersected
/// with its span between the caps; the span's start is the hit.
fn cylinder_hit(half_height: Real, radius: Real, ray: &Ray, max_toi: Real) -> Option<RayIntersection> {
    let (o, d) = (ray.origin, ray.dir);
    let a = d.x * d.x + d.z * d.z;
    let b = o.x * d.x + o.z * d.z;
    let c = o.x * o.x + o.z * o.z - radius * radius;
    let (side_in, side_out) = if a < PARALLEL {
        if c > 0.0 {
            return None;
        }
        (Real::NEG_INFINITY, Real::INFINITY)
    } else {
        let discriminant = b * b - a * c;
        if discriminant < 0.0 {
            return None;
        }
        let root = discriminant.sqrt();
        ((-b - root) / a, (-b + root) / a)
    };
    let (cap_in, cap_out) = if d.y.abs() < PARALLEL {
        if o.y.abs() > half_height {
            return None;
        }
        (Real::NEG_INFINITY, Real::INFINITY)
    } else {
        let (t0, t1) = ((-half_height - o.y) / d.y, (half_height - o.y) / d.y);
        (t0.min(t1), t0.max(t1))
    };
    let (enter, leave) = (side_in.max(cap_in), side_out.min(cap_out));
    if enter > leave || leave < 0.0 {
        return None;
    }
    if enter <= 0.0 {
        // The ray starts inside: a solid cylinder is hit at once.
        return Some(RayIntersection::new(0.0, Vector::ZERO, FeatureId::Unknown));
    }
    if enter > max_toi {
        return None;
    }
    let normal = if side_in >= cap_in {
        let p = ray.point_at(enter);
        Vector::new(p.x, 0.0, p.z).normalize_or_zero()
    } else {
        Vector::new(0.0, -d.y.signum(), 0.0)
    };
    Some(RayIntersection::new(enter, normal, FeatureId::Unknown))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's iterative cast, to compare with.
    fn engine(half_height: Real, radius: Real, ray: &Ray, max_toi: Real) -> Option<RayIntersection> {
        Cylinder::new(half_height, radius).cast_local_ray_and_get_normal(ray, max_toi, true)
    }

    #[test]
    fn the_closed_form_agrees_with_the_engine() {
        let (h, r) = (0.3, 0.2);
        let mut checked = 0;
        // Rays from a ring of points around the cylinder, aimed at points near it:
        // side hits, cap hits, grazes and misses.
        for i in 0..24 {
            let a = i as Real * std::f32::consts::TAU / 24.0;
            let origin = Vector::new(2.0 * a.cos(), -0.9 + 0.08 * i as Real, 2.0 * a.sin());
            for j in 0..20 {
                let b = j as Real * 0.7;
                let target = Vector::new(0.25 * b.cos(), 0.4 * b.sin(), 0.25 * (b * 1.3).sin());
                let ray = Ray::new(origin, (target - origin).normalize());
                let (ours, theirs) = (cylinder_hit(h, r, &ray, 10.0), engine(h, r, &ray, 10.0));
                match (ours, theirs) {
                    (Some(ours), Some(theirs)) => {
                        assert!((ours.time_of_impact - theirs.time_of_impact).abs() < 1e-3, "{ray:?}");
                        // The iteration's normals wander by a few degrees on the curved
                        // side: ours is checked against the surface itself.
                        let p = ray.point_at(ours.time_of_impact);
                        let surface = if (p.y.abs() - h).abs() < 1e-5 {
                            Vector::new(0.0, p.y.signum(), 0.0)
                        } else {
                            Vector::new(p.x, 0.0, p.z) / r
                        };
                        assert!((ours.normal - surface).length() < 1e-4, "{ray:?}: {:?}", ours.normal);
                        assert!(ours.normal.dot(ray.dir) < 0.0, "{ray:?}: the normal faces the ray");
                        checked += 1;
                    }
                    (None, None) => {}
                    // A graze within the engine's tolerance may go either way.
                    (one, other) => {
                        let toi = one.or(other).unwrap().time_of_impact;
                        let p = ray.point_at(toi);
                        let rim = (Vector::new(p.x, 0.0, p.z).length() - r).abs().min((p.y.abs() - h).abs());
                        assert!(rim < 1e-3, "{ray:?}: {one:?} against {other:?}");
                    }
                }
            }
        }
        assert!(checked > 100, "only {checked} rays hit");
    }

    #[test]
    fn inside_outside_and_parallel_rays() {
        let down = Ray::new(Vector::new(0.1, 5.0, 0.0), Vector::new(0.0, -1.0, 0.0));
        let hit = cylinder_hit(0.5, 0.2, &down, 10.0).expect("straight down onto the top cap");
        assert!((hit.time_of_impact - 4.5).abs() < 1e-6 && hit.normal == Vector::Y);
        let beside = Ray::new(Vector::new(0.3, 5.0, 0.0), Vector::new(0.0, -1.0, 0.0));
        assert!(cylinder_hit(0.5, 0.2, &beside, 10.0).is_none(), "parallel to the axis, outside it");
        let level = Ray::new(Vector::new(-3.0, 0.6, 0.0), Vector::X);
        assert!(cylinder_hit(0.5, 0.2, &level, 10.0).is_none(), "level with the caps, above them");
        let inside = Ray::new(Vector::ZERO, Vector::X);
        assert_eq!(cylinder_hit(0.5, 0.2, &inside, 10.0).map(|h| h.time_of_impact), Some(0.0));
        let short = Ray::new(Vector::new(-3.0, 0.0, 0.0), Vector::X);
        assert!(cylinder_hit(0.5, 0.2, &short, 2.0).is_none(), "beyond the ray's reach");
        let side = cylinder_hit(0.5, 0.2, &short, 10.0).expect("from the side");
        assert!((side.time_of_impact - 2.8).abs() < 1e-6 && (side.normal + Vector::X).length() < 1e-6);
    }
}
