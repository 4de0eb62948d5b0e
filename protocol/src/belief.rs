//! What a robot's program believes and shows: its estimate of its own pose and what it
//! draws in the shared 3D view (particles, a planned path, a label). Programs publish
//! them; the lab keeps the latest and sends them to the pages watching the robot that
//! may see them (its owner and the instructor, or everybody when the instructor shares
//! them).
//!
//! Positions are on the ground plane as a [`crate::SensorValue::Pose2d`] has them (`x`
//! along world X, `y` along world −Z), with a height `z` above world 0 (world Y).

use serde::{Deserialize, Serialize};

/// The most points and line vertices a robot's drawings hold at once (kept and not).
pub const MAX_DRAWN_VERTICES: usize = 4000;
/// The most texts a robot's drawings hold at once.
pub const MAX_DRAWN_TEXTS: usize = 32;
/// The longest text drawn, in characters.
pub const MAX_DRAWN_TEXT_CHARS: usize = 80;

/// A program's estimate of its robot's pose on the ground plane.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Metres along world X.
    pub x: f64,
    /// Metres along world −Z.
    pub y: f64,
    /// Heading, radians (as [`crate::RobotPose::heading`]).
    pub theta: f64,
}

/// One thing a program draws. Read by hand (`crate::decode`), without serde's
/// buffering of tagged enums; a field its shape does not take is refused.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum Drawing {
    /// Dots.
    Points {
        /// `[x, y, z]` each.
        points: Vec<[f32; 3]>,
        /// `#rrggbb`.
        color: String,
    },
    /// A polyline through its points.
    Lines {
        /// `[x, y, z]` each, in order.
        points: Vec<[f32; 3]>,
        /// `#rrggbb`.
        color: String,
    },
    /// A text at a point.
    Text {
        /// `[x, y, z]`.
        at: [f32; 3],
        /// At most [`MAX_DRAWN_TEXT_CHARS`] characters.
        text: String,
        /// `#rrggbb`.
        color: String,
    },
}

impl Drawing {
    /// Points or line vertices it holds.
    pub fn vertices(&self) -> usize {
        match self {
            Drawing::Points { points, .. } | Drawing::Lines { points, .. } => points.len(),
            Drawing::Text { .. } => 0,
        }
    }
}

/// A robot's belief as pages get it: `ServerMsg::Belief`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Belief {
    /// The robot.
    pub robot: String,
    /// The lab's step of the program's latest answer.
    pub step: u64,
    /// Simulation time then, seconds.
    pub time: f64,
    /// The latest estimate its program published (`None`: none yet).
    pub estimate: Option<Estimate>,
    /// What it draws now: the kept drawings, then those of its latest step.
    pub drawings: Vec<Drawing>,
}

/// A colour as drawings carry it: `#rrggbb`, from that form or a name (`red`, ...).
pub fn drawing_color(color: &str) -> Option<String> {
    const NAMED: [(&str, &str); 12] = [
        ("red", "#e53935"),
        ("green", "#43a047"),
        ("blue", "#1e88e5"),
        ("orange", "#fb8c00"),
        ("yellow", "#fdd835"),
        ("purple", "#8e24aa"),
        ("cyan", "#00acc1"),
        ("magenta", "#d81b60"),
        ("white", "#ffffff"),
        ("black", "#000000"),
        ("gray", "#9e9e9e"),
        ("grey", "#9e9e9e"),
    ];
    let lower = color.trim().to_ascii_lowercase();
    if let Some((_, hex)) = NAMED.iter().find(|(name, _)| *name == lower) {
        return Some((*hex).to_owned());
    }
    let digits = lower.strip_prefix('#')?;
    (digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_hexdigit())).then_some(lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colors_are_names_or_six_hex_digits() {
        assert_eq!(drawing_color("Red").as_deref(), Some("#e53935"));
        assert_eq!(drawing_color("#00FF7f").as_deref(), Some("#00ff7f"));
        for bad in ["", "#fff", "#12345g", "rgb(1,2,3)", "reddish", "#1234567"] {
            assert_eq!(drawing_color(bad), None, "{bad}");
        }
    }

    #[test]
    fn drawings_travel_as_tagged_json() {
        let drawing = Drawing::Text { at: [1.0, 2.0, 0.1], text: "goal".into(), color: "#ffffff".into() };
        let json = serde_json::to_string(&drawing).unwrap();
        assert_eq!(json, r##"{"shape":"text","at":[1.0,2.0,0.1],"text":"goal","color":"#ffffff"}"##);
        assert_eq!(serde_json::from_str::<Drawing>(&json).unwrap(), drawing);
        assert!(serde_json::from_str::<Drawing>(r#"{"shape":"blob","points":[]}"#).is_err());
        assert_eq!(Drawing::Lines { points: vec![[0.0; 3]; 3], color: "#000000".into() }.vertices(), 3);
    }
}
