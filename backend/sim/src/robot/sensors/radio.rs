//! A `Radio`: what the lab's router needs to know of it (where it is, its channel,
//! range and limits). It reads nothing by itself: the router (`lab::radio`) hands it,
//! at every control step, the messages it heard and the ones its robot sent.

use crate::scene::{DeviceModel, ParamValue};

/// One radio's settings (docs/sensors.md, "Radio").
#[derive(Clone, Debug, PartialEq)]
pub struct RadioSettings {
    /// The body it sits on (a radio on the robot as a whole: the main body).
    pub body: usize,
    /// It hears only messages sent on its channel, and sends on it.
    pub channel: u32,
    /// How far its messages carry, metres.
    pub range: f64,
    /// The longest message it sends, bytes of UTF-8.
    pub max_length: usize,
    /// The most messages it hears per control step; later ones are lost.
    pub max_heard: usize,
    /// Whether its messages need a clear straight line to be heard.
    pub line_of_sight: bool,
}

impl RadioSettings {
    /// The settings `device` declares, on body `body`.
    pub fn new(device: &DeviceModel, body: usize) -> RadioSettings {
        let whole = |name| device.num(name).unwrap_or(1.0).max(1.0) as usize;
        RadioSettings {
            body,
            channel: whole("channel") as u32,
            range: device.num("range").unwrap_or(0.0),
            max_length: whole("max_length"),
            max_heard: whole("max_heard"),
            line_of_sight: matches!(device.param("line_of_sight"), Some(ParamValue::Bool(true))),
        }
    }

    /// Follows its body to its new index after others were removed.
    pub fn renumber(&mut self, moved: &crate::scene::Renumbering) {
        self.body = moved.bodies[self.body].expect("a robot's bodies stay with it");
    }
}
