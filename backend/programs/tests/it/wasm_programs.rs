//! WebAssembly robot programs: the example robot (`backend/robot-sdk/example`, built to
//! wasm32 with the SDK by this test) in lockstep with readings fed to it, and hostile
//! modules written in WAT, each stopped alone with its reason while a healthy program
//! beside it goes on answering, both run directly and as the lab launches them (on a
//! thread of their own, which never makes the lab wait).

use crate::example_wasm;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use vlab_programs::{
    ConsoleSource, Controller, ProgramCode, ProgramError, Reply, StepInput, WasmLimits, WasmProgram, WasmSpec,
    check_module, launch,
};
use vlab_protocol::{ActuatorCommand, SensorValue};

fn example_spec(robot: &str) -> WasmSpec {
    WasmSpec::new(robot, example_wasm::example_module()).sensor("lidar", "Lidar").actuator("drive", "DiffDrive")
}

/// A 180-beam scan over the front half, every beam at `clear` metres except those
/// within 10° of forward at `ahead` and those on the right at `right`.
fn scan(ahead: f32, right: f32, clear: f32) -> SensorValue {
    let angle_step = std::f64::consts::PI / 179.0;
    let angle_min = -std::f64::consts::FRAC_PI_2;
    let ranges = (0..180)
        .map(|i| {
            let angle = angle_min + f64::from(i) * angle_step;
            if angle.abs() < 10f64.to_radians() {
                ahead
            } else if angle < 0.0 {
                right
            } else {
                clear
            }
        })
        .collect();
    SensorValue::Scan { angle_min, angle_step, max_range: 10.0, ranges }
}

fn input(step: u64, lidar: Option<SensorValue>) -> StepInput {
    StepInput { step, time_secs: step as f64 / 240.0, sensors: BTreeMap::from([("lidar".to_string(), lidar)]) }
}

fn drive(v: f64, omega: f64) -> ActuatorCommand {
    ActuatorCommand::Drive { v, omega }
}

fn lines(reply: &Reply) -> Vec<&str> {
    reply.console.iter().map(|line| line.text.as_str()).collect()
}

#[test]
fn the_example_drives_in_lockstep_with_the_readings_it_is_fed() {
    let mut program = WasmProgram::start(example_spec("bot")).expect("the example starts");

    // Before any reading: init, then pre_step, which stands still.
    let first = program.receive().expect("the first answer");
    assert_eq!(first.step, None);
    assert_eq!(first.commands, BTreeMap::from([("drive".to_string(), drive(0.0, 0.0))]));
    assert_eq!(lines(&first), ["mode: Waiting"]);
    assert!(first.console.iter().all(|line| line.source == ConsoleSource::Log));

    // A clear way: post_step decides on the fresh scan, the next pre_step drives.
    program.send_step(&input(5, Some(scan(3.0, 3.0, 3.0)))).unwrap();
    let reply = program.receive().unwrap();
    assert_eq!(reply.step, Some(5));
    assert_eq!(reply.commands["drive"], drive(0.3, 0.0));
    assert_eq!(lines(&reply), ["mode: Cruising"]);

    // A sensor without a reading changes nothing; commands are sent every answer.
    for step in [10, 15, 20] {
        program.send_step(&input(step, None)).unwrap();
        let reply = program.receive().unwrap();
        assert_eq!((reply.step, reply.commands["drive"]), (Some(step), drive(0.3, 0.0)));
        assert!(reply.console.is_empty(), "{:?}", reply.console);
    }

    // An obstacle ahead, the right side blocked: turn left. The module saw step 25 at
    // 25/240 s, and its post_step line comes before its pre_step line.
    program.send_step(&input(25, Some(scan(0.3, 0.4, 4.0)))).unwrap();
    let reply = program.receive().unwrap();
    assert_eq!(reply.step, Some(25));
    assert_eq!(reply.commands["drive"], drive(0.0, 1.0));
    assert_eq!(lines(&reply), ["step 25 t=0.104 front=0.30", "mode: TurningLeft"]);

    // The left blocked instead: turn right.
    program.send_step(&input(30, Some(scan(0.3, 4.0, 0.4)))).unwrap();
    assert_eq!(program.receive().unwrap().commands["drive"], drive(0.0, -1.0));

    program.stop().expect("a clean stop");
    assert_eq!(program.error(), Some(&ProgramError::Stopped));
    assert_eq!(program.send_step(&input(35, None)), Err(ProgramError::Stopped));
}

#[test]
fn the_same_readings_give_the_same_commands() {
    let run = || {
        let mut program = WasmProgram::start(example_spec("bot")).unwrap();
        let mut replies = vec![program.receive().unwrap()];
        // A cheap repeatable sequence of scans, some blocked ahead, some not.
        let mut state: u64 = 7;
        for k in 1..=200u64 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = |shift: u32| 0.1 + ((state >> shift) % 40) as f32 * 0.1;
            program.send_step(&input(k * 5, Some(scan(r(10), r(20), r(30))))).unwrap();
            replies.push(program.receive().unwrap());
        }
        replies
    };
    let (first, second) = (run(), run());
    assert_eq!(first, second);
    let turns = first.iter().filter(|r| r.commands.get("drive").is_some_and(|c| *c != drive(0.3, 0.0))).count();
    assert!(turns > 10 && turns < 190, "a run that both cruises and turns, got {turns} turns of 201");
}

/// A module in WAT with the ABI version export, a page of memory holding "hello" at 0,
/// and the imports most hostile modules use.
fn wat_module(body: &str) -> Arc<[u8]> {
    let text = format!(
        r#"(module
            (import "vlab" "log" (func $log (param i32 i32)))
            (import "vlab" "set_speed" (func $set_speed (param i32 f64) (result i32)))
            (import "vlab" "set_drive" (func $set_drive (param i32 f64 f64) (result i32)))
            (memory (export "memory") 1)
            (data (i32.const 0) "hello")
            (global $calls (mut i32) (i32.const 0))
            (func (export "vlab_abi_version") (result i32) (i32.const 1))
            {body})"#
    );
    wat::parse_str(text).expect("valid WAT").into()
}

/// The program's next answer, taken as a real-time lab takes it (never waiting, so a
/// busy machine cannot turn a slow answer into a timeout): polled until it comes.
fn answer(program: &mut dyn Controller) -> Result<Reply, ProgramError> {
    let asked = Instant::now();
    loop {
        if let Some(reply) = program.try_receive()? {
            return Ok(reply);
        }
        assert!(asked.elapsed() < Duration::from_secs(120), "{} never answered", program.robot());
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// `spec` started as the lab starts a program: on a thread of its own.
fn launched(spec: &WasmSpec) -> Result<Box<dyn Controller>, ProgramError> {
    assert_eq!(spec.limits, WasmLimits::default(), "the lab launches modules with the default limits");
    launch(&ProgramCode::wasm("program.wasm", spec.module.clone()), spec.side.clone())
}

/// Runs `hostile` beside the example robot for up to 10 control steps: it must stop
/// with `expected`, alone, and the example must answer every step, before and after.
/// Both run on the calling thread, and again as the lab launches them when `hostile`
/// has the default limits.
fn contained(hostile: WasmSpec, expected: ProgramError) {
    let direct = |spec: &WasmSpec| -> Result<Box<dyn Controller>, ProgramError> {
        Ok(Box::new(WasmProgram::start(spec.clone())?))
    };
    contained_as(direct(&example_spec("healthy")).unwrap(), direct(&hostile), &expected);
    if hostile.limits == WasmLimits::default() {
        contained_as(launched(&example_spec("healthy")).unwrap(), launched(&hostile), &expected);
    }
}

fn contained_as(
    mut healthy: Box<dyn Controller>,
    hostile: Result<Box<dyn Controller>, ProgramError>,
    expected: &ProgramError,
) {
    let expected = expected.clone();
    let mut hostile = hostile.expect("the hostile module starts");
    let started = Instant::now();
    let mut stopped = None;
    assert_eq!(answer(healthy.as_mut()).unwrap().step, None);
    if let Err(e) = answer(hostile.as_mut()) {
        stopped = Some(e);
    }
    for k in 1..=10u64 {
        let step = input(k * 5, Some(scan(3.0, 3.0, 3.0)));
        healthy.send_step(&step).unwrap();
        if stopped.is_none()
            && let Err(e) = hostile.send_step(&step)
        {
            stopped = Some(e);
        }
        assert_eq!(answer(healthy.as_mut()).unwrap().step, Some(k * 5), "the healthy program answers step {}", k * 5);
        if stopped.is_none()
            && let Err(e) = answer(hostile.as_mut())
        {
            stopped = Some(e);
        }
    }
    assert_eq!(stopped.as_ref(), Some(&expected), "{}", hostile.robot());
    assert_eq!(hostile.error(), Some(&expected));
    assert_eq!(hostile.receive(), Err(expected.clone()), "a stopped program stays stopped");
    assert_eq!(hostile.stop(), Err(expected));
    assert!(started.elapsed() < Duration::from_secs(20), "contained in {:?}", started.elapsed());
    healthy.stop().unwrap();
}

fn hostile(body: &str) -> WasmSpec {
    WasmSpec::new("hostile", wat_module(body)).actuator("drive", "DiffDrive")
}

/// A pre_step that behaves for three calls, then runs `then`.
fn after_three_steps(then: &str) -> String {
    format!(
        r#"(func (export "pre_step")
              (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
              (if (i32.gt_u (global.get $calls) (i32.const 3)) (then {then})))"#
    )
}

#[test]
fn an_endless_loop_is_stopped_by_its_fuel_alone() {
    let expected = ProgramError::FuelExhausted { instructions: WasmLimits::default().fuel_per_step };
    assert_eq!(expected.to_string(), "stopped: used more than 50000000 instructions in one step (an endless loop?)");
    contained(hostile(&after_three_steps("(loop $forever (br $forever))")), expected);
    // In post_step too, with a smaller budget.
    let spec = hostile(r#"(func (export "pre_step")) (func (export "post_step") (loop $forever (br $forever)))"#)
        .limits(WasmLimits { fuel_per_step: 1_000_000, ..WasmLimits::default() });
    contained(spec, ProgramError::FuelExhausted { instructions: 1_000_000 });
}

#[test]
fn a_memory_bomb_is_stopped_at_its_cap_alone() {
    let bomb = after_three_steps("(loop $more (drop (memory.grow (i32.const 16))) (br $more))");
    let expected = ProgramError::OutOfMemory { mib: 64 };
    assert_eq!(expected.to_string(), "stopped: ran out of memory (limit 64 MiB)");
    contained(hostile(&bomb), expected);
    // A module asking for more than the cap up front does not start.
    let greedy = wat::parse_str(
        r#"(module (memory (export "memory") 2000) (func (export "vlab_abi_version") (result i32) (i32.const 1))
            (func (export "pre_step")))"#,
    )
    .unwrap();
    assert_eq!(WasmProgram::start(WasmSpec::new("greedy", greedy)).err(), Some(ProgramError::OutOfMemory { mib: 64 }));
}

#[test]
fn a_trap_is_stopped_with_its_kind_alone() {
    let expected = ProgramError::Trapped {
        what: "reached `unreachable`: an abort, or a panic not reported through `vlab.panic`".into(),
    };
    contained(hostile(&after_three_steps("unreachable")), expected);
    let divide = r#"(func (export "pre_step") (drop (i32.div_u (i32.const 1) (global.get $calls))))"#;
    contained(hostile(divide), ProgramError::Trapped { what: "divided an integer by zero".into() });
}

#[test]
fn a_recursion_too_deep_is_stopped_by_the_stack_cap_alone() {
    let recursion = r#"
        (func $down (param i32) (result i32) (call $down (i32.add (local.get 0) (i32.const 1))))
        (func (export "pre_step") (drop (call $down (i32.const 0))))"#;
    let expected =
        ProgramError::Trapped { what: "the call stack overflowed (limit 512 KiB): often a recursion too deep".into() };
    assert_eq!(
        expected.to_string(),
        "stopped: the module trapped: the call stack overflowed (limit 512 KiB): often a recursion too deep"
    );
    contained(hostile(recursion), expected);
}

#[test]
fn a_flood_of_output_is_stopped_alone() {
    let flood = r#"(func (export "pre_step") (loop $again (call $log (i32.const 0) (i32.const 5)) (br $again)))"#;
    contained(hostile(flood), ProgramError::OutputFlood { bytes: 16 * 1024 });
    // Under the cap, every line arrives.
    let mut polite = WasmProgram::start(hostile(
        r#"(func (export "pre_step") (call $log (i32.const 0) (i32.const 5)) (call $log (i32.const 1) (i32.const 3)))"#,
    ))
    .unwrap();
    let reply = polite.receive().unwrap();
    assert_eq!(lines(&reply), ["hello", "ell"]);
}

#[test]
fn a_buffer_outside_memory_is_stopped_alone() {
    let wild = r#"(func (export "pre_step") (call $log (i32.const 65530) (i32.const 100)))"#;
    let expected = ProgramError::Trapped { what: "`vlab.log` was given a buffer outside the module's memory".into() };
    contained(hostile(wild), expected);
}

#[test]
fn a_rust_panic_reaches_the_console_and_the_error_with_its_place() {
    // The example asks for a sensor called "lidar": this robot has none, so its
    // post_step panics in the SDK, which reports the message and the caller's line.
    let spec = WasmSpec::new("no-lidar", example_wasm::example_module())
        .sensor("sonar", "Sonar")
        .actuator("drive", "DiffDrive");
    let mut program = WasmProgram::start(spec).unwrap();
    program.receive().expect("pre_step needs only the drive");
    let error = program.send_step(&input(5, None)).unwrap_err();
    let source = include_str!("../../../robot-sdk/example/src/lib.rs");
    let call = r#"robot.sensor("lidar")"#;
    let line = source.lines().position(|l| l.contains(call)).expect("the example reads its lidar");
    // A method call's location is its name's.
    let column = source.lines().nth(line).unwrap().find(call).unwrap() + "robot.".len() + 1;
    let ProgramError::Panicked { message } = &error else { panic!("a panic, got {error:?}") };
    let expected_start = "no sensor \"lidar\": this robot has sonar (Sonar) at ";
    assert!(message.starts_with(expected_start), "{message}");
    assert!(message.ends_with(&format!("example/src/lib.rs:{}:{column}", line + 1)), "{message}");
    assert!(error.to_string().starts_with("stopped: the program panicked: no sensor \"lidar\""));
    let last = program.console().last().expect("the panic is in the console");
    assert_eq!((last.source, last.text.as_str()), (ConsoleSource::Stderr, format!("panicked: {message}").as_str()));
    // And it is contained like any other failure.
    contained(
        WasmSpec::new("no-lidar", example_wasm::example_module())
            .sensor("sonar", "Sonar")
            .actuator("drive", "DiffDrive"),
        error,
    );
}

#[test]
fn a_command_of_the_wrong_kind_is_refused_with_a_status_and_a_line() {
    // set_speed on a DiffDrive answers -2 (wrong kind); the module then uses set_drive.
    let retry = r#"(func (export "pre_step")
        (if (i32.eq (call $set_speed (i32.const 0) (f64.const 1)) (i32.const -2))
            (then (drop (call $set_drive (i32.const 0) (f64.const 0.5) (f64.const 0.25))))))"#;
    let mut program = WasmProgram::start(hostile(retry)).unwrap();
    let reply = program.receive().unwrap();
    assert_eq!(reply.commands, BTreeMap::from([("drive".to_string(), drive(0.5, 0.25))]));
    assert_eq!(lines(&reply), ["actuator \"drive\" is a DiffDrive: use set_drive, not set_speed"]);
    assert_eq!(reply.console[0].source, ConsoleSource::Stderr);
}

#[test]
fn modules_that_do_not_fit_the_robot_api_are_rejected_at_upload() {
    let rejected = |text: &str| match check_module(&wat::parse_str(text).unwrap()) {
        Err(ProgramError::InvalidProgram(message)) => message,
        other => panic!("rejected as invalid, got {other:?}"),
    };
    let no_pre_step = rejected(r#"(module (func (export "vlab_abi_version") (result i32) (i32.const 1)))"#);
    assert_eq!(no_pre_step, "the module does not export `pre_step`");
    let no_version = rejected(r#"(module (func (export "pre_step")))"#);
    assert!(no_version.starts_with("the module does not export `vlab_abi_version`"), "{no_version}");
    let unknown = rejected(
        r#"(module (import "env" "foo" (func)) (func (export "vlab_abi_version") (result i32) (i32.const 1))
            (func (export "pre_step")))"#,
    );
    assert!(unknown.starts_with("the module imports `env.foo`, which the lab does not provide"), "{unknown}");
    let wasi = rejected(
        r#"(module (import "wasi_snapshot_preview1" "path_open" (func (param i32 i32 i32 i32) (result i32)))
            (func (export "vlab_abi_version") (result i32) (i32.const 1)) (func (export "pre_step")))"#,
    );
    assert!(
        wasi.starts_with("the module imports the WASI function `path_open`, which the lab does not provide"),
        "{wasi}"
    );
    let wrong_type = rejected(
        r#"(module (import "vlab" "log" (func (param f64))) (func (export "vlab_abi_version") (result i32) (i32.const 1))
            (func (export "pre_step")))"#,
    );
    assert!(wrong_type.starts_with("its imports do not match the robot API"), "{wrong_type}");
    let wrong_export = rejected(
        r#"(module (func (export "vlab_abi_version") (result i32) (i32.const 1)) (func (export "pre_step") (param i32)))"#,
    );
    assert_eq!(wrong_export, "`pre_step` must take and return nothing");

    let garbage = check_module(b"print('hello')").unwrap_err();
    assert_eq!(
        garbage.to_string(),
        "invalid program: not a WebAssembly module (a `.wasm` file starts with the bytes \\0asm)"
    );
    let truncated = check_module(b"\0asm\x01\0\0\0\x01\xff").unwrap_err();
    assert!(truncated.to_string().starts_with("invalid program: not a valid WebAssembly module"), "{truncated}");
    let future = wat_module(r#"(func (export "pre_step"))"#).to_vec();
    assert_eq!(check_module(&future), Ok(()));
    check_module(&example_wasm::example_module()).expect("the example fits the robot API");
}

#[test]
fn a_module_built_for_another_abi_version_does_not_start() {
    let other = wat::parse_str(
        r#"(module (func (export "vlab_abi_version") (result i32) (i32.const 2)) (func (export "pre_step")))"#,
    )
    .unwrap();
    let error = WasmProgram::start(WasmSpec::new("old", other)).err().expect("refused");
    assert_eq!(
        error.to_string(),
        "invalid program: the module was built for robot API version 2; this lab speaks version 1 (rebuild it with the current SDK)"
    );
}

/// A module whose `post_step` burns about 40 million of its 50 million instructions
/// (5 million turns of an 8-instruction loop) and whose `pre_step` drives at 0.5 m/s.
fn busy(robot: &str) -> WasmSpec {
    let body = r#"
        (func $burn (param $n i32) (local $i i32)
            (loop $again
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br_if $again (i32.lt_u (local.get $i) (local.get $n)))))
        (func (export "post_step") (call $burn (i32.const 5000000)))
        (func (export "pre_step") (drop (call $set_drive (i32.const 0) (f64.const 0.5) (f64.const 0))))"#;
    WasmSpec::new(robot, wat_module(body)).actuator("drive", "DiffDrive")
}

#[test]
fn a_busy_module_thinks_on_its_own_thread_while_the_lab_goes_on() {
    let mut program = launched(&busy("busy")).expect("it starts");
    assert_eq!(answer(program.as_mut()).unwrap().step, None);
    for k in 1..=3u64 {
        // The readings are handed over and the lab has its hands free at once: the
        // module is still burning its fuel, so there is no answer yet...
        program.send_step(&input(k * 5, None)).expect("handed over");
        assert_eq!(program.try_receive(), Ok(None), "no answer yet right after the readings of step {}", k * 5);
        // ...until there is one.
        let reply = answer(program.as_mut()).expect("the answer comes");
        assert_eq!(reply.step, Some(k * 5));
        assert_eq!(reply.commands["drive"], drive(0.5, 0.0));
    }
    // A step waited for the lockstep way gets its answer too.
    program.send_step(&input(20, None)).unwrap();
    assert_eq!(program.receive().unwrap().step, Some(20));
    program.stop().expect("a clean stop");
    assert_eq!(program.error(), Some(&ProgramError::Stopped));

    // Run directly, the same module has computed by the time `send_step` returns.
    let mut direct: Box<dyn Controller> = Box::new(WasmProgram::start(busy("direct")).unwrap());
    assert_eq!(direct.try_receive().unwrap().map(|r| r.step), Some(None));
    direct.send_step(&input(5, None)).unwrap();
    assert_eq!(direct.try_receive().unwrap().map(|r| r.step), Some(Some(5)));
}

#[test]
fn a_module_runs_on_a_named_thread_that_yields_to_the_lab() {
    let mut program = launched(&busy("nice-bot")).expect("it starts");
    answer(program.as_mut()).unwrap();
    // Linux: /proc/self/task/<tid>/comm is the thread's name, and field 19 of its
    // stat its niceness.
    let tasks = std::fs::read_dir("/proc/self/task").expect("/proc");
    let nice: Vec<i64> = tasks
        .filter_map(|task| {
            let dir = task.ok()?.path();
            (std::fs::read_to_string(dir.join("comm")).ok()?.trim() == "wasm-nice-bot").then_some(())?;
            let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
            let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split(' ').collect();
            fields.get(19 - 3)?.parse().ok()
        })
        .collect();
    assert_eq!(nice, [10], "one thread wasm-nice-bot, at nice 10");
    program.stop().unwrap();
}

#[test]
fn a_busy_module_s_cpu_time_is_its_thread_s_own() {
    let mut program = launched(&busy("busy")).expect("it starts");
    answer(program.as_mut()).unwrap();
    let before = program.cpu_time().expect("the thread's clock is read");
    for k in 1..=3u64 {
        program.send_step(&input(k * 5, None)).unwrap();
        answer(program.as_mut()).unwrap();
    }
    let after = program.cpu_time().expect("the thread's clock is read");
    assert!(after > before, "three steps of 40 million instructions cost CPU: {before:?} then {after:?}");
    program.stop().unwrap();
    assert!(program.cpu_time().is_some_and(|spent| spent >= after), "still readable once stopped");

    // Run directly, a program has no clock of its own: its caller's counts the caller's work.
    let direct = WasmProgram::start(busy("direct")).unwrap();
    assert_eq!(Controller::cpu_time(&direct), None);
}

#[test]
fn an_error_on_its_own_thread_sticks() {
    let spec = hostile(&after_three_steps("unreachable"));
    let expected = ProgramError::Trapped {
        what: "reached `unreachable`: an abort, or a panic not reported through `vlab.panic`".into(),
    };
    let mut program = launched(&spec).expect("it starts");
    assert_eq!(answer(program.as_mut()).unwrap().step, None);
    for k in 1..=2u64 {
        program.send_step(&input(k * 5, None)).unwrap();
        assert_eq!(answer(program.as_mut()).unwrap().step, Some(k * 5));
    }
    program.send_step(&input(15, None)).unwrap();
    assert_eq!(answer(program.as_mut()), Err(expected.clone()), "the fourth pre_step traps");
    assert_eq!(program.error(), Some(&expected));
    assert_eq!(program.send_step(&input(20, None)), Err(expected.clone()));
    assert_eq!(program.try_receive(), Err(expected.clone()));
    assert_eq!(program.receive(), Err(expected.clone()));
    assert_eq!(program.stop(), Err(expected.clone()));
    assert_eq!(program.error(), Some(&expected), "still the first error after everything else");
    assert!(program.cpu_time().is_some());
}
