//! A scene's challenge live in its shared lab: from the lab's reset, every robot judged
//! by the challenge's conditions after every physics step, as its attempts are, until
//! each has finished, the time limit comes, or the run is stopped. The lab's thread
//! owns it; pages see its [`vlab_protocol::LiveRun`] on the board.

use vlab_protocol::{AttemptProgress, LiveRobot, ProgramState};
use vlab_sim::robot::Robots;
use vlab_sim::scene::{ChallengeModel, SceneModel};
use vlab_sim::sim::World;

use crate::attempt::{AttemptStatus, ChallengeJudge, Judge, Judgement};

/// One robot in the run.
struct Runner {
    robot: String,
    judge: ChallengeJudge,
    status: AttemptProgress,
    reason: Option<String>,
    score: Option<f64>,
    finished_secs: Option<f64>,
}

/// A run of the challenge in the shared lab.
pub struct LiveRun {
    started_step: u64,
    time_limit_secs: f64,
    runners: Vec<Runner>,
    over: Option<String>,
}

impl LiveRun {
    /// A run of `model`'s challenge for every robot of `model`, from step `started_step`;
    /// `None` when the scene sets no challenge.
    pub fn start(model: &SceneModel, started_step: u64) -> Option<LiveRun> {
        let challenge: &ChallengeModel = model.challenge.as_ref()?;
        let runners = model
            .robots
            .iter()
            .filter_map(|robot| {
                Some(Runner {
                    robot: robot.name.clone(),
                    judge: ChallengeJudge::new(challenge, model, &robot.name)?,
                    status: AttemptProgress::Running,
                    reason: None,
                    score: None,
                    finished_secs: None,
                })
            })
            .collect();
        Some(LiveRun { started_step, time_limit_secs: challenge.time_limit_secs, runners, over: None })
    }

    /// Judges every robot still running after physics step `step`; whether anything
    /// changed (a robot finished, or the run is over).
    pub fn after_step(&mut self, step: u64, dt_secs: f64, world: &World, robots: &Robots) -> bool {
        if self.over.is_some() {
            return false;
        }
        let time = step.saturating_sub(self.started_step) as f64 * dt_secs;
        let mut changed = false;
        for runner in self.runners.iter_mut().filter(|r| r.status == AttemptProgress::Running) {
            let stopped = robots
                .get(&runner.robot)
                .map(|robot| robot.program())
                .filter(|program| program.file.is_some() && program.state == ProgramState::Stopped);
            if let Some(program) = stopped {
                let message = program.message.clone().unwrap_or_else(|| "its program stopped".into());
                let status = AttemptStatus::ProgramError { robot: runner.robot.clone(), message: message.clone() };
                runner.finish(AttemptProgress::ProgramError, Some(message), &status, time);
                changed = true;
                continue;
            }
            match runner.judge.after_step(step, time, world, robots) {
                Some(Judgement::Solved) => runner.finish(AttemptProgress::Solved, None, &AttemptStatus::Solved, time),
                Some(Judgement::Failed(why)) => {
                    let status = AttemptStatus::Failed(why.clone());
                    runner.finish(AttemptProgress::Failed, Some(why), &status, time);
                }
                None => continue,
            }
            changed = true;
        }
        // The events are for attempts' replays: a live run keeps none of them.
        for runner in &mut self.runners {
            runner.judge.take_events();
        }
        if time >= self.time_limit_secs - 1e-9 {
            for runner in self.runners.iter_mut().filter(|r| r.status == AttemptProgress::Running) {
                runner.finish(AttemptProgress::TimedOut, None, &AttemptStatus::TimedOut, time);
            }
            self.over = Some("time is up".into());
            return true;
        }
        if changed && self.runners.iter().all(|r| r.status != AttemptProgress::Running) {
            self.over = Some("every robot finished".into());
        }
        changed
    }

    /// Ends the run for `why`, if it is still on; whether it was.
    pub fn end(&mut self, why: &str) -> bool {
        if self.over.is_some() {
            return false;
        }
        self.over = Some(why.to_owned());
        true
    }

    /// Whether it is over.
    pub fn is_over(&self) -> bool {
        self.over.is_some()
    }

    /// How it stands at step `step`, best first (the owners' names are left for the
    /// caller, who knows the people).
    pub fn view(&self, step: u64, dt_secs: f64, lower_is_better: bool) -> vlab_protocol::LiveRun {
        let time_secs = match self.over {
            Some(_) => self.runners.iter().filter_map(|r| r.finished_secs).fold(0.0, f64::max),
            None => step.saturating_sub(self.started_step) as f64 * dt_secs,
        }
        .min(self.time_limit_secs);
        let mut robots: Vec<LiveRobot> = self
            .runners
            .iter()
            .map(|runner| LiveRobot {
                robot: runner.robot.clone(),
                name: String::new(),
                status: runner.status,
                reason: runner.reason.clone(),
                score: runner.score,
                finished_secs: runner.finished_secs,
            })
            .collect();
        robots.sort_by(|a, b| ranking(a, b, lower_is_better));
        vlab_protocol::LiveRun { time_secs, over: self.over.clone(), robots }
    }
}

impl Runner {
    fn finish(&mut self, status: AttemptProgress, reason: Option<String>, ended: &AttemptStatus, time: f64) {
        self.status = status;
        self.reason = reason;
        self.score = self.judge.score(ended);
        self.finished_secs = Some(time);
    }
}

/// Solved first, then by score the rule's way, then the sooner finished, then by name.
fn ranking(a: &LiveRobot, b: &LiveRobot, lower_is_better: bool) -> std::cmp::Ordering {
    let solved = |r: &LiveRobot| r.status == AttemptProgress::Solved;
    solved(b)
        .cmp(&solved(a))
        .then_with(|| vlab_protocol::better_score(a.score, b.score, lower_is_better))
        .then_with(|| a.finished_secs.unwrap_or(f64::MAX).total_cmp(&b.finished_secs.unwrap_or(f64::MAX)))
        .then_with(|| a.robot.cmp(&b.robot))
}
