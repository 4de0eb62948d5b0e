//! The lab page's features side by side: each one's state, made and given to its components through the context, and which feature each server message goes to.
//!
//! Messages flow one way: the websocket client keeps the connection's part and hands the
//! message here; the feature that owns it takes it. The timeline decides what live
//! messages may still move while a recorded moment is shown.

use leptos::prelude::*;
use vlab_protocol::{CameraView, ErrorCode, Frame, ServerMsg};

use crate::challenge::ChallengeState;
use crate::classroom::ClassState;
use crate::connection::{LabSession, Receiver};
use crate::inspector::{InspectorState, robot_names};
use crate::programs::ConsoleState;
use crate::timeline::TimelineState;
use crate::timeline::moment::show_moment;
use crate::timeline::seek::Seeker;
use crate::view3d::ViewState;
use crate::view3d::world::FrameOutcome;

/// Every feature's state in one lab; `Copy`, like each of them.
#[derive(Clone, Copy)]
pub struct Features {
    /// The connection, which seeks and errors go through.
    pub session: LabSession,
    /// Who is in the lab and what this page may do.
    pub class: ClassState,
    /// The robots and the picked one.
    pub inspector: InspectorState,
    /// The picked robot's program console.
    pub console: ConsoleState,
    /// The recording and the replay.
    pub timeline: TimelineState,
    /// The 3D view.
    pub view: ViewState,
    /// The lab's challenge, and the attempt the view may show instead of the live lab.
    pub challenge: ChallengeState,
}

impl Features {
    /// Fresh state for each feature of `session`'s lab, provided to the components below.
    pub fn provide(session: LabSession) -> Features {
        let features = Features {
            session,
            class: ClassState::new(session.role.read_only()),
            inspector: InspectorState::new(),
            console: ConsoleState::new(),
            timeline: TimelineState::new(),
            view: ViewState::new(),
            challenge: ChallengeState::new(session),
        };
        provide_context(features.class);
        provide_context(features.inspector);
        provide_context(features.console);
        provide_context(features.timeline);
        provide_context(features.view);
        provide_context(features.challenge);
        features
    }
}

impl Receiver for Features {
    fn message(&self, message: ServerMsg) {
        let Features { session, class, inspector, console, timeline, view, challenge } = *self;
        match message {
            ServerMsg::Hello { you, .. } => {
                class.take_you(you);
                challenge.connected();
            }
            ServerMsg::Error(error) if error.code == ErrorCode::Unauthorized => {
                let (lab, token) = session.params.with_value(|p| (p.lab.clone(), p.token.clone()));
                class.token_refused(&lab, token.as_deref());
            }
            ServerMsg::Snapshot(snapshot)
                if challenge.shows_live_snapshot() && timeline.shows_live_snapshot(snapshot.epoch) =>
            {
                challenge.take_zones(!snapshot.zones.is_empty());
                let robots = robot_names(&snapshot);
                class.take_objects(&snapshot);
                view.take_live_scene(snapshot, &robots);
                inspector.take_robots(robots);
            }
            ServerMsg::Robot(report) if timeline.inspector_follows_live() => inspector.take_report(report),
            ServerMsg::Belief(belief) if timeline.inspector_follows_live() => inspector.take_belief(belief),
            ServerMsg::Presence { participants } => class.take_presence(participants),
            ServerMsg::Settings(settings) => {
                challenge.take_board_visibility(settings.board);
                class.take_settings(settings);
            }
            ServerMsg::Notice { from, message } => class.take_notice(from, message),
            ServerMsg::Console { robot, lines } => console.take_lines(&robot, lines),
            ServerMsg::Recording(summary) => timeline.take_recording(summary),
            ServerMsg::BoardChanged => challenge.refresh(),
            ServerMsg::Placed { .. } | ServerMsg::PlaceRefused { .. } => view.placing.answered(&view, &message),
            ServerMsg::Moment(moment) => show_moment(Seeker { session, timeline, inspector }, view, *moment),
            _ => {}
        }
    }

    fn view_follows_live(&self) -> bool {
        self.timeline.view_follows_live() && self.challenge.view_follows_live()
    }

    fn frame(&self, frame: &Frame) -> bool {
        self.view.place(frame) == Some(FrameOutcome::Applied)
    }

    fn camera_view(&self, view: CameraView) {
        self.inspector.take_camera_view(view);
    }

    fn reconnected(&self) {
        self.challenge.reconnected();
        // The page starts live again, and the replayed trails end.
        if self.timeline.reconnected() {
            self.inspector.forget_trails();
        }
    }
}
