//! How a sensor's true value becomes its measured value (the noise model of
//! docs/sensors.md), and when a sensor updates (its rate in simulation time).
//!
//! Each sensor draws from its own generator, seeded from the lab's seed and the
//! sensor's robot and name, so one sensor's draws never depend on how many others
//! there are or in which order they update: a run repeats exactly, and adding a robot
//! does not change the readings of the ones already there.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

use crate::scene::{DeviceModel, ParamValue};

/// The noise parameters of one sensor, applied in this order: output curve, scale
/// noise, bias and Gaussian noise, quantization.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NoiseModel {
    /// Standard deviation of additive zero-mean Gaussian noise (`noise`).
    pub sigma: f64,
    /// Multiplies by `1 + U(-k, k)` (`scale_noise`).
    pub scale: f64,
    /// Added to every value (`bias`).
    pub bias: f64,
    /// Rounds to multiples of it when positive (`resolution`).
    pub resolution: f64,
    /// Piecewise-linear map of the true value, as `(x, y)` points sorted by `x`
    /// (`output_curve`); empty for the identity.
    pub curve: Vec<(f64, f64)>,
}

impl NoiseModel {
    /// The model a scene's device declares (catalogue defaults where it is silent).
    pub fn of(device: &DeviceModel) -> NoiseModel {
        let number = |name| device.num(name).unwrap_or(0.0);
        let curve = match device.param("output_curve") {
            Some(ParamValue::Nums(values)) => {
                let mut points: Vec<(f64, f64)> = values.chunks_exact(2).map(|xy| (xy[0], xy[1])).collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                points
            }
            _ => Vec::new(),
        };
        NoiseModel {
            sigma: number("noise").abs(),
            scale: number("scale_noise").abs(),
            bias: number("bias"),
            resolution: number("resolution").abs(),
            curve,
        }
    }

    /// Whether the measured value always equals the true one.
    pub fn is_exact(&self) -> bool {
        self.sigma == 0.0 && self.scale == 0.0 && self.bias == 0.0 && self.resolution == 0.0 && self.curve.is_empty()
    }

    /// The measured value of `truth`. Draws from `rng` only for the noise terms that
    /// are set, so an exact sensor consumes nothing.
    pub fn measure(&self, truth: f64, rng: &mut ChaCha8Rng) -> f64 {
        let mut value = self.through_curve(truth);
        if self.scale > 0.0 {
            value *= 1.0 + rng.random_range(-self.scale..=self.scale);
        }
        value += self.bias;
        if self.sigma > 0.0 {
            let unit: f64 = rng.sample(StandardNormal);
            value += self.sigma * unit;
        }
        if self.resolution > 0.0 {
            value = (value / self.resolution).round() * self.resolution;
        }
        value
    }

    fn through_curve(&self, x: f64) -> f64 {
        match self.curve.as_slice() {
            [] => x,
            [(_, y)] => *y,
            points => {
                // Beyond the ends the curve keeps its end values (a sensor saturates).
                if x <= points[0].0 {
                    return points[0].1;
                }
                for pair in points.windows(2) {
                    let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
                    if x <= x1 {
                        return if x1 > x0 { y0 + (y1 - y0) * (x - x0) / (x1 - x0) } else { y1 };
                    }
                }
                points[points.len() - 1].1
            }
        }
    }
}

/// The generator of one sensor's noise: ChaCha8 seeded from the lab's seed, the robot
/// and the sensor (FNV-1a of the names, a hash whose value never changes between
/// builds or platforms).
pub fn sensor_rng(lab_seed: u64, robot: &str, sensor: &str) -> ChaCha8Rng {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in robot.bytes().chain([0xff]).chain(sensor.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    ChaCha8Rng::seed_from_u64(lab_seed ^ hash)
}

/// When a sensor updates: every step, or at its own rate in simulation time.
///
/// A sensor reads when its robot enters the world, then on a grid of its period
/// shifted by a phase: with 30 robots' lidars at 10 Hz, robot `i`'s fire a fraction of a
/// period after robot `i − 1`'s instead of all on the same step, so a lab's step cost
/// stays even. The phase comes from the robot's index, so runs still repeat exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// Seconds between updates (`None`: every step).
    period: Option<f64>,
    /// Where on its period the grid of updates sits, 0..1.
    phase: f64,
    /// Simulation time of the next update (`None`: the first, whenever it comes).
    next_due: Option<f64>,
}

impl Schedule {
    /// Updates `rate` times per second of simulation time (`None`, zero or negative:
    /// every step). The first update is at time 0.
    pub fn new(rate: Option<f64>) -> Schedule {
        Schedule::staggered(rate, 0)
    }

    /// The schedule of a sensor of robot number `robot`: its grid shifted by the
    /// fractional part of `robot × 0.618…` of a period (the golden ratio spreads any
    /// number of robots evenly).
    pub fn staggered(rate: Option<f64>, robot: u32) -> Schedule {
        let period = rate.filter(|r| *r > 0.0 && r.is_finite()).map(|r| 1.0 / r);
        let phase = (f64::from(robot) * 0.618_033_988_749_894_9).fract();
        Schedule { period, phase, next_due: None }
    }

    /// The rate, Hz (`None`: every step).
    pub fn rate(&self) -> Option<f64> {
        self.period.map(|p| 1.0 / p)
    }

    /// Whether the sensor updates at `time` (a step of `dt` seconds); if so, books the
    /// next update. A rate faster than the step updates every step.
    pub fn due(&mut self, time: f64, dt: f64) -> bool {
        let Some(period) = self.period else { return true };
        let Some(next_due) = self.next_due else {
            // The first reading, then the grid point after it.
            self.next_due = Some(((time / period + 0.5 * dt / period).floor() + 1.0 + self.phase) * period);
            return true;
        };
        // Half a step of slack: time is a multiple of dt, rounding must not skip one.
        if time + dt * 0.5 < next_due {
            return false;
        }
        let mut next = next_due + period;
        if next <= time {
            next = time + period;
        }
        self.next_due = Some(next);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(model: &NoiseModel, truth: f64, n: usize) -> Vec<f64> {
        let mut rng = sensor_rng(7, "bot", "s");
        (0..n).map(|_| model.measure(truth, &mut rng)).collect()
    }

    fn mean_and_sigma(values: &[f64]) -> (f64, f64) {
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (values.len() - 1) as f64;
        (mean, variance.sqrt())
    }

    #[test]
    fn gaussian_noise_has_the_declared_sigma_and_no_mean() {
        let model = NoiseModel { sigma: 0.05, ..NoiseModel::default() };
        let (mean, sigma) = mean_and_sigma(&samples(&model, 2.0, 20_000));
        // Standard error of the mean: 0.05/√20000 ≈ 0.00035; of σ ≈ 0.00025.
        assert!((mean - 2.0).abs() < 0.002, "mean {mean}");
        assert!((sigma - 0.05).abs() < 0.002, "sigma {sigma}");
    }

    #[test]
    fn bias_shifts_and_scale_noise_spreads_uniformly() {
        let model = NoiseModel { bias: 0.3, scale: 0.1, ..NoiseModel::default() };
        let values = samples(&model, 4.0, 20_000);
        let (mean, sigma) = mean_and_sigma(&values);
        assert!((mean - 4.3).abs() < 0.01, "mean {mean}");
        // U(-0.1, 0.1)·4 has σ = 0.8/√12 ≈ 0.2309.
        assert!((sigma - 0.8 / 12f64.sqrt()).abs() < 0.005, "sigma {sigma}");
        assert!(values.iter().all(|v| (3.9..=4.7).contains(v)));
    }

    #[test]
    fn resolution_quantizes_and_the_curve_maps() {
        let model = NoiseModel { resolution: 0.25, ..NoiseModel::default() };
        assert_eq!(samples(&model, 1.13, 1), vec![1.25]);
        let curve = NoiseModel { curve: vec![(0.0, 0.0), (1.0, 10.0), (2.0, 12.0)], ..NoiseModel::default() };
        assert_eq!(samples(&curve, 0.5, 1), vec![5.0]);
        assert_eq!(samples(&curve, 1.5, 1), vec![11.0]);
        assert_eq!(samples(&curve, 9.0, 1), vec![12.0], "saturates beyond the last point");
        assert_eq!(samples(&curve, -1.0, 1), vec![0.0]);
    }

    #[test]
    fn the_same_seed_gives_the_same_draws_and_sensors_draw_independently() {
        let model = NoiseModel { sigma: 1.0, ..NoiseModel::default() };
        assert_eq!(samples(&model, 0.0, 50), samples(&model, 0.0, 50));
        let mut a = sensor_rng(7, "bot", "left");
        let mut b = sensor_rng(7, "bot", "right");
        let mut c = sensor_rng(8, "bot", "left");
        let (x, y, z) = (model.measure(0.0, &mut a), model.measure(0.0, &mut b), model.measure(0.0, &mut c));
        assert!(x != y && x != z);
        // "bo"+"tleft" must not collide with "bot"+"left".
        assert_ne!(model.measure(0.0, &mut sensor_rng(7, "bo", "tleft")), x);
    }

    #[test]
    fn schedules_update_at_their_rate_in_sim_time() {
        let dt = 1.0 / 240.0;
        let mut every_step = Schedule::new(None);
        assert!((0..10).all(|i| every_step.due(i as f64 * dt, dt)));
        let mut ten_hz = Schedule::new(Some(10.0));
        let updates: Vec<u64> = (0..=240u64).filter(|&i| ten_hz.due(i as f64 * dt, dt)).collect();
        assert_eq!(updates, (0..=240).step_by(24).collect::<Vec<u64>>());
        let mut fast = Schedule::new(Some(1000.0));
        assert!((0..10).all(|i| fast.due(i as f64 * dt, dt)), "faster than the step: every step");
        // 40 Hz at 240 Hz: every 6 steps, without drift over a minute.
        let mut forty = Schedule::new(Some(40.0));
        assert_eq!((0..240 * 60).filter(|&i| forty.due(i as f64 * dt, dt)).count(), 40 * 60);
    }

    #[test]
    fn robots_sensors_are_spread_over_the_period_at_the_same_rate() {
        let dt = 1.0 / 240.0;
        let steps = |robot: u32| -> Vec<u64> {
            let mut schedule = Schedule::staggered(Some(10.0), robot);
            (0..=240u64).filter(|&i| schedule.due(i as f64 * dt, dt)).collect()
        };
        // Robot 0 is on the plain grid; every robot reads at step 0 and then every 24 steps.
        assert_eq!(steps(0), (0..=240).step_by(24).collect::<Vec<u64>>());
        let firsts: Vec<u64> = (0..30).map(|robot| steps(robot)[1]).collect();
        for (robot, first) in firsts.iter().enumerate() {
            let all = steps(robot as u32);
            assert!(all.windows(2).skip(1).all(|w| w[1] - w[0] == 24), "robot {robot}: {all:?}");
            assert!((24..48).contains(first), "robot {robot}: first grid reading at step {first}");
        }
        // Thirty robots land on many different steps, not one.
        let mut distinct = firsts.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() >= 20, "{firsts:?}");
    }
}
