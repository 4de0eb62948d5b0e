//! What every bench reports of a set of timings: mean, median, 99th percentile and
//! maximum, in microseconds.

use std::time::Duration;

/// Timings summarised, microseconds.
pub struct Summary {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

/// The summary of `samples` (sorted in place), each divided by `per` (1: as measured).
pub fn summarize(samples: &mut [Duration], per: u32) -> Summary {
    samples.sort();
    let micros = |d: Duration| d.as_secs_f64() * 1e6 / f64::from(per);
    let at = |q: f64| micros(samples[((samples.len() - 1) as f64 * q).round() as usize]);
    let mean = samples.iter().map(|d| micros(*d)).sum::<f64>() / samples.len() as f64;
    Summary { mean, p50: at(0.5), p99: at(0.99), max: at(1.0) }
}

/// Prints `label` with the summary of `samples` and the real-time factor of a step of
/// `dt` seconds taking the mean.
#[allow(dead_code)] // not every bench times simulation steps
pub fn report_steps(label: &str, samples: &mut [Duration], dt: f64) {
    let s = summarize(samples, 1);
    println!(
        "{label}: mean {:8.1} µs, p50 {:8.1} µs, p99 {:8.1} µs, max {:8.1} µs → {:.1}× real time",
        s.mean,
        s.p50,
        s.p99,
        s.max,
        dt * 1e6 / s.mean
    );
}

/// The example robot (`backend/robot-sdk/example`) built to wasm32, in a target folder
/// of its own (`<target>/wasm-programs`) so the build never waits on the bench's lock.
#[allow(dead_code)] // only the wasm bench runs a module
pub fn example_robot_wasm() -> Vec<u8> {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("backend/ is in the workspace");
    let target_root = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => workspace.join(dir),
        None => workspace.join("target"),
    };
    let target_dir = target_root.join("wasm-programs");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = std::process::Command::new(cargo)
        .current_dir(workspace)
        .args(["build", "-p", "vlab-example-bot", "--target", "wasm32-unknown-unknown", "--release", "--target-dir"])
        .arg(&target_dir)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the example robot failed (is the wasm32-unknown-unknown target installed?)");
    std::fs::read(target_dir.join("wasm32-unknown-unknown/release/vlab_example_bot.wasm")).expect("the module")
}
