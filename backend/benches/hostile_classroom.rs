//! `cargo bench -p vlab-server --bench hostile_classroom` (part of `cargo xtask bench`):
//! does one student's program slow the class? The classroom of scenes/classroom.vlab
//! runs at 1× while 25 of its robots get programs, as uploads would give them: 20
//! wanderers and 5 hostile ones (a sleep of 0.3 s per step, a loop before the first
//! step, over 100 ms of CPU per 21 ms step, a crash at start-up, a WebAssembly module
//! that burns nearly all its fuel every step). The lab's real-time factor is printed
//! second by second: before the programs, then with them in a real-time lab, then the
//! same in a lockstep lab (which waits for every program, so hostile ones slow it).
//!
//! Then the probes of issue 36 that held a lab back without using CPU: three robots with
//! a 320 × 240 camera whose programs answer at once but wait 450 ms before reading the
//! next step (a real-time lab), a remote controller that answers every step after
//! 450 ms, and one that drops its connection at every step and attaches again at once
//! (lockstep labs).
//!
//! Prints figures rather than asserting them: timings are for reading, not for tests.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use vlab_protocol::{LabSettings, ProgramState, SyncMode};
use vlab_server::controller::{Limits, ProgramCode, ToPeer, remote_pair};
use vlab_server::lab::{LabConfig, LabHandle};
use vlab_server::scene::{MapLoader, Options, SceneModel, interpret};
use vlab_server::secret::TokenDigest;

/// Wall seconds measured with the programs.
const MEASURED_SECS: u64 = 20;

const SLEEPER: &str = "import time\nfrom vlab import Robot\nrobot = Robot()\nrobot.actuator('drive').set(0.1, 0.0)\n\
                       while robot.step():\n    time.sleep(0.3)\n";
const LOOPS_FIRST: &str = "n = 0\nwhile True:\n    n += 1\n";
const HOG: &str =
    "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    for i in range(6_000_000):\n        pass\n";
const CRASHES: &str = "from vlab import Robot\nraise RuntimeError('broken at start-up')\n";

/// A module whose every step counts to 5.5 million, 8 instructions a count: about 44
/// million of its 50 million instructions of fuel.
fn fuel_burner() -> ProgramCode {
    let text = r#"(module
        (memory (export "memory") 1)
        (func (export "vlab_abi_version") (result i32) (i32.const 1))
        (func (export "pre_step") (local $i i32)
            (loop $count
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br_if $count (i32.lt_u (local.get $i) (i32.const 5500000))))))"#;
    ProgramCode::wasm("burner.wasm", wat::parse_str(text).expect("valid WAT").into())
}

fn python(source: &str) -> ProgramCode {
    ProgramCode::python("main.py", [("main.py".to_owned(), source.to_owned())].into())
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    println!("VLab bench: hostile programs in the classroom at 1× (scenes/classroom.vlab, 30 robots)");
    for sync in [SyncMode::Realtime, SyncMode::Lockstep] {
        if !runtime.block_on(run(sync)) {
            return;
        }
    }
    println!("VLab bench: programs and controllers that hold a lab back without computing (issue 36)");
    runtime.block_on(late_readers());
    runtime.block_on(slow_controller());
    runtime.block_on(reattaching_controller());
}

/// Wall seconds each probe of issue 36 is measured.
const PROBE_SECS: u64 = 12;

/// Answers at once, then waits 450 ms of wall time without computing before it reads
/// the lab's next message.
const LATE_READER: &str = r#"
import _thread
import vlab
from vlab import Robot

robot = Robot()

class LateReader:
    def __init__(self, reader):
        self.reader = reader
        self.nap = _thread.allocate_lock()
        self.nap.acquire()

    def readline(self):
        self.nap.acquire(timeout=0.45)
        return self.reader.readline()

    def read(self, n):
        return self.reader.read(n)

vlab._link._reader = LateReader(vlab._link._reader)
eye = robot.sensor('eye')
while robot.step():
    eye.image()
"#;

/// A yard with three robots standing still, each with a 320 × 240 camera at 2.5 Hz,
/// and one more with a GPS for a remote controller.
fn camera_yard() -> SceneModel {
    let mut source = String::from("environment wallrect { width 12; length 12; height 0.5; gravity -9.81; }\n");
    for i in 1..=3 {
        source.push_str(&format!(
            "robot eye_{i} {{ body {{ static chassis_{i} {{ shape box(0.4, 0.2, 0.3); pos({x}, 0.3, 3); \
             Camera eye {{ width 320; height 240; rate 2.5; }} }} }} }}\n",
            x = 2 * i
        ));
    }
    source.push_str(
        "robot remote_bot { body { static chassis_r { shape box(0.4, 0.2, 0.3); pos(6, 0.3, 8); \
         SimpleGPS gps { } } } }\n",
    );
    interpret(&source, "yard.vlab", &MapLoader::new(), &Options::default()).expect("the yard interprets").model
}

fn open_yard(sync: SyncMode) -> Arc<LabHandle> {
    LabHandle::open(LabConfig {
        id: "probe".into(),
        name: "probe".into(),
        scene: camera_yard(),
        instructor: TokenDigest::of("t"),
        start_running: true,
        seed: 1,
        join_code: "PROBE1".into(),
        settings: LabSettings { sync, ..LabSettings::default() },
        students: Vec::new(),
        programs: Default::default(),
        recording: None,
        first_run: 1,
    })
    .expect("the yard opens")
}

/// Row 1: three camera robots whose programs read 450 ms late, in a real-time lab.
async fn late_readers() {
    let lab = open_yard(SyncMode::Realtime);
    println!("  realtime lab, no programs: {}", summary(&measure(&lab, 3).await));
    for i in 1..=3 {
        if let Err(e) = lab.programs().set(&format!("eye_{i}"), python(LATE_READER)).await {
            println!("  late readers: not run: {e}");
            return;
        }
    }
    let with = measure(&lab, PROBE_SECS).await;
    println!("  realtime lab, 3 cameras 320x240 read 450 ms late: {}", summary(&with));
    println!("    second by second: {}", seconds(&with));
    let report = lab.robots().report("eye_1").await.expect("a robot");
    let late = report.program.late.map(|l| l.badge()).unwrap_or_else(|| "no late".into());
    println!("    eye_1: {:?}, {late}", report.program.state);
    lab.close();
}

/// Row 3: a remote controller answering every step 450 ms late, in a lockstep lab.
async fn slow_controller() {
    let lab = open_yard(SyncMode::Lockstep);
    println!("  lockstep lab, no controller: {}", summary(&measure(&lab, 3).await));
    let (controller, mut peer) = remote_pair("remote_bot", Limits::default());
    lab.programs().attach_remote("remote_bot", controller).await.expect("attached");
    let answering = std::thread::spawn(move || {
        while let Some(message) = peer.to_peer.blocking_recv() {
            let ToPeer::Message(json) = message else { break };
            let message: serde_json::Value = serde_json::from_str(&json).expect("JSON");
            let answer = match message["type"].as_str() {
                Some("hello") => r#"{"type":"ready","version":1}"#.to_owned(),
                Some("step") => {
                    std::thread::sleep(Duration::from_millis(450));
                    format!(r#"{{"type":"commands","step":{}}}"#, message["step"])
                }
                _ => break,
            };
            if peer.deliver(answer.into_bytes()).is_err() {
                break;
            }
        }
    });
    let with = measure(&lab, PROBE_SECS).await;
    println!("  lockstep lab, a controller answering 450 ms late: {}", summary(&with));
    println!("    second by second: {}", seconds(&with));
    let report = lab.robots().report("remote_bot").await.expect("a robot");
    println!("    remote_bot: {:?}, {}", report.program.state, report.program.message.unwrap_or_default());
    lab.close();
    let _ = answering.join();
}

/// Row 3: a remote controller that drops its connection at every step and attaches
/// again at once, in a lockstep lab.
async fn reattaching_controller() {
    let lab = open_yard(SyncMode::Lockstep);
    let until = Instant::now() + Duration::from_secs(PROBE_SECS);
    let probe = Arc::clone(&lab);
    let measuring = tokio::spawn(async move { measure(&probe, PROBE_SECS).await });
    let (mut attached, mut refused) = (0, 0);
    while Instant::now() < until {
        let (controller, mut peer) = remote_pair("remote_bot", Limits::default());
        if lab.programs().attach_remote("remote_bot", controller).await.is_err() {
            refused += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        attached += 1;
        // Ready at the hello, gone at the first step.
        let dropped = tokio::task::spawn_blocking(move || {
            while let Some(ToPeer::Message(json)) = peer.to_peer.blocking_recv() {
                if json.contains(r#""type":"hello""#) {
                    let _ = peer.deliver(br#"{"type":"ready","version":1}"#.to_vec());
                } else {
                    break;
                }
            }
        });
        let _ = dropped.await;
    }
    let with = measuring.await.expect("measured");
    println!("  lockstep lab, a controller attaching again after every drop: {}", summary(&with));
    println!("    second by second: {}", seconds(&with));
    println!("    attached {attached} times, refused {refused} times");
    lab.close();
}

fn seconds(factors: &[f64]) -> String {
    factors.iter().map(|f| format!("{f:.2}")).collect::<Vec<_>>().join(" ")
}

/// One lab with `sync`; `false` when programs cannot run on this machine.
async fn run(sync: SyncMode) -> bool {
    let lab = LabHandle::open(LabConfig {
        id: "bench".into(),
        name: "bench".into(),
        scene: common::classroom(),
        instructor: TokenDigest::of("t"),
        start_running: true,
        seed: 1,
        join_code: "BENCH1".into(),
        settings: LabSettings { sync, ..LabSettings::default() },
        students: Vec::new(),
        programs: Default::default(),
        recording: None,
        first_run: 1,
    })
    .expect("the classroom opens");
    let robots = lab.summary().robots;
    println!("{} lab:", sync.as_str());
    let before = measure(&lab, 3).await;
    println!("  no programs:        {}", summary(&before));

    let hostile: [(&str, ProgramCode); 5] = [
        ("sleeps 0.3 s a step", python(SLEEPER)),
        ("loops before its first step", python(LOOPS_FIRST)),
        ("over 100 ms of CPU a step", python(HOG)),
        ("crashes at start-up", python(CRASHES)),
        ("burns its wasm fuel", fuel_burner()),
    ];
    let wanderer = python(common::WANDERER);
    let mut roles = Vec::new();
    for (i, robot) in robots.iter().take(25).enumerate() {
        let (role, code) = match hostile.get(i) {
            Some((role, code)) => (*role, code.clone()),
            None => ("wanders", wanderer.clone()),
        };
        if let Err(e) = lab.programs().set(robot, code).await {
            println!("hostile_classroom: not run: {e}");
            return false;
        }
        roles.push((robot.clone(), role));
    }
    let with = measure(&lab, MEASURED_SECS).await;
    println!("  25 programs, 5 hostile: {}", summary(&with));
    let per_second: Vec<String> = with.iter().map(|f| format!("{f:.2}")).collect();
    println!("  second by second: {}", per_second.join(" "));
    for (robot, role) in roles.iter().take(6) {
        let report = lab.robots().report(robot).await.expect("a robot");
        let program = report.program;
        let state = match (program.state, program.late, program.message) {
            (ProgramState::Running, Some(late), _) => format!("running, {}", late.badge()),
            (ProgramState::Stopped, _, Some(why)) => why.lines().last().unwrap_or_default().to_owned(),
            (other, _, _) => format!("{other:?}").to_lowercase(),
        };
        println!("  {robot} ({role}): {state}");
    }
    let wandering = roles.iter().skip(5).count();
    println!("  (and {} more wanderers)", wandering - 1);
    if let Some(python) = roles.first() {
        let report = lab.robots().report(&python.0).await.expect("a robot");
        println!("  the sleeper's robot is at x = {:.2} after {:.1} s", report.pose.position[0], report.time);
    }
    lab.close();
    true
}

/// The real-time factor of each wall second for `secs` seconds.
async fn measure(lab: &Arc<LabHandle>, secs: u64) -> Vec<f64> {
    let mut factors = Vec::new();
    let (mut wall, mut sim) = (Instant::now(), lab.clock().state().time);
    for _ in 0..secs {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let (now, time) = (Instant::now(), lab.clock().state().time);
        factors.push((time - sim) / (now - wall).as_secs_f64());
        (wall, sim) = (now, time);
    }
    factors
}

fn summary(factors: &[f64]) -> String {
    let mean = factors.iter().sum::<f64>() / factors.len() as f64;
    let min = factors.iter().copied().fold(f64::INFINITY, f64::min);
    format!("real-time factor mean {mean:.3}, worst second {min:.3} ({} s)", factors.len())
}
