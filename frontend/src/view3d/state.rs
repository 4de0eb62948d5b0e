//! The 3D view's state: the world it draws, which overlays it shows, and the robot the camera follows.
//!
//! The world is a plain stored value, not a signal: frames arrive tens of times a second
//! and the render loop polls it anyway.

use leptos::prelude::*;
use vlab_protocol::{Frame, SceneSnapshot};

use super::overlay::ViewOptions;
use super::placing_state::PlacingState;
use super::world::{FrameOutcome, World};

/// Handles to the view's state; `Copy`, so every component and callback takes its own.
#[derive(Clone, Copy)]
pub struct ViewState {
    /// Snapshot and poses, read by the render loop every frame.
    pub world: StoredValue<World>,
    /// Bodies in the scene shown.
    pub body_count: RwSignal<usize>,
    /// A challenge's zones in the scene shown.
    pub zone_count: RwSignal<usize>,
    /// Which overlays the 3D view shows (labels, rays, trails, beliefs).
    pub view_options: RwSignal<ViewOptions>,
    /// The robot the camera follows, if any.
    pub follow: RwSignal<Option<String>>,
    /// Whether the world shown is the live lab's (or a recorded moment of it), which the
    /// picked robot's glow and overlay belong to; not while an attempt's is shown.
    pub live_world: RwSignal<bool>,
    /// Things this page places by hand.
    pub placing: PlacingState,
}

impl ViewState {
    /// An empty world, the default overlays, nothing followed.
    pub fn new() -> ViewState {
        ViewState {
            world: StoredValue::new(World::default()),
            body_count: RwSignal::new(0),
            zone_count: RwSignal::new(0),
            view_options: RwSignal::new(ViewOptions::default()),
            follow: RwSignal::new(None),
            live_world: RwSignal::new(true),
            placing: PlacingState::new(),
        }
    }

    /// Shows the scene of `snapshot` (the live one or a recorded moment's).
    pub fn show_scene(&self, snapshot: SceneSnapshot) {
        let (bodies, zones) = (snapshot.bodies.len(), snapshot.zones.len());
        self.world.update_value(|world| world.apply_snapshot(snapshot));
        self.body_count.set(bodies);
        self.zone_count.set(zones);
    }

    /// The live scene, holding `robots`: a robot gone from it cannot be followed any more.
    pub fn take_live_scene(&self, snapshot: SceneSnapshot, robots: &[String]) {
        self.live_world.set(true);
        if self.follow.get_untracked().is_some_and(|robot| !robots.contains(&robot)) {
            self.follow.set(None);
        }
        self.show_scene(snapshot);
    }

    /// Moves the bodies to `frame`'s poses, if it belongs to the scene shown and is newer.
    pub fn place(&self, frame: &Frame) -> Option<FrameOutcome> {
        self.world.try_update_value(|world| world.apply_frame(frame))
    }
}
