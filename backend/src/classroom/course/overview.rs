//! The teacher's overview: every open lab of her class as it is now: who joined and is
//! connected, each robot's owner and program state (a program stopped by anything but a
//! request counts as crashed, with its error), and each robot's best attempt at the
//! lab's challenge.

use vlab_protocol::permissions::Action;
use vlab_protocol::{
    AttemptProgress, ChallengeProgress, ClassOverview, LabOverview, ProgramState, ProgramStatus, RobotOverview,
};

use super::{ClassCaller, ClassroomCourse};
use crate::classroom::{ClassroomError, board};
use crate::store::AttemptRow;
use vlab_lab::LabHandle;

impl ClassroomCourse<'_> {
    /// `GET /api/classes/{class}/overview` (teacher).
    pub async fn overview(self, class: &str, caller: ClassCaller) -> Result<ClassOverview, ClassroomError> {
        caller.may(Action::SeeOverview, None)?;
        let mut labs = Vec::new();
        for summary in self.lessons(class) {
            // A lab closed meanwhile is left out.
            let Ok(lab) = self.classroom.lab(&summary.id) else { continue };
            labs.push(self.lab_overview(&lab).await?);
        }
        Ok(ClassOverview { labs })
    }

    async fn lab_overview(self, lab: &LabHandle) -> Result<LabOverview, ClassroomError> {
        let summary = lab.summary();
        let model = lab.robots().scene_model().await.ok();
        let challenge = model.as_ref().and_then(|m| m.challenge.as_ref());
        let (score_rule, lower_is_better) = challenge.map(board::score_words).unzip();
        let lower_is_better = lower_is_better.unwrap_or(false);
        let attempts = if challenge.is_some() { self.classroom.attempts().rows_of(lab.id())? } else { Vec::new() };
        let mut robots = Vec::new();
        for name in &summary.robots {
            // A robot removed meanwhile is left out.
            let Ok(report) = lab.robots().report(name).await else { continue };
            let (program, error) = program_words(&report.program);
            let tried: Vec<&AttemptRow> = attempts.iter().filter(|a| a.robot == *name).collect();
            let best = challenge.and(best_of(&tried, lower_is_better));
            robots.push(RobotOverview { robot: name.clone(), owner: report.owner, program, error, best });
        }
        Ok(LabOverview {
            people: lab.people().list(),
            robots,
            challenge: challenge.map(|c| c.title.clone()),
            score_rule,
            lab: summary,
        })
    }
}

/// A program's state as the overview says it, and its error.
fn program_words(status: &ProgramStatus) -> (String, Option<String>) {
    let word = match status.state {
        ProgramState::None => "none",
        ProgramState::Idle => "idle",
        ProgramState::Starting => "starting",
        ProgramState::Running if status.late.is_some() => "late",
        ProgramState::Running => "running",
        ProgramState::Stopped if status.message.as_deref().is_some_and(|m| m.ends_with("by request")) => "stopped",
        ProgramState::Stopped => "crashed",
    };
    let error = (word == "crashed").then(|| status.message.clone()).flatten();
    (word.to_owned(), error)
}

/// A robot's attempts in brief: how many, whether one solved it, the best score.
fn best_of(tried: &[&AttemptRow], lower_is_better: bool) -> Option<ChallengeProgress> {
    let best = tried.iter().min_by(|a, b| board::better(a, b, lower_is_better))?;
    Some(ChallengeProgress {
        attempts: tried.len() as u32,
        solved: tried.iter().any(|a| a.status == AttemptProgress::Solved),
        score: best.score,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(state: ProgramState, message: Option<&str>) -> ProgramStatus {
        ProgramStatus { file: None, language: None, state, message: message.map(str::to_owned), late: None }
    }

    #[test]
    fn a_program_stopped_by_anything_but_a_request_crashed() {
        assert_eq!(program_words(&status(ProgramState::Stopped, Some("stopped by request"))), ("stopped".into(), None));
        let crash = status(ProgramState::Stopped, Some("main.py:3: ZeroDivisionError: division by zero"));
        assert_eq!(
            program_words(&crash),
            ("crashed".into(), Some("main.py:3: ZeroDivisionError: division by zero".into()))
        );
        assert_eq!(program_words(&status(ProgramState::Running, None)).0, "running");
    }
}
