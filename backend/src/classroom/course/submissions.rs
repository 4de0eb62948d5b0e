//! Hand-ins: a student submits a program for an assignment given to her (files, or her
//! robot's current program in a lesson of the class). Each submission is kept with its
//! files and its first evaluation before it is answered, late ones flagged, and its
//! evaluation starts at once; the teacher re-runs evaluations, every run kept.

use vlab_protocol::permissions::Action;
use vlab_protocol::{EvaluateRequest, Evaluation, SceneUploadReply, StudentId, Submission, SubmitRobotRequest};

use super::assignments::given_to;
use super::evaluation::{bundle_of, fresh, view as evaluation_view};
use super::{ClassCaller, ClassroomCourse, now};
use crate::classroom::upload::{UploadFiles, programs};
use crate::classroom::{ClassroomError, RefusalKind};
use crate::store::SubmissionRecord;
use vlab_sim::scene::DirLoader;

/// A hand-in's files as kept: (name, bytes).
type Files = Vec<(String, Vec<u8>)>;

/// What a student hands in.
pub enum HandIn {
    /// Program files, as a form sends them (the `program` part is the main file).
    Files(UploadFiles),
    /// Her robot's current program in a lesson of the class.
    Robot(SubmitRobotRequest),
}

impl ClassroomCourse<'_> {
    /// `POST /api/classes/{class}/assignments/{id}/submissions` (the student herself):
    /// her submission, kept with its files and its evaluation queued.
    pub async fn submit(
        self,
        class: &str,
        caller: ClassCaller,
        assignment: i64,
        hand_in: HandIn,
    ) -> Result<Submission, ClassroomError> {
        caller.may(Action::Submit, caller.student())?;
        let student = caller.student().expect("only a student may submit");
        let state = self.course().class(class)?;
        let name = state
            .student(student)
            .map(|s| s.name.clone())
            .ok_or_else(|| ClassroomError::UnknownClassToken { class: class.into() })?;
        let record = self.assignment(class, assignment)?;
        if !given_to(&record, student) {
            return Err(ClassroomError::Forbidden(format!("assignment {assignment} is not given to you")));
        }
        let submitted_at = now();
        if submitted_at < record.opens_at {
            return Err(ClassroomError::Conflict(format!(
                "assignment {assignment} opens in {}: hand it in then",
                duration_words(record.opens_at - submitted_at)
            )));
        }
        let (main_name, files) = match hand_in {
            HandIn::Files(files) => self.handed_files(files)?,
            HandIn::Robot(request) => self.robot_program(class, student, &request).await?,
        };
        let mut submission = SubmissionRecord {
            id: 0,
            assignment,
            student,
            submitted_at,
            late: record.due_at.is_some_and(|due| submitted_at > due),
            main_name,
            files: files.iter().map(|(name, _)| name.clone()).collect(),
        };
        let mut evaluation = fresh(0, &record, submitted_at);
        let (id, evaluation_id) =
            self.course().keep(|store| store.save_submission(&submission, &files, &evaluation))?;
        (submission.id, evaluation.id, evaluation.submission) = (id, evaluation_id, id);
        self.classroom.evaluations.start(class, evaluation_id);
        tracing::info!(%class, assignment, student, submission = id, late = submission.late, "submission kept");
        submission.files.sort();
        Ok(submission_view(&submission, name, Some(evaluation_view(class, &evaluation, false))))
    }

    /// `GET /api/classes/{class}/assignments/{id}/submissions`: every submission to the
    /// teacher, hers to a student; oldest first, each with its latest evaluation.
    pub fn submissions(
        self,
        class: &str,
        caller: ClassCaller,
        assignment: i64,
    ) -> Result<Vec<Submission>, ClassroomError> {
        caller.may(Action::SeeGrades, caller.student())?;
        let state = self.course().class(class)?;
        self.assignment(class, assignment)?;
        let teacher = caller == ClassCaller::Teacher;
        let kept = self.course().keep(|store| store.submissions(assignment, caller.student()))?;
        let mut answered = Vec::with_capacity(kept.len());
        for submission in kept {
            let evaluation = self.course().keep(|store| store.latest_evaluation(submission.id))?;
            let name = state.students.get(&submission.student).map(|s| s.name.clone()).unwrap_or_default();
            let evaluation = evaluation.map(|e| evaluation_view(class, &e, teacher));
            answered.push(submission_view(&submission, name, evaluation));
        }
        Ok(answered)
    }

    /// `GET /api/classes/{class}/submissions/{id}/files/{name}`: a file of a submission,
    /// to the teacher and the student who handed it in.
    pub fn submission_file(
        self,
        class: &str,
        caller: ClassCaller,
        id: i64,
        name: &str,
    ) -> Result<Vec<u8>, ClassroomError> {
        let submission = self.submission(class, caller, id)?;
        let files = self.course().keep(|store| store.submission_files(submission.id))?;
        files.into_iter().find(|(file, _)| file == name).map(|(_, bytes)| bytes).ok_or_else(|| {
            ClassroomError::NotFound(format!(
                "submission {id} has no file '{name}': it has {}",
                submission.files.join(", ")
            ))
        })
    }

    /// `POST /api/classes/{class}/assignments/{id}/evaluate` (teacher): the latest
    /// submission of one student, or of each who handed one in, evaluated again, each a
    /// new evaluation (the earlier ones stay) over the assignment as it is now.
    pub fn evaluate(
        self,
        class: &str,
        caller: ClassCaller,
        assignment: i64,
        request: EvaluateRequest,
    ) -> Result<Vec<Evaluation>, ClassroomError> {
        caller.may(Action::Evaluate, None)?;
        let record = self.assignment(class, assignment)?;
        let submissions = self.course().keep(|store| store.submissions(assignment, request.student))?;
        let latest = latest_per_student(&submissions);
        if let (Some(student), true) = (request.student, latest.is_empty()) {
            return Err(ClassroomError::NotFound(format!(
                "student {student} handed nothing in for assignment {assignment}"
            )));
        }
        let started_at = now();
        let mut started = Vec::with_capacity(latest.len());
        for submission in latest {
            let mut evaluation = fresh(submission.id, &record, started_at);
            evaluation.id = self.course().keep(|store| store.save_evaluation(&evaluation))?;
            self.classroom.evaluations.start(class, evaluation.id);
            started.push(evaluation_view(class, &evaluation, true));
        }
        tracing::info!(%class, assignment, evaluations = started.len(), "evaluations started again");
        Ok(started)
    }

    /// `GET /api/classes/{class}/evaluations/{id}`: to the teacher (with its seeds) and
    /// the student whose submission it ran.
    pub fn evaluation(self, class: &str, caller: ClassCaller, id: i64) -> Result<Evaluation, ClassroomError> {
        let record = self.course().keep(|store| store.evaluation(id))?.ok_or_else(|| no_evaluation(class, id))?;
        self.submission(class, caller, record.submission).map_err(|e| match e {
            ClassroomError::NotFound(_) => no_evaluation(class, id),
            e => e,
        })?;
        Ok(evaluation_view(class, &record, caller == ClassCaller::Teacher))
    }

    /// `GET /api/classes/{class}/evaluations/{id}/trials/{n}/replay`: the trial's
    /// replay (an `AttemptReplay`'s JSON).
    pub fn trial_replay(
        self,
        class: &str,
        caller: ClassCaller,
        id: i64,
        number: u32,
    ) -> Result<Vec<u8>, ClassroomError> {
        self.evaluation(class, caller, id)?;
        self.course().keep(|store| store.trial_replay(id, number))?.ok_or_else(|| {
            ClassroomError::NotFound(format!(
                "trial {number} of evaluation {id} has no replay: it has not ended, or could not run"
            ))
        })
    }

    /// Submission `id` of class `class`, if the caller may see it.
    fn submission(self, class: &str, caller: ClassCaller, id: i64) -> Result<SubmissionRecord, ClassroomError> {
        let missing = || ClassroomError::NotFound(format!("no submission {id} in class '{class}'"));
        let submission = self.course().keep(|store| store.submission(id))?.ok_or_else(missing)?;
        let assignment = self.course().keep(|store| store.assignment(submission.assignment))?;
        if assignment.is_none_or(|a| a.class != class) {
            return Err(missing());
        }
        caller.may(Action::SeeGrades, Some(submission.student))?;
        Ok(submission)
    }

    /// A form's program files: the main file and the rest, checked as a robot's new
    /// program is (a program of a kind this server runs, with its files); kept as sent.
    fn handed_files(self, files: UploadFiles) -> Result<(String, Files), ClassroomError> {
        let bundle = files.into_program()?;
        let library = DirLoader { scenes: self.classroom.library.scenes_dir.clone(), assets: None };
        programs::program_of_file(&bundle.main_name, &bundle, &library).map_err(|error| {
            ClassroomError::upload(
                RefusalKind::Invalid,
                SceneUploadReply { errors: vec![error], ..SceneUploadReply::default() },
            )
        })?;
        let mut kept: Files =
            bundle.files.iter().map(|(name, text)| (name.clone(), text.clone().into_bytes())).collect();
        kept.extend(bundle.binaries.iter().map(|(name, bytes)| (name.clone(), bytes.to_vec())));
        Ok((bundle.main_name, kept))
    }

    /// The current program of her robot `request.robot` in lesson `request.lab`.
    async fn robot_program(
        self,
        class: &str,
        student: StudentId,
        request: &SubmitRobotRequest,
    ) -> Result<(String, Files), ClassroomError> {
        let lab = self.classroom.lab(&request.lab)?;
        if self.course().class_of_lab(lab.id()).as_deref() != Some(class) {
            return Err(ClassroomError::NotFound(format!("lab '{}' is not a lesson of class '{class}'", lab.id())));
        }
        let me = self.course().read().members.get(&(lab.id().to_owned(), student)).copied();
        let robot = &request.robot;
        if me.is_none() || lab.robots().owner_of(robot) != me {
            return Err(ClassroomError::Forbidden(format!(
                "you have no robot '{robot}' in lab '{}': hand in one of your own robots",
                lab.id()
            )));
        }
        let (code, _) =
            lab.programs().program(robot).await.map_err(|_| {
                ClassroomError::Conflict(format!("'{robot}' has no program to hand in: give it one first"))
            })?;
        let mut files: Files =
            code.files.iter().map(|(name, text)| (name.clone(), text.clone().into_bytes())).collect();
        if let Some(module) = code.module.as_ref().filter(|_| !code.files.contains_key(&code.main)) {
            files.push((code.main.clone(), module.to_vec()));
        }
        // Kept sources must resolve again as the same program.
        let bundle = bundle_of(&code.main, files.clone());
        let library = DirLoader { scenes: self.classroom.library.scenes_dir.clone(), assets: None };
        programs::program_of_file(&code.main, &bundle, &library)
            .map_err(|e| ClassroomError::Conflict(format!("'{robot}''s program cannot be handed in: {}", e.message)))?;
        Ok((code.main.clone(), files))
    }
}

/// The latest submission of each student (`submissions` oldest first), by student.
pub(super) fn latest_per_student(submissions: &[SubmissionRecord]) -> Vec<&SubmissionRecord> {
    let mut latest: std::collections::BTreeMap<StudentId, &SubmissionRecord> = Default::default();
    for submission in submissions {
        latest.insert(submission.student, submission);
    }
    latest.into_values().collect()
}

fn submission_view(s: &SubmissionRecord, name: String, evaluation: Option<Evaluation>) -> Submission {
    Submission {
        id: s.id,
        assignment: s.assignment,
        student: s.student,
        name,
        submitted_at: s.submitted_at,
        late: s.late,
        files: s.files.clone(),
        evaluation,
    }
}

fn no_evaluation(class: &str, id: i64) -> ClassroomError {
    ClassroomError::NotFound(format!("no evaluation {id} in class '{class}'"))
}

/// `seconds` in words: "3 min", "2 h 5 min", "4 days".
fn duration_words(seconds: i64) -> String {
    match seconds {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min", (s + 59) / 60),
        s if s < 86_400 => format!("{} h {} min", s / 3600, (s % 3600) / 60),
        s => format!("{} days", (s + 86_399) / 86_400),
    }
}
