//! A lab's robot programs as the server reaches them: replaced, restarted or stopped,
//! remote controllers attached, their sources and consoles read.

use std::sync::Arc;

use tokio::sync::broadcast;
use vlab_programs::{ProgramCode, RemoteController};
use vlab_protocol::{ConsoleLine, ProgramStatus};

use super::LabHandle;
use crate::commands::{LabCommand, ProgramAction};
use crate::error::LabError;
use crate::programs::{AttachRefused, ConsoleEvent};

/// The robot programs of one lab.
#[derive(Clone, Copy)]
pub struct LabPrograms<'a> {
    pub(super) lab: &'a LabHandle,
}

impl LabPrograms<'_> {
    /// Gives robot `robot` a new program (stopping its old one) and starts it.
    pub async fn set(self, robot: &str, code: ProgramCode) -> Result<ProgramStatus, LabError> {
        let code = Arc::new(code);
        let status = self.lab.request(|reply| LabCommand::SetProgram { robot: robot.to_owned(), code, reply }).await?;
        status.ok_or_else(|| self.lab.no_robot(robot))
    }

    /// Restarts or stops robot `robot`'s program; its status afterwards.
    pub async fn program_action(self, robot: &str, action: ProgramAction) -> Result<ProgramStatus, LabError> {
        let status =
            self.lab.request(|reply| LabCommand::ProgramAction { robot: robot.to_owned(), action, reply }).await?;
        status.ok_or_else(|| self.lab.no_program(robot))
    }

    /// Attaches a remote controller to robot `robot` in place of its program (it is
    /// greeted and joins at a control step, like a program that started).
    pub async fn attach_remote(self, robot: &str, controller: RemoteController) -> Result<(), LabError> {
        let attached = self
            .lab
            .request(|reply| LabCommand::AttachRemote {
                robot: robot.to_owned(),
                controller: Box::new(controller),
                reply,
            })
            .await?;
        attached.map_err(|refused| match refused {
            AttachRefused::NoRobot => self.lab.no_robot(robot),
            AttachRefused::ProgramRunning => LabError::ProgramRunning { robot: robot.to_owned() },
            AttachRefused::AlreadyAttached => LabError::ControllerAttached { robot: robot.to_owned() },
            AttachRefused::TooSoon { faults, wait } => LabError::AttachTooSoon {
                robot: robot.to_owned(),
                faults,
                retry_after_secs: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            },
        })
    }

    /// Robot `robot`'s program and its console's latest lines.
    pub async fn program(self, robot: &str) -> Result<(Arc<ProgramCode>, Vec<ConsoleLine>), LabError> {
        let program = self.lab.request(|reply| LabCommand::Program { robot: robot.to_owned(), reply }).await?;
        match program {
            Some((Some(code), lines)) => Ok((code, lines)),
            _ => Err(self.lab.no_program(robot)),
        }
    }

    /// Robot `robot`'s console's latest lines, its program's or its remote
    /// controller's (empty when it has had neither).
    pub async fn console_lines(self, robot: &str) -> Result<Vec<ConsoleLine>, LabError> {
        let program = self.lab.request(|reply| LabCommand::Program { robot: robot.to_owned(), reply }).await?;
        Ok(program.map(|(_, lines)| lines).unwrap_or_default())
    }

    /// New console lines of every robot, as they come (filter by owner before sending).
    pub fn console(self) -> broadcast::Receiver<Arc<ConsoleEvent>> {
        self.lab.console.subscribe()
    }
}
