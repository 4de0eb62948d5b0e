//! Attempts at a lab's challenge: a student (or the instructor) tries a robot with its
//! current program in a private copy of the lab (`vlab_lab::attempt`), queued fairly
//! with everybody's attempts, never on the lab's thread; the answer says how it went
//! (docs/challenges.md, "Attempts").

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, Weak};

use vlab_lab::attempt::{
    self, AttemptId, AttemptOutcome, AttemptQueue, AttemptSpec, AttemptState, AttemptStatus, ChallengeJudge,
    QueueLimits, QueueRefusal,
};
use vlab_lab::{Caller, LabHandle};
use vlab_programs::ProgramCode;
use vlab_protocol::permissions::Action;
use vlab_protocol::{
    AttemptProgress, AttemptReplay, AttemptReport, AttemptRequest, ChallengeBoard, INSTRUCTOR_ID, LiveRun, RunRequest,
    UserId,
};
use vlab_sim::scene::SceneModel;

use super::ClassroomError;
use super::access::authorize_on_robot;
use super::board;
use crate::store::{AttemptRow, AttemptStore};

/// Attempts whose answers are kept in memory, the oldest forgotten first (the kept
/// store has them all).
pub const KEPT_ATTEMPTS: usize = 4096;

/// The most attempts `GET /api/labs/{lab}/attempts` lists, newest first.
pub const LISTED_ATTEMPTS: usize = 100;

/// Who tried what, for the answers.
#[derive(Clone, Debug)]
struct Tried {
    lab: String,
    robot: String,
    /// Whose attempt it counts as: the robot's owner (the instructor for the lab's own).
    owner: UserId,
    name: String,
    challenge: String,
    seed: u64,
}

impl Tried {
    /// Attempt `id`'s answer before anything is known of how it goes.
    fn report(&self, id: AttemptId) -> AttemptReport {
        AttemptReport {
            id,
            robot: self.robot.clone(),
            challenge: self.challenge.clone(),
            seed: self.seed,
            status: AttemptProgress::Error,
            ahead: None,
            reason: None,
            score: None,
            sim_secs: None,
            console: Vec::new(),
        }
    }
}

/// The server's attempts: the queue that runs them, who tried what, and where the
/// finished ones are kept.
pub struct Attempts {
    queue: Arc<AttemptQueue>,
    tried: Mutex<HashMap<AttemptId, Tried>>,
    kept: Arc<Mutex<AttemptStore>>,
}

impl Attempts {
    /// The attempts of a server keeping them in `kept` (in memory when `None`). Each is
    /// numbered by `kept` as it is queued, evaluations' trials too: servers sharing a
    /// database never give one number twice (`AttemptStore::next_id`).
    pub fn new(kept: Option<AttemptStore>) -> Attempts {
        let kept = kept.unwrap_or_else(|| AttemptStore::in_memory().expect("an in-memory SQLite opens"));
        let kept = Arc::new(Mutex::new(kept));
        let numbering = {
            let kept = Arc::clone(&kept);
            Box::new(move || {
                let mut store = kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                store.next_id().map_err(|error| {
                    tracing::warn!(%error, "an attempt could not be numbered");
                    error.to_string()
                })
            })
        };
        let limits = QueueLimits { kept: KEPT_ATTEMPTS, ..QueueLimits::default() };
        Attempts { queue: Arc::new(AttemptQueue::numbered_by(limits, numbering)), tried: Mutex::default(), kept }
    }

    /// The queue every attempt goes through (evaluations' trials too).
    pub(crate) fn queue(&self) -> Arc<AttemptQueue> {
        Arc::clone(&self.queue)
    }

    fn kept<T>(&self, read: impl FnOnce(&AttemptStore) -> T) -> T {
        read(&self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

impl Default for Attempts {
    fn default() -> Attempts {
        Attempts::new(None)
    }
}

/// The classroom's attempts, for one request.
pub struct ClassroomAttempts<'a> {
    pub(super) classroom: &'a super::Classroom,
}

impl ClassroomAttempts<'_> {
    /// `POST /api/labs/{lab}/robots/{robot}/attempts` (owner or instructor): queues an
    /// attempt of `robot` with its current program at the lab's challenge.
    pub async fn start(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        robot: &str,
        request: AttemptRequest,
    ) -> Result<AttemptReport, ClassroomError> {
        authorize_on_robot(lab, caller, Action::Attempt, robot)?;
        let mut model = Arc::unwrap_or_clone(lab.robots().scene_model().await?);
        let Some(mut challenge) = model.challenge.clone() else {
            return Err(ClassroomError::Conflict(
                "this lab has no challenge: its scene sets none (docs/challenges.md)".into(),
            ));
        };
        let code = lab.programs().program(robot).await.map_err(|_| {
            ClassroomError::Conflict(format!("'{robot}' has no program to try: upload one with it first"))
        })?;
        let seed = request.seed.unwrap_or_else(rand::random);
        // The challenge as the trial's seed draws it (its start, its zones), where the
        // lab's scene can be read again; else as the lab drew it.
        if let Some(drawn) = self.classroom.labs().challenge_drawn_with(lab.id(), seed).await {
            challenge = drawn;
            model.challenge = Some(challenge.clone());
        }
        let (spec, mut judge) = challenge_attempt(&model, robot, code.0, seed)?;
        let owner = lab.robots().owner_of(robot).unwrap_or(INSTRUCTOR_ID);
        let name = lab.people().name_of(owner).unwrap_or_else(|| {
            if owner == INSTRUCTOR_ID { "Instructor".to_owned() } else { format!("participant {owner}") }
        });
        let tried = Tried {
            lab: lab.id().to_owned(),
            robot: robot.to_owned(),
            owner,
            name,
            challenge: challenge.title.clone(),
            seed,
        };
        let keeping =
            Keeping { tried: tried.clone(), kept: Arc::clone(&self.classroom.attempts.kept), lab: Arc::downgrade(lab) };
        let job = Box::new(move |id| {
            let outcome = attempt::run(&spec, &mut judge)?;
            Ok(keeping.keep(id, outcome))
        });
        // Each participant's attempts wait in a line of their own.
        let line = format!("{}:{}", lab.id(), caller.user().map_or_else(|| "-".to_owned(), |user| user.to_string()));
        let id = self.classroom.attempts.queue.submit(&line, job).map_err(|refusal| match refusal {
            QueueRefusal::StudentBusy { .. } => {
                ClassroomError::TooMany { message: refusal.to_string(), retry_after: 10 }
            }
            QueueRefusal::Full { .. } => ClassroomError::Busy { message: refusal.to_string(), retry_after: 30 },
            QueueRefusal::Unnumbered { .. } => ClassroomError::Busy { message: refusal.to_string(), retry_after: 2 },
        })?;
        let mut open = self.classroom.attempts.tried.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        open.insert(id, tried.clone());
        // Answers the queue has forgotten are read from the kept store.
        if open.len() > KEPT_ATTEMPTS {
            let oldest = open.keys().min().copied();
            open.retain(|id, _| Some(*id) != oldest);
        }
        drop(open);
        tracing::info!(lab = %lab.id(), %robot, attempt = id, seed, "attempt queued");
        Ok(self.report_of(id, &tried))
    }

    /// Every kept attempt at lab `lab`'s challenge, newest first.
    pub fn rows_of(self, lab: &str) -> Result<Vec<AttemptRow>, ClassroomError> {
        Ok(self.classroom.attempts.kept(|store| store.rows(lab, None))?)
    }

    /// `GET /api/labs/{lab}/attempts/{id}` (the robot's owner or the instructor).
    pub fn report(self, lab: &LabHandle, caller: Caller, id: AttemptId) -> Result<AttemptReport, ClassroomError> {
        let tried = self.tried(lab, caller, id)?;
        Ok(self.report_of(id, &tried))
    }

    /// `GET /api/labs/{lab}/attempts`: the caller's attempts (the instructor's: every
    /// participant's), newest first, at most [`LISTED_ATTEMPTS`].
    pub fn list(self, lab: &LabHandle, caller: Caller) -> Result<Vec<AttemptReport>, ClassroomError> {
        let Some(user) = caller.user() else {
            return Err(ClassroomError::Denied { action: Action::Attempt, denial: needs_session(), robot: None });
        };
        let whose = (caller != Caller::Instructor).then_some(user);
        let open: Vec<(AttemptId, Tried)> = {
            let tried = self.classroom.attempts.tried.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            tried
                .iter()
                .filter(|(_, t)| t.lab == lab.id() && whose.is_none_or(|user| t.owner == user))
                .map(|(id, t)| (*id, t.clone()))
                .collect()
        };
        let kept = self.classroom.attempts.kept(|store| store.rows(lab.id(), whose))?;
        let mut reports: BTreeMap<AttemptId, AttemptReport> =
            kept.iter().map(|row| (row.id, report_of_row(row))).collect();
        for (id, tried) in open {
            reports.entry(id).or_insert_with(|| self.report_of(id, &tried));
        }
        Ok(reports.into_values().rev().take(LISTED_ATTEMPTS).collect())
    }

    /// `GET /api/labs/{lab}/attempts/{id}/replay`: the JSON of its replay.
    pub fn replay_json(self, lab: &LabHandle, caller: Caller, id: AttemptId) -> Result<Vec<u8>, ClassroomError> {
        self.tried(lab, caller, id)?;
        self.classroom.attempts.kept(|store| store.replay(id))?.ok_or_else(|| {
            ClassroomError::NotFound(format!(
                "attempt {id} has no replay: it has not ended, or it is older than its participant's latest {}",
                crate::store::attempts::REPLAYS_KEPT
            ))
        })
    }

    /// `GET /api/labs/{lab}/attempts/{id}/recording.mcap`: its replay as MCAP.
    pub fn replay_mcap(self, lab: &LabHandle, caller: Caller, id: AttemptId) -> Result<Vec<u8>, ClassroomError> {
        let json = self.replay_json(lab, caller, id)?;
        let replay: AttemptReplay = serde_json::from_slice(&json)
            .map_err(|e| ClassroomError::Internal(format!("the replay of attempt {id} does not read: {e}")))?;
        let mut bytes = Vec::new();
        super::export::mcap::write_attempt(&replay, &mut bytes)
            .map_err(|e| ClassroomError::Internal(format!("the replay of attempt {id} does not export: {e}")))?;
        Ok(bytes)
    }

    /// `GET /api/labs/{lab}/challenge`: the challenge and the rows of its board the
    /// caller may see.
    pub async fn board(self, lab: &LabHandle, caller: Caller) -> Result<ChallengeBoard, ClassroomError> {
        super::access::authorize(caller, Action::Watch)?;
        let model = lab.robots().scene_model().await?;
        let challenge = model.challenge.as_ref().ok_or_else(no_challenge)?;
        let (score, lower_is_better) = board::score_words(challenge);
        let visibility = lab.settings().board;
        let attempts = self.classroom.attempts.kept(|store| store.rows(lab.id(), None))?;
        Ok(ChallengeBoard {
            title: challenge.title.clone(),
            time_limit_secs: challenge.time_limit_secs,
            score,
            lower_is_better,
            zones: vlab_lab::wire::zones(&model),
            goals: challenge.goals.iter().map(|(name, _)| name.clone()).collect(),
            visibility,
            rows: board::rows(&attempts, caller, visibility, lower_is_better),
            run: lab.clock().live_run().map(|run| named(run, lab)),
        })
    }

    /// `POST /api/labs/{lab}/challenge/run` (instructor): starts the challenge live for
    /// every robot (the lab reset, then running) or stops it; answers the board.
    pub async fn run(
        self,
        lab: &LabHandle,
        caller: Caller,
        request: RunRequest,
    ) -> Result<ChallengeBoard, ClassroomError> {
        super::access::authorize(caller, Action::RunChallenge)?;
        match request {
            RunRequest::Start => lab.clock().start_run().await?,
            RunRequest::Stop => lab.clock().stop_run().await?,
        }
        tracing::info!(lab = %lab.id(), ?request, "live run");
        self.board(lab, caller).await
    }

    /// Who tried attempt `id` of `lab`, if the caller may read it.
    fn tried(&self, lab: &LabHandle, caller: Caller, id: AttemptId) -> Result<Tried, ClassroomError> {
        let missing = || ClassroomError::NotFound(format!("no attempt {id} in lab '{}'", lab.id()));
        let open = self.classroom.attempts.tried.lock().unwrap_or_else(|p| p.into_inner()).get(&id).cloned();
        let tried = match open {
            Some(tried) => tried,
            None => {
                let row = self.classroom.attempts.kept(|store| store.row(id))?.ok_or_else(missing)?;
                Tried {
                    lab: row.lab,
                    robot: row.robot,
                    owner: row.user,
                    name: row.name,
                    challenge: row.challenge,
                    seed: row.seed,
                }
            }
        };
        let tried = Some(tried).filter(|tried| tried.lab == lab.id()).ok_or_else(missing)?;
        Action::Attempt.check(caller.toward_robot(Some(tried.owner))).map_err(|denial| ClassroomError::Denied {
            action: Action::Attempt,
            denial,
            robot: Some(tried.robot.clone()),
        })?;
        Ok(tried)
    }

    fn report_of(&self, id: AttemptId, tried: &Tried) -> AttemptReport {
        let mut report = tried.report(id);
        match self.classroom.attempts.queue.state(id) {
            Some(AttemptState::Queued { ahead }) => {
                (report.status, report.ahead) = (AttemptProgress::Queued, Some(ahead))
            }
            Some(AttemptState::Running) => report.status = AttemptProgress::Running,
            Some(AttemptState::Done(Err(error))) => report.reason = Some(error),
            Some(AttemptState::Done(Ok(outcome))) => report = finished(report, &outcome),
            None => match self.classroom.attempts.kept(|store| store.row(id)) {
                Ok(Some(row)) => report = report_of_row(&row),
                _ => report.reason = Some("this attempt's answer is no longer kept".into()),
            },
        }
        report
    }
}

/// An attempt of `robot` with program `code` at `model`'s challenge (drawn with
/// `seed`): its world (the robot alone, at the challenge's start) and its judge. A
/// robot without a sensor the challenge reads is a conflict.
pub(crate) fn challenge_attempt(
    model: &SceneModel,
    robot: &str,
    code: Arc<ProgramCode>,
    seed: u64,
) -> Result<(AttemptSpec, ChallengeJudge), ClassroomError> {
    let challenge = model.challenge.as_ref().ok_or_else(no_challenge)?;
    let world = attempt::world_for(model, robot, challenge.start).map_err(|e| match e {
        attempt::AttemptError::NoSensor { .. } => ClassroomError::Conflict(e.to_string()),
        e => ClassroomError::Invalid(e.to_string()),
    })?;
    let judged = world.challenge.clone().expect("the attempt's world keeps its challenge");
    let judge = ChallengeJudge::new(&judged, &world, robot)
        .ok_or_else(|| ClassroomError::Internal(format!("'{robot}' went missing from its attempt's world")))?;
    let spec = AttemptSpec {
        model: world,
        programs: BTreeMap::from([(robot.to_owned(), code)]),
        seed,
        time_limit_secs: challenge.time_limit_secs,
        wall_limit: attempt::ATTEMPT_WALL_LIMIT,
    };
    Ok((spec, judge))
}

/// The JSON of the replay of an attempt answered by `report` and recorded as
/// `recording` (none without its first snapshot).
pub(crate) fn replay_json(report: &AttemptReport, recording: attempt::AttemptRecording) -> Option<Vec<u8>> {
    let snapshot = recording.snapshot?;
    let replay = AttemptReplay {
        attempt: report.clone(),
        zones: snapshot.zones.clone(),
        snapshot,
        moving: recording.moving,
        frames: recording.frames,
        events: recording.events,
    };
    Some(serde_json::to_vec(&replay).expect("a replay serialises"))
}

/// What keeps an attempt once it ends: its row and replay in the store, and the news
/// for the lab's pages.
struct Keeping {
    tried: Tried,
    kept: Arc<Mutex<AttemptStore>>,
    lab: Weak<LabHandle>,
}

impl Keeping {
    /// Keeps attempt `id`'s `outcome`; returns it without its recording (the queue
    /// keeps outcomes in memory, the store keeps replays).
    fn keep(self, id: AttemptId, mut outcome: AttemptOutcome) -> AttemptOutcome {
        let recording = outcome.recording.take();
        let tried = &self.tried;
        let report = finished(tried.report(id), &outcome);
        let replay = recording.and_then(|recording| replay_json(&report, *recording));
        let row = AttemptRow {
            id,
            lab: tried.lab.clone(),
            robot: tried.robot.clone(),
            user: tried.owner,
            name: tried.name.clone(),
            challenge: tried.challenge.clone(),
            seed: tried.seed,
            status: report.status,
            reason: report.reason.clone(),
            score: report.score,
            sim_secs: report.sim_secs.unwrap_or_default(),
            console: report.console.clone(),
        };
        let saved = self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).save(&row, replay.as_deref());
        if let Err(error) = saved {
            tracing::error!(attempt = id, %error, "an attempt could not be kept: its answer stays in memory only");
        }
        if let Some(lab) = self.lab.upgrade() {
            lab.viewers().board_changed();
        }
        outcome
    }
}

/// `report` with how `outcome` ended.
pub(crate) fn finished(mut report: AttemptReport, outcome: &AttemptOutcome) -> AttemptReport {
    (report.status, report.reason) = match &outcome.status {
        AttemptStatus::Solved => (AttemptProgress::Solved, None),
        AttemptStatus::Failed(why) => (AttemptProgress::Failed, Some(why.clone())),
        AttemptStatus::TimedOut => (AttemptProgress::TimedOut, None),
        AttemptStatus::ProgramError { message, .. } => (AttemptProgress::ProgramError, Some(message.clone())),
    };
    report.score = outcome.score;
    report.sim_secs = Some(outcome.sim_secs);
    report.console = outcome.consoles.get(&report.robot).cloned().unwrap_or_default();
    report
}

fn report_of_row(row: &AttemptRow) -> AttemptReport {
    AttemptReport {
        id: row.id,
        robot: row.robot.clone(),
        challenge: row.challenge.clone(),
        seed: row.seed,
        status: row.status,
        ahead: None,
        reason: row.reason.clone(),
        score: row.score,
        sim_secs: Some(row.sim_secs),
        console: row.console.clone(),
    }
}

/// `run` with its robots' owners named.
fn named(mut run: LiveRun, lab: &LabHandle) -> LiveRun {
    for robot in &mut run.robots {
        let owner = lab.robots().owner_of(&robot.robot).unwrap_or(INSTRUCTOR_ID);
        robot.name = lab.people().name_of(owner).unwrap_or_else(|| {
            if owner == INSTRUCTOR_ID { "Instructor".to_owned() } else { format!("participant {owner}") }
        });
    }
    run
}

fn no_challenge() -> ClassroomError {
    ClassroomError::NotFound("this lab has no challenge: its scene sets none (docs/challenges.md)".into())
}

fn needs_session() -> vlab_protocol::permissions::Denial {
    vlab_protocol::permissions::Denial::NeedsSession
}
