//! Evaluations over hidden trials: a submission's program run once per trial seed of
//! its assignment, each trial an isolated attempt at the challenge drawn with that seed
//! (docs/classroom.md, "Evaluation over hidden trials"). Trials go through the server's
//! attempt queue, never a lab's thread: each class feeds them from one task, in a line
//! of its own (`class:{id}`), holding at most the queue's share of one student at a
//! time, so a class's evaluations wait their turn with students' attempts. Each trial
//! is kept as it ends; a restart runs again what was not over. In cluster mode an
//! evaluation runs only where its lease is held ([`super::leases`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::{Notify, mpsc};
use vlab_lab::attempt::{self, AttemptOutcome, AttemptQueue, ChallengeJudge, Judge, Judgement, QueueRefusal};
use vlab_programs::ProgramCode;
use vlab_programs::compile::Compiler;
use vlab_protocol::{AttemptProgress, AttemptReport, EvaluationStatus, SceneUploadReply, SourceMessage, Trial};
use vlab_sim::scene::{DirLoader, ScoreRule};

use crate::classroom::attempts::{challenge_attempt, finished, replay_json};
use crate::classroom::labs::scene_model;
use crate::classroom::upload::{Bundle, programs};
use crate::classroom::{ClassroomError, Library, RefusalKind};
use crate::store::{EvaluationRecord, Store, StoreError};

use super::leases::{Claimed, EvaluationLeases, Here, TAKE_OVER_WHILE_FEWER_THAN};

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
    /// The evaluations lined up or running here.
    here: Here,
    /// Cluster mode: the directory's leases of evaluations (`None`: this server alone).
    leases: OnceLock<Arc<dyn EvaluationLeases>>,
}

impl Shared {
    fn kept<T>(&self, change: impl FnOnce(&mut Store) -> Result<T, StoreError>) -> Result<T, ClassroomError> {
        Ok(change(&mut self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))?)
    }
}

/// Each class's line, by class (never held by the lines' tasks: dropped, they end).
type Lines = Arc<Mutex<HashMap<String, mpsc::UnboundedSender<Arc<Claimed>>>>>;

/// The server's evaluations: one line per class, each fed by a task of its own.
pub struct Evaluations {
    shared: Arc<Shared>,
    lines: Lines,
}

impl Evaluations {
    /// Evaluations kept in `store`, their trials run through `queue`.
    pub fn new(
        store: Arc<Mutex<Store>>,
        queue: Arc<AttemptQueue>,
        compiler: Arc<Compiler>,
        library: Library,
    ) -> Evaluations {
        let shared = Arc::new(Shared {
            store,
            queue,
            compiler,
            library,
            ended: Notify::new(),
            here: Here::default(),
            leases: OnceLock::new(),
        });
        Evaluations { shared, lines: Lines::default() }
    }

    /// Cluster mode: from now on every evaluation runs only while this server holds its
    /// lease in `leases` (set once, before any evaluation starts).
    pub(crate) fn run_under(&self, leases: Arc<dyn EvaluationLeases>) {
        if self.shared.leases.set(leases).is_err() {
            tracing::error!("the evaluations' leases were set twice: the first stay");
        }
    }

    /// Runs kept evaluation `id` of class `class` when the class's line comes to it (in
    /// cluster mode, once this server holds its lease).
    pub(crate) fn start(&self, class: &str, id: i64) {
        let Some(claimed) = Claimed::enter(&self.shared.here, id) else { return };
        match self.shared.leases.get() {
            None => line_up(&self.shared, &self.lines, class, claimed),
            Some(leases) => {
                let (shared, lines) = (Arc::clone(&self.shared), Arc::clone(&self.lines));
                let (leases, class) = (Arc::clone(leases), class.to_owned());
                tokio::spawn(async move { claim_and_line_up(&shared, &lines, &*leases, &class, claimed).await });
            }
        }
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

    /// Cluster mode: claims, once, the unfinished evaluations no server holds (their
    /// server died, or could not claim them), and lines up those won; returns how many.
    /// Only while this server holds fewer than [`TAKE_OVER_WHILE_FEWER_THAN`], and only
    /// up to that many.
    pub(crate) async fn take_over(&self) -> Result<usize, String> {
        let Some(leases) = self.shared.leases.get() else { return Ok(0) };
        let here = self.shared.here.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
        let room = TAKE_OVER_WHILE_FEWER_THAN.saturating_sub(here.len());
        if room == 0 {
            return Ok(0);
        }
        let unfinished = self.shared.kept(|store| store.unfinished_evaluations()).map_err(|e| e.to_string())?;
        let classes: HashMap<i64, String> = unfinished
            .into_iter()
            .filter(|(_, evaluation)| !here.contains(&evaluation.id))
            .map(|(class, evaluation)| (evaluation.id, class))
            .collect();
        if classes.is_empty() {
            return Ok(0);
        }
        let mut ids: Vec<i64> = classes.keys().copied().collect();
        ids.sort_unstable();
        let mut taken = 0;
        for id in leases.unheld(ids).await? {
            if taken == room {
                break;
            }
            let Some(claimed) = Claimed::enter(&self.shared.here, id) else { continue };
            if claim_and_line_up(&self.shared, &self.lines, &**leases, &classes[&id], claimed).await {
                tracing::info!(evaluation = id, class = %classes[&id], "took over an evaluation no server ran");
                taken += 1;
            }
        }
        Ok(taken)
    }
}

/// Puts `claimed` at the end of class `class`'s line.
fn line_up(shared: &Arc<Shared>, lines: &Lines, class: &str, claimed: Claimed) {
    let mut lines = lines.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let claimed = Arc::new(claimed);
    let sent = lines.get(class).map(|line| line.send(Arc::clone(&claimed)));
    if matches!(sent, Some(Ok(()))) {
        return;
    }
    // No line yet, or its task ended (it never does but by a bug): a new one.
    let (line, work) = mpsc::unbounded_channel();
    let _ = line.send(claimed);
    tokio::spawn(feed(Arc::clone(shared), class.to_owned(), work));
    lines.insert(class.to_owned(), line);
}

/// Claims `claimed`'s lease and, when won, lines it up; whether it was won.
async fn claim_and_line_up(
    shared: &Arc<Shared>,
    lines: &Lines,
    leases: &dyn EvaluationLeases,
    class: &str,
    claimed: Claimed,
) -> bool {
    let id = claimed.id;
    match leases.claim(id).await {
        Ok(Some(hold)) => {
            tracing::info!(evaluation = id, %class, "this server holds the evaluation's lease");
            line_up(shared, lines, class, claimed.held_by(hold));
            true
        }
        Ok(None) => {
            tracing::info!(evaluation = id, %class, "another server runs this evaluation");
            false
        }
        Err(error) => {
            tracing::warn!(evaluation = id, %class, %error, "cannot claim the evaluation's lease: a server takes it over later");
            false
        }
    }
}

/// A class's line: its evaluations one after another, each trial queued as the queue
/// has room for the line.
async fn feed(shared: Arc<Shared>, class: String, mut work: mpsc::UnboundedReceiver<Arc<Claimed>>) {
    let line = format!("class:{class}");
    while let Some(claimed) = work.recv().await {
        let id = claimed.id;
        if !claimed.is_held() {
            tracing::warn!(%class, evaluation = id, "the evaluation's lease was lost before its turn: left to the server that claims it");
            continue;
        }
        if let Err(error) = evaluate(&shared, &line, &claimed).await {
            tracing::warn!(%class, evaluation = id, %error, "an evaluation failed");
            let message = error.to_string();
            let failed = |store: &mut Store| store.finish_evaluation(id, EvaluationStatus::Failed, 0.0, Some(&message));
            if !claimed.is_held() {
                tracing::warn!(evaluation = id, "the evaluation's lease was lost: its failure is not kept");
            } else if let Err(error) = shared.kept(failed) {
                tracing::error!(evaluation = id, %error, "a failed evaluation could not be kept as failed");
            }
        }
    }
}

/// Queues every trial of evaluation `claimed` not over yet in queue line `line`.
async fn evaluate(shared: &Arc<Shared>, line: &str, claimed: &Arc<Claimed>) -> Result<(), ClassroomError> {
    let id = claimed.id;
    let Some(evaluation) = shared.kept(|store| store.evaluation(id))? else { return Ok(()) };
    if !matches!(evaluation.status, EvaluationStatus::Queued | EvaluationStatus::Running) {
        return Ok(());
    }
    let code = match program_of(shared, evaluation.submission).await? {
        Ok(code) => Arc::new(code),
        Err(_) if !claimed.is_held() => return Ok(()),
        Err(reason) => {
            tracing::info!(evaluation = id, "a submission does not compile: graded 0");
            return shared.kept(|store| store.finish_evaluation(id, EvaluationStatus::Failed, 0.0, Some(&reason)));
        }
    };
    if !claimed.is_held() {
        return Ok(());
    }
    shared.kept(|store| store.set_evaluation_status(id, EvaluationStatus::Running))?;
    let scene = crate::store::LabScene::Library(evaluation.challenge.clone());
    let trials = evaluation.trials.iter().filter(|trial| !over(trial.status));
    for trial in trials {
        let seed = trial.seed.ok_or_else(|| ClassroomError::Internal(format!("evaluation {id} lost a seed")))?;
        let model = scene_model(&shared.library, &scene, seed).await?;
        let percent = model.challenge.as_ref().is_some_and(|c| c.score == ScoreRule::Percent);
        let (spec, judge) = challenge_attempt(&model, &evaluation.robot, Arc::clone(&code), seed)?;
        if !claimed.is_held() {
            tracing::warn!(
                evaluation = id,
                "the evaluation's lease was lost: its other trials are left to the server that claims it"
            );
            return Ok(());
        }
        let ending = TrialEnding {
            shared: Arc::clone(shared),
            claimed: Arc::clone(claimed),
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
                let (spec, judge, ending) = held.lock().unwrap_or_else(|p| p.into_inner()).take().expect("run once");
                let mut judge = WhileHeld { judge, claimed: Arc::clone(&ending.claimed) };
                let outcome = attempt::run(&spec, &mut judge);
                ending.keep(attempt, outcome)
            }),
        );
        match submitted {
            Ok(_) => return,
            // No number (the database is away): asked again like a full queue.
            Err(QueueRefusal::StudentBusy { .. } | QueueRefusal::Full { .. } | QueueRefusal::Unnumbered { .. }) => {
                let _ = tokio::time::timeout(QUEUE_RETRY, shared.ended.notified()).await;
            }
        }
    }
}

/// A trial's judge that also ends it the moment this server no longer holds its
/// evaluation's lease (its result is then not kept: the server that claims it runs it).
struct WhileHeld {
    judge: ChallengeJudge,
    claimed: Arc<Claimed>,
}

impl Judge for WhileHeld {
    fn after_step(
        &mut self,
        step: u64,
        time: f64,
        world: &vlab_sim::sim::World,
        robots: &vlab_sim::robot::Robots,
    ) -> Option<Judgement> {
        if !self.claimed.is_held() {
            return Some(Judgement::Failed("this server no longer holds the evaluation".into()));
        }
        self.judge.after_step(step, time, world, robots)
    }

    fn score(&self, status: &attempt::AttemptStatus) -> Option<f64> {
        self.judge.score(status)
    }

    fn take_events(&mut self) -> Vec<(f64, String)> {
        self.judge.take_events()
    }
}

/// What keeps a trial once it ends.
struct TrialEnding {
    shared: Arc<Shared>,
    /// Its evaluation, while this server may run it.
    claimed: Arc<Claimed>,
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
        let id = self.evaluation;
        if !self.claimed.is_held() {
            tracing::warn!(
                evaluation = id,
                trial = self.number,
                "the evaluation's lease was lost: this trial is not kept"
            );
            self.shared.ended.notify_waiters();
            return outcome;
        }
        let (trial, replay) = self.trial(attempt, &outcome, recording);
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
