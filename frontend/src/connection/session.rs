//! The app's shared state for one lab: reactive signals the toolbar reads, the world the 3D view draws, and the way back to the server.
//!
//! The websocket client is the only writer of these; components read them, send
//! commands through [`LabSession::control`], and ask the permission table which controls
//! to show through [`LabSession::may`] and [`LabSession::may_on`]. The world is a plain stored value, not a
//! signal: frames arrive tens of times a second and the render loop polls it anyway.

use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use vlab_protocol::{
    Belief, ClientMsg, ControlAction, LabSettings, LabState, Participant, RecordingSummary, RobotReport, Role,
};
use web_sys::WebSocket;

use crate::classroom::forms::{standing_in_lab, standing_toward_own_robot, standing_toward_robot};
use crate::connection::clock::Clock;
use crate::connection::state::ConnectionState;
use crate::inspector::plot_board::PlotBoard;
use crate::page::PageParams;
use crate::programs::console_log::ConsoleBuffer;
use crate::timeline::replay::Replay;
use crate::view3d::overlay::{Overlay, ViewOptions};
use crate::view3d::world::World;

/// Handles to the lab's state; `Copy`, so every component and callback takes its own.
#[derive(Clone, Copy)]
pub struct LabSession {
    /// What the page URL asked for.
    pub params: StoredValue<PageParams>,
    /// `host[:port]` of the server, for messages.
    pub host: StoredValue<String>,
    /// Where the websocket stands.
    pub connection: RwSignal<ConnectionState>,
    /// Why the connection is not working, when it is not; cleared once connected.
    pub connection_notice: RwSignal<Option<String>>,
    /// The last error the server (or a refused command) reported; the user dismisses it.
    pub error: RwSignal<Option<String>>,
    /// The role the server gave this connection (from Hello).
    pub role: RwSignal<Option<Role>>,
    /// The lab's display name (from Hello).
    pub lab_name: RwSignal<Option<String>>,
    /// The lab's clock state: mode, rate, epoch.
    pub lab_state: RwSignal<Option<LabState>>,
    /// Step and sim time of the newest State or Frame.
    pub clock: RwSignal<Clock>,
    /// Bodies in the current snapshot.
    pub body_count: RwSignal<usize>,
    /// Robots in the current snapshot, in scene order.
    pub robots: RwSignal<Vec<String>>,
    /// The robot the inspector shows; the socket is subscribed to it while the panel is open.
    pub inspected: RwSignal<Option<String>>,
    /// The newest report of the inspected robot (reports of any other robot are dropped).
    pub robot_report: RwSignal<Option<RobotReport>>,
    /// The latest belief of the inspected robot's program, when this page may see it
    /// (dropped with another robot picked, and on a reset).
    pub belief: RwSignal<Option<Belief>>,
    /// The inspected robot's open plots, fed by its reports.
    pub plots: RwSignal<PlotBoard>,
    /// The inspected robot's rays and trails, fed by its reports, read by the render loop.
    pub overlay: StoredValue<Overlay>,
    /// Which overlays the 3D view shows (labels, rays, trails, beliefs).
    pub view_options: RwSignal<ViewOptions>,
    /// Snapshot and poses, read by the render loop every frame.
    pub world: StoredValue<World>,
    /// The open socket, if any.
    pub socket: StoredValue<Option<WebSocket>, LocalStorage>,
    /// Who this page is in the lab (from Hello; `None` for a viewer).
    pub you: RwSignal<Option<Participant>>,
    /// Everybody who joined the lab, the instructor first (from Presence).
    pub participants: RwSignal<Vec<Participant>>,
    /// The lab's settings (from Settings).
    pub settings: RwSignal<Option<LabSettings>>,
    /// Notices from the instructor not dismissed yet, oldest first.
    pub notices: RwSignal<Vec<Notice>>,
    /// The robot the camera follows, if any.
    pub follow: RwSignal<Option<String>>,
    /// The inspected robot's console (its owner and the instructor receive it).
    pub console: RwSignal<ConsoleBuffer>,
    /// What the lab has recorded (from Recording): the timeline's bounds.
    pub recording: RwSignal<Option<RecordingSummary>>,
    /// Whether the page shows the live lab or a recorded moment (the timeline).
    pub replay: RwSignal<Replay>,
    /// The latest image of the camera this page watches (the robot's-eye view).
    pub camera_view: RwSignal<Option<vlab_protocol::CameraView>>,
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

impl LabSession {
    /// Fresh state for the lab the URL names.
    pub fn new(params: PageParams, host: String) -> LabSession {
        LabSession {
            params: StoredValue::new(params),
            host: StoredValue::new(host),
            connection: RwSignal::new(ConnectionState::Connecting),
            connection_notice: RwSignal::new(None),
            error: RwSignal::new(None),
            role: RwSignal::new(None),
            lab_name: RwSignal::new(None),
            lab_state: RwSignal::new(None),
            clock: RwSignal::new(Clock::default()),
            body_count: RwSignal::new(0),
            robots: RwSignal::new(Vec::new()),
            inspected: RwSignal::new(None),
            robot_report: RwSignal::new(None),
            belief: RwSignal::new(None),
            plots: RwSignal::new(PlotBoard::default()),
            overlay: StoredValue::new(Overlay::default()),
            view_options: RwSignal::new(ViewOptions::default()),
            world: StoredValue::new(World::default()),
            socket: StoredValue::new_local(None),
            you: RwSignal::new(None),
            participants: RwSignal::new(Vec::new()),
            settings: RwSignal::new(None),
            notices: RwSignal::new(Vec::new()),
            follow: RwSignal::new(None),
            console: RwSignal::new(ConsoleBuffer::default()),
            recording: RwSignal::new(None),
            replay: RwSignal::new(Replay::default()),
            camera_view: RwSignal::new(None),
        }
    }

    /// Whether this page may take `action` on the lab as a whole (reactive): the
    /// permission table's answer for the role the server gave it.
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

    /// The session's bearer token (the page URL's, or the one stored for this lab).
    pub fn token(&self) -> Option<String> {
        self.params.with_value(|p| p.token.clone())
    }

    /// The lab's id.
    pub fn lab_id(&self) -> String {
        self.params.with_value(|p| p.lab.clone())
    }

    /// Whether messages can be sent now (reactive).
    pub fn is_connected(&self) -> bool {
        self.connection.get() == ConnectionState::Connected
    }

    /// Checks and sends a time-control command; a refusal shows in the error banner.
    pub fn control(&self, command: ControlAction) {
        if let Err(reason) = command.validate() {
            self.error.set(Some(reason));
            return;
        }
        if !self.send(&ClientMsg::Control { command }) {
            self.error.set(Some("Not connected to the server: the command was not sent".into()));
        }
    }

    /// Shows `robot` in the inspector (or nothing), dropping the previous robot's
    /// report, belief, plots, rays and trails.
    pub fn inspect(&self, robot: Option<String>) {
        if self.inspected.get_untracked() != robot {
            self.robot_report.set(None);
            self.belief.set(None);
            self.plots.update(|plots| plots.follow(robot.as_deref()));
            self.overlay.update_value(Overlay::forget);
            self.inspected.set(robot);
        }
    }

    /// Takes in a report of the inspected robot: the inspector, its plots and the 3D
    /// view's rays and trails.
    pub fn take_report(&self, report: RobotReport) {
        self.plots.maybe_update(|plots| plots.observe(&report));
        self.overlay.update_value(|overlay| overlay.observe(&report));
        // A reset drops the belief of the run before it.
        if self.overlay.with_value(|overlay| overlay.belief().is_none()) && self.belief.with_untracked(Option::is_some)
        {
            self.belief.set(None);
        }
        self.robot_report.set(Some(report));
    }

    /// Takes in a belief of the inspected robot's program: the inspector, the estimate
    /// error plot and the 3D view.
    pub fn take_belief(&self, belief: Belief) {
        self.plots.update_untracked(|plots| plots.believe(&belief));
        self.overlay.update_value(|overlay| overlay.believe(&belief));
        self.belief.set(Some(belief));
    }

    /// Sends a message if the socket is open; `false` if it could not be sent.
    pub fn send(&self, message: &ClientMsg) -> bool {
        let Ok(json) = serde_json::to_string(message) else { return false };
        // `try_`: a component being torn down (the page closing) may still say goodbye.
        self.socket
            .try_with_value(|socket| socket.as_ref().is_some_and(|socket| socket.send_with_str(&json).is_ok()))
            .unwrap_or(false)
    }
}
