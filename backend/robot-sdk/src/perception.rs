//! The IMU's and the landmark sensor's readings, and the robot's radio: `send` and
//! `receive` (docs/programs.md, "Talking by radio"; docs/sensors.md, "Radio").

use crate::ffi::{self, reading, status};
use crate::{Robot, Sensor};

/// The most radio messages a robot sends per control step (the lab's limit).
pub use vlab_protocol::MAX_RADIO_SENT_PER_STEP as MAX_SENT_PER_STEP;

/// A beacon a `LandmarkSensor` sees, in the sensor's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Landmark {
    /// The beacon's name in the scene.
    pub id: String,
    /// Metres from the sensor.
    pub distance: f64,
    /// Radians counter-clockwise from the sensor's forward axis, seen from above.
    pub bearing: f64,
    /// Radians above the sensor's horizontal plane.
    pub elevation: f64,
}

/// A radio message heard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The robot that sent it.
    pub sender: String,
    /// What it sent.
    pub text: String,
}

impl Sensor {
    /// An IMU's roll, pitch and yaw, radians (`None` for other sensors or before the
    /// first reading).
    pub fn orientation(&self) -> Option<[f64; 3]> {
        (ffi::reading_type(self.index) == reading::ORIENTATION)
            .then(|| [0, 1, 2].map(|k| ffi::reading_value(self.index, k)))
    }

    /// An IMU's quaternion `[w, x, y, z]`, world frame.
    pub fn quaternion(&self) -> Option<[f64; 4]> {
        (ffi::reading_type(self.index) == reading::ORIENTATION)
            .then(|| [3, 4, 5, 6].map(|k| ffi::reading_value(self.index, k)))
    }

    /// The beacons a `LandmarkSensor` sees, by id (empty for other sensors or before
    /// the first reading).
    pub fn landmarks(&self) -> Vec<Landmark> {
        if ffi::reading_type(self.index) != reading::LANDMARKS {
            return Vec::new();
        }
        let count = ffi::reading_len(self.index).max(0) / 3;
        (0..count)
            .map(|k| Landmark {
                id: ffi::read_string(|buf| ffi::key_name(self.index, k, buf)).unwrap_or_default(),
                distance: ffi::reading_value(self.index, 3 * k),
                bearing: ffi::reading_value(self.index, 3 * k + 1),
                elevation: ffi::reading_value(self.index, 3 * k + 2),
            })
            .collect()
    }
}

impl Robot {
    /// Sends `text` on the robot's `Radio` with this step's answer: robots in range on
    /// its channel hear it at the next control step. The lab drops a message longer
    /// than the radio's `max_length` (64 bytes unless the scene says otherwise) and says
    /// so in the console.
    ///
    /// # Panics
    /// When the robot has no `Radio`, past [`MAX_SENT_PER_STEP`] messages in one step,
    /// or for a message over 1024 bytes (the largest `max_length`).
    #[track_caller]
    pub fn send(&self, text: &str) {
        match ffi::radio_send(text) {
            status::OK => {}
            status::NO_SUCH_PART => panic!("send: this robot has no Radio"),
            _ => panic!("send: at most {MAX_SENT_PER_STEP} messages per step, each at most 1024 bytes"),
        }
    }

    /// The messages the robot's `Radio` heard at this control step, by sender name and
    /// then in the order each sender sent them (empty without a radio). A program that
    /// waits misses the steps it waits through.
    pub fn receive(&self) -> Vec<Message> {
        let Some(radio) = (0..ffi::sensor_count()).find(|&i| ffi::reading_type(i) == reading::RADIO) else {
            return Vec::new();
        };
        let count = ffi::reading_value(radio, 0);
        let count = if count.is_finite() { count as i32 } else { 0 };
        let text = |k| ffi::read_string(|buf| ffi::key_name(radio, k, buf)).unwrap_or_default();
        (0..count).map(|k| Message { sender: text(2 * k), text: text(2 * k + 1) }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::FakeLab;

    #[test]
    fn an_imu_and_a_landmark_sensor_read_what_the_lab_gave() {
        let mut lab = FakeLab::new().sensor("imu", "IMU").sensor("eyes", "LandmarkSensor").sensor("gps", "SimpleGPS");
        lab.set_orientation("imu", [0.1, -0.2, 1.5], [1.0, 0.0, 0.0, 0.0]);
        lab.set_landmarks("eyes", &[("B1", 3.0, 0.0, 0.0), ("B2", 5.0, 0.927, 0.1)]);
        lab.install();
        let robot = Robot::new();
        assert_eq!(robot.sensor("imu").orientation(), Some([0.1, -0.2, 1.5]));
        assert_eq!(robot.sensor("imu").quaternion(), Some([1.0, 0.0, 0.0, 0.0]));
        let seen = robot.sensor("eyes").landmarks();
        assert_eq!(seen[1], Landmark { id: "B2".into(), distance: 5.0, bearing: 0.927, elevation: 0.1 });
        assert_eq!(seen.len(), 2);
        assert_eq!(robot.sensor("gps").orientation(), None);
    }

    #[test]
    fn messages_go_out_with_the_step_and_heard_ones_come_in() {
        let mut lab = FakeLab::new().sensor("radio", "Radio");
        lab.set_heard("radio", &[("amy", "go"), ("bob", "stop")]);
        lab.install();
        let robot = Robot::new();
        robot.send("hello");
        robot.send("over");
        assert_eq!(FakeLab::with(FakeLab::take_radio), ["hello", "over"]);
        let heard = robot.receive();
        assert_eq!(heard[0], Message { sender: "amy".into(), text: "go".into() });
        assert_eq!(heard[1].text, "stop");
        for _ in 0..MAX_SENT_PER_STEP {
            robot.send("x");
        }
        let past = std::panic::catch_unwind(|| Robot::new().send("one too many"));
        assert!(past.is_err(), "the seventeenth message in a step is refused");
    }

    #[test]
    #[should_panic(expected = "this robot has no Radio")]
    fn a_robot_without_a_radio_cannot_send() {
        FakeLab::new().sensor("gps", "SimpleGPS").install();
        Robot::new().send("anyone?");
    }
}
