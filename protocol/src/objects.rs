//! Objects from everyone: the palette of ready-made classroom objects (box, ramp,
//! cylinder, cone, wall segment, ball) as `.vlab` text, defined once here for the server,
//! which inserts them, and the page, which shows a button for each; the request that
//! adds one; the limits every participant's objects keep to.

use serde::{Deserialize, Serialize};

use crate::MAX_OBJECT_NAME_CHARS;

/// One item of the palette.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PaletteItem {
    /// Its id in requests and `data-testid`s (`ramp`).
    pub id: &'static str,
    /// What the page's button says.
    pub label: &'static str,
    /// Whether it never moves (walls and ramps: robots push against or climb them).
    pub fixed: bool,
    /// What it is, for the button's tooltip and the docs.
    pub about: &'static str,
    /// The body's statements, its base centre at the origin resting on `y = 0`;
    /// `{name}` stands for its name (parts are called `{name}_<part>`).
    pub body: &'static str,
}

/// The palette, in the order the page shows it.
pub const PALETTE: [PaletteItem; 6] = [
    PaletteItem {
        id: "box",
        label: "Box",
        fixed: false,
        about: "a 0.4 m wooden crate, 9.6 kg, that robots can push",
        body: r#"material "Wood"; density 150; {name}_crate { shape box(0.4, 0.4, 0.4); pos(0, 0.2, 0); }"#,
    },
    PaletteItem {
        id: "ramp",
        label: "Ramp",
        fixed: true,
        about: "a static wedge, 1.2 m long and 0.8 m wide, rising to 0.3 m along its X axis",
        body: r#"material "Steel"; {name}_deck { shape box(1.2, 0.05, 0.8); rotation_axis(0, 0, 1, 0.2527); pos(0, 0.176, 0); }
            {name}_back { shape box(0.05, 0.3, 0.8); pos(0.56, 0.15, 0); }"#,
    },
    PaletteItem {
        id: "cylinder",
        label: "Cylinder",
        fixed: false,
        about: "an upright drum, 0.3 m across and 0.5 m tall, 10.6 kg",
        body: r#"material "Blue"; density 300; {name}_drum { shape cylinder(0.15, 0.5); rotation_axis(1, 0, 0, 1.5708); pos(0, 0.25, 0); }"#,
    },
    PaletteItem {
        id: "cone",
        label: "Cone",
        fixed: false,
        about: "a traffic cone 0.5 m tall: a square foot and four stacked rings narrowing upwards",
        body: r#"material "Orange"; density 200;
            {name}_foot { shape box(0.36, 0.02, 0.36); pos(0, 0.01, 0); }
            {name}_ring1 { shape cylinder(0.14, 0.12); rotation_axis(1, 0, 0, 1.5708); pos(0, 0.08, 0); }
            {name}_ring2 { shape cylinder(0.11, 0.12); rotation_axis(1, 0, 0, 1.5708); pos(0, 0.2, 0); }
            {name}_ring3 { shape cylinder(0.08, 0.12); rotation_axis(1, 0, 0, 1.5708); pos(0, 0.32, 0); }
            {name}_ring4 { shape cylinder(0.05, 0.12); rotation_axis(1, 0, 0, 1.5708); pos(0, 0.44, 0); }"#,
    },
    PaletteItem {
        id: "wall",
        label: "Wall",
        fixed: true,
        about: "a static wall segment, 1 m long, 0.5 m high and 5 cm thick, along its X axis",
        body: r#"material "White"; {name}_panel { shape box(1.0, 0.5, 0.05); pos(0, 0.25, 0); }"#,
    },
    PaletteItem {
        id: "ball",
        label: "Ball",
        fixed: false,
        about: "a 0.2 m rubber ball, 0.8 kg, that bounces",
        body: r#"material "Red"; density 200; restitution 0.6; {name}_ball { shape sphere(0.1); pos(0, 0.1, 0); }"#,
    },
];

impl PaletteItem {
    /// The palette item `id`, if there is one.
    pub fn find(id: &str) -> Option<&'static PaletteItem> {
        PALETTE.iter().find(|item| item.id == id)
    }

    /// The item as a `.vlab` object called `name` (an identifier), its base centre at
    /// `position`, turned by `heading` radians about the vertical.
    pub fn vlab(&self, name: &str, position: [f32; 3], heading: f32) -> String {
        let [x, y, z] = position;
        let fixed = if self.fixed { "static " } else { "" };
        let body = self.body.replace("{name}", name);
        format!("{fixed}composed {name} {{\n  pos({x}, {y}, {z}); rotation_axis(0, 1, 0, {heading});\n  {body}\n}}\n")
    }
}

/// `POST /api/labs/{lab}/objects` with a JSON body: one palette item.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddObjectRequest {
    /// The palette item's id (`ramp`).
    pub palette: String,
    /// Where its base centre goes (metres; `y` the height of what it stands on, 0 on
    /// the floor); without it the lab finds a clear spot on its floor.
    #[serde(default)]
    pub position: Option<[f32; 3]>,
    /// Its turn about the vertical, radians (default 0).
    #[serde(default)]
    pub heading: Option<f32>,
    /// Its name (letters, digits and `_`, at most [`MAX_OBJECT_NAME_CHARS`]); without
    /// it the lab names it after its owner, the item and a counter (`ana_ramp_1`).
    #[serde(default)]
    pub name: Option<String>,
}

/// Whether `name` is a name an object may be given: letters, digits and `_`, starting
/// with a letter, at most [`MAX_OBJECT_NAME_CHARS`]; else why not.
pub fn check_object_name(name: &str) -> Result<(), String> {
    let starts_with_letter = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    let word = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !starts_with_letter || !word || name.chars().count() > MAX_OBJECT_NAME_CHARS {
        return Err(format!(
            "an object's name is a letter then letters, digits and '_', at most {MAX_OBJECT_NAME_CHARS} characters; \
             got {name:?}"
        ));
    }
    Ok(())
}

/// `GET /api/palette`: the palette as the page reads it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PaletteEntry {
    /// See [`PaletteItem::id`].
    pub id: String,
    /// See [`PaletteItem::label`].
    pub label: String,
    /// See [`PaletteItem::fixed`].
    pub fixed: bool,
    /// See [`PaletteItem::about`].
    pub about: String,
}

impl From<&PaletteItem> for PaletteEntry {
    fn from(item: &PaletteItem) -> PaletteEntry {
        PaletteEntry { id: item.id.into(), label: item.label.into(), fixed: item.fixed, about: item.about.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_found_by_its_id_and_names_its_parts_after_the_object() {
        for item in &PALETTE {
            assert_eq!(PaletteItem::find(item.id), Some(item));
            let text = item.vlab("ana_x_1", [1.0, 0.0, 2.0], 0.5);
            assert!(text.contains("composed ana_x_1 {") && text.contains("pos(1, 0, 2)"), "{text}");
            assert!(!text.contains("{name}"), "{text}");
        }
        assert_eq!(PaletteItem::find("piano"), None);
    }

    #[test]
    fn names_are_plain_words() {
        assert!(check_object_name("ana_ramp_1").is_ok());
        assert!(check_object_name("1ramp").is_err());
        assert!(check_object_name("a b").is_err());
        assert!(check_object_name("").is_err());
        assert!(check_object_name(&"a".repeat(MAX_OBJECT_NAME_CHARS)).is_ok());
        assert!(check_object_name(&"a".repeat(MAX_OBJECT_NAME_CHARS + 1)).is_err());
    }
}
