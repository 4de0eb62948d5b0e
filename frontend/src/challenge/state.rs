//! The challenge's state in a lab: its board, this page's attempts (asked again every
//! second while one is open, and the board while a live run goes on), the last refusal,
//! and the attempt replay the 3D view may show instead of the live lab.

use std::time::Duration;

use leptos::prelude::*;
use vlab_protocol::{AttemptReport, BoardVisibility, ChallengeBoard, ClientMsg, Role};

use super::attempts::{open_attempts, take_report};
use super::client::{attempt, attempts, challenge_board};
use super::player::ReplayPlayer;
use super::replay::ReplayTrack;
use super::watch::Watch;
use crate::api::error_sentence;
use crate::connection::LabSession;
use crate::view3d::ViewState;

/// How often open attempts (and a live run's board) are asked for again.
const POLL_EVERY: Duration = Duration::from_secs(1);

/// Handles to the challenge's state; `Copy`, so every component and callback takes its own.
#[derive(Clone, Copy)]
pub struct ChallengeState {
    session: LabSession,
    /// The challenge and its board (`None`: the lab has none, or not known yet).
    pub board: RwSignal<Option<ChallengeBoard>>,
    /// Whether the live scene has zones (a challenge's), before the board is known.
    pub has_zones: RwSignal<bool>,
    /// This page's attempts (the instructor's: everybody's), newest first.
    pub attempts: RwSignal<Vec<AttemptReport>>,
    /// The server's last refusal, shown in the panel until the next request.
    pub error: RwSignal<Option<String>>,
    /// Whether the view shows the live lab or an attempt.
    pub watch: RwSignal<Watch>,
    /// The attempt shown, its time and whether it plays.
    pub player: ReplayPlayer,
    /// Whether a poll is on its way (one at a time).
    polling: StoredValue<bool>,
}

impl ChallengeState {
    /// Nothing known yet.
    pub fn new(session: LabSession) -> ChallengeState {
        ChallengeState {
            session,
            board: RwSignal::new(None),
            has_zones: RwSignal::new(false),
            attempts: RwSignal::new(Vec::new()),
            error: RwSignal::new(None),
            watch: RwSignal::new(Watch::Live),
            player: ReplayPlayer::new(),
            polling: StoredValue::new(false),
        }
    }

    /// Whether the lab has a challenge (reactive).
    pub fn exists(&self) -> bool {
        self.has_zones.get() || self.board.with(Option::is_some)
    }

    /// Whether live frames move the 3D view now.
    pub fn view_follows_live(&self) -> bool {
        self.watch.with_untracked(|watch| watch.view_follows_live())
    }

    /// Whether the live scene is shown now (not while an attempt is).
    pub fn shows_live_snapshot(&self) -> bool {
        let Some(before) = self.watch.try_get_untracked() else { return true };
        let mut watch = before;
        let shows = watch.live_snapshot();
        // Told only when it changes: every live snapshot passes here.
        if watch != before {
            self.watch.set(watch);
        }
        shows
    }

    /// Connected (again): a lab known to have a challenge has its board asked for again.
    /// A lab not known to have one is not asked (its live scene's zones or the board's
    /// first change say it has): the 404 of a lab without a challenge would be an error
    /// in the browser's console on every lab page.
    pub fn connected(&self) {
        if self.exists_untracked() {
            self.refresh();
        }
    }

    /// Whether the live scene has zones: the board is asked for when they appear.
    pub fn take_zones(&self, has_zones: bool) {
        if has_zones && !self.exists_untracked() {
            self.refresh();
        }
        self.has_zones.set(has_zones);
    }

    fn exists_untracked(&self) -> bool {
        self.has_zones.get_untracked() || self.board.with_untracked(Option::is_some)
    }

    /// The board and this page's attempts, asked for again (when the lab shows it has a
    /// challenge, and whenever the server says the board changed).
    pub fn refresh(&self) {
        let this = *self;
        let (lab, token) = (self.session.lab_id(), self.session.token());
        leptos::task::spawn_local(async move {
            match challenge_board(&lab, token.as_deref()).await {
                Ok(board) => this.take_board(board),
                // A page that may not read the board (a viewer's) just has none.
                Err(error) if matches!(error.status(), Some(401 | 403)) => {}
                Err(error) => this.error.set(Some(error_sentence(&error))),
            }
            if this.board.with_untracked(Option::is_none) || !this.has_session() {
                return;
            }
            match attempts(&lab, token.as_deref()).await {
                Ok(list) => this.attempts.set(list),
                Err(error) => this.error.set(Some(error_sentence(&error))),
            }
            this.poll_while_open();
        });
    }

    /// The lab's settings say who sees which rows: a board shown otherwise is asked
    /// for again, so a student sees the rows the instructor just opened (or closed).
    pub fn take_board_visibility(&self, visibility: BoardVisibility) {
        if self.board.with_untracked(|board| board.as_ref().is_some_and(|b| b.visibility != visibility)) {
            self.refresh();
        }
    }

    /// The board the server sent (after a refresh, or a live run's start or stop).
    pub fn take_board(&self, board: Option<ChallengeBoard>) {
        self.board.set(board);
        self.poll_while_open();
    }

    /// An attempt's report: into the list, and asked again while it is open.
    pub fn take_attempt(&self, report: AttemptReport) {
        self.attempts.update(|list| take_report(list, report));
        self.poll_while_open();
    }

    /// Starts asking again every [`POLL_EVERY`] for the open attempts, and the board
    /// while a live run goes on (its clock), until none is left.
    fn poll_while_open(&self) {
        if self.polling.get_value() || !self.has_something_open() {
            return;
        }
        self.polling.set_value(true);
        let this = *self;
        set_timeout(move || leptos::task::spawn_local(async move { this.poll().await }), POLL_EVERY);
    }

    async fn poll(self) {
        let (lab, token) = (self.session.lab_id(), self.session.token());
        let open = self.attempts.with_untracked(|list| open_attempts(list));
        for id in open {
            match attempt(&lab, id, token.as_deref()).await {
                Ok(report) => self.attempts.update(|list| take_report(list, report)),
                Err(error) => self.error.set(Some(error_sentence(&error))),
            }
        }
        if self.run_goes_on()
            && let Ok(board) = challenge_board(&lab, token.as_deref()).await
        {
            self.board.set(board);
        }
        // `try_`: the page may have left the lab meanwhile (`None` is success here).
        if self.polling.try_set_value(false).is_none() {
            self.poll_while_open();
        }
    }

    fn has_something_open(&self) -> bool {
        let attempts_open = self.attempts.try_with_untracked(|list| !open_attempts(list).is_empty()).unwrap_or(false);
        attempts_open || self.run_goes_on()
    }

    fn run_goes_on(&self) -> bool {
        self.board
            .try_with_untracked(|board| {
                board.as_ref().and_then(|b| b.run.as_ref()).is_some_and(|run| run.over.is_none())
            })
            .unwrap_or(false)
    }

    fn has_session(&self) -> bool {
        self.session.role.get_untracked().is_some_and(|role| role != Role::Viewer)
    }

    /// Shows `track` in the 3D view instead of the live lab, from its start.
    pub fn show_replay(&self, view: ViewState, track: ReplayTrack) {
        self.watch.set(Watch::Attempt { id: track.attempt() });
        self.player.show(view, track);
    }

    /// Back to the live lab: the server sends its scene and poses again.
    pub fn back_to_lab(&self) {
        self.player.playing.set(false);
        if self.watch.try_update(Watch::back).unwrap_or(false) {
            self.player.close();
            if !self.session.send(&ClientMsg::Live) {
                self.session.error.set(Some("Not connected to the server: the live lab comes back when it is".into()));
            }
        }
    }

    /// A new connection: the server sends the live scene first, which ends any replay.
    pub fn reconnected(&self) {
        if self.watch.with_untracked(|watch| *watch != Watch::Live) {
            self.player.close();
            self.watch.set(Watch::Returning);
        }
    }
}
