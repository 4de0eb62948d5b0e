//! What a robot perceives of the others and of the lab's landmarks: a beacon seen by a
//! `LandmarkSensor` and a message heard on a `Radio` (docs/sensors.md).

use serde::{Deserialize, Serialize};

/// One beacon in a `LandmarkSensor`'s field of view, in the sensor's frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Landmark {
    /// The beacon's name in the scene.
    pub id: String,
    /// From the sensor's origin to the beacon, metres.
    pub distance: f64,
    /// Counter-clockwise from the sensor's forward axis seen from above, radians.
    pub bearing: f64,
    /// Above the sensor's horizontal plane (its XZ plane), radians.
    pub elevation: f64,
}

/// One message heard on a radio.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RadioMessage {
    /// The robot that sent it.
    pub from: String,
    /// What it sent (UTF-8, at most the sender radio's `max_length` bytes).
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SensorValue;

    #[test]
    fn perception_readings_have_their_documented_json() {
        let seen = SensorValue::Landmarks {
            landmarks: vec![Landmark { id: "B1".into(), distance: 2.0, bearing: 0.5, elevation: -0.1 }],
        };
        let json = serde_json::to_value(&seen).unwrap();
        assert_eq!(json["type"], "landmarks");
        assert_eq!(json["landmarks"][0]["id"], "B1");
        let radio = SensorValue::Radio {
            heard: vec![RadioMessage { from: "a".into(), text: "hi".into() }],
            sent: vec!["yo".into()],
        };
        let json = serde_json::to_string(&radio).unwrap();
        assert_eq!(json, r#"{"type":"radio","heard":[{"from":"a","text":"hi"}],"sent":["yo"]}"#);
        assert_eq!(serde_json::from_str::<SensorValue>(&json).unwrap(), radio);
    }
}
