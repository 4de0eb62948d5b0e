//! The belief imports of module `vlab` (`publish_estimate`, `draw_points`,
//! `draw_lines`, `draw_text`, `clear_drawings`, `hold_drawings`): their arguments read
//! out of the module's memory into the step's [`super::belief::Sketch`]. A refused call answers a
//! [`super::abi::Status`] and puts the reason in the console, as a refused command does.

use vlab_protocol::MAX_DRAWN_TEXT_CHARS;
use wasmtime::{Caller, Linker};

use super::abi::{IMPORT_MODULE, Status};
use super::belief::{Refusal, Shape};
use super::host::{HostState, HostStop, read_bytes, read_name};
use crate::ConsoleSource;

/// Bytes of one point in the module's memory: `x, y, z` as little-endian `f64`s.
const POINT_BYTES: usize = 24;

type C<'a> = Caller<'a, HostState>;

/// Answers a call: 0 when the sketch took it, else the refusal's status, its reason
/// in the console.
fn answer(caller: &mut C<'_>, done: Result<(), Refusal>) -> Result<i32, HostStop> {
    match done {
        Ok(()) => Ok(Status::Ok as i32),
        Err(refusal) => {
            caller.data_mut().say(ConsoleSource::Stderr, refusal.to_string())?;
            Ok(refusal.status() as i32)
        }
    }
}

/// `count` points at `ptr`, read once they are known to fit in the step's cap, so a
/// module cannot make the lab copy more than the cap's worth of its memory.
fn read_points(caller: &C<'_>, shape: Shape, ptr: i32, count: i32) -> Result<Result<Vec<[f64; 3]>, Refusal>, HostStop> {
    let function = shape.function();
    let bad = || HostStop::BadPointer { function };
    let count = usize::try_from(count).map_err(|_| bad())?;
    if let Err(refusal) = caller.data().belief.check_vertices(shape, count) {
        return Ok(Err(refusal));
    }
    let len = count.checked_mul(POINT_BYTES).and_then(|len| i32::try_from(len).ok()).ok_or_else(bad)?;
    let bytes = read_bytes(caller, ptr, len, usize::MAX, function)?;
    Ok(Ok(decode_points(&bytes)))
}

/// Little-endian `f64` triples.
fn decode_points(bytes: &[u8]) -> Vec<[f64; 3]> {
    let number = |b: &[u8]| b.try_into().map(f64::from_le_bytes).unwrap_or(f64::NAN);
    bytes.chunks_exact(POINT_BYTES).map(|p| [number(&p[..8]), number(&p[8..16]), number(&p[16..])]).collect()
}

fn draw(
    mut caller: C<'_>,
    shape: Shape,
    ptr: i32,
    count: i32,
    color_ptr: i32,
    color_len: i32,
    keep: i32,
) -> Result<i32, HostStop> {
    let color = read_name(&caller, color_ptr, color_len, shape.function())?;
    let done = match read_points(&caller, shape, ptr, count)? {
        Ok(points) => caller.data_mut().belief.draw(shape, &points, &color, keep != 0),
        Err(refusal) => Err(refusal),
    };
    answer(&mut caller, done)
}

/// Defines the belief imports in `linker`.
pub(super) fn define(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    let m = IMPORT_MODULE;
    let stop = |e: HostStop| wasmtime::Error::new(e);

    linker.func_wrap(
        m,
        "publish_estimate",
        move |mut caller: C<'_>, x: f64, y: f64, theta: f64| -> wasmtime::Result<i32> {
            let done = caller.data_mut().belief.publish_estimate(x, y, theta);
            answer(&mut caller, done).map_err(stop)
        },
    )?;
    for shape in [Shape::Points, Shape::Lines] {
        linker.func_wrap(
            m,
            shape.function(),
            move |caller: C<'_>, ptr: i32, count: i32, color_ptr: i32, color_len: i32, keep: i32| {
                draw(caller, shape, ptr, count, color_ptr, color_len, keep).map_err(stop)
            },
        )?;
    }
    linker.func_wrap(
        m,
        "draw_text",
        move |mut caller: C<'_>,
              x: f64,
              y: f64,
              z: f64,
              ptr: i32,
              len: i32,
              color_ptr: i32,
              color_len: i32,
              keep: i32|
              -> wasmtime::Result<i32> {
            // Four bytes per character at most: the characters kept are all in there.
            let bytes = read_bytes(&caller, ptr, len, 4 * MAX_DRAWN_TEXT_CHARS, "draw_text").map_err(stop)?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let color = read_name(&caller, color_ptr, color_len, "draw_text").map_err(stop)?;
            let done = caller.data_mut().belief.draw_text([x, y, z], &text, &color, keep != 0);
            answer(&mut caller, done).map_err(stop)
        },
    )?;
    linker.func_wrap(m, "clear_drawings", |mut caller: C<'_>| caller.data_mut().belief.clear())?;
    linker.func_wrap(m, "hold_drawings", |mut caller: C<'_>| caller.data_mut().belief.hold())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use vlab_protocol::{Drawing, Estimate};

    use super::*;
    use crate::{ProgramError, Reply, StepInput, WasmLimits, WasmProgram, WasmSpec};

    #[test]
    fn points_are_little_endian_f64_triples() {
        let bytes: Vec<u8> = [1.0f64, 2.0, 3.0, -4.5, 0.0, 0.25].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(decode_points(&bytes), [[1.0, 2.0, 3.0], [-4.5, 0.0, 0.25]]);
    }

    /// A module whose `pre_step` runs `body`, with a page of memory holding the colour
    /// names at 0 ("orange" at 0, "cyan" at 8, "bad" at 16), the text "goal" at 24, and
    /// three points at 64: (1, 2, 0.05), (3, 4, 0.5), (5, 6, 0).
    fn module(body: &str) -> Vec<u8> {
        let points: String = [1.0f64, 2.0, 0.05, 3.0, 4.0, 0.5, 5.0, 6.0, 0.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .map(|b| format!("\\{b:02x}"))
            .collect();
        let text = format!(
            r#"(module
                (import "vlab" "publish_estimate" (func $estimate (param f64 f64 f64) (result i32)))
                (import "vlab" "draw_points" (func $points (param i32 i32 i32 i32 i32) (result i32)))
                (import "vlab" "draw_lines" (func $lines (param i32 i32 i32 i32 i32) (result i32)))
                (import "vlab" "draw_text" (func $text (param f64 f64 f64 i32 i32 i32 i32 i32) (result i32)))
                (import "vlab" "clear_drawings" (func $clear))
                (import "vlab" "hold_drawings" (func $hold))
                (import "vlab" "set_speed" (func $set_speed (param i32 f64) (result i32)))
                (memory (export "memory") 1)
                (data (i32.const 0) "orange")
                (data (i32.const 8) "cyan")
                (data (i32.const 16) "bad")
                (data (i32.const 24) "goal")
                (data (i32.const 64) "{points}")
                (global $step (mut i32) (i32.const 0))
                (func (export "vlab_abi_version") (result i32) (i32.const 1))
                (func (export "pre_step") (local $status i32)
                    {body}
                    (global.set $step (i32.add (global.get $step) (i32.const 1)))
                    ;; The status of the last call, as a speed: the test reads it back.
                    (drop (call $set_speed (i32.const 0) (f64.convert_i32_s (local.get $status))))))"#
        );
        wat::parse_str(text).expect("valid WAT")
    }

    fn start(body: &str, limits: WasmLimits) -> WasmProgram {
        let spec = WasmSpec::new("bot", module(body)).actuator("m", "SimpleMotor").limits(limits);
        WasmProgram::start(spec).expect("starts")
    }

    fn step(program: &mut WasmProgram, step: u64) -> Result<Reply, ProgramError> {
        program.send_step(&StepInput { step, time_secs: 0.0, sensors: Default::default() })?;
        program.receive()
    }

    /// The status the module's last call answered.
    fn status(reply: &Reply) -> i32 {
        match reply.commands["m"] {
            vlab_protocol::ActuatorCommand::Speed { speed } => speed as i32,
            other => panic!("{other:?}"),
        }
    }

    /// A call of `draw_points` (`$points`) or `draw_lines` (`$lines`) on the first
    /// `count` points, the colour `color_len` bytes at `color`.
    fn draw(function: &str, count: i32, color: i32, color_len: i32, keep: i32) -> String {
        format!(
            "(call ${function} (i32.const 64) (i32.const {count}) \
             (i32.const {color}) (i32.const {color_len}) (i32.const {keep}))"
        )
    }

    /// `call`, its status kept for [`status`].
    fn last(call: &str) -> String {
        format!("(local.set $status {call})")
    }

    #[test]
    fn a_module_s_estimate_and_drawings_reach_its_reply() {
        let text = "(call $text (f64.const 0) (f64.const 0) (f64.const 0.3) \
                    (i32.const 24) (i32.const 4) (i32.const 8) (i32.const 4) (i32.const 0))";
        let body = format!(
            "(drop (call $estimate (f64.const 1.5) (f64.const -2) (f64.const 0.25))) (drop {}) (drop {}) {}",
            draw("points", 2, 0, 6, 0),
            draw("lines", 3, 8, 4, 1),
            last(text)
        );
        let mut program = start(&body, WasmLimits::default());
        let reply = program.receive().unwrap();
        assert_eq!(status(&reply), 0);
        let belief = reply.belief;
        assert_eq!(belief.estimate, Some(Estimate { x: 1.5, y: -2.0, theta: 0.25 }));
        let points = vec![[1.0, 2.0, 0.05], [3.0, 4.0, 0.5], [5.0, 6.0, 0.0]];
        assert_eq!(belief.keep, [Drawing::Lines { points: points.clone(), color: "#00acc1".into() }]);
        assert_eq!(
            belief.drawings.unwrap(),
            [
                Drawing::Points { points: points[..2].to_vec(), color: "#fb8c00".into() },
                Drawing::Text { at: [0.0, 0.0, 0.3], text: "goal".into(), color: "#00acc1".into() },
            ]
        );
        assert!(reply.console.is_empty(), "{:?}", reply.console);
    }

    #[test]
    fn a_held_step_leaves_the_drawings_and_a_cleared_one_forgets_them() {
        let body = r#"
            (if (i32.eq (global.get $step) (i32.const 1)) (then (call $hold)))
            (if (i32.eq (global.get $step) (i32.const 2)) (then (call $clear)))"#;
        let mut program = start(body, WasmLimits::default());
        assert_eq!(program.receive().unwrap().belief.drawings, Some(vec![]), "step 0 drew nothing");
        assert!(step(&mut program, 1).unwrap().belief.is_empty(), "held");
        let cleared = step(&mut program, 2).unwrap().belief;
        assert!(cleared.clear && cleared.drawings == Some(vec![]));
    }

    #[test]
    fn refused_calls_answer_a_status_and_say_why() {
        let limits = WasmLimits { drawn_vertices_per_step: 4, ..WasmLimits::default() };
        let estimate = "(call $estimate (f64.const nan) (f64.const 0) (f64.const 0))";
        let cases = [
            (last(estimate), Status::NotFinite, "publish_estimate: every number must be finite"),
            (last(&draw("points", 1, 16, 3, 0)), Status::BadColor, "draw_points: colour \"bad\""),
            (last(&draw("lines", 1, 8, 4, 0)), Status::TooFewPoints, "draw_lines needs at least two points"),
            (
                format!("(drop {}) {}", draw("points", 3, 0, 6, 1), last(&draw("lines", 2, 8, 4, 0))),
                Status::OverBudget,
                "draw_lines: a step may draw at most 4 points and line vertices (kept ones included); this one has 3 \
                 and adds 2",
            ),
            // Past the cap, not even read: a count far beyond the memory is refused alike.
            (last(&draw("points", 100_000_000, 0, 6, 0)), Status::OverBudget, "draw_points: a step may draw at most 4"),
        ];
        for (body, expected, line) in cases {
            let mut program = start(&body, limits.clone());
            let reply = program.receive().unwrap();
            assert_eq!(status(&reply), expected as i32, "{body}");
            assert!(reply.console[0].text.starts_with(line), "{body}: {:?}", reply.console);
            assert_eq!(reply.belief.drawings.map(|d| d.len()), Some(0), "nothing drawn: {body}");
        }
    }

    #[test]
    fn uploads_may_import_the_belief_functions_but_nothing_unknown() {
        crate::check_module(&module("")).expect("the belief imports are the robot API's");
        let unknown = wat::parse_str(
            r#"(module (import "vlab" "draw_circle" (func (param f64)))
                (func (export "vlab_abi_version") (result i32) (i32.const 1)) (func (export "pre_step")))"#,
        )
        .unwrap();
        let error = crate::check_module(&unknown).unwrap_err().to_string();
        assert!(error.contains("imports `vlab.draw_circle`, which the lab does not provide"), "{error}");
    }

    #[test]
    fn points_outside_the_memory_stop_the_module() {
        // Two points from 6 bytes before the end of the page.
        let body = "(drop (call $points (i32.const 65530) (i32.const 2) (i32.const 0) (i32.const 6) (i32.const 0)))";
        let error = start(body, WasmLimits::default()).receive().unwrap_err();
        assert_eq!(
            error,
            ProgramError::Trapped { what: "`vlab.draw_points` was given a buffer outside the module's memory".into() }
        );
    }
}
