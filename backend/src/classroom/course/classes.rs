//! Classes and their rosters: creating a class, signing in (code, name and PIN, or a
//! one-time link), and the teacher adding, renaming, removing students and resetting
//! their PINs.

use vlab_protocol::permissions::Action;
use vlab_protocol::{
    CreateClassRequest, CreatedClass, MAX_CLASS_STUDENTS, MAX_PIN_DIGITS, MIN_PIN_DIGITS, SignInRequest, SignedIn,
    Student, StudentCredentials, StudentId, TEACHER_ID, clean_display_name, valid_pin,
};

use super::pins::{hash_pin, new_pin, pin_matches};
use super::{ClassCaller, ClassState, ClassroomCourse, now};
use crate::classroom::ClassroomError;
use crate::classroom::labs::unique_slug;
use crate::store::{ClassRecord, StudentRecord};
use vlab_lab::Caller;
use vlab_lab::participants::{new_join_code, normalise_code};
use vlab_lab::secret::{TokenDigest, new_token};

impl ClassroomCourse<'_> {
    /// `POST /api/classes` (the server key, unless labs are open): a new class, kept
    /// before it is answered.
    pub fn create_class(self, key: Option<&str>, request: &CreateClassRequest) -> Result<CreatedClass, ClassroomError> {
        if !self.classroom.open_labs {
            self.classroom.require_server_key(key, "a class")?;
        }
        let name = clean_display_name(&request.name).ok_or_else(|| {
            ClassroomError::Invalid(format!(
                "a class needs a name of 1 to {} characters",
                vlab_protocol::MAX_NAME_CHARS
            ))
        })?;
        let mut classes = self.course().write();
        let id = unique_slug(&name, "class", |id| classes.by_id.contains_key(id));
        let code = std::iter::repeat_with(|| format!("{}{}", new_join_code(), &new_join_code()[..2]))
            .find(|code| classes.by_id.values().all(|c| c.record.code != *code))
            .expect("an endless supply of codes");
        let teacher_token = new_token();
        let record = ClassRecord { id: id.clone(), name: name.clone(), code, teacher: TokenDigest::of(&teacher_token) };
        self.course().keep(|store| store.save_class(&record, now()))?;
        let class_code = record.code.clone();
        classes.by_id.insert(id.clone(), ClassState { record, students: Default::default(), sessions: Vec::new() });
        tracing::info!(class = %id, %name, "class created");
        let teacher_path = format!("/?class={id}&token={teacher_token}");
        Ok(CreatedClass { id, name, class_code, teacher_token, teacher_path })
    }

    /// `POST /api/classes/sign-in`: a student signs in by code, name and PIN (joining the
    /// class with that PIN the first time), or with a one-time link. Her session is kept
    /// before it is handed out.
    pub async fn sign_in(self, request: &SignInRequest) -> Result<SignedIn, ClassroomError> {
        let (class, student) = match &request.link {
            Some(link) => self.by_link(link)?,
            None => self.by_pin(request).await?,
        };
        let token = new_token();
        let digest = TokenDigest::of(&token);
        self.course().keep(|store| store.save_class_session(&class, student.id, digest, now()))?;
        let mut classes = self.course().write();
        let state = classes.by_id.get_mut(&class).ok_or_else(|| super::no_class(&class))?;
        state.sessions.push((digest, student.id));
        tracing::info!(%class, student = student.id, "student signed in");
        Ok(SignedIn {
            class_path: format!("/?class={class}&token={token}"),
            class: class.clone(),
            token,
            student: view(state, &student),
        })
    }

    /// The student a one-time link signs in, the link used up (kept first).
    fn by_link(self, link: &str) -> Result<(String, StudentRecord), ClassroomError> {
        let digest = TokenDigest::of(link);
        let found = self.course().find(|classes| {
            classes.by_id.values().find_map(|class| {
                class.roster().find(|s| s.link == Some(digest)).map(|s| (class.record.id.clone(), s.clone()))
            })
        });
        let Some((class, student)) = found else {
            return Err(ClassroomError::SignIn(
                "this sign-in link was used already or replaced: ask your teacher for a new one".into(),
            ));
        };
        let used = StudentRecord { link: None, ..student };
        self.course().keep(|store| store.save_student(&class, &used))?;
        self.course().write().by_id.get_mut(&class).map(|c| c.students.insert(used.id, used.clone()));
        Ok((class, used))
    }

    /// The student a code, name and PIN sign in: on the roster with that PIN, or new to
    /// the class and joining with it.
    async fn by_pin(self, request: &SignInRequest) -> Result<(String, StudentRecord), ClassroomError> {
        let code = normalise_code(&request.class_code);
        let name = clean_display_name(&request.name).ok_or_else(|| {
            ClassroomError::Invalid(format!("your name needs 1 to {} characters", vlab_protocol::MAX_NAME_CHARS))
        })?;
        if !valid_pin(&request.pin) {
            return Err(ClassroomError::Invalid(format!("a PIN is {MIN_PIN_DIGITS} to {MAX_PIN_DIGITS} digits")));
        }
        // A name not on the roster (yet: another server may have just added her) is
        // looked for again, as a class not known here is.
        let on_roster = |classes: &super::Classes| {
            let class = classes.by_id.values().find(|c| c.record.code == code)?;
            let known = class.roster().find(|s| s.name.to_lowercase() == name.to_lowercase()).cloned();
            known.map(|known| (class.record.id.clone(), Some(known)))
        };
        let in_class = |classes: &super::Classes| {
            classes.by_id.values().find(|c| c.record.code == code).map(|class| (class.record.id.clone(), None))
        };
        let (class, known) = self
            .course()
            .find(on_roster)
            .or_else(|| in_class(&self.course().read()))
            .ok_or_else(|| ClassroomError::NoClass("no class has that code: check it with your teacher".into()))?;
        let guard = &self.course().pins;
        guard.check(&class, &name).map_err(|retry_after| ClassroomError::TooMany {
            message: format!("too many wrong PINs for '{name}': try again in {retry_after} s, or ask your teacher"),
            retry_after,
        })?;
        let pin = request.pin.clone();
        match known {
            Some(student) => {
                let hash = student.pin_hash.clone().unwrap_or_default();
                // Hashing is slow by design: never on a runtime thread.
                let matches = tokio::task::spawn_blocking(move || pin_matches(&hash, &pin))
                    .await
                    .map_err(|e| ClassroomError::Internal(format!("checking a PIN stopped: {e}")))?;
                if !matches {
                    guard.failed(&class, &name);
                    return Err(ClassroomError::SignIn(format!(
                        "wrong PIN for '{}' in this class: try again, or ask your teacher to reset it",
                        student.name
                    )));
                }
                guard.succeeded(&class, &name);
                Ok((class, student))
            }
            None => {
                let hash = tokio::task::spawn_blocking(move || hash_pin(&pin))
                    .await
                    .map_err(|e| ClassroomError::Internal(format!("hashing a PIN stopped: {e}")))?;
                let student = self.add(&class, &name, Some(hash), None)?;
                tracing::info!(%class, student = student.id, "student joined the class");
                Ok((class, student))
            }
        }
    }

    /// Puts a new student on class `class`'s roster (kept first).
    fn add(
        self,
        class: &str,
        name: &str,
        pin_hash: Option<String>,
        link: Option<TokenDigest>,
    ) -> Result<StudentRecord, ClassroomError> {
        let mut classes = self.course().write();
        let state = classes.by_id.get_mut(class).ok_or_else(|| super::no_class(class))?;
        if state.roster().any(|s| s.name.to_lowercase() == name.to_lowercase()) {
            return Err(ClassroomError::Conflict(format!("the class has a student named '{name}' already")));
        }
        if state.roster().count() >= MAX_CLASS_STUDENTS {
            return Err(ClassroomError::Conflict(format!(
                "the class has {MAX_CLASS_STUDENTS} students, the most a class takes"
            )));
        }
        let id = state.students.keys().max().map_or(1, |last| last + 1);
        let student = StudentRecord { id, name: name.to_owned(), pin_hash, link, removed: false };
        self.course().keep(|store| store.save_student(class, &student))?;
        state.students.insert(id, student.clone());
        Ok(student)
    }

    /// `GET /api/classes/{class}/students` (teacher): the roster.
    pub fn roster(self, class: &str, caller: ClassCaller) -> Result<Vec<Student>, ClassroomError> {
        caller.may(Action::ManageRoster, None)?;
        let state = self.course().class(class)?;
        Ok(state.roster().map(|s| view(&state, s)).collect())
    }

    /// `POST /api/classes/{class}/students` (teacher): a student added, with her PIN and
    /// one-time link (shown this once).
    pub async fn add_student(
        self,
        class: &str,
        caller: ClassCaller,
        name: &str,
    ) -> Result<StudentCredentials, ClassroomError> {
        caller.may(Action::ManageRoster, None)?;
        let name = student_name(name)?;
        let (pin, hash, link) = fresh_credentials().await?;
        let student = self.add(class, &name, Some(hash), Some(TokenDigest::of(&link)))?;
        let state = self.course().class(class)?;
        Ok(StudentCredentials { student: view(&state, &student), pin, sign_in_path: link_path(class, &link) })
    }

    /// `PATCH /api/classes/{class}/students/{id}` (teacher): her new name, in the class
    /// and in every lab of the class she entered.
    pub fn rename_student(
        self,
        class: &str,
        caller: ClassCaller,
        id: StudentId,
        name: &str,
    ) -> Result<Student, ClassroomError> {
        caller.may(Action::ManageRoster, None)?;
        let name = student_name(name)?;
        let renamed = {
            let mut classes = self.course().write();
            let state = classes.by_id.get_mut(class).ok_or_else(|| super::no_class(class))?;
            let student = state.student(id).cloned().ok_or_else(|| no_student(class, id))?;
            if state.roster().any(|s| s.id != id && s.name.to_lowercase() == name.to_lowercase()) {
                return Err(ClassroomError::Conflict(format!("the class has a student named '{name}' already")));
            }
            let renamed = StudentRecord { name: name.clone(), ..student };
            self.course().keep(|store| store.save_student(class, &renamed))?;
            state.students.insert(id, renamed.clone());
            view(state, &renamed)
        };
        for (lab, user) in self.labs_of(class, id) {
            if let Ok(lab) = self.classroom.lab(&lab) {
                self.classroom.course_rename_in_lab(&lab, user, &name);
            }
        }
        Ok(renamed)
    }

    /// `POST /api/classes/{class}/students/{id}/reset` (teacher): a new PIN and a new
    /// one-time link; whoever is signed in as her is signed out.
    pub async fn reset_student(
        self,
        class: &str,
        caller: ClassCaller,
        id: StudentId,
    ) -> Result<StudentCredentials, ClassroomError> {
        caller.may(Action::ManageRoster, None)?;
        let (pin, hash, link) = fresh_credentials().await?;
        let mut classes = self.course().write();
        let state = classes.by_id.get_mut(class).ok_or_else(|| super::no_class(class))?;
        let student = state.student(id).cloned().ok_or_else(|| no_student(class, id))?;
        let reset = StudentRecord { pin_hash: Some(hash), link: Some(TokenDigest::of(&link)), ..student };
        self.course().keep(|store| store.save_student_ending_sessions(class, &reset))?;
        state.students.insert(id, reset.clone());
        state.sessions.retain(|(_, s)| *s != id);
        self.course().pins.succeeded(class, &reset.name);
        tracing::info!(%class, student = id, "PIN reset");
        Ok(StudentCredentials { student: view(state, &reset), pin, sign_in_path: link_path(class, &link) })
    }

    /// `DELETE /api/classes/{class}/students/{id}` (teacher): she leaves the class: her
    /// sessions end, she leaves every lab of the class (her robots with her); her
    /// submissions and grades stay for the teacher.
    pub async fn remove_student(self, class: &str, caller: ClassCaller, id: StudentId) -> Result<(), ClassroomError> {
        caller.may(Action::ManageRoster, None)?;
        {
            let mut classes = self.course().write();
            let state = classes.by_id.get_mut(class).ok_or_else(|| super::no_class(class))?;
            let student = state.student(id).cloned().ok_or_else(|| no_student(class, id))?;
            let removed = StudentRecord { removed: true, pin_hash: None, link: None, ..student };
            self.course().keep(|store| store.save_student_ending_sessions(class, &removed))?;
            state.students.insert(id, removed);
            state.sessions.retain(|(_, s)| *s != id);
        }
        for (lab, user) in self.labs_of(class, id) {
            let Ok(lab) = self.classroom.lab(&lab) else { continue };
            match self.classroom.people().remove(&lab, Caller::Instructor, user).await {
                Ok(()) | Err(ClassroomError::NotFound(_)) => {}
                Err(e) => tracing::warn!(lab = %lab.id(), user, error = %e, "a removed student stays in a lab"),
            }
        }
        tracing::info!(%class, student = id, "student removed from the class");
        Ok(())
    }

    /// The labs of class `class` student `id` entered, and who she is in each.
    fn labs_of(self, class: &str, id: StudentId) -> Vec<(String, vlab_protocol::UserId)> {
        let classes = self.course().read();
        classes
            .members
            .iter()
            .filter(|((lab, student), _)| *student == id && classes.lab_class.get(lab).is_some_and(|c| c == class))
            .map(|((lab, _), user)| (lab.clone(), *user))
            .collect()
    }
}

/// A new PIN, its hash and a new one-time link.
async fn fresh_credentials() -> Result<(String, String, String), ClassroomError> {
    let pin = new_pin();
    let to_hash = pin.clone();
    let hash = tokio::task::spawn_blocking(move || hash_pin(&to_hash))
        .await
        .map_err(|e| ClassroomError::Internal(format!("hashing a PIN stopped: {e}")))?;
    Ok((pin, hash, new_token()))
}

/// A student's name as given, cleaned as display names are.
fn student_name(name: &str) -> Result<String, ClassroomError> {
    clean_display_name(name).ok_or_else(|| {
        ClassroomError::Invalid(format!("a student needs a name of 1 to {} characters", vlab_protocol::MAX_NAME_CHARS))
    })
}

fn link_path(class: &str, link: &str) -> String {
    format!("/?class={class}&link={link}")
}

fn no_student(class: &str, id: StudentId) -> ClassroomError {
    ClassroomError::NotFound(format!("no student {id} in class '{class}'"))
}

/// A student as the API shows her.
pub(super) fn view(state: &ClassState, student: &StudentRecord) -> Student {
    Student {
        id: student.id,
        name: student.name.clone(),
        has_pin: student.pin_hash.is_some(),
        signed_in: state.sessions.iter().any(|(_, s)| *s == student.id),
    }
}

/// The teacher as the API shows her.
pub(super) fn teacher() -> Student {
    Student { id: TEACHER_ID, name: "Teacher".into(), has_pin: false, signed_in: true }
}
