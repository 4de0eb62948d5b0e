//! The environment's fixed bodies (floor, walls, ceiling) made from its settings, and
//! the checks of those settings: one code for a scene's `environment room { ... }` and
//! for the room changed while a lab runs ([`SceneModel::with_room`]), so a changed room
//! is the room the language would have built, within the language's own limits.

use vlab_protocol::RoomChange;

use super::{
    BodyModel, EnvironmentKind, EnvironmentModel, Material, Motion, Palette, PartModel, Pose, SceneModel, Shape,
};

/// Thickness of the walls, metres, just outside the room's rectangle.
pub const WALL_THICKNESS: f32 = 0.2;
/// Thickness of the floor, metres, below Y = 0.
pub const FLOOR_THICKNESS: f32 = 0.1;
/// The names of the environment's bodies: taken in every lab that has one.
pub const ENVIRONMENT_BODIES: [&str; 6] = ["floor", "wall_south", "wall_north", "wall_west", "wall_east", "ceiling"];

/// A width, length or height as the language takes it: finite, positive, at most
/// [`super::MAX_MAGNITUDE`]; else the sentence that names `what` and the limit.
pub fn room_size(what: &str, value: f64) -> Result<f32, String> {
    super::check_magnitude(what, value)?;
    if value > 0.0 {
        Ok(value as f32)
    } else {
        Err(format!("{what} must be positive, got {}", crate::interp::format_num(value)))
    }
}

/// The fixed bodies of `environment`: the floor (its top at Y = 0), four walls just
/// outside `[0, width] × [0, length]` and, for a room, the ceiling, in the order of
/// [`ENVIRONMENT_BODIES`].
pub fn environment_bodies(environment: &EnvironmentModel) -> Vec<BodyModel> {
    let (w, l, h, t) = (environment.width, environment.length, environment.height, WALL_THICKNESS);
    let (ground, walls) = (&environment.ground, &environment.walls);
    let mut boxes = vec![
        (
            "floor",
            [w / 2.0, -FLOOR_THICKNESS / 2.0, l / 2.0],
            [w / 2.0 + t, FLOOR_THICKNESS / 2.0, l / 2.0 + t],
            ground,
        ),
        ("wall_south", [w / 2.0, h / 2.0, -t / 2.0], [w / 2.0 + t, h / 2.0, t / 2.0], walls),
        ("wall_north", [w / 2.0, h / 2.0, l + t / 2.0], [w / 2.0 + t, h / 2.0, t / 2.0], walls),
        ("wall_west", [-t / 2.0, h / 2.0, l / 2.0], [t / 2.0, h / 2.0, l / 2.0], walls),
        ("wall_east", [w + t / 2.0, h / 2.0, l / 2.0], [t / 2.0, h / 2.0, l / 2.0], walls),
    ];
    if environment.kind == EnvironmentKind::Room {
        let ceiling = &environment.ceiling;
        boxes.push(("ceiling", [w / 2.0, h + t / 2.0, l / 2.0], [w / 2.0 + t, t / 2.0, l / 2.0 + t], ceiling));
    }
    boxes
        .into_iter()
        .map(|(name, center, half_extents, material)| BodyModel {
            name: name.into(),
            motion: Motion::Fixed,
            pose: Pose::at(center),
            parts: vec![wall_part(Shape::Box { half_extents }, material)],
            robot: None,
            owner: None,
        })
        .collect()
}

/// A part of the environment: as an object's with no `density`, `friction` or
/// `restitution` set.
fn wall_part(shape: Shape, material: &Material) -> PartModel {
    PartModel {
        shape,
        local: Pose::IDENTITY,
        material: material.clone(),
        density: crate::interp::DEFAULT_DENSITY,
        friction: crate::interp::DEFAULT_FRICTION,
        restitution: crate::interp::DEFAULT_RESTITUTION,
        name: None,
        mesh: None,
        drawn_only: false,
    }
}

/// Why a room cannot be changed as asked; the lab is unchanged.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RoomError {
    /// The lab's scene declares no environment.
    #[error(
        "this lab has no room to change: its scene declares no environment (insert one first: environment room {{ ... }})"
    )]
    NoEnvironment,
    /// The change names nothing.
    #[error("nothing to change: give at least one of width, length, height, gravity, sky, ground, walls, ceiling")]
    Nothing,
    /// One field's value is refused.
    #[error("{message}")]
    Field {
        /// The field, as the change names it (`width`).
        field: &'static str,
        /// The sentence, naming the field and its limit.
        message: String,
    },
}

impl SceneModel {
    /// This model with its room changed as `change` says (fields left out stay), its
    /// materials from `palette`: the environment, its bodies (same indices, same names),
    /// the sky and gravity. Refused, naming the field, when a value is outside what the
    /// language accepts or a material is not in the library.
    pub fn with_room(&self, change: &RoomChange, palette: &Palette) -> Result<SceneModel, RoomError> {
        let mut environment = self.environment.clone().ok_or(RoomError::NoEnvironment)?;
        if change.is_empty() {
            return Err(RoomError::Nothing);
        }
        let field = |field: &'static str| move |message: String| RoomError::Field { field, message };
        let size = |what: &'static str, value: Option<f64>, now: f32| match value {
            Some(value) => room_size(what, value).map_err(field(what)),
            None => Ok(now),
        };
        environment.width = size("width", change.width, environment.width)?;
        environment.length = size("length", change.length, environment.length)?;
        environment.height = size("height", change.height, environment.height)?;
        let gravity_y = match change.gravity {
            Some(gravity) => {
                super::check_magnitude("gravity", gravity).map(|()| gravity as f32).map_err(field("gravity"))?
            }
            None => self.gravity_y,
        };
        let material = |what: &'static str, name: &Option<String>, now: &Material| match name {
            Some(name) => palette.lookup(name.trim()).ok_or_else(|| RoomError::Field {
                field: what,
                message: format!(
                    "{what}: there is no material '{name}' in the library; known: {}",
                    palette.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")
                ),
            }),
            None => Ok(now.clone()),
        };
        environment.sky = material("sky", &change.sky, &environment.sky)?;
        environment.ground = material("ground", &change.ground, &environment.ground)?;
        environment.walls = material("walls", &change.walls, &environment.walls)?;
        environment.ceiling = material("ceiling", &change.ceiling, &environment.ceiling)?;
        let mut changed = self.clone();
        for body in environment_bodies(&environment) {
            let index = changed.body_index(&body.name).ok_or(RoomError::NoEnvironment)?;
            changed.bodies[index] = body;
        }
        let [r, g, b, _] = environment.sky.color;
        changed.sky = [r, g, b];
        changed.gravity_y = gravity_y;
        changed.environment = Some(environment);
        Ok(changed)
    }

    /// The indices of the environment's bodies, in the order of [`ENVIRONMENT_BODIES`]
    /// (none without an environment).
    pub fn environment_body_indices(&self) -> Vec<usize> {
        if self.environment.is_none() {
            return Vec::new();
        }
        ENVIRONMENT_BODIES.iter().filter_map(|name| self.body_index(name)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MapLoader, Options, interpret};

    fn lab(source: &str) -> SceneModel {
        interpret(source, "lab.vlab", &MapLoader::new(), &Options::default()).expect("the scene builds").model
    }

    fn change(json: &str) -> RoomChange {
        serde_json::from_str(json).expect("a change")
    }

    #[test]
    fn a_changed_room_is_the_room_the_language_builds_with_those_settings() {
        let before =
            lab("environment room { width 6; length 5; ground \"Tiles\"; }\nbox1 { shape box(1,1,1); pos(2,0.5,2); }");
        let changed = before
            .with_room(
                &change(r#"{"width": 9, "height": 2.5, "ground": "wood", "gravity": -3.7}"#),
                &Palette::default(),
            )
            .unwrap();
        let written = lab("environment room { width 9; length 5; height 2.5; ground \"Wood\"; gravity -3.7; }\n\
             box1 { shape box(1,1,1); pos(2,0.5,2); }");
        assert_eq!(changed, written, "the same bodies at the same indices, the same settings");
        assert_eq!(changed.environment_body_indices(), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn each_refusal_names_its_field_and_the_limit() {
        let before = lab("environment wallrect { width 6; length 5; }");
        let palette = Palette::default();
        let refused = |json: &str| before.with_room(&change(json), &palette).unwrap_err();
        let field = |error: RoomError| match error {
            RoomError::Field { field, message } => (field, message),
            other => panic!("{other:?}"),
        };
        assert_eq!(field(refused(r#"{"width": -2}"#)), ("width", "width must be positive, got -2".into()));
        assert_eq!(field(refused(r#"{"length": 0}"#)), ("length", "length must be positive, got 0".into()));
        let (name, message) = field(refused(r#"{"height": "NaN"}"#));
        assert_eq!((name, message.as_str()), ("height", "height must be a number between -1e9 and 1e9, got NaN"));
        let (name, message) = field(refused(r#"{"width": 1000000001}"#));
        assert_eq!(name, "width");
        assert!(message.starts_with("width must be a number between -1e9 and 1e9"), "{message}");
        let (name, message) = field(refused(r#"{"gravity": "-inf"}"#));
        assert_eq!((name, message.as_str()), ("gravity", "gravity must be a number between -1e9 and 1e9, got -inf"));
        let (name, message) = field(refused(r#"{"walls": "Plaid"}"#));
        assert_eq!(name, "walls");
        assert!(message.starts_with("walls: there is no material 'Plaid' in the library; known: Grey,"), "{message}");
        assert_eq!(refused("{}"), RoomError::Nothing);
        assert_eq!(SceneModel::empty().with_room(&change(r#"{"width": 3}"#), &palette), Err(RoomError::NoEnvironment));
    }

    #[test]
    fn the_limits_hold_at_their_edges() {
        let before = lab("environment wallrect { }");
        let palette = Palette::default();
        let at_limit = before.with_room(&change(r#"{"width": 1e9, "length": 1e-6}"#), &palette).unwrap();
        let environment = at_limit.environment.unwrap();
        assert_eq!((environment.width, environment.length), (1e9, 1e-6));
        assert!(before.with_room(&change(r#"{"width": 1.0000001e9}"#), &palette).is_err());
    }
}
