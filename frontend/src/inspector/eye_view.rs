//! The robot's-eye view, the pure part: which of a robot's sensors are cameras, and a
//! camera image as the RGBA pixels a canvas takes.

use vlab_protocol::SensorReport;

/// The names of the `Camera` and `DepthCamera` sensors among a report's, in
/// declaration order.
pub fn camera_names(sensors: &[SensorReport]) -> Vec<String> {
    sensors.iter().filter(|s| matches!(s.kind.as_str(), "Camera" | "DepthCamera")).map(|s| s.name.clone()).collect()
}

/// RGB pixels as opaque RGBA.
pub fn rgba_of(rgb: &[u8]) -> Vec<u8> {
    let mut rgba = Vec::with_capacity(rgb.len() / 3 * 4);
    for pixel in rgb.chunks_exact(3) {
        rgba.extend_from_slice(pixel);
        rgba.push(255);
    }
    rgba
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sensor(name: &str, kind: &str) -> SensorReport {
        SensorReport {
            name: name.into(),
            kind: kind.into(),
            rate: None,
            step: None,
            time: None,
            measured: None,
            truth: None,
            origin: None,
        }
    }

    #[test]
    fn only_cameras_are_offered_and_pixels_become_opaque() {
        let sensors = [sensor("gps", "SimpleGPS"), sensor("eye", "Camera"), sensor("depth", "DepthCamera")];
        assert_eq!(camera_names(&sensors), ["eye", "depth"]);
        assert_eq!(rgba_of(&[1, 2, 3, 4, 5, 6]), vec![1, 2, 3, 255, 4, 5, 6, 255]);
    }
}
