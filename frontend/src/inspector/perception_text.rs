//! The IMU's, the landmark sensor's and the radio's readings in a sensor table cell:
//! an orientation's three angles, the beacons seen, the messages heard and sent.

use vlab_protocol::{Landmark, RadioMessage};

use super::value_text::{heading_text, number_text};

/// The characters of a message shown before it is cut (a cell stays one line or two).
const SHOWN_CHARS: usize = 24;

/// Roll, pitch and yaw in degrees: `roll 10.0° pitch -5.0° yaw 90.0°`.
pub fn orientation_text(roll: f64, pitch: f64, yaw: f64) -> String {
    format!("roll {} pitch {} yaw {}", heading_text(roll), heading_text(pitch), heading_text(yaw))
}

/// Each beacon seen, by id: `B1 3.000 m at 0.0° · B2 5.000 m at 53.1°`.
pub fn landmarks_text(landmarks: &[Landmark]) -> String {
    if landmarks.is_empty() {
        return "no beacon in view".into();
    }
    let seen: Vec<String> = landmarks
        .iter()
        .map(|l| format!("{} {} m at {}", l.id, number_text(l.distance), heading_text(l.bearing)))
        .collect();
    seen.join(" · ")
}

/// The messages of the latest control step: `heard amy: "go", bob: "stop" · sent "ok"`.
pub fn radio_text(heard: &[RadioMessage], sent: &[String]) -> String {
    let heard = if heard.is_empty() {
        "heard nothing".to_owned()
    } else {
        let each: Vec<String> = heard.iter().map(|m| format!("{}: {}", m.from, quoted(&m.text))).collect();
        format!("heard {}", each.join(", "))
    };
    if sent.is_empty() {
        return heard;
    }
    let sent: Vec<String> = sent.iter().map(|text| quoted(text)).collect();
    format!("{heard} · sent {}", sent.join(", "))
}

/// A message in quotes, cut with an ellipsis past [`SHOWN_CHARS`].
fn quoted(text: &str) -> String {
    if text.chars().count() <= SHOWN_CHARS {
        return format!("\"{text}\"");
    }
    let cut: String = text.chars().take(SHOWN_CHARS - 1).collect();
    format!("\"{cut}…\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orientations_read_in_degrees() {
        let text = orientation_text(0.1745329, -0.0872665, std::f64::consts::FRAC_PI_2);
        assert_eq!(text, "roll 10.0° pitch -5.0° yaw 90.0°");
    }

    #[test]
    fn beacons_read_with_distance_and_bearing() {
        let beacon = |id: &str, distance, bearing| Landmark { id: id.into(), distance, bearing, elevation: 0.0 };
        assert_eq!(landmarks_text(&[]), "no beacon in view");
        let seen = [beacon("B1", 3.0, 0.0), beacon("B2", 5.0, 4f64.atan2(3.0))];
        assert_eq!(landmarks_text(&seen), "B1 3.000 m at 0.0° · B2 5.000 m at 53.1°");
    }

    #[test]
    fn radio_readings_list_what_was_heard_and_sent() {
        let message = |from: &str, text: &str| RadioMessage { from: from.into(), text: text.into() };
        assert_eq!(radio_text(&[], &[]), "heard nothing");
        let heard = [message("amy", "go"), message("bob", "stop")];
        assert_eq!(radio_text(&heard, &["ok".into()]), "heard amy: \"go\", bob: \"stop\" · sent \"ok\"");
        let long = "a message far longer than a cell";
        assert_eq!(radio_text(&[message("a", long)], &[]), "heard a: \"a message far longer th…\"");
    }
}
