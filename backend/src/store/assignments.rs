//! Assignments as kept: each with its hidden trials' seeds; the submissions handed in
//! for it with their files; the evaluations of each submission (its trials as JSON) and
//! each trial's replay (JSON, zstd-compressed). A submission is kept with its files and
//! its first evaluation in one transaction, so a hand-in acknowledged is never lost.

use rusqlite::{OptionalExtension, params};
use vlab_protocol::{EvaluationStatus, StudentId, Trial};

use super::{SqliteStore, StoreError};

/// zstd's level for trial replays: its fast end (written once, on an attempts worker).
pub(super) const COMPRESSION_LEVEL: i32 = 3;
/// A replay never decompresses past this (a 60 s trial is well under 2 MB).
pub(super) const MAX_REPLAY_BYTES: usize = 64 * 1024 * 1024;

/// An assignment as kept.
#[derive(Clone, Debug, PartialEq)]
pub struct AssignmentRecord {
    /// Its id (0 before it is first kept).
    pub id: i64,
    /// Its class.
    pub class: String,
    /// Its title.
    pub title: String,
    /// The challenge's library scene (`challenges/park`).
    pub challenge: String,
    /// The challenge's own title.
    pub challenge_title: String,
    /// How the challenge scores, in words (empty when kept before schema step 7).
    pub score_rule: String,
    /// The robot a submission's program drives.
    pub robot: String,
    /// What a full grade is worth.
    pub points: f64,
    /// When submissions open.
    pub opens_at: i64,
    /// When it is due.
    pub due_at: Option<i64>,
    /// Its hidden trials' seeds, one per trial.
    pub seeds: Vec<u64>,
    /// The students it is given to (`None`: the whole class).
    pub students: Option<Vec<StudentId>>,
    /// Its version.
    pub version: u32,
}

/// A submission as kept (its files' bytes apart).
#[derive(Clone, Debug, PartialEq)]
pub struct SubmissionRecord {
    /// Its id.
    pub id: i64,
    /// Its assignment.
    pub assignment: i64,
    /// Whose.
    pub student: StudentId,
    /// When it arrived.
    pub submitted_at: i64,
    /// Whether after the due date.
    pub late: bool,
    /// The file its program starts from.
    pub main_name: String,
    /// Its files' names, sorted.
    pub files: Vec<String>,
}

/// An evaluation as kept.
#[derive(Clone, Debug, PartialEq)]
pub struct EvaluationRecord {
    /// Its id (0 before it is first kept).
    pub id: i64,
    /// The submission it runs.
    pub submission: i64,
    /// The assignment's version it runs.
    pub version: u32,
    /// The challenge it runs (as the assignment said when it started).
    pub challenge: String,
    /// The robot the program drives.
    pub robot: String,
    /// What a full grade is worth.
    pub points: f64,
    /// When it started.
    pub started_at: i64,
    /// Where it is.
    pub status: EvaluationStatus,
    /// Its grade, once graded (0 when it failed).
    pub grade: Option<f64>,
    /// Why it failed.
    pub reason: Option<String>,
    /// Its trials, seeds included.
    pub trials: Vec<Trial>,
}

pub(super) fn status_text(status: EvaluationStatus) -> &'static str {
    match status {
        EvaluationStatus::Queued => "queued",
        EvaluationStatus::Running => "running",
        EvaluationStatus::Graded => "graded",
        EvaluationStatus::Failed => "failed",
    }
}

pub(super) fn status_of(text: &str) -> Option<EvaluationStatus> {
    Some(match text {
        "queued" => EvaluationStatus::Queued,
        "running" => EvaluationStatus::Running,
        "graded" => EvaluationStatus::Graded,
        "failed" => EvaluationStatus::Failed,
        _ => return None,
    })
}

const ASSIGNMENT_COLUMNS: &str = "id, class, title, challenge, challenge_title, robot, points, opens_at, due_at, seeds, students, version, score_rule";
const SUBMISSION_COLUMNS: &str = "id, assignment, student, submitted_at, late, main_name";
const EVALUATION_COLUMNS: &str =
    "id, submission, version, challenge, robot, points, started_at, status, grade, reason, trials";

/// An assignment's row, its JSON columns still text.
type AssignmentRow = (AssignmentRecord, String, Option<String>);

fn assignment_of_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<AssignmentRow> {
    let record = AssignmentRecord {
        id: row.get(0)?,
        class: row.get(1)?,
        title: row.get(2)?,
        challenge: row.get(3)?,
        challenge_title: row.get(4)?,
        robot: row.get(5)?,
        points: row.get(6)?,
        opens_at: row.get(7)?,
        due_at: row.get(8)?,
        seeds: Vec::new(),
        students: None,
        version: row.get(11)?,
        score_rule: row.get(12)?,
    };
    Ok((record, row.get(9)?, row.get(10)?))
}

fn submission_of_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SubmissionRecord> {
    Ok(SubmissionRecord {
        id: row.get(0)?,
        assignment: row.get(1)?,
        student: row.get(2)?,
        submitted_at: row.get(3)?,
        late: row.get::<_, i64>(4)? != 0,
        main_name: row.get(5)?,
        files: Vec::new(),
    })
}

/// An evaluation's row, its status and trials still text.
type EvaluationRow = (EvaluationRecord, String, String);

fn evaluation_of_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<EvaluationRow> {
    let record = EvaluationRecord {
        id: row.get(0)?,
        submission: row.get(1)?,
        version: row.get(2)?,
        challenge: row.get(3)?,
        robot: row.get(4)?,
        points: row.get(5)?,
        started_at: row.get(6)?,
        status: EvaluationStatus::Queued,
        grade: row.get(8)?,
        reason: row.get(9)?,
        trials: Vec::new(),
    };
    Ok((record, row.get(7)?, row.get(10)?))
}

impl SqliteStore {
    fn corrupt(&self, what: String) -> StoreError {
        StoreError::Corrupt { path: self.path.clone(), what }
    }

    fn read_assignment(&self, (mut record, seeds, students): AssignmentRow) -> Result<AssignmentRecord, StoreError> {
        record.seeds = serde_json::from_str(&seeds)
            .map_err(|e| self.corrupt(format!("assignment {}: its seeds do not read: {e}", record.id)))?;
        record.students = match students {
            None => None,
            Some(text) => Some(
                serde_json::from_str(&text)
                    .map_err(|e| self.corrupt(format!("assignment {}: its students do not read: {e}", record.id)))?,
            ),
        };
        Ok(record)
    }

    fn read_evaluation(&self, (mut record, status, trials): EvaluationRow) -> Result<EvaluationRecord, StoreError> {
        record.status = status_of(&status)
            .ok_or_else(|| self.corrupt(format!("evaluation {}: unknown status '{status}'", record.id)))?;
        record.trials = serde_json::from_str(&trials)
            .map_err(|e| self.corrupt(format!("evaluation {}: its trials do not read: {e}", record.id)))?;
        Ok(record)
    }

    /// Keeps a new assignment; returns its id.
    pub fn save_assignment(&self, assignment: &AssignmentRecord) -> Result<i64, StoreError> {
        let a = assignment;
        self.connection
            .execute(
                "INSERT INTO assignments (class, title, challenge, challenge_title, robot, points, opens_at, due_at,
                     seeds, students, version, score_rule)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    a.class,
                    a.title,
                    a.challenge,
                    a.challenge_title,
                    a.robot,
                    a.points,
                    a.opens_at,
                    a.due_at,
                    json(&a.seeds),
                    a.students.as_ref().map(json),
                    a.version,
                    a.score_rule
                ],
            )
            .map_err(self.sqlite())?;
        Ok(self.connection.last_insert_rowid())
    }

    /// Changes a kept assignment.
    pub fn update_assignment(&self, a: &AssignmentRecord) -> Result<(), StoreError> {
        self.connection
            .execute(
                "UPDATE assignments SET title = ?2, challenge = ?3, challenge_title = ?4, robot = ?5, points = ?6,
                     opens_at = ?7, due_at = ?8, seeds = ?9, students = ?10, version = ?11, score_rule = ?12
                 WHERE id = ?1",
                params![
                    a.id,
                    a.title,
                    a.challenge,
                    a.challenge_title,
                    a.robot,
                    a.points,
                    a.opens_at,
                    a.due_at,
                    json(&a.seeds),
                    a.students.as_ref().map(json),
                    a.version,
                    a.score_rule
                ],
            )
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Class `class`'s assignments, oldest first.
    pub fn assignments(&self, class: &str) -> Result<Vec<AssignmentRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare(&format!("SELECT {ASSIGNMENT_COLUMNS} FROM assignments WHERE class = ?1 ORDER BY id"))
            .map_err(self.sqlite())?;
        let rows = statement.query_map(params![class], assignment_of_row).map_err(self.sqlite())?;
        let rows = rows.collect::<Result<Vec<_>, _>>().map_err(self.sqlite())?;
        rows.into_iter().map(|row| self.read_assignment(row)).collect()
    }

    /// Assignment `id`, of any class.
    pub fn assignment(&self, id: i64) -> Result<Option<AssignmentRecord>, StoreError> {
        let row = self
            .connection
            .query_row(&format!("SELECT {ASSIGNMENT_COLUMNS} FROM assignments WHERE id = ?1"), [id], assignment_of_row)
            .optional()
            .map_err(self.sqlite())?;
        row.map(|row| self.read_assignment(row)).transpose()
    }

    /// Keeps a submission with its files and its first evaluation, in one transaction;
    /// returns their ids.
    pub fn save_submission(
        &mut self,
        submission: &SubmissionRecord,
        files: &[(String, Vec<u8>)],
        evaluation: &EvaluationRecord,
    ) -> Result<(i64, i64), StoreError> {
        let path = self.path.clone();
        let sqlite = move |source| StoreError::Sqlite { path: path.clone(), source };
        let transaction = self.connection.transaction().map_err(&sqlite)?;
        let s = submission;
        transaction
            .execute(
                "INSERT INTO submissions (assignment, student, submitted_at, late, main_name)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![s.assignment, s.student, s.submitted_at, i64::from(s.late), s.main_name],
            )
            .map_err(&sqlite)?;
        let id = transaction.last_insert_rowid();
        for (name, bytes) in files {
            transaction
                .execute(
                    "INSERT INTO submission_files (submission, name, bytes) VALUES (?1, ?2, ?3)",
                    params![id, name, bytes],
                )
                .map_err(&sqlite)?;
        }
        let evaluation = insert_evaluation(&transaction, &EvaluationRecord { submission: id, ..evaluation.clone() })
            .map_err(&sqlite)?;
        transaction.commit().map_err(&sqlite)?;
        Ok((id, evaluation))
    }

    /// Assignment `assignment`'s submissions (of `student` only, if given), oldest first.
    pub fn submissions(
        &self,
        assignment: i64,
        student: Option<StudentId>,
    ) -> Result<Vec<SubmissionRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare(&format!(
                "SELECT {SUBMISSION_COLUMNS} FROM submissions
                 WHERE assignment = ?1 AND (?2 IS NULL OR student = ?2) ORDER BY id"
            ))
            .map_err(self.sqlite())?;
        let rows = statement.query_map(params![assignment, student], submission_of_row).map_err(self.sqlite())?;
        let rows = rows.collect::<Result<Vec<_>, _>>().map_err(self.sqlite())?;
        rows.into_iter().map(|row| self.with_file_names(row)).collect()
    }

    /// Submission `id`.
    pub fn submission(&self, id: i64) -> Result<Option<SubmissionRecord>, StoreError> {
        let row = self
            .connection
            .query_row(&format!("SELECT {SUBMISSION_COLUMNS} FROM submissions WHERE id = ?1"), [id], submission_of_row)
            .optional()
            .map_err(self.sqlite())?;
        row.map(|row| self.with_file_names(row)).transpose()
    }

    fn with_file_names(&self, mut submission: SubmissionRecord) -> Result<SubmissionRecord, StoreError> {
        let mut statement = self
            .connection
            .prepare("SELECT name FROM submission_files WHERE submission = ?1 ORDER BY name")
            .map_err(self.sqlite())?;
        let names = statement.query_map([submission.id], |row| row.get(0)).map_err(self.sqlite())?;
        submission.files = names.collect::<Result<Vec<String>, _>>().map_err(self.sqlite())?;
        Ok(submission)
    }

    /// Submission `id`'s files, by name.
    pub fn submission_files(&self, id: i64) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let mut statement = self
            .connection
            .prepare("SELECT name, bytes FROM submission_files WHERE submission = ?1 ORDER BY name")
            .map_err(self.sqlite())?;
        let rows = statement.query_map([id], |row| Ok((row.get(0)?, row.get(1)?))).map_err(self.sqlite())?;
        rows.collect::<Result<Vec<_>, _>>().map_err(self.sqlite())
    }

    /// Keeps a new evaluation of a kept submission; returns its id.
    pub fn save_evaluation(&self, evaluation: &EvaluationRecord) -> Result<i64, StoreError> {
        insert_evaluation(&self.connection, evaluation).map_err(self.sqlite())
    }

    /// Evaluation `id`.
    pub fn evaluation(&self, id: i64) -> Result<Option<EvaluationRecord>, StoreError> {
        let row = self
            .connection
            .query_row(&format!("SELECT {EVALUATION_COLUMNS} FROM evaluations WHERE id = ?1"), [id], evaluation_of_row)
            .optional()
            .map_err(self.sqlite())?;
        row.map(|row| self.read_evaluation(row)).transpose()
    }

    /// Submission `submission`'s latest evaluation.
    pub fn latest_evaluation(&self, submission: i64) -> Result<Option<EvaluationRecord>, StoreError> {
        let row = self
            .connection
            .query_row(
                &format!("SELECT {EVALUATION_COLUMNS} FROM evaluations WHERE submission = ?1 ORDER BY id DESC LIMIT 1"),
                [submission],
                evaluation_of_row,
            )
            .optional()
            .map_err(self.sqlite())?;
        row.map(|row| self.read_evaluation(row)).transpose()
    }

    /// Every evaluation not over (queued or running), oldest first, with its class.
    pub fn unfinished_evaluations(&self) -> Result<Vec<(String, EvaluationRecord)>, StoreError> {
        let columns = EVALUATION_COLUMNS.split(", ").map(|c| format!("e.{c}")).collect::<Vec<_>>().join(", ");
        let mut statement = self
            .connection
            .prepare(&format!(
                "SELECT {columns}, a.class FROM evaluations e
                 JOIN submissions s ON s.id = e.submission JOIN assignments a ON a.id = s.assignment
                 WHERE e.status IN ('queued', 'running') ORDER BY e.id"
            ))
            .map_err(self.sqlite())?;
        let rows = statement
            .query_map([], |row| Ok((row.get::<_, String>(11)?, evaluation_of_row(row)?)))
            .map_err(self.sqlite())?;
        let rows = rows.collect::<Result<Vec<_>, _>>().map_err(self.sqlite())?;
        rows.into_iter().map(|(class, row)| Ok((class, self.read_evaluation(row)?))).collect()
    }

    /// Evaluation `id` is now `status`.
    pub fn set_evaluation_status(&self, id: i64, status: EvaluationStatus) -> Result<(), StoreError> {
        self.connection
            .execute("UPDATE evaluations SET status = ?2 WHERE id = ?1", params![id, status_text(status)])
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Evaluation `id` is over: `status` (graded or failed), its grade and why it failed.
    pub fn finish_evaluation(
        &self,
        id: i64,
        status: EvaluationStatus,
        grade: f64,
        reason: Option<&str>,
    ) -> Result<(), StoreError> {
        self.connection
            .execute(
                "UPDATE evaluations SET status = ?2, grade = ?3, reason = ?4 WHERE id = ?1",
                params![id, status_text(status), grade, reason],
            )
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Trial `trial.number` of evaluation `id` ended as `trial` says, with its replay's
    /// JSON, in one transaction; returns every trial of the evaluation as kept now.
    pub fn save_trial(&mut self, id: i64, trial: &Trial, replay: Option<&[u8]>) -> Result<Vec<Trial>, StoreError> {
        let path = self.path.clone();
        let sqlite = move |source| StoreError::Sqlite { path: path.clone(), source };
        let transaction = self.connection.transaction().map_err(&sqlite)?;
        let text: String = transaction
            .query_row("SELECT trials FROM evaluations WHERE id = ?1", [id], |row| row.get(0))
            .map_err(&sqlite)?;
        let mut trials: Vec<Trial> = serde_json::from_str(&text)
            .map_err(|e| StoreError::Corrupt { path: self.path.clone(), what: format!("evaluation {id}: {e}") })?;
        match trials.iter_mut().find(|t| t.number == trial.number) {
            Some(kept) => *kept = trial.clone(),
            None => trials.push(trial.clone()),
        }
        transaction
            .execute("UPDATE evaluations SET trials = ?2 WHERE id = ?1", params![id, json(&trials)])
            .map_err(&sqlite)?;
        if let Some(replay) = replay {
            let bytes = zstd::bulk::compress(replay, COMPRESSION_LEVEL).expect("compressing into memory cannot fail");
            transaction
                .execute(
                    "INSERT OR REPLACE INTO trial_replays (evaluation, number, replay) VALUES (?1, ?2, ?3)",
                    params![id, trial.number, bytes],
                )
                .map_err(&sqlite)?;
        }
        transaction.commit().map_err(&sqlite)?;
        Ok(trials)
    }

    /// The JSON of trial `number` of evaluation `id`'s replay, if kept.
    pub fn trial_replay(&self, id: i64, number: u32) -> Result<Option<Vec<u8>>, StoreError> {
        let bytes: Option<Vec<u8>> = self
            .connection
            .query_row(
                "SELECT replay FROM trial_replays WHERE evaluation = ?1 AND number = ?2",
                params![id, number],
                |row| row.get(0),
            )
            .optional()
            .map_err(self.sqlite())?;
        bytes
            .map(|bytes| {
                zstd::bulk::decompress(&bytes, MAX_REPLAY_BYTES)
                    .map_err(|e| self.corrupt(format!("the replay of trial {number} of evaluation {id}: {e}")))
            })
            .transpose()
    }
}

fn insert_evaluation(connection: &rusqlite::Connection, e: &EvaluationRecord) -> rusqlite::Result<i64> {
    connection.execute(
        "INSERT INTO evaluations (submission, version, challenge, robot, points, started_at, status, grade, reason,
             trials)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            e.submission,
            e.version,
            e.challenge,
            e.robot,
            e.points,
            e.started_at,
            status_text(e.status),
            e.grade,
            e.reason,
            json(&e.trials)
        ],
    )?;
    Ok(connection.last_insert_rowid())
}

pub(super) fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("plain data serialises")
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_protocol::AttemptProgress;

    fn park() -> AssignmentRecord {
        AssignmentRecord {
            id: 0,
            class: "c".into(),
            title: "Parking".into(),
            challenge: "challenges/park".into(),
            challenge_title: "Park in the green bay".into(),
            score_rule: "time in seconds (lower is better)".into(),
            robot: "diffbot".into(),
            points: 10.0,
            opens_at: 100,
            due_at: Some(200),
            seeds: vec![u64::MAX, 7],
            students: Some(vec![1]),
            version: 1,
        }
    }

    fn trial(number: u32, status: AttemptProgress) -> Trial {
        Trial { number, status, score: None, reason: None, credit: None, seed: Some(7), replay_path: None }
    }

    #[test]
    fn a_submission_its_files_evaluation_trials_and_replays_read_back() {
        for backend in crate::store::test_pg::TestBackend::each() {
            a_submission_its_files_evaluation_trials_and_replays_read_back_on(backend.store());
        }
    }

    fn a_submission_its_files_evaluation_trials_and_replays_read_back_on(mut store: crate::store::Store) {
        let id = store.save_assignment(&park()).unwrap();
        assert_eq!(store.assignment(id).unwrap(), Some(AssignmentRecord { id, ..park() }), "seeds past i64 too");
        let submission = SubmissionRecord {
            id: 0,
            assignment: id,
            student: 1,
            submitted_at: 150,
            late: false,
            main_name: "main.py".into(),
            files: Vec::new(),
        };
        let evaluation = EvaluationRecord {
            id: 0,
            submission: 0,
            version: 1,
            challenge: "challenges/park".into(),
            robot: "diffbot".into(),
            points: 10.0,
            started_at: 150,
            status: EvaluationStatus::Queued,
            grade: None,
            reason: None,
            trials: vec![trial(1, AttemptProgress::Queued), trial(2, AttemptProgress::Queued)],
        };
        let files = vec![("main.py".to_owned(), b"pass\n".to_vec())];
        let (sid, eid) = store.save_submission(&submission, &files, &evaluation).unwrap();
        assert_eq!(store.submission(sid).unwrap().unwrap().files, ["main.py"]);
        assert_eq!(store.submission_files(sid).unwrap(), files);
        assert_eq!(store.unfinished_evaluations().unwrap()[0].0, "c");
        let done = store.save_trial(eid, &trial(2, AttemptProgress::Solved), Some(b"{\"a\":1}")).unwrap();
        assert_eq!(done[1].status, AttemptProgress::Solved);
        assert_eq!(store.trial_replay(eid, 2).unwrap().as_deref(), Some(&b"{\"a\":1}"[..]));
        assert_eq!(store.trial_replay(eid, 1).unwrap(), None);
        store.finish_evaluation(eid, EvaluationStatus::Graded, 5.0, None).unwrap();
        let kept = store.latest_evaluation(sid).unwrap().unwrap();
        assert_eq!((kept.status, kept.grade, kept.submission), (EvaluationStatus::Graded, Some(5.0), sid));
        assert!(store.unfinished_evaluations().unwrap().is_empty());
    }
}
