//! Who is calling and whether they may: tokens to callers, and the permission table of
//! `vlab_protocol::permissions` applied to them. Every request of every kind passes
//! here; nothing else decides a permission.

use vlab_protocol::UserId;
use vlab_protocol::permissions::Action;

use super::{Classroom, ClassroomError};
use vlab_lab::{Caller, LabError, LabHandle};

impl Classroom {
    /// `Ok` when `key` is the server's key (creating `what`, "a lab" or "a class",
    /// needs it).
    pub fn require_server_key(&self, key: Option<&str>, what: &str) -> Result<(), ClassroomError> {
        let allowed = match (key, self.server_key) {
            (Some(key), Some(server_key)) => server_key.matches(key),
            _ => false,
        };
        if allowed {
            return Ok(());
        }
        Err(ClassroomError::NeedsServerKey(match key {
            None => format!(
                "creating {what} needs the server's key (Authorization: Bearer <key>): the token the server printed for the demo lab"
            ),
            Some(_) => format!(
                "that is not this server's key: creating {what} needs the token the server printed for the demo lab"
            ),
        }))
    }

    /// Who the bearer of `token` is in `lab` (no token: a viewer). An unknown token is
    /// refused rather than quietly read as a viewer, so a mistyped instructor token is
    /// noticed.
    pub fn caller(&self, lab: &LabHandle, token: Option<&str>) -> Result<Caller, ClassroomError> {
        lab.people()
            .caller(token)
            .or_else(|| self.class_member(lab, token?))
            .ok_or_else(|| ClassroomError::UnknownToken { lab: lab.id().to_owned() })
    }

    /// A student of the lab's class by her class session, once she entered the lab.
    fn class_member(&self, lab: &LabHandle, token: &str) -> Option<Caller> {
        let user = self.course.lab_member(lab.id(), token)?;
        lab.people().name_of(user).map(|_| Caller::Student(user))
    }

    /// Who the bearer of `token` is, for reading only: a token of another lab reads as a
    /// viewer.
    pub fn reader(&self, lab: &LabHandle, token: Option<&str>) -> Caller {
        self.caller(lab, token).unwrap_or(Caller::Viewer)
    }
}

/// Whether `caller` may take `action` on the lab as a whole.
pub fn authorize(caller: Caller, action: Action) -> Result<(), ClassroomError> {
    action.check(caller.in_lab()).map_err(|denial| ClassroomError::Denied { action, denial, robot: None })
}

/// Whether `caller` may take `action` on robot `robot`, which must exist (404 first, so
/// nobody learns a permission about a robot that is not there).
pub fn authorize_on_robot(lab: &LabHandle, caller: Caller, action: Action, robot: &str) -> Result<(), ClassroomError> {
    if !lab.robots().has_robot(robot) {
        return Err(LabError::NoRobot { lab: lab.id().to_owned(), robot: robot.to_owned() }.into());
    }
    action.check(caller.toward_robot(lab.robots().owner_of(robot))).map_err(|denial| ClassroomError::Denied {
        action,
        denial,
        robot: Some(robot.to_owned()),
    })
}

/// Whether `caller` may take `action` on thing `name`: a robot, or a body that is not
/// fixed. It must exist (404 first, as for a robot); its owner stands as the owner, the
/// instructor as supervisor toward anything.
pub async fn authorize_on_thing(
    lab: &LabHandle,
    caller: Caller,
    action: Action,
    name: &str,
) -> Result<(), ClassroomError> {
    let owner = owner_of_thing(lab, name).await?;
    action.check(caller.toward_robot(owner)).map_err(|denial| ClassroomError::Denied {
        action,
        denial,
        robot: Some(name.to_owned()),
    })
}

/// Who owns thing `name` (`None`: the lab's own); `NoObject` when nothing movable has
/// that name. The one place a thing's owner is looked up: a robot's is the lab's record
/// of who added it, a part of a robot is its robot's, an object added to the lab its
/// adder's (fixed ones too: a ramp or a wall from the palette is placed like a box), and
/// any other body that is not fixed the lab's own.
async fn owner_of_thing(lab: &LabHandle, name: &str) -> Result<Option<UserId>, ClassroomError> {
    if lab.robots().has_robot(name) {
        return Ok(lab.robots().owner_of(name));
    }
    let model = lab.robots().scene_model().await?;
    let body = model.body_index(name).map(|index| &model.bodies[index]);
    match body {
        Some(body) if body.robot.is_some() => Ok(body.robot.as_deref().and_then(|robot| lab.robots().owner_of(robot))),
        Some(body) if body.owner.is_some() => Ok(body.owner),
        Some(body) if body.motion != vlab_scene::model::Motion::Fixed => Ok(None),
        _ => Err(LabError::NoObject { lab: lab.id().to_owned(), name: name.to_owned() }.into()),
    }
}

/// Whether `caller` may take `action` on object `name` (a body of no robot), which must
/// exist (404 first). Its owner stands as the owner; the lab's own objects are the
/// instructor's, as its own robots are.
pub fn authorize_on_object(lab: &LabHandle, caller: Caller, action: Action, name: &str) -> Result<(), ClassroomError> {
    if !lab.robots().has_object(name) {
        return Err(ClassroomError::NotFound(format!("no object '{name}' in lab '{}'", lab.id())));
    }
    action.check(caller.toward_robot(lab.owner_of_object(name))).map_err(|denial| ClassroomError::Denied {
        action,
        denial,
        robot: Some(name.to_owned()),
    })
}
