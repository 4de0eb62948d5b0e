//! Showing what a program thinks: [`Robot::publish_estimate`], the drawing calls and
//! their [`Color`] and [`Style`], as Python's `robot.publish_estimate` and
//! `robot.draw_*` (`docs/programs.md`, "Showing what your program thinks").

use std::fmt;
use std::str::FromStr;

use crate::Robot;
use crate::ffi::{self, status};

/// The lab's drawing limits: points and line vertices, and texts, one control step may
/// draw (kept ones included), and the longest text drawn, in characters.
pub use vlab_protocol::{MAX_DRAWN_TEXT_CHARS, MAX_DRAWN_TEXTS, MAX_DRAWN_VERTICES};

/// A drawing's colour: one of the lab's named colours or any `#rrggbb`.
///
/// ```
/// use vlab_robot_sdk::Color;
///
/// assert_eq!("orange".parse::<Color>(), Ok(Color::ORANGE));
/// assert_eq!("#00FF7f".parse::<Color>(), Ok(Color::rgb(0, 255, 127)));
/// assert_eq!(Color::ORANGE.to_string(), "#fb8c00");
/// assert!("reddish".parse::<Color>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Color {
    /// Red, 0 to 255.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
}

impl Color {
    /// `red`.
    pub const RED: Color = Color::rgb(0xe5, 0x39, 0x35);
    /// `green`.
    pub const GREEN: Color = Color::rgb(0x43, 0xa0, 0x47);
    /// `blue`.
    pub const BLUE: Color = Color::rgb(0x1e, 0x88, 0xe5);
    /// `orange`.
    pub const ORANGE: Color = Color::rgb(0xfb, 0x8c, 0x00);
    /// `yellow`.
    pub const YELLOW: Color = Color::rgb(0xfd, 0xd8, 0x35);
    /// `purple`.
    pub const PURPLE: Color = Color::rgb(0x8e, 0x24, 0xaa);
    /// `cyan`.
    pub const CYAN: Color = Color::rgb(0x00, 0xac, 0xc1);
    /// `magenta`.
    pub const MAGENTA: Color = Color::rgb(0xd8, 0x1b, 0x60);
    /// `white`.
    pub const WHITE: Color = Color::rgb(0xff, 0xff, 0xff);
    /// `black`.
    pub const BLACK: Color = Color::rgb(0x00, 0x00, 0x00);
    /// `gray` (or `grey`).
    pub const GRAY: Color = Color::rgb(0x9e, 0x9e, 0x9e);

    /// The names Python's `color=` takes, with the same shades as the lab's.
    const NAMED: [(&'static str, Color); 12] = [
        ("red", Color::RED),
        ("green", Color::GREEN),
        ("blue", Color::BLUE),
        ("orange", Color::ORANGE),
        ("yellow", Color::YELLOW),
        ("purple", Color::PURPLE),
        ("cyan", Color::CYAN),
        ("magenta", Color::MAGENTA),
        ("white", Color::WHITE),
        ("black", Color::BLACK),
        ("gray", Color::GRAY),
        ("grey", Color::GRAY),
    ];

    /// A colour from its red, green and blue.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Color {
        Color { r, g, b }
    }

    /// This colour, for a drawing that stays until [`Robot::clear_drawings`].
    pub const fn kept(self) -> Style {
        Style { color: self, keep: true }
    }
}

/// `#rrggbb`, as the lab takes it.
impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }
}

/// A name (any case) or `#rrggbb`, as Python takes them.
impl FromStr for Color {
    type Err = ParseColorError;

    fn from_str(text: &str) -> Result<Color, ParseColorError> {
        let lower = text.trim().to_ascii_lowercase();
        if let Some((_, color)) = Color::NAMED.iter().find(|(name, _)| *name == lower) {
            return Ok(*color);
        }
        let hex = lower.strip_prefix('#').filter(|d| d.len() == 6 && d.bytes().all(|b| b.is_ascii_hexdigit()));
        let channel = |i: usize| hex.and_then(|d| u8::from_str_radix(&d[i..i + 2], 16).ok());
        match (channel(0), channel(2), channel(4)) {
            (Some(r), Some(g), Some(b)) => Ok(Color::rgb(r, g, b)),
            _ => Err(ParseColorError { text: text.to_owned() }),
        }
    }
}

/// A text that is neither a colour's name nor `#rrggbb`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseColorError {
    text: String,
}

impl fmt::Display for ParseColorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "colour {:?}: use #rrggbb or one of ", self.text)?;
        let names: Vec<&str> = Color::NAMED[..Color::NAMED.len() - 1].iter().map(|(name, _)| *name).collect();
        f.write_str(&names.join(", "))
    }
}

impl std::error::Error for ParseColorError {}

/// How a drawing looks and how long it stays: a [`Color`] alone draws for this step
/// (it shows until the program's next step), [`Color::kept`] until
/// [`Robot::clear_drawings`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Its colour.
    pub color: Color,
    /// Whether it stays until [`Robot::clear_drawings`] instead of this step only.
    pub keep: bool,
}

impl From<Color> for Style {
    fn from(color: Color) -> Style {
        Style { color, keep: false }
    }
}

impl Robot {
    /// Publishes where the program believes the robot is: `x`, `y` on the ground
    /// (metres, as an `Odometry` sensor reads them: x along world X, y along world
    /// −Z) and heading `theta` (radians). The page draws it, its trail and its error
    /// against the true pose, for the robot's owner and the instructor; it stays
    /// until the next one.
    ///
    /// # Panics
    /// When a number is not finite.
    #[track_caller]
    pub fn publish_estimate(&self, x: f64, y: f64, theta: f64) {
        check("publish_estimate", ffi::publish_estimate(x, y, theta));
    }

    /// Draws dots in the 3D view at `points`, each `[x, y, z]`: on the ground as
    /// [`Robot::publish_estimate`] has it, `z` metres up (Python puts 2D points at
    /// 0.05). They show until the program's next step (the drawings of the step
    /// before a [`Robot::wait`] stay up while it lasts) or, with [`Color::kept`],
    /// until [`Robot::clear_drawings`]:
    ///
    /// ```
    /// # use vlab_robot_sdk::{Color, Robot};
    /// # fn show(robot: &Robot, particles: &[[f64; 3]], landmarks: &[[f64; 3]]) {
    /// robot.draw_points(particles, Color::ORANGE); // this step
    /// robot.draw_points(landmarks, Color::MAGENTA.kept()); // until clear_drawings()
    /// # }
    /// ```
    ///
    /// # Panics
    /// When a coordinate is not finite, or past the step's budget:
    /// [`MAX_DRAWN_VERTICES`] points and line vertices, kept ones included.
    #[track_caller]
    pub fn draw_points(&self, points: &[[f64; 3]], style: impl Into<Style>) {
        let style = style.into();
        check("draw_points", ffi::draw_points(points, &style.color.to_string(), style.keep));
    }

    /// Draws a line through `points` (two or more), as [`Robot::draw_points`] takes
    /// them.
    ///
    /// # Panics
    /// As [`Robot::draw_points`], and for fewer than two points.
    #[track_caller]
    pub fn draw_lines(&self, points: &[[f64; 3]], style: impl Into<Style>) {
        let style = style.into();
        check("draw_lines", ffi::draw_lines(points, &style.color.to_string(), style.keep));
    }

    /// Writes `text` (cut at [`MAX_DRAWN_TEXT_CHARS`] characters) at `at`, `[x, y, z]`
    /// (Python's default height is 0.3).
    ///
    /// # Panics
    /// When a coordinate is not finite, or past [`MAX_DRAWN_TEXTS`] texts in the step.
    #[track_caller]
    pub fn draw_text(&self, at: [f64; 3], text: &str, style: impl Into<Style>) {
        let style = style.into();
        check("draw_text", ffi::draw_text(at, text, &style.color.to_string(), style.keep));
    }

    /// Removes every drawing, kept ones included.
    pub fn clear_drawings(&self) {
        ffi::clear_drawings();
    }
}

/// Panics with what was wrong when the lab refused a call, as Python's `VlabError`.
#[track_caller]
fn check(method: &str, answer: i32) {
    match answer {
        status::OK => {}
        status::NOT_FINITE => panic!("{method}: every number must be finite"),
        status::OVER_BUDGET => panic!(
            "{method}: a step may draw at most {MAX_DRAWN_VERTICES} points and line vertices and {MAX_DRAWN_TEXTS} \
             texts (kept ones included)"
        ),
        status::TOO_FEW_POINTS => panic!("{method} needs at least two points"),
        status::BAD_COLOR => panic!("{method}: the lab refused the colour"),
        other => panic!("{method} failed ({other})"),
    }
}
