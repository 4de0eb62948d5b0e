//! C and C++ robot programs: fixtures compiled with clang by the test (`crate::clang`)
//! against the lab's headers, run on a fake robot fed readings: the RobotAPI's classes
//! by name, the display name, printing through the WASI layer, and every limit a
//! WebAssembly program has (output, fuel, memory, imports), with clock and random
//! numbers the same every run.

use std::collections::BTreeMap;

use vlab_programs::{ConsoleSource, ProgramError, Reply, StepInput, WasmLimits, WasmProgram, WasmSpec, check_module};
use vlab_protocol::robot_abi::WASI_IMPORTS;
use vlab_protocol::{ActuatorCommand, SensorValue};

use crate::clang::{Lang, compile};

/// A program in the RobotAPI's style: goes along x at 2.5 until past x = 5, then back.
const SHUTTLE: &str = r#"
#include <plugins/robot_software_api.h>

class PLUGIN_EXPORT Shuttle : public RobotSoftware {
public:
    Shuttle(Robot *r) : RobotSoftware(r) { way = 1; }

    virtual void preStep() {
        dReal speed = 0;
        GPSSensor *gps = _robot->getSensorInstance<GPSSensor>("gps");
        if (gps) {
            Vector3D p;
            if (gps->getValue(p)) {
                cout << "GPS: " << gps->getValueString() << endl;
                if (p.x > 5) way = -1;
                speed = way * 2.5;
            } else cout << "no fix yet" << endl;
        } else cout << "no gps" << endl;
        if (!_robot->getSensorInstance<GPSSensor>("compass")) cout << "compass is no GPS" << endl;
        if (!_robot->getSensorInstance<GPSSensor>("nowhere")) cout << "no sensor called nowhere" << endl;
        if (!_robot->getActuatorInstance<DiffDrive>("left")) cout << "left is no DiffDrive" << endl;

        Motor *left = _robot->getActuatorInstance<Motor>("left");
        Motor *right = _robot->getActuatorInstance<Motor>("right");
        if (left && right) {
            left->setSpeed(speed);
            right->setSpeed(speed);
        } else cout << "no motors" << endl;
    }

    virtual void postStep() {
        Compass *compass = _robot->getSensorInstance<Compass>("compass");
        dReal heading;
        if (compass && compass->getValue(heading)) cerr << "heading " << heading << endl;
    }

protected:
    int way;
};
ROBOT_SOFTWARE_PLUGIN(Shuttle, "Shuttle")
"#;

fn shuttle_spec() -> WasmSpec {
    WasmSpec::new("tank", compile(Lang::Cpp, SHUTTLE))
        .sensor("gps", "SimpleGPS")
        .sensor("compass", "Compass")
        .actuator("left", "SimpleMotor")
        .actuator("right", "SimpleMotor")
}

fn input(step: u64, sensors: &[(&str, SensorValue)]) -> StepInput {
    StepInput {
        step,
        time_secs: step as f64 / 240.0,
        sensors: sensors.iter().map(|(name, value)| (name.to_string(), Some(value.clone()))).collect(),
    }
}

fn lines(reply: &Reply) -> Vec<(ConsoleSource, &str)> {
    reply.console.iter().map(|line| (line.source, line.text.as_str())).collect()
}

fn speeds(speed: f64) -> BTreeMap<String, ActuatorCommand> {
    let command = ActuatorCommand::Speed { speed };
    BTreeMap::from([("left".to_string(), command), ("right".to_string(), command)])
}

#[test]
fn a_robot_software_class_reads_its_gps_by_name_and_drives_two_motors() {
    let mut program = WasmProgram::start(shuttle_spec()).expect("the program starts");
    assert_eq!(program.name(), Some("Shuttle"));

    let first = program.receive().expect("the first answer");
    use ConsoleSource::{Lab, Print, Stderr};
    let missing = [(Print, "compass is no GPS"), (Print, "no sensor called nowhere"), (Print, "left is no DiffDrive")];
    let mut expected = vec![(Lab, "program \"Shuttle\""), (Print, "no fix yet")];
    expected.extend(missing);
    assert_eq!(lines(&first), expected);
    assert_eq!(first.commands, speeds(0.0));

    let gps = |x: f64| ("gps", SensorValue::Vector { values: [x, 2.0, 0.25] });
    let compass = ("compass", SensorValue::Scalar { value: 1.5 });
    program.send_step(&input(5, &[gps(1.0), compass.clone()])).unwrap();
    let reply = program.receive().unwrap();
    let mut expected = vec![(Stderr, "heading 1.5"), (Print, "GPS: (1, 2, 0.25)")];
    expected.extend(missing);
    assert_eq!(lines(&reply), expected);
    assert_eq!(reply.commands, speeds(2.5));

    program.send_step(&input(10, &[gps(5.5), compass])).unwrap();
    let reply = program.receive().unwrap();
    assert_eq!(reply.console[1].text, "GPS: (5.5, 2, 0.25)");
    assert_eq!(reply.commands, speeds(-2.5), "past x = 5 it turns back");
    program.stop().unwrap();
}

#[test]
fn a_c_program_prints_with_printf_and_names_itself() {
    let source = r#"
        #include <stdio.h>
        #include <vlab.h>
        static int drive;
        static void start(void) {
            drive = vlab_actuator("drive");
            printf("drive is part %d of %d\n", drive, (int)vlab_actuator_count());
            fprintf(stderr, "warming up\n");
        }
        static void decide(void) {
            /* No newline: the line ends with the answer. */
            printf("t = %.3f", vlab_time());
            fflush(stdout);
            vlab_set_drive(drive, 0.5, -0.25);
        }
        static void nothing(void) {}
        VLAB_PROGRAM(start, decide, nothing)
        VLAB_PROGRAM_NAME("printer")
    "#;
    let spec = WasmSpec::new("bot", compile(Lang::C, source)).actuator("drive", "DiffDrive");
    let mut program = WasmProgram::start(spec).expect("the program starts");
    assert_eq!(program.name(), Some("printer"));
    let first = program.receive().unwrap();
    use ConsoleSource::{Lab, Print, Stderr};
    assert_eq!(
        lines(&first),
        [(Lab, "program \"printer\""), (Print, "drive is part 0 of 1"), (Stderr, "warming up"), (Print, "t = 0.000"),]
    );
    program.send_step(&input(120, &[])).unwrap();
    let reply = program.receive().unwrap();
    assert_eq!(lines(&reply), [(Print, "t = 0.500")]);
    assert_eq!(reply.commands["drive"], ActuatorCommand::Drive { v: 0.5, omega: -0.25 });
}

/// A C program whose `pre_step` runs `body` from its fourth call on.
fn c_after_three_steps(body: &str) -> Vec<u8> {
    let source = format!(
        r#"
        #include <stdio.h>
        #include <stdlib.h>
        #include <vlab.h>
        static int calls;
        VLAB_EXPORT("pre_step") void pre_step(void) {{
            if (++calls > 3) {{ {body} }}
        }}
        "#
    );
    compile(Lang::C, &source)
}

fn stopped_after_three_steps(module: Vec<u8>, limits: WasmLimits) -> (ProgramError, Vec<String>) {
    let mut program = WasmProgram::start(WasmSpec::new("bot", module).limits(limits)).expect("it starts");
    program.receive().expect("the first answer");
    for step in 1..=2 {
        program.send_step(&input(step * 5, &[])).unwrap();
        program.receive().expect("it behaves for three calls");
    }
    program.send_step(&input(15, &[])).unwrap();
    let error = program.receive().expect_err("it is stopped");
    assert_eq!(program.send_step(&input(20, &[])), Err(error.clone()), "for good");
    (error, program.console().map(|line| line.text.clone()).collect())
}

#[test]
fn an_output_flood_is_capped_as_any_other_output() {
    let module = c_after_three_steps(r#"for (;;) printf("flood flood flood\n");"#);
    let (error, console) = stopped_after_three_steps(module, WasmLimits::default());
    assert_eq!(error, ProgramError::OutputFlood { bytes: 16 * 1024 });
    assert_eq!(error.to_string(), "stopped: printed more than 16384 bytes");
    // The lines up to the cap reached the console; stdio writes in blocks, so not one
    // line more than the cap allows.
    let printed = console.iter().filter(|line| *line == "flood flood flood").count();
    assert!(printed > 0 && printed * 18 <= 16 * 1024, "{printed} lines");
}

#[test]
fn a_pre_step_that_never_returns_is_stopped_by_its_fuel() {
    let module = c_after_three_steps("volatile unsigned n = 0; for (;;) n++;");
    let limits = WasmLimits { fuel_per_step: 2_000_000, ..WasmLimits::default() };
    let (error, _) = stopped_after_three_steps(module, limits);
    assert_eq!(error, ProgramError::FuelExhausted { instructions: 2_000_000 });
    assert_eq!(error.to_string(), "stopped: used more than 2000000 instructions in one step (an endless loop?)");
}

#[test]
fn exit_stops_the_program_with_its_code_and_standard_input_is_empty() {
    let module = c_after_three_steps(r#"if (getchar() == EOF) printf("stdin is empty\n"); exit(3);"#);
    let (error, console) = stopped_after_three_steps(module, WasmLimits::default());
    assert_eq!(error, ProgramError::Exited { code: 3 });
    assert_eq!(error.to_string(), "stopped: exited with code 3");
    assert_eq!(console.last().map(String::as_str), Some("stdin is empty"));
}

#[test]
fn a_huge_static_array_is_refused_at_start_by_the_memory_cap() {
    let source = r#"
        #include <vlab.h>
        static char big[1 << 30];
        VLAB_EXPORT("pre_step") void pre_step(void) { big[vlab_step_count() % sizeof big] += 1; }
    "#;
    let module = compile(Lang::C, source);
    let error = WasmProgram::start(WasmSpec::new("greedy", module)).err();
    assert_eq!(error, Some(ProgramError::OutOfMemory { mib: 64 }));
    assert_eq!(error.unwrap().to_string(), "stopped: ran out of memory (limit 64 MiB)");
}

#[test]
fn a_wasi_function_the_lab_does_not_provide_is_refused_by_name() {
    let socket = r#"
        #include <vlab.h>
        __attribute__((import_module("wasi_snapshot_preview1"), import_name("sock_accept")))
        int sock_accept(int fd, int flags, int *out);
        VLAB_EXPORT("pre_step") void pre_step(void) { int fd; sock_accept(3, 0, &fd); }
    "#;
    let module = compile(Lang::C, socket);
    let expected = ProgramError::InvalidProgram(
        "the module imports the WASI function `sock_accept`, which the lab does not provide: a robot program has \
         no files, network or wall clock (only printing, the lab's clock and seeded random numbers)"
            .into(),
    );
    assert_eq!(check_module(&module), Err(expected.clone()));
    assert_eq!(WasmProgram::start(WasmSpec::new("bot", module)).err(), Some(expected));

    // Opening a file imports what files need: refused too, naming one of them.
    let files = r#"
        #include <stdio.h>
        #include <vlab.h>
        VLAB_EXPORT("pre_step") void pre_step(void) { FILE *f = fopen("/etc/passwd", "r"); if (f) fclose(f); }
    "#;
    let Err(ProgramError::InvalidProgram(message)) = check_module(&compile(Lang::C, files)) else {
        panic!("a program opening files is refused");
    };
    let named = message.split('`').nth(1).expect("a name between backquotes");
    assert!(message.starts_with("the module imports the WASI function"), "{message}");
    assert!(!WASI_IMPORTS.contains(&named), "{message}");
}

/// A C++ program printing the clocks and random numbers it sees.
const CLOCKS_AND_DICE: &str = r#"
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <random>
#include <plugins/robot_software_api.h>

class Dice : public RobotSoftware {
public:
    Dice(Robot *r) : RobotSoftware(r) {}
    virtual void preStep() {
        long long steady = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now().time_since_epoch()).count();
        long long wall = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch()).count();
        std::random_device device;
        unsigned a = device(), b = device();
        cout << "clocks " << steady << " " << wall << " " << (long long)time(nullptr) << endl;
        cout << "dice " << a << " " << b << " " << arc4random() << endl;
    }
};
ROBOT_SOFTWARE_PLUGIN(Dice, "dice")
"#;

fn dice_lines(module: &[u8], seed: u64) -> Vec<String> {
    let mut spec = WasmSpec::new("bot", module.to_vec());
    spec.side.seed = seed;
    let mut program = WasmProgram::start(spec).expect("it starts");
    let mut console: Vec<String> = Vec::new();
    console.extend(program.receive().unwrap().console.into_iter().map(|line| line.text));
    program.send_step(&StepInput { step: 2400, time_secs: 10.0, sensors: BTreeMap::new() }).unwrap();
    console.extend(program.receive().unwrap().console.into_iter().map(|line| line.text));
    console
}

#[test]
fn clocks_read_the_lab_s_time_and_random_numbers_follow_the_seed() {
    let module = compile(Lang::Cpp, CLOCKS_AND_DICE);
    let run = dice_lines(&module, 7);
    assert_eq!(run.len(), 5, "{run:?}");
    assert_eq!(run[1], "clocks 0 0 0");
    assert_eq!(run[3], "clocks 10000 10000 10");
    assert_ne!(run[2], run[4], "each draw is new");
    assert_eq!(dice_lines(&module, 7), run, "the same seed, the same run");
    let other = dice_lines(&module, 8);
    assert_eq!(other[1..2], run[1..2]);
    assert_ne!(other[2], run[2], "another seed, other numbers");
}

/// The first C++ program of docs/programs.md ("C and C++", "The API").
fn documented_program() -> String {
    let docs = include_str!("../../../../docs/programs.md");
    let section = docs.split("### The API").nth(1).expect("the docs' C and C++ section");
    let code = section.split("```cpp\n").nth(1).expect("a C++ example in it");
    code.split("```").next().expect("the example's end").to_owned()
}

#[test]
fn the_documented_first_program_turns_back_at_its_limits_and_on_i() {
    let spec = WasmSpec::new("tank", compile(Lang::Cpp, &documented_program()))
        .sensor("kbd", "Keyboard")
        .sensor("GPS1", "SimpleGPS")
        .actuator("Motor1", "SimpleMotor")
        .actuator("Motor2", "SimpleMotor");
    let mut program = WasmProgram::start(spec).expect("the example starts");
    let first = program.receive().unwrap();
    assert_eq!(first.console[0].text, "program \"Back and forth\"");
    assert_eq!(first.console[1].text, "waiting for the GPS");
    let both = |speed: f64| {
        let command = ActuatorCommand::Speed { speed };
        BTreeMap::from([("Motor1".to_string(), command), ("Motor2".to_string(), command)])
    };
    assert_eq!(first.commands, both(0.0));

    let gps = |x: f64| ("GPS1", SensorValue::Vector { values: [x, 0.1, 0.0] });
    let keys = |held: &[&str]| ("kbd", SensorValue::Keys { keys: held.iter().map(|k| k.to_string()).collect() });
    let mut step = |k: u64, x: f64, held: &[&str]| {
        program.send_step(&input(k * 5, &[gps(x), keys(held)])).unwrap();
        program.receive().unwrap()
    };
    let reply = step(1, 1.0, &[]);
    assert_eq!((reply.commands, reply.console[0].text.as_str()), (both(3.0), "at (1, 0.1, 0)"));
    assert_eq!(step(2, 4.5, &[]).commands, both(-3.0), "past 4 m it turns back");
    assert_eq!(step(3, 2.0, &["I"]).commands, both(3.0), "I turns it");
    assert_eq!(step(4, 2.1, &["I"]).commands, both(3.0), "once per press");
    assert_eq!(step(5, -0.5, &[]).commands, both(3.0), "below 0 it goes on forward");
}
