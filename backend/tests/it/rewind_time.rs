//! `cargo test -p vlab-server --test it rewind_time -- --ignored --nocapture`: how long a
//! rewind holds the class (the lab's thread busy re-simulating, everybody paused) after
//! 1, 10 and 60 minutes of simulated run of the demo lab, one rover driving a circle the
//! whole time. The run is stepped as fast as the machine goes (`step N`), then rewound
//! to 10 s before its end, then to half-way. Prints figures rather than asserting them:
//! timings are for reading, not for tests (docs/recording.md quotes them).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use vlab_protocol::ControlAction;
use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::lab::{Caller, LabConfig, LabHandle};
use vlab_server::scene::demo_scene;
use vlab_server::secret::TokenDigest;

/// Steps given in one `step N` (the lab answers once they are done).
const STEPS_PER_COMMAND: u64 = 48_000;

fn demo_lab(classroom: &Classroom) -> Arc<LabHandle> {
    let lab = LabHandle::open(LabConfig {
        id: "demo".into(),
        name: "Demo".into(),
        scene: demo_scene(1),
        instructor: TokenDigest::of("bench"),
        start_running: false,
        seed: 1,
        join_code: "DEMOCODE".into(),
        settings: Default::default(),
        students: vec![],
        programs: Default::default(),
        recording: classroom.recording_sink(),
        first_run: 1,
    })
    .expect("the demo lab opens");
    classroom.registry.insert(Arc::clone(&lab));
    lab
}

/// The wall time of a rewind to `step`.
async fn rewind(classroom: &Classroom, lab: &Arc<LabHandle>, step: u64) -> Duration {
    let started = Instant::now();
    classroom.timeline().rewind(lab, Caller::Instructor, step).await.expect("the rewind is done");
    started.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "prints figures; run on its own"]
async fn rewind_time_after_1_10_and_60_minutes() {
    println!("demo lab (3 rovers, 36 props), rover_red driving a circle; wall time of a rewind");
    println!("{:>8} {:>12} {:>18} {:>18}", "run", "stepped in", "to 10 s ago", "to half-way");
    for minutes in [1u64, 10, 60] {
        let classroom = Classroom::new(ClassroomConfig::default());
        let lab = demo_lab(&classroom);
        let drive = [("drive".to_owned(), json!({ "v": 0.3, "omega": 0.5 }))].into_iter().collect();
        lab.robots().actuate("rover_red", drive).await.expect("rover_red drives");
        let dt = lab.clock().state().dt_secs;
        let end = (minutes as f64 * 60.0 / dt).round() as u64;
        let stepping = Instant::now();
        let mut step = 0;
        while step < end {
            let steps = (end - step).min(STEPS_PER_COMMAND) as u32;
            step = classroom
                .clock()
                .control(&lab, Caller::Instructor, ControlAction::Step { steps })
                .await
                .expect("steps")
                .step;
        }
        let stepped = stepping.elapsed();
        let recent = rewind(&classroom, &lab, end - (10.0 / dt) as u64).await;
        let half = rewind(&classroom, &lab, end / 2).await;
        println!(
            "{:>6} min {:>10.1} s {:>16.3} s {:>16.3} s",
            minutes,
            stepped.as_secs_f64(),
            recent.as_secs_f64(),
            half.as_secs_f64()
        );
        classroom.shut_down();
    }
}
