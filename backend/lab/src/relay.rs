//! A lab's viewers on other servers (cluster mode, docs/operations.md): what the server
//! running the lab sends once for all of them ([`RelayTap`]), and the hub every other
//! server with viewers of the lab feeds from it ([`Mirror`]), so each server fans the
//! lab's frames out to its own viewers with its own [`Hub`] (merging, pacing, keyframes
//! for late joiners) and the lab's cost does not grow with viewers.
//!
//! Transport-free: a [`Relayed`] message is bytes ([`Relayed::encode`]) that the cluster
//! carries as it likes. Messages are numbered by the tap. A transport may lose or drop
//! messages (NATS core delivers at most once), and a lost frame would leave a body where
//! it was until it moves again; so a mirror that sees a gap says so
//! ([`Applied::NeedsScene`]), ignores frames until the next scene, and the tap sends the
//! scene and keyframe again when asked ([`RelayTap::mailbox`]). Events are JSON sent as
//! they come; a mirror keeps the latest clock state, settings and presence, which a new
//! viewer is sent on joining as it is on the lab's own server.

use std::sync::Arc;

use tokio::sync::broadcast;
use vlab_protocol::{Frame, FrameDecodeError, JointLink, LinkTable};

use crate::hub::{Hub, Subscription, ViewerMailbox};

/// One message from a lab's tap to its mirrors.
#[derive(Clone, Debug, PartialEq)]
pub enum Relayed {
    /// A (new) scene: its snapshot, as the `snapshot` message pages receive, and every
    /// body's pose.
    Scene {
        /// The snapshot's JSON.
        snapshot_json: Arc<str>,
        /// Every moving body's latest pose.
        keyframe: Frame,
    },
    /// The bodies that moved since the last message (several frames merged when the tap
    /// fell behind).
    Frame(Frame),
    /// A JSON event for every viewer (clock state, notices, presence, settings...).
    Event(Arc<str>),
}

/// Why bytes are not a relayed message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelayDecodeError {
    /// Shorter than its header or its parts say.
    #[error("relayed message cut short ({0} bytes)")]
    Short(usize),
    /// A kind this build does not know.
    #[error("relayed message of unknown kind {0}")]
    UnknownKind(u8),
    /// Text that is not UTF-8.
    #[error("relayed message's JSON is not UTF-8")]
    NotUtf8,
    /// The frame inside is unreadable.
    #[error("relayed frame: {0}")]
    Frame(#[from] FrameDecodeError),
}

const SCENE: u8 = 1;
const FRAME: u8 = 2;
const EVENT: u8 = 3;

impl Relayed {
    /// The message as bytes, numbered `seq`: `seq` (u64 LE), a kind byte, then a
    /// frame as [`Frame::encode`] writes it (readable without base), an event's JSON, or a
    /// scene's JSON length (u32 LE), JSON and keyframe.
    pub fn encode(&self, seq: u64) -> Vec<u8> {
        let mut out = seq.to_le_bytes().to_vec();
        match self {
            Relayed::Scene { snapshot_json, keyframe } => {
                out.push(SCENE);
                let json = snapshot_json.as_bytes();
                out.extend_from_slice(&u32::try_from(json.len()).expect("a snapshot under 4 GiB").to_le_bytes());
                out.extend_from_slice(json);
                out.extend_from_slice(&keyframe.encode());
            }
            Relayed::Frame(frame) => {
                out.push(FRAME);
                out.extend_from_slice(&frame.encode());
            }
            Relayed::Event(json) => {
                out.push(EVENT);
                out.extend_from_slice(json.as_bytes());
            }
        }
        out
    }

    /// Reads what [`Relayed::encode`] wrote: the number and the message.
    pub fn decode(bytes: &[u8]) -> Result<(u64, Relayed), RelayDecodeError> {
        let short = || RelayDecodeError::Short(bytes.len());
        let (seq, rest) = bytes.split_first_chunk::<8>().ok_or_else(short)?;
        let (&kind, body) = rest.split_first().ok_or_else(short)?;
        let text = |b: &[u8]| std::str::from_utf8(b).map(Arc::<str>::from).map_err(|_| RelayDecodeError::NotUtf8);
        let message = match kind {
            SCENE => {
                let (len, rest) = body.split_first_chunk::<4>().ok_or_else(short)?;
                let len = u32::from_le_bytes(*len) as usize;
                if rest.len() < len {
                    return Err(short());
                }
                let (json, frame) = rest.split_at(len);
                Relayed::Scene { snapshot_json: text(json)?, keyframe: Frame::decode(frame)? }
            }
            FRAME => Relayed::Frame(Frame::decode(body)?),
            EVENT => Relayed::Event(text(body)?),
            other => return Err(RelayDecodeError::UnknownKind(other)),
        };
        Ok((u64::from_le_bytes(*seq), message))
    }
}

/// The lab's side: one viewer of the lab's hub whose snapshots, frames and events become
/// numbered [`Relayed`] messages, however many servers and viewers read them. It is a
/// viewer like any other: when the transport is slow its frames merge in its mailbox and
/// the lab never waits.
pub struct RelayTap {
    subscription: Subscription,
    seq: u64,
    /// A frame taken together with a scene, sent right after it.
    queued: Option<Relayed>,
}

impl RelayTap {
    /// Taps a hub through one viewer's `subscription` (a lab's own:
    /// [`crate::handle::LabViewers::subscribe`]): the first message is the current scene
    /// and keyframe.
    pub fn new(subscription: Subscription) -> RelayTap {
        RelayTap { subscription, seq: 0, queued: None }
    }

    /// The next message and its number, when there is one. Events that came faster than
    /// the tap read them are skipped (the lab's clock state comes again with the next
    /// change; a page reads the rest again over HTTP, as a lagging page does).
    pub async fn next(&mut self) -> (u64, Relayed) {
        let message = match self.queued.take() {
            Some(message) => message,
            None => self.wait().await,
        };
        self.seq += 1;
        (self.seq, message)
    }

    async fn wait(&mut self) -> Relayed {
        loop {
            let mailbox = Arc::clone(&self.subscription.mailbox);
            tokio::select! {
                () = mailbox.ready() => {
                    let pending = mailbox.take();
                    let frame = pending.frame.map(|frame| frame.frame().clone());
                    match (pending.snapshot, frame) {
                        (Some(snapshot_json), Some(keyframe)) => return Relayed::Scene { snapshot_json, keyframe },
                        (Some(snapshot_json), None) => {
                            return Relayed::Scene { snapshot_json, keyframe: Frame::default() };
                        }
                        (None, Some(frame)) => return Relayed::Frame(frame),
                        (None, None) => {}
                    }
                }
                event = self.subscription.events.recv() => match event {
                    Ok(json) => return Relayed::Event(json),
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    // The lab closed: nothing more will come.
                    Err(broadcast::error::RecvError::Closed) => std::future::pending::<()>().await,
                },
            }
        }
    }

    /// The tap's mailbox: a mirror that lost messages is made whole by resyncing it
    /// ([`Hub::resync`]): the scene and keyframe go again, next, to every mirror.
    pub fn mailbox(&self) -> &ViewerMailbox {
        &self.subscription.mailbox
    }
}

/// What a mirror did with a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Its viewers have it.
    Done,
    /// A message was lost before this one, or no scene came yet: frames are ignored
    /// until the tap sends the scene again ([`RelayTap::mailbox`]).
    NeedsScene,
}

/// Another server's copy of a lab's viewers' side: a [`Hub`] fed by the lab's tap, and
/// the latest clock state, settings and presence for viewers who join.
#[derive(Default)]
pub struct Mirror {
    hub: Option<Hub>,
    /// The number the next message should have (`None`: waiting for a scene).
    expected: Option<u64>,
    latest: Latest,
}

/// The latest of the events a new viewer is sent on joining.
#[derive(Default, Clone)]
pub struct Latest {
    /// The lab's clock (`state`).
    pub state: Option<Arc<str>>,
    /// The instructor's settings (`settings`).
    pub settings: Option<Arc<str>>,
    /// Who is here (`presence`).
    pub presence: Option<Arc<str>>,
}

impl Mirror {
    /// A mirror waiting for its first scene.
    pub fn new() -> Mirror {
        Mirror::default()
    }

    /// Applies message number `seq`.
    pub fn apply(&mut self, seq: u64, message: Relayed) -> Applied {
        match message {
            Relayed::Event(json) => {
                self.latest.keep(&json);
                if let Some(hub) = &self.hub {
                    hub.relay_event(json);
                }
                // Events need no scene; a gap still does.
                self.follow(seq)
            }
            Relayed::Scene { snapshot_json, keyframe } => {
                let links = links_of(&snapshot_json);
                match &self.hub {
                    Some(hub) => hub.publish_scene(snapshot_json, links, keyframe),
                    None => self.hub = Some(Hub::new(snapshot_json, links, keyframe)),
                }
                self.expected = Some(seq + 1);
                Applied::Done
            }
            Relayed::Frame(frame) => match (self.follow(seq), &self.hub) {
                (Applied::Done, Some(hub)) => {
                    hub.publish_frame(frame);
                    Applied::Done
                }
                _ => Applied::NeedsScene,
            },
        }
    }

    /// Notes that `seq` came: whether the mirror is still whole.
    fn follow(&mut self, seq: u64) -> Applied {
        match self.expected {
            Some(expected) if expected == seq => {
                self.expected = Some(seq + 1);
                Applied::Done
            }
            _ => {
                self.expected = None;
                Applied::NeedsScene
            }
        }
    }

    /// The hub viewers join, once a scene came.
    pub fn hub(&self) -> Option<&Hub> {
        self.hub.as_ref()
    }

    /// The latest clock state, settings and presence.
    pub fn latest(&self) -> &Latest {
        &self.latest
    }
}

impl Latest {
    fn keep(&mut self, json: &Arc<str>) {
        // The message's kind is its first field (`{"type":"state",...}`): read that
        // much, not the whole message.
        let kind = json.strip_prefix("{\"type\":\"").and_then(|rest| rest.split('"').next());
        let slot = match kind {
            Some("state") => &mut self.state,
            Some("settings") => &mut self.settings,
            Some("presence") => &mut self.presence,
            _ => return,
        };
        *slot = Some(Arc::clone(json));
    }
}

/// The links a snapshot lists; none when it is not a readable snapshot (its frames then
/// travel as plain poses, which every page reads).
fn links_of(snapshot_json: &str) -> LinkTable {
    /// The one field of a snapshot a mirror needs (the page reads the rest).
    #[derive(serde::Deserialize)]
    struct Links {
        #[serde(default)]
        links: Vec<JointLink>,
    }
    serde_json::from_str::<Links>(snapshot_json)
        .ok()
        .and_then(|snapshot| LinkTable::new(snapshot.links).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
