//! Who takes part in a lab: tokens to callers, the join code, admissions and removals,
//! the roster, and whose pages are online.

use vlab_protocol::{Participant, Role, ServerMsg, UserId};

use super::{LabHandle, owned};
use crate::participants::{Caller, JoinError};

/// The participants of one lab.
#[derive(Clone, Copy)]
pub struct LabPeople<'a> {
    pub(super) lab: &'a LabHandle,
}

impl LabPeople<'_> {
    /// The role a bearer of `token` has here; `None` if the token means nothing here.
    /// No token at all makes a viewer.
    pub fn role_of(self, token: Option<&str>) -> Option<Role> {
        self.caller(token).map(Caller::role)
    }

    /// Who a bearer of `token` is here; `None` if the token means nothing here.
    pub fn caller(self, token: Option<&str>) -> Option<Caller> {
        self.lab.participants.read().expect("participants lock").caller(token)
    }

    /// The code students join with.
    pub fn join_code(self) -> String {
        self.lab.participants.read().expect("participants lock").join_code().to_owned()
    }

    /// Replaces the code students join with; the old one admits nobody from now on.
    pub fn set_join_code(self, code: &str) {
        self.lab.participants.write().expect("participants lock").set_join_code(code);
    }

    /// Admits a student with the lab's `code` under `name` (made unique) to the roster,
    /// within the settings' `max_participants`. Returns their id and session token;
    /// nobody is told yet (see [`LabPeople::broadcast_presence`]).
    pub fn admit(self, code: &str, name: &str) -> Result<(UserId, String), JoinError> {
        let max = self.lab.settings().max_participants as usize;
        self.lab.participants.write().expect("participants lock").join(code, name, max)
    }

    /// Admits a student of the lab's class under `name`, without the join code (the
    /// class knows her), within the settings' `max_participants`.
    pub fn admit_member(self, name: &str) -> Result<(UserId, String), JoinError> {
        let max = self.lab.settings().max_participants as usize;
        self.lab.participants.write().expect("participants lock").admit(name, max)
    }

    /// Gives student `id` a new display name and tells everybody; whether she is here.
    pub fn rename(self, id: UserId, name: &str) -> bool {
        let renamed = self.lab.participants.write().expect("participants lock").rename(id, name);
        if renamed {
            self.broadcast_presence();
        }
        renamed
    }

    /// Takes back an admission that could not be kept.
    pub fn forget(self, id: UserId) {
        self.lab.participants.write().expect("participants lock").forget(id);
    }

    /// Takes student `id` out of the roster: their token means nothing from now on and
    /// each page of theirs learns it ([`LabPeople::wait_removed`]). Their robots stay
    /// until removed; nobody else is told yet. Whether they were in it.
    pub fn remove(self, id: UserId) -> bool {
        let removed = self.lab.participants.write().expect("participants lock").forget(id);
        if removed {
            self.lab.removals.send_modify(|count| *count += 1);
        }
        removed
    }

    /// Resolves once student `id` is no longer in the roster (removed by the instructor).
    pub async fn wait_removed(self, id: UserId) {
        let mut removals = self.lab.removals.subscribe();
        let _ = removals.wait_for(|_| self.name_of(id).is_none()).await;
    }

    /// A participant as the lab lists them.
    pub fn participant(self, id: UserId) -> Option<Participant> {
        let owners = self.lab.status.borrow().owners.clone();
        self.lab.participants.read().expect("participants lock").participant(id, |user| owned(&owners, user))
    }

    /// Everybody who joined, the instructor first.
    pub fn list(self) -> Vec<Participant> {
        let owners = self.lab.status.borrow().owners.clone();
        self.lab.participants.read().expect("participants lock").list(|user| owned(&owners, user))
    }

    /// The display name of participant `id`.
    pub fn name_of(self, id: UserId) -> Option<String> {
        self.lab.participants.read().expect("participants lock").name_of(id)
    }

    /// Counts a page of `caller` as connected (viewers are not counted).
    pub fn connected(self, caller: Caller) {
        if let Some(id) = caller.user() {
            self.lab.participants.write().expect("participants lock").connected(id);
            self.broadcast_presence();
        }
    }

    /// Counts a page of `caller` as gone.
    pub fn disconnected(self, caller: Caller) {
        if let Some(id) = caller.user() {
            self.lab.participants.write().expect("participants lock").disconnected(id);
            self.broadcast_presence();
        }
    }

    /// Sends everybody the list of participants.
    pub fn broadcast_presence(self) {
        self.lab.hub.broadcast(&ServerMsg::Presence { participants: self.list() });
    }
}
