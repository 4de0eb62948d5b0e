//! What a camera sees of the world: a batch of rays from one point, cast against one
//! query pipeline, each answering the distance, the surface's normal and its colour.
//!
//! A camera casts thousands of rays per image, so the batch builds the query pipeline
//! once and hands each hit to the caller as it comes: nothing is allocated per ray.

use std::cell::Cell;

use rapier3d::prelude::*;

use super::World;
use super::probe::{ColliderTag, RayFilter};
use crate::scene;

/// What one ray saw first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sight {
    /// Distance along the ray, metres.
    pub distance: f32,
    /// The surface's outward normal there, world frame, unit (zero when the ray starts
    /// inside the collider).
    pub normal: [f32; 3],
    /// The colour of the material hit, sRGB.
    pub color: [u8; 3],
}

impl World {
    /// Casts one ray from `eye`'s position along each of `directions` (unit vectors in
    /// `eye`'s frame), up to `max_distance`, and calls `seen` with each ray's index and
    /// what it saw first (`None`: nothing within range), in order.
    pub fn look(
        &self,
        eye: &scene::Pose,
        directions: &[[f32; 3]],
        max_distance: f32,
        filter: RayFilter,
        mut seen: impl FnMut(usize, Option<Sight>),
    ) {
        let pose = super::to_pose(eye);
        let sees = move |_: ColliderHandle, collider: &Collider| {
            let tag = ColliderTag::unpack(collider.user_data);
            let own = filter.ignore_robot.is_some() && tag.robot == filter.ignore_robot;
            !(own || filter.through_transparent && tag.transparent)
        };
        let sight = |collider: &Collider, hit: RayIntersection| Sight {
            distance: hit.time_of_impact,
            normal: hit.normal.to_array(),
            color: ColliderTag::unpack(collider.user_data).color,
        };
        let ray = |local: &[f32; 3]| Ray::new(pose.translation, pose.rotation * Vector::from_array(*local));
        if self.queries_stale {
            // Right after an insertion the query index lacks the new colliders: every
            // collider is tried (as `cast_ray` does).
            for (index, local) in directions.iter().enumerate() {
                let ray = ray(local);
                let nearest = self
                    .physics
                    .colliders
                    .iter()
                    .filter(|(handle, collider)| !collider.is_sensor() && sees(*handle, collider))
                    .filter_map(|(_, collider)| {
                        let hit = super::ray_hit::cast(collider, &ray, max_distance)?;
                        Some(sight(collider, hit))
                    })
                    .min_by(|a, b| a.distance.total_cmp(&b.distance));
                seen(index, nearest);
            }
            return;
        }
        let (colliders, index) = (&self.physics.colliders, self.query_index());
        // Bounding each search by the neighbouring pixel's hit was tried: no gain
        // measurable by the camera bench, so each ray searches the whole index.
        for (at, local) in directions.iter().enumerate() {
            let ray = ray(local);
            let nearest = Cell::new(None);
            index.cast_ray(&ray, max_distance, |leaf, bound| {
                let (collider, handle) = colliders.get_unknown_gen(leaf)?;
                if collider.is_sensor() || !sees(handle, collider) {
                    return None;
                }
                let hit = super::ray_hit::cast(collider, &ray, bound)?;
                // The search keeps a leaf whose answer is nearer than the bound it gave:
                // the same test keeps its sight.
                if hit.time_of_impact < bound {
                    nearest.set(Some(sight(collider, hit)));
                }
                Some(hit.time_of_impact)
            });
            seen(at, nearest.get());
        }
    }
}
