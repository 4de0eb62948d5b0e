//! Adaptive render quality: lowers resolution, then shadows, when frames come too slowly.
//!
//! Students' laptops without GPU acceleration (and headless test browsers) render WebGL
//! on the CPU, where one full-resolution shadowed frame of a lab can take 100 ms or
//! more. A view at a few frames per second is unusable, a slightly blurrier one is not,
//! so the view trades pixels for speed. It only ever steps down: stepping back up
//! would oscillate between a level that is too slow and one that is fast enough.

/// What a quality level draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quality {
    /// Drawing-buffer pixels per device pixel.
    pub resolution_scale: f64,
    /// Whether the sun casts shadows.
    pub shadows: bool,
}

/// Best first.
const LEVELS: [Quality; 4] = [
    Quality { resolution_scale: 1.0, shadows: true },
    Quality { resolution_scale: 0.75, shadows: true },
    Quality { resolution_scale: 0.5, shadows: true },
    Quality { resolution_scale: 0.5, shadows: false },
];

/// Slower than this between frames (about 15 fps), on average, is too slow.
const SLOW_FRAME_MS: f64 = 66.0;
/// A level is judged on at least this many frames…
const MIN_FRAMES: u32 = 6;
/// …spanning at least this long (the first frames after a change are noisy).
const MIN_WINDOW_MS: f64 = 1500.0;
/// A level found fast enough starts a fresh window after this many frames, so a
/// later slowdown (a bigger scene, a busier machine) is still noticed.
const MAX_WINDOW_FRAMES: u32 = 240;
/// Longer gaps are pauses (hidden tab, debugger), not slow frames.
const MAX_MEANINGFUL_MS: f64 = 3000.0;

/// Where software WebGL starts: half resolution, shadows on. Measured under
/// SwiftShader on a busy 2-core machine, full resolution gave 1–2 frames per second,
/// and stepping down to here took several seconds of stalls on the way.
const SOFTWARE_START_LEVEL: usize = 2;

/// Watches frame intervals and picks the quality level.
#[derive(Clone, Debug, Default)]
pub struct QualityGovernor {
    level: usize,
    window_frames: u32,
    window_ms: f64,
}

impl QualityGovernor {
    /// A governor for a browser that renders WebGL on the CPU.
    pub fn for_software_rendering() -> QualityGovernor {
        QualityGovernor { level: SOFTWARE_START_LEVEL, ..QualityGovernor::default() }
    }

    /// The quality to draw with now.
    pub fn quality(&self) -> Quality {
        LEVELS[self.level]
    }

    /// Index of the current level, 0 = best (shown in `data-quality`).
    pub fn level(&self) -> usize {
        self.level
    }

    /// Records the time between two frames drawn back to back; returns whether the
    /// quality changed.
    pub fn record_frame_interval(&mut self, interval_ms: f64) -> bool {
        if !(0.0..=MAX_MEANINGFUL_MS).contains(&interval_ms) {
            return false;
        }
        self.window_frames += 1;
        self.window_ms += interval_ms;
        if self.window_frames < MIN_FRAMES || self.window_ms < MIN_WINDOW_MS {
            return false;
        }
        let slow = self.window_ms / f64::from(self.window_frames) > SLOW_FRAME_MS;
        if slow && self.level + 1 < LEVELS.len() {
            self.level += 1;
            self.window_frames = 0;
            self.window_ms = 0.0;
            return true;
        }
        if self.window_frames >= MAX_WINDOW_FRAMES {
            self.window_frames = 0;
            self.window_ms = 0.0;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_frames_keep_the_best_quality() {
        let mut governor = QualityGovernor::default();
        for _ in 0..1000 {
            assert!(!governor.record_frame_interval(17.0));
        }
        assert_eq!(governor.quality(), LEVELS[0]);
    }

    #[test]
    fn slow_frames_step_down_one_level_at_a_time_to_the_floor() {
        let mut governor = QualityGovernor::default();
        let mut changes = Vec::new();
        for _ in 0..200 {
            if governor.record_frame_interval(150.0) {
                changes.push(governor.level());
            }
        }
        assert_eq!(changes, vec![1, 2, 3]);
        assert!(!governor.quality().shadows);
    }

    #[test]
    fn a_level_is_judged_only_after_enough_frames_and_time() {
        let mut governor = QualityGovernor::default();
        for _ in 0..MIN_FRAMES - 1 {
            assert!(!governor.record_frame_interval(500.0));
        }
        assert!(governor.record_frame_interval(500.0));
        // 100 ms frames: 15 of them before the window spans 1.5 s.
        let mut governor = QualityGovernor::default();
        let first_change = (1..=100).find(|_| governor.record_frame_interval(100.0));
        assert_eq!(first_change, Some(15));
    }

    #[test]
    fn a_later_slowdown_is_noticed() {
        let mut governor = QualityGovernor::default();
        for _ in 0..1000 {
            governor.record_frame_interval(16.0);
        }
        let changed = (0..300).any(|_| governor.record_frame_interval(120.0));
        assert!(changed);
    }

    #[test]
    fn software_rendering_starts_lower_and_can_still_step_down() {
        let mut governor = QualityGovernor::for_software_rendering();
        assert_eq!(governor.quality().resolution_scale, 0.5);
        assert!(governor.quality().shadows);
        assert!((0..100).any(|_| governor.record_frame_interval(200.0)));
        assert!(!governor.quality().shadows);
    }

    #[test]
    fn pauses_are_not_slow_frames() {
        let mut governor = QualityGovernor::default();
        for _ in 0..100 {
            governor.record_frame_interval(17.0);
            governor.record_frame_interval(5_000.0);
        }
        assert_eq!(governor.level(), 0);
    }
}
