//! Turns the world into lit three-d meshes and draws them from the orbit camera's eye.

use std::cell::Cell;
use std::rc::Rc;

use three_d::{
    AmbientLight, Blend, Camera, ClearState, ColorMaterial, Context, CpuMesh, Cull, DirectionalLight, Frustum,
    Geometry, Gm, Indices, Light, LightingModel, Mat3, Mat4, Mesh, Object, PhysicalMaterial, Positions, Quat,
    RenderStates, RenderTarget, RendererError, Srgba, Texture2DRef, Vec2, Vec3, Viewer, Viewport, WriteMask,
    cmp_render_order, radians, vec3,
};
use vlab_protocol::{PartView, Pose};

use super::assets::Assets;
use super::environment::{fetch_ambient_light, plain_ambient_light};
use super::overlay_meshes::OverlayMeshes;
use crate::view3d::asset_cache::TEXTURE_METRES;
use crate::view3d::cutaway::blocks_view;
use crate::view3d::orbit_camera::OrbitCamera;
use crate::view3d::overlay::{Overlay, ViewOptions};
use crate::view3d::primitives::{MeshData, PrimitiveKind, primitives, textured_box, unit_cylinder};
use crate::view3d::world::{World, ceiling_height, hides_ceiling};
use crate::view3d::zones::zone_primitive;

/// Shadow map edge, texels: ~2 cm per texel over a 20 m room. 2048 looked no better
/// and halved the frame rate under SwiftShader (the map is redrawn whenever bodies move).
const SHADOW_MAP_TEXELS: u32 = 1024;

/// Shortest time between two shadow-map updates, milliseconds.
const SHADOW_PERIOD_MS: f64 = 100.0;

/// How strongly the ambient light lights every face.
const AMBIENT_INTENSITY: f32 = 0.6;

/// The glow of the picked robot's parts (emissive, added to their lit colour).
const PICKED_GLOW: Srgba = Srgba::new_opaque(40, 60, 85);

/// One unit mesh of one part, with where it sits on its body.
struct DrawnPrimitive {
    /// Index of the body (and its pose) in the world.
    body: usize,
    /// The robot the body belongs to, if any.
    robot: Option<String>,
    /// `body_from_part * part_from_primitive * scale`.
    body_from_mesh: Mat4,
    object: Gm<Mesh, PhysicalMaterial>,
    /// For the room's ceiling: its height, above which the eye sees through it.
    ceiling_y: Option<f32>,
    /// Whether it is part of a fixed body (a wall, a fence): left out of the picture
    /// while it stands between the eye and what the eye looks at (`cutaway`).
    fixed: bool,
}

/// Everything on the GPU side of the view.
pub struct Renderer {
    context: Context,
    camera: Camera,
    cube: CpuMesh,
    sphere: CpuMesh,
    cylinder: CpuMesh,
    drawn: Vec<DrawnPrimitive>,
    /// The challenge's zones: see-through, fixed in the world, drawn after the bodies.
    zones: Vec<Gm<Mesh, ColorMaterial>>,
    /// Clear colour, the snapshot's sky as sRGB in `0..=1`.
    sky: [f32; 3],
    ambient: AmbientLight,
    /// The gradient ambient light, put here when the `lighting` part has made it.
    arriving_ambient: Rc<Cell<Option<AmbientLight>>>,
    sun: DirectionalLight,
    /// The world generations last synchronised, to skip work when nothing changed.
    scene_generation: u64,
    pose_generation: u64,
    /// Meshes and textures fetched so far, and their generation last drawn.
    assets: Assets,
    assets_generation: u64,
    shadows: bool,
    shadows_stale: bool,
    /// When the shadow map was last drawn (`performance.now()` ms).
    shadows_drawn_at_ms: f64,
    /// The picked robot's rays, trails and ring.
    overlay: OverlayMeshes,
    /// The robot whose parts glow.
    picked: Option<String>,
}

impl Renderer {
    /// A renderer with an empty scene.
    pub fn new(context: Context) -> Renderer {
        let viewport = Viewport::new_at_origo(1, 1);
        let camera = Camera::new_perspective(
            viewport,
            vec3(0.0, 5.0, 10.0),
            vec3(0.0, 0.0, 0.0),
            vec3(0.0, 1.0, 0.0),
            radians(0.8),
            0.1,
            100.0,
        );
        Renderer {
            camera,
            cube: CpuMesh::cube(),
            sphere: CpuMesh::sphere(24),
            cylinder: cylinder_mesh(),
            drawn: Vec::new(),
            zones: Vec::new(),
            // Until a snapshot says otherwise: the page's own background.
            sky: [26.0 / 255.0, 31.0 / 255.0, 39.0 / 255.0],
            ambient: plain_ambient_light(&context, AMBIENT_INTENSITY),
            arriving_ambient: fetch_ambient_light(&context, AMBIENT_INTENSITY),
            // A high sun, slightly behind the default view, for readable shadows.
            sun: DirectionalLight::new(&context, 2.2, Srgba::WHITE, vec3(-0.45, -1.0, -0.3)),
            scene_generation: 0,
            pose_generation: 0,
            assets: Assets::default(),
            assets_generation: 0,
            shadows: true,
            shadows_stale: true,
            shadows_drawn_at_ms: f64::NEG_INFINITY,
            overlay: OverlayMeshes::new(&context),
            picked: None,
            context,
        }
    }

    /// Brings meshes and transforms up to date with the world; cheap when nothing
    /// changed. Returns whether anything did (the picture must be redrawn).
    pub fn sync(&mut self, world: &World) -> bool {
        let relit = if let Some(ambient) = self.arriving_ambient.take() {
            self.ambient = ambient;
            true
        } else {
            false
        };
        // A mesh or texture that arrived (or failed) replaces what stood in for it.
        if world.scene_generation() != self.scene_generation || self.assets.generation() != self.assets_generation {
            self.assets_generation = self.assets.generation();
            self.rebuild(world);
            self.scene_generation = world.scene_generation();
            self.pose_generation = 0;
            self.shadows_stale = true;
        }
        if world.pose_generation() == self.pose_generation {
            return relit;
        }
        self.place(world.poses());
        self.pose_generation = world.pose_generation();
        self.shadows_stale = true;
        true
    }

    /// Brings the picked robot's glow and overlay up to date (`metres_per_px`: the size
    /// of a CSS pixel at the camera's target). Returns whether the picture changed.
    pub fn sync_picked(
        &mut self,
        world: &World,
        picked: Option<&str>,
        overlay: &Overlay,
        options: ViewOptions,
        metres_per_px: f32,
    ) -> bool {
        let mut changed = false;
        if self.picked.as_deref() != picked {
            self.picked = picked.map(str::to_owned);
            self.glow_picked();
            changed = true;
        }
        changed | self.overlay.sync(overlay, options, world, picked, metres_per_px)
    }

    /// How the last picture was lit around: `"sky"` by the gradient ambient light,
    /// `"even"` by the uniform one that stands in for it until it comes.
    pub fn lighting(&self) -> &'static str {
        if self.ambient.environment.is_some() { "sky" } else { "even" }
    }

    /// Rays and trail points drawn now (see [`OverlayMeshes::drawn_counts`]).
    pub fn overlay_counts(&self) -> (usize, usize) {
        self.overlay.drawn_counts()
    }

    /// The program drawings shown now (see [`OverlayMeshes::drawn_drawings`]).
    pub fn drawn_drawings(&self) -> usize {
        self.overlay.drawn_drawings()
    }

    /// Lights up the picked robot's parts, and only them.
    fn glow_picked(&mut self) {
        for drawn in &mut self.drawn {
            let picked = drawn.robot.is_some() && drawn.robot == self.picked;
            drawn.object.material.emissive = if picked { PICKED_GLOW } else { Srgba::BLACK };
        }
    }

    /// Turns the sun's shadows on or off (they cost a depth pass and filtered lookups).
    pub fn set_shadows(&mut self, on: bool) {
        if on != self.shadows {
            self.shadows = on;
            self.shadows_stale = true;
            if !on {
                self.sun.clear_shadow_map();
            }
        }
    }

    /// Draws the scene into the canvas's default framebuffer; `now_ms` is `performance.now()`.
    pub fn render(&mut self, orbit: &OrbitCamera, width: u32, height: u32, now_ms: f64) {
        // Shadows follow moving bodies at most every SHADOW_PERIOD_MS: a lag nobody
        // notices, for a depth pass (and a new depth texture, in three-d) saved most frames.
        if self.shadows && self.shadows_stale && now_ms - self.shadows_drawn_at_ms >= SHADOW_PERIOD_MS {
            self.shadows_stale = false;
            self.shadows_drawn_at_ms = now_ms;
            // The ceiling casts no shadow: the sun is a lighting aid, not a lamp outside
            // a closed room.
            let geometries = self.drawn.iter().filter(|d| d.ceiling_y.is_none()).map(|d| &d.object.geometry);
            if let Err(error) = self.sun.generate_shadow_map(SHADOW_MAP_TEXELS, geometries) {
                leptos::logging::warn!("no shadows: {error}");
            }
        }
        let viewport = Viewport::new_at_origo(width.max(1), height.max(1));
        let (near, far) = orbit.clip_planes();
        let eye = orbit.eye();
        let eye_y = eye[1];
        let camera = &mut self.camera;
        camera.set_viewport(viewport);
        camera.set_view(vec3_from(orbit.eye()), vec3_from(orbit.target), vec3(0.0, 1.0, 0.0));
        camera.set_perspective_projection(radians(orbit.fov_y_rad), near, far);

        let [r, g, b] = self.sky;
        // Two lights only: under software WebGL every light costs about as much as the
        // rest of the shading. The ambient's sky-over-floor gradient keeps faces turned
        // away from the sun readable, which a fill light did before.
        let lights: [&dyn Light; 2] = [&self.ambient, &self.sun];
        let screen = RenderTarget::screen(&self.context, viewport.width, viewport.height);
        screen.clear(ClearState::color_and_depth(r, g, b, 1.0, 1.0));
        draw_forward(
            &screen,
            &self.camera,
            self.drawn
                .iter()
                .filter(|d| !hides_ceiling(d.ceiling_y, eye_y))
                .filter(|d| !(d.fixed && blocks(&d.object, eye, orbit.target)))
                .map(|d| &d.object as &dyn Object)
                .chain(self.zones.iter().map(|zone| zone as &dyn Object))
                .chain(self.overlay.objects()),
            &lights,
        );
    }

    /// New meshes and materials for a new snapshot.
    fn rebuild(&mut self, world: &World) {
        self.drawn.clear();
        self.shadows_drawn_at_ms = f64::NEG_INFINITY;
        let Some(snapshot) = world.snapshot() else {
            self.zones.clear();
            return;
        };
        self.sky = snapshot.sky.map(|c| f32::from(c) / 255.0);
        self.zones = snapshot.zones.iter().map(|zone| self.zone_object(zone)).collect();
        for (body_index, body) in snapshot.bodies.iter().enumerate() {
            let ceiling_y = ceiling_height(body);
            // Only the lab's own fixed bodies may be cut away when they hide the view: an
            // object somebody added stays drawn, to be seen and grabbed.
            let fixed = body.fixed && body.robot.is_none() && body.owner.is_none();
            let robot = &body.robot;
            for part in &body.parts {
                // The part's mesh once it is loaded; until then (or if it cannot be) its
                // collision shape.
                if let Some(mesh) = part.mesh.as_ref().and_then(|m| self.assets.mesh(&m.url).map(|a| (a, m))) {
                    let (meshes, view) = mesh;
                    let s = view.scale.abs().max(1e-6);
                    let part_from_mesh = view.offset.as_ref().map_or(Mat4::from_scale(1.0), pose_matrix);
                    let body_from_mesh = pose_matrix(&part.local) * part_from_mesh * Mat4::from_scale(s);
                    for cpu in meshes.iter() {
                        let material = self.material(part, cpu.uvs.is_some());
                        self.drawn.push(DrawnPrimitive {
                            body: body_index,
                            robot: robot.clone(),
                            body_from_mesh,
                            object: Gm::new(Mesh::new(&self.context, cpu), material),
                            ceiling_y,
                            fixed,
                        });
                    }
                    continue;
                }
                // A textured box gets its own mesh, with texture coordinates in metres.
                if let (vlab_protocol::Shape::Box { half_extents }, Some(url)) = (&part.shape, &part.material.texture)
                    && self.assets.texture(&self.context, url).is_some()
                {
                    let cpu = cpu_mesh(textured_box(*half_extents, TEXTURE_METRES));
                    let material = self.material(part, true);
                    self.drawn.push(DrawnPrimitive {
                        body: body_index,
                        robot: robot.clone(),
                        body_from_mesh: pose_matrix(&part.local),
                        object: Gm::new(Mesh::new(&self.context, &cpu), material),
                        ceiling_y,
                        fixed,
                    });
                    continue;
                }
                for primitive in primitives(part) {
                    let unit = match primitive.kind {
                        PrimitiveKind::Cube => &self.cube,
                        PrimitiveKind::Sphere => &self.sphere,
                        PrimitiveKind::Cylinder => &self.cylinder,
                    };
                    let material = self.material(part, unit.uvs.is_some());
                    // A zero extent would make the normal matrix singular.
                    let [sx, sy, sz] = primitive.scale.map(|s| s.abs().max(1e-4));
                    let body_from_primitive = part.local.compose(&primitive.part_from_primitive);
                    self.drawn.push(DrawnPrimitive {
                        body: body_index,
                        robot: robot.clone(),
                        body_from_mesh: pose_matrix(&body_from_primitive) * Mat4::from_nonuniform_scale(sx, sy, sz),
                        object: Gm::new(Mesh::new(&self.context, unit), material),
                        ceiling_y,
                        fixed,
                    });
                }
            }
        }
        self.glow_picked();
    }

    /// A zone, see-through in its colour: blended over what is behind it, without
    /// writing depth (a robot inside stays visible), its back faces left out so it reads
    /// as one tinted volume.
    fn zone_object(&self, zone: &vlab_protocol::ZoneView) -> Gm<Mesh, ColorMaterial> {
        let drawn = zone_primitive(zone);
        let unit = match drawn.kind {
            PrimitiveKind::Cube => &self.cube,
            PrimitiveKind::Sphere => &self.sphere,
            PrimitiveKind::Cylinder => &self.cylinder,
        };
        let [r, g, b, a] = drawn.color;
        let material = ColorMaterial {
            color: Srgba::new(r, g, b, a),
            texture: None,
            render_states: RenderStates {
                write_mask: WriteMask::COLOR,
                blend: Blend::TRANSPARENCY,
                cull: Cull::Back,
                ..Default::default()
            },
            is_transparent: true,
        };
        let [sx, sy, sz] = drawn.scale.map(|s| s.abs().max(1e-4));
        let mut object = Gm::new(Mesh::new(&self.context, unit), material);
        object.set_transformation(pose_matrix(&drawn.world_from_primitive) * Mat4::from_nonuniform_scale(sx, sy, sz));
        object
    }

    /// The look of `part` on a mesh that has (or lacks) texture coordinates: its
    /// texture once loaded, else its colour; blended when the material is transparent.
    fn material(&self, part: &PartView, has_uvs: bool) -> PhysicalMaterial {
        let look = &part.material;
        let [r, g, b, a] = look.color;
        let texture = match &look.texture {
            Some(url) if has_uvs => self.assets.texture(&self.context, url),
            _ => None,
        };
        let transparent = look.transparent || a < 255;
        // Built field by field rather than from a `CpuMaterial`: three-d's constructor
        // would also upload the CPU textures a `CpuMaterial` may carry, code the page's
        // first module then holds for nothing (its textures come made, see `assets`).
        // The values are those `PhysicalMaterial::new_opaque`/`new_transparent` give a
        // default `CpuMaterial` with this colour, roughness and metalness.
        PhysicalMaterial {
            name: look.name.clone(),
            // A texture replaces the colour's RGB (the colour is its average look).
            albedo: if texture.is_some() { Srgba::new(255, 255, 255, a) } else { Srgba::new(r, g, b, a) },
            albedo_texture: texture.map(|texture| Texture2DRef { texture, transformation: Mat3::from_scale(1.0) }),
            metallic: look.metallic.clamp(0.0, 1.0),
            roughness: look.roughness.clamp(0.0, 1.0),
            metallic_roughness_texture: None,
            occlusion_strength: 1.0,
            occlusion_texture: None,
            normal_scale: 1.0,
            normal_texture: None,
            render_states: if transparent {
                RenderStates { write_mask: WriteMask::COLOR, blend: Blend::TRANSPARENCY, ..Default::default() }
            } else {
                RenderStates::default()
            },
            is_transparent: transparent,
            emissive: Srgba::BLACK,
            emissive_texture: None,
            lighting_model: LightingModel::Blinn,
        }
    }

    /// Whether moved bodies still wait for their shadows (see [`Renderer::render`]).
    pub fn shadows_pending(&self) -> bool {
        self.shadows && self.shadows_stale
    }

    /// Moves every mesh to its body's current pose.
    fn place(&mut self, poses: &[Pose]) {
        for drawn in &mut self.drawn {
            let world_from_body = poses.get(drawn.body).map_or(Mat4::from_scale(1.0), pose_matrix);
            drawn.object.set_transformation(world_from_body * drawn.body_from_mesh);
        }
    }
}

/// Whether `object` stands between `eye` and `focus` (see `cutaway`).
fn blocks(object: &Gm<Mesh, PhysicalMaterial>, eye: [f32; 3], focus: [f32; 3]) -> bool {
    let aabb = object.aabb();
    let (min, max) = (aabb.min(), aabb.max());
    blocks_view([min.x, min.y, min.z], [max.x, max.y, max.z], eye, focus)
}

fn vec3_from(v: [f32; 3]) -> Vec3 {
    vec3(v[0], v[1], v[2])
}

/// The rigid transform of a wire pose (rotation `[x, y, z, w]`).
fn pose_matrix(pose: &Pose) -> Mat4 {
    let [x, y, z, w] = pose.rotation;
    Mat4::from_translation(vec3_from(pose.position)) * Mat4::from(Quat::new(w, x, y, z))
}

/// Draws `objects` into `target` as three-d's `RenderTarget::render` does for forward-
/// shaded materials: those outside the camera's view skipped, opaque ones nearest
/// first, then transparent ones farthest first. No material here is deferred-shaded, and
/// leaving out three-d's deferred pass (its G-buffer and lighting-pass code and shaders)
/// keeps that code out of the page's first module.
fn draw_forward<'a>(
    target: &RenderTarget,
    camera: &Camera,
    objects: impl Iterator<Item = &'a dyn Object>,
    lights: &[&dyn Light],
) {
    let frustum = Frustum::new(camera.projection() * camera.view());
    let mut visible: Vec<&dyn Object> = objects.filter(|object| frustum.contains(object.aabb())).collect();
    visible.sort_by(|a, b| cmp_render_order(camera, a, b));
    let drawn = target.write::<RendererError>(|| {
        for object in visible {
            object.render(camera, lights);
        }
        Ok(())
    });
    if let Err(error) = drawn {
        leptos::logging::warn!("the view could not be drawn: {error}");
    }
}

/// Our closed unit cylinder (see [`unit_cylinder`]) as a three-d mesh.
fn cylinder_mesh() -> CpuMesh {
    cpu_mesh(unit_cylinder(32))
}

/// Plain mesh data as a three-d mesh.
fn cpu_mesh(data: MeshData) -> CpuMesh {
    CpuMesh {
        positions: Positions::F32(data.positions.into_iter().map(vec3_from).collect()),
        normals: Some(data.normals.into_iter().map(vec3_from).collect()),
        uvs: (!data.uvs.is_empty()).then(|| data.uvs.into_iter().map(|[u, v]| Vec2::new(u, v)).collect()),
        indices: Indices::U32(data.indices),
        ..Default::default()
    }
}
