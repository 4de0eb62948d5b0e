//! A trajectory trail: the last positions a robot (or its odometry) went through, a point whenever it moved far enough, and the flat ribbon that draws them.
//!
//! Bounded both ways: a robot standing still adds nothing (a point only after
//! [`MIN_STEP_M`] of travel), and past [`MAX_POINTS`] the oldest points go.

use std::collections::VecDeque;

use vlab_protocol::pose::{length, sub};

use crate::view3d::primitives::MeshData;

/// Travel, metres, before the next point is added.
pub const MIN_STEP_M: f32 = 0.01;
/// Most points a trail keeps.
pub const MAX_POINTS: usize = 2000;

/// Positions, oldest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trail {
    points: VecDeque<[f32; 3]>,
}

impl Trail {
    /// Adds `point` if it is far enough from the last one; `true` when it did.
    /// Non-finite points are refused (a broken reading must not stretch the ribbon to infinity).
    pub fn push(&mut self, point: [f32; 3]) -> bool {
        if !point.iter().all(|c| c.is_finite()) {
            return false;
        }
        if self.points.back().is_some_and(|last| length(sub(point, *last)) < MIN_STEP_M) {
            return false;
        }
        if self.points.len() == MAX_POINTS {
            self.points.pop_front();
        }
        self.points.push_back(point);
        true
    }

    /// Forgets every point.
    pub fn clear(&mut self) {
        self.points.clear();
    }

    /// How many points it holds.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether it holds no point.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The points, oldest first.
    pub fn points(&self) -> impl Iterator<Item = &[f32; 3]> {
        self.points.iter()
    }

    /// A flat horizontal ribbon `2 · half_width` wide along the points (seen from above,
    /// as the lab mostly is); empty below two points. Each point gets a left and a right
    /// vertex across the mean direction of its two segments; a sharp turn pinches the
    /// ribbon rather than flaring it.
    pub fn ribbon(&self, half_width: f32) -> MeshData {
        let mut mesh = MeshData::default();
        let points: Vec<[f32; 3]> = self.points.iter().copied().collect();
        if points.len() < 2 {
            return mesh;
        }
        let flat = |a: [f32; 3], b: [f32; 3]| {
            let (dx, dz) = (b[0] - a[0], b[2] - a[2]);
            let norm = (dx * dx + dz * dz).sqrt();
            if norm > 1e-9 { [dx / norm, dz / norm] } else { [0.0, 0.0] }
        };
        for (i, p) in points.iter().enumerate() {
            let before = if i > 0 { flat(points[i - 1], *p) } else { [0.0, 0.0] };
            let after = if i + 1 < points.len() { flat(*p, points[i + 1]) } else { [0.0, 0.0] };
            let (mut dx, mut dz) = (before[0] + after[0], before[1] + after[1]);
            let norm = (dx * dx + dz * dz).sqrt();
            if norm < 1e-6 {
                (dx, dz) = (1.0, 0.0);
            } else {
                (dx, dz) = (dx / norm, dz / norm);
            }
            // Left of the direction of travel, seen from above (+Y).
            let (lx, lz) = (dz * half_width, -dx * half_width);
            mesh.positions.push([p[0] + lx, p[1], p[2] + lz]);
            mesh.positions.push([p[0] - lx, p[1], p[2] - lz]);
            mesh.normals.extend([[0.0, 1.0, 0.0]; 2]);
        }
        for i in 0..points.len() as u32 - 1 {
            let (l0, r0, l1, r1) = (2 * i, 2 * i + 1, 2 * i + 2, 2 * i + 3);
            mesh.indices.extend([l0, r0, r1, l0, r1, l1]);
        }
        mesh
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_protocol::pose::cross;

    #[test]
    fn points_come_only_after_a_centimetre_of_travel() {
        let mut trail = Trail::default();
        assert!(trail.push([0.0, 0.1, 0.0]));
        assert!(!trail.push([0.005, 0.1, 0.0]), "standing (nearly) still");
        assert!(trail.push([0.02, 0.1, 0.0]));
        assert!(!trail.push([f32::NAN, 0.1, 0.0]));
        assert_eq!(trail.len(), 2);
        trail.clear();
        assert!(trail.is_empty());
    }

    #[test]
    fn the_oldest_points_go_past_the_limit() {
        let mut trail = Trail::default();
        for i in 0..MAX_POINTS + 10 {
            trail.push([i as f32 * 0.1, 0.0, 0.0]);
        }
        assert_eq!(trail.len(), MAX_POINTS);
        assert_eq!(trail.points().next(), Some(&[1.0, 0.0, 0.0]));
    }

    #[test]
    fn the_ribbon_is_flat_faces_up_and_has_the_width_asked() {
        let mut trail = Trail::default();
        for p in [[0.0, 0.1, 0.0], [1.0, 0.1, 0.0], [1.0, 0.1, -1.0]] {
            trail.push(p);
        }
        let mesh = trail.ribbon(0.05);
        assert_eq!((mesh.positions.len(), mesh.indices.len()), (6, 12));
        assert!(mesh.positions.iter().all(|p| p[1] == 0.1));
        // At the start, travelling +X: left (seen from above) is −Z.
        assert_eq!(mesh.positions[0], [0.0, 0.1, -0.05]);
        assert_eq!(mesh.positions[1], [0.0, 0.1, 0.05]);
        for tri in mesh.indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| mesh.positions[tri[k] as usize]);
            let normal = cross(sub(b, a), sub(c, a));
            assert!(normal[1] > 0.0, "triangle {tri:?} faces down");
        }
        assert!(Trail::default().ribbon(0.05).indices.is_empty());
    }
}
