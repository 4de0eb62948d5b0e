//! The websocket client: connects to the lab, keeps the connection's part of each server message, hands every message on to the features, and reconnects with backoff.
//!
//! One socket at a time. The JS callbacks of a socket live in [`Handlers`], replaced on
//! each attempt; an attempt is only started from a timer, never from inside a socket
//! callback, so no callback is ever dropped while it runs.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use vlab_protocol::{ErrorCode, Frame, FrameDecoder, PROTOCOL_VERSION, ServerMsg};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{BinaryType, CloseEvent, MessageEvent, WebSocket};

use crate::connection::LabSession;
use crate::connection::clock::Clock;
use crate::connection::drawn;
use crate::connection::receiver::Receiver;
use crate::connection::reconnect::{Backoff, CloseAction, HEALTHY_CONNECTION_MS};
use crate::connection::state::{ConnectionState, INCOMPATIBLE_NOTICE, not_found_notice, unreachable_notice};

/// Starts connecting, handing what arrives on to `features`; the client then lives as
/// long as the page.
pub fn start(session: LabSession, features: Rc<dyn Receiver>, secure: bool) {
    let client = Rc::new(RefCell::new(Client {
        session,
        features,
        secure,
        backoff: Backoff::default(),
        handlers: None,
        opened_at_ms: None,
        gave_up: false,
        clock_fresh: true,
        live_epoch: None,
        frames: FrameDecoder::new(),
    }));
    connect(&client);
}

struct Client {
    session: LabSession,
    /// Where the messages go once the connection took its part.
    features: Rc<dyn Receiver>,
    /// The page came over https: use wss.
    secure: bool,
    backoff: Backoff,
    handlers: Option<Handlers>,
    /// When the current attempt reached `open` (`performance.now()` ms), if it did.
    opened_at_ms: Option<f64>,
    /// Retrying cannot help (protocol mismatch, no such lab).
    gave_up: bool,
    /// A snapshot just arrived: the next clock reading is taken whatever its step (a
    /// restarted server counts from 0 again in the same epoch).
    clock_fresh: bool,
    /// The live scene's epoch (from snapshots and State), kept while the view shows a
    /// recorded moment: live frames of it still move the clock and the timeline's end.
    live_epoch: Option<u32>,
    /// Reads this socket's frames, most written as changes from the frame before.
    frames: FrameDecoder,
}

/// The JS callbacks of one socket, kept alive as long as it may call them.
struct Handlers {
    socket: WebSocket,
    _on_open: Closure<dyn FnMut()>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_close: Closure<dyn FnMut(CloseEvent)>,
}

impl Drop for Handlers {
    fn drop(&mut self) {
        // A socket outliving its callbacks must not call into freed closures.
        self.socket.set_onopen(None);
        self.socket.set_onmessage(None);
        self.socket.set_onclose(None);
        let _ = self.socket.close();
    }
}

fn connect(client: &Rc<RefCell<Client>>) {
    let mut this = client.borrow_mut();
    this.handlers = None;
    this.opened_at_ms = None;
    // A new socket starts from a keyframe: nothing held from the last one applies.
    this.frames.reset();
    let session = this.session;
    let url = session.params.with_value(|p| session.host.with_value(|host| p.websocket_url(this.secure, host)));
    let socket = match WebSocket::new(&url) {
        Ok(socket) => socket,
        Err(error) => {
            leptos::logging::warn!("cannot open a websocket to {url}: {error:?}");
            drop(this);
            on_closed(client, 1006);
            return;
        }
    };
    socket.set_binary_type(BinaryType::Arraybuffer);

    let on_open = {
        let client = client.clone();
        Closure::<dyn FnMut()>::new(move || on_opened(&client))
    };
    let on_message = {
        let client = client.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| on_message(&client, event))
    };
    let on_close = {
        let client = client.clone();
        Closure::<dyn FnMut(CloseEvent)>::new(move |event: CloseEvent| on_closed(&client, event.code()))
    };
    socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
    this.handlers = Some(Handlers { socket, _on_open: on_open, _on_message: on_message, _on_close: on_close });
}

fn on_opened(client: &Rc<RefCell<Client>>) {
    let mut this = client.borrow_mut();
    this.opened_at_ms = Some(now_ms());
    let (session, features) = (this.session, this.features.clone());
    let socket = this.handlers.as_ref().map(|h| h.socket.clone());
    drop(this);
    drawn::use_socket(socket.clone());
    session.socket.set_value(socket);
    session.connection.set(ConnectionState::Connected);
    session.connection_notice.set(None);
    features.reconnected();
    // An error from an earlier connection no longer applies.
    session.error.set(None);
}

fn on_closed(client: &Rc<RefCell<Client>>, code: u16) {
    let mut this = client.borrow_mut();
    let session = this.session;
    session.socket.set_value(None);
    drawn::use_socket(None);
    if this.gave_up {
        return;
    }
    match CloseAction::for_close_code(code) {
        CloseAction::Incompatible => {
            this.gave_up = true;
            session.connection.set(ConnectionState::Incompatible);
            session.connection_notice.set(Some(INCOMPATIBLE_NOTICE.to_owned()));
        }
        CloseAction::LabNotFound => {
            this.gave_up = true;
            session.connection.set(ConnectionState::NotFound);
            let lab = session.params.with_value(|p| p.lab.clone());
            session.connection_notice.set(Some(not_found_notice(&lab)));
        }
        CloseAction::Retry => {
            // Only a connection that worked for a while earns a quick retry: a server
            // that accepts and drops at once must not be hammered.
            if this.opened_at_ms.is_some_and(|at| now_ms() - at >= HEALTHY_CONNECTION_MS) {
                this.backoff.reset();
            }
            let delay_ms = this.backoff.next_delay_ms();
            if this.opened_at_ms.is_some() {
                // A working connection dropped: say so quietly, the retry is immediate-ish.
                session.connection.set(ConnectionState::Reconnecting);
            } else {
                session.connection.set(ConnectionState::Unreachable);
                let host = session.host.get_value();
                session.connection_notice.set(Some(unreachable_notice(&host, delay_ms)));
            }
            let client = client.clone();
            set_timeout(move || connect(&client), Duration::from_millis(u64::from(delay_ms)));
        }
    }
}

fn on_message(client: &Rc<RefCell<Client>>, event: MessageEvent) {
    let data = event.data();
    if let Some(text) = data.as_string() {
        match serde_json::from_str::<ServerMsg>(&text) {
            Ok(message) => on_server_message(client, message),
            // A newer server may send messages this build does not know: skip them.
            Err(error) => leptos::logging::warn!("ignoring a server message: {error}"),
        }
    } else if let Ok(buffer) = data.dyn_into::<js_sys::ArrayBuffer>() {
        let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
        if vlab_protocol::CameraView::is_camera_view(&bytes) {
            match vlab_protocol::CameraView::decode(&bytes) {
                Ok(view) => {
                    let features = client.borrow().features.clone();
                    features.camera_view(view);
                }
                Err(error) => leptos::logging::warn!("ignoring a camera view: {error}"),
            }
            return;
        }
        let decoded = client.borrow_mut().frames.decode(&bytes);
        match decoded {
            Ok(frame) => {
                drawn::frame_received(frame.step);
                on_frame(client, &frame);
            }
            Err(error) => leptos::logging::warn!("ignoring a frame: {error}"),
        }
    }
}

fn on_frame(client: &Rc<RefCell<Client>>, frame: &Frame) {
    let (features, live_epoch) = {
        let this = client.borrow();
        (this.features.clone(), this.live_epoch)
    };
    if !features.view_follows_live() {
        // The view shows a recorded moment (or waits for the live scene): the live lab's
        // clock, and with it the timeline's live end, goes on.
        if live_epoch == Some(frame.epoch) {
            set_clock(client, Clock::from_frame(frame));
        }
        return;
    }
    if features.frame(frame) {
        set_clock(client, Clock::from_frame(frame));
    }
}

/// Moves the toolbar's clock to `reading` if it is the newest (see [`Clock::advance`]).
fn set_clock(client: &Rc<RefCell<Client>>, reading: Clock) {
    let mut this = client.borrow_mut();
    let fresh = std::mem::take(&mut this.clock_fresh);
    let session = this.session;
    drop(this);
    if fresh {
        session.clock.set(reading);
    } else {
        session.clock.maybe_update(|clock| clock.advance(reading));
    }
}

fn on_server_message(client: &Rc<RefCell<Client>>, message: ServerMsg) {
    let (session, features) = {
        let this = client.borrow();
        (this.session, this.features.clone())
    };
    match &message {
        ServerMsg::Hello { protocol, lab_name, role, .. } => {
            if *protocol != PROTOCOL_VERSION {
                give_up_incompatible(client);
                return;
            }
            session.lab_name.set(Some(lab_name.clone()));
            session.role.set(Some(*role));
        }
        ServerMsg::Snapshot(snapshot) => {
            let mut this = client.borrow_mut();
            this.live_epoch = Some(snapshot.epoch);
            this.clock_fresh = true;
            // The frames after it (the keyframe first) place the scene's wheels and
            // other linked bodies by these links, whether or not the view shows it.
            if let Err(error) = this.frames.set_links(&snapshot.links) {
                leptos::logging::warn!("the scene's joint links cannot be used: {error}");
            }
        }
        ServerMsg::State(state) => {
            client.borrow_mut().live_epoch = Some(state.epoch);
            set_clock(client, Clock::from_state(state));
            session.lab_state.set(Some(state.clone()));
        }
        ServerMsg::Error(error) => {
            if error.code == ErrorCode::ProtocolMismatch {
                give_up_incompatible(client);
                return;
            }
            if error.code == ErrorCode::Unauthorized {
                // The token this page holds means nothing in this lab (any more): it
                // watches on as a viewer.
                session.role.set(Some(vlab_protocol::Role::Viewer));
            }
            session.error.set(Some(crate::api::body_sentence(error)));
        }
        ServerMsg::Pacing { drawn_every } => drawn::pacing(*drawn_every),
        _ => {}
    }
    features.message(message);
}

/// The server speaks another protocol: stop, and tell the user to reload.
fn give_up_incompatible(client: &Rc<RefCell<Client>>) {
    let mut this = client.borrow_mut();
    this.gave_up = true;
    let session = this.session;
    session.connection.set(ConnectionState::Incompatible);
    session.connection_notice.set(Some(INCOMPATIBLE_NOTICE.to_owned()));
    session.socket.set_value(None);
    // Closing from inside the message callback is fine: the handlers stay alive in `this`.
    if let Some(handlers) = &this.handlers {
        let _ = handlers.socket.close();
    }
}

fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}
