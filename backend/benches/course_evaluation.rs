//! `cargo bench -p vlab-server --bench course_evaluation` (part of `cargo xtask bench`):
//! how long a class's evaluation takes. Thirty students each hand in the park
//! challenge's reference solution (`scenes/challenges/park.py`) for an assignment of 5
//! hidden trials of the 60 s park challenge; every submission goes through the
//! classroom as over HTTP (kept, evaluated in the class's line of the server's attempt
//! queue, its default workers). Prints the minutes until every evaluation is graded,
//! and, side by side, the class's shared lab (the same room, its diffbot driving a
//! lidar-reading program at 1×): its simulated seconds per wall second alone, and while
//! the evaluation runs.
//!
//! Prints figures rather than asserting them: timings are for reading, not for tests.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use vlab_protocol::{AssignmentRequest, CreateClassRequest, EvaluationStatus, LabSettings, SignInRequest};
use vlab_server::classroom::course::{ClassCaller, HandIn};
use vlab_server::classroom::{Classroom, ClassroomConfig, UploadFiles};
use vlab_server::controller::ProgramCode;
use vlab_server::lab::secret::TokenDigest;
use vlab_server::lab::{LabConfig, LabHandle};
use vlab_server::scene::{DirLoader, Options, SceneModel, interpret};

const STUDENTS: usize = 30;
const TRIALS: u32 = 5;
/// How long the shared lab's pace is measured alone.
const ALONE: Duration = Duration::from_secs(10);

/// Drives a circle, reading its lidar every step as a real program would.
const CIRCLE: &str = r#"
from vlab import Robot
robot = Robot()
lidar = robot.sensor("lidar")
drive = robot.actuator("drive")
while robot.step():
    ranges = lidar.value() or []
    nearest = min(ranges) if ranges else 8.0
    drive.set(0.15, 0.3 if nearest > 0.2 else 1.0)
"#;

fn library(file: &str) -> String {
    std::fs::read_to_string(format!("{}/../scenes/challenges/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn park_scene() -> SceneModel {
    let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes");
    let loader = DirLoader { scenes, assets: None };
    let source = library("park.vlab");
    interpret(&source, "challenges/park.vlab", &loader, &Options::default())
        .unwrap_or_else(|e| panic!("{}", e[0]))
        .model
}

fn main() {
    println!(
        "VLab bench: a class's evaluation ({STUDENTS} submissions × {TRIALS} trials of the 60 s park challenge, \
         its reference solution)"
    );
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let classroom = Classroom::new(ClassroomConfig { open_labs: true, ..ClassroomConfig::default() });
    let lab = shared_lab();
    // The lab's program starts, then its pace alone.
    std::thread::sleep(Duration::from_secs(2));
    let dt = park_scene().dt_secs;
    let alone = pace(&lab, dt, ALONE);
    runtime.block_on(async {
        let course = classroom.course();
        let class = course.create_class(None, &CreateClassRequest { name: "Bench".into() }).expect("a class");
        let teacher = course.caller(&class.id, Some(&class.teacher_token)).unwrap();
        let request = AssignmentRequest {
            challenge: Some("challenges/park".into()),
            trials: Some(TRIALS),
            ..AssignmentRequest::default()
        };
        let assignment = course.create_assignment(&class.id, teacher, request).await.expect("an assignment");
        let mut students = Vec::new();
        for i in 0..STUDENTS {
            let request = SignInRequest {
                class_code: class.class_code.clone(),
                name: format!("Student {i}"),
                pin: "4821".into(),
                link: None,
            };
            let signed = course.sign_in(&request).await.expect("a sign-in");
            students.push(course.caller(&class.id, Some(&signed.token)).unwrap());
        }
        let started = Instant::now();
        let step0 = lab.clock().state().step;
        let mut evaluations = Vec::new();
        for student in &students {
            let submission = course
                .submit(&class.id, *student, assignment.id, HandIn::Files(solution()))
                .await
                .expect("a submission");
            evaluations.push(submission.evaluation.expect("its evaluation").id);
        }
        let grades = graded(&classroom, &class.id, teacher, &evaluations).await;
        let wall = started.elapsed().as_secs_f64();
        let beside = (lab.clock().state().step - step0) as f64 * dt / wall;
        let full = grades.iter().filter(|g| **g == 10.0).count();
        println!(
            "{STUDENTS} submissions × {TRIALS} trials graded in {:.2} min of wall time ({:.1} trials per minute, \
             {full} of {STUDENTS} graded 10 of 10)",
            wall / 60.0,
            (STUDENTS as f64 * f64::from(TRIALS)) / (wall / 60.0),
        );
        println!(
            "the class's lab at 1x: {alone:.3} s of simulation per wall second alone, {beside:.3} while the \
             evaluation ran"
        );
    });
    lab.close();
}

/// The park solution as a form sends it.
fn solution() -> UploadFiles {
    let files = [("park.py".to_owned(), library("park.py")), ("drive_to.py".to_owned(), library("drive_to.py"))].into();
    UploadFiles { files, program: Some("park.py".into()), ..UploadFiles::default() }
}

/// Each evaluation's grade, once every one is over.
async fn graded(classroom: &Classroom, class: &str, teacher: ClassCaller, ids: &[i64]) -> Vec<f64> {
    let mut grades = Vec::new();
    for id in ids {
        loop {
            let evaluation = classroom.course().evaluation(class, teacher, *id).expect("an evaluation");
            if matches!(evaluation.status, EvaluationStatus::Graded | EvaluationStatus::Failed) {
                grades.push(evaluation.grade.unwrap_or_default());
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    grades
}

/// The class's shared lab: the park room, its diffbot driving circles at 1×.
fn shared_lab() -> Arc<LabHandle> {
    let program = Arc::new(ProgramCode::python("main.py", [("main.py".to_owned(), CIRCLE.to_owned())].into()));
    LabHandle::open(LabConfig {
        id: "class".into(),
        name: "class".into(),
        scene: park_scene(),
        instructor: TokenDigest::of("bench"),
        start_running: true,
        seed: 1,
        join_code: "ABCDEF".into(),
        settings: LabSettings::default(),
        students: vec![],
        programs: BTreeMap::from([("diffbot".to_owned(), program)]),
        recording: None,
        first_run: 1,
    })
    .expect("the lab opens")
}

/// The lab's simulated seconds per wall second over `wall`.
fn pace(lab: &LabHandle, dt: f64, wall: Duration) -> f64 {
    let (step0, at0) = (lab.clock().state().step, Instant::now());
    std::thread::sleep(wall);
    let (steps, secs) = (lab.clock().state().step - step0, at0.elapsed().as_secs_f64());
    steps as f64 * dt / secs
}
