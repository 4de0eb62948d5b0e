//! The [`super::FakeLab`]'s record of what a program believes and draws: the drawing
//! imports answered as the lab answers them (same budget, same codes), and the view
//! as the lab shows it after each step.

use crate::ffi::status;
use crate::{Color, MAX_DRAWN_TEXT_CHARS, MAX_DRAWN_TEXTS, MAX_DRAWN_VERTICES};

/// One thing a program drew, as the view shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum Drawing {
    /// Dots.
    Points {
        /// `[x, y, z]` each.
        points: Vec<[f64; 3]>,
        /// Its colour.
        color: Color,
    },
    /// A polyline.
    Lines {
        /// `[x, y, z]` each, in order.
        points: Vec<[f64; 3]>,
        /// Its colour.
        color: Color,
    },
    /// A text.
    Text {
        /// `[x, y, z]`.
        at: [f64; 3],
        /// At most [`MAX_DRAWN_TEXT_CHARS`] characters.
        text: String,
        /// Its colour.
        color: Color,
    },
}

/// The estimate, the drawings kept and shown, and the step's own so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct FakeBelief {
    pub estimate: Option<[f64; 3]>,
    kept: Vec<Drawing>,
    /// The latest answered step's.
    shown: Vec<Drawing>,
    /// This step's, not kept.
    step: Vec<Drawing>,
    /// Whether this step drew (not kept) or cleared.
    touched: bool,
    /// Whether the SDK asked to leave the drawings up (a waiting program).
    held: bool,
    vertices: usize,
    texts: usize,
}

impl FakeBelief {
    pub fn publish_estimate(&mut self, x: f64, y: f64, theta: f64) -> i32 {
        if ![x, y, theta].iter().all(|v| v.is_finite()) {
            return status::NOT_FINITE;
        }
        self.estimate = Some([x, y, theta]);
        status::OK
    }

    pub fn draw(&mut self, lines: bool, points: &[[f64; 3]], color: &str, keep: bool) -> i32 {
        if !points.iter().flatten().all(|v| v.is_finite()) {
            return status::NOT_FINITE;
        }
        if lines && points.len() < 2 {
            return status::TOO_FEW_POINTS;
        }
        let Ok(color) = color.parse::<Color>() else { return status::BAD_COLOR };
        if self.vertices + points.len() > MAX_DRAWN_VERTICES {
            return status::OVER_BUDGET;
        }
        self.vertices += points.len();
        let points = points.to_vec();
        self.add(if lines { Drawing::Lines { points, color } } else { Drawing::Points { points, color } }, keep);
        status::OK
    }

    pub fn draw_text(&mut self, at: [f64; 3], text: &str, color: &str, keep: bool) -> i32 {
        if !at.iter().all(|v| v.is_finite()) {
            return status::NOT_FINITE;
        }
        let Ok(color) = color.parse::<Color>() else { return status::BAD_COLOR };
        if self.texts == MAX_DRAWN_TEXTS {
            return status::OVER_BUDGET;
        }
        self.texts += 1;
        let text = text.chars().take(MAX_DRAWN_TEXT_CHARS).collect();
        self.add(Drawing::Text { at, text, color }, keep);
        status::OK
    }

    pub fn clear(&mut self) {
        self.kept.clear();
        self.step.clear();
        self.touched = true;
        self.vertices = 0;
        self.texts = 0;
    }

    pub fn hold(&mut self) {
        self.held = true;
    }

    /// The end of a step, as the lab's answer: the step's drawings replace those
    /// shown, unless it held them and drew nothing.
    pub fn answer(&mut self) {
        let step = std::mem::take(&mut self.step);
        if self.touched || !self.held {
            self.shown = step;
        }
        (self.touched, self.held, self.vertices, self.texts) = (false, false, 0, 0);
    }

    pub fn drawings(&self) -> Vec<Drawing> {
        self.kept.iter().chain(&self.shown).cloned().collect()
    }

    fn add(&mut self, drawing: Drawing, keep: bool) {
        if keep {
            self.kept.push(drawing);
        } else {
            self.touched = true;
            self.step.push(drawing);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::FakeLab;
    use crate::{Robot, RobotProgram};

    /// Publishes its step as an estimate; draws a dot per step, a line once kept, a
    /// text, and waits 0.1 s at step 3; clears at step 8.
    #[derive(Default)]
    struct Mapper {
        steps: u32,
    }

    impl RobotProgram for Mapper {
        fn pre_step(&mut self, robot: &mut Robot) {
            self.steps += 1;
            let n = f64::from(self.steps);
            robot.publish_estimate(n, -n, 0.5);
            robot.draw_points(&[[n, 0.0, 0.05]], Color::ORANGE);
            if self.steps == 1 {
                robot.draw_lines(&[[0.0; 3], [1.0, 0.0, 0.0]], Color::CYAN.kept());
                robot.draw_text([0.0, 0.0, 0.3], &"x".repeat(100), "#FFFFFF".parse::<Color>().unwrap());
            }
            if self.steps == 3 {
                robot.wait(0.1);
            }
            if self.steps == 8 {
                robot.clear_drawings();
            }
        }
    }

    fn step(program: &mut Mapper) {
        FakeLab::with(FakeLab::advance);
        FakeLab::post_step(program);
        FakeLab::pre_step(program);
    }

    fn dots(lab: &FakeLab) -> Vec<f64> {
        let drawings = lab.drawings();
        drawings
            .iter()
            .filter_map(|d| if let Drawing::Points { points, .. } = d { Some(points[0][0]) } else { None })
            .collect()
    }

    #[test]
    fn a_step_replaces_the_last_one_s_drawings_a_wait_keeps_them_and_a_clear_forgets_all() {
        FakeLab::new().install();
        let mut mapper = Mapper::default();
        FakeLab::pre_step(&mut mapper);
        let first = FakeLab::with(|lab| lab.drawings());
        assert_eq!(first[0], Drawing::Lines { points: vec![[0.0; 3], [1.0, 0.0, 0.0]], color: Color::CYAN });
        assert_eq!(first[1], Drawing::Points { points: vec![[1.0, 0.0, 0.05]], color: Color::ORANGE });
        let Drawing::Text { text, color, .. } = &first[2] else { panic!("{first:?}") };
        assert_eq!((text.len(), *color), (MAX_DRAWN_TEXT_CHARS, Color::WHITE));

        step(&mut mapper);
        assert_eq!(FakeLab::with(|lab| (lab.drawings().len(), dots(lab))), (2, vec![2.0]), "the text was step 1's");
        step(&mut mapper);
        // Step 3 waits 0.1 s (5 control steps): its dot stays up meanwhile.
        for _ in 0..4 {
            step(&mut mapper);
            assert_eq!(FakeLab::with(|lab| (dots(lab), lab.estimate())), (vec![3.0], Some([3.0, -3.0, 0.5])));
        }
        step(&mut mapper);
        assert_eq!(FakeLab::with(|lab| dots(lab)), [4.0], "awake again");
        for _ in 0..4 {
            step(&mut mapper);
        }
        assert_eq!(FakeLab::with(|lab| lab.drawings()), [], "step 8 cleared the kept line and its own dot");
    }

    #[test]
    fn refused_drawings_panic_as_python_raises() {
        FakeLab::new().install();
        let robot = Robot::new();
        let message = |f: &dyn Fn()| {
            let error = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
            error.downcast_ref::<String>().cloned().unwrap()
        };
        assert_eq!(
            message(&|| robot.publish_estimate(f64::NAN, 0.0, 0.0)),
            "publish_estimate: every number must be finite"
        );
        assert_eq!(message(&|| robot.draw_lines(&[[0.0; 3]], Color::RED)), "draw_lines needs at least two points");
        robot.draw_points(&[[0.0; 3]; 3000], Color::RED.kept());
        let over = message(&|| robot.draw_points(&[[0.0; 3]; 1001], Color::RED));
        assert!(over.starts_with("draw_points: a step may draw at most 4000 points and line vertices"), "{over}");
        for _ in 0..MAX_DRAWN_TEXTS {
            robot.draw_text([0.0; 3], "t", Color::WHITE);
        }
        assert!(message(&|| robot.draw_text([0.0; 3], "t", Color::WHITE)).contains("32 texts"));
        FakeLab::with(|lab| assert_eq!((lab.drawings().len(), lab.estimate()), (1, None), "only the kept dots"));
    }

    #[test]
    fn colours_are_names_or_six_hex_digits() {
        assert_eq!("Grey".parse::<Color>(), Ok(Color::GRAY));
        assert_eq!(" #0A0b0C ".parse::<Color>().map(|c| c.to_string()), Ok("#0a0b0c".into()));
        for bad in ["", "#fff", "#12345g", "rgb(1,2,3)", "reddish", "#1234567", "#ééé"] {
            assert!(bad.parse::<Color>().is_err(), "{bad}");
        }
        let error = "pink".parse::<Color>().unwrap_err().to_string();
        assert_eq!(
            error,
            "colour \"pink\": use #rrggbb or one of red, green, blue, orange, yellow, purple, cyan, magenta, white, \
             black, gray"
        );
    }
}
