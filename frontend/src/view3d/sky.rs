//! The colours of the sky-over-floor gradient that lights every lab view (see
//! `environment`): pure, host-tested.

/// Linear RGB seen looking straight up, at the horizon and straight down.
const ZENITH: [f32; 3] = [0.75, 0.82, 0.95];
const HORIZON: [f32; 3] = [0.55, 0.56, 0.58];
const NADIR: [f32; 3] = [0.18, 0.17, 0.16];

/// Linear colour for a direction with this vertical component (-1 down … 1 up).
pub fn gradient(up: f32) -> [f32; 3] {
    let (from, to, t) = if up >= 0.0 { (HORIZON, ZENITH, up.sqrt()) } else { (HORIZON, NADIR, (-up).sqrt()) };
    [0, 1, 2].map(|k| from[k] + (to[k] - from[k]) * t)
}

/// The mean of [`gradient`] over all directions, as linear RGB. The vertical component
/// of a uniformly random direction is uniform in -1..1, so this is the mean over `up`.
pub fn mean_colour() -> [f32; 3] {
    const STEPS: usize = 256;
    let mut sum = [0.0f32; 3];
    for step in 0..STEPS {
        let up = -1.0 + 2.0 * (step as f32 + 0.5) / STEPS as f32;
        let colour = gradient(up);
        for k in 0..3 {
            sum[k] += colour[k] / STEPS as f32;
        }
    }
    sum
}

/// A linear colour channel (`0..=1`, clamped) as an 8-bit sRGB value: the inverse of
/// [`srgb_to_linear`](crate::view3d::asset_cache::srgb_to_linear), which is also how
/// three-d decodes a light's colour.
pub fn linear_to_srgb(linear: f32) -> u8 {
    let linear = linear.clamp(0.0, 1.0);
    let encoded = if linear <= 0.003_130_8 { linear * 12.92 } else { 1.055 * linear.powf(1.0 / 2.4) - 0.055 };
    (encoded * 255.0).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view3d::asset_cache::srgb_to_linear;

    #[test]
    fn gradient_runs_from_floor_through_horizon_to_sky() {
        for (up, colour) in [(-1.0, NADIR), (0.0, HORIZON), (1.0, ZENITH)] {
            let got = gradient(up);
            for k in 0..3 {
                assert!((got[k] - colour[k]).abs() < 1e-6, "up {up}, channel {k}: {} against {}", got[k], colour[k]);
            }
        }
    }

    #[test]
    fn mean_colour_is_the_gradient_averaged_over_directions() {
        // Over up in 0..1 the mean of sqrt(up) is 2/3, so each half weighs its far
        // colour by two thirds, and the whole by a third.
        let expected: [f32; 3] = [0, 1, 2].map(|k| HORIZON[k] + (ZENITH[k] + NADIR[k] - 2.0 * HORIZON[k]) / 3.0);
        let mean = mean_colour();
        for k in 0..3 {
            assert!((mean[k] - expected[k]).abs() < 1e-3, "channel {k}: {} against {}", mean[k], expected[k]);
        }
    }

    #[test]
    fn linear_to_srgb_inverts_srgb_to_linear() {
        for value in 0..=255u8 {
            assert_eq!(linear_to_srgb(srgb_to_linear(value)), value, "{value} came back changed");
        }
        assert_eq!(linear_to_srgb(-1.0), 0);
        assert_eq!(linear_to_srgb(2.0), 255);
    }
}
