//! Twelve robots sending 16 × 1,024 bytes by radio at every control step held a lab at
//! 0.36–0.69× real time, grew its recording by 1–1.5 MB a second (the lab's 512 MiB of
//! history gone in 6–8 minutes) and the server's memory by 200–380 MB (issue 36, row
//! 1): every message was copied into every radio in range, every program's readings and
//! the recording, with no budget but 16 messages per control step. Now a robot sends at
//! most `MAX_SENT_BYTES_PER_SEC` a second of simulation time (the rest refused, its
//! console told once a second), and the recording keeps at most
//! `MAX_RECORDED_BYTES_PER_ROBOT_PER_SEC` of each robot a second (past it, that robot is
//! thinned until the next second and the recording says so), while a quiet robot beside
//! the flood has every reading recorded.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use reqwest::multipart::{Form, Part};
use serde_json::Value;
use vlab_protocol::{ConsoleSource, ControlAction};
use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::lab::radio::MAX_SENT_BYTES_PER_SEC;
use vlab_server::lab::recording::{Chunk, MAX_RECORDED_BYTES_PER_ROBOT_PER_SEC, Record};
use vlab_server::secret::TokenDigest;
use vlab_server::store::RecordingStore;

use crate::common::{PATIENCE, TOKEN, TestServer, yard};

const FLOODERS: usize = 12;
/// Simulated seconds the flood runs.
const SECONDS: u64 = 3;
const DT: f64 = 1.0 / 240.0;

/// A module that sends 16 messages of 1,024 bytes with every answer.
fn flood_module() -> Vec<u8> {
    wat::parse_str(
        r#"(module
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
                 (br_if $again (i32.lt_u (local.get $i) (i32.const 16))))))"#,
    )
    .expect("valid WAT")
}

/// Twelve flooders in a ring around the yard's middle, all in range of each other, and
/// a quiet robot with a gyroscope read 10 times a second.
fn robots_form() -> Form {
    let mut scene = String::new();
    for i in 0..FLOODERS {
        let angle = i as f64 * std::f64::consts::TAU / FLOODERS as f64;
        let (x, z) = (6.0 + 3.0 * angle.cos(), 6.0 + 3.0 * angle.sin());
        scene.push_str(&format!(
            "robot flood_{i:02} {{ code \"flood.wasm\"; body {{ static flood_{i:02}_box {{ shape box(0.3, 0.3, 0.3); \
             pos({x:.3}, 0.15, {z:.3}); Radio radio {{ range 20; max_length 1024; max_heard 64; }} }} }} }}\n"
        ));
    }
    scene.push_str("robot quiet { body { static quiet_box { shape box(0.3, 0.3, 0.3); pos(6, 0.15, 6); Gyro gyro { rate 10; } } } }\n");
    Form::new()
        .part("description", Part::text(scene).file_name("robots.vlab"))
        .part("program", Part::bytes(flood_module()).file_name("flood.wasm"))
}

/// A server whose paused lab `demo` (the yard) records into a file of its own.
struct Recorded {
    server: TestServer,
    dir: PathBuf,
}

impl Recorded {
    async fn start() -> Recorded {
        let dir = std::env::temp_dir().join(format!("vlab-radio-flood-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let recordings = RecordingStore::open(&dir.join("vlab.recordings.db")).unwrap();
        let classroom = Classroom::new(ClassroomConfig {
            server_key: Some(TokenDigest::of(TOKEN)),
            recordings: Some(recordings),
            ..ClassroomConfig::default()
        });
        classroom.registry.insert(crate::common::test_lab(&classroom, "demo", yard(), false));
        Recorded { server: TestServer::serve(classroom).await, dir }
    }

    async fn report(&self, robot: &str) -> Value {
        let url = self.server.url(&format!("/api/labs/demo/robots/{robot}"));
        let response = self.server.http.get(url).bearer_auth(TOKEN).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        response.json().await.unwrap()
    }

    /// Steps the paused lab `steps` steps and waits until the recording keeps them.
    async fn step(&self, steps: u32) -> u64 {
        let state = self.server.control("demo", ControlAction::Step { steps }).await;
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let (status, summary) = self.server.get_json("/api/labs/demo/recording").await;
            assert_eq!(status, 200, "{summary}");
            if summary["last_step"].as_u64() >= Some(state.step) {
                return state.step;
            }
            assert!(tokio::time::Instant::now() < deadline, "the recording never reached step {}", state.step);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn chunks(&self) -> Vec<Chunk> {
        let store = RecordingStore::open(&self.dir.join("vlab.recordings.db")).unwrap();
        let rows = store.chunks("demo", 1, 0, i64::MAX as u64).unwrap();
        rows.iter().map(|(_, bytes)| Chunk::decode(bytes).unwrap()).collect()
    }
}

impl Drop for Recorded {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What the recording kept of each robot in each second of simulation time, as the
/// JSON it is kept as (the recording's own word that a robot was thinned aside).
fn recorded_bytes(chunks: &[Chunk]) -> BTreeMap<(String, u64), usize> {
    let mut bytes = BTreeMap::new();
    let second = |time: f64| (time + 1e-9).floor() as u64;
    for record in chunks.iter().flat_map(|c| &c.records) {
        let size = serde_json::to_vec(record).unwrap().len();
        let (robot, time) = match record {
            Record::Reading(reading) => (&reading.robot, reading.sensor.time.unwrap_or(0.0)),
            Record::Estimate(estimate) => (&estimate.robot, estimate.time),
            Record::Console { robot, lines } => {
                let words = lines.iter().filter(|l| !l.text.starts_with("recording of robot"));
                for line in words {
                    *bytes.entry((robot.clone(), second(line.time))).or_default() +=
                        serde_json::to_vec(line).unwrap().len();
                }
                continue;
            }
            Record::Command { step, robot, .. } | Record::Hold { step, robot } | Record::Keys { step, robot, .. } => {
                (robot, *step as f64 * DT)
            }
            _ => continue,
        };
        *bytes.entry((robot.clone(), second(time))).or_default() += size;
    }
    bytes
}

#[tokio::test]
async fn radio_floods_are_refused_past_their_budget_and_the_recording_keeps_each_robot_within_its_own() {
    let lab = Recorded::start().await;
    let http = &lab.server.http;
    let response =
        http.post(lab.server.url("/api/labs/demo/robots")).bearer_auth(TOKEN).multipart(robots_form()).send().await;
    let response = response.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
    let deadline = tokio::time::Instant::now() + PATIENCE;
    for i in 0..FLOODERS {
        while lab.report(&format!("flood_{i:02}")).await["program"]["state"] == "starting" {
            assert!(tokio::time::Instant::now() < deadline, "flood_{i:02}'s program never started");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let start = lab.server.lab_state("demo").await["step"].as_u64().unwrap();
    let end = lab.step((SECONDS * 240) as u32).await;

    // Every flooder was refused past its bytes, told once a second, with the reason.
    for i in 0..FLOODERS {
        let report = lab.report(&format!("flood_{i:02}")).await;
        let refusals: Vec<(u64, String)> = report["console"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["source"] == "lab" && l["text"].as_str().unwrap().starts_with("radio: messages not sent"))
            .map(|l| (l["step"].as_u64().unwrap(), l["text"].as_str().unwrap().to_owned()))
            .collect();
        let seconds: Vec<u64> = refusals.iter().map(|(step, _)| step / 240).collect();
        let expected: Vec<u64> = (start / 240..=(end - 5) / 240).collect();
        assert_eq!(seconds, expected, "flood_{i:02}: one refusal a second: {refusals:?}");
        assert!(
            refusals[0].1.contains(&format!("at most {MAX_SENT_BYTES_PER_SEC} bytes a second")),
            "{}",
            refusals[0].1
        );
    }

    // The recording kept each robot within its budget in every second.
    let chunks = lab.chunks();
    let bytes = recorded_bytes(&chunks);
    for ((robot, second), kept) in &bytes {
        assert!(
            *kept <= MAX_RECORDED_BYTES_PER_ROBOT_PER_SEC,
            "{robot} kept {kept} bytes in second {second}, over {MAX_RECORDED_BYTES_PER_ROBOT_PER_SEC}"
        );
    }
    let thinned: Vec<(String, u64)> = chunks
        .iter()
        .flat_map(|c| &c.records)
        .filter_map(|r| match r {
            Record::Console { robot, lines } if lines[0].text.starts_with("recording of robot") => {
                assert_eq!(lines[0].source, ConsoleSource::Lab);
                Some((robot.clone(), lines[0].step / 240))
            }
            _ => None,
        })
        .collect();
    assert!(thinned.iter().any(|(robot, _)| robot == "flood_00"), "the recording says a flooder was thinned");
    assert!(!thinned.iter().any(|(robot, _)| robot == "quiet"), "{thinned:?}");

    // The quiet robot's gyroscope: every reading of the run is recorded, none missing.
    let quiet: Vec<u64> = chunks
        .iter()
        .flat_map(|c| &c.records)
        .filter_map(|r| match r {
            Record::Reading(reading) if reading.robot == "quiet" => reading.sensor.step,
            _ => None,
        })
        .collect();
    assert!(quiet.len() as u64 >= SECONDS * 10, "{quiet:?}");
    // (The first is the one it had when it was added.)
    for pair in quiet[1..].windows(2) {
        assert_eq!(pair[1] - pair[0], 24, "10 readings a second, each recorded: {quiet:?}");
    }
    assert!(*quiet.last().unwrap() + 24 + 5 > end, "recorded to the end: {quiet:?} (end {end})");
}
