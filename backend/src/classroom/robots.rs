//! A lab's robots: inspecting, driving by hand or by keyboard, resetting them, moving
//! their starts and removing them; and the instructor moving any object as supervisor.

use std::collections::BTreeMap;

use serde_json::Value;
use tokio::sync::oneshot;
use vlab_protocol::permissions::Action;
use vlab_protocol::{NewStart, RobotReport};

use super::access::{authorize, authorize_on_robot, authorize_on_thing};
use super::{Classroom, ClassroomError};
use crate::store::Insertion;
use vlab_lab::handle::KeysAnswer;
use vlab_lab::{Caller, LabHandle};

/// The robots of the classroom's labs, as their owners and instructors reach them.
#[derive(Clone, Copy)]
pub struct ClassroomRobots<'a> {
    pub(super) classroom: &'a Classroom,
}

impl ClassroomRobots<'_> {
    /// A robot's report: anybody in the lab sees every robot; those who may read its
    /// console also get the console's latest lines.
    pub async fn report(self, lab: &LabHandle, caller: Caller, robot: &str) -> Result<RobotReport, ClassroomError> {
        authorize(caller, Action::Watch)?;
        let mut report = lab.robots().report(robot).await?;
        if authorize_on_robot(lab, caller, Action::ReadConsole, robot).is_ok() {
            report.console = Some(lab.programs().console_lines(robot).await?);
        }
        Ok(report)
    }

    /// Whether `caller` may watch robot `robot`'s reports (it must exist).
    pub fn may_watch(self, lab: &LabHandle, caller: Caller, robot: &str) -> Result<(), ClassroomError> {
        authorize_on_robot(lab, caller, Action::Watch, robot)
    }

    /// Commands a robot's actuators by hand (owner or instructor), all or none.
    pub async fn actuate(
        self,
        lab: &LabHandle,
        caller: Caller,
        robot: &str,
        commands: BTreeMap<String, Value>,
    ) -> Result<RobotReport, ClassroomError> {
        authorize_on_robot(lab, caller, Action::DriveRobot, robot)?;
        if commands.is_empty() {
            return Err(ClassroomError::Unreadable("no actuator commands: name at least one actuator".into()));
        }
        Ok(lab.robots().actuate(robot, commands).await?)
    }

    /// Keys held for a robot's keyboard sensors (its owner), queued at once so one
    /// page's key changes keep their order.
    pub fn queue_keys(
        self,
        lab: &LabHandle,
        caller: Caller,
        robot: &str,
        keys: Vec<String>,
    ) -> Result<oneshot::Receiver<KeysAnswer>, ClassroomError> {
        authorize_on_robot(lab, caller, Action::SendKeys, robot)?;
        Ok(lab.robots().send_keys(robot, keys)?)
    }

    /// Puts a robot back at its start (owner or instructor); its report afterwards.
    pub async fn reset(self, lab: &LabHandle, caller: Caller, robot: &str) -> Result<RobotReport, ClassroomError> {
        authorize_on_robot(lab, caller, Action::ResetRobot, robot)?;
        lab.robots().reset(robot).await?;
        Ok(lab.robots().report(robot).await?)
    }

    /// Takes a robot out of the lab (owner or instructor): kept first, then done.
    pub async fn remove(self, lab: &LabHandle, caller: Caller, robot: &str) -> Result<(), ClassroomError> {
        authorize_on_robot(lab, caller, Action::RemoveRobot, robot)?;
        self.take_out(lab, robot).await
    }

    /// Takes a robot out of the lab: the removal kept first, then done (taken back from
    /// the store if the lab refuses it).
    pub(super) async fn take_out(self, lab: &LabHandle, robot: &str) -> Result<(), ClassroomError> {
        let removal = Insertion::Removal { robot: robot.to_owned() };
        let owner = lab.robots().owner_of(robot);
        let kept = self.classroom.keep(|store| store.record_insertion(lab.id(), &removal))?;
        if let Err(e) = lab.robots().remove(robot).await {
            if let Some(seq) = kept {
                self.classroom.unkeep(lab.id(), "removal", |store| store.forget_insertion(seq));
            }
            return Err(e.into());
        }
        self.classroom.robot_gone(lab.id(), robot, owner);
        self.classroom.compact(lab.id());
        tracing::info!(lab = %lab.id(), %robot, "robot removed");
        Ok(())
    }

    /// Moves the start a robot is put back at (owner or instructor): kept, so a restart
    /// puts it back there too. The robot stays where it is until it is reset.
    pub async fn set_start(
        self,
        lab: &LabHandle,
        caller: Caller,
        robot: &str,
        start: NewStart,
    ) -> Result<(), ClassroomError> {
        authorize_on_robot(lab, caller, Action::SetStart, robot)?;
        if !start.position.iter().chain(start.heading.iter()).all(|v| v.is_finite()) {
            return Err(ClassroomError::Invalid("position and heading must be finite numbers".into()));
        }
        let moved = Insertion::Start { robot: robot.to_owned(), position: start.position, heading: start.heading };
        let kept = self.classroom.keep(|store| store.record_insertion(lab.id(), &moved))?;
        if let Err(e) = lab.robots().set_start(robot, start.position, start.heading).await {
            if let Some(seq) = kept {
                self.classroom.unkeep(lab.id(), "start", |store| store.forget_insertion(seq));
            }
            return Err(e.into());
        }
        self.classroom.compact(lab.id());
        tracing::info!(lab = %lab.id(), %robot, position = ?start.position, "start moved");
        Ok(())
    }

    /// Moves a body or a whole robot, at rest (its owner, or the instructor any), and
    /// keeps the move so a restart puts it there again. HTTP and the websocket's
    /// `place` both come here, so they answer alike.
    pub async fn move_object(
        self,
        lab: &LabHandle,
        caller: Caller,
        name: &str,
        position: [f32; 3],
        heading: Option<f32>,
    ) -> Result<(), ClassroomError> {
        authorize_on_thing(lab, caller, Action::MoveObject, name).await?;
        if !position.iter().chain(heading.iter()).all(|v| v.is_finite()) {
            return Err(ClassroomError::Invalid("position and heading must be finite numbers".into()));
        }
        let moved = Insertion::Move { name: name.to_owned(), position, heading };
        let kept = self.classroom.keep(|store| store.record_insertion(lab.id(), &moved))?;
        if let Err(e) = lab.robots().move_object(name, position, heading).await {
            if let Some(seq) = kept {
                self.classroom.unkeep(lab.id(), "move", |store| store.forget_insertion(seq));
            }
            return Err(e.into());
        }
        self.classroom.compact(lab.id());
        tracing::info!(lab = %lab.id(), %name, ?position, ?heading, "moved by hand");
        Ok(())
    }
}
