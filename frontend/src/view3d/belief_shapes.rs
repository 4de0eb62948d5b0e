//! A program's drawings and estimate in world space: dots, line segments and texts in their colours, and the marker that shows where the program thinks its robot is.
//!
//! Drawings come in ground coordinates (`x` along world X, `y` along world −Z, `z` the
//! height); the 3D view draws in world coordinates (Y up). A colour the lab let through
//! is `#rrggbb` or a name; anything else is drawn white rather than dropped, so a
//! program's drawing never silently vanishes.

use vlab_protocol::{Belief, Drawing, Estimate, drawing_color};

/// A colour as `[r, g, b]`.
pub type Rgb = [u8; 3];

/// A drawn text, anchored at a world point.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedText {
    /// World position.
    pub at: [f32; 3],
    /// What it says.
    pub text: String,
    /// `#rrggbb`, for the label's CSS.
    pub color: String,
}

/// Everything a belief draws, in world space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BeliefShapes {
    /// Dots: where and in which colour.
    pub dots: Vec<([f32; 3], Rgb)>,
    /// Line segments: from, to, colour.
    pub segments: Vec<([f32; 3], [f32; 3], Rgb)>,
    /// Texts.
    pub texts: Vec<PlacedText>,
}

/// A ground point `[x, y, z]` in world space.
pub fn ground_to_world([x, y, z]: [f32; 3]) -> [f32; 3] {
    [x, z, -y]
}

/// `#rrggbb` (or a colour name) as `[r, g, b]`; white when it is neither.
pub fn parse_rgb(color: &str) -> Rgb {
    let Some(hex) = drawing_color(color) else { return [255; 3] };
    let byte = |k: usize| u8::from_str_radix(&hex[1 + 2 * k..3 + 2 * k], 16).unwrap_or(255);
    [byte(0), byte(1), byte(2)]
}

/// The belief's drawings in world space. Non-finite points are skipped, and a line's
/// segment touching one with them.
pub fn belief_shapes(belief: &Belief) -> BeliefShapes {
    let finite = |p: &[f32; 3]| p.iter().all(|c| c.is_finite());
    let mut shapes = BeliefShapes::default();
    for drawing in &belief.drawings {
        match drawing {
            Drawing::Points { points, color } => {
                let rgb = parse_rgb(color);
                shapes.dots.extend(points.iter().filter(|p| finite(p)).map(|p| (ground_to_world(*p), rgb)));
            }
            Drawing::Lines { points, color } => {
                let rgb = parse_rgb(color);
                shapes.segments.extend(
                    points
                        .windows(2)
                        .filter(|pair| finite(&pair[0]) && finite(&pair[1]))
                        .map(|pair| (ground_to_world(pair[0]), ground_to_world(pair[1]), rgb)),
                );
            }
            Drawing::Text { at, text, color } if finite(at) => shapes.texts.push(PlacedText {
                at: ground_to_world(*at),
                text: text.clone(),
                color: drawing_color(color).unwrap_or_else(|| "#ffffff".to_owned()),
            }),
            Drawing::Text { .. } => {}
        }
    }
    shapes
}

/// The estimate on the ground at `height` metres, as a world point.
pub fn estimate_position(estimate: &Estimate, height: f32) -> [f32; 3] {
    ground_to_world([estimate.x as f32, estimate.y as f32, height])
}

/// A flat triangle `length` long pointing along the estimate's heading, at `height`:
/// tip first, then the two back corners, counter-clockwise seen from above.
pub fn estimate_marker(estimate: &Estimate, height: f32, length: f32) -> [[f32; 3]; 3] {
    let (sin, cos) = (estimate.theta as f32).sin_cos();
    let ground = |forward: f32, left: f32| {
        ground_to_world([
            estimate.x as f32 + forward * cos - left * sin,
            estimate.y as f32 + forward * sin + left * cos,
            height,
        ])
    };
    [ground(length * 0.6, 0.0), ground(-length * 0.4, length * 0.35), ground(-length * 0.4, -length * 0.35)]
}

/// How far the estimate is from the true position `world` (a world point), metres, on
/// the ground plane.
pub fn estimate_error(estimate: &Estimate, world: [f64; 3]) -> f64 {
    (estimate.x - world[0]).hypot(estimate.y + world[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn belief(drawings: Vec<Drawing>) -> Belief {
        Belief { robot: "cart".into(), step: 1, time: 0.5, estimate: None, drawings }
    }

    #[test]
    fn ground_y_is_world_minus_z_and_height_is_world_y() {
        assert_eq!(ground_to_world([1.0, 2.0, 0.5]), [1.0, 0.5, -2.0]);
    }

    #[test]
    fn colours_are_parsed_and_unknown_ones_are_white() {
        assert_eq!(parse_rgb("#ff8000"), [255, 128, 0]);
        assert_eq!(parse_rgb("red"), [0xe5, 0x39, 0x35]);
        assert_eq!(parse_rgb("nonsense"), [255, 255, 255]);
    }

    #[test]
    fn drawings_become_dots_segments_and_texts() {
        let shapes = belief_shapes(&belief(vec![
            Drawing::Points {
                points: vec![[1.0, 0.0, 0.0], [f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]],
                color: "#00ff00".into(),
            },
            Drawing::Lines { points: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]], color: "blue".into() },
            Drawing::Text { at: [0.0, 2.0, 0.3], text: "goal".into(), color: "#FFFFFF".into() },
        ]));
        assert_eq!(shapes.dots, vec![([1.0, 0.0, 0.0], [0, 255, 0]), ([0.0, 0.0, -1.0], [0, 255, 0])]);
        assert_eq!(shapes.segments.len(), 2);
        assert_eq!(shapes.segments[1].0, [1.0, 0.0, 0.0]);
        assert_eq!(shapes.segments[1].1, [1.0, 0.0, -1.0]);
        assert_eq!(
            shapes.texts,
            vec![PlacedText { at: [0.0, 0.3, -2.0], text: "goal".into(), color: "#ffffff".into() }]
        );
    }

    #[test]
    fn the_marker_points_along_theta() {
        let estimate = Estimate { x: 1.0, y: 2.0, theta: std::f64::consts::FRAC_PI_2 };
        let [tip, left, right] = estimate_marker(&estimate, 0.1, 1.0);
        // Heading π/2 is along ground +y, world −Z.
        assert!((tip[0] - 1.0).abs() < 1e-6 && (tip[2] + 2.6).abs() < 1e-6, "{tip:?}");
        assert!(tip.iter().chain(&left).chain(&right).all(|c| c.is_finite()));
        assert_eq!(tip[1], 0.1);
        // Counter-clockwise seen from above (+Y): the normal points up.
        let (a, b) = ([left[0] - tip[0], left[2] - tip[2]], [right[0] - tip[0], right[2] - tip[2]]);
        assert!(a[1] * b[0] - a[0] * b[1] > 0.0);
    }

    #[test]
    fn the_error_is_the_ground_distance_to_the_truth() {
        let estimate = Estimate { x: 3.0, y: 4.0, theta: 0.0 };
        assert_eq!(estimate_error(&estimate, [0.0, 0.2, 0.0]), 5.0);
        assert_eq!(estimate_error(&estimate, [3.0, 0.2, -4.0]), 0.0);
        assert_eq!(estimate_position(&estimate, 0.1), [3.0, 0.1, -4.0]);
    }
}
