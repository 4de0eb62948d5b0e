//! A lab's challenge board from its kept attempts: one row per participant, her best
//! attempt and her latest, the best rows first; a caller sees the rows the permission
//! table and the lab's `board` setting let her (docs/challenges.md, "The board").

use std::cmp::Ordering;
use std::collections::BTreeMap;

use vlab_lab::Caller;
use vlab_protocol::permissions::Action;
use vlab_protocol::{AttemptProgress, BoardAttempt, BoardRow, BoardVisibility, better_score};
use vlab_sim::scene::{ChallengeModel, ScoreRule};

use crate::store::AttemptRow;

/// The score rule in words, and whether a lower score is better.
pub fn score_words(challenge: &ChallengeModel) -> (String, bool) {
    match challenge.score {
        ScoreRule::Time => ("time in seconds (lower is better)".into(), true),
        ScoreRule::Distance { zone } => {
            let name = challenge.zones.get(zone).map_or("its zone", |zone| zone.name.as_str());
            (format!("distance to {name} in metres (lower is better)"), true)
        }
        ScoreRule::Percent => (format!("percent of {} goals", challenge.goals.len()), false),
        ScoreRule::Points => {
            let total: f64 = challenge.points.iter().map(|(points, _)| points).sum();
            (format!("points (of {total})"), false)
        }
    }
}

/// Whether attempt `a` is better than `b`: solved first, then by score (its rule's
/// way; an attempt with a score before one without), then the shorter.
pub fn better(a: &AttemptRow, b: &AttemptRow, lower_is_better: bool) -> Ordering {
    let solved = |row: &AttemptRow| row.status == AttemptProgress::Solved;
    solved(b)
        .cmp(&solved(a))
        .then_with(|| better_score(a.score, b.score, lower_is_better))
        .then_with(|| a.sim_secs.total_cmp(&b.sim_secs))
        .then_with(|| a.id.cmp(&b.id))
}

/// The rows `caller` may see of `attempts` (a lab's, any order), best first.
pub fn rows(
    attempts: &[AttemptRow],
    caller: Caller,
    visibility: BoardVisibility,
    lower_is_better: bool,
) -> Vec<BoardRow> {
    let mut by_user: BTreeMap<u32, Vec<&AttemptRow>> = BTreeMap::new();
    for attempt in attempts {
        by_user.entry(attempt.user).or_default().push(attempt);
    }
    let everybody = visibility == BoardVisibility::Names && caller.user().is_some();
    let mut rows: Vec<(BoardRow, &AttemptRow)> = by_user
        .into_iter()
        .filter(|(user, _)| everybody || Action::SeeBoardRow.allows(caller.toward_robot(Some(*user))))
        .map(|(user, tried)| {
            let best = *tried.iter().min_by(|a, b| better(a, b, lower_is_better)).expect("a row has attempts");
            let last = *tried.iter().max_by_key(|attempt| attempt.id).expect("a row has attempts");
            let row = BoardRow {
                name: last.name.clone(),
                user,
                you: caller.user() == Some(user),
                attempts: tried.len() as u32,
                solved: best.status == AttemptProgress::Solved,
                best: Some(shown(best)),
                last: Some(shown(last)),
            };
            (row, best)
        })
        .collect();
    rows.sort_by(|(a, best_a), (b, best_b)| better(best_a, best_b, lower_is_better).then(a.user.cmp(&b.user)));
    rows.into_iter().map(|(row, _)| row).collect()
}

fn shown(attempt: &AttemptRow) -> BoardAttempt {
    BoardAttempt {
        id: attempt.id,
        robot: attempt.robot.clone(),
        status: attempt.status,
        score: attempt.score,
        sim_secs: attempt.sim_secs,
        seed: attempt.seed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_protocol::INSTRUCTOR_ID;

    fn attempt(id: u64, user: u32, status: AttemptProgress, score: Option<f64>) -> AttemptRow {
        AttemptRow {
            id,
            lab: "lab".into(),
            robot: format!("bot{user}"),
            user,
            name: format!("Student {user}"),
            challenge: "Park".into(),
            seed: id,
            status,
            reason: None,
            score,
            sim_secs: score.unwrap_or(60.0),
            console: vec![],
        }
    }

    fn class() -> Vec<AttemptRow> {
        vec![
            attempt(1, 1, AttemptProgress::TimedOut, None),
            attempt(2, 1, AttemptProgress::Solved, Some(30.0)),
            attempt(3, 2, AttemptProgress::Solved, Some(22.0)),
            attempt(4, 1, AttemptProgress::Failed, None),
            attempt(5, 3, AttemptProgress::ProgramError, None),
        ]
    }

    #[test]
    fn the_instructor_sees_every_row_best_first_with_each_ones_best_and_latest() {
        let rows = rows(&class(), Caller::Instructor, BoardVisibility::OwnRow, true);
        let order: Vec<u32> = rows.iter().map(|row| row.user).collect();
        assert_eq!(order, [2, 1, 3], "the fastest solver first, one who never solved last");
        let first = &rows[1];
        assert_eq!((first.attempts, first.solved), (3, true));
        assert_eq!(first.best.as_ref().map(|b| b.id), Some(2), "her solved attempt, not her latest");
        assert_eq!(first.last.as_ref().map(|b| b.status), Some(AttemptProgress::Failed));
        assert!(rows.iter().all(|row| !row.you));
    }

    #[test]
    fn a_student_sees_her_own_row_unless_the_instructor_shows_names() {
        let own = rows(&class(), Caller::Student(1), BoardVisibility::OwnRow, true);
        assert_eq!(own.iter().map(|row| (row.user, row.you)).collect::<Vec<_>>(), [(1, true)]);
        let all = rows(&class(), Caller::Student(1), BoardVisibility::Names, true);
        assert_eq!(all.len(), 3);
        assert_eq!(all.iter().filter(|row| row.you).count(), 1);
        assert!(rows(&class(), Caller::Viewer, BoardVisibility::Names, true).is_empty(), "names are for the class");
        assert!(rows(&class(), Caller::Viewer, BoardVisibility::OwnRow, true).is_empty());
    }

    #[test]
    fn points_and_percent_rank_the_highest_first() {
        let class = vec![
            attempt(1, 1, AttemptProgress::TimedOut, Some(40.0)),
            attempt(2, 2, AttemptProgress::TimedOut, Some(60.0)),
        ];
        let rows = rows(&class, Caller::Instructor, BoardVisibility::OwnRow, false);
        assert_eq!(rows.iter().map(|row| row.user).collect::<Vec<_>>(), [2, 1]);
        let instructor = rows.iter().any(|row| row.user == INSTRUCTOR_ID);
        assert!(!instructor);
    }
}
