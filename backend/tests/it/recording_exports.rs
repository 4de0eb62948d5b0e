//! Exports of a lab's recording over real HTTP (docs/recording.md, "Exports"): the CSV
//! holds every reading as the live lab reported it, the MCAP every recorded frame,
//! reading and console line at its simulation time, a student exports her own robot
//! only, and bad ranges are refused with reasons.
//!
//! The server keeps its recording in a file here, so each test reads the kept chunks
//! back beside the server and counts what an export must hold.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{PATIENCE, TOKEN, TestServer};
use reqwest::multipart::{Form, Part};
use serde_json::Value;
use vlab_protocol::{ControlAction, RobotReport, SensorValue};
use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::lab::recording::{Chunk, Record};
use vlab_server::scene::demo_scene;
use vlab_server::secret::TokenDigest;
use vlab_server::store::RecordingStore;

/// A server whose demo lab (paused, code `DEMOCODE`) records into a file of its own.
struct Recorded {
    server: TestServer,
    dir: PathBuf,
}

impl Recorded {
    async fn start() -> Recorded {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "vlab-exports-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let recordings = RecordingStore::open(&dir.join("vlab.recordings.db")).unwrap();
        let classroom = Classroom::new(ClassroomConfig {
            server_key: Some(TokenDigest::of(TOKEN)),
            recordings: Some(recordings),
            ..ClassroomConfig::default()
        });
        classroom.registry.insert(crate::common::test_lab(&classroom, "demo", demo_scene(1), false));
        Recorded { server: TestServer::serve(classroom).await, dir }
    }

    /// Steps the lab `steps` steps and waits until the recording keeps them.
    async fn step(&self, steps: u64) -> u64 {
        self.step_in_run(steps, 1).await
    }

    /// Steps the lab `steps` steps and waits until the recording keeps them in run
    /// `run` (after a reset, the old run's later steps must not count).
    async fn step_in_run(&self, steps: u64, run: u64) -> u64 {
        let state = self.server.control("demo", ControlAction::Step { steps: steps as u32 }).await;
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let (status, summary) = self.server.get_json("/api/labs/demo/recording").await;
            assert_eq!(status, 200, "{summary}");
            if summary["run"].as_u64() == Some(run) && summary["last_step"].as_u64() >= Some(state.step) {
                return state.step;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the recording never reached step {}: {summary}",
                state.step
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Every chunk of run `run` kept so far, decoded.
    fn chunks(&self, run: u32) -> Vec<Chunk> {
        let store = RecordingStore::open(&self.dir.join("vlab.recordings.db")).unwrap();
        let rows = store.chunks("demo", run, 0, i64::MAX as u64).unwrap();
        rows.iter().map(|(_, bytes)| Chunk::decode(bytes).unwrap()).collect()
    }

    /// GETs `path` with an optional token, retrying while the server's export slots are
    /// taken: status, headers, body.
    async fn get(&self, path: &str, token: Option<&str>) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let mut request = self.server.http.get(self.server.url(path));
            if let Some(token) = token {
                request = request.bearer_auth(token);
            }
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let body = response.bytes().await.unwrap().to_vec();
            if status == 503 && tokio::time::Instant::now() < deadline {
                assert!(headers.contains_key("retry-after"), "a busy answer says when to come back");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            return (status, headers, body);
        }
    }

    /// The error message of a refused GET, checking its status.
    async fn refused(&self, path: &str, token: Option<&str>, status: u16) -> String {
        let (got, _, body) = self.get(path, token).await;
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        assert_eq!(got, status, "GET {path}: {body}");
        body["error"]["message"].as_str().unwrap_or_default().to_owned()
    }
}

impl Drop for Recorded {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A WebAssembly program that logs "tick" every control step.
fn tick_form() -> Form {
    let module = wat::parse_str(
        r#"(module
             (import "vlab" "log" (func $log (param i32 i32)))
             (memory (export "memory") 1)
             (data (i32.const 0) "tick")
             (func (export "vlab_abi_version") (result i32) (i32.const 1))
             (func (export "pre_step") (call $log (i32.const 0) (i32.const 4))))"#,
    )
    .expect("valid WAT");
    Form::new().part("program", Part::bytes(module).file_name("tick.wasm"))
}

/// A CSV export's rows, each a map from the header's names to the fields.
fn rows(csv: &[u8]) -> Vec<BTreeMap<String, String>> {
    let text = std::str::from_utf8(csv).unwrap();
    let mut lines = text.split("\r\n");
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header, ["run", "step", "time", "robot", "sensor", "kind", "measured", "true"]);
    lines
        .filter(|line| !line.is_empty())
        .map(|line| {
            // The demo's names hold no comma, so no field of these is quoted.
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), header.len(), "{line}");
            header.iter().map(|h| h.to_string()).zip(fields.into_iter().map(str::to_owned)).collect()
        })
        .collect()
}

/// Whether a CSV cell holds exactly `value`'s numbers (or keys), as its docs say.
fn cell_holds(cell: &str, value: &SensorValue) -> bool {
    let numbers: Vec<f64> = match value {
        SensorValue::Scan { ranges, .. } => {
            let read: Vec<f32> = cell.split(' ').map(|n| n.parse().unwrap()).collect();
            return read == *ranges;
        }
        SensorValue::Keys { keys } => {
            return cell.split(' ').filter(|k| !k.is_empty()).eq(keys.iter().map(String::as_str));
        }
        SensorValue::Scalar { value } => vec![*value],
        SensorValue::Vector { values } => values.to_vec(),
        SensorValue::Ticks { ticks, angle } => vec![*ticks as f64, *angle],
        SensorValue::Joint { position, velocity } => vec![*position, *velocity],
        SensorValue::Pose2d { x, y, theta } => vec![*x, *y, *theta],
        SensorValue::Contact { touching, point, force } => {
            let mut numbers = vec![f64::from(u8::from(*touching))];
            numbers.extend(force);
            numbers.extend(point.iter().flatten());
            numbers
        }
        SensorValue::Image { width, height, mean, .. } => {
            [f64::from(*width), f64::from(*height)].into_iter().chain(mean.map(f64::from)).collect()
        }
        SensorValue::DepthImage { width, height, nearest, .. } => vec![f64::from(*width), f64::from(*height), *nearest],
        SensorValue::Orientation { roll, pitch, yaw, quaternion } => {
            [*roll, *pitch, *yaw].into_iter().chain(*quaternion).collect()
        }
        SensorValue::Landmarks { landmarks } => {
            let expected = landmarks
                .iter()
                .flat_map(|l| [l.id.clone(), l.distance.to_string(), l.bearing.to_string(), l.elevation.to_string()]);
            return cell.split(' ').filter(|w| !w.is_empty()).eq(expected);
        }
        SensorValue::Radio { heard, sent } => vec![heard.len() as f64, sent.len() as f64],
    };
    let read: Vec<f64> = cell.split(' ').map(|n| n.parse().unwrap()).collect();
    read == numbers
}

/// Simulation seconds as MCAP's nanoseconds.
fn nanos(seconds: f64) -> u64 {
    (seconds * 1e9).round() as u64
}

#[tokio::test]
async fn csv_rows_hold_the_readings_the_live_lab_reported() {
    let lab = Recorded::start().await;
    let mut checked = 0;
    for _ in 0..2 {
        let step = lab.step(240).await;
        let (status, _, csv) = lab.get("/api/labs/demo/recording.csv", Some(TOKEN)).await;
        assert_eq!(status, 200);
        let rows = rows(&csv);
        for robot in ["rover_red", "rover_blue"] {
            let (status, report) = lab.server.get_json(&format!("/api/labs/demo/robots/{robot}")).await;
            assert_eq!(status, 200, "{report}");
            let report: RobotReport = serde_json::from_value(report).unwrap();
            assert_eq!(report.step, step);
            for sensor in report.sensors.iter().filter(|s| s.step.is_some()) {
                let live = sensor.step.unwrap();
                let step_of = |r: &BTreeMap<String, String>| r["step"].parse::<u64>().unwrap();
                // A sensor with a rate is recorded at each reading: that reading's row.
                // One read every step (a keyboard, a joint) is recorded when its value
                // changes and once a second while it does not: its latest row, if the
                // recording holds one yet, holds the live value.
                let row = rows
                    .iter()
                    .rev()
                    .filter(|r| r["robot"] == robot && r["sensor"] == sensor.name)
                    .find(|r| if sensor.rate.is_some() { step_of(r) == live } else { step_of(r) <= live });
                let row = match row {
                    Some(row) => row,
                    None if sensor.rate.is_none() => continue,
                    None => panic!("no row of {robot}'s {} at step {live}", sensor.name),
                };
                if sensor.rate.is_some() {
                    assert_eq!(row["time"].parse::<f64>().unwrap(), sensor.time.unwrap(), "{robot} {}", sensor.name);
                }
                assert_eq!(row["kind"], sensor.kind);
                assert_eq!(row["run"], "1");
                assert!(
                    cell_holds(&row["measured"], sensor.measured.as_ref().unwrap()),
                    "{robot} {}: {row:?}",
                    sensor.name
                );
                assert!(cell_holds(&row["true"], sensor.truth.as_ref().unwrap()), "{robot} {}: {row:?}", sensor.name);
                checked += 1;
            }
        }
        // In step order, as a reader reads the file.
        let steps: Vec<u64> = rows.iter().map(|row| row["step"].parse().unwrap()).collect();
        assert!(steps.windows(2).all(|pair| pair[0] <= pair[1]), "rows out of step order: {steps:?}");
        // Every reading once: no (robot, sensor, step) twice across chunk boundaries.
        let mut seen = HashMap::new();
        for row in &rows {
            let key = (row["robot"].clone(), row["sensor"].clone(), row["step"].clone());
            assert!(seen.insert(key, ()).is_none(), "a reading twice: {row:?}");
        }
        // The CSV has exactly the readings the chunks recorded.
        let chunks = lab.chunks(1);
        let mut recorded = std::collections::HashSet::new();
        for chunk in &chunks {
            let keys = chunk.key_readings.iter();
            let records = chunk.records.iter().filter_map(|r| match r {
                Record::Reading(reading) => Some(reading.as_ref()),
                _ => None,
            });
            for reading in keys.chain(records).filter(|r| r.sensor.step.is_some()) {
                recorded.insert((reading.robot.clone(), reading.sensor.name.clone(), reading.sensor.step));
            }
        }
        assert_eq!(rows.len(), recorded.len(), "rows: every reading the chunks hold, once");
        eprintln!("step {step}: {} rows, {} bytes, {checked} live readings found", rows.len(), csv.len());
    }
    assert!(checked >= 20, "{checked} live readings checked");

    let (status, headers, _) = lab.get("/api/labs/demo/recording.csv", Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    assert_eq!(
        headers["content-disposition"], "attachment; filename=\"demo-recording-run1.csv\"",
        "the page's own name"
    );

    // A span: only its steps, and one robot's file only its readings.
    let (_, _, csv) = lab.get("/api/labs/demo/robots/rover_red/readings.csv?from=100&to=200", Some(TOKEN)).await;
    let span = rows(&csv);
    assert!(!span.is_empty());
    for row in &span {
        let step: u64 = row["step"].parse().unwrap();
        assert!((100..=200).contains(&step) && row["robot"] == "rover_red", "{row:?}");
    }
}

#[tokio::test]
async fn the_mcap_file_holds_every_frame_reading_and_line_at_its_simulation_time() {
    let lab = Recorded::start().await;
    let http = &lab.server.http;
    let put = http.put(lab.server.url("/api/labs/demo/robots/rover_red/program")).bearer_auth(TOKEN);
    let response = put.multipart(tick_form()).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
    lab.step(300).await;
    lab.step(300).await;

    let (status, headers, file) = lab.get("/api/labs/demo/recording.mcap", Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-disposition"], "attachment; filename=\"demo-recording-run1.mcap\"");
    let (_, _, csv) = lab.get("/api/labs/demo/recording.csv", Some(TOKEN)).await;
    let rows = rows(&csv);

    // What the kept chunks hold.
    let chunks = lab.chunks(1);
    let mut transforms = 0;
    let mut frame_times = std::collections::HashSet::new();
    let mut console = 0;
    let mut events = 0;
    for (i, chunk) in chunks.iter().enumerate() {
        if i == 0 || chunks[i - 1].epoch != chunk.epoch {
            transforms += chunk.keyframe.len();
            frame_times.insert(nanos(chunk.first_time));
        }
        for record in &chunk.records {
            match record {
                Record::Frame { time, poses, .. } => {
                    transforms += poses.len();
                    frame_times.insert(nanos(*time));
                }
                Record::Console { lines, .. } => console += lines.len(),
                Record::Event { .. } | Record::Control { .. } => events += 1,
                _ => {}
            }
        }
    }
    assert!(console > 0, "the program logged");

    let summary = mcap::Summary::read(&file).unwrap().expect("a summary section");
    let schemas: BTreeMap<String, String> =
        summary.schemas.values().map(|s| (s.name.clone(), s.encoding.clone())).collect();
    for name in ["foxglove.FrameTransform", "foxglove.LaserScan", "foxglove.Log", "vlab.SensorReading"] {
        assert_eq!(schemas.get(name).map(String::as_str), Some("jsonschema"), "{name} in {schemas:?}");
    }

    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let (mut bodies, mut readings, mut scans_true, mut logs) = (0, 0, 0, 0);
    let mut last_time = 0;
    for message in mcap::MessageStream::new(&file).unwrap() {
        let message = message.unwrap();
        let topic = message.channel.topic.clone();
        let schema = message.channel.schema.as_ref().unwrap().name.clone();
        assert_eq!(message.channel.message_encoding, "json");
        assert!(message.log_time >= last_time, "{topic}: log times go back");
        assert_eq!(message.publish_time, message.log_time);
        last_time = message.log_time;
        let data: Value = serde_json::from_slice(&message.data).unwrap();
        let stamp =
            data["timestamp"]["sec"].as_u64().unwrap() * 1_000_000_000 + data["timestamp"]["nsec"].as_u64().unwrap();
        assert_eq!(stamp, message.log_time, "{topic}: its timestamp is its log time");
        match schema.as_str() {
            "foxglove.FrameTransform" => {
                assert!(topic.starts_with("/bodies/"), "{topic}");
                assert_eq!(data["parent_frame_id"], "world");
                assert_eq!(format!("/bodies/{}", data["child_frame_id"].as_str().unwrap()), topic);
                assert!(frame_times.contains(&message.log_time), "{topic}: a pose at a recorded frame's time");
                bodies += 1;
            }
            "foxglove.LaserScan" if topic.ends_with("/true") => scans_true += 1,
            "foxglove.LaserScan" | "vlab.SensorReading" => {
                readings += 1;
                let mut parts = topic.trim_start_matches("/robots/").split("/sensors/");
                let (robot, sensor) = (parts.next().unwrap(), parts.next().unwrap());
                let time = message.log_time;
                let row = rows.iter().find(|r| {
                    r["robot"] == robot && r["sensor"] == sensor && nanos(r["time"].parse().unwrap()) == time
                });
                assert!(row.is_some(), "{topic} at {time} ns is a row of the CSV");
                if schema == "vlab.SensorReading" {
                    assert!(data["measured"].is_object() && data["true"].is_object(), "{data}");
                    if data["measured"]["type"] == "scalar" {
                        assert!(data["measured"]["value"].is_number() && data["true"]["value"].is_number());
                    }
                }
            }
            "foxglove.Log" => {
                logs += 1;
                assert!(data["message"].is_string() && data["level"].is_u64());
            }
            other => panic!("{topic}: unexpected schema {other}"),
        }
        *counts.entry(topic).or_default() += 1;
    }
    eprintln!(
        "MCAP: {} bytes, {} channels, {bodies} poses, {readings} readings (+{scans_true} true scans), {logs} log lines; \
         CSV {} rows",
        file.len(),
        counts.len(),
        rows.len()
    );
    assert_eq!(bodies, transforms, "every moving body's pose on every recorded frame, and the keyframe");
    assert_eq!(readings, rows.len(), "every reading, as in the CSV");
    let scans = rows.iter().filter(|r| r["kind"] == "Lidar").count();
    assert_eq!(scans_true, scans, "every scan's true scan");
    assert_eq!(logs, console + events, "every console line and event");
    assert_eq!(counts.get("/robots/rover_red/console").copied(), Some(console));
    let stats = summary.stats.expect("statistics");
    assert_eq!(stats.message_count as usize, bodies + readings + scans_true + logs);
    assert!(counts.keys().any(|t| t == "/robots/rover_red/sensors/lidar"));
    assert!(counts.keys().any(|t| t.starts_with("/bodies/prop_")), "props move too: {:?}", counts.keys());

    // One robot's file: its bodies, sensors and console only.
    let (status, headers, own) = lab.get("/api/labs/demo/robots/rover_red/recording.mcap", Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-disposition"], "attachment; filename=\"demo-rover_red-recording-run1.mcap\"");
    let mut topics = BTreeMap::new();
    for message in mcap::MessageStream::new(&own).unwrap() {
        *topics.entry(message.unwrap().channel.topic.clone()).or_insert(0) += 1;
    }
    for (topic, count) in &topics {
        assert!(
            topic.starts_with("/bodies/rover_red_") || topic.starts_with("/robots/rover_red/"),
            "{topic} in rover_red's file"
        );
        assert_eq!(counts.get(topic), Some(count), "{topic}: as many as in the lab's file");
    }
    assert!(topics.contains_key("/bodies/rover_red_chassis") && topics.contains_key("/robots/rover_red/console"));
    eprintln!("rover_red's MCAP: {} bytes, {} channels", own.len(), topics.len());
}

#[tokio::test]
async fn a_student_exports_her_own_robot_and_nothing_else() {
    let lab = Recorded::start().await;
    let ana = lab.server.join_demo("Ana").await;
    let bob = lab.server.join_demo("Bob").await;
    let robot = "robot ana_bot { body { ana_body { shape box(0.3, 0.1, 0.2); pos(2, 0.15, 3); SimpleGPS gps; } } }";
    let response = lab
        .server
        .http
        .post(lab.server.url("/api/labs/demo/robots"))
        .bearer_auth(&ana)
        .body(robot)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
    lab.step(120).await;

    for file in ["readings.csv", "recording.mcap"] {
        let own = format!("/api/labs/demo/robots/ana_bot/{file}");
        let (status, _, body) = lab.get(&own, Some(&ana)).await;
        assert_eq!(status, 200, "Ana exports her robot's {file}: {}", String::from_utf8_lossy(&body));
        let (status, _, _) = lab.get(&own, Some(TOKEN)).await;
        assert_eq!(status, 200, "the instructor exports Ana's robot's {file}");
        let message = lab.refused(&own, Some(&bob), 403).await;
        assert_eq!(message, "only the owner of 'ana_bot' or the instructor may export its recording; it is not yours");
        lab.refused(&format!("/api/labs/demo/robots/rover_red/{file}"), Some(&ana), 403).await;
        let message = lab.refused(&own, None, 401).await;
        assert!(message.contains("you need a session"), "{message}");
    }
    let (_, _, csv) = lab.get("/api/labs/demo/robots/ana_bot/readings.csv", Some(&ana)).await;
    let rows = rows(&csv);
    assert!(!rows.is_empty() && rows.iter().all(|r| r["robot"] == "ana_bot" && r["sensor"] == "gps"), "{rows:?}");
    for file in ["recording.csv", "recording.mcap"] {
        let message = lab.refused(&format!("/api/labs/demo/{file}"), Some(&ana), 403).await;
        assert_eq!(message, "only the instructor of this lab may export the lab's recording");
        let message = lab.refused(&format!("/api/labs/demo/{file}"), None, 401).await;
        assert!(message.contains("instructor's token"), "{message}");
    }
    // Anybody who may watch reads what is kept.
    let (status, summary) = lab.server.get_json("/api/labs/demo/recording").await;
    assert_eq!(status, 200);
    assert_eq!(summary["run"], 1);
    assert_eq!(summary["runs"][0]["last_step"], 120, "{summary}");
}

#[tokio::test]
async fn bad_runs_and_ranges_are_refused_with_what_is_kept() {
    let lab = Recorded::start().await;
    let path = "/api/labs/demo/recording.csv";
    let message = lab.refused(path, Some(TOKEN), 404).await;
    assert!(message.contains("recorded nothing yet") || message.contains("not recorded"), "{message}");
    lab.step(100).await;

    let message = lab.refused(&format!("{path}?from=abc"), Some(TOKEN), 400).await;
    assert_eq!(message, "'from' must be a step (a whole number from 0), not 'abc'");
    let message = lab.refused(&format!("{path}?to=-3"), Some(TOKEN), 400).await;
    assert_eq!(message, "'to' must be a step (a whole number from 0), not '-3'");
    let message = lab.refused(&format!("{path}?from=50&to=10"), Some(TOKEN), 400).await;
    assert_eq!(message, "'from' (step 50) is after 'to' (step 10)");
    let message = lab.refused(&format!("{path}?step=3"), Some(TOKEN), 400).await;
    assert!(message.starts_with("unknown parameter 'step'"), "{message}");
    let message = lab.refused(&format!("{path}?run=7"), Some(TOKEN), 404).await;
    assert_eq!(message, "run 7 is not recorded: this lab keeps run 1 (steps 0–100)");
    let message = lab.refused(&format!("{path}?from=500"), Some(TOKEN), 404).await;
    assert_eq!(message, "nothing is recorded from step 500 on: run 1 keeps steps 0–100");
    let message = lab.refused("/api/labs/demo/recording.mcap?from=200&to=300", Some(TOKEN), 404).await;
    assert_eq!(message, "nothing is recorded at steps 200–300: run 1 keeps steps 0–100");
    lab.refused("/api/labs/demo/robots/nobody/readings.csv", Some(TOKEN), 404).await;

    // A new run after a reset: the old one stays exportable by number.
    lab.server.control("demo", ControlAction::Reset).await;
    lab.step_in_run(50, 2).await;
    let (status, summary) = lab.server.get_json("/api/labs/demo/recording").await;
    assert_eq!(status, 200);
    assert_eq!(summary["run"], 2, "{summary}");
    let (status, headers, old) = lab.get(&format!("{path}?run=1"), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(
        headers["content-disposition"], "attachment; filename=\"demo-recording-run1.csv\"",
        "the page's own name"
    );
    assert!(rows(&old).iter().all(|r| r["run"] == "1"));
    let (_, _, current) = lab.get(path, Some(TOKEN)).await;
    let current = rows(&current);
    assert!(!current.is_empty() && current.iter().all(|r| r["run"] == "2" && r["step"].parse::<u64>().unwrap() <= 50));
}

#[tokio::test]
async fn one_export_at_a_time_per_caller_and_a_client_that_leaves_frees_its_slot() {
    let lab = Recorded::start().await;
    // Enough for a CSV of several MiB: more than the pipe, the server's send buffer and
    // the client's receive window hold, so an export whose client does not read waits.
    for _ in 0..4 {
        lab.step(2400).await;
    }
    let path = "/api/labs/demo/recording.csv";
    let open = || lab.server.http.get(lab.server.url(path)).bearer_auth(TOKEN).send();
    // An export whose body is not read holds the instructor's slot.
    let held = open().await.unwrap();
    assert_eq!(held.status().as_u16(), 200);
    let refused = open().await.unwrap();
    assert_eq!(refused.status().as_u16(), 429);
    assert_eq!(refused.headers()["retry-after"], "5");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(
        body["error"]["message"],
        "you are already downloading an export of this lab's recording: let it finish (or cancel it), then try again"
    );
    // The client leaves without reading: its export stops and frees the slot.
    drop(held);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let csv = loop {
        let (status, _, csv) = lab.get(path, Some(TOKEN)).await;
        if status == 200 {
            break csv;
        }
        assert_eq!(status, 429);
        assert!(tokio::time::Instant::now() < deadline, "the slot never came free");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let rows = rows(&csv);
    assert_eq!(rows.last().unwrap()["run"], "1");
    eprintln!("a whole export after the slot came free: {} rows, {} bytes", rows.len(), csv.len());
}
