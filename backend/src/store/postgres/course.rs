//! Classes, rosters, class sessions, assignments, submissions and evaluations on
//! PostgreSQL (see the SQLite store's `classes` and `assignments`).

use tokio_postgres::Row;
use vlab_lab::secret::TokenDigest;
use vlab_protocol::{EvaluationStatus, StudentId, Trial};

use super::PgStore;
use super::client::Pg;
use crate::store::SubmissionRecord;
use crate::store::assignments::{COMPRESSION_LEVEL, MAX_REPLAY_BYTES, json, status_of, status_text};
use crate::store::{AssignmentRecord, ClassRecord, EvaluationRecord, SessionRecord, StoreError, StudentRecord};

const ASSIGNMENT_COLUMNS: &str = "id, class, title, challenge, challenge_title, robot, points, opens_at, due_at, seeds, students, version, score_rule";
const SUBMISSION_COLUMNS: &str = "id, assignment, student, submitted_at, late, main_name";
const EVALUATION_COLUMNS: &str =
    "id, submission, version, challenge, robot, points, started_at, status, grade, reason, trials";

fn write_student(pg: &Pg, class: &str, s: &StudentRecord) -> Result<(), StoreError> {
    pg.execute(
        "INSERT INTO students (class, id, name, pin_digest, link_digest, removed) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (class, id) DO UPDATE SET name = $3, pin_digest = $4, link_digest = $5, removed = $6",
        &[&class, &i64::from(s.id), &s.name, &s.pin_hash, &s.link.map(|d| d.to_hex()), &s.removed],
    )
    .map(|_| ())
}

fn insert_evaluation(pg: &Pg, e: &EvaluationRecord) -> Result<i64, StoreError> {
    let row = pg.query_one(
        "INSERT INTO evaluations (submission, version, challenge, robot, points, started_at, status, grade, reason,
             trials)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
        &[
            &e.submission,
            &i64::from(e.version),
            &e.challenge,
            &e.robot,
            &e.points,
            &e.started_at,
            &status_text(e.status),
            &e.grade,
            &e.reason,
            &json(&e.trials),
        ],
    )?;
    pg.get(&row, 0)
}

impl PgStore {
    fn corrupt(&self, what: String) -> StoreError {
        StoreError::Corrupt { path: self.pg.shown().to_owned(), what }
    }

    /// Keeps a new class.
    pub fn save_class(&self, class: &ClassRecord, created_at: i64) -> Result<(), StoreError> {
        self.pg
            .execute(
                "INSERT INTO classes (id, name, code, teacher_digest, created_at) VALUES ($1, $2, $3, $4, $5)",
                &[&class.id, &class.name, &class.code, &class.teacher.to_hex(), &created_at],
            )
            .map(|_| ())
    }

    /// Every class, oldest first.
    pub fn classes(&self) -> Result<Vec<ClassRecord>, StoreError> {
        let rows = self.pg.query("SELECT id, name, code, teacher_digest FROM classes ORDER BY created_at, id", &[])?;
        rows.iter()
            .map(|row| {
                let id: String = self.pg.get(row, 0)?;
                let teacher = TokenDigest::from_hex(self.pg.get(row, 3)?)
                    .ok_or_else(|| self.corrupt(format!("class '{id}': its teacher's digest is not 64 hex digits")))?;
                Ok(ClassRecord { name: self.pg.get(row, 1)?, code: self.pg.get(row, 2)?, teacher, id })
            })
            .collect()
    }

    /// Class `class`'s roster, removed students included, by id.
    pub fn students(&self, class: &str) -> Result<Vec<StudentRecord>, StoreError> {
        let rows = self.pg.query(
            "SELECT id, name, pin_digest, link_digest, removed FROM students WHERE class = $1 ORDER BY id",
            &[&class],
        )?;
        rows.iter()
            .map(|row| {
                Ok(StudentRecord {
                    id: self.pg.get::<i64>(row, 0)? as StudentId,
                    name: self.pg.get(row, 1)?,
                    pin_hash: self.pg.get(row, 2)?,
                    link: self.pg.get::<Option<&str>>(row, 3)?.and_then(TokenDigest::from_hex),
                    removed: self.pg.get(row, 4)?,
                })
            })
            .collect()
    }

    /// Adds or changes a student of class `class`.
    pub fn save_student(&self, class: &str, student: &StudentRecord) -> Result<(), StoreError> {
        write_student(&self.pg, class, student)
    }

    /// Changes a student and ends her sessions, in one transaction.
    pub fn save_student_ending_sessions(&mut self, class: &str, student: &StudentRecord) -> Result<(), StoreError> {
        self.pg.transaction(|pg| {
            write_student(pg, class, student)?;
            pg.execute(
                "DELETE FROM class_sessions WHERE class = $1 AND student = $2",
                &[&class, &i64::from(student.id)],
            )
            .map(|_| ())
        })
    }

    /// Keeps a class session.
    pub fn save_class_session(
        &self,
        class: &str,
        student: StudentId,
        digest: TokenDigest,
        at: i64,
    ) -> Result<(), StoreError> {
        self.pg
            .execute(
                "INSERT INTO class_sessions (digest, class, student, created_at) VALUES ($1, $2, $3, $4)",
                &[&digest.to_hex(), &class, &i64::from(student), &at],
            )
            .map(|_| ())
    }

    /// Every class session: (class, student, digest).
    pub fn class_sessions(&self) -> Result<Vec<(String, StudentId, TokenDigest)>, StoreError> {
        let rows = self.pg.query("SELECT class, student, digest FROM class_sessions", &[])?;
        let mut sessions = Vec::new();
        for row in &rows {
            if let Some(digest) = TokenDigest::from_hex(self.pg.get(row, 2)?) {
                sessions.push((self.pg.get(row, 0)?, self.pg.get::<i64>(row, 1)? as StudentId, digest));
            }
        }
        Ok(sessions)
    }

    /// Lab `lab` belongs to class `class`.
    pub fn save_class_lab(&self, class: &str, lab: &str) -> Result<(), StoreError> {
        self.pg
            .execute(
                "INSERT INTO class_labs (lab, class) VALUES ($1, $2) ON CONFLICT (lab) DO UPDATE SET class = $2",
                &[&lab, &class],
            )
            .map(|_| ())
    }

    /// Every lab that belongs to a class: (lab, class).
    pub fn class_labs(&self) -> Result<Vec<(String, String)>, StoreError> {
        let rows = self.pg.query("SELECT lab, class FROM class_labs", &[])?;
        rows.iter().map(|row| Ok((self.pg.get(row, 0)?, self.pg.get(row, 1)?))).collect()
    }

    /// Who student `student` is in lab `lab`, if she entered it before.
    pub fn lab_member(&self, lab: &str, student: StudentId) -> Result<Option<u32>, StoreError> {
        let row = self.pg.query_opt(
            "SELECT user_id FROM class_lab_members WHERE lab = $1 AND student = $2",
            &[&lab, &i64::from(student)],
        )?;
        row.map(|row| Ok(self.pg.get::<i64>(&row, 0)? as u32)).transpose()
    }

    /// Student `student` entered lab `lab` as participant `user`, with her session
    /// there, in one transaction.
    pub fn save_lab_member(&mut self, student: StudentId, session: &SessionRecord) -> Result<(), StoreError> {
        self.pg.transaction(|pg| {
            pg.execute(
                "INSERT INTO class_lab_members (lab, student, user_id) VALUES ($1, $2, $3)
                 ON CONFLICT (lab, student) DO UPDATE SET user_id = $3",
                &[&session.lab, &i64::from(student), &i64::from(session.user)],
            )?;
            // Her session, only where the lab itself is kept (as in SQLite).
            pg.execute(
                "INSERT INTO sessions (lab, user_id, name, token_digest)
                 SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM labs WHERE id = $1)
                 ON CONFLICT (lab, user_id) DO UPDATE SET name = $3, token_digest = $4",
                &[&session.lab, &i64::from(session.user), &session.name, &session.token.to_hex()],
            )
            .map(|_| ())
        })
    }

    /// Renames participant `user` of lab `lab`.
    pub fn rename_session(&self, lab: &str, user: u32, name: &str) -> Result<(), StoreError> {
        self.pg
            .execute("UPDATE sessions SET name = $3 WHERE lab = $1 AND user_id = $2", &[&lab, &i64::from(user), &name])
            .map(|_| ())
    }

    /// Every member of lab `lab` who came from its class: (student, participant id).
    pub fn lab_members(&self, lab: &str) -> Result<Vec<(StudentId, u32)>, StoreError> {
        let rows = self.pg.query("SELECT student, user_id FROM class_lab_members WHERE lab = $1", &[&lab])?;
        rows.iter()
            .map(|row| Ok((self.pg.get::<i64>(row, 0)? as StudentId, self.pg.get::<i64>(row, 1)? as u32)))
            .collect()
    }

    fn assignment_of_row(&self, row: &Row) -> Result<AssignmentRecord, StoreError> {
        let pg = &self.pg;
        let id: i64 = pg.get(row, 0)?;
        let seeds = serde_json::from_str(pg.get(row, 9)?)
            .map_err(|e| self.corrupt(format!("assignment {id}: its seeds do not read: {e}")))?;
        let students = match pg.get::<Option<&str>>(row, 10)? {
            None => None,
            Some(text) => Some(
                serde_json::from_str(text)
                    .map_err(|e| self.corrupt(format!("assignment {id}: its students do not read: {e}")))?,
            ),
        };
        Ok(AssignmentRecord {
            id,
            class: pg.get(row, 1)?,
            title: pg.get(row, 2)?,
            challenge: pg.get(row, 3)?,
            challenge_title: pg.get(row, 4)?,
            robot: pg.get(row, 5)?,
            points: pg.get(row, 6)?,
            opens_at: pg.get(row, 7)?,
            due_at: pg.get(row, 8)?,
            seeds,
            students,
            version: pg.get::<i64>(row, 11)? as u32,
            score_rule: pg.get(row, 12)?,
        })
    }

    fn submission_of_row(&self, row: &Row) -> Result<SubmissionRecord, StoreError> {
        let pg = &self.pg;
        let id: i64 = pg.get(row, 0)?;
        let names = pg.query("SELECT name FROM submission_files WHERE submission = $1 ORDER BY name", &[&id])?;
        Ok(SubmissionRecord {
            id,
            assignment: pg.get(row, 1)?,
            student: pg.get::<i64>(row, 2)? as StudentId,
            submitted_at: pg.get(row, 3)?,
            late: pg.get(row, 4)?,
            main_name: pg.get(row, 5)?,
            files: names.iter().map(|r| pg.get(r, 0)).collect::<Result<_, _>>()?,
        })
    }

    fn evaluation_of_row(&self, row: &Row) -> Result<EvaluationRecord, StoreError> {
        let pg = &self.pg;
        let id: i64 = pg.get(row, 0)?;
        let status: &str = pg.get(row, 7)?;
        Ok(EvaluationRecord {
            id,
            submission: pg.get(row, 1)?,
            version: pg.get::<i64>(row, 2)? as u32,
            challenge: pg.get(row, 3)?,
            robot: pg.get(row, 4)?,
            points: pg.get(row, 5)?,
            started_at: pg.get(row, 6)?,
            status: status_of(status)
                .ok_or_else(|| self.corrupt(format!("evaluation {id}: unknown status '{status}'")))?,
            grade: pg.get(row, 8)?,
            reason: pg.get(row, 9)?,
            trials: serde_json::from_str(pg.get(row, 10)?)
                .map_err(|e| self.corrupt(format!("evaluation {id}: its trials do not read: {e}")))?,
        })
    }

    /// Keeps a new assignment; returns its id.
    pub fn save_assignment(&self, a: &AssignmentRecord) -> Result<i64, StoreError> {
        let row = self.pg.query_one(
            "INSERT INTO assignments (class, title, challenge, challenge_title, robot, points, opens_at, due_at,
                 seeds, students, version, score_rule)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
            &[
                &a.class,
                &a.title,
                &a.challenge,
                &a.challenge_title,
                &a.robot,
                &a.points,
                &a.opens_at,
                &a.due_at,
                &json(&a.seeds),
                &a.students.as_ref().map(json),
                &i64::from(a.version),
                &a.score_rule,
            ],
        )?;
        self.pg.get(&row, 0)
    }

    /// Changes a kept assignment.
    pub fn update_assignment(&self, a: &AssignmentRecord) -> Result<(), StoreError> {
        self.pg
            .execute(
                "UPDATE assignments SET title = $2, challenge = $3, challenge_title = $4, robot = $5, points = $6,
                     opens_at = $7, due_at = $8, seeds = $9, students = $10, version = $11, score_rule = $12
                 WHERE id = $1",
                &[
                    &a.id,
                    &a.title,
                    &a.challenge,
                    &a.challenge_title,
                    &a.robot,
                    &a.points,
                    &a.opens_at,
                    &a.due_at,
                    &json(&a.seeds),
                    &a.students.as_ref().map(json),
                    &i64::from(a.version),
                    &a.score_rule,
                ],
            )
            .map(|_| ())
    }

    /// Class `class`'s assignments, oldest first.
    pub fn assignments(&self, class: &str) -> Result<Vec<AssignmentRecord>, StoreError> {
        let rows = self
            .pg
            .query(&format!("SELECT {ASSIGNMENT_COLUMNS} FROM assignments WHERE class = $1 ORDER BY id"), &[&class])?;
        rows.iter().map(|row| self.assignment_of_row(row)).collect()
    }

    /// Assignment `id`, of any class.
    pub fn assignment(&self, id: i64) -> Result<Option<AssignmentRecord>, StoreError> {
        let row = self.pg.query_opt(&format!("SELECT {ASSIGNMENT_COLUMNS} FROM assignments WHERE id = $1"), &[&id])?;
        row.map(|row| self.assignment_of_row(&row)).transpose()
    }

    /// Keeps a submission with its files and its first evaluation, in one transaction;
    /// returns their ids.
    pub fn save_submission(
        &mut self,
        s: &SubmissionRecord,
        files: &[(String, Vec<u8>)],
        evaluation: &EvaluationRecord,
    ) -> Result<(i64, i64), StoreError> {
        self.pg.transaction(|pg| {
            let row = pg.query_one(
                "INSERT INTO submissions (assignment, student, submitted_at, late, main_name)
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
                &[&s.assignment, &i64::from(s.student), &s.submitted_at, &s.late, &s.main_name],
            )?;
            let id: i64 = pg.get(&row, 0)?;
            for (name, bytes) in files {
                pg.execute(
                    "INSERT INTO submission_files (submission, name, bytes) VALUES ($1, $2, $3)",
                    &[&id, name, bytes],
                )?;
            }
            let evaluation = insert_evaluation(pg, &EvaluationRecord { submission: id, ..evaluation.clone() })?;
            Ok((id, evaluation))
        })
    }

    /// Assignment `assignment`'s submissions (of `student` only, if given), oldest first.
    pub fn submissions(
        &self,
        assignment: i64,
        student: Option<StudentId>,
    ) -> Result<Vec<SubmissionRecord>, StoreError> {
        let rows = self.pg.query(
            &format!(
                "SELECT {SUBMISSION_COLUMNS} FROM submissions
                 WHERE assignment = $1 AND ($2::BIGINT IS NULL OR student = $2) ORDER BY id"
            ),
            &[&assignment, &student.map(i64::from)],
        )?;
        rows.iter().map(|row| self.submission_of_row(row)).collect()
    }

    /// Submission `id`.
    pub fn submission(&self, id: i64) -> Result<Option<SubmissionRecord>, StoreError> {
        let row = self.pg.query_opt(&format!("SELECT {SUBMISSION_COLUMNS} FROM submissions WHERE id = $1"), &[&id])?;
        row.map(|row| self.submission_of_row(&row)).transpose()
    }

    /// Submission `id`'s files, by name.
    pub fn submission_files(&self, id: i64) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let rows =
            self.pg.query("SELECT name, bytes FROM submission_files WHERE submission = $1 ORDER BY name", &[&id])?;
        rows.iter().map(|row| Ok((self.pg.get(row, 0)?, self.pg.get(row, 1)?))).collect()
    }

    /// Keeps a new evaluation of a kept submission; returns its id.
    pub fn save_evaluation(&self, evaluation: &EvaluationRecord) -> Result<i64, StoreError> {
        insert_evaluation(&self.pg, evaluation)
    }

    /// Evaluation `id`.
    pub fn evaluation(&self, id: i64) -> Result<Option<EvaluationRecord>, StoreError> {
        let row = self.pg.query_opt(&format!("SELECT {EVALUATION_COLUMNS} FROM evaluations WHERE id = $1"), &[&id])?;
        row.map(|row| self.evaluation_of_row(&row)).transpose()
    }

    /// Submission `submission`'s latest evaluation.
    pub fn latest_evaluation(&self, submission: i64) -> Result<Option<EvaluationRecord>, StoreError> {
        let row = self.pg.query_opt(
            &format!("SELECT {EVALUATION_COLUMNS} FROM evaluations WHERE submission = $1 ORDER BY id DESC LIMIT 1"),
            &[&submission],
        )?;
        row.map(|row| self.evaluation_of_row(&row)).transpose()
    }

    /// Every evaluation not over (queued or running), oldest first, with its class.
    pub fn unfinished_evaluations(&self) -> Result<Vec<(String, EvaluationRecord)>, StoreError> {
        let columns = EVALUATION_COLUMNS.split(", ").map(|c| format!("e.{c}")).collect::<Vec<_>>().join(", ");
        let rows = self.pg.query(
            &format!(
                "SELECT {columns}, a.class FROM evaluations e
                 JOIN submissions s ON s.id = e.submission JOIN assignments a ON a.id = s.assignment
                 WHERE e.status IN ('queued', 'running') ORDER BY e.id"
            ),
            &[],
        )?;
        rows.iter().map(|row| Ok((self.pg.get(row, 11)?, self.evaluation_of_row(row)?))).collect()
    }

    /// Evaluation `id` is now `status`.
    pub fn set_evaluation_status(&self, id: i64, status: EvaluationStatus) -> Result<(), StoreError> {
        self.pg.execute("UPDATE evaluations SET status = $2 WHERE id = $1", &[&id, &status_text(status)]).map(|_| ())
    }

    /// Evaluation `id` is over: `status` (graded or failed), its grade and why it failed.
    pub fn finish_evaluation(
        &self,
        id: i64,
        status: EvaluationStatus,
        grade: f64,
        reason: Option<&str>,
    ) -> Result<(), StoreError> {
        self.pg
            .execute(
                "UPDATE evaluations SET status = $2, grade = $3, reason = $4 WHERE id = $1",
                &[&id, &status_text(status), &grade, &reason],
            )
            .map(|_| ())
    }

    /// Trial `trial.number` of evaluation `id` ended as `trial` says, with its replay's
    /// JSON, in one transaction; every trial of the evaluation as kept now.
    pub fn save_trial(&mut self, id: i64, trial: &Trial, replay: Option<&[u8]>) -> Result<Vec<Trial>, StoreError> {
        let shown = self.pg.shown().to_owned();
        self.pg.transaction(|pg| {
            // Locked to the transaction's end: two servers' trials of one evaluation
            // do not overwrite each other's.
            let row = pg.query_one("SELECT trials FROM evaluations WHERE id = $1 FOR UPDATE", &[&id])?;
            let mut trials: Vec<Trial> = serde_json::from_str(pg.get(&row, 0)?)
                .map_err(|e| StoreError::Corrupt { path: shown.clone(), what: format!("evaluation {id}: {e}") })?;
            match trials.iter_mut().find(|t| t.number == trial.number) {
                Some(kept) => *kept = trial.clone(),
                None => trials.push(trial.clone()),
            }
            pg.execute("UPDATE evaluations SET trials = $2 WHERE id = $1", &[&id, &json(&trials)])?;
            if let Some(replay) = replay {
                let bytes =
                    zstd::bulk::compress(replay, COMPRESSION_LEVEL).expect("compressing into memory cannot fail");
                pg.execute(
                    "INSERT INTO trial_replays (evaluation, number, replay) VALUES ($1, $2, $3)
                     ON CONFLICT (evaluation, number) DO UPDATE SET replay = $3",
                    &[&id, &i64::from(trial.number), &bytes],
                )?;
            }
            Ok(trials)
        })
    }

    /// The JSON of trial `number` of evaluation `id`'s replay, if kept.
    pub fn trial_replay(&self, id: i64, number: u32) -> Result<Option<Vec<u8>>, StoreError> {
        let row = self.pg.query_opt(
            "SELECT replay FROM trial_replays WHERE evaluation = $1 AND number = $2",
            &[&id, &i64::from(number)],
        )?;
        row.map(|row| {
            let bytes: &[u8] = self.pg.get(&row, 0)?;
            zstd::bulk::decompress(bytes, MAX_REPLAY_BYTES)
                .map_err(|e| self.corrupt(format!("the replay of trial {number} of evaluation {id}: {e}")))
        })
        .transpose()
    }
}
