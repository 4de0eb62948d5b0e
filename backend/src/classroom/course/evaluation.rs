//! Evaluations over hidden trials: a submission's program run once per trial seed of
//! its assignment, each trial an isolated attempt at the challenge drawn with that seed
//! (docs/classroom.md, "Evaluation over hidden trials"). Trials go through the server's
//! attempt queue, never a lab's thread: each class feeds them from one task, in a line
//! of its own (`class:{id}`), holding at most the queue's share of one student at a
//! time, so a class's evaluations wait their turn with students' attempts. Each trial
//! is kept as it ends; a restart runs again what was not over.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, mpsc};
use vlab_lab::attempt::{self, AttemptOutcome, AttemptQueue, ChallengeJudge, QueueRefusal};
use vlab_programs::ProgramCode;
use vlab_programs::compile::Compiler;
use vlab_protocol::{AttemptProgress, AttemptReport, EvaluationStatus, SceneUploadReply, SourceMessage, Trial};
use vlab_sim::scene::{DirLoader, ScoreRule};

use crate::classroom::attempts::{challenge_attempt, finished, replay_json};
use crate::classroom::labs::scene_model;
use crate::classroom::upload::{Bundle, programs};
use crate::classroom::{ClassroomError, Library, RefusalKind};
use crate::store::{EvaluationRecord, Store, StoreError};

/// How long a class's line waits before asking the queue again when it had no room
/// (a trial ending wakes it sooner).
const QUEUE_RETRY: Duration = Duration::from_millis(500);

/// How long an evaluation waits before compiling again when the compiler is busy.
const COMPILER_RETRY: Duration = Duration::from_secs(2);

/// A trial's credit toward the grade, 0 to 1: 1 when solved; for a challenge scored in
/// percent (`percent` is its score), the share of its goals reached if that is more.
pub fn credit(solved: bool, percent: Option<f64>) -> f64 {
    let solved = if solved { 1.0 } else { 0.0 };
    let share = percent.filter(|p| p.is_finite()).map_or(0.0, |p| (p / 100.0).clamp(0.0, 1.0));
    f64::max(solved, share)
}

/// An evaluation's grade: `points` × the mean of its trials' credits, rounded to two
/// decimals (no trials: 0).
pub fn grade(points: f64, credits: &[f64]) -> f64 {
    if credits.is_empty() {
        return 0.0;
    }
    let mean = credits.iter().sum::<f64>() / credits.len() as f64;
    (points * mean * 100.0).round() / 100.0
}

/// Whether a trial has ended.
fn over(status: AttemptProgress) -> bool {
    !matches!(status, AttemptProgress::Queued | AttemptProgress::Running)
}

/// What the classes' lines share.
struct Shared {
    store: Arc<Mutex<Store>>,
    queue: Arc<AttemptQueue>,
    compiler: Arc<Compiler>,
    library: Library,
    /// Woken whenever a trial ends, so a line waiting for room asks again.
    ended: Notify,
}

impl Shared {
    fn kept<T>(&self, change: impl FnOnce(&mut Store) -> Result<T, StoreError>) -> Result<T, ClassroomError> {
        Ok(change(&mut self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))?)
    }
}

/// The server's evaluations: one line per class, each fed by a task of its own.
pub struct Evaluations {
    shared: Arc<Shared>,
    lines: Mutex<HashMap<String, mpsc::UnboundedSender<i64>>>,
}

impl Evaluations {
    /// Evaluations kept in `store`, their trials run through `queue`.
    pub fn new(
        store: Arc<Mutex<Store>>,
        queue: Arc<AttemptQueue>,
        compiler: Arc<Compiler>,
        library: Library,
    ) -> Evaluations {
        let shared = Arc::new(Shared { store, queue, compiler, library, ended: Notify::new() });
        Evaluations { shared, lines: Mutex::default() }
    }

    /// Runs kept evaluation `id` of class `class` when the class's line comes to it.
    pub(crate) fn start(&self, class: &str, id: i64) {
        let mut lines = self.lines.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let sent = lines.get(class).map(|line| line.send(id));
        if matches!(sent, Some(Ok(()))) {
            return;
        }
        // No line yet, or its task ended (it never does but by a bug): a new one.
        let (line, work) = mpsc::unbounded_channel();
        let _ = line.send(id);
        tokio::spawn(feed(Arc::clone(&self.shared), class.to_owned(), work));
        lines.insert(class.to_owned(), line);
    }

    /// Starts again every evaluation a stopped server left queued or running; returns
    /// how many.
    pub(crate) fn resume(&self) -> Result<usize, ClassroomError> {
        let unfinished = self.shared.kept(|store| store.unfinished_evaluations())?;
        for (class, evaluation) in &unfinished {
            self.start(class, evaluation.id);
        }
        Ok(unfinished.len())
    }
}

/// A class's line: its evaluations one after another, each trial queued as the queue
/// has room for the line.
async fn feed(shared: Arc<Shared>, class: String, mut work: mpsc::UnboundedReceiver<i64>) {
    let line = format!("class:{class}");
    while let Some(id) = work.recv().await {
        if let Err(error) = evaluate(&shared, &line, id).await {
            tracing::warn!(%class, evaluation = id, %error, "an evaluation failed");
            let message = error.to_string();
            if let Err(error) =
                shared.kept(|store| store.finish_evaluation(id, EvaluationStatus::Failed, 0.0, Some(&message)))
            {
                tracing::error!(evaluation = id, %error, "a failed evaluation could not be kept as failed");
            }
        }
    }
}

/// Queues every trial of evaluation `id` not over yet in queue line `line`.
async fn evaluate(shared: &Arc<Shared>, line: &str, id: i64) -> Result<(), ClassroomError> {
    let Some(evaluation) = shared.kept(|store| store.evaluation(id))? else { return Ok(()) };
    if !matches!(evaluation.status, EvaluationStatus::Queued | EvaluationStatus::Running) {
        return Ok(());
    }
    let code = match program_of(shared, evaluation.submission).await? {
        Ok(code) => Arc::new(code),
        Err(reason) => {
            tracing::info!(evaluation = id, "a submission does not compile: graded 0");
            return shared.kept(|store| store.finish_evaluation(id, EvaluationStatus::Failed, 0.0, Some(&reason)));
        }
    };
    shared.kept(|store| store.set_evaluation_status(id, EvaluationStatus::Running))?;
    let scene = crate::store::LabScene::Library(evaluation.challenge.clone());
    let trials = evaluation.trials.iter().filter(|trial| !over(trial.status));
    for trial in trials {
        let seed = trial.seed.ok_or_else(|| ClassroomError::Internal(format!("evaluation {id} lost a seed")))?;
        let model = scene_model(&shared.library, &scene, seed).await?;
        let percent = model.challenge.as_ref().is_some_and(|c| c.score == ScoreRule::Percent);
        let (spec, judge) = challenge_attempt(&model, &evaluation.robot, Arc::clone(&code), seed)?;
        let ending = TrialEnding {
            shared: Arc::clone(shared),
            evaluation: id,
            number: trial.number,
            seed,
            percent,
            challenge: model.challenge.as_ref().map(|c| c.title.clone()).unwrap_or_default(),
            robot: evaluation.robot.clone(),
            points: evaluation.points,
        };
        queue_trial(shared, line, spec, judge, ending).await;
    }
    Ok(())
}

/// Queues one trial in `line`, waiting while the line has its share in the queue or
/// the queue is full.
async fn queue_trial(
    shared: &Arc<Shared>,
    line: &str,
    spec: attempt::AttemptSpec,
    judge: ChallengeJudge,
    ending: TrialEnding,
) {
    let job = Arc::new(Mutex::new(Some((spec, judge, ending))));
    loop {
        let held = Arc::clone(&job);
        let submitted = shared.queue.submit(
            line,
            Box::new(move |attempt| {
                let (spec, mut judge, ending) =
                    held.lock().unwrap_or_else(|p| p.into_inner()).take().expect("run once");
                ending.keep(attempt, attempt::run(&spec, &mut judge))
            }),
        );
        match submitted {
            Ok(_) => return,
            Err(QueueRefusal::StudentBusy { .. } | QueueRefusal::Full { .. }) => {
                let _ = tokio::time::timeout(QUEUE_RETRY, shared.ended.notified()).await;
            }
        }
    }
}

/// What keeps a trial once it ends.
struct TrialEnding {
    shared: Arc<Shared>,
    evaluation: i64,
    number: u32,
    seed: u64,
    percent: bool,
    challenge: String,
    robot: String,
    points: f64,
}

impl TrialEnding {
    /// Keeps how the trial went and its replay; the evaluation's last trial grades it.
    /// Returns the outcome without its recording (the store keeps the replay).
    fn keep(
        self,
        attempt: u64,
        mut outcome: Result<AttemptOutcome, attempt::AttemptError>,
    ) -> Result<AttemptOutcome, attempt::AttemptError> {
        let recording = outcome.as_mut().ok().and_then(|outcome| outcome.recording.take());
        let (trial, replay) = self.trial(attempt, &outcome, recording);
        let id = self.evaluation;
        let kept = self.shared.kept(|store| {
            let trials = store.save_trial(id, &trial, replay.as_deref())?;
            if trials.iter().all(|t| over(t.status)) {
                let credits: Vec<f64> = trials.iter().map(|t| t.credit.unwrap_or(0.0)).collect();
                store.finish_evaluation(id, EvaluationStatus::Graded, grade(self.points, &credits), None)?;
            }
            Ok(())
        });
        if let Err(error) = kept {
            tracing::error!(evaluation = id, trial = self.number, %error, "a trial could not be kept");
        }
        self.shared.ended.notify_waiters();
        outcome
    }

    /// The trial as kept, and its replay's JSON.
    fn trial(
        &self,
        attempt: u64,
        outcome: &Result<AttemptOutcome, attempt::AttemptError>,
        recording: Option<Box<attempt::AttemptRecording>>,
    ) -> (Trial, Option<Vec<u8>>) {
        // A trial's replay names no seed: students watch theirs, the seeds stay hidden.
        let report = AttemptReport {
            id: attempt,
            robot: self.robot.clone(),
            challenge: self.challenge.clone(),
            seed: 0,
            status: AttemptProgress::Error,
            ahead: None,
            reason: None,
            score: None,
            sim_secs: None,
            console: Vec::new(),
        };
        let (report, replay) = match outcome {
            Ok(outcome) => {
                let report = finished(report, outcome);
                let replay = recording.and_then(|recording| replay_json(&report, *recording));
                (report, replay)
            }
            Err(error) => (AttemptReport { reason: Some(error.to_string()), ..report }, None),
        };
        let solved = report.status == AttemptProgress::Solved;
        let percent = if self.percent { report.score } else { None };
        let trial = Trial {
            number: self.number,
            status: report.status,
            score: report.score,
            reason: report.reason,
            credit: Some(credit(solved, percent)),
            seed: Some(self.seed),
            replay_path: None,
        };
        (trial, replay)
    }
}

/// Submission `submission`'s program, ready to run, or why it is not (its positioned
/// messages, as the compiler or the syntax check gives them).
async fn program_of(shared: &Shared, submission: i64) -> Result<Result<ProgramCode, String>, ClassroomError> {
    let record = shared
        .kept(|store| store.submission(submission))?
        .ok_or_else(|| ClassroomError::Internal(format!("submission {submission} is not kept")))?;
    let files = shared.kept(|store| store.submission_files(submission))?;
    let bundle = bundle_of(&record.main_name, files);
    let library = DirLoader { scenes: shared.library.scenes_dir.clone(), assets: None };
    let pending = match programs::program_of_file(&record.main_name, &bundle, &library) {
        Ok(pending) => pending,
        Err(message) => return Ok(Err(positioned(&[message]))),
    };
    let refuse = |errors: Vec<SourceMessage>| {
        ClassroomError::upload(RefusalKind::Invalid, SceneUploadReply { errors, ..SceneUploadReply::default() })
    };
    loop {
        let pending = BTreeMap::from([(String::new(), pending.clone())]);
        match programs::build_all(&shared.compiler, pending, None, refuse).await {
            Ok((built, _)) => {
                if let Err(errors) = programs::check_all(&built).await {
                    return Ok(Err(positioned(&errors)));
                }
                return Ok(Ok(built.into_values().next().expect("one program")));
            }
            Err(ClassroomError::Upload(refusal)) => return Ok(Err(positioned(&refusal.reply.errors))),
            Err(ClassroomError::Busy { .. } | ClassroomError::TooMany { .. }) => {
                tokio::time::sleep(COMPILER_RETRY).await;
            }
            Err(error) => return Err(error),
        }
    }
}

/// A kept submission's files in the shape the program resolver reads: WebAssembly
/// modules as bytes, the rest as text.
pub(super) fn bundle_of(main_name: &str, files: Vec<(String, Vec<u8>)>) -> Bundle {
    let mut bundle =
        Bundle { main_name: main_name.to_owned(), program: Some(main_name.to_owned()), ..Bundle::default() };
    for (name, bytes) in files {
        if name.to_ascii_lowercase().ends_with(".wasm") {
            bundle.binaries.insert(name, bytes.into());
        } else if let Ok(text) = String::from_utf8(bytes) {
            bundle.files.insert(name, text);
        }
    }
    bundle
}

/// Messages as `file:line:col: message` lines.
fn positioned(messages: &[SourceMessage]) -> String {
    let lines: Vec<String> =
        messages.iter().map(|m| format!("{}:{}:{}: {}", m.file, m.line, m.col, m.message)).collect();
    lines.join("\n")
}

/// A kept evaluation as the API shows it (the seeds to the teacher only).
pub(super) fn view(class: &str, record: &EvaluationRecord, teacher: bool) -> vlab_protocol::Evaluation {
    let trials = record
        .trials
        .iter()
        .map(|trial| Trial {
            seed: trial.seed.filter(|_| teacher),
            replay_path: (over(trial.status) && trial.status != AttemptProgress::Error)
                .then(|| format!("/api/classes/{class}/evaluations/{}/trials/{}/replay", record.id, trial.number)),
            ..trial.clone()
        })
        .collect();
    vlab_protocol::Evaluation {
        id: record.id,
        submission: record.submission,
        version: record.version,
        status: record.status,
        trials,
        grade: record.grade,
        reason: record.reason.clone(),
        started_at: record.started_at,
    }
}

/// A new evaluation of submission `submission` over `seeds`, not kept yet.
pub(super) fn fresh(submission: i64, assignment: &crate::store::AssignmentRecord, started_at: i64) -> EvaluationRecord {
    let trials = assignment
        .seeds
        .iter()
        .enumerate()
        .map(|(i, seed)| Trial {
            number: i as u32 + 1,
            status: AttemptProgress::Queued,
            score: None,
            reason: None,
            credit: None,
            seed: Some(*seed),
            replay_path: None,
        })
        .collect();
    EvaluationRecord {
        id: 0,
        submission,
        version: assignment.version,
        challenge: format!("{}.vlab", assignment.challenge),
        robot: assignment.robot.clone(),
        points: assignment.points,
        started_at,
        status: EvaluationStatus::Queued,
        grade: None,
        reason: None,
        trials,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solved_trial_counts_whole_and_a_percent_challenge_counts_its_share() {
        assert_eq!(credit(true, None), 1.0);
        assert_eq!(credit(false, None), 0.0);
        assert_eq!(credit(false, Some(66.0)), 0.66);
        assert_eq!(credit(true, Some(50.0)), 1.0, "solved is whole whatever the share");
        assert_eq!(credit(false, Some(250.0)), 1.0, "never past whole");
        assert_eq!(credit(false, Some(-5.0)), 0.0);
        assert_eq!(credit(false, Some(f64::NAN)), 0.0);
    }

    #[test]
    fn the_grade_is_the_points_times_the_mean_credit_to_two_decimals() {
        assert_eq!(grade(10.0, &[1.0, 1.0, 0.0]), 6.67);
        assert_eq!(grade(10.0, &[1.0; 5]), 10.0);
        assert_eq!(grade(20.0, &[0.5, 0.25]), 7.5);
        assert_eq!(grade(10.0, &[0.0, 0.0]), 0.0);
        assert_eq!(grade(10.0, &[]), 0.0, "nothing ran: nothing earned");
        assert_eq!(grade(3.0, &[1.0, 0.0, 0.0]), 1.0);
    }

    #[test]
    fn a_kept_submission_reads_back_as_the_program_it_was() {
        let files = vec![
            ("main.py".to_owned(), b"print(1)\n".to_vec()),
            ("bot.wasm".to_owned(), vec![0, 97, 115, 109]),
            ("helper.py".to_owned(), b"X = 1\n".to_vec()),
        ];
        let bundle = bundle_of("main.py", files);
        assert_eq!(bundle.program.as_deref(), Some("main.py"));
        assert_eq!(bundle.files.len(), 2);
        assert_eq!(bundle.binaries["bot.wasm"].as_ref(), &[0, 97, 115, 109]);
    }
}
