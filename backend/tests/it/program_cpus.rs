//! `vlab serve --program-cpus` against the real binary: by default (`auto`) a robot
//! program runs on every CPU the server may use but the first, which the labs' threads
//! keep; a list puts programs on those CPUs; a value that does not read, or names no CPU
//! the server may use, stops the start with a message that says why.
#![cfg(target_os = "linux")]

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::binary::VlabProcess;
use reqwest::multipart::{Form, Part};
use vlab_server::controller::placement::{allowed_cpus, cpu_list};

const KEY: &str = "program-cpus-key";

/// A robot of the scene library in the demo lab's room, driven by a program.
const ROBOT: &str = "include \"diffbot_robot.vlab\";\ncall diffbot(\"_cpus\", 3, 1.5, 0);\n";
const PROGRAM: &str =
    "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    robot.actuator(\"drive\").set(0.1, 0.0)\n";

/// The kernel's list of CPUs the server's robot program (its Python child) may run on,
/// once it runs.
async fn program_cpus_of(server: &VlabProcess) -> Option<String> {
    let form = Form::new()
        .part("description", Part::text(ROBOT).file_name("robot.vlab"))
        .part("program", Part::text(PROGRAM).file_name("main.py"));
    let http = reqwest::Client::new();
    let response =
        http.post(server.url("/api/labs/demo/robots")).bearer_auth(KEY).multipart(form).send().await.unwrap();
    let (status, reply) = (response.status().as_u16(), response.text().await.unwrap());
    if status == 422 && reply.contains("the sandbox cannot be enforced") {
        eprintln!("programs are refused on this machine: {reply}");
        return None;
    }
    assert_eq!(status, 200, "{reply}");
    let server_pid = server.pid().to_string();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else { continue };
            let field = |name: &str| {
                status.lines().find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_owned())).unwrap_or_default()
            };
            if field("PPid:") == server_pid && field("Name:").starts_with("python") {
                return Some(field("Cpus_allowed_list:"));
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no program of the server ran within 30 s");
}

fn db(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("vlab-program-cpus-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("vlab.db")
}

#[tokio::test]
async fn by_default_programs_leave_the_first_cpu_to_the_labs() {
    let allowed = allowed_cpus();
    let server = VlabProcess::start(&db("auto"), &["--instructor-token", KEY]);
    let Some(cpus) = program_cpus_of(&server).await else { return };
    let expected = if allowed.len() >= 2 { &allowed[1..] } else { &allowed[..] };
    assert_eq!(cpus, cpu_list(expected), "the server may use {}", cpu_list(&allowed));
}

#[tokio::test]
async fn a_list_puts_programs_on_its_cpus() {
    let first = allowed_cpus()[0].to_string();
    let server = VlabProcess::start(&db("list"), &["--instructor-token", KEY, "--program-cpus", &first]);
    let Some(cpus) = program_cpus_of(&server).await else { return };
    assert_eq!(cpus, first);
}

/// The start's error, from the real binary.
fn refused(value: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_vlab"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(db("refused"))
        .args(["--program-cpus", value])
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("the vlab binary runs");
    assert!(!output.status.success(), "--program-cpus {value} was accepted");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_value_that_cannot_be_carried_out_stops_the_start_and_says_why() {
    let unreadable = refused("1-x");
    assert!(unreadable.contains("'1-x' at character 3: 'x' is not a CPU number"), "{unreadable}");
    let past = (allowed_cpus().last().unwrap() + 1).to_string();
    let nowhere = refused(&past);
    let expected = format!("--program-cpus {past}: the server may use only CPUs {}", cpu_list(&allowed_cpus()));
    assert!(nowhere.contains(&expected), "{nowhere}");
}
