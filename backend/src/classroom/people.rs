//! People: joining a lab with its code (within the lab's `max_participants`), the
//! instructor removing a student and changing the join code, the instructor's settings
//! and notices.

use vlab_protocol::permissions::Action;
use vlab_protocol::{
    ControlAction, INSTRUCTOR_ID, JoinCode, JoinRequest, Joined, LabMode, LabSettings, LabSettingsPatch,
    MAX_NOTICE_CHARS, UserId, clean_notice,
};

use super::access::authorize;
use super::{Classroom, ClassroomError};
use crate::store::SessionRecord;
use vlab_lab::participants::new_join_code;
use vlab_lab::secret::TokenDigest;
use vlab_lab::{Caller, JoinError, LabError, LabHandle};

/// Who takes part in the classroom's labs, and what the instructor tells them.
#[derive(Clone, Copy)]
pub struct ClassroomPeople<'a> {
    pub(super) classroom: &'a Classroom,
}

impl ClassroomPeople<'_> {
    /// `POST /api/labs/{lab}/join`: a student joins with the code and a display name. The
    /// session is kept before it is handed out; then everybody is told, and the lab is
    /// paused if the instructor asked for that.
    pub async fn join(self, lab: &LabHandle, request: &JoinRequest) -> Result<Joined, ClassroomError> {
        let (id, token) = lab.people().admit(&request.join_code, &request.name).map_err(|e| match e {
            JoinError::WrongCode => ClassroomError::Forbidden(e.to_string()),
            JoinError::BadName => ClassroomError::Invalid(e.to_string()),
            JoinError::Full { .. } => ClassroomError::Conflict(e.to_string()),
        })?;
        let name = lab.people().name_of(id).unwrap_or_default();
        let session = SessionRecord { lab: lab.id().into(), user: id, name, token: TokenDigest::of(&token) };
        if let Err(e) = self.classroom.keep(|store| store.save_session(&session)) {
            lab.people().forget(id);
            return Err(e);
        }
        if lab.settings().pause_on_join && lab.clock().state().mode != LabMode::Paused {
            // The join stands even if the lab's thread is gone; the pause is a courtesy.
            let _ = lab.clock().control(ControlAction::Pause).await;
        }
        lab.people().broadcast_presence();
        let user = lab.people().participant(id).expect("just joined");
        tracing::info!(lab = %lab.id(), user = id, "student joined");
        Ok(Joined { lab: lab.id().into(), token, user })
    }

    /// `POST /api/join`: the same, finding the lab by its code.
    pub async fn join_by_code(self, request: &JoinRequest) -> Result<Joined, ClassroomError> {
        let lab =
            self.classroom.registry.by_join_code(&request.join_code).ok_or_else(|| {
                ClassroomError::NoLab("no lab has that join code: check it with your instructor".into())
            })?;
        self.join(&lab, request).await
    }

    /// `DELETE /api/labs/{lab}/participants/{id}` (instructor): student `id` leaves the
    /// lab. Their session's end and their robots' removals are kept first (one
    /// transaction), then done: their token means nothing from then on (401), each page of
    /// theirs is told and goes on as a viewer's, their robots are taken out, and everybody
    /// gets the new presence.
    pub async fn remove(self, lab: &LabHandle, caller: Caller, id: UserId) -> Result<(), ClassroomError> {
        authorize(caller, Action::RemoveParticipant)?;
        if id == INSTRUCTOR_ID {
            return Err(ClassroomError::Invalid("the instructor cannot be removed from their own lab".into()));
        }
        if lab.people().name_of(id).is_none() {
            return Err(ClassroomError::NotFound(format!("no participant {id} in lab '{}'", lab.id())));
        }
        let robots = lab.robots().robots_owned_by(id);
        let kept = self.classroom.keep(|store| store.remove_session(lab.id(), id, &robots))?;
        if !lab.people().remove(id) {
            // Removed meanwhile by another request, which removes their robots too.
            if let Some(seqs) = kept {
                for seq in seqs {
                    self.classroom.unkeep(lab.id(), "removal", |store| store.forget_insertion(seq));
                }
            }
            return Err(ClassroomError::NotFound(format!("no participant {id} in lab '{}'", lab.id())));
        }
        for (i, robot) in robots.iter().enumerate() {
            match lab.robots().remove(robot).await {
                Ok(()) => self.classroom.robot_gone(lab.id(), robot, Some(id)),
                // Removed meanwhile (by the instructor): that removal is kept already.
                Err(LabError::NoRobot { .. }) => {
                    if let Some(seq) = kept.as_ref().and_then(|seqs| seqs.get(i).copied()) {
                        self.classroom.unkeep(lab.id(), "removal", |store| store.forget_insertion(seq));
                    }
                }
                Err(e) => return Err(e.into()),
            }
        }
        // A robot of theirs whose upload was under way when they were removed.
        for robot in lab.robots().robots_owned_by(id) {
            self.classroom.robots().take_out(lab, &robot).await?;
        }
        self.classroom.compact(lab.id());
        lab.people().broadcast_presence();
        tracing::info!(lab = %lab.id(), user = id, robots = robots.len(), "student removed");
        Ok(())
    }

    /// `POST /api/labs/{lab}/join-code` (instructor): a new join code, kept, then in force:
    /// the old code admits nobody from then on. Sessions of students who joined stay.
    pub fn change_join_code(self, lab: &LabHandle, caller: Caller) -> Result<JoinCode, ClassroomError> {
        authorize(caller, Action::ChangeJoinCode)?;
        let old = lab.people().join_code();
        // Unlike the old one, and unlike every other lab's (`POST /api/join` finds a lab
        // by its code).
        let code = std::iter::repeat_with(new_join_code)
            .find(|code| *code != old && self.classroom.registry.by_join_code(code).is_none())
            .expect("an endless supply of codes");
        self.classroom.keep(|store| store.save_join_code(lab.id(), &code))?;
        lab.people().set_join_code(&code);
        tracing::info!(lab = %lab.id(), "join code changed");
        Ok(JoinCode { join_code: code })
    }

    /// `PATCH /api/labs/{lab}/settings` (instructor): kept, then applied and announced.
    pub fn update_settings(
        self,
        lab: &LabHandle,
        caller: Caller,
        patch: LabSettingsPatch,
    ) -> Result<LabSettings, ClassroomError> {
        authorize(caller, Action::ChangeSettings)?;
        let settings = lab.settings().patched(patch).map_err(ClassroomError::Invalid)?;
        let json = serde_json::to_string(&settings).expect("settings serialise");
        self.classroom.keep(|store| store.save_settings(lab.id(), &json))?;
        lab.set_settings(settings);
        Ok(settings)
    }

    /// `POST /api/labs/{lab}/broadcast` (instructor): a notice to everybody in the lab.
    pub fn notice(self, lab: &LabHandle, caller: Caller, message: &str) -> Result<(), ClassroomError> {
        authorize(caller, Action::SendNotice)?;
        // Cleaned as names are: a notice must not reorder or hide the page around it.
        let message = clean_notice(message);
        if message.is_empty() {
            return Err(ClassroomError::Invalid(
                "a notice needs visible text: nothing is left once control and invisible characters are removed".into(),
            ));
        }
        if message.chars().count() > MAX_NOTICE_CHARS {
            return Err(ClassroomError::Invalid(format!("a notice needs 1 to {MAX_NOTICE_CHARS} characters")));
        }
        lab.viewers().notice("Instructor", &message);
        Ok(())
    }
}
