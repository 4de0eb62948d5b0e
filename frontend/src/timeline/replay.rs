//! Whether the page shows the live lab or a recorded moment, and what that means for each message that arrives.
//!
//! Live → **seeking** (a seek was sent: live frames, snapshots, reports and beliefs stop
//! moving the view and the inspector, though the clock goes on) → a moment arrives and
//! is shown (more seeks, more moments) → back to live: `Live` is sent and the page is
//! **returning** until the server's snapshot arrives (frames before it may belong to
//! another scene than the recorded one on screen; reports are live again already) →
//! **live**. A moment answering a seek from before going live is stale and dropped.
//!
//! It also remembers which scene the view holds, so a seek can tell the server its
//! epoch and the scene is not sent again. Epochs count within a server's life, so they
//! are only compared within one run.

use vlab_protocol::RecordedMoment;

/// Where the page stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    /// The live lab.
    #[default]
    Live,
    /// A recorded moment (or the wait for the first one).
    Seeking,
    /// `Live` sent; waiting for the live scene.
    Returning,
}

impl Phase {
    /// The name e2e tests read (`data-phase`).
    pub fn name(self) -> &'static str {
        match self {
            Phase::Live => "live",
            Phase::Seeking => "seeking",
            Phase::Returning => "returning",
        }
    }
}

/// A step asked for, in `run` (`None`: the current run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The run.
    pub run: Option<u32>,
    /// The step.
    pub step: u64,
}

/// The recorded moment on screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shown {
    /// Its run.
    pub run: u32,
    /// The step shown: the last recorded one at or before the step asked.
    pub step: u64,
    /// Its simulation time, seconds.
    pub time: f64,
    /// The step asked for.
    pub asked: u64,
}

/// The scene the 3D view holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewScene {
    /// The live lab's, of this epoch.
    Live {
        /// Its epoch.
        epoch: u32,
    },
    /// A recorded one.
    Recorded {
        /// Its run.
        run: u32,
        /// Its epoch.
        epoch: u32,
    },
}

/// The page's replay state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replay {
    phase: Phase,
    target: Option<Target>,
    shown: Option<Shown>,
    scene: Option<ViewScene>,
}

impl Replay {
    /// Where the page stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether a recorded moment is asked for or shown.
    pub fn is_seeking(&self) -> bool {
        self.phase == Phase::Seeking
    }

    /// Whether live frames and snapshots move the 3D view.
    pub fn view_follows_live(&self) -> bool {
        self.phase == Phase::Live
    }

    /// Whether live reports and beliefs feed the inspector, its plots and the trails:
    /// not while a moment is shown (the plots freeze).
    pub fn inspector_follows_live(&self) -> bool {
        self.phase != Phase::Seeking
    }

    /// The step last asked for while seeking.
    pub fn target(&self) -> Option<Target> {
        self.target.filter(|_| self.is_seeking())
    }

    /// The moment on screen while seeking.
    pub fn shown(&self) -> Option<Shown> {
        self.shown.filter(|_| self.is_seeking())
    }

    /// The user asks for `target` (the current run is `current_run`): the page is
    /// seeking. Returns the epoch the seek tells the server (`None`: send the scene).
    pub fn seek(&mut self, target: Target, current_run: u32) -> Option<u32> {
        self.phase = Phase::Seeking;
        self.target = Some(target);
        let run = target.run.unwrap_or(current_run);
        match self.scene? {
            ViewScene::Live { epoch } if run == current_run => Some(epoch),
            ViewScene::Recorded { run: held, epoch } if held == run => Some(epoch),
            _ => None,
        }
    }

    /// A moment arrived: `true` when it is to be shown (the page is seeking).
    pub fn take_moment(&mut self, moment: &RecordedMoment) -> bool {
        if self.phase != Phase::Seeking {
            return false;
        }
        self.shown = Some(Shown { run: moment.run, step: moment.step, time: moment.time, asked: moment.asked });
        if moment.snapshot.is_some() {
            self.scene = Some(ViewScene::Recorded { run: moment.run, epoch: moment.epoch });
        }
        true
    }

    /// The view could not place a moment's poses on the scene it holds: the next seek
    /// asks for the scene.
    pub fn forget_scene(&mut self) {
        self.scene = None;
    }

    /// Back to live: `true` when `Live` is to be sent (the page was seeking).
    pub fn go_live(&mut self) -> bool {
        if self.phase != Phase::Seeking {
            return false;
        }
        self.phase = Phase::Returning;
        self.target = None;
        self.shown = None;
        true
    }

    /// The live scene (a snapshot of `epoch`) arrived: `true` when the view takes it
    /// (live or returning; returning ends here).
    pub fn live_snapshot(&mut self, epoch: u32) -> bool {
        if self.phase == Phase::Seeking {
            return false;
        }
        self.phase = Phase::Live;
        self.scene = Some(ViewScene::Live { epoch });
        true
    }

    /// A new connection: the server knows nothing of this page's seeking, and sends
    /// the live scene first.
    pub fn reconnected(&mut self) {
        *self = Replay::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moment(run: u32, step: u64, asked: u64, epoch: u32, with_scene: bool) -> RecordedMoment {
        let snapshot = with_scene.then(|| vlab_protocol::SceneSnapshot {
            epoch,
            sky: [0, 0, 0],
            bodies: vec![],
            links: vec![],
            zones: vec![],
        });
        RecordedMoment {
            run,
            step,
            time: step as f64 / 240.0,
            asked,
            snapshot,
            epoch,
            poses: vec![],
            robots: vec![],
            trails: vec![],
        }
    }

    #[test]
    fn live_then_seeking_then_a_moment_then_live_again() {
        let mut replay = Replay::default();
        assert_eq!(replay.phase(), Phase::Live);
        assert!(replay.live_snapshot(4), "the join's snapshot");
        assert!(replay.view_follows_live() && replay.inspector_follows_live());
        assert!(!replay.go_live(), "already live: nothing to send");

        let target = Target { run: None, step: 240 };
        assert_eq!(replay.seek(target, 2), Some(4), "the live scene's epoch: the server need not send it");
        assert_eq!(replay.phase(), Phase::Seeking);
        assert!(!replay.view_follows_live() && !replay.inspector_follows_live(), "live frames and plots stop");
        assert_eq!((replay.target(), replay.shown()), (Some(target), None), "asked, nothing shown yet");
        assert!(!replay.live_snapshot(5), "a live snapshot while seeking leaves the view alone");

        assert!(replay.take_moment(&moment(2, 236, 240, 4, false)));
        assert_eq!(replay.shown(), Some(Shown { run: 2, step: 236, time: 236.0 / 240.0, asked: 240 }));

        assert!(replay.go_live(), "send Live");
        assert_eq!(replay.phase(), Phase::Returning);
        assert!(replay.inspector_follows_live(), "live reports feed the inspector again");
        assert!(!replay.view_follows_live(), "frames wait for the live scene");
        assert_eq!((replay.target(), replay.shown()), (None, None));
        assert!(!replay.take_moment(&moment(2, 300, 300, 4, false)), "a moment in flight is stale");
        assert!(replay.live_snapshot(5), "the server's snapshot brings the view back");
        assert_eq!(replay.phase(), Phase::Live);
        assert!(replay.view_follows_live());
    }

    #[test]
    fn a_recorded_scene_is_named_by_its_epoch_only_within_its_run() {
        let mut replay = Replay::default();
        assert_eq!(replay.seek(Target { run: None, step: 10 }, 3), None, "no scene yet: send it");
        replay.live_snapshot(7);
        assert_eq!(replay.seek(Target { run: Some(2), step: 10 }, 3), None, "another run: its scene may differ");
        assert!(replay.take_moment(&moment(2, 10, 10, 7, true)));
        assert_eq!(replay.seek(Target { run: Some(2), step: 90 }, 3), Some(7), "that run's scene is held now");
        assert_eq!(replay.seek(Target { run: None, step: 90 }, 3), None, "the current run's epoch 7 may be another");
        assert!(replay.take_moment(&moment(3, 90, 90, 7, false)));
        replay.forget_scene();
        assert_eq!(replay.seek(Target { run: None, step: 95 }, 3), None, "a scene the poses did not fit is sent again");
    }

    #[test]
    fn seeking_again_while_returning_keeps_the_view_on_the_recording() {
        let mut replay = Replay::default();
        replay.live_snapshot(1);
        replay.seek(Target { run: None, step: 5 }, 1);
        replay.go_live();
        replay.seek(Target { run: None, step: 6 }, 1);
        assert!(!replay.live_snapshot(1), "the resync's snapshot arrives after the new seek");
        assert!(replay.take_moment(&moment(1, 6, 6, 1, false)));
    }

    #[test]
    fn a_new_connection_is_live() {
        let mut replay = Replay::default();
        replay.seek(Target { run: None, step: 5 }, 1);
        replay.reconnected();
        assert_eq!(replay, Replay::default());
        assert_eq!(Phase::Returning.name(), "returning");
    }
}
