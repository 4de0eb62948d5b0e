//! What one robot's program believes and draws, as the lab keeps it between answers:
//! its latest estimate, the drawings it keeps, and those of its latest step, within
//! the drawing budget (`MAX_DRAWN_VERTICES` points and line vertices,
//! `MAX_DRAWN_TEXTS` texts). Past the budget the oldest kept drawings go first, then
//! the step's own are cut; the program's console is told once.

use std::collections::VecDeque;

use vlab_protocol::{
    Belief, Drawing, Estimate, MAX_DRAWN_TEXT_CHARS, MAX_DRAWN_TEXTS, MAX_DRAWN_VERTICES, drawing_color,
};

use vlab_programs::BeliefUpdate;

/// One program's belief.
#[derive(Default)]
pub struct BeliefState {
    estimate: Option<Estimate>,
    kept: VecDeque<Drawing>,
    latest: Vec<Drawing>,
    /// Step and time of the answer that changed it last.
    stamp: (u64, f64),
    /// Whether the console was told of a dropped drawing (it is, once).
    problem_told: bool,
}

impl BeliefState {
    /// Applies what a program answered at `step` (`time` seconds). Returns a line for
    /// its console the first time something did not fit or was malformed.
    pub fn apply(&mut self, update: BeliefUpdate, step: u64, time: f64) -> Option<String> {
        if update.is_empty() {
            return None;
        }
        self.stamp = (step, time);
        let mut problems = Vec::new();
        if let Some(estimate) = update.estimate {
            if [estimate.x, estimate.y, estimate.theta].iter().all(|v| v.is_finite()) {
                self.estimate = Some(estimate);
            } else {
                problems.push("an estimate with a number that is not finite was ignored".to_owned());
            }
        }
        if update.clear {
            self.kept.clear();
        }
        let clean = |drawings: Vec<Drawing>, problems: &mut Vec<String>| -> Vec<Drawing> {
            drawings.into_iter().filter_map(|d| sanitized(d).map_err(|p| problems.push(p)).ok()).collect()
        };
        let keep = clean(update.keep, &mut problems);
        self.kept.extend(keep);
        if let Some(latest) = update.drawings {
            self.latest = clean(latest, &mut problems);
        }
        if self.fit() {
            problems.push(format!(
                "drawings past the budget were dropped (at most {MAX_DRAWN_VERTICES} points and line vertices and \
                 {MAX_DRAWN_TEXTS} texts at once, kept ones included: clear what you keep, or draw fewer)"
            ));
        }
        match problems.first() {
            Some(problem) if !self.problem_told => {
                self.problem_told = true;
                Some(format!("{problem} (said once)"))
            }
            _ => None,
        }
    }

    /// Drops drawings until the budget holds: the oldest kept first, then the latest
    /// step's from its end. Whether anything was dropped.
    fn fit(&mut self) -> bool {
        let count = |drawings: &mut dyn Iterator<Item = &Drawing>| {
            drawings.fold((0, 0), |(v, t), d| (v + d.vertices(), t + usize::from(matches!(d, Drawing::Text { .. }))))
        };
        let over = |(vertices, texts): (usize, usize)| vertices > MAX_DRAWN_VERTICES || texts > MAX_DRAWN_TEXTS;
        let mut dropped = false;
        while over(count(&mut self.kept.iter().chain(&self.latest))) && !self.kept.is_empty() {
            self.kept.pop_front();
            dropped = true;
        }
        loop {
            let (vertices, texts) = count(&mut self.latest.iter());
            if !over((vertices, texts)) {
                break;
            }
            dropped = true;
            if texts > MAX_DRAWN_TEXTS {
                let last_text = self.latest.iter().rposition(|d| matches!(d, Drawing::Text { .. }));
                self.latest.remove(last_text.expect("over the texts' budget means texts"));
                continue;
            }
            let last = self.latest.iter().rposition(|d| d.vertices() > 0).expect("over budget means vertices");
            match &mut self.latest[last] {
                Drawing::Points { points, .. } | Drawing::Lines { points, .. }
                    if points.len() > vertices - MAX_DRAWN_VERTICES =>
                {
                    points.truncate(points.len() - (vertices - MAX_DRAWN_VERTICES));
                }
                _ => {
                    self.latest.remove(last);
                }
            }
        }
        dropped
    }

    /// The latest estimate, with the step and simulation time it came with.
    pub fn estimate(&self) -> Option<(u64, f64, Estimate)> {
        self.estimate.map(|estimate| (self.stamp.0, self.stamp.1, estimate))
    }

    /// The belief as pages get it; `None` while the program published nothing.
    pub fn view(&self, robot: &str) -> Option<Belief> {
        if self.estimate.is_none() && self.kept.is_empty() && self.latest.is_empty() {
            return None;
        }
        Some(Belief {
            robot: robot.to_owned(),
            step: self.stamp.0,
            time: self.stamp.1,
            estimate: self.estimate,
            drawings: self.kept.iter().chain(&self.latest).cloned().collect(),
        })
    }
}

/// A drawing with its colour normalised, finite coordinates and a short text, or why
/// it was refused.
fn sanitized(drawing: Drawing) -> Result<Drawing, String> {
    let color = |c: &str| drawing_color(c).ok_or_else(|| format!("a drawing's colour {c:?} is not a name or #rrggbb"));
    let finite = |p: &[f32; 3]| p.iter().all(|v| v.is_finite());
    match drawing {
        Drawing::Points { points, color: c } | Drawing::Lines { points, color: c } if !points.iter().all(finite) => {
            let _ = c;
            Err("a drawing with a coordinate that is not finite was ignored".into())
        }
        Drawing::Points { points, color: c } => Ok(Drawing::Points { points, color: color(&c)? }),
        Drawing::Lines { points, color: c } => Ok(Drawing::Lines { points, color: color(&c)? }),
        Drawing::Text { at, .. } if !finite(&at) => Err("a text at a coordinate that is not finite was ignored".into()),
        Drawing::Text { at, text, color: c } => {
            let text: String = text.chars().filter(|ch| !ch.is_control()).take(MAX_DRAWN_TEXT_CHARS).collect();
            Ok(Drawing::Text { at, text, color: color(&c)? })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(n: usize) -> Drawing {
        Drawing::Points { points: vec![[0.0, 0.0, 0.0]; n], color: "red".into() }
    }

    fn update(drawings: Option<Vec<Drawing>>, keep: Vec<Drawing>) -> BeliefUpdate {
        BeliefUpdate { drawings, keep, ..BeliefUpdate::default() }
    }

    #[test]
    fn a_step_replaces_the_step_before_and_kept_drawings_stay_until_cleared() {
        let mut belief = BeliefState::default();
        assert!(belief.view("bot").is_none(), "nothing published yet");
        belief.apply(update(Some(vec![points(3)]), vec![points(1)]), 10, 0.1);
        belief.apply(update(Some(vec![points(2)]), vec![]), 20, 0.2);
        let view = belief.view("bot").unwrap();
        assert_eq!(view.drawings.iter().map(Drawing::vertices).collect::<Vec<_>>(), [1, 2]);
        assert_eq!((view.step, view.time), (20, 0.2));
        assert_eq!(view.drawings[0], Drawing::Points { points: vec![[0.0; 3]], color: "#e53935".into() });
        belief.apply(update(None, vec![]), 30, 0.3);
        assert_eq!(belief.view("bot").unwrap().step, 20, "an empty answer (a program waiting) changes nothing");
        belief.apply(BeliefUpdate { clear: true, drawings: Some(vec![]), ..BeliefUpdate::default() }, 40, 0.4);
        assert!(belief.view("bot").is_none());
        let estimate = Estimate { x: 1.0, y: 2.0, theta: 0.5 };
        belief.apply(BeliefUpdate { estimate: Some(estimate), ..BeliefUpdate::default() }, 50, 0.5);
        assert_eq!(belief.view("bot").unwrap().estimate, Some(estimate));
    }

    #[test]
    fn the_budget_drops_the_oldest_kept_first_then_cuts_the_step_and_says_so_once() {
        let mut belief = BeliefState::default();
        assert_eq!(belief.apply(update(None, vec![points(1500), points(1500)]), 1, 0.0), None);
        let said = belief.apply(update(Some(vec![points(2000)]), vec![]), 2, 0.0);
        assert!(said.unwrap().contains("at most 4000 points"));
        let view = belief.view("bot").unwrap();
        assert_eq!(view.drawings.iter().map(Drawing::vertices).collect::<Vec<_>>(), [1500, 2000]);
        assert_eq!(belief.apply(update(Some(vec![points(MAX_DRAWN_VERTICES + 10)]), vec![]), 3, 0.0), None, "once");
        let view = belief.view("bot").unwrap();
        assert_eq!(view.drawings.iter().map(Drawing::vertices).sum::<usize>(), MAX_DRAWN_VERTICES);
        let texts = (0..40).map(|i| Drawing::Text { at: [0.0; 3], text: format!("t{i}"), color: "white".into() });
        belief.apply(update(Some(texts.collect()), vec![]), 4, 0.0);
        assert_eq!(belief.view("bot").unwrap().drawings.len(), MAX_DRAWN_TEXTS);
    }

    #[test]
    fn malformed_drawings_are_ignored_and_texts_cut() {
        let mut belief = BeliefState::default();
        let bad = vec![
            Drawing::Points { points: vec![[f32::NAN, 0.0, 0.0]], color: "red".into() },
            Drawing::Lines { points: vec![[0.0; 3]; 2], color: "not a colour".into() },
            Drawing::Text { at: [0.0; 3], text: format!("a\u{0007}{}", "x".repeat(200)), color: "#FFFFFF".into() },
        ];
        let said = belief.apply(update(Some(bad), vec![]), 1, 0.0).unwrap();
        assert!(said.contains("not finite"), "{said}");
        let view = belief.view("bot").unwrap();
        assert_eq!(view.drawings.len(), 1);
        let Drawing::Text { text, color, .. } = &view.drawings[0] else { panic!("{view:?}") };
        assert_eq!((text.chars().count(), color.as_str()), (MAX_DRAWN_TEXT_CHARS, "#ffffff"));
        assert!(text.starts_with("ax"), "control characters dropped");
        let nan = Estimate { x: f64::NAN, y: 0.0, theta: 0.0 };
        belief.apply(BeliefUpdate { estimate: Some(nan), ..BeliefUpdate::default() }, 2, 0.0);
        assert_eq!(belief.view("bot").unwrap().estimate, None);
    }
}
