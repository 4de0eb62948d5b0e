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
    /// A camera's pixels, as `reading_bytes` serves them (empty for other sensors).
    pub bytes: Vec<u8>,
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
            Some(SensorValue::Orientation { roll, pitch, yaw, quaternion }) => {
                let values = [*roll, *pitch, *yaw].into_iter().chain(*quaternion).collect();
                (ReadingType::Orientation, values, Vec::new())
            }
            Some(SensorValue::Landmarks { landmarks }) => {
                let values = landmarks.iter().flat_map(|l| [l.distance, l.bearing, l.elevation]).collect();
                (ReadingType::Landmarks, values, landmarks.iter().map(|l| l.id.clone()).collect())
            }
            Some(SensorValue::Radio { heard, .. }) => {
                let texts = heard.iter().flat_map(|m| [m.from.clone(), m.text.clone()]).collect();
                (ReadingType::Radio, vec![heard.len() as f64], texts)
            }
            Some(SensorValue::Image { width, height, mean, pixels }) => {
                let values =
                    vec![f64::from(*width), f64::from(*height)].into_iter().chain(mean.map(f64::from)).collect();
                return Reading { kind: ReadingType::Image, values, keys: Vec::new(), bytes: decode(pixels) };
            }
            Some(SensorValue::DepthImage { width, height, max_range, nearest, depths }) => {
                let values = vec![f64::from(*width), f64::from(*height), *max_range, *nearest];
                return Reading { kind: ReadingType::DepthImage, values, keys: Vec::new(), bytes: decode(depths) };
            }
        };
        Reading { kind, values, keys, bytes: Vec::new() }
    }

    /// The reading that follows `previous`: an image that came without its pixels (the
    /// lab sends them once, in the first step after the image was taken) keeps the
    /// pixels it had.
    pub fn after(mut self, previous: &mut Reading) -> Reading {
        if matches!(self.kind, ReadingType::Image | ReadingType::DepthImage)
            && self.bytes.is_empty()
            && previous.kind == self.kind
        {
            self.bytes = std::mem::take(&mut previous.bytes);
        }
        self
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

/// Base64 pixels as bytes (empty when absent or unreadable: the lab writes them).
fn decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_keeps_its_pixels_until_a_new_one_comes() {
        let image = |pixels: &str| SensorValue::Image { width: 1, height: 1, mean: [1, 2, 3], pixels: pixels.into() };
        let mut first = Reading::from_value(Some(&image("AQID")));
        assert_eq!(
            (first.kind, first.values.clone(), first.bytes.clone()),
            (ReadingType::Image, vec![1.0, 1.0, 1.0, 2.0, 3.0], vec![1, 2, 3])
        );
        let mut second = Reading::from_value(Some(&image(""))).after(&mut first);
        assert_eq!(second.bytes, vec![1, 2, 3], "the summary alone keeps the last pixels");
        let third = Reading::from_value(Some(&image("BAUG"))).after(&mut second);
        assert_eq!(third.bytes, vec![4, 5, 6]);
    }

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
