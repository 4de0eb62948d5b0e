//! The CSV export: one row per sensor reading, `run,step,time,robot,sensor,kind,
//! measured,true`, numbers in Rust's shortest form that reads back to the same value,
//! a value of several numbers as one cell of space-separated numbers, fields quoted as
//! RFC 4180 says (and its CRLF line ends).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write;

use vlab_protocol::SensorValue;

use super::{ExportError, ExportPlan, Readings};
use crate::classroom::Recordings;
use vlab_lab::recording::RobotReading;

/// The header row.
pub const HEADER: &str = "run,step,time,robot,sensor,kind,measured,true";

/// Writes `plan`'s readings as CSV into `out`.
pub fn write(plan: &ExportPlan, recordings: &Recordings, mut out: impl Write) -> Result<(), ExportError> {
    write!(out, "{HEADER}\r\n")?;
    let mut readings = Readings::new();
    let mut row = String::new();
    plan.each_chunk(recordings, |chunk, _| {
        for reading in readings.of(plan, chunk) {
            row.clear();
            format_row(&mut row, plan.run, reading);
            out.write_all(row.as_bytes())?;
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(())
}

/// One reading's row, with its line end.
fn format_row(row: &mut String, run: u32, reading: &RobotReading) {
    let sensor = &reading.sensor;
    let step = sensor.step.map(|s| s.to_string()).unwrap_or_default();
    let time = sensor.time.map(|t| t.to_string()).unwrap_or_default();
    let measured = sensor.measured.as_ref().map(cell).unwrap_or_default();
    let truth = sensor.truth.as_ref().map(cell).unwrap_or_default();
    let fields = [&run.to_string(), &step, &time, &reading.robot, &sensor.name, &sensor.kind, &measured, &truth];
    for (i, field) in fields.into_iter().enumerate() {
        if i > 0 {
            row.push(',');
        }
        row.push_str(&quote(field));
    }
    row.push_str("\r\n");
}

/// A value as one cell: its numbers separated by spaces (a scalar; a vector's x y z; a
/// pose's x y theta; a joint's position velocity; an encoder's ticks angle; a
/// contact's touching (1 or 0), force x y z and, when touching, point x y z; a scan's
/// ranges), or the names of the keys held.
pub fn cell(value: &SensorValue) -> String {
    let mut cell = String::new();
    let mut push = |n: &dyn std::fmt::Display| {
        if !cell.is_empty() {
            cell.push(' ');
        }
        // Writing into a String cannot fail.
        let _ = write!(cell, "{n}");
    };
    match value {
        SensorValue::Scalar { value } => push(value),
        SensorValue::Vector { values } => values.iter().for_each(|v| push(v)),
        SensorValue::Scan { ranges, .. } => ranges.iter().for_each(|r| push(r)),
        SensorValue::Keys { keys } => keys.iter().for_each(|k| push(k)),
        SensorValue::Ticks { ticks, angle } => {
            push(ticks);
            push(angle);
        }
        SensorValue::Joint { position, velocity } => {
            push(position);
            push(velocity);
        }
        SensorValue::Pose2d { x, y, theta } => {
            push(x);
            push(y);
            push(theta);
        }
        SensorValue::Contact { touching, point, force } => {
            push(&u8::from(*touching));
            force.iter().for_each(|f| push(f));
            point.iter().flatten().for_each(|p| push(p));
        }
        // Images are recorded as their summaries (docs/recording.md).
        SensorValue::Image { width, height, mean, .. } => {
            push(width);
            push(height);
            mean.iter().for_each(|c| push(c));
        }
        SensorValue::DepthImage { width, height, nearest, .. } => {
            push(width);
            push(height);
            push(nearest);
        }
        SensorValue::Orientation { roll, pitch, yaw, quaternion } => {
            [roll, pitch, yaw].into_iter().chain(quaternion).for_each(|v| push(v));
        }
        // Each beacon seen: its id, distance, bearing, elevation.
        SensorValue::Landmarks { landmarks } => landmarks.iter().for_each(|l| {
            push(&l.id);
            push(&l.distance);
            push(&l.bearing);
            push(&l.elevation);
        }),
        // How many messages were heard and sent (their texts are the programs' own).
        SensorValue::Radio { heard, sent } => {
            push(&heard.len());
            push(&sent.len());
        }
    }
    cell
}

/// A field as RFC 4180 writes it: quoted (its quotes doubled) when it holds a comma, a
/// quote or a line break.
fn quote(field: &str) -> Cow<'_, str> {
    if field.contains([',', '"', '\r', '\n']) {
        Cow::Owned(format!("\"{}\"", field.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_protocol::SensorReport;

    #[test]
    fn values_are_cells_of_numbers_that_read_back_exactly() {
        assert_eq!(cell(&SensorValue::Scalar { value: 0.1 + 0.2 }), "0.30000000000000004");
        assert_eq!(cell(&SensorValue::Vector { values: [1.0, -2.5, 1e-7] }), "1 -2.5 0.0000001");
        assert_eq!(cell(&SensorValue::Pose2d { x: 1.0, y: 2.0, theta: -0.5 }), "1 2 -0.5");
        assert_eq!(cell(&SensorValue::Ticks { ticks: -12, angle: 0.25 }), "-12 0.25");
        assert_eq!(cell(&SensorValue::Joint { position: 0.5, velocity: 2.0 }), "0.5 2");
        assert_eq!(cell(&SensorValue::Keys { keys: vec!["I".into(), "SPACE".into()] }), "I SPACE");
        let scan = SensorValue::Scan { angle_min: -1.0, angle_step: 0.5, max_range: 8.0, ranges: vec![1.5, 8.0] };
        assert_eq!(cell(&scan), "1.5 8");
        let touch = SensorValue::Contact { touching: true, point: Some([1.0, 0.0, 2.0]), force: [0.0, 9.81, 0.0] };
        assert_eq!(cell(&touch), "1 0 9.81 0 1 0 2");
        let free = SensorValue::Contact { touching: false, point: None, force: [0.0; 3] };
        assert_eq!(cell(&free), "0 0 0 0");
        let x: f64 = "0.30000000000000004".parse().unwrap();
        assert_eq!(x, 0.1 + 0.2);
    }

    #[test]
    fn fields_are_quoted_only_when_they_must_be() {
        assert_eq!(quote("ana_bot"), "ana_bot");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote("two\nlines"), "\"two\nlines\"");
    }

    #[test]
    fn a_row_holds_the_reading() {
        let reading = RobotReading {
            robot: "ana,bot".into(),
            sensor: SensorReport {
                name: "gps".into(),
                kind: "SimpleGPS".into(),
                rate: Some(10.0),
                step: Some(240),
                time: Some(1.0),
                measured: Some(SensorValue::Vector { values: [1.0, 2.0, 3.0] }),
                truth: None,
                origin: None,
            },
        };
        let mut row = String::new();
        format_row(&mut row, 2, &reading);
        assert_eq!(row, "2,240,1,\"ana,bot\",gps,SimpleGPS,1 2 3,\r\n");
    }
}
