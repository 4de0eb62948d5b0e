//! A class's assignments: a library challenge given to the class (or some of its
//! students) with points, dates and hidden trials whose seeds the server draws and
//! never shows to students. The teacher creates and changes them; each student sees
//! those given to her.

use vlab_lab::attempt;
use vlab_protocol::permissions::Action;
use vlab_protocol::{Assignment, AssignmentRequest, MAX_TRIALS, StudentId, clean_display_name};
use vlab_sim::scene::SceneModel;

use super::{ClassCaller, ClassState, ClassroomCourse, now};
use crate::classroom::ClassroomError;
use crate::store::AssignmentRecord;

/// Trials an assignment runs when the teacher does not say.
pub const DEFAULT_TRIALS: u32 = 5;

/// Points an assignment is worth when the teacher does not say.
pub const DEFAULT_POINTS: f64 = 10.0;

impl ClassroomCourse<'_> {
    /// `POST /api/classes/{class}/assignments` (teacher): a new assignment, kept before
    /// it is answered.
    pub async fn create_assignment(
        self,
        class: &str,
        caller: ClassCaller,
        request: AssignmentRequest,
    ) -> Result<Assignment, ClassroomError> {
        caller.may(Action::ManageCourse, None)?;
        let state = self.course().class(class)?;
        let name = request.challenge.as_deref().ok_or_else(|| {
            ClassroomError::Invalid(
                "an assignment needs a \"challenge\": a library scene with a challenge, such as \"challenges/park\""
                    .into(),
            )
        })?;
        let trials = trial_count(request.trials.unwrap_or(DEFAULT_TRIALS))?;
        let seeds = new_seeds(trials);
        let (challenge, model) = self.challenge(name, seeds[0]).await?;
        let robot = robot_of(&challenge, &model, request.robot.as_deref(), None)?;
        let opens_at = request.opens_at.unwrap_or_else(now);
        let mut record = AssignmentRecord {
            id: 0,
            class: class.to_owned(),
            title: String::new(),
            challenge_title: model.challenge.as_ref().map(|c| c.title.clone()).unwrap_or_default(),
            score_rule: score_rule(&model),
            challenge,
            robot,
            points: points(request.points.unwrap_or(DEFAULT_POINTS))?,
            opens_at,
            due_at: request.due_at.flatten(),
            seeds,
            students: request.students.flatten().map(|ids| students(&state, ids)).transpose()?,
            version: 1,
        };
        record.title = match request.title.as_deref() {
            Some(title) => title_of(title)?,
            None => record.challenge_title.clone(),
        };
        dates(&record)?;
        record.id = self.course().keep(|store| store.save_assignment(&record))?;
        tracing::info!(%class, assignment = record.id, challenge = %record.challenge, "assignment created");
        Ok(view(&record, true))
    }

    /// `PATCH /api/classes/{class}/assignments/{id}` (teacher): the fields given change.
    /// A new challenge, robot or number of trials is a new version (new seeds only when
    /// the number of trials changes); evaluations say which version they graded.
    pub async fn change_assignment(
        self,
        class: &str,
        caller: ClassCaller,
        id: i64,
        request: AssignmentRequest,
    ) -> Result<Assignment, ClassroomError> {
        caller.may(Action::ManageCourse, None)?;
        let state = self.course().class(class)?;
        let old = self.assignment(class, id)?;
        let mut new = old.clone();
        if let Some(trials) = request.trials {
            let trials = trial_count(trials)?;
            if trials as usize != old.seeds.len() {
                new.seeds = new_seeds(trials);
            }
        }
        if request.challenge.is_some() || request.robot.is_some() {
            let name = request.challenge.as_deref().unwrap_or(&old.challenge);
            let (challenge, model) = self.challenge(name, new.seeds[0]).await?;
            new.robot = robot_of(&challenge, &model, request.robot.as_deref(), Some(&old.robot))?;
            new.challenge_title = model.challenge.as_ref().map(|c| c.title.clone()).unwrap_or_default();
            new.score_rule = score_rule(&model);
            new.challenge = challenge;
        }
        if let Some(title) = request.title.as_deref() {
            new.title = title_of(title)?;
        }
        if let Some(value) = request.points {
            new.points = points(value)?;
        }
        new.opens_at = request.opens_at.unwrap_or(old.opens_at);
        new.due_at = request.due_at.unwrap_or(old.due_at);
        if let Some(ids) = request.students {
            new.students = ids.map(|ids| students(&state, ids)).transpose()?;
        }
        dates(&new)?;
        if new.challenge != old.challenge || new.robot != old.robot || new.seeds != old.seeds {
            new.version = old.version + 1;
        }
        self.course().keep(|store| store.update_assignment(&new))?;
        tracing::info!(%class, assignment = id, version = new.version, "assignment changed");
        Ok(view(&new, true))
    }

    /// `GET /api/classes/{class}/assignments`: every assignment to the teacher, those
    /// given to her to a student; oldest first.
    pub fn assignments(self, class: &str, caller: ClassCaller) -> Result<Vec<Assignment>, ClassroomError> {
        caller.may(Action::SeeClass, None)?;
        self.course().class(class)?;
        let all = self.course().keep(|store| store.assignments(class))?;
        let teacher = caller == ClassCaller::Teacher;
        Ok(all
            .iter()
            .filter(|a| teacher || caller.student().is_some_and(|me| given_to(a, me)))
            .map(|a| view(a, teacher))
            .collect())
    }

    /// Assignment `id` of class `class`.
    pub(super) fn assignment(self, class: &str, id: i64) -> Result<AssignmentRecord, ClassroomError> {
        self.course()
            .keep(|store| store.assignment(id))?
            .filter(|a| a.class == class)
            .ok_or_else(|| ClassroomError::NotFound(format!("no assignment {id} in class '{class}'")))
    }

    /// Library scene `name` drawn with `seed`, if it sets a challenge: its name as
    /// kept (without `.vlab`) and its model. Anything else is the request's fault (422).
    async fn challenge(self, name: &str, seed: u64) -> Result<(String, SceneModel), ClassroomError> {
        let (file, model) = self.classroom.labs().library_model(name, seed).await.map_err(|e| match e {
            ClassroomError::NotFound(message) => ClassroomError::Invalid(message),
            e => e,
        })?;
        let name = file.trim_end_matches(".vlab").to_owned();
        if model.challenge.is_none() {
            return Err(ClassroomError::Invalid(format!(
                "scene '{name}' sets no challenge: an assignment needs a scene with a `challenge` block \
                 (docs/challenges.md)"
            )));
        }
        Ok((name, model))
    }
}

/// Whether assignment `assignment` is given to student `student`.
pub(super) fn given_to(assignment: &AssignmentRecord, student: StudentId) -> bool {
    assignment.students.as_ref().is_none_or(|ids| ids.contains(&student))
}

/// An assignment as the API shows it (to a student, without who else has it).
pub(super) fn view(record: &AssignmentRecord, teacher: bool) -> Assignment {
    Assignment {
        id: record.id,
        title: record.title.clone(),
        challenge: record.challenge.clone(),
        challenge_title: record.challenge_title.clone(),
        score_rule: record.score_rule.clone(),
        robot: record.robot.clone(),
        points: record.points,
        opens_at: record.opens_at,
        due_at: record.due_at,
        trials: record.seeds.len() as u32,
        students: record.students.clone().filter(|_| teacher),
        version: record.version,
    }
}

/// The robot of `model` submissions drive: the one asked for, else the one it had
/// (`kept`) if the scene still has it, else the scene's only robot.
fn robot_of(name: &str, model: &SceneModel, asked: Option<&str>, kept: Option<&str>) -> Result<String, ClassroomError> {
    let robots: Vec<&str> = model.robots.iter().map(|r| r.name.as_str()).collect();
    let robot = match (asked, kept.filter(|k| robots.contains(k)), robots.as_slice()) {
        (Some(asked), _, _) if robots.contains(&asked) => asked.to_owned(),
        (Some(asked), _, _) => {
            return Err(ClassroomError::Invalid(format!(
                "scene '{name}' has no robot '{asked}': its robots are {}",
                robots.join(", ")
            )));
        }
        (None, Some(kept), _) => kept.to_owned(),
        (None, None, [only]) => (*only).to_owned(),
        (None, None, []) => {
            return Err(ClassroomError::Invalid(format!("scene '{name}' has no robot for a program to drive")));
        }
        (None, None, several) => {
            return Err(ClassroomError::Invalid(format!(
                "scene '{name}' has {} robots ({}): say which one submissions drive with \"robot\"",
                several.len(),
                several.join(", ")
            )));
        }
    };
    // A challenge reading a sensor the robot lacks could never be passed.
    attempt::world_for(model, &robot, None).map_err(|e| ClassroomError::Invalid(e.to_string()))?;
    Ok(robot)
}

fn trial_count(trials: u32) -> Result<u32, ClassroomError> {
    if (1..=MAX_TRIALS).contains(&trials) {
        Ok(trials)
    } else {
        Err(ClassroomError::Invalid(format!("an assignment runs 1 to {MAX_TRIALS} trials, not {trials}")))
    }
}

/// Seeds for `trials` hidden trials, drawn by the server.
fn new_seeds(trials: u32) -> Vec<u64> {
    (0..trials).map(|_| rand::random()).collect()
}

fn points(points: f64) -> Result<f64, ClassroomError> {
    if points.is_finite() && points > 0.0 {
        Ok(points)
    } else {
        Err(ClassroomError::Invalid(format!("an assignment is worth a number of points above 0, not {points}")))
    }
}

fn title_of(title: &str) -> Result<String, ClassroomError> {
    clean_display_name(title).ok_or_else(|| {
        ClassroomError::Invalid(format!("an assignment's title has 1 to {} characters", vlab_protocol::MAX_NAME_CHARS))
    })
}

fn dates(record: &AssignmentRecord) -> Result<(), ClassroomError> {
    match record.due_at {
        Some(due) if due <= record.opens_at => Err(ClassroomError::Invalid(format!(
            "an assignment is due after it opens: due_at {due} is not after opens_at {}",
            record.opens_at
        ))),
        _ => Ok(()),
    }
}

/// The students an assignment is given to: on the roster, each once, in order.
fn students(state: &ClassState, mut ids: Vec<StudentId>) -> Result<Vec<StudentId>, ClassroomError> {
    ids.sort_unstable();
    ids.dedup();
    if let Some(unknown) = ids.iter().find(|id| state.student(**id).is_none()) {
        return Err(ClassroomError::Invalid(format!(
            "no student {unknown} on the roster of class '{}': GET its students lists them",
            state.record.id
        )));
    }
    Ok(ids)
}

/// The challenge's score rule in words, as its board words it (empty without one).
fn score_rule(model: &SceneModel) -> String {
    model.challenge.as_ref().map(|challenge| crate::classroom::board::score_words(challenge).0).unwrap_or_default()
}
