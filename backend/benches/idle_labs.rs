//! `cargo bench -p vlab-server --bench idle_labs`: what labs nobody uses cost the
//! server. 100 running labs (one diffbot at rest and a few props each, no viewer, no
//! program) opened as the server opens them, plus one busy lab (scenes/classroom.vlab,
//! every robot driving a circle); the process's CPU and the busy lab's real-time factor
//! over a few seconds, first with parking switched off (`VLAB_IDLE_PARKING=off`, every
//! lab steps its physics and sensors 240 times a second), then on (a lab where nothing
//! moves and nobody looks parks), in the same run.
//!
//! Prints figures rather than asserting them: timings are for reading, not for tests.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use vlab_protocol::LabSettings;
use vlab_server::lab::{LabConfig, LabHandle};
use vlab_server::scene::{DirLoader, Options, SceneModel, interpret};
use vlab_server::secret::TokenDigest;

/// Idle labs opened.
const IDLE_LABS: usize = 100;
/// Wall time for the idle labs to settle (their bodies fall asleep) before measuring.
const SETTLE: Duration = Duration::from_secs(6);
/// Wall time measured.
const MEASURED: Duration = Duration::from_secs(5);
/// The environment variable that switches parking off (lab::runner's PARKING_SWITCH;
/// any other value leaves it on).
const PARKING_SWITCH: &str = "VLAB_IDLE_PARKING";

fn main() {
    // Each round runs in a child process of its own, the switch in its environment.
    if let Some(round) = std::env::args().skip_while(|a| a != "--round").nth(1) {
        return one_round(&round);
    }
    let idle = idle_scene();
    let busy = common::classroom();
    println!(
        "VLab bench: {IDLE_LABS} idle labs ({} bodies each, nobody watching) beside one busy classroom lab \
         ({} bodies, 30 robots driving); {} s to settle, then {} s measured",
        idle.bodies.len(),
        busy.bodies.len(),
        SETTLE.as_secs(),
        MEASURED.as_secs()
    );
    println!("{:<22} | {:>11} {:>16} {:>18}", "round", "process CPU", "CPU per idle lab", "busy lab real time");
    let me = std::env::current_exe().expect("the bench's own path");
    let mut busy_alone = 0.0;
    for (round, switch) in [("busy", "on"), ("off", "off"), ("on", "on")] {
        let output = std::process::Command::new(&me)
            .args(["--round", round])
            .env(PARKING_SWITCH, switch)
            .output()
            .expect("a round runs");
        assert!(output.status.success(), "the {round} round failed");
        let text = String::from_utf8_lossy(&output.stdout);
        let [cpu, rtf]: [f64; 2] = text
            .split_whitespace()
            .map(|n| n.parse().expect("a figure"))
            .collect::<Vec<_>>()
            .try_into()
            .expect("two figures");
        let (label, per_idle) = if round == "busy" {
            busy_alone = cpu;
            ("busy lab alone".to_owned(), "-".to_owned())
        } else {
            let per_idle = (cpu - busy_alone) * 100.0 / IDLE_LABS as f64;
            (format!("+{IDLE_LABS} idle, parking {round}"), format!("{per_idle:.3}%"))
        };
        println!("{label:<22} | {:>10.1}% {per_idle:>16} {rtf:>17.2}×", cpu * 100.0);
    }
}

/// Runs one round in this process and prints the process's CPU (cores) and the busy
/// lab's real-time factor: `busy` (the busy lab alone, what the idle labs add is
/// measured against it), `off` or `on` (with the idle labs, parking as the
/// environment says).
fn one_round(round: &str) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let idle = if round == "busy" { 0 } else { IDLE_LABS };
    let (cpu, rtf) = runtime.block_on(run(idle, &idle_scene(), &common::classroom()));
    println!("{cpu} {rtf}");
}

/// One round: `idle_labs` idle labs and the busy one opened, settled, measured,
/// closed. Returns the process's CPU (cores) over the measured window and the busy
/// lab's real-time factor in it.
async fn run(idle_labs: usize, idle: &SceneModel, busy: &SceneModel) -> (f64, f64) {
    let labs: Vec<Arc<LabHandle>> = (0..idle_labs).map(|i| open(&format!("idle{i}"), idle)).collect();
    let class = open("busy", busy);
    for (i, robot) in busy.robots.iter().enumerate() {
        class.robots().actuate(&robot.name, common::circle_drive(i)).await.expect("a drive command");
    }
    tokio::time::sleep(SETTLE).await;
    let (cpu0, wall0, step0) = (cpu_secs(), Instant::now(), class.clock().state().step);
    tokio::time::sleep(MEASURED).await;
    let (cpu1, wall1, step1) = (cpu_secs(), Instant::now(), class.clock().state().step);
    let wall = (wall1 - wall0).as_secs_f64();
    let rtf = (step1 - step0) as f64 * busy.dt_secs / wall;
    for lab in labs.iter().chain([&class]) {
        lab.close();
    }
    ((cpu1 - cpu0) / wall, rtf)
}

fn open(id: &str, scene: &SceneModel) -> Arc<LabHandle> {
    LabHandle::open(LabConfig {
        id: id.into(),
        name: id.into(),
        scene: scene.clone(),
        instructor: TokenDigest::of("bench"),
        start_running: true,
        seed: 1,
        join_code: "ABCDEF".into(),
        settings: LabSettings::default(),
        students: vec![],
        programs: BTreeMap::new(),
        recording: None,
        first_run: 1,
    })
    .expect("the lab opens")
}

/// A lab nobody uses: one diffbot at rest (lidar, encoders, odometry, bumper) and
/// eight props.
fn idle_scene() -> SceneModel {
    let mut source = String::from(
        "environment room { width 6; length 6; height 3; gravity -9.81; }\n\
         include \"diffbot_robot.vlab\";\n\
         call diffbot(\"_1\", 3, 3, 0);\n",
    );
    for n in 0..8 {
        let x = 1.0 + 0.5 * n as f64;
        source.push_str(&format!(
            "id:[\"prop_{n}\"] {{ shape box(0.1, 0.1, 0.1); pos({x}, 0.05, 1.5); density 400; }}\n"
        ));
    }
    let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes");
    let loader = DirLoader { scenes, assets: None };
    interpret(&source, "idle.vlab", &loader, &Options::default()).expect("the idle scene").model
}

/// The process's CPU time so far (user + system), seconds.
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // Fields after the command name (which may hold spaces) start after its ')'.
    let fields: Vec<&str> = stat[stat.rfind(')').expect("a command name") + 2..].split(' ').collect();
    let ticks: f64 = fields[11].parse::<f64>().expect("utime") + fields[12].parse::<f64>().expect("stime");
    // /proc counts in USER_HZ, 100 a second on every Linux ABI.
    ticks / 100.0
}
