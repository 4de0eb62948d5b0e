//! The built-in material palette: named looks a scene can refer to.

use super::Material;

/// Named materials. Unknown names fall back to a neutral grey (the scene language
/// reports a warning for them).
#[derive(Clone, Debug)]
pub struct Palette {
    entries: Vec<Material>,
}

impl Default for Palette {
    fn default() -> Self {
        let m = |name: &str, color: [u8; 4], roughness: f32, metallic: f32| Material {
            name: name.to_owned(),
            color,
            roughness,
            metallic,
        };
        Palette {
            entries: vec![
                m("Grey", [160, 160, 160, 255], 0.7, 0.0),
                m("Black", [12, 12, 14, 255], 0.9, 0.0),
                m("White", [240, 240, 240, 255], 0.8, 0.0),
                m("RedStripes", [196, 72, 64, 255], 0.85, 0.0),
                m("Tiles", [118, 122, 128, 255], 0.85, 0.0),
                m("Pattern", [196, 186, 164, 255], 0.9, 0.0),
                m("Red", [200, 52, 44, 255], 0.5, 0.0),
                m("Orange", [232, 132, 36, 255], 0.5, 0.0),
                m("Yellow", [232, 196, 40, 255], 0.5, 0.0),
                m("Green", [64, 164, 80, 255], 0.5, 0.0),
                m("Blue", [48, 104, 200, 255], 0.5, 0.0),
                m("Purple", [128, 72, 176, 255], 0.5, 0.0),
                m("Wood", [156, 110, 64, 255], 0.8, 0.0),
                m("Steel", [176, 180, 188, 255], 0.35, 1.0),
                m("Rubber", [28, 28, 30, 255], 0.95, 0.0),
                m("RobotWhite", [236, 236, 232, 255], 0.4, 0.0),
            ],
        }
    }
}

impl Palette {
    /// The material called `name`, or the neutral grey.
    pub fn get(&self, name: &str) -> Material {
        self.lookup(name).unwrap_or_else(|| self.entries[0].clone())
    }

    /// The material called `name` (case-insensitive), if the palette has it.
    pub fn lookup(&self, name: &str) -> Option<Material> {
        self.entries.iter().find(|m| m.name.eq_ignore_ascii_case(name)).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_case_insensitive_and_unknown_names_fall_back() {
        let palette = Palette::default();
        assert_eq!(palette.get("steel").name, "Steel");
        assert!(palette.lookup("Unobtainium").is_none());
        assert_eq!(palette.get("Unobtainium").name, "Grey");
    }
}
