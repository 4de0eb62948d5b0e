//! `cargo bench -p vlab-server --bench radio_flood`: does a radio flood slow the lab,
//! eat its recording or the server's memory? Twelve robots in a real-time lab at 1×,
//! each sending 16 messages of 1,024 bytes at every control step (WebAssembly programs,
//! all in range of each other), for 60 s of wall time (`VLAB_BENCH_SECS` to change it),
//! the lab recording into a file as a server's does. Printed: the real-time factor,
//! the recording's growth (bytes kept, compressed, per wall and per simulated second)
//! and the process's memory, before and during the flood.
//!
//! Prints figures rather than asserting them: timings are for reading, not for tests.

use std::sync::Arc;
use std::time::{Duration, Instant};

use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::controller::ProgramCode;
use vlab_server::lab::{LabConfig, LabHandle};
use vlab_server::scene::{MapLoader, Options, SceneModel, interpret};
use vlab_server::secret::TokenDigest;
use vlab_server::store::RecordingStore;

const FLOODERS: usize = 12;

/// Sends 16 messages of 1,024 bytes with every answer.
const FLOOD: &str = r#"(module
    (import "vlab" "radio_send" (func $send (param i32 i32) (result i32)))
    (memory (export "memory") 1)
    (data (i32.const 0) "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
    (func (export "vlab_abi_version") (result i32) (i32.const 1))
    (func (export "init")
      (memory.copy (i32.const 64) (i32.const 0) (i32.const 64))
      (memory.copy (i32.const 128) (i32.const 0) (i32.const 128))
      (memory.copy (i32.const 256) (i32.const 0) (i32.const 256))
      (memory.copy (i32.const 512) (i32.const 0) (i32.const 512)))
    (func (export "pre_step") (local $i i32)
      (loop $again
        (drop (call $send (i32.const 0) (i32.const 1024)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $again (i32.lt_u (local.get $i) (i32.const 16))))))"#;

/// A 12 m yard with twelve still robots in a ring, radios of the widest settings.
fn scene() -> SceneModel {
    let mut source = String::from("environment wallrect { width 12; length 12; height 0.5; gravity -9.81; }\n");
    for i in 0..FLOODERS {
        let angle = i as f64 * std::f64::consts::TAU / FLOODERS as f64;
        let (x, z) = (6.0 + 3.0 * angle.cos(), 6.0 + 3.0 * angle.sin());
        source.push_str(&format!(
            "robot flood_{i:02} {{ body {{ static flood_{i:02}_box {{ shape box(0.3, 0.3, 0.3); pos({x:.3}, 0.15, {z:.3}); \
             Radio radio {{ range 20; max_length 1024; max_heard 64; }} }} }} }}\n"
        ));
    }
    interpret(&source, "flood.vlab", &MapLoader::new(), &Options::default()).expect("the scene builds").model
}

/// The process's resident memory now and at its peak, MB.
fn memory() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

struct Sample {
    factors: Vec<f64>,
    kept_per_wall_sec: f64,
    kept_per_sim_sec: f64,
}

/// `secs` wall seconds: the real-time factor of each, and the recording's growth.
async fn measure(lab: &Arc<LabHandle>, store: &RecordingStore, secs: u64) -> Sample {
    let kept = || store.bytes("bench").unwrap_or(0) as f64;
    let (start, sim_start, kept_start) = (Instant::now(), lab.clock().state().time, kept());
    let mut factors = Vec::new();
    let (mut wall, mut sim) = (start, sim_start);
    for _ in 0..secs {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let (now, time) = (Instant::now(), lab.clock().state().time);
        factors.push((time - sim) / (now - wall).as_secs_f64());
        (wall, sim) = (now, time);
    }
    let grown = kept() - kept_start;
    Sample {
        factors,
        kept_per_wall_sec: grown / start.elapsed().as_secs_f64(),
        kept_per_sim_sec: grown / (sim - sim_start).max(1e-9),
    }
}

fn print(label: &str, sample: &Sample) {
    let factors = &sample.factors;
    let mean = factors.iter().sum::<f64>() / factors.len() as f64;
    let min = factors.iter().copied().fold(f64::INFINITY, f64::min);
    let (rss, peak) = memory();
    println!(
        "  {label}: real-time factor mean {mean:.2}, worst second {min:.2} ({} s); recording +{:.0} KB per wall second, \
         +{:.0} KB per simulated second; memory {rss:.0} MB (peak {peak:.0} MB)",
        factors.len(),
        sample.kept_per_wall_sec / 1000.0,
        sample.kept_per_sim_sec / 1000.0,
    );
}

fn main() {
    let secs: u64 = std::env::var("VLAB_BENCH_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(run(secs));
}

async fn run(secs: u64) {
    let dir = std::env::temp_dir().join(format!("vlab-bench-radio-flood-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let path = dir.join("vlab.recordings.db");
    let classroom = Classroom::new(ClassroomConfig {
        recordings: Some(RecordingStore::open(&path).expect("the recordings file opens")),
        ..ClassroomConfig::default()
    });
    let lab = LabHandle::open(LabConfig {
        id: "bench".into(),
        name: "bench".into(),
        scene: scene(),
        instructor: TokenDigest::of("t"),
        start_running: true,
        seed: 1,
        join_code: "BENCH1".into(),
        settings: Default::default(),
        students: Vec::new(),
        programs: Default::default(),
        recording: classroom.recording_sink(),
        first_run: 1,
    })
    .expect("the lab opens");
    let store = RecordingStore::open(&path).expect("the recordings file opens again");
    println!(
        "VLab bench: {FLOODERS} robots each sending 16 × 1,024 B by radio every control step, real-time lab at 1×"
    );
    let (rss, _) = memory();
    println!("  memory at start: {rss:.0} MB");
    print("no programs (5 s)", &measure(&lab, &store, 5).await);

    let module: Arc<[u8]> = wat::parse_str(FLOOD).expect("valid WAT").into();
    for i in 0..FLOODERS {
        let code = ProgramCode::wasm("flood.wasm", Arc::clone(&module));
        if let Err(e) = lab.programs().set(&format!("flood_{i:02}"), code).await {
            println!("radio_flood: not run: {e}");
            return;
        }
    }
    print(&format!("flooding ({secs} s)"), &measure(&lab, &store, secs).await);
    let report = lab.robots().report("flood_00").await.expect("a robot");
    let console = report.console.unwrap_or_default();
    let refusals = console.iter().filter(|l| l.text.starts_with("radio:")).count();
    let last = console.iter().rev().find(|l| l.text.starts_with("radio:"));
    println!(
        "  flood_00's console: {refusals} radio lines kept{}",
        last.map(|l| format!(", the latest: {}", l.text)).unwrap_or_default()
    );
    lab.close();
    classroom.shut_down();
    let _ = std::fs::remove_dir_all(&dir);
}
