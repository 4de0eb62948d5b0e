//! What the 3D view draws over the world for the picked robot: its ray sensors' latest beams, two trails (the true path and the odometry's idea of it) fed by its reports, and its program's latest belief with the trail of its estimates.
//!
//! Reports arrive about ten times a second; the renderer rebuilds its overlay meshes
//! only when [`Overlay::generation`] changes, so a paused lab (the same report over and
//! over) costs nothing. A report of another robot starts over, and so does the lab's
//! time going back (a reset): the old trails belong to another run.

use vlab_protocol::{Belief, Estimate, RecordedTrail, RobotReport, SensorValue, TrailPoint};

use crate::connection::rewind::RewindWatch;
use crate::view3d::belief_shapes::estimate_position;
use crate::view3d::sensor_rays::{Beam, sensor_beams};
use crate::view3d::trail::{MAX_POINTS, Trail};

/// Which overlays the user wants to see (the view's checkboxes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewOptions {
    /// A label above every robot: its name and its owner's.
    pub labels: bool,
    /// The picked robot's sensor rays.
    pub rays: bool,
    /// The picked robot's trails.
    pub trails: bool,
    /// What the picked robot's program believes: its estimate and its drawings.
    pub beliefs: bool,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions { labels: true, rays: true, trails: true, beliefs: true }
    }
}

/// Height of the estimate's marker and trail, metres: just above the floor, where a
/// robot's odometry and true trails lie too.
pub const ESTIMATE_HEIGHT_M: f32 = 0.02;

/// Radius of a drawn ray, metres, for a view where one CSS pixel spans `metres_per_px`
/// at the camera's target: about a pixel wide at any zoom (a lidar's hundreds of beams
/// must not merge into a blot). Rounded to quarter powers of two, so zooming rebuilds
/// the lines only now and then.
pub fn line_radius_m(metres_per_px: f32) -> f32 {
    let radius = (metres_per_px * 0.55).clamp(1e-4, 1.0);
    2f32.powf((radius.log2() * 4.0).round() / 4.0)
}

/// The picked robot's overlay.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    robot: Option<String>,
    beams: Vec<Beam>,
    true_trail: Trail,
    odometry_trail: Trail,
    belief: Option<Belief>,
    estimate_trail: Trail,
    rewind: RewindWatch,
    belief_rewind: RewindWatch,
    generation: u64,
}

impl Overlay {
    /// Takes in a report of the picked robot.
    pub fn observe(&mut self, report: &RobotReport) {
        if self.robot.as_deref() != Some(report.name.as_str()) {
            self.forget();
            self.robot = Some(report.name.clone());
        }
        let mut changed = false;
        if self.rewind.went_back(report.time) {
            self.true_trail.clear();
            self.odometry_trail.clear();
            self.estimate_trail.clear();
            self.belief = None;
            changed = true;
        }
        let beams: Vec<Beam> = report.sensors.iter().flat_map(sensor_beams).collect();
        if beams != self.beams {
            self.beams = beams;
            changed = true;
        }
        let [x, y, z] = report.pose.position.map(|c| c as f32);
        changed |= self.true_trail.push([x, y, z]);
        // Odometry lives on the ground plane: drawn at the true height so the two
        // trails lie one over the other.
        if let Some((ox, oy)) = odometry_position(report) {
            changed |= self.odometry_trail.push([ox as f32, y, -oy as f32]);
        }
        if changed {
            self.generation += 1;
        }
    }

    /// Takes in the latest belief of the picked robot's program; its estimate extends
    /// the estimate trail. A belief whose time went back (a reset) starts that trail over.
    pub fn believe(&mut self, belief: &Belief) {
        if self.robot.as_deref() != Some(belief.robot.as_str()) {
            self.forget();
            self.robot = Some(belief.robot.clone());
        }
        if self.belief.as_ref() == Some(belief) {
            return;
        }
        if self.belief_rewind.went_back(belief.time) {
            self.estimate_trail.clear();
        }
        if let Some(estimate) = &belief.estimate {
            self.estimate_trail.push(estimate_position(estimate, ESTIMATE_HEIGHT_M));
        }
        self.belief = Some(belief.clone());
        self.generation += 1;
    }

    /// Shows `robot` as it was at a recorded moment (the timeline): the beams of its
    /// `report` then, and its trails from the start of the run up to then, in place of
    /// whatever the live reports gathered. Its program's belief then is its last
    /// estimate (a recording keeps estimates, not drawings).
    pub fn show_recorded(&mut self, robot: &str, report: Option<&RobotReport>, trail: Option<&RecordedTrail>) {
        self.forget();
        self.robot = Some(robot.to_owned());
        self.beams = report.map_or_else(Vec::new, |r| r.sensors.iter().flat_map(sensor_beams).collect());
        let Some(trail) = trail else { return };
        // The trails lie at the robot's height, as the live ones do.
        let height = report.map_or(ESTIMATE_HEIGHT_M, |r| r.pose.position[1] as f32);
        let ground = |p: &TrailPoint, height: f32| [p.x as f32, height, -p.y as f32];
        fill_trail(&mut self.true_trail, &trail.truth, |p| ground(p, height));
        fill_trail(&mut self.odometry_trail, &trail.odometry, |p| ground(p, height));
        fill_trail(&mut self.estimate_trail, &trail.estimate, |p| ground(p, ESTIMATE_HEIGHT_M));
        self.belief = trail.estimate.last().map(|last| Belief {
            robot: robot.to_owned(),
            step: last.step,
            time: report.map_or(0.0, |r| r.time),
            estimate: Some(Estimate { x: last.x, y: last.y, theta: last.theta }),
            drawings: Vec::new(),
        });
    }

    /// Drops everything: no robot picked, or another one.
    pub fn forget(&mut self) {
        let generation = self.generation + 1;
        *self = Overlay { generation, ..Overlay::default() };
    }

    /// The robot it follows, if any.
    pub fn robot(&self) -> Option<&str> {
        self.robot.as_deref()
    }

    /// The latest beams of every ray sensor.
    pub fn beams(&self) -> &[Beam] {
        &self.beams
    }

    /// Where the robot truly went.
    pub fn true_trail(&self) -> &Trail {
        &self.true_trail
    }

    /// Where its odometry says it went.
    pub fn odometry_trail(&self) -> &Trail {
        &self.odometry_trail
    }

    /// The program's latest belief, if it published one since the robot was picked (and
    /// since the last reset).
    pub fn belief(&self) -> Option<&Belief> {
        self.belief.as_ref()
    }

    /// Where the program's estimates went.
    pub fn estimate_trail(&self) -> &Trail {
        &self.estimate_trail
    }

    /// Changes whenever what it draws does.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// Fills `trail` with `points` placed by `place`; a run longer than a trail holds is
/// thinned evenly, so the trail still starts where the run did.
fn fill_trail(trail: &mut Trail, points: &[TrailPoint], place: impl Fn(&TrailPoint) -> [f32; 3]) {
    let stride = points.len().div_ceil(MAX_POINTS).max(1);
    for point in points.iter().step_by(stride) {
        trail.push(place(point));
    }
    // The moment itself ends the trail, whatever the thinning skipped.
    if let Some(last) = points.last().filter(|_| stride > 1) {
        trail.push(place(last));
    }
}

/// The first odometry reading of the report, as its `(x, y)` on the ground plane (x
/// along world X, y along world −Z).
pub fn odometry_position(report: &RobotReport) -> Option<(f64, f64)> {
    report.sensors.iter().find_map(|sensor| match (sensor.kind.as_str(), &sensor.measured) {
        ("Odometry", Some(SensorValue::Pose2d { x, y, .. })) => Some((*x, *y)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use vlab_protocol::{ProgramState, ProgramStatus, RobotPose, SensorReport};

    use super::*;

    fn report(name: &str, time: f64, x: f64, odometry_x: f64) -> RobotReport {
        let sensor = |name: &str, kind: &str, measured, origin| SensorReport {
            name: name.into(),
            kind: kind.into(),
            rate: None,
            step: Some(1),
            time: Some(time),
            measured: Some(measured),
            truth: None,
            origin,
        };
        let pose = RobotPose { position: [x, 0.1, 2.0], quaternion: [1.0, 0.0, 0.0, 0.0], heading: 0.0 };
        RobotReport {
            name: name.into(),
            step: 1,
            time,
            pose,
            sensors: vec![
                sensor("front", "LaserDistance", SensorValue::Scalar { value: 1.0 }, Some(pose)),
                sensor("odom", "Odometry", SensorValue::Pose2d { x: odometry_x, y: -2.5, theta: 0.0 }, None),
            ],
            actuators: vec![],
            keys: vec![],
            program: ProgramStatus { file: None, language: None, state: ProgramState::None, message: None, late: None },
            owner: None,
            console: None,
        }
    }

    #[test]
    fn reports_grow_both_trails_and_replace_the_beams() {
        let mut overlay = Overlay::default();
        overlay.observe(&report("cart", 0.1, 1.0, 1.0));
        overlay.observe(&report("cart", 0.2, 1.5, 1.6));
        assert_eq!(overlay.robot(), Some("cart"));
        assert_eq!(overlay.true_trail().len(), 2);
        let odometry: Vec<_> = overlay.odometry_trail().points().copied().collect();
        assert_eq!(odometry, vec![[1.0, 0.1, 2.5], [1.6, 0.1, 2.5]], "odometry y is world −Z, at the true height");
        assert_eq!(overlay.beams().len(), 1);
        assert_eq!(overlay.beams()[0].to, [2.5, 0.1, 2.0]);
    }

    fn belief(robot: &str, time: f64, x: f64) -> Belief {
        let estimate = Some(vlab_protocol::Estimate { x, y: 1.0, theta: 0.0 });
        Belief { robot: robot.into(), step: 1, time, estimate, drawings: vec![] }
    }

    #[test]
    fn beliefs_are_kept_and_their_estimates_trail() {
        let mut overlay = Overlay::default();
        overlay.observe(&report("cart", 0.1, 1.0, 1.0));
        overlay.believe(&belief("cart", 0.1, 1.0));
        let generation = overlay.generation();
        overlay.believe(&belief("cart", 0.1, 1.0));
        assert_eq!(overlay.generation(), generation, "the same belief again changes nothing");
        overlay.believe(&belief("cart", 0.2, 1.5));
        assert_eq!(overlay.belief().map(|b| b.time), Some(0.2));
        let trail: Vec<_> = overlay.estimate_trail().points().copied().collect();
        assert_eq!(trail, vec![[1.0, ESTIMATE_HEIGHT_M, -1.0], [1.5, ESTIMATE_HEIGHT_M, -1.0]]);
        overlay.observe(&report("cart", 0.0, 0.0, 0.0));
        assert!(overlay.belief().is_none() && overlay.estimate_trail().is_empty(), "a reset drops the belief");
        overlay.believe(&belief("cart", 0.3, 1.0));
        overlay.believe(&belief("arm", 0.4, 1.0));
        assert_eq!((overlay.robot(), overlay.estimate_trail().len()), (Some("arm"), 1), "another robot starts over");
    }

    #[test]
    fn a_recorded_moment_replaces_the_live_trails_and_beams() {
        let mut overlay = Overlay::default();
        overlay.observe(&report("cart", 9.0, 5.0, 5.0));
        let generation = overlay.generation();
        let point = |step, x: f64| TrailPoint { step, x, y: -2.0, theta: 0.5 };
        let trail = RecordedTrail {
            robot: "cart".into(),
            truth: vec![point(0, 0.0), point(24, 0.5), point(48, 1.0)],
            odometry: vec![point(0, 0.0), point(48, 1.1)],
            estimate: vec![point(48, 0.9)],
        };
        overlay.show_recorded("cart", Some(&report("cart", 0.2, 1.0, 1.1)), Some(&trail));
        assert!(overlay.generation() > generation, "redrawn");
        let truth: Vec<_> = overlay.true_trail().points().copied().collect();
        assert_eq!(
            truth,
            vec![[0.0, 0.1, 2.0], [0.5, 0.1, 2.0], [1.0, 0.1, 2.0]],
            "y is world −Z, at the robot's height"
        );
        assert_eq!(overlay.odometry_trail().len(), 2);
        assert_eq!(overlay.estimate_trail().points().next(), Some(&[0.9, ESTIMATE_HEIGHT_M, 2.0]));
        let belief = overlay.belief().expect("the last estimate stands for the belief then");
        assert_eq!(belief.estimate, Some(Estimate { x: 0.9, y: -2.0, theta: 0.5 }));
        assert_eq!(overlay.beams().len(), 1, "the beams of the recorded report");

        overlay.show_recorded("cart", None, None);
        assert!(overlay.true_trail().is_empty() && overlay.beams().is_empty() && overlay.belief().is_none());
        assert_eq!(overlay.robot(), Some("cart"));
    }

    #[test]
    fn a_long_recorded_trail_is_thinned_but_keeps_both_ends() {
        let mut overlay = Overlay::default();
        let truth: Vec<_> = (0..MAX_POINTS as u64 * 3 + 1)
            .map(|i| TrailPoint { step: i, x: i as f64 * 0.1, y: 0.0, theta: 0.0 })
            .collect();
        let last = truth.last().unwrap().x as f32;
        let trail = RecordedTrail { robot: "cart".into(), truth, ..RecordedTrail::default() };
        overlay.show_recorded("cart", None, Some(&trail));
        let points: Vec<_> = overlay.true_trail().points().copied().collect();
        assert!(points.len() <= MAX_POINTS, "{}", points.len());
        assert_eq!(points.first().map(|p| p[0]), Some(0.0), "it starts where the run did");
        assert_eq!(points.last().map(|p| p[0]), Some(last), "and ends at the moment");
    }

    #[test]
    fn lines_keep_their_width_on_screen_in_steps() {
        let near = line_radius_m(0.01);
        assert!((near - 0.0055).abs() < 0.0055 * 0.1, "{near}");
        assert_eq!(line_radius_m(0.01), line_radius_m(0.0101), "a small zoom keeps the lines");
        assert!(line_radius_m(0.04) > 3.0 * near);
        assert!(line_radius_m(0.0) > 0.0);
    }

    #[test]
    fn the_same_report_again_changes_nothing() {
        let mut overlay = Overlay::default();
        overlay.observe(&report("cart", 0.1, 1.0, 1.0));
        let generation = overlay.generation();
        overlay.observe(&report("cart", 0.1, 1.0, 1.0));
        assert_eq!(overlay.generation(), generation, "a paused lab: nothing to redraw");
    }

    #[test]
    fn a_reset_or_another_robot_starts_the_trails_over() {
        let mut overlay = Overlay::default();
        overlay.observe(&report("cart", 5.0, 1.0, 1.0));
        overlay.observe(&report("cart", 5.1, 2.0, 2.0));
        overlay.observe(&report("cart", 0.0, 0.0, 0.0));
        assert_eq!((overlay.true_trail().len(), overlay.odometry_trail().len()), (1, 1));
        overlay.observe(&report("arm", 0.1, 3.0, 3.0));
        assert_eq!(overlay.robot(), Some("arm"));
        assert_eq!(overlay.true_trail().points().next(), Some(&[3.0, 0.1, 2.0]));
        let generation = overlay.generation();
        overlay.forget();
        assert!(overlay.generation() > generation);
        assert!(overlay.beams().is_empty() && overlay.true_trail().is_empty() && overlay.robot().is_none());
    }
}
