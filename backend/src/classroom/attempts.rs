//! Attempts at a lab's challenge: a student (or the instructor) tries a robot with its
//! current program in a private copy of the lab (`vlab_lab::attempt`), queued fairly
//! with everybody's attempts, never on the lab's thread; the answer says how it went
//! (docs/challenges.md, "Attempts").

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use vlab_lab::attempt::{
    self, AttemptId, AttemptQueue, AttemptSpec, AttemptState, AttemptStatus, ChallengeJudge, QueueLimits, QueueRefusal,
};
use vlab_lab::{Caller, LabHandle};
use vlab_protocol::permissions::Action;
use vlab_protocol::{AttemptProgress, AttemptReport, AttemptRequest, UserId};

use super::ClassroomError;
use super::access::authorize_on_robot;

/// Attempts whose answers are kept, the oldest forgotten first.
pub const KEPT_ATTEMPTS: usize = 4096;

/// Who tried what, for the answers.
#[derive(Clone, Debug)]
struct Tried {
    lab: String,
    robot: String,
    owner: Option<UserId>,
    challenge: String,
    seed: u64,
}

/// The server's attempts: the queue that runs them, and who tried what.
pub struct Attempts {
    queue: AttemptQueue,
    tried: Mutex<HashMap<AttemptId, Tried>>,
}

impl Default for Attempts {
    fn default() -> Attempts {
        Attempts {
            queue: AttemptQueue::new(QueueLimits { kept: KEPT_ATTEMPTS, ..QueueLimits::default() }),
            tried: Mutex::default(),
        }
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
        let world =
            attempt::world_for(&model, robot, challenge.start).map_err(|e| ClassroomError::Invalid(e.to_string()))?;
        let judged = world.challenge.clone().expect("the attempt's world keeps its challenge");
        let judge = ChallengeJudge::new(&judged, &world, robot)
            .ok_or_else(|| ClassroomError::Internal(format!("'{robot}' went missing from its attempt's world")))?;
        let spec = AttemptSpec {
            model: world,
            programs: BTreeMap::from([(robot.to_owned(), code.0)]),
            seed,
            time_limit_secs: challenge.time_limit_secs,
            wall_limit: attempt::ATTEMPT_WALL_LIMIT,
        };
        let mut judge = judge;
        let job = Box::new(move || attempt::run(&spec, &mut judge));
        // Each participant's attempts wait in a line of their own.
        let line = format!("{}:{}", lab.id(), caller.user().map_or_else(|| "-".to_owned(), |user| user.to_string()));
        let id = self.classroom.attempts.queue.submit(&line, job).map_err(|refusal| match refusal {
            QueueRefusal::StudentBusy { .. } => {
                ClassroomError::TooMany { message: refusal.to_string(), retry_after: 10 }
            }
            QueueRefusal::Full { .. } => ClassroomError::Busy { message: refusal.to_string(), retry_after: 30 },
        })?;
        let tried = Tried {
            lab: lab.id().to_owned(),
            robot: robot.to_owned(),
            owner: lab.robots().owner_of(robot),
            challenge: challenge.title.clone(),
            seed,
        };
        let mut kept = self.classroom.attempts.tried.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.insert(id, tried.clone());
        // Answers the queue has forgotten are forgotten here too.
        if kept.len() > KEPT_ATTEMPTS {
            let oldest = kept.keys().min().copied();
            kept.retain(|id, _| Some(*id) != oldest);
        }
        drop(kept);
        tracing::info!(lab = %lab.id(), %robot, attempt = id, seed, "attempt queued");
        Ok(self.report_of(id, &tried))
    }

    /// `GET /api/labs/{lab}/attempts/{id}` (the robot's owner or the instructor).
    pub fn report(self, lab: &LabHandle, caller: Caller, id: AttemptId) -> Result<AttemptReport, ClassroomError> {
        let missing = || ClassroomError::NotFound(format!("no attempt {id} in lab '{}'", lab.id()));
        let tried = self.classroom.attempts.tried.lock().unwrap_or_else(|p| p.into_inner()).get(&id).cloned();
        let tried = tried.filter(|tried| tried.lab == lab.id()).ok_or_else(missing)?;
        Action::Attempt.check(caller.toward_robot(tried.owner)).map_err(|denial| ClassroomError::Denied {
            action: Action::Attempt,
            denial,
            robot: Some(tried.robot.clone()),
        })?;
        Ok(self.report_of(id, &tried))
    }

    fn report_of(self, id: AttemptId, tried: &Tried) -> AttemptReport {
        let mut report = AttemptReport {
            id,
            robot: tried.robot.clone(),
            challenge: tried.challenge.clone(),
            seed: tried.seed,
            status: AttemptProgress::Error,
            ahead: None,
            reason: None,
            score: None,
            sim_secs: None,
            console: Vec::new(),
        };
        match self.classroom.attempts.queue.state(id) {
            None => report.reason = Some("this attempt's answer is no longer kept".into()),
            Some(AttemptState::Queued { ahead }) => {
                (report.status, report.ahead) = (AttemptProgress::Queued, Some(ahead))
            }
            Some(AttemptState::Running) => report.status = AttemptProgress::Running,
            Some(AttemptState::Done(Err(error))) => report.reason = Some(error),
            Some(AttemptState::Done(Ok(outcome))) => {
                (report.status, report.reason) = match outcome.status {
                    AttemptStatus::Solved => (AttemptProgress::Solved, None),
                    AttemptStatus::Failed(why) => (AttemptProgress::Failed, Some(why)),
                    AttemptStatus::TimedOut => (AttemptProgress::TimedOut, None),
                    AttemptStatus::ProgramError { message, .. } => (AttemptProgress::ProgramError, Some(message)),
                };
                report.score = outcome.score;
                report.sim_secs = Some(outcome.sim_secs);
                report.console = outcome.consoles.get(&tried.robot).cloned().unwrap_or_default();
            }
        }
        report
    }
}
