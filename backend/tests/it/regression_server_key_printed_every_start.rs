//! Regression: the server printed its key (the demo lab's instructor token, which
//! creates labs) on every start, into every log and onto every projected terminal. It
//! is printed once, when it is made; `vlab key` prints it again for the operator.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// Starts `vlab serve` on `db`, reads its start-up lines, and stops it.
fn start_up_lines(db: &std::path::Path) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vlab"))
        .args(["serve", "--addr", "127.0.0.1:0", "--paused", "--db"])
        .arg(db)
        .env("RUST_LOG", "warn")
        .env_remove("VLAB_INSTRUCTOR_TOKEN")
        .stdout(Stdio::piped())
        .spawn()
        .expect("the vlab binary starts");
    let mut lines = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let last = line.contains("students join the demo lab");
        lines.push(line);
        if last {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    lines
}

#[test]
fn the_server_key_is_printed_once_and_vlab_key_prints_it_again() {
    let dir = std::env::temp_dir().join(format!("vlab-key-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");

    let first = start_up_lines(&db).join("\n");
    let token = first
        .split("token=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("the first start prints the instructor link:\n{first}"))
        .to_owned();
    assert!(first.contains("vlab key --db"), "and says how to see it again:\n{first}");

    let second = start_up_lines(&db).join("\n");
    assert!(!second.contains(&token), "a later start does not print the key:\n{second}");
    assert!(second.contains("vlab key --db"), "it says where the key is:\n{second}");

    let key = Command::new(env!("CARGO_BIN_EXE_vlab")).args(["key", "--db"]).arg(&db).output().unwrap();
    assert!(key.status.success());
    let printed = String::from_utf8(key.stdout).unwrap();
    assert!(printed.contains(&format!("/?lab=demo&token={token}")), "{printed}");
    assert!(printed.contains(&format!("server key (creates labs): {token}")), "{printed}");

    let none =
        Command::new(env!("CARGO_BIN_EXE_vlab")).args(["key", "--db"]).arg(dir.join("empty.db")).output().unwrap();
    assert!(!none.status.success(), "a database without a demo lab has no key");
    assert!(String::from_utf8_lossy(&none.stderr).contains("start the server once"));
    std::fs::remove_dir_all(&dir).unwrap();
}
