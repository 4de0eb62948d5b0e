//! The scene snapshot: everything a viewer needs to draw a lab, sent once on join and
//! again whenever the scene changes (reset, insertion). Frames then only move bodies.

use serde::{Deserialize, Serialize};

/// Index of a body in the current [`SceneSnapshot`]; frames refer to bodies by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BodyId(pub u32);

/// A rigid transform. Frames: `Y` is up, metres; rotation is a unit quaternion.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    /// Translation, metres.
    pub position: [f32; 3],
    /// Unit quaternion `[x, y, z, w]`.
    pub rotation: [f32; 4],
}

impl Pose {
    /// No translation, no rotation.
    pub const IDENTITY: Pose = Pose { position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] };
}

impl Default for Pose {
    fn default() -> Self {
        Pose::IDENTITY
    }
}

/// A collision/visual primitive, in the part's own frame (centred on its origin). Read
/// by hand (`crate::decode`), without serde's buffering of tagged enums.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Shape {
    /// A box with these half-extents along X, Y, Z.
    Box {
        /// Half-extents, metres.
        half_extents: [f32; 3],
    },
    /// A sphere.
    Sphere {
        /// Radius, metres.
        radius: f32,
    },
    /// A cylinder whose axis is the local Z axis.
    Cylinder {
        /// Radius, metres.
        radius: f32,
        /// Half of the length along Z, metres.
        half_length: f32,
    },
    /// A capsule whose axis is the local Z axis (length excludes the caps).
    Capsule {
        /// Radius, metres.
        radius: f32,
        /// Half of the cylindrical part's length along Z, metres.
        half_length: f32,
    },
}

/// How a part looks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Material {
    /// The material's name in the scene (for the inspector).
    pub name: String,
    /// Base colour, sRGB, `[r, g, b, a]`.
    pub color: [u8; 4],
    /// 0 = mirror, 1 = chalk.
    pub roughness: f32,
    /// 0 = dielectric, 1 = metal.
    pub metallic: f32,
    /// URL of an image drawn instead of `color`'s RGB (`/assets/textures/tiles.png`);
    /// `color` stays the average look, used while it loads or if it fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texture: Option<String>,
    /// See-through (glass, `color`'s alpha below 255): drawn blended; light-based
    /// sensors look through it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub transparent: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A visual mesh drawn in place of a part's collision shape (which is drawn while the
/// mesh loads, or if it cannot be loaded).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeshView {
    /// Where the viewer fetches it (`/assets/wheel.obj`): `.obj`, `.gltf` or `.glb`.
    pub url: String,
    /// Uniform scale from the file's units to metres, applied in the part's frame.
    pub scale: f32,
    /// Where the mesh's frame sits in the part's frame, if not on it (an imported
    /// URDF visual placed apart from its collision shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Pose>,
}

/// One collider-shaped piece of a body, placed relative to the body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartView {
    /// The shape.
    pub shape: Shape,
    /// Pose of the part in the body's frame.
    pub local: Pose,
    /// Its look.
    pub material: Material,
    /// The visual mesh drawn instead of `shape`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<MeshView>,
}

/// A rigid body as the viewer sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyView {
    /// Its index; frames refer to it.
    pub id: BodyId,
    /// Its unique name in the lab.
    pub name: String,
    /// The pieces it is made of (one for a primitive, several for a composed body).
    pub parts: Vec<PartView>,
    /// Its pose in the world when the snapshot was taken.
    pub pose: Pose,
    /// Fixed bodies (floor, walls) never appear in frames.
    pub fixed: bool,
    /// The robot this body belongs to, if any.
    pub robot: Option<String>,
    /// The participant who added it, for an object a student or the instructor added
    /// to the running lab (`POST /api/labs/{lab}/objects`); absent for the lab's own
    /// objects and robots' bodies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<crate::UserId>,
}

/// Everything needed to draw a lab from scratch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneSnapshot {
    /// Frames whose epoch differs from this one belong to another scene: ignore them.
    pub epoch: u32,
    /// Background colour, sRGB.
    pub sky: [u8; 3],
    /// The bodies, indexed by their [`BodyId`] (`bodies[i].id == BodyId(i)`).
    pub bodies: Vec<BodyView>,
    /// Bodies placed by one joint coordinate (wheels, arm links), parents first: frames
    /// send the coordinate instead of their pose (see [`crate::LinkTable`]). Absent from
    /// snapshots of scenes without such joints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<crate::JointLink>,
    /// The lab's challenge's zones, drawn see-through (docs/challenges.md). Absent when
    /// the lab sets no challenge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<crate::ZoneView>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_round_trips_through_json() {
        let snapshot = SceneSnapshot {
            epoch: 7,
            sky: [20, 30, 40],
            links: vec![],
            zones: vec![],
            bodies: vec![BodyView {
                id: BodyId(0),
                name: "cart".into(),
                parts: vec![
                    PartView {
                        shape: Shape::Box { half_extents: [0.5, 0.1, 0.25] },
                        local: Pose::IDENTITY,
                        material: Material {
                            name: "Tiles".into(),
                            color: [200, 0, 0, 255],
                            roughness: 0.6,
                            metallic: 0.0,
                            texture: Some("/assets/textures/tiles.png".into()),
                            transparent: false,
                        },
                        mesh: None,
                    },
                    PartView {
                        shape: Shape::Cylinder { radius: 0.1, half_length: 0.02 },
                        local: Pose { position: [0.3, 0.0, 0.25], rotation: [0.0, 0.0, 0.0, 1.0] },
                        material: Material {
                            name: "Rubber".into(),
                            color: [10, 10, 10, 255],
                            roughness: 0.9,
                            metallic: 0.0,
                            texture: None,
                            transparent: false,
                        },
                        mesh: Some(MeshView { url: "/assets/wheel.obj".into(), scale: 0.01, offset: None }),
                    },
                    PartView {
                        shape: Shape::Sphere { radius: 0.05 },
                        local: Pose::IDENTITY,
                        material: Material {
                            name: "Steel".into(),
                            color: [180, 180, 190, 255],
                            roughness: 0.3,
                            metallic: 1.0,
                            texture: None,
                            transparent: false,
                        },
                        mesh: None,
                    },
                    PartView {
                        shape: Shape::Capsule { radius: 0.05, half_length: 0.2 },
                        local: Pose::IDENTITY,
                        material: Material {
                            name: "Glass".into(),
                            color: [0, 0, 200, 128],
                            roughness: 0.5,
                            metallic: 0.0,
                            texture: None,
                            transparent: true,
                        },
                        mesh: None,
                    },
                ],
                pose: Pose {
                    position: [1.0, 2.0, 3.0],
                    rotation: [0.0, std::f32::consts::FRAC_1_SQRT_2, 0.0, std::f32::consts::FRAC_1_SQRT_2],
                },
                fixed: false,
                robot: Some("tank".into()),
                owner: None,
            }],
        };
        let json = serde_json::to_string(&snapshot).unwrap();
        assert_eq!(serde_json::from_str::<SceneSnapshot>(&json).unwrap(), snapshot);
    }

    #[test]
    fn parts_without_mesh_texture_or_transparency_read_as_before() {
        // A part as sent before meshes and the material library existed.
        let old = r#"{"shape":{"type":"sphere","radius":0.5},"local":{"position":[0,0,0],"rotation":[0,0,0,1]},
                      "material":{"name":"Red","color":[200,52,44,255],"roughness":0.5,"metallic":0}}"#;
        let part: PartView = serde_json::from_str(old).unwrap();
        assert_eq!(part.mesh, None);
        assert_eq!((part.material.texture.as_deref(), part.material.transparent), (None, false));
        // ... and such parts are still written the old way (no null or false fields).
        let json = serde_json::to_string(&part).unwrap();
        assert!(!json.contains("mesh") && !json.contains("texture") && !json.contains("transparent"), "{json}");
    }

    #[test]
    fn meshes_textures_and_transparency_round_trip() {
        let part = PartView {
            shape: Shape::Cylinder { radius: 0.85, half_length: 0.35 },
            local: Pose::IDENTITY,
            material: Material {
                name: "Glass".into(),
                color: [170, 210, 230, 90],
                roughness: 0.1,
                metallic: 0.0,
                texture: Some("/assets/textures/wood.png".into()),
                transparent: true,
            },
            mesh: Some(MeshView { url: "/assets/wheel.obj".into(), scale: 0.01, offset: None }),
        };
        let json = serde_json::to_string(&part).unwrap();
        assert!(json.contains(r#""mesh":{"url":"/assets/wheel.obj","scale":0.01}"#), "{json}");
        assert!(json.contains(r#""transparent":true"#), "{json}");
        assert_eq!(serde_json::from_str::<PartView>(&json).unwrap(), part);
    }
}
