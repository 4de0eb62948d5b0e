//! [`Sketch`]: what a module published about its belief during one control step (its
//! estimate, the drawings of the step and those it keeps, a clear, a hold), checked
//! call by call against the step's drawing cap as Python's `vlab` checks it, and
//! handed to the lab as the [`BeliefUpdate`] of the step's answer.

use thiserror::Error;
use vlab_protocol::{Drawing, Estimate, MAX_DRAWN_TEXT_CHARS, drawing_color};

use super::abi::Status;
use crate::BeliefUpdate;

/// Why a drawing import refused a call; its text is the console line the module's
/// owner reads, as the `VlabError` a Python program gets for the same call.
#[derive(Debug, Error, PartialEq)]
pub(super) enum Refusal {
    /// A number that is NaN or infinite (or too large for a drawing's `f32`).
    #[error("{function}: every number must be finite")]
    NotFinite {
        /// The import called.
        function: &'static str,
    },
    /// A colour the lab does not know.
    #[error(
        "{function}: colour {color:?}: use #rrggbb or one of red, green, blue, orange, yellow, purple, cyan, \
         magenta, white, black, gray"
    )]
    BadColor {
        /// The import called.
        function: &'static str,
        /// What it was given.
        color: String,
    },
    /// Past the step's cap of points and line vertices.
    #[error(
        "{function}: a step may draw at most {cap} points and line vertices (kept ones included); \
         this one has {drawn} and adds {adding}"
    )]
    TooManyVertices {
        /// The import called.
        function: &'static str,
        /// The cap.
        cap: usize,
        /// Drawn so far in the step.
        drawn: usize,
        /// What the call would add.
        adding: usize,
    },
    /// Past the step's cap of texts.
    #[error("draw_text: a step may draw at most {cap} texts (kept ones included)")]
    TooManyTexts {
        /// The cap.
        cap: usize,
    },
    /// A line through fewer than two points.
    #[error("draw_lines needs at least two points")]
    TooFewPoints,
}

impl Refusal {
    /// What the import answers.
    pub fn status(&self) -> Status {
        match self {
            Refusal::NotFinite { .. } => Status::NotFinite,
            Refusal::BadColor { .. } => Status::BadColor,
            Refusal::TooManyVertices { .. } | Refusal::TooManyTexts { .. } => Status::OverBudget,
            Refusal::TooFewPoints => Status::TooFewPoints,
        }
    }
}

/// What `draw_points` and `draw_lines` draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// Dots.
    Points,
    /// A polyline.
    Lines,
}

impl Shape {
    /// The import that draws it.
    pub fn function(self) -> &'static str {
        match self {
            Shape::Points => "draw_points",
            Shape::Lines => "draw_lines",
        }
    }
}

/// What a module published since its last answer.
#[derive(Debug, Default)]
pub(super) struct Sketch {
    estimate: Option<Estimate>,
    clear: bool,
    keep: Vec<Drawing>,
    drawn: Vec<Drawing>,
    /// Whether the step's drawings are due: anything drawn (not kept) or cleared. A
    /// step that drew nothing still replaces the previous step's with none, unless
    /// it held them.
    touched: bool,
    /// `hold_drawings` was called: a waiting program leaves the previous step's up.
    held: bool,
    /// Points and line vertices, and texts, drawn in the step (kept ones included).
    vertices: usize,
    texts: usize,
    /// The step's caps.
    vertex_cap: usize,
    text_cap: usize,
}

impl Sketch {
    /// An empty sketch under the caps of a step.
    pub fn new(vertex_cap: usize, text_cap: usize) -> Sketch {
        Sketch { vertex_cap, text_cap, ..Sketch::default() }
    }

    /// The estimate to send, replacing any published earlier in the step.
    pub fn publish_estimate(&mut self, x: f64, y: f64, theta: f64) -> Result<(), Refusal> {
        if ![x, y, theta].iter().all(|v| v.is_finite()) {
            return Err(Refusal::NotFinite { function: "publish_estimate" });
        }
        self.estimate = Some(Estimate { x, y, theta });
        Ok(())
    }

    /// Checks that `adding` more vertices fit in the step before the points are read
    /// out of the module's memory, so a huge count costs nothing.
    pub fn check_vertices(&self, shape: Shape, adding: usize) -> Result<(), Refusal> {
        if self.vertices.saturating_add(adding) > self.vertex_cap {
            let (cap, drawn, function) = (self.vertex_cap, self.vertices, shape.function());
            return Err(Refusal::TooManyVertices { function, cap, drawn, adding });
        }
        Ok(())
    }

    /// Adds dots or a polyline through `points` in `color` (a name or `#rrggbb`), to
    /// the step's drawings or, with `keep`, to the kept ones.
    pub fn draw(&mut self, shape: Shape, points: &[[f64; 3]], color: &str, keep: bool) -> Result<(), Refusal> {
        let function = shape.function();
        let points = points.iter().map(|p| to_f32(p, function)).collect::<Result<Vec<_>, _>>()?;
        if shape == Shape::Lines && points.len() < 2 {
            return Err(Refusal::TooFewPoints);
        }
        let color = checked_color(function, color)?;
        self.check_vertices(shape, points.len())?;
        self.vertices += points.len();
        self.add(
            match shape {
                Shape::Points => Drawing::Points { points, color },
                Shape::Lines => Drawing::Lines { points, color },
            },
            keep,
        );
        Ok(())
    }

    /// Adds `text` (cut at `MAX_DRAWN_TEXT_CHARS` characters) at `at`.
    pub fn draw_text(&mut self, at: [f64; 3], text: &str, color: &str, keep: bool) -> Result<(), Refusal> {
        let at = to_f32(&at, "draw_text")?;
        let color = checked_color("draw_text", color)?;
        if self.texts >= self.text_cap {
            return Err(Refusal::TooManyTexts { cap: self.text_cap });
        }
        self.texts += 1;
        let text = text.chars().take(MAX_DRAWN_TEXT_CHARS).collect();
        self.add(Drawing::Text { at, text, color }, keep);
        Ok(())
    }

    /// Forgets every drawing, kept ones included, and what the step drew so far.
    pub fn clear(&mut self) {
        self.clear = true;
        self.keep.clear();
        self.drawn.clear();
        self.touched = true;
        self.vertices = 0;
        self.texts = 0;
    }

    /// Leaves the previous step's drawings up (unless the step draws or clears).
    pub fn hold(&mut self) {
        self.held = true;
    }

    /// The step's update for the lab; the sketch starts the next step empty.
    pub fn take(&mut self) -> BeliefUpdate {
        let taken = std::mem::replace(self, Sketch::new(self.vertex_cap, self.text_cap));
        let due = taken.touched || !taken.held;
        BeliefUpdate {
            estimate: taken.estimate,
            clear: taken.clear,
            keep: taken.keep,
            drawings: due.then_some(taken.drawn),
        }
    }

    fn add(&mut self, drawing: Drawing, keep: bool) {
        if keep {
            self.keep.push(drawing);
        } else {
            self.touched = true;
            self.drawn.push(drawing);
        }
    }
}

/// A point as drawings carry it, if every coordinate stays finite in `f32`.
fn to_f32(point: &[f64; 3], function: &'static str) -> Result<[f32; 3], Refusal> {
    let narrow = point.map(|v| v as f32);
    narrow.iter().all(|v| v.is_finite()).then_some(narrow).ok_or(Refusal::NotFinite { function })
}

fn checked_color(function: &'static str, color: &str) -> Result<String, Refusal> {
    drawing_color(color).ok_or_else(|| Refusal::BadColor { function, color: color.to_owned() })
}

#[cfg(test)]
mod tests {
    use vlab_protocol::{MAX_DRAWN_TEXTS, MAX_DRAWN_VERTICES};

    use super::*;

    fn sketch() -> Sketch {
        Sketch::new(MAX_DRAWN_VERTICES, MAX_DRAWN_TEXTS)
    }

    #[test]
    fn a_step_s_drawings_replace_the_last_unless_held_and_kept_ones_are_sent_once() {
        let mut sketch = sketch();
        sketch.draw(Shape::Points, &[[1.0, 2.0, 0.05]], "orange", false).unwrap();
        sketch.draw_text([0.0, 0.0, 0.3], "start", "Yellow", true).unwrap();
        sketch.publish_estimate(1.5, -2.0, 0.25).unwrap();
        let update = sketch.take();
        assert_eq!(update.estimate, Some(Estimate { x: 1.5, y: -2.0, theta: 0.25 }));
        assert_eq!(update.keep, [Drawing::Text { at: [0.0, 0.0, 0.3], text: "start".into(), color: "#fdd835".into() }]);
        assert_eq!(
            update.drawings,
            Some(vec![Drawing::Points { points: vec![[1.0, 2.0, 0.05]], color: "#fb8c00".into() }])
        );

        let quiet = sketch.take();
        assert_eq!((quiet.estimate, quiet.keep.len()), (None, 0), "the estimate stays as it was: not resent");
        assert_eq!(quiet.drawings, Some(vec![]), "a step that draws nothing replaces the last with nothing");

        sketch.hold();
        assert!(sketch.take().is_empty(), "a held step changes nothing");
        sketch.hold();
        line(&mut sketch);
        assert_eq!(sketch.take().drawings.map(|d| d.len()), Some(1), "drawing in a held step replaces anyway");
    }

    fn line(sketch: &mut Sketch) {
        sketch.draw(Shape::Lines, &[[0.0; 3], [1.0, 0.0, 0.0]], "#00FF00", false).unwrap();
    }

    #[test]
    fn a_clear_forgets_what_the_step_drew_and_kept_and_is_due() {
        let mut sketch = sketch();
        sketch.draw(Shape::Points, &[[0.0; 3]; 10], "red", true).unwrap();
        sketch.hold();
        sketch.clear();
        line(&mut sketch);
        let update = sketch.take();
        assert!(update.clear && update.keep.is_empty());
        assert_eq!(update.drawings.map(|d| d.len()), Some(1), "drawn after the clear");
    }

    #[test]
    fn the_step_s_cap_counts_kept_drawings_and_refuses_the_call_past_it() {
        let mut sketch = Sketch::new(5, 1);
        sketch.draw(Shape::Points, &[[0.0; 3]; 3], "red", true).unwrap();
        let refused = sketch.draw(Shape::Lines, &[[0.0; 3]; 3], "red", false).unwrap_err();
        assert_eq!(refused, Refusal::TooManyVertices { function: "draw_lines", cap: 5, drawn: 3, adding: 3 });
        assert_eq!(refused.status(), Status::OverBudget);
        assert_eq!(
            refused.to_string(),
            "draw_lines: a step may draw at most 5 points and line vertices (kept ones included); this one has 3 \
             and adds 3"
        );
        sketch.draw(Shape::Points, &[[0.0; 3]; 2], "red", false).unwrap();
        sketch.draw_text([0.0; 3], "a", "white", false).unwrap();
        assert_eq!(sketch.draw_text([0.0; 3], "b", "white", false).unwrap_err().status(), Status::OverBudget);
        let update = sketch.take();
        assert_eq!((update.keep.len(), update.drawings.map(|d| d.len())), (1, Some(2)), "refused calls drew nothing");
        sketch.draw(Shape::Points, &[[0.0; 3]; 5], "red", false).unwrap();
        assert!(sketch.check_vertices(Shape::Points, 1).is_err());
        sketch.clear();
        assert!(sketch.check_vertices(Shape::Points, 5).is_ok(), "a clear starts the count again, as in Python");
    }

    #[test]
    fn bad_numbers_colours_and_short_lines_are_refused_and_texts_cut() {
        let mut sketch = sketch();
        let nan = sketch.publish_estimate(f64::NAN, 0.0, 0.0).unwrap_err();
        assert_eq!(nan.status(), Status::NotFinite);
        let huge = sketch.draw(Shape::Points, &[[1e300, 0.0, 0.0]], "red", false).unwrap_err();
        assert_eq!(huge, Refusal::NotFinite { function: "draw_points" }, "too large for the drawing's f32");
        let colour = sketch.draw_text([0.0; 3], "x", "reddish", false).unwrap_err();
        assert_eq!(colour.status(), Status::BadColor);
        assert!(colour.to_string().starts_with("draw_text: colour \"reddish\": use #rrggbb or one of red"));
        let short = sketch.draw(Shape::Lines, &[[0.0; 3]], "red", false).unwrap_err();
        assert_eq!(
            (short.status(), short.to_string().as_str()),
            (Status::TooFewPoints, "draw_lines needs at least two points")
        );
        sketch.draw_text([0.0; 3], &"é".repeat(200), "white", false).unwrap();
        let Some(drawings) = sketch.take().drawings else { panic!("drawn") };
        let [Drawing::Text { text, .. }] = drawings.as_slice() else { panic!("{drawings:?}") };
        assert_eq!(text.chars().count(), MAX_DRAWN_TEXT_CHARS);
    }
}
