//! Robots' programs: their sources for the editor, restarting and stopping them, and
//! remote controllers attached in their place.

use std::sync::Arc;

use vlab_protocol::permissions::Action;
use vlab_protocol::{ProgramSource, ProgramStatus};

use super::ClassroomError;
use super::access::authorize_on_robot;
use vlab_lab::{Caller, LabHandle, ProgramAction};
use vlab_programs::{Limits, RemotePeer, remote_pair};

/// The programs of the classroom's robots: each call names its lab, so the view holds nothing.
#[derive(Clone, Copy)]
pub struct ClassroomPrograms;

impl ClassroomPrograms {
    /// A robot's program files, for its editor (owner or instructor).
    pub async fn source(self, lab: &LabHandle, caller: Caller, robot: &str) -> Result<ProgramSource, ClassroomError> {
        authorize_on_robot(lab, caller, Action::ReadProgram, robot)?;
        Ok(lab.programs().program(robot).await?.0.source())
    }

    /// Attaches a remote controller to a robot (owner or instructor) in place of its
    /// program: the websocket task holds the returned end (docs/remote.md).
    pub async fn attach_controller(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        robot: &str,
    ) -> Result<RemotePeer, ClassroomError> {
        authorize_on_robot(lab, caller, Action::AttachController, robot)?;
        let (controller, peer) = remote_pair(robot, Limits::default());
        lab.programs().attach_remote(robot, controller).await?;
        Ok(peer)
    }

    /// Restarts or stops a robot's program (owner or instructor).
    pub async fn run(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        robot: &str,
        action: ProgramAction,
    ) -> Result<ProgramStatus, ClassroomError> {
        authorize_on_robot(lab, caller, Action::RunProgram, robot)?;
        Ok(lab.programs().program_action(robot, action).await?)
    }
}
