//! How the Challenge panel words the board and attempts: scores with their unit, an
//! attempt's status and its one-line summary, the time limit, the board's visibility
//! choices, and which robots this page may try.

use vlab_protocol::{AttemptProgress, AttemptReport, BoardVisibility, Participant, Role};

/// What a challenge's score measures, read from the board's words for its rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreUnit {
    /// Seconds of simulation (`score time`).
    Seconds,
    /// Metres to a zone (`score distance(zone)`).
    Metres,
    /// Share of goals reached (`score percent`).
    Percent,
    /// Points (`score points`).
    Points,
}

impl ScoreUnit {
    /// The unit of a rule the board words as `score` (`time (lower is better)`,
    /// `distance to bay (lower is better)`, `percent of 3 goals`, `points (of 60)`).
    pub fn of_rule(score: &str) -> ScoreUnit {
        let rule = score.trim_start().to_ascii_lowercase();
        if rule.starts_with("distance") {
            ScoreUnit::Metres
        } else if rule.starts_with("percent") {
            ScoreUnit::Percent
        } else if rule.starts_with("points") {
            ScoreUnit::Points
        } else {
            ScoreUnit::Seconds
        }
    }

    /// `12.40 s`, `0.31 m`, `67%`, `50 points`.
    pub fn text(self, score: f64) -> String {
        match self {
            ScoreUnit::Seconds => format!("{score:.2} s"),
            ScoreUnit::Metres => format!("{score:.2} m"),
            ScoreUnit::Percent => format!("{score:.0}%"),
            ScoreUnit::Points => format!("{score:.0} points"),
        }
    }
}

/// The wire name of a status (`timed_out`), for `data-status`.
pub fn status_name(status: AttemptProgress) -> &'static str {
    match status {
        AttemptProgress::Queued => "queued",
        AttemptProgress::Running => "running",
        AttemptProgress::Solved => "solved",
        AttemptProgress::Failed => "failed",
        AttemptProgress::TimedOut => "timed_out",
        AttemptProgress::ProgramError => "program_error",
        AttemptProgress::Error => "error",
    }
}

/// A status in words (`timed out`).
pub fn status_words(status: AttemptProgress) -> &'static str {
    match status {
        AttemptProgress::Queued => "queued",
        AttemptProgress::Running => "running",
        AttemptProgress::Solved => "solved",
        AttemptProgress::Failed => "failed",
        AttemptProgress::TimedOut => "timed out",
        AttemptProgress::ProgramError => "program error",
        AttemptProgress::Error => "not run",
    }
}

/// Whether an attempt is still waiting or running (its report will change).
pub fn is_open(status: AttemptProgress) -> bool {
    matches!(status, AttemptProgress::Queued | AttemptProgress::Running)
}

/// An attempt in one line: `queued (2 ahead)`, `running…`, or how it ended with its
/// score, its length and its seed: `solved · 12.40 s · 12.4 s simulated · seed 7`.
pub fn attempt_summary(report: &AttemptReport, unit: ScoreUnit) -> String {
    match report.status {
        AttemptProgress::Queued => match report.ahead {
            Some(ahead) if ahead > 0 => format!("queued ({ahead} ahead)"),
            _ => "queued".to_owned(),
        },
        AttemptProgress::Running => "running…".to_owned(),
        status => {
            let mut parts = vec![status_words(status).to_owned()];
            if let Some(score) = report.score {
                parts.push(unit.text(score));
            }
            if let Some(secs) = report.sim_secs {
                parts.push(format!("{secs:.1} s simulated"));
            }
            parts.push(format!("seed {}", report.seed));
            parts.join(" · ")
        }
    }
}

/// `60 s`, `1.5 s`: a number of seconds without a needless `.0`.
pub fn seconds_text(secs: f64) -> String {
    if secs.fract() == 0.0 { format!("{secs:.0} s") } else { format!("{secs:.1} s") }
}

/// The board's visibility choices: the setting, its wire name and its words.
pub const VISIBILITY_CHOICES: [(BoardVisibility, &str, &str); 2] = [
    (BoardVisibility::OwnRow, "own_row", "Only their own row"),
    (BoardVisibility::Names, "names", "Every row, with names"),
];

/// The choice whose wire name is `value`.
pub fn parse_visibility(value: &str) -> Option<BoardVisibility> {
    VISIBILITY_CHOICES.iter().find(|(_, name, _)| *name == value).map(|(choice, _, _)| *choice)
}

/// The robots this page offers to try: its own, and for the instructor (who may try
/// any) also the lab's robots nobody added (the scene's own).
pub fn triable_robots(
    role: Option<Role>,
    you: Option<&Participant>,
    participants: &[Participant],
    lab_robots: &[String],
) -> Vec<String> {
    let mut robots: Vec<String> = you.map(|you| you.robots.clone()).unwrap_or_default();
    if role == Some(Role::Instructor) {
        let owned = |robot: &String| participants.iter().any(|p| p.robots.contains(robot));
        let unowned: Vec<String> =
            lab_robots.iter().filter(|robot| !owned(robot) && !robots.contains(robot)).cloned().collect();
        robots.extend(unowned);
    }
    robots
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(status: AttemptProgress) -> AttemptReport {
        AttemptReport {
            id: 3,
            robot: "diffbot_ana".into(),
            challenge: "Park".into(),
            seed: 7,
            status,
            ahead: None,
            reason: None,
            score: None,
            sim_secs: None,
            console: vec![],
        }
    }

    #[test]
    fn scores_carry_the_unit_of_their_rule() {
        assert_eq!(ScoreUnit::of_rule("time (lower is better)").text(12.4), "12.40 s");
        assert_eq!(ScoreUnit::of_rule("distance to bay (lower is better)").text(0.314), "0.31 m");
        assert_eq!(ScoreUnit::of_rule("percent of 3 goals").text(66.67), "67%");
        assert_eq!(ScoreUnit::of_rule("points (of 60)").text(50.0), "50 points");
    }

    #[test]
    fn an_attempt_reads_as_where_it_is_or_how_it_ended() {
        let unit = ScoreUnit::Seconds;
        let mut queued = report(AttemptProgress::Queued);
        assert_eq!(attempt_summary(&queued, unit), "queued");
        queued.ahead = Some(2);
        assert_eq!(attempt_summary(&queued, unit), "queued (2 ahead)");
        assert_eq!(attempt_summary(&report(AttemptProgress::Running), unit), "running…");
        let mut solved = report(AttemptProgress::Solved);
        solved.score = Some(12.4);
        solved.sim_secs = Some(12.4);
        assert_eq!(attempt_summary(&solved, unit), "solved · 12.40 s · 12.4 s simulated · seed 7");
        let mut timed_out = report(AttemptProgress::TimedOut);
        timed_out.sim_secs = Some(60.0);
        assert_eq!(attempt_summary(&timed_out, unit), "timed out · 60.0 s simulated · seed 7");
        assert!(is_open(AttemptProgress::Running) && !is_open(AttemptProgress::Failed));
        assert_eq!(status_name(AttemptProgress::ProgramError), "program_error");
    }

    #[test]
    fn limits_and_visibility_read_plainly() {
        assert_eq!(seconds_text(60.0), "60 s");
        assert_eq!(seconds_text(1.5), "1.5 s");
        assert_eq!(parse_visibility("names"), Some(BoardVisibility::Names));
        assert_eq!(parse_visibility("own_row"), Some(BoardVisibility::OwnRow));
        assert_eq!(parse_visibility("all"), None);
    }

    #[test]
    fn a_student_tries_her_robots_and_the_instructor_also_the_scene_s() {
        let person = |id, role, robots: &[&str]| Participant {
            id,
            name: format!("p{id}"),
            role,
            online: true,
            robots: robots.iter().map(|r| r.to_string()).collect(),
        };
        let people = vec![person(0, Role::Instructor, &[]), person(1, Role::Student, &["diffbot_ana"])];
        let lab = vec!["diffbot".to_owned(), "diffbot_ana".to_owned()];
        assert_eq!(triable_robots(Some(Role::Student), Some(&people[1]), &people, &lab), vec!["diffbot_ana"]);
        assert_eq!(triable_robots(Some(Role::Instructor), Some(&people[0]), &people, &lab), vec!["diffbot"]);
        assert!(triable_robots(Some(Role::Viewer), None, &people, &lab).is_empty());
    }
}
