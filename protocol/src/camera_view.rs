//! The robot's-eye view: a camera's latest image as a binary websocket message, sent
//! only to the pages that asked to watch that camera ([`crate::ClientMsg::WatchCamera`]).
//!
//! Layout (little-endian), beside the frames' `"VF"`:
//! ```text
//! "VC" (2 bytes) | format u8 | step u64 | width u16 | height u16 | depth u8 (0/1)
//! | robot length u8 | robot (UTF-8) | sensor length u8 | sensor (UTF-8)
//! | width × height × 3 bytes: RGB, row-major, top row first
//! ```
//! A depth camera's image comes as greys (near white, its range and beyond black), so
//! a page draws both kinds the same way.

const MAGIC: [u8; 2] = *b"VC";
const FORMAT: u8 = 1;

/// One camera image for a person to look at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CameraView {
    /// The robot's name.
    pub robot: String,
    /// The camera's name within the robot.
    pub sensor: String,
    /// The step the image was taken after.
    pub step: u64,
    /// Pixels across.
    pub width: u16,
    /// Pixels down.
    pub height: u16,
    /// Whether it is a depth camera's image drawn in greys.
    pub depth: bool,
    /// `width × height × 3` bytes: RGB, row-major, top row first.
    pub rgb: Vec<u8>,
}

/// Why bytes could not be read as a [`CameraView`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CameraViewError {
    /// Not a camera view (another binary message, such as a frame).
    #[error("not a camera view (bad magic)")]
    BadMagic,
    /// A format this build does not read.
    #[error("camera view format {0} is not supported (this build reads format {FORMAT})")]
    UnsupportedFormat(u8),
    /// The message ended early or its pixels do not fill the image.
    #[error("camera view of {len} bytes is truncated or its pixels do not match its size")]
    Truncated {
        /// Total length received.
        len: usize,
    },
    /// A name that is not UTF-8.
    #[error("camera view names are not UTF-8")]
    BadName,
}

impl CameraView {
    /// Whether `bytes` are a camera view rather than a frame.
    pub fn is_camera_view(bytes: &[u8]) -> bool {
        bytes.starts_with(&MAGIC)
    }

    /// Encodes the view. Names longer than 255 bytes are cut (robot and sensor names
    /// are far shorter).
    pub fn encode(&self) -> Vec<u8> {
        let (robot, sensor) = (cut(&self.robot), cut(&self.sensor));
        let mut out = Vec::with_capacity(20 + robot.len() + sensor.len() + self.rgb.len());
        out.extend_from_slice(&MAGIC);
        out.push(FORMAT);
        out.extend_from_slice(&self.step.to_le_bytes());
        out.extend_from_slice(&self.width.to_le_bytes());
        out.extend_from_slice(&self.height.to_le_bytes());
        out.push(u8::from(self.depth));
        for name in [robot, sensor] {
            out.push(name.len() as u8);
            out.extend_from_slice(name);
        }
        out.extend_from_slice(&self.rgb);
        out
    }

    /// Decodes a view written by [`CameraView::encode`].
    pub fn decode(bytes: &[u8]) -> Result<CameraView, CameraViewError> {
        let truncated = CameraViewError::Truncated { len: bytes.len() };
        if !Self::is_camera_view(bytes) {
            return Err(CameraViewError::BadMagic);
        }
        let format = *bytes.get(2).ok_or(truncated.clone())?;
        if format != FORMAT {
            return Err(CameraViewError::UnsupportedFormat(format));
        }
        let header = bytes.get(3..16).ok_or(truncated.clone())?;
        let step = u64::from_le_bytes(header[0..8].try_into().expect("8 bytes"));
        let width = u16::from_le_bytes([header[8], header[9]]);
        let height = u16::from_le_bytes([header[10], header[11]]);
        let depth = header[12] != 0;
        let mut at = 16;
        let mut names = [String::new(), String::new()];
        for name in &mut names {
            let len = usize::from(*bytes.get(at).ok_or(truncated.clone())?);
            let text = bytes.get(at + 1..at + 1 + len).ok_or(truncated.clone())?;
            *name = std::str::from_utf8(text).map_err(|_| CameraViewError::BadName)?.to_owned();
            at += 1 + len;
        }
        let rgb = &bytes[at..];
        if rgb.len() != usize::from(width) * usize::from(height) * 3 {
            return Err(truncated);
        }
        let [robot, sensor] = names;
        Ok(CameraView { robot, sensor, step, width, height, depth, rgb: rgb.to_vec() })
    }
}

fn cut(name: &str) -> &[u8] {
    let bytes = name.as_bytes();
    &bytes[..bytes.len().min(255)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_round_trips_and_is_told_from_a_frame() {
        let view = CameraView {
            robot: "rover".into(),
            sensor: "eye".into(),
            step: 480,
            width: 2,
            height: 1,
            depth: false,
            rgb: vec![255, 0, 0, 0, 0, 255],
        };
        let bytes = view.encode();
        // 16 header bytes, 1 + 5 and 1 + 3 of names, 6 of pixels.
        assert_eq!(bytes.len(), 16 + 6 + 4 + 6);
        assert!(CameraView::is_camera_view(&bytes));
        assert_eq!(CameraView::decode(&bytes), Ok(view));
        assert!(!CameraView::is_camera_view(&crate::Frame::default().encode()));
        assert_eq!(CameraView::decode(&bytes[..bytes.len() - 1]), Err(CameraViewError::Truncated { len: 31 }));
    }
}
