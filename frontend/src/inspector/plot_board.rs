//! The picked robot's open plots: which readings they follow, what numbers each reading gives, and their histories, fed by the robot's reports.
//!
//! A plot follows one sensor: its measured and its true numbers over simulation time
//! (`SensorReport.time`), a sample only when the sensor read anew, so a paused lab adds
//! nothing. The odometry error plot follows an `Odometry` sensor's distance from the
//! truth. The estimate error plot follows how far the robot's program's latest
//! estimate is from the true position, a sample per report. Every plot empties when the lab's time goes back (a reset), and they all go
//! when another robot is picked.

use vlab_protocol::{Belief, Estimate, RobotReport, SensorReport, SensorValue};

use crate::connection::rewind::RewindWatch;
use crate::inspector::plot_series::Series;
use crate::view3d::belief_shapes::estimate_error;

/// What a plot follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlotSource {
    /// A sensor's reading, measured and true.
    Reading {
        /// The sensor's name.
        sensor: String,
    },
    /// How far an odometry sensor's position is from the true one.
    OdometryError {
        /// The `Odometry` sensor's name.
        sensor: String,
    },
    /// How far the program's estimate of its robot's position is from the true one.
    EstimateError,
}

/// The estimate error plot's key.
pub const ESTIMATE_ERROR_KEY: &str = "estimate:error";

impl PlotSource {
    /// A name unique among the robot's plots (the `odom` reading, the `odom:error`).
    pub fn key(&self) -> String {
        match self {
            PlotSource::Reading { sensor } => sensor.clone(),
            PlotSource::OdometryError { sensor } => format!("{sensor}:error"),
            PlotSource::EstimateError => ESTIMATE_ERROR_KEY.to_owned(),
        }
    }

    /// The plot's title.
    pub fn title(&self) -> String {
        match self {
            PlotSource::Reading { sensor } => sensor.clone(),
            PlotSource::OdometryError { sensor } => format!("{sensor}: position error (m)"),
            PlotSource::EstimateError => "estimate: position error (m)".to_owned(),
        }
    }

    fn sensor(&self) -> Option<&str> {
        match self {
            PlotSource::Reading { sensor } | PlotSource::OdometryError { sensor } => Some(sensor),
            PlotSource::EstimateError => None,
        }
    }

    /// The named numbers this source takes from a reading (measured or true); `None`
    /// when it gives none.
    fn numbers(&self, sensor: &SensorReport, truth: bool) -> Option<Vec<(&'static str, f64)>> {
        match self {
            PlotSource::Reading { .. } => {
                reading_channels(if truth { sensor.truth.as_ref() } else { sensor.measured.as_ref() }?)
            }
            // The error has no "true" counterpart: it is the gap to the truth.
            PlotSource::OdometryError { .. } if truth => None,
            PlotSource::OdometryError { .. } => Some(vec![("error", odometry_error(sensor)?)]),
            PlotSource::EstimateError => None,
        }
    }
}

/// The numbers a reading plots, named; `None` for a reading that is not a number or a
/// few (a scan, keys). A contact plots its force's size.
pub fn reading_channels(value: &SensorValue) -> Option<Vec<(&'static str, f64)>> {
    Some(match value {
        SensorValue::Scalar { value } => vec![("value", *value)],
        SensorValue::Vector { values: [x, y, z] } => vec![("x", *x), ("y", *y), ("z", *z)],
        SensorValue::Ticks { angle, .. } => vec![("angle", *angle)],
        SensorValue::Joint { position, velocity } => vec![("position", *position), ("velocity", *velocity)],
        SensorValue::Pose2d { x, y, theta } => vec![("x", *x), ("y", *y), ("θ", *theta)],
        SensorValue::Contact { force: [x, y, z], .. } => vec![("force", (x * x + y * y + z * z).sqrt())],
        SensorValue::DepthImage { nearest, .. } => vec![("nearest", *nearest)],
        SensorValue::Orientation { roll, pitch, yaw, .. } => vec![("roll", *roll), ("pitch", *pitch), ("yaw", *yaw)],
        SensorValue::Landmarks { landmarks } => vec![("beacons seen", landmarks.len() as f64)],
        SensorValue::Radio { heard, sent } => vec![("heard", heard.len() as f64), ("sent", sent.len() as f64)],
        SensorValue::Scan { .. } | SensorValue::Keys { .. } | SensorValue::Image { .. } => return None,
    })
}

/// Whether a sensor's reading can be plotted.
pub fn plottable(sensor: &SensorReport) -> bool {
    sensor.measured.as_ref().or(sensor.truth.as_ref()).and_then(reading_channels).is_some()
}

/// The distance between an odometry sensor's measured and true positions, metres;
/// `None` for any other reading.
pub fn odometry_error(sensor: &SensorReport) -> Option<f64> {
    match (&sensor.measured, &sensor.truth) {
        (Some(SensorValue::Pose2d { x, y, .. }), Some(SensorValue::Pose2d { x: tx, y: ty, .. })) => {
            Some((x - tx).hypot(y - ty))
        }
        _ => None,
    }
}

/// Whether a sensor is an odometry one whose error can be plotted.
pub fn has_odometry_error(sensor: &SensorReport) -> bool {
    sensor.kind == "Odometry" && odometry_error(sensor).is_some()
}

/// One open plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    source: PlotSource,
    /// Names of its numbers, fixed by the first reading; column `2c` holds number `c`
    /// measured, `2c + 1` true.
    channels: Vec<&'static str>,
    series: Series,
}

impl Plot {
    fn new(source: PlotSource) -> Plot {
        Plot { source, channels: Vec::new(), series: Series::new(0) }
    }

    /// What it follows.
    pub fn source(&self) -> &PlotSource {
        &self.source
    }

    /// Names of its numbers (empty before the first reading).
    pub fn channels(&self) -> &[&'static str] {
        &self.channels
    }

    /// Its history: column `2c` is number `c` measured, `2c + 1` true.
    pub fn series(&self) -> &Series {
        &self.series
    }

    /// Whether any true number was recorded (the error plot has none).
    pub fn has_truth(&self) -> bool {
        (0..self.channels.len()).any(|c| self.series.column(2 * c + 1).iter().any(|v| v.is_finite()))
    }

    /// Takes a sample from `report` if its sensor read anew (for the estimate error: if
    /// the program published an estimate and the report is newer); `true` when it did.
    fn observe(&mut self, report: &RobotReport, estimate: Option<&Estimate>) -> bool {
        let Some(name) = self.source.sensor() else {
            let Some(estimate) = estimate else { return false };
            if self.channels.is_empty() {
                self.channels = vec!["error"];
                self.series = Series::new(2);
            }
            return self.series.push(report.time, &[estimate_error(estimate, report.pose.position), f64::NAN]);
        };
        let Some(sensor) = report.sensors.iter().find(|s| s.name == name) else { return false };
        let Some(time) = sensor.time else { return false };
        let measured = self.source.numbers(sensor, false);
        let truth = self.source.numbers(sensor, true);
        let Some(named) = measured.as_ref().or(truth.as_ref()) else { return false };
        if self.channels.is_empty() {
            self.channels = named.iter().map(|(name, _)| *name).collect();
            self.series = Series::new(2 * self.channels.len());
        }
        let value = |numbers: &Option<Vec<(&str, f64)>>, c: usize| {
            numbers.as_ref().and_then(|n| n.get(c)).map_or(f64::NAN, |(_, v)| *v)
        };
        let row: Vec<f64> = (0..self.channels.len()).flat_map(|c| [value(&measured, c), value(&truth, c)]).collect();
        self.series.push(time, &row)
    }
}

/// The plots open for the picked robot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlotBoard {
    robot: Option<String>,
    plots: Vec<Plot>,
    estimate: Option<Estimate>,
    rewind: RewindWatch,
}

impl PlotBoard {
    /// Follows `robot` (or none): plots of another robot close.
    pub fn follow(&mut self, robot: Option<&str>) {
        if self.robot.as_deref() != robot {
            *self = PlotBoard { robot: robot.map(str::to_owned), ..PlotBoard::default() };
        }
    }

    /// Opens a plot of `source`, or closes it when open; `report`, the robot's latest,
    /// gives an open plot its first sample at once. Returns whether it is open now.
    pub fn toggle(&mut self, source: PlotSource, report: Option<&RobotReport>) -> bool {
        let key = source.key();
        if self.is_open(&key) {
            self.close(&key);
            return false;
        }
        let mut plot = Plot::new(source);
        if let Some(report) = report.filter(|r| self.robot.as_deref() == Some(r.name.as_str())) {
            plot.observe(report, self.estimate.as_ref());
        }
        self.plots.push(plot);
        true
    }

    /// Closes the plot with this key.
    pub fn close(&mut self, key: &str) {
        self.plots.retain(|plot| plot.source.key() != key);
    }

    /// Whether the plot with this key is open.
    pub fn is_open(&self, key: &str) -> bool {
        self.plot(key).is_some()
    }

    /// The open plot with this key.
    pub fn plot(&self, key: &str) -> Option<&Plot> {
        self.plots.iter().find(|plot| plot.source.key() == key)
    }

    /// The open plots, in the order they were opened.
    pub fn plots(&self) -> &[Plot] {
        &self.plots
    }

    /// Takes in a report: a new sample for every plot whose sensor read anew. A report
    /// of another robot than the one followed is ignored; the lab's time going back
    /// empties every plot first. Returns whether any plot changed.
    pub fn observe(&mut self, report: &RobotReport) -> bool {
        if self.robot.as_deref() != Some(report.name.as_str()) {
            return false;
        }
        let mut changed = false;
        if self.rewind.went_back(report.time) {
            for plot in &mut self.plots {
                changed |= !plot.series.is_empty();
                plot.series.clear();
            }
            // The estimate belonged to the run before the reset.
            self.estimate = None;
        }
        for plot in &mut self.plots {
            changed |= plot.observe(report, self.estimate.as_ref());
        }
        changed
    }

    /// Takes in the followed robot's program's latest belief: its estimate is what the
    /// estimate error plot measures from the next report on.
    pub fn believe(&mut self, belief: &Belief) {
        if self.robot.as_deref() == Some(belief.robot.as_str()) {
            self.estimate = belief.estimate;
        }
    }
}

#[cfg(test)]
mod tests {
    use vlab_protocol::{ProgramState, ProgramStatus, RobotPose};

    use super::*;

    fn sensor(name: &str, kind: &str, time: f64, measured: SensorValue, truth: SensorValue) -> SensorReport {
        SensorReport {
            name: name.into(),
            kind: kind.into(),
            rate: Some(20.0),
            step: Some(1),
            time: Some(time),
            measured: Some(measured),
            truth: Some(truth),
            origin: None,
        }
    }

    /// A report at `time` whose sensors read at `reading_time`.
    fn report(robot: &str, time: f64, reading_time: f64) -> RobotReport {
        let pose2d = |x, y| SensorValue::Pose2d { x, y, theta: 0.0 };
        RobotReport {
            name: robot.into(),
            step: 1,
            time,
            pose: RobotPose { position: [0.0; 3], quaternion: [1.0, 0.0, 0.0, 0.0], heading: 0.0 },
            sensors: vec![
                sensor(
                    "compass",
                    "Compass",
                    reading_time,
                    SensorValue::Scalar { value: 0.5 },
                    SensorValue::Scalar { value: 0.4 },
                ),
                sensor("odom", "Odometry", reading_time, pose2d(3.0 + reading_time, 4.0), pose2d(reading_time, 0.0)),
                sensor(
                    "lidar",
                    "Lidar",
                    reading_time,
                    SensorValue::Scan { angle_min: 0.0, angle_step: 0.1, max_range: 1.0, ranges: vec![] },
                    SensorValue::Scan { angle_min: 0.0, angle_step: 0.1, max_range: 1.0, ranges: vec![] },
                ),
            ],
            actuators: vec![],
            keys: vec![],
            program: ProgramStatus { file: None, language: None, state: ProgramState::None, message: None, late: None },
            owner: None,
            console: None,
        }
    }

    fn reading(sensor: &str) -> PlotSource {
        PlotSource::Reading { sensor: sensor.into() }
    }

    #[test]
    fn numbers_and_vectors_plot_scans_and_keys_do_not() {
        let r = report("cart", 1.0, 1.0);
        assert!(plottable(&r.sensors[0]) && plottable(&r.sensors[1]));
        assert!(!plottable(&r.sensors[2]));
        assert_eq!(reading_channels(&SensorValue::Vector { values: [1.0, 2.0, 3.0] }).unwrap().len(), 3);
        let contact = SensorValue::Contact { touching: true, point: None, force: [3.0, 4.0, 0.0] };
        assert_eq!(reading_channels(&contact), Some(vec![("force", 5.0)]));
        assert_eq!(odometry_error(&r.sensors[1]), Some(5.0));
        assert!(has_odometry_error(&r.sensors[1]) && !has_odometry_error(&r.sensors[0]));
    }

    #[test]
    fn a_plot_opens_with_the_latest_reading_and_grows_with_new_ones() {
        let mut board = PlotBoard::default();
        board.follow(Some("cart"));
        assert!(board.toggle(reading("compass"), Some(&report("cart", 1.0, 1.0))));
        let plot = board.plot("compass").unwrap();
        assert_eq!(plot.channels(), &["value"]);
        assert_eq!(plot.series().column(0), &[0.5]);
        assert_eq!(plot.series().column(1), &[0.4], "the true value beside the measured one");
        assert!(plot.has_truth());
        assert!(board.observe(&report("cart", 1.1, 1.05)));
        assert!(!board.observe(&report("cart", 1.2, 1.05)), "paused between readings: nothing to redraw");
        assert_eq!(board.plot("compass").unwrap().series().len(), 2, "a reading counts once");
    }

    #[test]
    fn the_odometry_error_plot_follows_the_gap_to_the_truth() {
        let mut board = PlotBoard::default();
        board.follow(Some("cart"));
        board.toggle(PlotSource::OdometryError { sensor: "odom".into() }, Some(&report("cart", 1.0, 1.0)));
        let plot = board.plot("odom:error").unwrap();
        assert_eq!(plot.channels(), &["error"]);
        assert_eq!(plot.series().column(0), &[5.0]);
        assert!(!plot.has_truth());
        assert_eq!(plot.source().title(), "odom: position error (m)");
    }

    #[test]
    fn the_estimate_error_plot_follows_the_gap_between_estimate_and_truth() {
        let mut board = PlotBoard::default();
        board.follow(Some("cart"));
        board.toggle(PlotSource::EstimateError, Some(&report("cart", 1.0, 1.0)));
        assert!(board.plot(ESTIMATE_ERROR_KEY).unwrap().series().is_empty(), "no estimate yet");
        let estimate = Some(Estimate { x: 3.0, y: 4.0, theta: 0.0 });
        board.believe(&Belief { robot: "other".into(), step: 1, time: 1.0, estimate, drawings: vec![] });
        assert!(!board.observe(&report("cart", 1.1, 1.1)), "another robot's estimate is not this one's");
        board.believe(&Belief { robot: "cart".into(), step: 1, time: 1.0, estimate, drawings: vec![] });
        assert!(board.observe(&report("cart", 1.2, 1.2)));
        assert!(!board.observe(&report("cart", 1.2, 1.2)), "a paused lab adds nothing");
        let plot = board.plot(ESTIMATE_ERROR_KEY).unwrap();
        assert_eq!((plot.channels(), plot.series().column(0)), (&["error"][..], &[5.0][..]));
        assert!(!plot.has_truth());
        assert_eq!(plot.source().title(), "estimate: position error (m)");
        board.observe(&report("cart", 0.0, 0.0));
        assert!(!board.observe(&report("cart", 0.1, 0.1)), "a reset drops the old run's estimate");
    }

    #[test]
    fn toggling_closes_and_a_reset_empties_every_plot() {
        let mut board = PlotBoard::default();
        board.follow(Some("cart"));
        let first = report("cart", 5.0, 5.0);
        board.toggle(reading("compass"), Some(&first));
        board.toggle(reading("odom"), Some(&first));
        board.observe(&first);
        board.observe(&report("cart", 5.1, 5.1));
        assert_eq!(board.plot("odom").unwrap().series().len(), 2);
        board.observe(&report("cart", 0.0, 0.0));
        assert_eq!(board.plot("odom").unwrap().series().times(), &[0.0], "the reset's first reading only");
        assert!(!board.toggle(reading("odom"), None));
        assert_eq!(board.plots().len(), 1);
        board.close("compass");
        assert!(board.plots().is_empty());
    }

    #[test]
    fn plots_belong_to_the_picked_robot() {
        let mut board = PlotBoard::default();
        board.follow(Some("cart"));
        board.toggle(reading("compass"), Some(&report("other", 1.0, 1.0)));
        assert!(board.plot("compass").unwrap().series().is_empty(), "another robot's report gives nothing");
        board.observe(&report("other", 2.0, 2.0));
        assert!(board.plot("compass").unwrap().series().is_empty());
        board.follow(Some("cart"));
        assert_eq!(board.plots().len(), 1, "following the same robot keeps its plots");
        board.follow(Some("other"));
        assert!(board.plots().is_empty());
    }
}
