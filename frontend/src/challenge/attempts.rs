//! The page's list of attempts: the server's list (newest first) kept current by the
//! reports of the attempts still open, which the page asks for again until they end.

use vlab_protocol::AttemptReport;

use super::words::is_open;

/// Puts `report` into `list` in place of the report of the same attempt, or as a new
/// one; the list stays newest first.
pub fn take_report(list: &mut Vec<AttemptReport>, report: AttemptReport) {
    match list.iter_mut().find(|known| known.id == report.id) {
        Some(known) => *known = report,
        None => {
            list.push(report);
            list.sort_by_key(|a| std::cmp::Reverse(a.id));
        }
    }
}

/// The attempts of `list` still queued or running.
pub fn open_attempts(list: &[AttemptReport]) -> Vec<u64> {
    list.iter().filter(|report| is_open(report.status)).map(|report| report.id).collect()
}

#[cfg(test)]
mod tests {
    use vlab_protocol::{AttemptProgress, AttemptReplay, ChallengeBoard, ZoneShapeView};

    use super::*;
    use crate::api::from_json;

    fn report(id: u64, status: AttemptProgress) -> AttemptReport {
        AttemptReport {
            id,
            robot: "diffbot_ana".into(),
            challenge: "Park".into(),
            seed: id,
            status,
            ahead: None,
            reason: None,
            score: None,
            sim_secs: None,
            console: vec![],
        }
    }

    #[test]
    fn a_report_replaces_its_attempt_or_joins_the_list_newest_first() {
        let mut list = vec![report(5, AttemptProgress::Running), report(2, AttemptProgress::Solved)];
        take_report(&mut list, report(5, AttemptProgress::Failed));
        take_report(&mut list, report(6, AttemptProgress::Queued));
        assert_eq!(
            list.iter().map(|r| (r.id, r.status)).collect::<Vec<_>>(),
            vec![(6, AttemptProgress::Queued), (5, AttemptProgress::Failed), (2, AttemptProgress::Solved)]
        );
        assert_eq!(open_attempts(&list), vec![6]);
    }

    #[test]
    fn the_page_reads_the_board_and_a_replay_as_the_server_writes_them() {
        let board: ChallengeBoard = from_json(
            r#"{"title":"Park in the green bay","time_limit_secs":60.0,"score":"time (lower is better)",
                "lower_is_better":true,"visibility":"own_row","goals":[],
                "zones":[{"name":"bay","shape":{"kind":"cylinder","radius":0.5,"half_height":0.01},
                          "pose":{"position":[5.4,0,2],"rotation":[0,0,0,1]},"color":[0,128,0]}],
                "rows":[{"name":"Ana","user":1,"you":true,"attempts":1,"solved":true,
                         "best":{"id":3,"robot":"diffbot_ana","status":"solved","score":21.9,"sim_secs":21.9,"seed":7}}],
                "run":{"time_secs":3.5,"robots":[{"robot":"diffbot_ana","name":"Ana","status":"running"}]}}"#,
        )
        .unwrap();
        assert_eq!(board.zones[0].shape, ZoneShapeView::Cylinder { radius: 0.5, half_height: 0.01 });
        assert_eq!(board.rows[0].best.as_ref().map(|b| b.status), Some(AttemptProgress::Solved));
        let run = board.run.expect("a live run");
        assert_eq!((run.over, run.robots[0].status), (None, AttemptProgress::Running));

        let replay: AttemptReplay = from_json(
            r#"{"attempt":{"id":3,"robot":"diffbot_ana","challenge":"Park","seed":7,"status":"solved","score":21.9,
                           "sim_secs":21.9,"console":[]},
                "snapshot":{"epoch":1,"sky":[0,0,0],"bodies":[]},"zones":[],"moving":[0],
                "frames":[{"time":0.0,"poses":[{"position":[1,0,2],"rotation":[0,0,0,1]}]}],
                "events":[{"time":21.9,"text":"solved"}]}"#,
        )
        .unwrap();
        assert_eq!((replay.moving.len(), replay.frames.len(), replay.events[0].text.as_str()), (1, 1, "solved"));
    }
}
