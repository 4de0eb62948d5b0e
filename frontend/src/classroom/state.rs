//! The classroom's state in a lab: who this page is, who else joined, the lab's settings, the instructor's notices, and what the permission table lets this page do.

use leptos::prelude::*;
use vlab_protocol::permissions::{Action, Standing};
use vlab_protocol::{LabSettings, Participant, Role, SceneSnapshot, UserId};

use super::client::forget_session;
use super::forms::{may_add_objects, owned_objects, standing_in_lab, standing_toward_own_robot, standing_toward_robot};

/// Notices kept on screen at once.
const MAX_NOTICES_SHOWN: usize = 3;

/// Handles to the classroom's state; `Copy`, so every component and callback takes its own.
#[derive(Clone, Copy)]
pub struct ClassState {
    /// The role the server gave this connection (the session's, read for the permission table).
    role: ReadSignal<Option<Role>>,
    /// Who this page is in the lab (from Hello; `None` for a viewer).
    pub you: RwSignal<Option<Participant>>,
    /// Everybody who joined the lab, the instructor first (from Presence).
    pub participants: RwSignal<Vec<Participant>>,
    /// The lab's settings (from Settings).
    pub settings: RwSignal<Option<LabSettings>>,
    /// Notices from the instructor not dismissed yet, oldest first.
    pub notices: RwSignal<Vec<Notice>>,
    /// The objects participants added to the live scene, with their owners (from
    /// snapshots).
    pub objects: RwSignal<Vec<(String, UserId)>>,
}

/// A message from the instructor, as shown in the banner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// Counts notices on this page (the banner's key).
    pub id: u64,
    /// The sender's name.
    pub from: String,
    /// The message, plain text.
    pub message: String,
}

impl ClassState {
    /// Nobody known yet; permissions follow `role`, the connection's.
    pub fn new(role: ReadSignal<Option<Role>>) -> ClassState {
        ClassState {
            role,
            you: RwSignal::new(None),
            participants: RwSignal::new(Vec::new()),
            settings: RwSignal::new(None),
            notices: RwSignal::new(Vec::new()),
            objects: RwSignal::new(Vec::new()),
        }
    }

    /// Who this page is, from Hello.
    pub fn take_you(&self, you: Option<Participant>) {
        self.you.set(you);
    }

    /// The presence list: everybody, with our own entry the freshest word on our robots
    /// and whether we are online.
    pub fn take_presence(&self, participants: Vec<Participant>) {
        if let Some(me) = self.you.get_untracked().and_then(|me| participants.iter().find(|p| p.id == me.id).cloned()) {
            self.you.set(Some(me));
        }
        self.participants.set(participants);
    }

    /// The lab's settings, from Settings or the instructor's change.
    pub fn take_settings(&self, settings: LabSettings) {
        self.settings.set(Some(settings));
    }

    /// A notice from the instructor; the banner shows the latest few, older ones are history.
    pub fn take_notice(&self, from: String, message: String) {
        self.notices.update(|notices| {
            let id = notices.last().map_or(0, |n| n.id + 1);
            notices.push(Notice { id, from, message });
            let excess = notices.len().saturating_sub(MAX_NOTICES_SHOWN);
            notices.drain(..excess);
        });
    }

    /// The server no longer knows this page's `token` in `lab`: it is not offered again
    /// from storage, and the page watches on as a viewer's, without the controls of the
    /// person it was.
    pub fn token_refused(&self, lab: &str, token: Option<&str>) {
        if let Some(token) = token {
            forget_session(lab, token);
        }
        self.you.set(None);
    }

    /// Whether this page may add objects now (reactive): the permission table, and for
    /// a student the instructor's switch.
    pub fn may_add_objects(&self) -> bool {
        let allowed = self.settings.with(|s| s.as_ref().is_some_and(|s| s.students_add_objects));
        may_add_objects(standing_in_lab(self.role.get()), allowed)
    }

    /// The added objects of a live snapshot, with their owners.
    pub fn take_objects(&self, snapshot: &SceneSnapshot) {
        self.objects.set(owned_objects(snapshot));
    }

    /// Whether this page may take `action` on thing `name` (reactive): an object someone
    /// added stands toward its adder, anything else as a robot does (see [`Self::may_on`]).
    pub fn may_on_thing(&self, action: Action, name: &str) -> bool {
        let adder =
            self.objects.with(|objects| objects.iter().find(|(object, _)| object == name).map(|(_, owner)| *owner));
        let Some(adder) = adder else { return self.may_on(action, name) };
        let standing = match self.role.get() {
            Some(role) => {
                Standing::toward_robot(role, self.you.with(|you| you.as_ref().map(|you| you.id)), Some(adder))
            }
            None => Standing::Anonymous,
        };
        action.allows(standing)
    }

    /// Whether this page may take `action` on the lab (reactive).
    pub fn may(&self, action: Action) -> bool {
        action.allows(standing_in_lab(self.role.get()))
    }

    /// Whether this page may take `action` on `robot` (reactive): the permission table's
    /// answer for its standing toward the robot's owner in the presence list.
    pub fn may_on(&self, action: Action, robot: &str) -> bool {
        let role = self.role.get();
        let standing = self
            .you
            .with(|you| self.participants.with(|people| standing_toward_robot(robot, role, you.as_ref(), people)));
        action.allows(standing)
    }

    /// Whether this page may take `action` on a robot of its own (reactive): whether a
    /// control for it belongs on the page before any robot is picked.
    pub fn may_on_own(&self, action: Action) -> bool {
        let role = self.role.get();
        action.allows(self.you.with(|you| standing_toward_own_robot(role, you.as_ref())))
    }
}
