//! Solid shapes at poses, apart from any world: what a placement checks a new robot or
//! a moved body against (everything where it is now, and robots where they start), and
//! how deep two sets of them overlap.
//!
//! Shapes are the colliders the world builds for the same parts ([`super::collider_of`]),
//! so a placement judges exactly what the physics will push apart. Parts only drawn (no
//! contacts) are left out on both sides.

use std::collections::HashMap;

use rapier3d::parry::bounding_volume::BoundingVolume;
use rapier3d::parry::query;
use rapier3d::prelude::*;

use super::{BodyIndex, World, collider_of, to_pose};
use crate::scene::{self, BodyModel};

/// Side of a cell of the index over the ground, metres.
const CELL_M: f32 = 1.0;
/// A solid spanning more cells than this (a floor, a long wall) is looked at by every
/// query instead of being listed in each of its cells.
const MAX_CELLS_PER_SOLID: i64 = 64;

/// One solid shape at its pose in the world.
#[derive(Clone)]
struct Solid {
    shape: SharedShape,
    pose: Pose,
    aabb: Aabb,
    /// What it belongs to, as the caller labelled it.
    label: u32,
}

/// A set of solids, indexed by where they stand on the ground.
#[derive(Clone, Default)]
pub struct Solids {
    solids: Vec<Solid>,
    /// Solids by the ground cells (x, z) their box spans.
    cells: HashMap<(i64, i64), Vec<u32>>,
    /// Solids too large for the cells.
    large: Vec<u32>,
}

/// Where one set of solids overlaps another most deeply.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overlap {
    /// The label of the solid overlapped.
    pub label: u32,
    /// How deep, metres.
    pub depth: f32,
}

impl Solids {
    /// No solids.
    pub fn new() -> Solids {
        Solids::default()
    }

    /// Whether the set holds no solid.
    pub fn is_empty(&self) -> bool {
        self.solids.is_empty()
    }

    /// Adds the solid parts of `body` standing at `pose`, labelled `label`.
    pub fn add_body(&mut self, body: &BodyModel, pose: &scene::Pose, label: u32) {
        let at = to_pose(pose);
        for part in body.parts.iter().filter(|part| !part.drawn_only) {
            let collider = collider_of(part).build();
            self.push(collider.shared_shape().clone(), at * *collider.position(), label);
        }
    }

    /// Adds the solid colliders of body `index` of `world` where it is now, labelled
    /// `label`.
    pub fn add_world_body(&mut self, world: &World, index: BodyIndex, label: u32) {
        let body = &world.physics.bodies[world.bodies[index]];
        for handle in body.colliders() {
            let Some(collider) = world.physics.colliders.get(*handle) else { continue };
            if collider.is_sensor() {
                continue;
            }
            // From the body's pose, not the collider's: a body just moved has not had its
            // colliders follow it yet (they do at the next step).
            let local = collider.position_wrt_parent().copied().unwrap_or_default();
            self.push(collider.shared_shape().clone(), *body.position() * local, label);
        }
    }

    /// Adds an upright cylinder (its axis along world Y) of `radius` from height
    /// `bottom` to `top`, centred over `center` (x, z), labelled `label`: the free floor
    /// a placement asks around a robot.
    pub fn add_upright_cylinder(&mut self, center: [f32; 2], radius: f32, bottom: f32, top: f32, label: u32) {
        let half_height = ((top - bottom) * 0.5).max(1e-3);
        let at = Pose::translation(center[0], (bottom + top) * 0.5, center[1]);
        self.push(SharedShape::cylinder(half_height, radius.max(1e-3)), at, label);
    }

    /// The box around every solid (lowest corner, highest corner), `None` when empty.
    pub fn bounds(&self) -> Option<([f32; 3], [f32; 3])> {
        let mut solids = self.solids.iter();
        let first = solids.next()?.aabb;
        let all = solids.fold(first, |all, solid| all.merged(&solid.aabb));
        Some((all.mins.into(), all.maxs.into()))
    }

    fn push(&mut self, shape: SharedShape, pose: Pose, label: u32) {
        let aabb = shape.compute_aabb(&pose);
        let id = self.solids.len() as u32;
        let (x0, z0, x1, z1) = cells_of(&aabb);
        if (x1 - x0 + 1) * (z1 - z0 + 1) > MAX_CELLS_PER_SOLID {
            self.large.push(id);
        } else {
            for x in x0..=x1 {
                for z in z0..=z1 {
                    self.cells.entry((x, z)).or_default().push(id);
                }
            }
        }
        self.solids.push(Solid { shape, pose, aabb, label });
    }

    /// The deepest overlap of `other`, moved by `offset` (metres, world frame), with
    /// these solids, counting only overlaps deeper than `tolerance` (touching is not
    /// overlapping); `None` when `other` is clear of them.
    pub fn deepest_overlap(&self, other: &Solids, offset: [f32; 3], tolerance: f32) -> Option<Overlap> {
        let offset = Vector::from_array(offset);
        let mut deepest: Option<Overlap> = None;
        let mut near = Vec::new();
        for moved in &other.solids {
            let pose = Pose::from_parts(moved.pose.translation + offset, moved.pose.rotation);
            let aabb = Aabb::new(moved.aabb.mins + offset, moved.aabb.maxs + offset);
            self.near(&aabb, &mut near);
            for &id in &near {
                let solid = &self.solids[id as usize];
                if !solid.aabb.intersects(&aabb) {
                    continue;
                }
                // A pair the engine cannot compare (none the scenes build) is taken as clear.
                let Ok(Some(contact)) =
                    query::contact(&pose, moved.shape.as_ref(), &solid.pose, solid.shape.as_ref(), 0.0)
                else {
                    continue;
                };
                let depth = -contact.dist;
                if depth > tolerance && deepest.is_none_or(|d| depth > d.depth) {
                    deepest = Some(Overlap { label: solid.label, depth });
                }
            }
        }
        deepest
    }

    /// The solids whose cells `aabb` spans, each once, into `near`.
    fn near(&self, aabb: &Aabb, near: &mut Vec<u32>) {
        near.clear();
        near.extend_from_slice(&self.large);
        let (x0, z0, x1, z1) = cells_of(aabb);
        // A box wider than the index is cheaper to compare with everything.
        if (x1 - x0 + 1) * (z1 - z0 + 1) > MAX_CELLS_PER_SOLID {
            near.clear();
            near.extend(0..self.solids.len() as u32);
            return;
        }
        for x in x0..=x1 {
            for z in z0..=z1 {
                if let Some(ids) = self.cells.get(&(x, z)) {
                    near.extend_from_slice(ids);
                }
            }
        }
        near.sort_unstable();
        near.dedup();
    }
}

/// The ground cells a box spans: x from, z from, x to, z to (inclusive).
fn cells_of(aabb: &Aabb) -> (i64, i64, i64, i64) {
    // Clamped: a body thrown a kilometre away still gets a finite span of cells.
    let cell = |v: f32| (f64::from(v) / f64::from(CELL_M)).floor().clamp(-1e6, 1e6) as i64;
    (cell(aabb.mins.x), cell(aabb.mins.z), cell(aabb.maxs.x), cell(aabb.maxs.z))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{MapLoader, Options, SceneModel, interpret};

    fn model(source: &str) -> SceneModel {
        interpret(source, "s.vlab", &MapLoader::new(), &Options::default()).expect("the scene builds").model
    }

    fn solids_of(model: &SceneModel) -> Solids {
        let mut solids = Solids::new();
        for (index, body) in model.bodies.iter().enumerate() {
            solids.add_body(body, &body.pose, index as u32);
        }
        solids
    }

    #[test]
    fn boxes_that_touch_do_not_overlap_and_boxes_that_cross_do() {
        let a = solids_of(&model("static a { shape box(1, 1, 1); pos(0, 0.5, 0); }"));
        let b = solids_of(&model("static b { shape box(1, 1, 1); pos(1, 0.5, 0); }"));
        assert_eq!(a.deepest_overlap(&b, [0.0; 3], 0.01), None, "side by side, touching");
        let overlap = a.deepest_overlap(&b, [-0.3, 0.0, 0.0], 0.01).expect("moved into it");
        assert_eq!(overlap.label, 0);
        assert!((overlap.depth - 0.3).abs() < 1e-4, "{overlap:?}");
        assert_eq!(a.deepest_overlap(&b, [-0.005, 0.0, 0.0], 0.01), None, "within the tolerance");
    }

    #[test]
    fn the_deepest_of_several_overlaps_is_named() {
        let walls = solids_of(&model(
            "static w0 { shape box(0.2, 1, 4); pos(0, 0.5, 0); }\nstatic w1 { shape box(0.2, 1, 4); pos(0.5, 0.5, 0); }",
        ));
        let crate_ = solids_of(&model("static c { shape box(0.4, 0.4, 0.4); pos(0.45, 0.5, 0); }"));
        let overlap = walls.deepest_overlap(&crate_, [0.0; 3], 0.0).unwrap();
        assert_eq!(overlap.label, 1, "{overlap:?}");
    }

    #[test]
    fn an_upright_cylinder_reaches_what_stands_within_its_radius_and_its_bounds_are_known() {
        let wall = solids_of(&model("static w { shape box(0.2, 1, 4); pos(2, 0.5, 0); }"));
        let mut disc = Solids::new();
        disc.add_upright_cylinder([0.0, 0.0], 1.5, 0.03, 0.3, 7);
        assert_eq!(wall.deepest_overlap(&disc, [0.0; 3], 0.0), None, "1.5 m from a wall 1.9 m away");
        let reached = wall.deepest_overlap(&disc, [0.6, 0.0, 0.0], 0.0).expect("moved 0.6 m towards it");
        assert!((reached.depth - 0.2).abs() < 1e-3, "{reached:?}");
        let (low, high) = disc.bounds().unwrap();
        assert!((low[0] + 1.5).abs() < 1e-4 && (low[1] - 0.03).abs() < 1e-4, "{low:?}");
        assert!((high[2] - 1.5).abs() < 1e-4 && (high[1] - 0.3).abs() < 1e-4, "{high:?}");
        assert_eq!(Solids::new().bounds(), None);
    }

    #[test]
    fn solids_far_apart_in_the_index_are_never_compared_and_large_ones_always_are() {
        let floor = solids_of(&model("static floor { shape box(100, 0.1, 100); pos(50, -0.05, 50); }"));
        assert_eq!(floor.large.len(), 1);
        let ball = solids_of(&model("static ball { shape sphere(0.5); pos(70, 0.3, 20); }"));
        let overlap = floor.deepest_overlap(&ball, [0.0; 3], 0.01).unwrap();
        assert!((overlap.depth - 0.2).abs() < 1e-4, "{overlap:?}");
        let far = solids_of(&model("static far { shape sphere(0.5); pos(1000000, 0.3, 20); }"));
        assert_eq!(far.deepest_overlap(&ball, [0.0; 3], 0.0), None);
    }
}
