//! The material library: named looks a scene can refer to, read from
//! `assets/materials.json` (embedded at compile time, so the language needs no files
//! and still runs in a browser).

use serde::Deserialize;

use super::Material;

/// The library's JSON, as shipped in `assets/`.
const LIBRARY_JSON: &str = include_str!("../../../../assets/materials.json");

/// Named materials. Unknown names fall back to the library's first entry, a neutral
/// grey (the scene language reports a warning for them).
///
/// # Invariants
/// Never empty; names are unique ignoring ASCII case.
#[derive(Clone, Debug)]
pub struct Palette {
    entries: Vec<Material>,
}

/// Why a material library could not be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LibraryError {
    /// Not the expected JSON.
    #[error("the material library is not valid: {0}")]
    Json(String),
    /// No material at all.
    #[error("the material library is empty")]
    Empty,
    /// Two entries share a name (ignoring case).
    #[error("the material '{0}' is defined twice")]
    Duplicate(String),
    /// A value out of range.
    #[error("the material '{0}': {1}")]
    Invalid(String, String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LibraryFile {
    #[serde(rename = "_comment", default)]
    _comment: Option<String>,
    materials: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: String,
    color: [u8; 4],
    roughness: f32,
    metallic: f32,
    #[serde(default)]
    texture: Option<String>,
    #[serde(default)]
    transparent: bool,
}

impl Default for Palette {
    /// The library shipped in `assets/materials.json` (parsed once per process).
    fn default() -> Self {
        static SHIPPED: std::sync::OnceLock<Palette> = std::sync::OnceLock::new();
        SHIPPED
            .get_or_init(|| {
                Palette::from_json(LIBRARY_JSON).expect("assets/materials.json is a valid material library")
            })
            .clone()
    }
}

impl Palette {
    /// A library from its JSON text (`{"materials": [{"name", "color": [r,g,b,a],
    /// "roughness", "metallic", "texture"?, "transparent"?}, ...]}`). Texture names are
    /// files under `assets/textures/`; the model keeps them as `textures/<file>`.
    pub fn from_json(text: &str) -> Result<Palette, LibraryError> {
        let file: LibraryFile = serde_json::from_str(text).map_err(|e| LibraryError::Json(e.to_string()))?;
        let mut entries: Vec<Material> = Vec::with_capacity(file.materials.len());
        for e in file.materials {
            if entries.iter().any(|m| m.name.eq_ignore_ascii_case(&e.name)) {
                return Err(LibraryError::Duplicate(e.name));
            }
            if !(0.0..=1.0).contains(&e.roughness) || !(0.0..=1.0).contains(&e.metallic) {
                return Err(LibraryError::Invalid(e.name, "roughness and metallic must be in 0..1".into()));
            }
            if let Some(t) = &e.texture
                && (t.is_empty() || t.starts_with('/') || t.contains("..") || t.contains('\\'))
            {
                return Err(LibraryError::Invalid(
                    e.name,
                    format!("the texture '{t}' must be a file in assets/textures/"),
                ));
            }
            if e.transparent && e.color[3] == 255 {
                return Err(LibraryError::Invalid(e.name, "a transparent material needs an alpha below 255".into()));
            }
            entries.push(Material {
                name: e.name,
                color: e.color,
                roughness: e.roughness,
                metallic: e.metallic,
                texture: e.texture.map(|t| format!("textures/{t}")),
                transparent: e.transparent,
            });
        }
        if entries.is_empty() {
            return Err(LibraryError::Empty);
        }
        Ok(Palette { entries })
    }

    /// The material called `name`, or the fallback (the library's first entry).
    pub fn get(&self, name: &str) -> Material {
        self.lookup(name).unwrap_or_else(|| self.entries[0].clone())
    }

    /// The material called `name` (case-insensitive), if the palette has it.
    pub fn lookup(&self, name: &str) -> Option<Material> {
        self.entries.iter().find(|m| m.name.eq_ignore_ascii_case(name)).cloned()
    }

    /// Every material, in library order.
    pub fn iter(&self) -> impl Iterator<Item = &Material> {
        self.entries.iter()
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

    #[test]
    fn the_shipped_library_has_the_names_scenes_use() {
        let palette = Palette::default();
        for name in ["Grey", "Black", "White", "Tiles", "Pattern", "RedStripes", "Wood", "Steel", "Glass"] {
            assert!(palette.lookup(name).is_some(), "{name} missing");
        }
        let glass = palette.get("glass");
        assert!(glass.transparent && glass.color[3] < 255);
        assert_eq!(palette.get("Tiles").texture.as_deref(), Some("textures/tiles.png"));
        assert!(palette.iter().filter(|m| m.texture.is_some()).count() >= 2);
        assert!(palette.get("Red").texture.is_none() && !palette.get("Red").transparent);
    }

    #[test]
    fn the_materials_vlab_scenes_name_are_in_the_library_as_vlab_wrote_them() {
        let palette = Palette::default();
        let pictures = [
            "Legno",
            "Piastrelle2",
            "Pattern2",
            "MuroRigheRosso",
            "Test2D",
            "Schema",
            "BasePiattaforma",
            "AttenzioneRobot",
        ];
        for name in pictures {
            let material = palette.lookup(name).unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(material.name, name, "written as VLAB wrote it");
            assert!(material.texture.is_some(), "{name} has a picture");
        }
        let red50 = palette.get("Red50");
        assert_eq!((red50.name.as_str(), red50.color[3], red50.transparent), ("Red50", 128, true));
        assert_eq!(palette.get("Black").name, "Black");
    }

    #[test]
    fn every_texture_the_library_names_is_a_file_of_the_assets() {
        let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets");
        for material in Palette::default().iter() {
            if let Some(texture) = &material.texture {
                assert!(assets.join(texture).is_file(), "{}: assets/{texture} is missing", material.name);
            }
        }
    }

    #[test]
    fn bad_libraries_are_refused() {
        let one = |extra: &str| {
            format!(r#"{{"materials":[{{"name":"A","color":[1,2,3,255],"roughness":0.5,"metallic":0{extra}}}]}}"#)
        };
        assert!(Palette::from_json(&one("")).is_ok());
        assert!(matches!(Palette::from_json(r#"{"materials":[]}"#), Err(LibraryError::Empty)));
        assert!(matches!(Palette::from_json(&one(r#","texture":"../x.png""#)), Err(LibraryError::Invalid(..))));
        assert!(matches!(Palette::from_json(&one(r#","transparent":true"#)), Err(LibraryError::Invalid(..))));
        assert!(matches!(Palette::from_json(&one(r#","shiny":1"#)), Err(LibraryError::Json(_))));
        let twice = r#"{"materials":[{"name":"A","color":[1,2,3,255],"roughness":0.5,"metallic":0},
                                      {"name":"a","color":[1,2,3,255],"roughness":0.5,"metallic":0}]}"#;
        assert!(matches!(Palette::from_json(twice), Err(LibraryError::Duplicate(_))));
    }
}
