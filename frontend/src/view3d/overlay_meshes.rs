//! The overlay on the GPU: the picked robot's rays as thin tubes and hit points as small balls (one instanced mesh per kind), its trails as flat ribbons, its program's drawings (dots and line tubes) and estimate (a flat arrowhead and an orange trail), and the ring under it.
//!
//! Unlit flat colours: an overlay is a diagram, not part of the world. Meshes are rebuilt
//! only when the overlay changes (a report with new readings, about ten times a second
//! while the lab runs), when a checkbox flips, or when zooming makes the lines too thin
//! or too thick on screen ([`line_radius_m`]); the ring only moves, every frame.

use three_d::{
    ColorMaterial, Context, CpuMesh, Gm, Indices, InstancedMesh, Instances, Mat4, Mesh, Object, Positions, Quat, Srgba,
    vec3,
};
use vlab_protocol::pose::{length, rotation_between, scale, sub};

use crate::view3d::belief_shapes::{belief_shapes, estimate_marker};
use crate::view3d::overlay::{ESTIMATE_HEIGHT_M, Overlay, ViewOptions, line_radius_m};
use crate::view3d::primitives::{MeshData, flat_ring, unit_cylinder};
use crate::view3d::sensor_rays::Beam;
use crate::view3d::trail::Trail;
use crate::view3d::world::World;

/// A ray that hit something.
const HIT_RAY: Srgba = Srgba::new_opaque(255, 170, 40);
/// A ray that reached its maximum range: dimmer.
const MISS_RAY: Srgba = Srgba::new_opaque(105, 84, 60);
/// Where a ray hit.
const HIT_POINT: Srgba = Srgba::new_opaque(255, 240, 120);
/// The true path.
const TRUE_TRAIL: Srgba = Srgba::new_opaque(70, 220, 120);
/// The odometry's path.
const ODOMETRY_TRAIL: Srgba = Srgba::new_opaque(240, 90, 220);
/// The program's estimate: its marker and trail.
const ESTIMATE: Srgba = Srgba::new_opaque(255, 140, 0);
/// The ring under the picked robot.
const RING: Srgba = Srgba::new_opaque(90, 200, 255);

/// A hit point's radius, in ray radii.
const POINT_SCALE: f32 = 2.6;
/// A trail's half width, in ray radii.
const TRAIL_SCALE: f32 = 1.6;
/// How far the ring floats above the robot's lowest point, metres: clear of the floor
/// a wheel sinks into by a few millimetres.
const RING_LIFT_M: f32 = 0.015;
/// A drawn dot's radius, in ray radii.
const DOT_SCALE: f32 = 3.0;
/// The estimate marker's length, metres.
const MARKER_LENGTH_M: f32 = 0.16;
/// How far the estimate's trail floats above the odometry's, metres.
const ESTIMATE_LIFT_M: f32 = 0.006;
/// How far the odometry's trail floats above the true one, metres.
const ODOMETRY_LIFT_M: f32 = 0.003;

/// What the meshes were built from, to rebuild only on change.
#[derive(Clone, Copy, PartialEq)]
struct Built {
    generation: u64,
    options: ViewOptions,
    radius: f32,
    shown: bool,
}

/// The overlay's GPU objects.
pub struct OverlayMeshes {
    context: Context,
    tube: CpuMesh,
    ball: CpuMesh,
    rays: Option<Gm<InstancedMesh, ColorMaterial>>,
    hits: Option<Gm<InstancedMesh, ColorMaterial>>,
    trails: Vec<Gm<Mesh, ColorMaterial>>,
    dots: Option<Gm<InstancedMesh, ColorMaterial>>,
    lines: Option<Gm<InstancedMesh, ColorMaterial>>,
    marker: Option<Gm<Mesh, ColorMaterial>>,
    ring: Gm<Mesh, ColorMaterial>,
    ring_at: Option<Mat4>,
    built: Option<Built>,
    drawn_rays: usize,
    drawn_trail_points: usize,
    drawn_drawings: usize,
}

impl OverlayMeshes {
    /// Nothing to draw yet.
    pub fn new(context: &Context) -> OverlayMeshes {
        OverlayMeshes {
            tube: cpu_mesh(unit_cylinder(6)),
            ball: CpuMesh::sphere(8),
            rays: None,
            hits: None,
            trails: Vec::new(),
            dots: None,
            lines: None,
            marker: None,
            ring: Gm::new(Mesh::new(context, &cpu_mesh(flat_ring(48, 0.78))), flat(RING)),
            ring_at: None,
            built: None,
            drawn_rays: 0,
            drawn_trail_points: 0,
            drawn_drawings: 0,
            context: context.clone(),
        }
    }

    /// Brings the meshes up to date with the overlay of `picked` (drawn only while the
    /// overlay follows that robot) and the ring under it; `metres_per_px` sizes the lines.
    /// Returns whether anything changed.
    pub fn sync(
        &mut self,
        overlay: &Overlay,
        options: ViewOptions,
        world: &World,
        picked: Option<&str>,
        metres_per_px: f32,
    ) -> bool {
        let ring_at = picked.and_then(|robot| world.robot_bounds(robot)).map(|bounds| {
            let half = [0, 2].map(|k| (bounds.max[k] - bounds.min[k]) * 0.5);
            let radius = half[0].hypot(half[1]) + 0.06;
            let centre = vec3(
                (bounds.min[0] + bounds.max[0]) * 0.5,
                bounds.min[1] + RING_LIFT_M,
                (bounds.min[2] + bounds.max[2]) * 0.5,
            );
            Mat4::from_translation(centre) * Mat4::from_scale(radius)
        });
        let mut changed = ring_at != self.ring_at;
        if let Some(at) = ring_at {
            self.ring.set_transformation(at);
        }
        self.ring_at = ring_at;

        let radius = line_radius_m(metres_per_px);
        let shown = picked.is_some() && overlay.robot() == picked;
        let wanted = Built { generation: overlay.generation(), options, radius, shown };
        if self.built != Some(wanted) {
            self.rebuild(overlay, wanted);
            self.built = Some(wanted);
            changed = true;
        }
        changed
    }

    fn rebuild(&mut self, overlay: &Overlay, built: Built) {
        self.rays = None;
        self.hits = None;
        self.trails.clear();
        self.dots = None;
        self.lines = None;
        self.marker = None;
        self.drawn_rays = 0;
        self.drawn_trail_points = 0;
        self.drawn_drawings = 0;
        if !built.shown {
            return;
        }
        if built.options.beliefs {
            self.rebuild_belief(overlay, built.radius);
        }
        if built.options.rays {
            let beams: Vec<&Beam> = overlay.beams().iter().filter(|b| length(sub(b.to, b.from)) > 1e-4).collect();
            self.drawn_rays = beams.len();
            let rays = Instances {
                transformations: beams.iter().map(|b| segment(b.from, b.to, built.radius)).collect(),
                colors: Some(beams.iter().map(|b| if b.hit { HIT_RAY } else { MISS_RAY }).collect()),
                ..Default::default()
            };
            let points: Vec<Mat4> = beams
                .iter()
                .filter(|b| b.hit)
                .map(|b| {
                    Mat4::from_translation(vec3(b.to[0], b.to[1], b.to[2]))
                        * Mat4::from_scale(built.radius * POINT_SCALE)
                })
                .collect();
            self.rays = instanced(&self.context, &rays, &self.tube, Srgba::WHITE);
            self.hits = instanced(
                &self.context,
                &Instances { transformations: points, ..Default::default() },
                &self.ball,
                HIT_POINT,
            );
        }
        if built.options.trails {
            // The odometry's ribbon a hair above the true one: where they coincide (at the
            // start) it shows instead of flickering with it.
            let trails =
                [(overlay.odometry_trail(), ODOMETRY_TRAIL, ODOMETRY_LIFT_M), (overlay.true_trail(), TRUE_TRAIL, 0.0)];
            for (trail, colour, lift) in trails {
                self.drawn_trail_points += trail.len();
                if let Some(mut mesh) = ribbon(&self.context, trail, built.radius * TRAIL_SCALE) {
                    mesh.set_transformation(Mat4::from_translation(vec3(0.0, lift, 0.0)));
                    self.trails.push(Gm::new(mesh, flat(colour)));
                }
            }
        }
    }

    /// The program's drawings and estimate, with its trail.
    fn rebuild_belief(&mut self, overlay: &Overlay, radius: f32) {
        if let Some(mut mesh) = ribbon(&self.context, overlay.estimate_trail(), radius * TRAIL_SCALE) {
            mesh.set_transformation(Mat4::from_translation(vec3(0.0, ESTIMATE_LIFT_M, 0.0)));
            self.trails.push(Gm::new(mesh, flat(ESTIMATE)));
        }
        let Some(belief) = overlay.belief() else { return };
        self.drawn_drawings = belief.drawings.len();
        let shapes = belief_shapes(belief);
        let rgb = |[r, g, b]: [u8; 3]| Srgba::new_opaque(r, g, b);
        let dots = Instances {
            transformations: shapes
                .dots
                .iter()
                .map(|(at, _)| Mat4::from_translation(vec3(at[0], at[1], at[2])) * Mat4::from_scale(radius * DOT_SCALE))
                .collect(),
            colors: Some(shapes.dots.iter().map(|(_, colour)| rgb(*colour)).collect()),
            ..Default::default()
        };
        self.dots = instanced(&self.context, &dots, &self.ball, Srgba::WHITE);
        let segments: Vec<_> = shapes.segments.iter().filter(|(from, to, _)| length(sub(*to, *from)) > 1e-4).collect();
        let lines = Instances {
            transformations: segments.iter().map(|(from, to, _)| segment(*from, *to, radius)).collect(),
            colors: Some(segments.iter().map(|(_, _, colour)| rgb(*colour)).collect()),
            ..Default::default()
        };
        self.lines = instanced(&self.context, &lines, &self.tube, Srgba::WHITE);
        if let Some(estimate) = &belief.estimate {
            let corners = estimate_marker(estimate, ESTIMATE_HEIGHT_M + ESTIMATE_LIFT_M * 2.0, MARKER_LENGTH_M);
            if corners.iter().flatten().all(|c| c.is_finite()) {
                let data = MeshData {
                    positions: corners.to_vec(),
                    normals: vec![[0.0, 1.0, 0.0]; 3],
                    indices: vec![0, 1, 2],
                    ..Default::default()
                };
                self.marker = Some(Gm::new(Mesh::new(&self.context, &cpu_mesh(data)), flat(ESTIMATE)));
            }
        }
    }

    /// Everything to draw this frame.
    pub fn objects(&self) -> impl Iterator<Item = &dyn Object> {
        let ring = self.ring_at.is_some().then_some(&self.ring as &dyn Object);
        self.trails
            .iter()
            .map(|t| t as &dyn Object)
            .chain(self.rays.iter().map(|r| r as &dyn Object))
            .chain(self.hits.iter().map(|h| h as &dyn Object))
            .chain(self.dots.iter().map(|d| d as &dyn Object))
            .chain(self.lines.iter().map(|l| l as &dyn Object))
            .chain(self.marker.iter().map(|m| m as &dyn Object))
            .chain(ring)
    }

    /// Rays drawn now, and trail points (the true and odometry trails): for tests to see what is shown.
    pub fn drawn_counts(&self) -> (usize, usize) {
        (self.drawn_rays, self.drawn_trail_points)
    }

    /// The program's drawings shown now (points, lines and texts, each counting once).
    pub fn drawn_drawings(&self) -> usize {
        self.drawn_drawings
    }
}

/// A flat colour, unlit.
fn flat(color: Srgba) -> ColorMaterial {
    ColorMaterial { color, ..Default::default() }
}

/// An instanced mesh of `unit` in `color` (times each instance's colour); `None` without instances.
fn instanced(
    context: &Context,
    instances: &Instances,
    unit: &CpuMesh,
    color: Srgba,
) -> Option<Gm<InstancedMesh, ColorMaterial>> {
    (!instances.transformations.is_empty()).then(|| Gm::new(InstancedMesh::new(context, instances, unit), flat(color)))
}

/// The unit tube (radius 1, z from −1 to 1) stretched from `from` to `to`, `radius` thick.
fn segment(from: [f32; 3], to: [f32; 3], radius: f32) -> Mat4 {
    let along = sub(to, from);
    let half = length(along) * 0.5;
    let [x, y, z, w] = rotation_between([0.0, 0.0, 1.0], scale(along, 0.5 / half));
    let middle = [0, 1, 2].map(|k| from[k] + along[k] * 0.5);
    Mat4::from_translation(vec3(middle[0], middle[1], middle[2]))
        * Mat4::from(Quat::new(w, x, y, z))
        * Mat4::from_nonuniform_scale(radius, radius, half)
}

/// A trail's ribbon as a mesh; `None` below two points.
fn ribbon(context: &Context, trail: &Trail, half_width: f32) -> Option<Mesh> {
    let data = trail.ribbon(half_width);
    (!data.indices.is_empty()).then(|| Mesh::new(context, &cpu_mesh(data)))
}

/// Plain mesh data as a three-d mesh (no texture coordinates: overlays are flat colour).
fn cpu_mesh(data: MeshData) -> CpuMesh {
    CpuMesh {
        positions: Positions::F32(data.positions.into_iter().map(|[x, y, z]| vec3(x, y, z)).collect()),
        normals: Some(data.normals.into_iter().map(|[x, y, z]| vec3(x, y, z)).collect()),
        indices: Indices::U32(data.indices),
        ..Default::default()
    }
}
