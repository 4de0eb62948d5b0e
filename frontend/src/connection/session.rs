//! One lab's connection: what the URL asked for, where the socket stands, who the server says this page is, the lab's name and clock, the last error, and the way back to the server.
//!
//! The websocket client is the only writer of these (and `error`, which a refused
//! command or request also sets); components read them and send through
//! [`LabSession::send`] and [`LabSession::control`]. What the features keep lives in
//! their own folders, fed by the messages the client hands them.

use leptos::prelude::*;
use vlab_protocol::{ClientMsg, ControlAction, LabState, Role};
use web_sys::WebSocket;

use crate::connection::clock::Clock;
use crate::connection::state::ConnectionState;
use crate::page::PageParams;

/// Handles to the connection's state; `Copy`, so every component and callback takes its own.
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
    /// The open socket, if any.
    pub socket: StoredValue<Option<WebSocket>, LocalStorage>,
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
            socket: StoredValue::new_local(None),
        }
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

    /// Sends a message if the socket is open; `false` if it could not be sent.
    pub fn send(&self, message: &ClientMsg) -> bool {
        let Ok(json) = serde_json::to_string(message) else { return false };
        // `try_`: a component being torn down (the page closing) may still say goodbye.
        self.socket
            .try_with_value(|socket| socket.as_ref().is_some_and(|socket| socket.send_with_str(&json).is_ok()))
            .unwrap_or(false)
    }
}
