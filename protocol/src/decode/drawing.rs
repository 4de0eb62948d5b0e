//! [`Drawing`] read by hand: `{"shape": "points", ...}`, the tag in any position, and
//! (as its serde attributes said) a field the shape does not take is refused.

use serde::{Deserialize, Deserializer};
use serde_json::{Error, Value};

use super::{Fields, to_error};
use crate::Drawing;

const VARIANTS: &[&str] = &["points", "lines", "text"];

impl<'de> Deserialize<'de> for Drawing {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read(Value::deserialize(deserializer)?).map_err(to_error)
    }
}

fn read(value: Value) -> Result<Drawing, Error> {
    let (tag, mut fields) = Fields::tagged(value, "shape", "internally tagged enum Drawing")?;
    let (drawing, expected): (Drawing, &'static [&'static str]) = match tag.as_str() {
        "points" => (
            Drawing::Points { points: fields.required("points")?, color: fields.required("color")? },
            &["points", "color"],
        ),
        "lines" => (
            Drawing::Lines { points: fields.required("points")?, color: fields.required("color")? },
            &["points", "color"],
        ),
        "text" => (
            Drawing::Text {
                at: fields.required("at")?,
                text: fields.required("text")?,
                color: fields.required("color")?,
            },
            &["at", "text", "color"],
        ),
        other => return Err(serde::de::Error::unknown_variant(other, VARIANTS)),
    };
    fields.deny_unknown(expected)?;
    Ok(drawing)
}

#[cfg(test)]
mod tests {
    use crate::Drawing;

    #[test]
    fn every_variant_reads_back_as_written() {
        let drawings = [
            Drawing::Points { points: vec![[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], color: "#ff0000".into() },
            Drawing::Lines { points: vec![[0.0; 3]; 3], color: "#00ff00".into() },
            Drawing::Text { at: [1.0, 2.0, 0.1], text: "goal".into(), color: "#ffffff".into() },
        ];
        assert_eq!(drawings.len(), super::VARIANTS.len());
        for drawing in drawings {
            let json = serde_json::to_string(&drawing).unwrap();
            assert!(json.starts_with(r#"{"shape":""#), "{json}");
            assert_eq!(serde_json::from_str::<Drawing>(&json).unwrap(), drawing, "{json}");
        }
    }

    #[test]
    fn the_tag_may_come_anywhere_but_unknown_fields_are_refused() {
        assert_eq!(
            serde_json::from_str::<Drawing>(r##"{"points":[],"color":"#000000","shape":"lines"}"##).unwrap(),
            Drawing::Lines { points: vec![], color: "#000000".into() }
        );
        let error = |json: &str| serde_json::from_str::<Drawing>(json).unwrap_err().to_string();
        assert!(
            error(r##"{"shape":"points","points":[],"color":"#000000","size":3}"##)
                .starts_with("unknown field `size`, expected `points` or `color`"),
            "{}",
            error(r##"{"shape":"points","points":[],"color":"#000000","size":3}"##)
        );
        assert!(
            error(r##"{"shape":"text","at":[0,0,0],"text":"x","color":"#000000","points":[]}"##)
                .starts_with("unknown field `points`, expected one of `at`, `text`, `color`")
        );
        assert!(error(r#"{"shape":"blob","points":[]}"#).starts_with("unknown variant `blob`"));
        assert!(error(r#"{"shape":"points","points":[]}"#).starts_with("missing field `color`"));
    }
}
