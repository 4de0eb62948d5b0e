//! Robot programs, the browser part: adding a robot, replacing, restarting and stopping its program, reading it back, the example robots, and the console's history.
//!
//! What the requests are and what their answers mean are decided in [`super::upload`]
//! and [`super::console_log`] (host-tested); this file only names the requests. A
//! request without an answer becomes a sentence, never a panic.

use leptos::prelude::*;
use vlab_protocol::{ChosenStart, ExampleRobot, ProgramSource, ProgramStatus, RobotReport, SceneUploadReply};

use super::ConsoleState;
use super::console_log::ConsoleBuffer;
use super::upload::{
    ProgramFile, interpret_examples, interpret_program_action, interpret_program_save, interpret_program_source,
    interpret_robot_upload, program_parts, robot_upload_body, robot_upload_path,
};
use crate::api::{Body, fetch_json, fetch_reply};
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::page::{lab_api_path, robot_api_path};
use crate::scene::upload::{PickedFile, UploadOutcome};
use crate::ui::effect;

/// `POST /api/labs/{lab}/robots`: adds the robot `description` with its `program` and
/// `helpers`, asking for `clearance_m` of free floor if the lab chooses its start; how it
/// ended, the robots it added, and where the lab put them if it chose.
pub async fn add_robot(
    lab: &str,
    token: Option<&str>,
    description: &str,
    clearance_m: Option<f64>,
    program: &ProgramFile,
    helpers: &[PickedFile],
) -> (UploadOutcome, Vec<String>, Option<ChosenStart>) {
    let body = robot_upload_body(description, program, helpers);
    let path = robot_upload_path(lab_api_path(lab, "/robots"), clearance_m);
    let answer = fetch_reply::<SceneUploadReply>("POST", &path, token, body).await;
    let robots = answer.as_ref().map(|(_, reply)| reply.robots.clone()).unwrap_or_default();
    let start = answer.as_ref().ok().and_then(|(_, reply)| reply.start.filter(|_| reply.ok));
    (interpret_robot_upload(answer), robots, start)
}

/// `PUT .../robots/{robot}/program`: replaces the robot's program.
pub async fn save_program(
    lab: &str,
    robot: &str,
    token: Option<&str>,
    program: &ProgramFile,
    helpers: &[PickedFile],
) -> UploadOutcome {
    let body = Body::Parts(program_parts(program, helpers));
    let path = robot_api_path(lab, robot, "/program");
    interpret_program_save(fetch_reply::<SceneUploadReply>("PUT", &path, token, body).await)
}

/// `GET .../robots/{robot}/program`: the program's files, `None` when it has none.
pub async fn load_program(lab: &str, robot: &str, token: Option<&str>) -> Result<Option<ProgramSource>, String> {
    interpret_program_source(fetch_json("GET", &robot_api_path(lab, robot, "/program"), token, Body::Empty).await)
}

/// `POST .../robots/{robot}/program/{what}` (`restart` or `stop`): the program's state after it.
pub async fn program_action(lab: &str, robot: &str, token: Option<&str>, what: &str) -> Result<ProgramStatus, String> {
    let path = robot_api_path(lab, robot, &format!("/program/{what}"));
    interpret_program_action(fetch_json("POST", &path, token, Body::Empty).await)
}

/// `GET /api/examples`.
pub async fn load_examples() -> Result<Vec<ExampleRobot>, String> {
    interpret_examples(fetch_json("GET", "/api/examples", None, Body::Empty).await)
}

/// Keeps the console on the inspected robot while `active`: empties it when another
/// robot is picked, then loads its history (`console` of `GET .../robots/{robot}`, which
/// the server fills for the owner and the instructor) beneath the live lines; again after
/// a reconnection, when lines may have been missed.
pub fn keep_console(active: Signal<bool>) {
    let session = expect_context::<LabSession>();
    let (inspector, console) = (expect_context::<InspectorState>(), expect_context::<ConsoleState>());
    effect(move |_| {
        let connected = session.is_connected();
        let robot = if active.get() { inspector.inspected.get() } else { None };
        if console.buffer.with_untracked(|c| c.robot() != robot.as_deref()) {
            console.buffer.set(ConsoleBuffer::for_robot(robot.clone()));
        }
        let Some(robot) = robot.filter(|_| connected) else { return };
        let path = robot_api_path(&session.lab_id(), &robot, "");
        let token = session.token();
        leptos::task::spawn_local(async move {
            let Ok(report) = fetch_json::<RobotReport>("GET", &path, token.as_deref(), Body::Empty).await else {
                return;
            };
            let history = report.console.unwrap_or_default();
            console.buffer.maybe_update(|console| console.load_history(&robot, history));
        });
    });
}
