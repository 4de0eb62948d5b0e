//! A class's lessons: the labs it owns. The teacher creates them (she is their
//! instructor, with her class token); a student of the class enters any of them without
//! a join code and is the same participant each time.

use vlab_protocol::permissions::Action;
use vlab_protocol::{ClassView, CreateLabRequest, CreatedLab, Joined, LabSummary, StudentId, UserId};

use super::classes::{teacher, view};
use super::{ClassCaller, ClassroomCourse};
use crate::classroom::ClassroomError;
use crate::store::SessionRecord;
use vlab_lab::secret::TokenDigest;
use vlab_lab::{Caller, JoinError, LabHandle};

impl ClassroomCourse<'_> {
    /// `GET /api/classes/{class}`: the class as the caller sees it: its lessons, and the
    /// assignments given to her.
    pub fn view(self, class: &str, caller: ClassCaller) -> Result<ClassView, ClassroomError> {
        caller.may(Action::SeeClass, None)?;
        let state = self.course().class(class)?;
        let you = match caller {
            ClassCaller::Student(id) => view(
                &state,
                state.student(id).ok_or_else(|| ClassroomError::UnknownClassToken { class: class.into() })?,
            ),
            _ => teacher(),
        };
        let teacher = caller == ClassCaller::Teacher;
        Ok(ClassView {
            id: state.record.id.clone(),
            name: state.record.name.clone(),
            class_code: teacher.then(|| state.record.code.clone()),
            you,
            teacher,
            labs: self.lessons(class),
            assignments: self.assignments(class, caller)?,
        })
    }

    /// The open labs of class `class`, oldest first.
    pub fn lessons(self, class: &str) -> Vec<LabSummary> {
        let labs: Vec<String> = {
            let classes = self.course().read();
            classes.lab_class.iter().filter(|(_, c)| *c == class).map(|(lab, _)| lab.clone()).collect()
        };
        let mut lessons: Vec<LabSummary> =
            labs.iter().filter_map(|lab| self.classroom.registry.get(lab)).map(|lab| lab.summary()).collect();
        lessons.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        lessons
    }

    /// `POST /api/classes/{class}/labs` (teacher): a lesson, a lab of the class whose
    /// instructor is the teacher (her class token is its instructor token).
    pub async fn create_lesson(
        self,
        class: &str,
        caller: ClassCaller,
        teacher_token: &str,
        request: CreateLabRequest,
    ) -> Result<CreatedLab, ClassroomError> {
        caller.may(Action::ManageCourse, None)?;
        let digest = self.course().class(class)?.record.teacher;
        let created = self.classroom.labs().create_for(request, digest, teacher_token.to_owned()).await?;
        if let Err(e) = self.course().keep(|store| store.save_class_lab(class, &created.id)) {
            if let Ok(lab) = self.classroom.lab(&created.id) {
                let _ = self.classroom.labs().close(&lab, Caller::Instructor).await;
            }
            return Err(e);
        }
        self.course().write().lab_class.insert(created.id.clone(), class.to_owned());
        tracing::info!(%class, lab = %created.id, "lesson created");
        Ok(created)
    }

    /// `POST /api/labs/{lab}/enter`: a student of the lab's class enters it without its
    /// join code (the first time she is admitted, kept first; afterwards she is the same
    /// participant). Her class token is her token in the lab. The teacher enters as its
    /// instructor.
    pub async fn enter(self, lab: &LabHandle, token: Option<&str>) -> Result<Joined, ClassroomError> {
        let class = self.course().class_of_lab(lab.id()).ok_or_else(|| {
            ClassroomError::Conflict(format!(
                "lab '{}' belongs to no class: join it with its join code instead",
                lab.id()
            ))
        })?;
        let caller = self.course().caller(&class, token)?;
        caller.may(Action::EnterClassLab, None)?;
        let token = token.unwrap_or_default().to_owned();
        let user = match caller {
            ClassCaller::Student(student) => self.admit(lab, &class, student).await?,
            _ => vlab_protocol::INSTRUCTOR_ID,
        };
        let user = lab.people().participant(user).ok_or_else(|| {
            ClassroomError::Internal(format!("participant {user} went missing from lab '{}'", lab.id()))
        })?;
        Ok(Joined { lab: lab.id().into(), token, user })
    }

    /// Student `student`'s participant id in `lab`, admitting her the first time.
    async fn admit(self, lab: &LabHandle, class: &str, student: StudentId) -> Result<UserId, ClassroomError> {
        let known = self.course().read().members.get(&(lab.id().to_owned(), student)).copied();
        if let Some(user) = known.filter(|user| lab.people().name_of(*user).is_some()) {
            return Ok(user);
        }
        let name = self
            .course()
            .class(class)?
            .student(student)
            .map(|s| s.name.clone())
            .ok_or_else(|| ClassroomError::UnknownClassToken { class: class.into() })?;
        // Her lab token is never handed out: her class session stands for it.
        let (user, lab_token) = lab.people().admit_member(&name).map_err(|e| match e {
            JoinError::Full { .. } => ClassroomError::Conflict(e.to_string()),
            e => ClassroomError::Invalid(e.to_string()),
        })?;
        let name = lab.people().name_of(user).unwrap_or(name);
        let session = SessionRecord { lab: lab.id().into(), user, name, token: TokenDigest::of(&lab_token) };
        if let Err(e) = self.course().keep(|store| store.save_lab_member(student, &session)) {
            lab.people().forget(user);
            return Err(e);
        }
        self.course().write().members.insert((lab.id().to_owned(), student), user);
        if lab.settings().pause_on_join && lab.clock().state().mode != vlab_protocol::LabMode::Paused {
            let _ = lab.clock().control(vlab_protocol::ControlAction::Pause).await;
        }
        lab.people().broadcast_presence();
        tracing::info!(lab = %lab.id(), %class, student, user, "student entered a lesson");
        Ok(user)
    }
}

impl crate::classroom::Classroom {
    /// Participant `user` of `lab` is now called `name` (her class renamed her): kept,
    /// then shown. A failure is only logged: the class has her new name already.
    pub(super) fn course_rename_in_lab(&self, lab: &LabHandle, user: UserId, name: &str) {
        match self.course.keep(|store| store.rename_session(lab.id(), user, name)) {
            Ok(()) => {
                lab.people().rename(user, name);
            }
            Err(e) => tracing::warn!(lab = %lab.id(), user, error = %e, "a renamed student keeps her old name there"),
        }
    }
}
