//! How a robot report reads: compact text for numbers, poses, sensor values, actuator commands and program status.
//!
//! Live values change ten times a second, so every text here has a steady shape: a fixed
//! number of decimals for a given magnitude, units spelled once, no `-0.000`.

use vlab_protocol::{ActuatorCommand, JointReading, ProgramState, ProgramStatus, SensorValue};

/// A number with three decimals below 10, two below 1000, one beyond: millimetres and
/// milliradians where they matter, without long tails on large values.
pub fn number_text(value: f64) -> String {
    if !value.is_finite() {
        return if value.is_nan() {
            "NaN".into()
        } else if value > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    let magnitude = value.abs();
    let decimals = if magnitude < 10.0 {
        3
    } else if magnitude < 1000.0 {
        2
    } else {
        1
    };
    let text = format!("{value:.decimals$}");
    // A tiny negative rounds to "-0.000": it reads as a sign flicker, so drop the sign.
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') { text[1..].to_owned() } else { text }
}

/// `x y z`, each as [`number_text`].
pub fn position_text(values: [f64; 3]) -> String {
    values.map(number_text).join(" ")
}

/// An angle in radians as degrees in (−180°, 180°], one decimal: `45.0°`.
pub fn heading_text(radians: f64) -> String {
    if !radians.is_finite() {
        return number_text(radians);
    }
    let mut degrees = radians.to_degrees() % 360.0;
    if degrees > 180.0 {
        degrees -= 360.0;
    } else if degrees <= -180.0 {
        degrees += 360.0;
    }
    let text = format!("{degrees:.1}°");
    if text == "-0.0°" { "0.0°".into() } else { text }
}

/// Simulation seconds: `12.345 s` (millisecond resolution shows single 1/240 s steps).
pub fn time_text(secs: f64) -> String {
    format!("{secs:.3} s")
}

/// Simulation seconds without the unit, for a column that names it: `12.345`.
pub fn seconds_text(secs: f64) -> String {
    format!("{secs:.3}")
}

/// One sensor value in a table cell: short enough for a narrow panel.
pub fn sensor_value_text(value: &SensorValue) -> String {
    match value {
        SensorValue::Scalar { value } => number_text(*value),
        SensorValue::Vector { values } => position_text(*values),
        SensorValue::Scan { angle_min, angle_step, max_range, ranges } => {
            scan_text(*angle_min, *angle_step, *max_range, ranges)
        }
        SensorValue::Keys { keys } if keys.is_empty() => "no keys".into(),
        SensorValue::Keys { keys } => keys.join(", "),
        SensorValue::Ticks { ticks, angle } => format!("{ticks} ticks · {} rad", number_text(*angle)),
        SensorValue::Joint { position, velocity } => {
            joint_text(&JointReading { position: *position, velocity: *velocity })
        }
        SensorValue::Pose2d { x, y, theta } => {
            format!("x {} y {} θ {}", number_text(*x), number_text(*y), heading_text(*theta))
        }
        SensorValue::Contact { touching: false, .. } => "no contact".into(),
        SensorValue::Contact { touching: true, force, .. } => {
            let newtons = force.iter().map(|f| f * f).sum::<f64>().sqrt();
            format!("touching · {} N", number_text(newtons))
        }
        SensorValue::Image { width, height, mean: [r, g, b], .. } => format!("{width}×{height} · mean rgb {r} {g} {b}"),
        SensorValue::DepthImage { width, height, nearest, .. } => {
            format!("{width}×{height} · nearest {} m", number_text(*nearest))
        }
        SensorValue::Orientation { roll, pitch, yaw, .. } => {
            super::perception_text::orientation_text(*roll, *pitch, *yaw)
        }
        SensorValue::Landmarks { landmarks } => super::perception_text::landmarks_text(landmarks),
        SensorValue::Radio { heard, sent } => super::perception_text::radio_text(heard, sent),
    }
}

/// A scan summed up: beam count and the nearest hit with its direction.
fn scan_text(angle_min: f64, angle_step: f64, max_range: f64, ranges: &[f32]) -> String {
    if ranges.is_empty() {
        return "no beams".into();
    }
    let nearest = ranges
        .iter()
        .enumerate()
        .filter(|(_, range)| range.is_finite() && f64::from(**range) < max_range)
        .min_by(|a, b| a.1.total_cmp(b.1));
    let beams = ranges.len();
    match nearest {
        Some((index, range)) => format!(
            "{beams} beams · nearest {} m at {}",
            number_text(f64::from(*range)),
            heading_text(angle_min + index as f64 * angle_step)
        ),
        None => format!("{beams} beams · no hit"),
    }
}

/// A joint's coordinate and rate: `pos 0.520 · vel 1.200/s` (radians or metres: the
/// joint decides, the report does not say).
pub fn joint_text(joint: &JointReading) -> String {
    format!("pos {} · vel {}/s", number_text(joint.position), number_text(joint.velocity))
}

/// An actuator's command: `speed 6.000`, `position 0.500`, `v 0.150 m/s · ω 0.300 rad/s`.
pub fn command_text(command: &ActuatorCommand) -> String {
    match command {
        ActuatorCommand::Speed { speed } => format!("speed {}", number_text(*speed)),
        ActuatorCommand::Position { position } => format!("position {}", number_text(*position)),
        ActuatorCommand::Drive { v, omega } => {
            format!("v {} m/s · ω {} rad/s", number_text(*v), number_text(*omega))
        }
    }
}

/// A program's state with its file and runtime: `running · tankbot.rprj (PYTHON)`.
pub fn program_text(program: &ProgramStatus) -> String {
    let mut text = match program.state {
        ProgramState::None => "no program",
        ProgramState::Idle => "idle",
        ProgramState::Starting => "starting…",
        ProgramState::Running => "running",
        ProgramState::Stopped => "stopped",
    }
    .to_owned();
    if let Some(file) = &program.file {
        text.push_str(" · ");
        text.push_str(file);
    }
    if let Some(language) = &program.language {
        text.push_str(&format!(" ({language})"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_a_steady_shape() {
        assert_eq!(number_text(0.0), "0.000");
        assert_eq!(number_text(-0.0001), "0.000", "no sign flicker around zero");
        assert_eq!(number_text(-9.80665), "-9.807");
        assert_eq!(number_text(12.345), "12.35");
        assert_eq!(number_text(-345.678), "-345.68");
        assert_eq!(number_text(12345.678), "12345.7");
        assert_eq!(number_text(f64::NAN), "NaN");
        assert_eq!(number_text(f64::INFINITY), "∞");
    }

    #[test]
    fn headings_are_degrees_in_the_half_open_circle() {
        assert_eq!(heading_text(0.0), "0.0°");
        assert_eq!(heading_text(std::f64::consts::FRAC_PI_2), "90.0°");
        assert_eq!(heading_text(std::f64::consts::PI), "180.0°");
        assert_eq!(heading_text(-std::f64::consts::PI), "180.0°");
        assert_eq!(heading_text(1.5 * std::f64::consts::PI), "-90.0°");
        assert_eq!(heading_text(-1e-9), "0.0°");
    }

    #[test]
    fn every_sensor_value_reads_compactly() {
        let text = |value: SensorValue| sensor_value_text(&value);
        assert_eq!(text(SensorValue::Scalar { value: 1.23456 }), "1.235");
        assert_eq!(text(SensorValue::Vector { values: [1.0, -0.25, 12.5] }), "1.000 -0.250 12.50");
        assert_eq!(text(SensorValue::Keys { keys: vec![] }), "no keys");
        assert_eq!(text(SensorValue::Keys { keys: vec!["I".into(), "ARROWUP".into()] }), "I, ARROWUP");
        assert_eq!(text(SensorValue::Ticks { ticks: -512, angle: -12.566 }), "-512 ticks · -12.57 rad");
        assert_eq!(text(SensorValue::Joint { position: 0.52, velocity: -1.2 }), "pos 0.520 · vel -1.200/s");
        assert_eq!(
            text(SensorValue::Pose2d { x: 1.2, y: -3.4, theta: std::f64::consts::FRAC_PI_4 }),
            "x 1.200 y -3.400 θ 45.0°"
        );
        assert_eq!(text(SensorValue::Contact { touching: false, point: None, force: [0.0; 3] }), "no contact");
        assert_eq!(
            text(SensorValue::Contact { touching: true, point: Some([0.0; 3]), force: [3.0, 4.0, 0.0] }),
            "touching · 5.000 N"
        );
    }

    #[test]
    fn a_scan_reads_as_its_nearest_hit() {
        let scan = |ranges: Vec<f32>| SensorValue::Scan {
            angle_min: -std::f64::consts::FRAC_PI_2,
            angle_step: std::f64::consts::FRAC_PI_2,
            max_range: 10.0,
            ranges,
        };
        assert_eq!(sensor_value_text(&scan(vec![4.0, 10.0, 2.5])), "3 beams · nearest 2.500 m at 90.0°");
        assert_eq!(sensor_value_text(&scan(vec![10.0, 10.0, f32::NAN])), "3 beams · no hit");
        assert_eq!(sensor_value_text(&scan(vec![])), "no beams");
    }

    #[test]
    fn commands_and_programs_say_what_they_are() {
        assert_eq!(command_text(&ActuatorCommand::Speed { speed: 6.0 }), "speed 6.000");
        assert_eq!(command_text(&ActuatorCommand::Position { position: -0.5 }), "position -0.500");
        assert_eq!(command_text(&ActuatorCommand::Drive { v: 0.15, omega: 0.3 }), "v 0.150 m/s · ω 0.300 rad/s");
        let idle = ProgramStatus { file: None, language: None, state: ProgramState::None, message: None, late: None };
        assert_eq!(program_text(&idle), "no program");
        let running = ProgramStatus {
            file: Some("tankbot.rprj".into()),
            language: Some("PYTHON".into()),
            state: ProgramState::Running,
            message: None,
            late: None,
        };
        assert_eq!(program_text(&running), "running · tankbot.rprj (PYTHON)");
        let starting = ProgramStatus { state: ProgramState::Starting, ..running };
        assert_eq!(program_text(&starting), "starting… · tankbot.rprj (PYTHON)");
    }

    #[test]
    fn positions_and_times() {
        assert_eq!(position_text([1.0, 0.1, -2.0]), "1.000 0.100 -2.000");
        assert_eq!(time_text(1.0 / 240.0), "0.004 s");
        assert_eq!(seconds_text(11.05), "11.050");
    }
}
