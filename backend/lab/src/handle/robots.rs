//! A lab's robots and objects as the server reaches them: who owns which, insertions and
//! removals, resets and moves, reports, and commands and keys given by hand.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::oneshot;
use vlab_programs::ProgramCode;
use vlab_protocol::{RobotReport, UserId};
use vlab_sim::robot::{KeysError, Owner};
use vlab_sim::scene::{Inserted, Pose, SceneModel};

use super::{LabHandle, owned};
use crate::commands::LabCommand;
use crate::error::LabError;
use crate::placement::StartSearch;

/// What the lab answers to keys: `None` when it has no such robot.
pub type KeysAnswer = Option<Result<(), KeysError>>;

/// The robots and objects of one lab.
#[derive(Clone, Copy)]
pub struct LabRobots<'a> {
    pub(super) lab: &'a LabHandle,
}

impl LabRobots<'_> {
    /// The owner of robot `robot`, if a participant added it.
    pub fn owner_of(self, robot: &str) -> Option<UserId> {
        self.lab.status.borrow().owners.get(robot).copied()
    }

    /// Whether the lab has a robot called `robot`.
    pub fn has_robot(self, robot: &str) -> bool {
        self.lab.status.borrow().robots.iter().any(|r| r == robot)
    }

    /// How many robots participant `user` has in the lab.
    pub fn robots_of(self, user: UserId) -> usize {
        self.lab.status.borrow().owners.values().filter(|owner| **owner == user).count()
    }

    /// The names of the robots participant `user` has in the lab.
    pub fn robots_owned_by(self, user: UserId) -> Vec<String> {
        owned(&self.lab.status.borrow().owners, user)
    }

    /// Inserts `addition` into the running lab between two steps, its robots owned by
    /// `owner` (who may have at most `quota` robots afterwards, if given), and starts
    /// `programs` (by robot name); everybody watching receives the new scene. All or
    /// nothing: when refused ([`LabError::Refused`], [`LabError::OverQuota`]) the lab is
    /// unchanged.
    pub async fn insert(
        self,
        addition: SceneModel,
        owner: Option<Owner>,
        quota: Option<usize>,
        programs: BTreeMap<String, Arc<ProgramCode>>,
        keep_clear: Option<f32>,
    ) -> Result<Inserted, LabError> {
        let addition = Box::new(addition);
        self.lab.request(|reply| LabCommand::Insert { addition, owner, quota, programs, keep_clear, reply }).await?
    }

    /// Inserts objects (bodies of no robot, no devices) into the running lab between
    /// two steps, owned by `owner` (who may have at most `quota` objects afterwards, if
    /// given), each over something fixed and clear of every other body; everybody
    /// watching receives the new scene. All or nothing.
    pub async fn insert_objects(
        self,
        addition: SceneModel,
        owner: Option<Owner>,
        quota: Option<usize>,
    ) -> Result<Inserted, LabError> {
        let addition = Box::new(addition);
        self.lab.request(|reply| LabCommand::InsertObjects { addition, owner, quota, reply }).await?
    }

    /// The lab's scene model as it is now (every body at the pose it was inserted at).
    pub async fn scene_model(self) -> Result<Arc<SceneModel>, LabError> {
        self.lab.request(|reply| LabCommand::Model { reply }).await
    }

    /// The world now: the model and every body's pose, read together between two
    /// steps, with the step (what saving the lab as a scene writes).
    pub async fn world_now(self) -> Result<crate::commands::WorldNow, LabError> {
        self.lab.request(|reply| LabCommand::WorldNow { reply }).await
    }

    /// What a new robot's start must keep clear of.
    pub async fn start_search(self) -> Result<StartSearch, LabError> {
        self.lab.request(|reply| LabCommand::StartSearch { reply }).await
    }

    /// The true pose of every body now, indexed like the scene's bodies.
    pub async fn body_poses(self) -> Result<Vec<Pose>, LabError> {
        self.lab.request(|reply| LabCommand::Poses { reply }).await
    }

    /// Robot `robot`'s report now.
    pub async fn report(self, robot: &str) -> Result<RobotReport, LabError> {
        let report = self.lab.request(|reply| LabCommand::Robot { robot: robot.to_owned(), reply }).await?;
        report.ok_or_else(|| self.lab.no_robot(robot))
    }

    /// Commands robot `robot`'s actuators by hand (all or nothing); answers with its
    /// report.
    pub async fn actuate(self, robot: &str, commands: BTreeMap<String, Value>) -> Result<RobotReport, LabError> {
        let outcome =
            self.lab.request(|reply| LabCommand::Actuate { robot: robot.to_owned(), commands, reply }).await?;
        Ok(outcome.ok_or_else(|| self.lab.no_robot(robot))??)
    }

    /// Removes robot `robot` from the lab and tells everybody who owns what now.
    pub async fn remove(self, robot: &str) -> Result<(), LabError> {
        if !self.lab.request(|reply| LabCommand::RemoveRobot { robot: robot.to_owned(), reply }).await? {
            return Err(self.lab.no_robot(robot));
        }
        self.lab.people().broadcast_presence();
        Ok(())
    }

    /// Whether the lab has an object (a body of no robot) called `name`.
    pub fn has_object(self, name: &str) -> bool {
        self.lab.status.borrow().objects.contains_key(name)
    }

    /// The names of the objects participant `user` added to the lab.
    pub fn objects_owned_by(self, user: UserId) -> Vec<String> {
        let status = self.lab.status.borrow();
        status.objects.iter().filter(|(_, owner)| **owner == Some(user)).map(|(name, _)| name.clone()).collect()
    }

    /// Removes object `name` (a body of no robot) from the lab; everybody receives the
    /// new scene.
    pub async fn remove_object(self, name: &str) -> Result<(), LabError> {
        if !self.lab.request(|reply| LabCommand::RemoveObject { name: name.to_owned(), reply }).await? {
            return Err(LabError::NoObject { lab: self.lab.id.clone(), name: name.to_owned() });
        }
        Ok(())
    }

    /// Puts robot `robot` back at its start.
    pub async fn reset(self, robot: &str) -> Result<(), LabError> {
        let reset = self.lab.request(|reply| LabCommand::ResetRobot { robot: robot.to_owned(), reply }).await??;
        if reset { Ok(()) } else { Err(self.lab.no_robot(robot)) }
    }

    /// Moves the start robot `robot` is put back at to `position` (turned to `heading`,
    /// if given); the robot stays where it is until it is reset.
    pub async fn set_start(self, robot: &str, position: [f32; 3], heading: Option<f32>) -> Result<(), LabError> {
        let set = self
            .lab
            .request(|reply| LabCommand::SetStart { robot: robot.to_owned(), position, heading, reply })
            .await??;
        if set { Ok(()) } else { Err(self.lab.no_robot(robot)) }
    }

    /// Moves body or robot `name` to `position` (turned to `heading`, if given), at rest.
    pub async fn move_object(self, name: &str, position: [f32; 3], heading: Option<f32>) -> Result<(), LabError> {
        let moved =
            self.lab.request(|reply| LabCommand::Move { name: name.to_owned(), position, heading, reply }).await??;
        if moved { Ok(()) } else { Err(LabError::NoObject { lab: self.lab.id.clone(), name: name.to_owned() }) }
    }

    /// Sets the keys held for robot `robot`.
    pub async fn set_keys(self, robot: &str, keys: Vec<String>) -> Result<(), LabError> {
        let answer = self.send_keys(robot, keys)?;
        self.keys_outcome(robot, answer).await
    }

    /// Queues new keys for robot `robot` now (one page's key changes keep their order)
    /// and gives the receiver of the outcome, to read with [`LabRobots::keys_outcome`].
    pub fn send_keys(self, robot: &str, keys: Vec<String>) -> Result<oneshot::Receiver<KeysAnswer>, LabError> {
        self.lab.queue(|reply| LabCommand::Keys { robot: robot.to_owned(), keys, reply })
    }

    /// The outcome of keys queued with [`LabRobots::send_keys`].
    pub async fn keys_outcome(self, robot: &str, answer: oneshot::Receiver<KeysAnswer>) -> Result<(), LabError> {
        Ok(self.lab.answer(answer).await?.ok_or_else(|| self.lab.no_robot(robot))??)
    }
}
