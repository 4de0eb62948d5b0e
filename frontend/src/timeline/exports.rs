//! The recording's downloads: which request each one is (a robot's readings as CSV or its recording as MCAP; the whole lab's, for the instructor), for which run and span, and the file it is saved as.
//!
//! The server answers `GET /api/labs/{lab}/robots/{robot}/readings.csv`,
//! `…/robots/{robot}/recording.mcap`, `/api/labs/{lab}/recording.csv` and
//! `…/recording.mcap`, with `?run=R` and, for a span, `&from=F&to=T`.

use crate::page::{lab_api_path, robot_api_path};

/// What is downloaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportScope {
    /// One robot's.
    Robot(String),
    /// The whole lab's.
    Lab,
}

/// In which form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// A table of readings, one per line.
    Csv,
    /// MCAP, for Foxglove and other robotics tools.
    Mcap,
}

impl ExportFormat {
    /// Both, in the order the buttons show them.
    pub const ALL: [ExportFormat; 2] = [ExportFormat::Csv, ExportFormat::Mcap];

    fn extension(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Mcap => "mcap",
        }
    }
}

/// Which part of the recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportSpan {
    /// The run.
    pub run: u32,
    /// `Some((from, to))`: only those steps (up to the moment shown); `None`: the whole run.
    pub steps: Option<(u64, u64)>,
}

/// The file the server names for `scope` in `format`.
fn file_of(scope: &ExportScope, format: ExportFormat) -> String {
    match (scope, format) {
        (ExportScope::Robot(_), ExportFormat::Csv) => "readings.csv".to_owned(),
        (_, format) => format!("recording.{}", format.extension()),
    }
}

/// The request's path and query.
pub fn export_url(lab: &str, scope: &ExportScope, format: ExportFormat, span: ExportSpan) -> String {
    let file = format!("/{}", file_of(scope, format));
    let path = match scope {
        ExportScope::Robot(robot) => robot_api_path(lab, robot, &file),
        ExportScope::Lab => lab_api_path(lab, &file),
    };
    match span.steps {
        Some((from, to)) => format!("{path}?run={}&from={from}&to={to}", span.run),
        None => format!("{path}?run={}", span.run),
    }
}

/// The name the browser saves it under: `demo-rover_red-readings-run2.csv`,
/// `demo-recording-run2-to-step4800.mcap`; anything but letters, digits, `-` and `_`
/// becomes `_` (a robot's name must not make a path).
pub fn export_file_name(lab: &str, scope: &ExportScope, format: ExportFormat, span: ExportSpan) -> String {
    let robot = match scope {
        ExportScope::Robot(robot) => Some(robot.as_str()),
        ExportScope::Lab => None,
    };
    let csv = matches!(format, ExportFormat::Csv);
    vlab_protocol::export_file_name(lab, robot, csv, span.run, span.steps.map(|(_, to)| to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_robots_downloads_name_its_run_and_their_span() {
        let robot = ExportScope::Robot("rover red".into());
        let whole = ExportSpan { run: 2, steps: None };
        assert_eq!(
            export_url("demo", &robot, ExportFormat::Csv, whole),
            "/api/labs/demo/robots/rover%20red/readings.csv?run=2"
        );
        let upto = ExportSpan { run: 2, steps: Some((0, 4800)) };
        assert_eq!(
            export_url("demo", &robot, ExportFormat::Mcap, upto),
            "/api/labs/demo/robots/rover%20red/recording.mcap?run=2&from=0&to=4800"
        );
        assert_eq!(export_file_name("demo", &robot, ExportFormat::Csv, whole), "demo-rover_red-readings-run2.csv");
        assert_eq!(
            export_file_name("demo", &robot, ExportFormat::Mcap, upto),
            "demo-rover_red-recording-run2-to-step4800.mcap"
        );
    }

    #[test]
    fn the_labs_downloads_cover_every_robot() {
        let span = ExportSpan { run: 1, steps: Some((240, 480)) };
        assert_eq!(
            export_url("my lab", &ExportScope::Lab, ExportFormat::Csv, span),
            "/api/labs/my%20lab/recording.csv?run=1&from=240&to=480"
        );
        assert_eq!(
            export_file_name("../x", &ExportScope::Lab, ExportFormat::Mcap, ExportSpan { run: 1, steps: None }),
            "___x-recording-run1.mcap"
        );
    }
}
