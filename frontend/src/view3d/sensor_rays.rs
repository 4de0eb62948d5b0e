//! Where a ray sensor's rays went in the world: from the frame its reading was cast in, each beam out to the distance it measured.
//!
//! A ray sensor's report carries `origin`, its frame in the world at that reading
//! (forward local +X). A scan's beam `i` leaves at `angle_min + i·angle_step`,
//! counter-clockwise seen from above in the frame's XZ plane: local direction
//! `(cos a, 0, −sin a)`. A single-number ray sensor (laser, infrared, the sonar's cone
//! axis) looks along local +X. Its report does not say its maximum range, so its ray
//! always ends in a hit point at the distance it reads.

use vlab_protocol::pose::{add, from_wxyz, normalized, rotate, scale};
use vlab_protocol::{SensorReport, SensorValue};

/// One ray as drawn: a segment and whether it ended on something.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Beam {
    /// Where it was cast from, world metres.
    pub from: [f32; 3],
    /// Where its measured distance ends.
    pub to: [f32; 3],
    /// It hit something there (a scan's beam short of its maximum range).
    pub hit: bool,
}

/// The beams of one sensor's latest measured reading; none for a sensor that casts no
/// rays (no `origin`) or has not read yet. Non-finite or negative distances are left out.
pub fn sensor_beams(sensor: &SensorReport) -> Vec<Beam> {
    let (Some(origin), Some(value)) = (sensor.origin.as_ref(), sensor.measured.as_ref()) else { return Vec::new() };
    let from = origin.position.map(|c| c as f32);
    let rotation = normalized(from_wxyz(origin.quaternion).map(|c| c as f32));
    let beam = |local: [f32; 3], range: f32, hit: bool| Beam {
        from,
        to: add(from, scale(rotate(rotation, local), range)),
        hit,
    };
    let usable = |range: f64| range.is_finite() && range >= 0.0;
    match value {
        SensorValue::Scan { angle_min, angle_step, max_range, ranges } => ranges
            .iter()
            .enumerate()
            .filter(|(_, range)| usable(f64::from(**range)))
            .map(|(i, &range)| {
                let angle = angle_min + i as f64 * angle_step;
                let hit = f64::from(range) < *max_range;
                let reach = if max_range.is_finite() { f64::from(range).min(*max_range) } else { f64::from(range) };
                beam([angle.cos() as f32, 0.0, -angle.sin() as f32], reach as f32, hit)
            })
            .collect(),
        SensorValue::Scalar { value } if usable(*value) => vec![beam([1.0, 0.0, 0.0], *value as f32, true)],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4};

    use vlab_protocol::RobotPose;

    use super::*;

    fn close(a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4)
    }

    /// A sensor at (1, 0.2, 3) turned `yaw` about +Y (counter-clockwise from above).
    fn sensor(measured: SensorValue, yaw: f64) -> SensorReport {
        SensorReport {
            name: "s".into(),
            kind: "Lidar".into(),
            rate: Some(10.0),
            step: Some(1),
            time: Some(0.1),
            measured: Some(measured),
            truth: None,
            origin: Some(RobotPose {
                position: [1.0, 0.2, 3.0],
                quaternion: [(yaw / 2.0).cos(), 0.0, (yaw / 2.0).sin(), 0.0],
                heading: yaw,
            }),
        }
    }

    #[test]
    fn scan_beams_fan_counter_clockwise_from_the_right() {
        // Beams at −90° (right of forward), 0° (forward) and +90° (left); forward is +X.
        let scan = SensorValue::Scan {
            angle_min: -FRAC_PI_2,
            angle_step: FRAC_PI_2,
            max_range: 8.0,
            ranges: vec![2.0, 8.0, 1.0],
        };
        let beams = sensor_beams(&sensor(scan, 0.0));
        assert_eq!(beams.len(), 3);
        assert!(beams.iter().all(|b| b.from == [1.0, 0.2, 3.0]));
        // Seen from above with +X forward, the right is +Z and the left −Z.
        assert!(close(beams[0].to, [1.0, 0.2, 5.0]) && beams[0].hit);
        assert!(close(beams[1].to, [9.0, 0.2, 3.0]) && !beams[1].hit, "at its maximum range: a miss");
        assert!(close(beams[2].to, [1.0, 0.2, 2.0]) && beams[2].hit);
    }

    #[test]
    fn the_frame_turns_the_beams() {
        // A quarter turn counter-clockwise: forward is now −Z.
        let scan = SensorValue::Scan { angle_min: 0.0, angle_step: FRAC_PI_4, max_range: 8.0, ranges: vec![2.0] };
        let beams = sensor_beams(&sensor(scan, FRAC_PI_2));
        assert!(close(beams[0].to, [1.0, 0.2, 1.0]), "{:?}", beams[0]);
    }

    #[test]
    fn a_single_ray_looks_forward_and_ends_in_a_hit() {
        let beams = sensor_beams(&sensor(SensorValue::Scalar { value: 1.5 }, 0.0));
        assert_eq!(beams, vec![Beam { from: [1.0, 0.2, 3.0], to: [2.5, 0.2, 3.0], hit: true }]);
    }

    #[test]
    fn sensors_without_an_origin_or_a_reading_cast_nothing() {
        let mut gps = sensor(SensorValue::Vector { values: [1.0, 2.0, 3.0] }, 0.0);
        assert!(sensor_beams(&gps).is_empty(), "a vector is no ray");
        gps.measured = Some(SensorValue::Scalar { value: 2.0 });
        gps.origin = None;
        assert!(sensor_beams(&gps).is_empty(), "no origin: not a ray sensor");
        let mut unread = sensor(SensorValue::Scalar { value: 2.0 }, 0.0);
        unread.measured = None;
        assert!(sensor_beams(&unread).is_empty());
        let broken =
            SensorValue::Scan { angle_min: 0.0, angle_step: 0.1, max_range: 5.0, ranges: vec![f32::NAN, -1.0, 2.0] };
        assert_eq!(sensor_beams(&sensor(broken, 0.0)).len(), 1);
    }
}
