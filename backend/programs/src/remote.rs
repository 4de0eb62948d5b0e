//! Remote controllers: a robot program running on somebody's own machine, attached to
//! its robot over a websocket and speaking the same protocol as a sandboxed program
//! (docs/remote.md). The lab's side is the same [`Conversation`], so the same rules
//! hold: one answer per step, the same output budget, the same step budget.
//!
//! The lab never waits on the network past a budget: [`RemoteController`] is the lab's
//! end of two channels, and the websocket task ([`RemotePeer`]'s holder) is the other.
//! A controller that disconnects, stalls or floods is detached alone (an error, like a
//! program's, which the lab answers by holding its robot still); its owner may attach
//! again at once.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::conversation::Conversation;
use super::messages::{LabMsg, PROGRAM_PROTOCOL_VERSION, Reply, StepInput};
use super::{Controller, Limits, ProgramError, RobotSide};

/// Messages a remote controller may send ahead of the lab's reading them (console
/// lines sent early, an answer): past this it floods, and is detached.
pub const MAX_MESSAGES_AHEAD: usize = 64;

/// Wall time a real-time lab lets a remote controller go without answering a step
/// before it is detached (a paused debugger, a dead link). A lockstep lab waits at most
/// the step budget, as for any program.
pub const REMOTE_STALL_LIMIT: Duration = Duration::from_secs(2);

/// Close code of a controller the lab let go of because of what it did (stalled,
/// flooded, broke the protocol): its client may attach again.
pub const CLOSE_DETACHED: u16 = 4000;
/// Close code after the lab's `stop`: the robot's reset, the lab's, a program started
/// in its place, its removal, or its owner's Stop.
pub const CLOSE_STOPPED: u16 = 1000;

/// What the lab sends the websocket task.
#[derive(Debug, PartialEq)]
pub enum ToPeer {
    /// One protocol message, JSON.
    Message(String),
    /// The end: close the websocket with this code and reason.
    Close {
        /// [`CLOSE_DETACHED`] or [`CLOSE_STOPPED`].
        code: u16,
        /// Why, for the person at the other end.
        reason: String,
    },
}

/// What the websocket task leaves behind for the lab: why it let go, and whether it
/// has (its end dropped: the connection is over); and the bytes the lab handed it that
/// it has not written to the socket yet (a client that does not read holds them).
#[derive(Debug, Default)]
struct Farewell {
    why: Mutex<Option<String>>,
    gone: AtomicBool,
    queued: AtomicUsize,
}

/// Whether a remote controller's connection is over, readable while the controller
/// itself is busy on another thread (a new attach replaces a controller whose
/// connection is over at once, even in a paused lab that has not asked it anything).
#[derive(Clone, Debug)]
pub struct PeerWatch(Arc<Farewell>);

impl PeerWatch {
    /// Whether the websocket task has ended.
    pub fn gone(&self) -> bool {
        self.0.gone.load(Ordering::Acquire)
    }

    /// Why the websocket task let go, if it said.
    pub fn why(&self) -> Option<String> {
        self.0.why.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The lab's end of a remote controller.
pub struct RemoteController {
    robot: String,
    limits: Limits,
    conversation: Conversation,
    to_peer: UnboundedSender<ToPeer>,
    from_peer: Receiver<Vec<u8>>,
    farewell: Arc<Farewell>,
    /// When the awaited answer is due (the step budget, or the start-up budget).
    deadline: Instant,
    budget: Duration,
    /// When the readings being answered went out.
    asked_at: Instant,
    failed: Option<ProgramError>,
}

/// The websocket task's end of a remote controller.
pub struct RemotePeer {
    /// What the lab sends, in order; `None` once the lab has dropped the controller.
    pub to_peer: UnboundedReceiver<ToPeer>,
    from_peer: SyncSender<Vec<u8>>,
    farewell: Arc<Farewell>,
}

/// Why the websocket task must close: the controller flooded, or the lab let go.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PeerClosed {
    /// More than [`MAX_MESSAGES_AHEAD`] messages were waiting for the lab.
    #[error("sent more than {MAX_MESSAGES_AHEAD} messages before the lab read them (a flood)")]
    Flooded,
    /// The lab no longer listens (the controller was detached or stopped).
    #[error("the lab detached this controller")]
    LabGone,
}

/// A remote controller for `robot` under `limits`: the lab's end and the websocket's.
pub fn remote_pair(robot: &str, limits: Limits) -> (RemoteController, RemotePeer) {
    let (to_peer, peer_inbox) = unbounded_channel();
    let (peer_outbox, from_peer) = mpsc::sync_channel(MAX_MESSAGES_AHEAD);
    let farewell = Arc::new(Farewell::default());
    let now = Instant::now();
    let controller = RemoteController {
        robot: robot.to_owned(),
        conversation: Conversation::new(&limits, PROGRAM_PROTOCOL_VERSION),
        deadline: now + limits.startup_budget,
        budget: limits.startup_budget,
        limits,
        to_peer,
        from_peer,
        farewell: Arc::clone(&farewell),
        asked_at: now,
        failed: None,
    };
    (controller, RemotePeer { to_peer: peer_inbox, from_peer: peer_outbox, farewell })
}

impl RemotePeer {
    /// Hands the lab one message from the controller, without waiting.
    pub fn deliver(&self, message: Vec<u8>) -> Result<(), PeerClosed> {
        match self.from_peer.try_send(message) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => {
                self.farewell(PeerClosed::Flooded.to_string());
                Err(PeerClosed::Flooded)
            }
            Err(TrySendError::Disconnected(_)) => Err(PeerClosed::LabGone),
        }
    }

    /// A message the lab sent (`bytes` long) is written to the socket.
    pub fn written(&self, bytes: usize) {
        let _ =
            self.farewell.queued.fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| Some(q.saturating_sub(bytes)));
    }

    /// Says why the connection ends (the lab tells the controller's owner), before the
    /// task drops its end.
    pub fn farewell(&self, why: String) {
        let mut said = self.farewell.why.lock().unwrap_or_else(|e| e.into_inner());
        said.get_or_insert(why);
    }
}

impl Drop for RemotePeer {
    fn drop(&mut self) {
        self.farewell.gone.store(true, Ordering::Release);
    }
}

impl RemoteController {
    /// A watch on its connection.
    pub fn watch(&self) -> PeerWatch {
        PeerWatch(Arc::clone(&self.farewell))
    }

    /// Sends the hello for the robot `side` describes; the first [`Controller::receive`]
    /// then waits for the `ready` up to the start-up budget.
    pub fn greet(&mut self, side: &RobotSide) -> Result<(), ProgramError> {
        let hello = self.conversation.hello(side);
        self.deadline = Instant::now() + self.limits.startup_budget;
        self.budget = self.limits.startup_budget;
        self.asked_at = Instant::now();
        self.send(&hello)
    }

    fn send(&mut self, message: &LabMsg) -> Result<(), ProgramError> {
        let json = serde_json::to_string(message).expect("lab messages serialise");
        self.farewell.queued.fetch_add(json.len(), Ordering::AcqRel);
        // Unbounded, so never a wait: the lab sends a step only once the last one is
        // answered, so what waits here is one step, a `stop` and a close at most.
        if self.to_peer.send(ToPeer::Message(json)).is_err() {
            return Err(self.gone());
        }
        Ok(())
    }

    /// The connection ended: why, as the websocket task said (or a plain disconnect).
    fn gone(&mut self) -> ProgramError {
        let said = self.farewell.why.lock().unwrap_or_else(|e| e.into_inner()).clone();
        self.fail(ProgramError::Detached(said.unwrap_or_else(|| "the remote controller disconnected".into())))
    }

    /// Detaches it for good with `error`, closing its websocket with the reason.
    fn fail(&mut self, error: ProgramError) -> ProgramError {
        if self.failed.is_none() {
            let reason = error.to_string();
            let _ = self.to_peer.send(ToPeer::Close { code: CLOSE_DETACHED, reason });
        }
        self.conversation.end();
        self.failed = Some(error.clone());
        error
    }

    /// Takes what has arrived (`wait`: until the deadline) until the awaited answer.
    fn answer(&mut self, wait: bool) -> Result<Option<Reply>, ProgramError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if let Err(e) = self.conversation.expecting() {
            return Err(self.fail(e));
        }
        if wait {
            // The budget counts from when the lab begins to wait: the step may have
            // gone out long before, in a real-time lab that did not wait for it.
            self.deadline = self.deadline.max(Instant::now() + self.budget);
        }
        loop {
            let received = if wait {
                let left = self.deadline.saturating_duration_since(Instant::now());
                self.from_peer.recv_timeout(left).map_err(|e| match e {
                    RecvTimeoutError::Timeout => None,
                    RecvTimeoutError::Disconnected => Some(()),
                })
            } else {
                self.from_peer.try_recv().map_err(|e| match e {
                    TryRecvError::Empty => None,
                    TryRecvError::Disconnected => Some(()),
                })
            };
            let bytes = match received {
                Ok(bytes) => bytes,
                Err(Some(())) => return Err(self.gone()),
                Err(None) if wait => {
                    let ms = self.budget.as_millis();
                    return Err(self.fail(ProgramError::Detached(format!("did not answer within {ms} ms"))));
                }
                Err(None) if self.asked_at.elapsed() >= REMOTE_STALL_LIMIT.max(self.budget) => {
                    let secs = REMOTE_STALL_LIMIT.max(self.budget).as_secs_f64();
                    return Err(self.fail(ProgramError::Detached(format!("has not answered for {secs:.0} s"))));
                }
                Err(None) => return Ok(None),
            };
            match Conversation::parse(&bytes).and_then(|message| self.conversation.take(message)) {
                Ok(Some(reply)) => return Ok(Some(reply)),
                Ok(None) => {}
                Err(e) => return Err(self.fail(e)),
            }
        }
    }
}

impl Controller for RemoteController {
    fn robot(&self) -> &str {
        &self.robot
    }

    fn send_step(&mut self, input: &StepInput) -> Result<(), ProgramError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if let Err(e) = self.conversation.step(input.step) {
            return Err(self.fail(e));
        }
        let now = Instant::now();
        self.deadline = now + self.limits.step_budget;
        self.budget = self.limits.step_budget;
        self.asked_at = now;
        self.send(&input.to_message())
    }

    fn receive(&mut self) -> Result<Reply, ProgramError> {
        self.answer(true).map(|reply| reply.expect("a patient read returns an answer or an error"))
    }

    fn try_receive(&mut self) -> Result<Option<Reply>, ProgramError> {
        self.answer(false)
    }

    /// What the lab sent that the websocket task has not written to the socket yet.
    fn unread(&self) -> usize {
        self.farewell.queued.load(Ordering::Acquire)
    }

    fn abandon(&mut self, why: &ProgramError) {
        let _ = self.fail(why.clone());
    }

    /// The controller's machine is not ours: its CPU is its own business.
    fn cpu_time(&self) -> Option<Duration> {
        None
    }

    /// Says `stop` (its `robot.step()` returns `False`) and closes; never waits on it.
    fn stop(&mut self) -> Result<(), ProgramError> {
        if self.failed.is_none() {
            self.conversation.stop();
            let json = serde_json::to_string(&LabMsg::Stop).expect("lab messages serialise");
            let _ = self.to_peer.send(ToPeer::Message(json));
            let reason = "the lab stopped this controller".to_owned();
            let _ = self.to_peer.send(ToPeer::Close { code: CLOSE_STOPPED, reason });
            self.failed = Some(ProgramError::Stopped);
        }
        Ok(())
    }

    fn error(&self) -> Option<&ProgramError> {
        self.failed.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn next(peer: &mut RemotePeer) -> ToPeer {
        peer.to_peer.try_recv().expect("the lab sent something")
    }

    fn attached(limits: Limits) -> (RemoteController, RemotePeer) {
        let (mut lab, mut peer) = remote_pair("bot", limits);
        lab.greet(&RobotSide::new("bot")).unwrap();
        assert!(matches!(next(&mut peer), ToPeer::Message(m) if m.starts_with(r#"{"type":"hello""#)));
        peer.deliver(br#"{"type":"ready","version":1,"commands":{"M":{"speed":1.0}}}"#.to_vec()).unwrap();
        assert_eq!(lab.receive().unwrap().commands.len(), 1);
        (lab, peer)
    }

    fn step(lab: &mut RemoteController, step: u64) {
        lab.send_step(&StepInput { step, time_secs: 0.0, sensors: BTreeMap::new() }).unwrap();
    }

    #[test]
    fn a_step_answered_comes_back_as_the_reply() {
        let (mut lab, mut peer) = attached(Limits::default());
        step(&mut lab, 5);
        assert!(matches!(next(&mut peer), ToPeer::Message(m) if m.contains(r#""step":5"#)));
        assert_eq!(lab.try_receive().unwrap(), None, "nothing has come yet");
        peer.deliver(br#"{"type":"commands","step":5,"commands":{"M":{"speed":2.0}}}"#.to_vec()).unwrap();
        assert_eq!(lab.try_receive().unwrap().unwrap().step, Some(5));
    }

    #[test]
    fn a_lockstep_wait_ends_at_the_step_budget() {
        let limits = Limits { step_budget: Duration::from_millis(30), ..Limits::default() };
        let (mut lab, mut peer) = attached(limits);
        step(&mut lab, 5);
        let error = lab.receive().unwrap_err();
        assert_eq!(error, ProgramError::Detached("did not answer within 30 ms".into()));
        let _ = next(&mut peer);
        assert_eq!(next(&mut peer), ToPeer::Close { code: CLOSE_DETACHED, reason: error.to_string() });
        assert_eq!(lab.send_step(&StepInput { step: 10, time_secs: 0.0, sensors: BTreeMap::new() }), Err(error));
    }

    #[test]
    fn a_lockstep_wait_gets_its_whole_budget_however_long_ago_the_step_went_out() {
        let limits = Limits { step_budget: Duration::from_millis(200), ..Limits::default() };
        let (mut lab, peer) = attached(limits);
        step(&mut lab, 5);
        // A real-time lab went on without the answer for longer than the budget...
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(lab.try_receive().unwrap(), None);
        // ...then the lab switched to lockstep and waits; the answer comes 100 ms later.
        let answering = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            peer.deliver(br#"{"type":"commands","step":5,"commands":{}}"#.to_vec()).unwrap();
            peer
        });
        assert_eq!(lab.receive().expect("answered within the wait's budget").step, Some(5));
        answering.join().unwrap();
    }

    #[test]
    fn a_flood_is_refused_and_told() {
        let (mut lab, peer) = attached(Limits::default());
        step(&mut lab, 5);
        let line = br#"{"type":"output","output":[]}"#;
        for _ in 0..MAX_MESSAGES_AHEAD {
            peer.deliver(line.to_vec()).unwrap();
        }
        assert_eq!(peer.deliver(line.to_vec()), Err(PeerClosed::Flooded));
        drop(peer);
        // What had arrived is read, then the reason the peer gave.
        let error = lab.receive().unwrap_err();
        assert_eq!(error, ProgramError::Detached(PeerClosed::Flooded.to_string()));
    }

    #[test]
    fn a_disconnect_detaches_it_and_stop_closes_cleanly() {
        let (mut lab, peer) = attached(Limits::default());
        step(&mut lab, 5);
        drop(peer);
        assert_eq!(lab.receive(), Err(ProgramError::Detached("the remote controller disconnected".into())));

        let (mut lab, mut peer) = attached(Limits::default());
        lab.stop().unwrap();
        assert_eq!(next(&mut peer), ToPeer::Message(r#"{"type":"stop"}"#.into()));
        assert!(matches!(next(&mut peer), ToPeer::Close { code: CLOSE_STOPPED, .. }));
        drop(lab);
        assert_eq!(peer.deliver(b"{}".to_vec()), Err(PeerClosed::LabGone));

        let (lab, peer) = remote_pair("bot", Limits::default());
        let watch = lab.watch();
        assert!(!watch.gone());
        drop(peer);
        assert!(watch.gone(), "the lab sees the connection is over without asking the controller");
    }
}
