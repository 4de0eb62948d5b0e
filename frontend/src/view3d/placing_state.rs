//! Placing things by hand on this page: which thing is selected, the drag in progress
//! and its preview, the placements sent and the server's answers to them, and Undo.
//!
//! The page only asks: every placement goes to the server (`ClientMsg::Place`), which
//! moves the thing for everybody or refuses; the preview is drawn on this page alone and
//! ends with the answer to the last placement.

use std::collections::BTreeMap;

use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use vlab_protocol::{ClientMsg, ErrorCode, ServerMsg};

use super::ViewState;
use super::placing::{
    GroundDrag, Placement, SendPace, TURN_PER_PX, Thing, UndoList, lift_of_drag, lifted, moved_rigidly, placement_of,
    thing_named, thing_of, turned,
};
use crate::classroom::ClassState;
use crate::connection::LabSession;
use crate::view3d::screen::Ray;

/// What a placement sent was for.
#[derive(Clone, Copy, PartialEq)]
enum Sent {
    /// Part of a drag: only its refusal matters, if it is the last one.
    Dragging,
    /// A drag's release, a button, typed coordinates: undoable once accepted.
    Final,
    /// Undo of the last accepted placement.
    Undo,
}

/// A placement waiting for the server's answer.
struct Pending {
    name: String,
    before: Placement,
    sent: Sent,
}

/// A drag in progress.
#[derive(Clone)]
struct ActiveDrag {
    thing: Thing,
    ground: Option<GroundDrag>,
    /// Where it stood when grabbed: what Undo goes back to.
    before: Placement,
    /// Where it would go now.
    now: Placement,
    pace: SendPace,
    moved: bool,
}

#[derive(Default)]
struct Inner {
    next_id: u32,
    pending: BTreeMap<u32, Pending>,
    undo: UndoList,
    drag: Option<ActiveDrag>,
}

/// What the panel says of the last placement.
#[derive(Clone, PartialEq)]
pub enum PlaceStatus {
    /// Placed (or put back by Undo) where it says.
    Done(String),
    /// Refused: the server's reason.
    Refused(String),
}

/// Handles to the page's placing; `Copy`.
#[derive(Clone, Copy)]
pub struct PlacingState {
    /// Whether a press on a thing grabs it (the "Move things" toggle).
    pub mode: RwSignal<bool>,
    /// The thing selected to place (the panel's).
    pub selected: RwSignal<Option<String>>,
    /// The last placement's outcome.
    pub status: RwSignal<Option<PlaceStatus>>,
    /// Whether Undo has something to undo.
    pub can_undo: RwSignal<bool>,
    inner: StoredValue<Inner>,
}

impl PlacingState {
    pub fn new() -> PlacingState {
        PlacingState {
            mode: RwSignal::new(false),
            selected: RwSignal::new(None),
            status: RwSignal::new(None),
            can_undo: RwSignal::new(false),
            inner: StoredValue::new(Inner::default()),
        }
    }

    /// The server's answer to a placement of this page's, if `message` is one.
    pub fn answered(&self, view: &ViewState, message: &ServerMsg) {
        let (id, refusal) = match message {
            ServerMsg::Placed { id, .. } => (*id, None),
            ServerMsg::PlaceRefused { id, error, .. } => (*id, Some(error)),
            _ => return,
        };
        let Some(pending) = self.inner.try_update_value(|inner| inner.pending.remove(&id)).flatten() else { return };
        let dragging = self.inner.with_value(|inner| inner.drag.is_some());
        let last = self.inner.with_value(|inner| inner.pending.is_empty());
        match refusal {
            // A drag's placement cut by a newer one: the newer one answers.
            Some(error) if error.code == ErrorCode::TooManyRequests && pending.sent == Sent::Dragging => {}
            Some(error) => self.status.set(Some(PlaceStatus::Refused(format!("{}: {}", pending.name, error.message)))),
            None => match pending.sent {
                Sent::Dragging => {}
                Sent::Final => {
                    self.inner.update_value(|inner| inner.undo.accepted(&pending.name, pending.before));
                    self.status.set(Some(PlaceStatus::Done(format!("{} placed", pending.name))));
                }
                Sent::Undo => {
                    self.inner.update_value(|inner| inner.undo.undone());
                    self.status.set(Some(PlaceStatus::Done(format!("{} put back", pending.name))));
                }
            },
        }
        self.can_undo.set(self.inner.with_value(|inner| !inner.undo.is_empty()));
        if last && !dragging {
            view.world.update_value(|world| world.end_preview());
        }
    }

    fn send(&self, session: &LabSession, name: &str, to: Placement, before: Placement, sent: Sent) {
        let id = self.inner.try_update_value(|inner| {
            inner.next_id = inner.next_id.wrapping_add(1);
            inner.pending.insert(inner.next_id, Pending { name: name.to_owned(), before, sent });
            inner.next_id
        });
        let Some(id) = id else { return };
        let message = ClientMsg::Place { id, name: name.to_owned(), position: to.position, heading: Some(to.heading) };
        if !session.send(&message) {
            self.inner.update_value(|inner| {
                inner.pending.remove(&id);
            });
            self.status.set(Some(PlaceStatus::Refused("not connected: the placement was not sent".into())));
        }
    }
}

/// Placing as the canvas and the panel use it: the state with the page's connection,
/// its standing and its view. Absent where the view shows no live lab of one's own
/// (a graded replay).
#[derive(Clone, Copy)]
pub struct Placer {
    pub state: PlacingState,
    session: LabSession,
    class: ClassState,
    view: ViewState,
}

impl Placer {
    /// From the page's context, if it has a connection and a class.
    pub fn from_context(view: ViewState) -> Option<Placer> {
        Some(Placer {
            state: view.placing,
            session: use_context::<LabSession>()?,
            class: use_context::<ClassState>()?,
            view,
        })
    }

    /// Whether this page may place `name` (the permission table, as the server asks it).
    pub fn may_place(&self, name: &str) -> bool {
        untrack(|| self.view.live_world.get() && self.class.may_on_thing(Action::MoveObject, name))
    }

    /// Where thing `name` stands now, and its bodies; `None` when the scene has no such thing.
    fn find(&self, name: &str) -> Option<(Thing, Placement)> {
        self.view.world.with_value(|world| {
            let thing = thing_named(world.snapshot()?, name)?;
            let pose = world.poses().get(thing.bodies[0])?;
            Some((thing, placement_of(pose)))
        })
    }

    /// A press on body `index` in placing mode: grabs its thing if this page may place
    /// it (and selects it). Whether it did.
    pub fn grab(&self, index: usize, ray: &Ray) -> bool {
        if !self.state.mode.get_untracked() {
            return false;
        }
        let thing = self.view.world.with_value(|world| thing_of(world.snapshot()?, index));
        let Some(thing) = thing.filter(|thing| self.may_place(&thing.name)) else { return false };
        let Some((thing, start)) = self.find(&thing.name) else { return false };
        self.state.selected.set(Some(thing.name.clone()));
        let drag = ActiveDrag {
            ground: GroundDrag::grab(start, ray),
            thing,
            before: start,
            now: start,
            pace: SendPace::default(),
            moved: false,
        };
        self.state.inner.update_value(|inner| inner.drag = Some(drag));
        true
    }

    /// The pointer moved during a drag: along the ground, or with Shift up and down
    /// (`dy_px`), or with Alt or Ctrl turned (`dx_px`); `distance_m` is the eye's from the thing.
    pub fn drag_to(&self, ray: &Ray, lift: bool, turn: bool, (dx_px, dy_px): (f32, f32), distance_m: f32, now_ms: f64) {
        let Some(mut drag) = self.state.inner.with_value(|inner| inner.drag.clone()) else { return };
        drag.now = if lift {
            lifted(drag.now, lift_of_drag(dy_px, distance_m))
        } else if turn {
            turned(drag.now, -dx_px * TURN_PER_PX)
        } else {
            match drag.ground.and_then(|ground| ground.to(ray, drag.now)) {
                Some(now) => now,
                None => return,
            }
        };
        if lift {
            // The ground drag goes on at the new height.
            drag.ground = GroundDrag::grab(drag.now, ray);
        }
        drag.moved = true;
        self.preview(&drag.thing, drag.now);
        if drag.pace.may_send(now_ms) {
            self.state.send(&self.session, &drag.thing.name, drag.now, drag.before, Sent::Dragging);
        }
        self.state.inner.update_value(|inner| inner.drag = Some(drag));
    }

    /// The pointer let go: the final pose goes to the server (nothing, for a click).
    pub fn release(&self) {
        let Some(drag) = self.state.inner.try_update_value(|inner| inner.drag.take()).flatten() else { return };
        if drag.moved {
            self.state.send(&self.session, &drag.thing.name, drag.now, drag.before, Sent::Final);
        }
    }

    /// The selected thing lifted by `dy` metres and turned by `angle` radians (the
    /// panel's buttons).
    pub fn nudge(&self, dy: f32, angle: f32) {
        let Some(name) = self.state.selected.get_untracked() else { return };
        let Some((thing, now)) = self.find(&name) else { return };
        let to = turned(lifted(now, dy), angle);
        self.place(&thing, to, now);
    }

    /// The selected thing to `to` (typed coordinates).
    pub fn place_at(&self, to: Placement) {
        let Some(name) = self.state.selected.get_untracked() else { return };
        let Some((thing, now)) = self.find(&name) else { return };
        self.place(&thing, to, now);
    }

    fn place(&self, thing: &Thing, to: Placement, before: Placement) {
        self.preview(thing, to);
        self.state.send(&self.session, &thing.name, to, before, Sent::Final);
    }

    /// Where the selected thing stands now, if any is.
    pub fn selected_placement(&self) -> Option<Placement> {
        let name = self.state.selected.get_untracked()?;
        self.find(&name).map(|(_, at)| at)
    }

    /// Puts the thing of the last accepted placement back where it stood before it.
    pub fn undo(&self) {
        let Some((name, before)) = self.state.inner.with_value(|inner| inner.undo.last().cloned()) else {
            self.state.status.set(Some(PlaceStatus::Refused("nothing to undo".into())));
            return;
        };
        let Some((thing, now)) = self.find(&name) else {
            self.state.status.set(Some(PlaceStatus::Refused(format!("{name} is no longer in the lab"))));
            self.state.inner.update_value(|inner| inner.undo.undone());
            return;
        };
        self.preview(&thing, before);
        self.state.send(&self.session, &name, before, now, Sent::Undo);
    }

    fn preview(&self, thing: &Thing, to: Placement) {
        self.view.world.update_value(|world| {
            let poses: Vec<_> = thing.bodies.iter().filter_map(|&i| world.poses().get(i).copied()).collect();
            world.preview(&thing.bodies, &moved_rigidly(&poses, to));
        });
    }
}
