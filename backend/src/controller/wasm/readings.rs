//! A sensor's reading laid out as the WebAssembly API serves it: a type code and a flat
//! list of numbers, computed once per control step so every host call is a lookup.

use vlab_protocol::SensorValue;

use super::abi::ReadingType;

/// One sensor's latest reading, flattened.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Reading {
    /// Its shape.
    pub kind: ReadingType,
    /// Its numbers, in the layout of [`ReadingType`].
    pub values: Vec<f64>,
    /// The keys held, for a keyboard (upper-case names).
    pub keys: Vec<String>,
}

impl Reading {
    /// The flat form of `value` (`None`: no reading yet).
    pub fn from_value(value: Option<&SensorValue>) -> Reading {
        let (kind, values, keys) = match value {
            None => (ReadingType::None, Vec::new(), Vec::new()),
            Some(SensorValue::Scalar { value }) => (ReadingType::Scalar, vec![*value], Vec::new()),
            Some(SensorValue::Vector { values }) => (ReadingType::Vector, values.to_vec(), Vec::new()),
            Some(SensorValue::Scan { angle_min, angle_step, max_range, ranges }) => {
                let mut values = Vec::with_capacity(3 + ranges.len());
                values.extend([*angle_min, *angle_step, *max_range]);
                values.extend(ranges.iter().map(|&r| f64::from(r)));
                (ReadingType::Scan, values, Vec::new())
            }
            Some(SensorValue::Keys { keys }) => (ReadingType::Keys, Vec::new(), keys.clone()),
            Some(SensorValue::Ticks { ticks, angle }) => (ReadingType::Ticks, vec![*ticks as f64, *angle], Vec::new()),
            Some(SensorValue::Joint { position, velocity }) => {
                (ReadingType::Joint, vec![*position, *velocity], Vec::new())
            }
            Some(SensorValue::Pose2d { x, y, theta }) => (ReadingType::Pose2d, vec![*x, *y, *theta], Vec::new()),
            Some(SensorValue::Contact { touching, point, force }) => {
                let point = point.unwrap_or([f64::NAN; 3]);
                let touching = if *touching { 1.0 } else { 0.0 };
                let values = vec![touching, force[0], force[1], force[2], point[0], point[1], point[2]];
                (ReadingType::Contact, values, Vec::new())
            }
        };
        Reading { kind, values, keys }
    }

    /// What `reading_len` answers: the number of values, or of keys held for a keyboard.
    pub fn reading_len(&self) -> usize {
        if self.kind == ReadingType::Keys { self.keys.len() } else { self.values.len() }
    }

    /// Whether `key` (any case) is held; `None` when this is not a keyboard's reading.
    pub fn key_held(&self, key: &str) -> Option<bool> {
        (self.kind == ReadingType::Keys).then(|| self.keys.iter().any(|k| k.eq_ignore_ascii_case(key)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_leads_with_its_geometry_then_its_ranges() {
        let scan = SensorValue::Scan { angle_min: -1.5, angle_step: 0.5, max_range: 10.0, ranges: vec![1.0, 2.5] };
        let reading = Reading::from_value(Some(&scan));
        assert_eq!(reading.kind, ReadingType::Scan);
        assert_eq!(reading.values, vec![-1.5, 0.5, 10.0, 1.0, 2.5]);
        assert_eq!(reading.reading_len(), 5);
    }

    #[test]
    fn no_reading_yet_has_no_values() {
        let reading = Reading::from_value(None);
        assert_eq!((reading.kind, reading.reading_len()), (ReadingType::None, 0));
        assert_eq!(reading.key_held("I"), None);
    }

    #[test]
    fn keys_are_matched_whatever_their_case_and_counted() {
        let keys = SensorValue::Keys { keys: vec!["I".into(), "ARROWUP".into()] };
        let reading = Reading::from_value(Some(&keys));
        assert_eq!(reading.reading_len(), 2);
        assert_eq!(reading.key_held("i"), Some(true));
        assert_eq!(reading.key_held("ArrowUp"), Some(true));
        assert_eq!(reading.key_held("J"), Some(false));
    }

    #[test]
    fn a_contact_without_a_point_says_nan_for_it() {
        let contact = SensorValue::Contact { touching: false, point: None, force: [0.0, 1.0, 2.0] };
        let reading = Reading::from_value(Some(&contact));
        assert_eq!(&reading.values[..4], &[0.0, 0.0, 1.0, 2.0]);
        assert!(reading.values[4..].iter().all(|v| v.is_nan()));
    }

    #[test]
    fn ticks_and_poses_keep_their_order() {
        let ticks = Reading::from_value(Some(&SensorValue::Ticks { ticks: -42, angle: -0.7 }));
        assert_eq!((ticks.kind, ticks.values), (ReadingType::Ticks, vec![-42.0, -0.7]));
        let pose = Reading::from_value(Some(&SensorValue::Pose2d { x: 1.0, y: 2.0, theta: 3.0 }));
        assert_eq!(pose.values, vec![1.0, 2.0, 3.0]);
    }
}
