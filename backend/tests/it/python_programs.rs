//! Robot programs in Python, driven directly (no lab, no server) with made-up readings:
//! the robot API's semantics, then hostile programs, each contained with the message a
//! student should read while the test process goes on unharmed.
//!
//! Where this machine cannot enforce the sandbox, every test asserts the clear refusal
//! instead (a program never runs unconfined).
#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::time::Duration;

use vlab_protocol::{ActuatorCommand, SensorValue};
use vlab_server::controller::{ConsoleLine, ConsoleSource, ProgramError, ProgramSpec, PythonProgram, Reply, StepInput};

/// A robot with one of each common part.
fn spec(source: &str) -> ProgramSpec {
    ProgramSpec::new("bot", source)
        .sensor("GPS1", "SimpleGPS")
        .sensor("kbd", "Keyboard")
        .sensor("lidar", "Lidar")
        .sensor("enc", "Encoder")
        .sensor("bump", "Touch")
        .actuator("Motor1", "SimpleMotor")
        .actuator("arm", "SimpleServo")
        .actuator("base", "DiffDrive")
}

/// Starts `spec`, or checks that the refusal is the clear one and returns `None`.
fn start(spec: ProgramSpec) -> Option<PythonProgram> {
    match PythonProgram::start(spec) {
        Ok(program) => Some(program),
        Err(e @ ProgramError::SandboxUnavailable(_)) => {
            let message = e.to_string();
            assert!(message.starts_with("refused to start the program: the sandbox cannot be enforced"), "{message}");
            eprintln!("sandbox unavailable here, refusal checked: {message}");
            None
        }
        Err(e) => panic!("the program did not start: {e}"),
    }
}

fn readings(step: u64, x: f64, keys: &[&str]) -> StepInput {
    StepInput {
        step,
        time_secs: step as f64 / 240.0,
        sensors: BTreeMap::from([
            ("GPS1".to_string(), Some(SensorValue::Vector { values: [x, 0.5, -2.0] })),
            ("kbd".to_string(), Some(SensorValue::Keys { keys: keys.iter().map(|k| k.to_string()).collect() })),
            (
                "lidar".to_string(),
                Some(SensorValue::Scan {
                    angle_min: -1.0,
                    angle_step: 1.0,
                    max_range: 10.0,
                    ranges: vec![1.5, 2.5, 10.0],
                }),
            ),
            ("enc".to_string(), Some(SensorValue::Ticks { ticks: -42, angle: -1.03 })),
            ("bump".to_string(), None),
        ]),
    }
}

fn texts(lines: &[ConsoleLine]) -> Vec<String> {
    lines.iter().map(|l| l.text.clone()).collect()
}

fn history(program: &PythonProgram) -> String {
    program.console().map(|l| l.text.as_str()).collect::<Vec<_>>().join("\n")
}

/// Runs `source` to its first answer and returns the error it stops with there or at
/// the first step.
fn failure(spec: ProgramSpec) -> Option<(ProgramError, PythonProgram)> {
    let mut program = start(spec)?;
    let error = match program.receive() {
        Err(e) => e,
        Ok(_) => program.exchange(&readings(5, 0.0, &[])).expect_err("the program should have been stopped"),
    };
    Some((error, program))
}

/// The test process is unharmed: another program still runs normally.
fn parent_unaffected() {
    let Some(mut program) = start(spec("from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    pass\n"))
    else {
        return;
    };
    program.receive().expect("ready");
    program.exchange(&readings(5, 0.0, &[])).expect("a step");
    program.stop().expect("a clean stop");
}

#[test]
fn commands_readings_time_and_console_are_what_was_sent_and_set() {
    let source = r#"
from vlab import Robot
robot = Robot()
print("hello from", robot.name)
robot.actuator("Motor1").set_speed(1.5)
while robot.step():
    x, y, z = robot.sensor("GPS1").value()
    robot.log(f"t={robot.time():.6f} step={robot.step_count()} x={x} y={y} z={z}")
    print("I", robot.sensor("kbd").value("I"), "J", robot.sensor("kbd").value("j"))
    print("ranges", robot.sensor("lidar").ranges(), "ticks", robot.sensor("enc").ticks(), "bump", robot.sensor("bump").value())
    robot.actuator("Motor1").set_speed(x * 2)
    robot.actuator("arm").set_position(-0.25)
    robot.actuator("base").set(0.15, 0.3)
print("bye")
"#;
    let Some(mut program) = start(spec(source)) else { return };
    let ready = program.receive().expect("ready");
    assert_eq!(ready.step, None);
    assert_eq!(ready.commands, BTreeMap::from([("Motor1".to_string(), ActuatorCommand::Speed { speed: 1.5 })]));
    assert_eq!(ready.console, vec![ConsoleLine { source: ConsoleSource::Print, text: "hello from bot".into() }]);

    let reply: Reply = program.exchange(&readings(5, 3.25, &["I"])).expect("step 5");
    assert_eq!(reply.step, Some(5));
    assert_eq!(
        reply.commands,
        BTreeMap::from([
            ("Motor1".to_string(), ActuatorCommand::Speed { speed: 6.5 }),
            ("arm".to_string(), ActuatorCommand::Position { position: -0.25 }),
            ("base".to_string(), ActuatorCommand::Drive { v: 0.15, omega: 0.3 }),
        ])
    );
    assert_eq!(
        reply.actuator_commands()["base"],
        serde_json::json!({"v": 0.15, "omega": 0.3}),
        "the shape Robots::command takes"
    );
    assert_eq!(
        texts(&reply.console),
        vec![
            format!("t={:.6} step=5 x=3.25 y=0.5 z=-2.0", 5.0 / 240.0),
            "I 1 J 0".to_string(),
            "ranges [1.5, 2.5, 10.0] ticks -42 bump None".to_string(),
        ]
    );
    assert_eq!(reply.console[0].source, ConsoleSource::Log);
    assert_eq!(reply.console[1].source, ConsoleSource::Print);

    let reply = program.exchange(&readings(10, -1.0, &[])).expect("step 10");
    assert_eq!(reply.commands["Motor1"], ActuatorCommand::Speed { speed: -2.0 });
    assert_eq!(reply.console[1].text, "I 0 J 0");

    program.stop().expect("a clean stop");
    assert_eq!(program.console().last().map(|l| l.text.as_str()), Some("bye"));
    assert_eq!(program.exchange(&readings(15, 0.0, &[])), Err(ProgramError::Stopped));
}

#[test]
fn only_commands_set_during_a_step_are_sent_and_the_last_one_wins() {
    let source = r#"
from vlab import Robot
robot = Robot()
while robot.step():
    if robot.step_count() == 5:
        robot.actuator("Motor1").set_speed(1)
        robot.actuator("Motor1").set_speed(2)
"#;
    let Some(mut program) = start(spec(source)) else { return };
    assert!(program.receive().expect("ready").commands.is_empty());
    let reply = program.exchange(&readings(5, 0.0, &[])).expect("step 5");
    assert_eq!(reply.commands, BTreeMap::from([("Motor1".to_string(), ActuatorCommand::Speed { speed: 2.0 })]));
    assert!(program.exchange(&readings(10, 0.0, &[])).expect("step 10").commands.is_empty());
    program.stop().expect("a clean stop");
}

#[test]
fn programs_run_concurrently_send_to_all_then_collect_from_all() {
    let source = "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    robot.actuator('Motor1').set_speed(robot.sensor('GPS1').value()[0] + 1)\n";
    let mut programs: Vec<PythonProgram> = (0..4).filter_map(|_| start(spec(source))).collect();
    for program in &mut programs {
        program.receive().expect("ready");
    }
    for step in 1..=3u64 {
        for (i, program) in programs.iter_mut().enumerate() {
            program.send_step(&readings(step * 5, i as f64, &[])).expect("sent");
        }
        for (i, program) in programs.iter_mut().enumerate() {
            let reply = program.receive().expect("answer");
            assert_eq!(reply.step, Some(step * 5));
            assert_eq!(reply.commands["Motor1"], ActuatorCommand::Speed { speed: i as f64 + 1.0 });
        }
    }
    for program in &mut programs {
        program.stop().expect("a clean stop");
    }
}

#[test]
fn a_missing_part_names_the_robots_actual_parts() {
    let source = "from vlab import Robot\nrobot = Robot()\nrobot.step()\nrobot.sensor('GPS2').value()\n";
    let Some((error, _)) = failure(spec(source)) else { return };
    let message = error.to_string();
    assert!(message.contains("line 4"), "{message}");
    assert!(message.contains("no sensor called 'GPS2'"), "{message}");
    assert!(
        message.contains("GPS1 (SimpleGPS), kbd (Keyboard), lidar (Lidar), enc (Encoder), bump (Touch)"),
        "{message}"
    );

    let source = "from vlab import Robot\nrobot = Robot()\nrobot.actuator('wheel').set_speed(1)\n";
    let Some((error, _)) = failure(spec(source)) else { return };
    assert!(error.to_string().contains("its actuators are: Motor1 (SimpleMotor), arm (SimpleServo), base (DiffDrive)"));

    let source = "from vlab import Robot\nrobot = Robot()\nrobot.actuator('Motor1').set(1, 2)\n";
    let Some((error, _)) = failure(spec(source)) else { return };
    assert!(error.to_string().contains("'Motor1' is a SimpleMotor: use set_speed(speed)"), "{error}");
}

#[test]
fn a_program_that_ends_by_itself_says_so() {
    let Some((error, program)) = failure(spec("print('just once')\n")) else { return };
    assert_eq!(error, ProgramError::Ended);
    assert_eq!(history(&program), "just once");
}

#[test]
fn an_exception_stops_the_program_with_its_traceback_and_line_number() {
    let source = "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    print('dividing')\n    x = 1 / 0\n";
    let Some((error, program)) = failure(spec(source)) else { return };
    let ProgramError::Raised { traceback } = &error else { panic!("{error:?}") };
    assert!(traceback.contains("File \"main.py\", line 5"), "{traceback}");
    assert!(traceback.contains("ZeroDivisionError: division by zero"), "{traceback}");
    assert!(
        !traceback.contains("vlab.py") && !traceback.contains("<string>"),
        "only the program's own frames: {traceback}"
    );
    assert!(error.to_string().starts_with("stopped: the program raised an exception"));
    assert_eq!(history(&program), "dividing");
    parent_unaffected();
}

#[test]
fn a_syntax_error_points_at_its_line() {
    let Some((error, _)) = failure(spec("x = 1\nif x\n    pass\n")) else { return };
    let ProgramError::Raised { traceback } = &error else { panic!("{error:?}") };
    assert!(traceback.contains("main.py\", line 2"), "{traceback}");
    assert!(traceback.contains("SyntaxError"), "{traceback}");
}

#[test]
fn an_infinite_loop_is_stopped_at_the_step_budget() {
    let source = "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    while True:\n        pass\n";
    let mut spec = spec(source);
    spec.limits.step_budget = Duration::from_millis(300);
    let Some((error, _)) = failure(spec) else { return };
    assert_eq!(error, ProgramError::Timeout { ms: 300 });
    assert_eq!(error.to_string(), "stopped: did not answer within 300 ms");
    parent_unaffected();
}

#[test]
fn cpu_time_is_capped() {
    let source = "while True:\n    pass\n";
    let mut spec = spec(source);
    spec.limits.cpu_secs = 1;
    spec.limits.startup_budget = Duration::from_secs(120);
    let Some((error, _)) = failure(spec) else { return };
    assert_eq!(error, ProgramError::CpuLimit { secs: 1 });
    assert_eq!(error.to_string(), "stopped: used more than 1 s of CPU");
    parent_unaffected();
}

#[test]
fn a_memory_bomb_runs_out_of_memory() {
    let source = "from vlab import Robot\nrobot = Robot()\nhog = []\nwhile robot.step():\n    while True:\n        hog.append(bytearray(16 * 1024 * 1024))\n";
    let mut spec = spec(source);
    spec.limits.memory_mib = 256;
    spec.limits.step_budget = Duration::from_secs(60);
    let Some((error, _)) = failure(spec) else { return };
    assert_eq!(error, ProgramError::OutOfMemory { mib: 256 });
    assert_eq!(error.to_string(), "stopped: ran out of memory (limit 256 MiB)");
    parent_unaffected();
}

#[test]
fn deep_recursion_is_contained() {
    let source = "def down(n):\n    return down(n + 1) + 1\ndown(0)\n";
    let Some((error, _)) = failure(spec(source)) else { return };
    let ProgramError::Raised { traceback } = &error else { panic!("{error:?}") };
    assert!(traceback.contains("RecursionError"), "{traceback}");
    assert!(traceback.contains("line 2, in down"), "{traceback}");
    parent_unaffected();
}

#[test]
fn an_output_flood_is_stopped_at_the_cap() {
    let source =
        "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    while True:\n        print('x' * 100)\n";
    let mut spec = spec(source);
    spec.limits.step_budget = Duration::from_secs(60);
    let Some((error, _)) = failure(spec) else { return };
    assert_eq!(error, ProgramError::OutputFlood { bytes: 16 * 1024 });
    assert_eq!(error.to_string(), "stopped: printed more than 16384 bytes");
    parent_unaffected();
}

#[test]
fn a_flood_written_straight_to_the_descriptors_is_stopped_too() {
    for fd in [1, 2] {
        let source = format!("import os\nwhile True:\n    os.write({fd}, b'y' * 65536)\n");
        let mut spec = spec(&source);
        spec.limits.startup_budget = Duration::from_secs(60);
        let Some((error, _)) = failure(spec) else { return };
        assert_eq!(error, ProgramError::OutputFlood { bytes: 16 * 1024 }, "fd {fd}");
    }
    parent_unaffected();
}

#[test]
fn exit_codes_are_reported() {
    let Some((error, _)) = failure(spec("import sys\nsys.exit(3)\n")) else { return };
    assert_eq!(error.to_string(), "stopped: exited with code 3");
    let Some((error, _)) = failure(spec("import os\nos._exit(4)\n")) else { return };
    assert_eq!(error, ProgramError::Exited { code: 4 });
}

/// Runs `attempt`, a Python expression that must fail, and expects the program to
/// report it blocked.
fn blocked(name: &str, setup: &str, attempt: &str) {
    let source = format!(
        "{setup}\ntry:\n    result = {attempt}\n    print('ALLOWED', repr(result))\nexcept Exception as e:\n    print('blocked', type(e).__name__, e)\n"
    );
    let Some((error, program)) = failure(spec(&source)) else { return };
    assert_eq!(error, ProgramError::Ended, "{name}: {}", history(&program));
    let out = history(&program);
    assert!(out.starts_with("blocked"), "{name} was not blocked: {out}");
}

#[test]
fn reading_a_file_outside_its_folder_is_denied() {
    blocked("read /etc/passwd", "", "open('/etc/passwd').read()");
    blocked("read this test", "", &format!("open({:?}).read()", file!()));
    blocked("list /", "import os", "os.listdir('/')");
    blocked("read /proc", "", "open('/proc/self/status').read()");
    parent_unaffected();
}

#[test]
fn writing_a_file_is_denied_even_in_its_folder() {
    blocked("write in its folder", "", "open('notes.txt', 'w').write('x')");
    blocked("overwrite its own main", "", "open('main.py', 'a').write('x')");
    blocked("write /tmp", "", "open('/tmp/vlab-escape', 'w').write('x')");
    blocked("make a folder", "import os", "os.mkdir('/tmp/vlab-escape-dir')");
    assert!(!std::path::Path::new("/tmp/vlab-escape").exists());
    parent_unaffected();
}

#[test]
fn the_network_is_unreachable() {
    blocked("TCP", "import socket", "socket.create_connection(('127.0.0.1', 80), timeout=1)");
    blocked("UDP", "import socket", "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', 9))");
    blocked("unix", "import socket", "socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)");
    parent_unaffected();
}

#[test]
fn no_new_processes_and_no_exec() {
    blocked("fork", "import os", "os.fork()");
    blocked("subprocess", "import subprocess", "subprocess.run(['/bin/true'])");
    blocked("subprocess of python", "import subprocess, sys", "subprocess.run([sys.executable, '-c', 'pass'])");
    blocked(
        "os.system",
        "import os",
        "(_ for _ in ()).throw(OSError('system returned ' + str(r))) if (r := os.system('true')) != 0 else r",
    );
    blocked("exec python", "import os, sys", "os.execv(sys.executable, [sys.executable, '-c', 'print(1)'])");
    blocked("exec sh", "import os", "os.execv('/bin/sh', ['sh', '-c', 'true'])");
    blocked("kill the lab", "import os", &format!("os.kill({}, 0)", std::process::id()));
    parent_unaffected();
}

#[test]
fn an_escape_attempt_is_blocked_everywhere() {
    let source = r#"
import os, socket, subprocess, sys, ctypes
tries = {
    "read /etc/shadow": lambda: open("/etc/shadow").read(),
    "list /root": lambda: os.listdir("/root"),
    "write a file": lambda: open("escape.txt", "w").write("x"),
    "write /tmp": lambda: open("/tmp/escape.txt", "w").write("x"),
    "chmod": lambda: os.chmod("main.py", 0o777),
    "tcp": lambda: socket.create_connection(("1.1.1.1", 443), timeout=1),
    "udp": lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM),
    "fork": lambda: os.fork(),
    "subprocess": lambda: subprocess.run(["/bin/sh", "-c", "true"]),
    "exec": lambda: os.execv(sys.executable, [sys.executable]),
    "signal the lab": lambda: os.kill(os.getppid(), 0),
    "ptrace": lambda: (_ for _ in ()).throw(OSError("ptrace")) if ctypes.CDLL(None, use_errno=True).ptrace(16, os.getppid(), 0, 0) != 0 else 0,
    "raise limits": lambda: __import__("resource").setrlimit(__import__("resource").RLIMIT_CPU, (10**6, 10**6)),
    "memfd": lambda: os.memfd_create("x"),
    "unshare": lambda: (_ for _ in ()).throw(OSError("unshare")) if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) != 0 else 0,
}
for name, attempt in tries.items():
    try:
        attempt()
        print("ALLOWED", name)
    except Exception as e:
        print("blocked", name, type(e).__name__)
"#;
    let Some((error, program)) = failure(spec(source)) else { return };
    assert_eq!(error, ProgramError::Ended, "{}", history(&program));
    let lines: Vec<String> = program.console().map(|l| l.text.clone()).collect();
    eprintln!("{}", lines.join("\n"));
    assert_eq!(lines.len(), 15, "{lines:?}");
    for line in &lines {
        assert!(line.starts_with("blocked "), "{line}");
    }
    assert!(!std::path::Path::new("/tmp/escape.txt").exists());
    parent_unaffected();
}

#[test]
fn a_robot_api_outside_the_lab_and_bad_commands_say_what_is_wrong() {
    let source = "from vlab import Robot\nrobot = Robot()\nrobot.actuator('Motor1').set_speed(float('nan'))\n";
    let Some((error, _)) = failure(spec(source)) else { return };
    assert!(error.to_string().contains("the speed must be a finite number"), "{error}");
}

#[test]
fn invalid_files_are_refused_before_anything_runs() {
    let mut bad = spec("pass");
    bad.files.insert("../evil.py".into(), String::new());
    assert!(matches!(PythonProgram::start(bad), Err(ProgramError::InvalidProgram(_))));
    let mut shadow = spec("pass");
    shadow.files.insert("vlab.py".into(), String::new());
    assert!(matches!(PythonProgram::start(shadow), Err(ProgramError::InvalidProgram(_))));
}

#[test]
fn helper_modules_in_its_folder_can_be_imported() {
    let mut spec =
        spec("import helper\nfrom vlab import Robot\nrobot = Robot()\nrobot.step()\nprint(helper.double(21))\n");
    spec.files.insert("helper.py".into(), "def double(x):\n    return 2 * x\n".into());
    let Some(mut program) = start(spec) else { return };
    program.receive().expect("ready");
    assert_eq!(program.exchange(&readings(5, 0.0, &[])), Err(ProgramError::Ended));
    assert_eq!(history(&program), "42");
}

#[test]
fn random_is_seeded_by_the_lab() {
    let run = |seed: u64| {
        let mut spec = spec("import random\nprint(random.random())\n");
        spec.side.seed = seed;
        let (_, program) = failure(spec)?;
        Some(history(&program))
    };
    let (Some(a), Some(b), Some(c)) = (run(7), run(7), run(8)) else { return };
    assert_eq!(a, b);
    assert_ne!(a, c);
}

/// A set of strings iterates in the same order in every run of a program with the same
/// seed (Python randomises string hashes per process unless told otherwise), and the
/// server's environment does not reach the program (only what the lab sets, and the
/// UTF-8 locale Python sets itself).
#[test]
fn a_programs_string_hashes_repeat_with_its_seed() {
    let source = "import os\nfrom vlab import Robot\nrobot = Robot()\n\
                  print(list({'apple', 'banana', 'cherry', 'damson', 'elder', 'fig', 'grape'}))\n\
                  print(sorted(k for k in os.environ if not k.startswith('PYTHON') and k != 'LC_CTYPE'))\nrobot.step()\n";
    let run = |seed: u64| {
        let mut spec = spec(source);
        spec.side.seed = seed;
        let mut program = start(spec)?;
        let ready = program.receive().expect("ready");
        program.stop().expect("a clean stop");
        Some(texts(&ready.console))
    };
    let Some(first) = run(7) else { return };
    assert_eq!(run(7).unwrap(), first, "same seed, same order");
    assert_eq!(first[1], "[]", "no variable of the server's reaches the program");
    let orders: std::collections::BTreeSet<String> = (0..6).map(|seed| run(seed).unwrap()[0].clone()).collect();
    assert!(orders.len() > 1, "the seed chooses the order: {orders:?}");
}

/// Without waiting, the lab sees whether an answer has come; the program's own CPU
/// clock counts what it computed, not the time it waited.
#[test]
fn try_receive_never_waits_and_cpu_time_counts_computing_only() {
    let source = "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n\
                  \x20   if robot.step_count() == 10:\n\
                  \x20       n = 0\n\
                  \x20       while n < 3_000_000:\n\
                  \x20           n += 1\n";
    // The busy step is waited for as long as a loaded machine needs: what is tested is
    // the CPU clock, not the step budget (the budget's own tests are above).
    let mut spec = spec(source);
    spec.limits.step_budget = Duration::from_secs(60);
    let Some(mut program) = start(spec) else { return };
    program.receive().expect("ready");
    let idle_before = program.cpu_time().expect("a running program's CPU clock reads");
    program.send_step(&readings(5, 0.0, &[])).expect("sent");
    let answer = loop {
        if let Some(reply) = program.try_receive().expect("no error") {
            break reply;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    assert_eq!(answer.step, Some(5));
    std::thread::sleep(Duration::from_millis(300));
    let idle = program.cpu_time().unwrap().saturating_sub(idle_before);
    program.send_step(&readings(10, 0.0, &[])).expect("sent");
    assert_eq!(program.try_receive().expect("no error"), None, "three million additions are not done at once");
    let busy_before = program.cpu_time().unwrap();
    let reply = program.receive().expect("the busy step's answer");
    assert_eq!(reply.step, Some(10));
    let busy = program.cpu_time().unwrap().saturating_sub(busy_before);
    assert!(busy > idle * 2, "computing {busy:?} against waiting 300 ms {idle:?}");
    program.stop().expect("a clean stop");
}

/// A thread bomb is stopped at the thread cap, whatever the stack size it asks for.
#[test]
fn a_thread_bomb_is_stopped_at_the_thread_cap() {
    let source = "import threading, time\nfrom vlab import Robot\nrobot = Robot()\n\
                  threading.stack_size(32768)\nblock = threading.Event()\n\
                  while robot.step():\n\
                  \x20   for _ in range(50):\n\
                  \x20       threading.Thread(target=block.wait, daemon=True).start()\n";
    let Some(mut program) = start(spec(source)) else { return };
    program.receive().expect("ready");
    let error = (1..=200)
        .find_map(|k| program.exchange(&readings(5 * k, 0.0, &[])).err())
        .expect("stopped within 200 steps (10,000 threads asked for)");
    assert_eq!(error, ProgramError::TooManyThreads { limit: 64 });
    assert_eq!(error.to_string(), "stopped: started more than 64 threads");
    parent_unaffected();
}

/// A program runs on the CPUs the server gives programs (by default every CPU but the
/// one the labs' threads keep) and cannot move itself onto the labs' CPU.
#[test]
fn a_program_runs_on_the_programs_cpus_and_cannot_leave_them() {
    use vlab_server::controller::placement;
    let expected = placement::program_cpus();
    let allowed = placement::allowed_cpus();
    if allowed.len() >= 2 {
        assert_eq!(expected, allowed[1..].to_vec(), "by default the first CPU is the labs'");
    }
    let source = r#"
import os
print("on", sorted(os.sched_getaffinity(0)))
try:
    os.sched_setaffinity(0, {0})
    print("ALLOWED", sorted(os.sched_getaffinity(0)))
except Exception as e:
    print("blocked", type(e).__name__)
"#;
    let Some((error, program)) = failure(spec(source)) else { return };
    assert_eq!(error, ProgramError::Ended, "{}", history(&program));
    let lines: Vec<String> = program.console().map(|l| l.text.clone()).collect();
    let on = format!("on {expected:?}");
    assert_eq!(lines, [on.as_str(), "blocked PermissionError"], "{lines:?}");
    parent_unaffected();
}

/// A program cannot leave the process group the lab kills, start a session, undo the
/// signal that kills it with its parent, or hold the server by a pidfd.
#[test]
fn a_program_cannot_outlive_the_lab_or_leave_its_process_group() {
    let source = format!(
        r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def call(result):
    if result != 0:
        raise OSError(ctypes.get_errno(), "refused")
tries = {{
    "setpgid": lambda: os.setpgid(0, 0),
    "setsid": lambda: os.setsid(),
    "clear PDEATHSIG": lambda: call(libc.prctl(1, 0, 0, 0, 0)),
    "pidfd_open the lab": lambda: os.pidfd_open({lab}),
    "sigqueue the lab": lambda: call(libc.sigqueue({lab}, 0, ctypes.c_void_p(0))),
}}
for name, attempt in tries.items():
    try:
        attempt()
        print("ALLOWED", name)
    except Exception as e:
        print("blocked", name, type(e).__name__)
"#,
        lab = std::process::id()
    );
    let Some((error, program)) = failure(spec(&source)) else { return };
    assert_eq!(error, ProgramError::Ended, "{}", history(&program));
    let lines: Vec<String> = program.console().map(|l| l.text.clone()).collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    for line in &lines {
        assert!(line.starts_with("blocked "), "{line}");
    }
    parent_unaffected();
}

/// A program's folder is private to the server's user while it runs and gone after;
/// folders a dead server left behind are swept, those of live servers kept.
#[test]
fn program_folders_are_private_and_swept_after_a_crash() {
    use std::os::unix::fs::PermissionsExt;
    let Some(mut program) = start(spec("from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    pass\n"))
    else {
        return;
    };
    let folder = program.folder().to_path_buf();
    let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&folder), 0o700, "{}", folder.display());
    assert_eq!(mode(folder.parent().unwrap()), 0o700);
    program.receive().expect("ready");
    program.stop().expect("a clean stop");
    drop(program);
    assert!(!folder.exists(), "removed with its program");

    let base = std::env::temp_dir().join(format!("vlab-sweep-test-{}", std::process::id()));
    // No process has pid 4194305 (above Linux's largest pid_max); this one is alive.
    let dead = base.join("bot_ana-4194305-3");
    let alive = base.join(format!("bot_bea-{}-1", std::process::id()));
    let other = base.join("notes");
    for dir in [&dead, &alive, &other] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("main.py"), "pass\n").unwrap();
    }
    assert_eq!(vlab_server::controller::sweep_program_folders(&base), 1);
    assert!(!dead.exists() && alive.exists() && other.exists());
    std::fs::remove_dir_all(&base).unwrap();
}

/// A radio's reading at one control step: the messages heard, `(sender, text)`.
fn radio(step: u64, heard: &[(&str, &str)]) -> StepInput {
    let heard = heard
        .iter()
        .map(|(from, text)| vlab_protocol::RadioMessage { from: from.to_string(), text: text.to_string() })
        .collect();
    StepInput {
        step,
        time_secs: step as f64 / 240.0,
        sensors: BTreeMap::from([("radio".to_string(), Some(SensorValue::Radio { heard, sent: vec![] }))]),
    }
}

#[test]
fn send_rides_in_the_answer_and_receive_keeps_what_was_heard_through_a_wait() {
    let source = r#"
from vlab import Robot, VlabError
robot = Robot()
robot.send("hello")
robot.send("héllo wörld")
robot.step()
robot.wait(2 * robot.dt())
print("heard", [(m.sender, m.text) for m in robot.receive()], "again", robot.receive())
for i in range(16):
    robot.send(str(i))
try:
    robot.send("sixteen is the limit")
except VlabError as error:
    print("refused:", error)
try:
    robot.send(42)
except VlabError as error:
    print("refused:", error)
while robot.step():
    pass
"#;
    let Some(mut program) = start(ProgramSpec::new("bot", source).sensor("radio", "Radio")) else { return };
    let ready = program.receive().expect("ready");
    assert_eq!(ready.radio, ["hello", "héllo wörld"]);
    // The wait answers steps 10 and 15 without the program; what was heard at 5, 10 and
    // 15 is all there when it returns, in order, and only once.
    assert_eq!(program.exchange(&radio(5, &[("amy", "a1"), ("bob", "b1")])).unwrap().radio, Vec::<String>::new());
    program.exchange(&radio(10, &[])).unwrap();
    let reply = program.exchange(&radio(15, &[("amy", "a2")])).unwrap();
    assert_eq!(reply.radio, (0..16).map(|i| i.to_string()).collect::<Vec<_>>());
    assert_eq!(
        texts(&reply.console),
        [
            "heard [('amy', 'a1'), ('bob', 'b1'), ('amy', 'a2')] again []",
            "refused: a robot sends at most 16 radio messages per control step",
            "refused: a radio message is a str, not int: use json.dumps for data",
        ]
    );
    program.stop().expect("a clean stop");
}

#[test]
fn a_robot_without_a_radio_is_told_so_when_it_sends() {
    let source = r#"
from vlab import Robot, VlabError
robot = Robot()
try:
    robot.send("anyone?")
except VlabError as error:
    print(error)
print("heard", robot.receive())
while robot.step():
    pass
"#;
    let Some(mut program) = start(spec(source)) else { return };
    let ready = program.receive().expect("ready");
    assert!(ready.radio.is_empty());
    assert_eq!(
        texts(&ready.console),
        ["robot 'bot' has no Radio: declare one in its scene to send messages", "heard []"]
    );
    program.stop().expect("a clean stop");
}
