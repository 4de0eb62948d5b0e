//! The lab's challenge on the page: the Challenge panel (what it asks, "Try it", this
//! page's attempts live, the board, the live run, the instructor's visibility choice and
//! Start / Stop) and
//! an attempt's replay shown in the 3D view instead of the live lab.
//!
//! Pure, host-tested: [`words`] (scores with their unit, statuses, summaries, which
//! robots this page may try), [`attempts`] (the attempts list kept current),
//! [`replay`] (an attempt's scene and its moment at any time as a frame), [`watch`]
//! (live → watching an attempt → returning → live, and what live messages still move).
//! Web only: `client` (the requests), `state` (the board, attempts, polling, the replay
//! shown), `player` (what plays a replay, here and on a class's page), and the parts
//! fetched when first shown (`parts`): `panel` with `attempt_list`, `board_table`,
//! `board_visibility` and `live_run`, and `replay_bar` under the view (the class page's
//! graded trials use its `ReplayBar` too).

pub mod attempts;
pub mod replay;
pub mod watch;
pub mod words;

#[cfg(target_arch = "wasm32")]
mod attempt_list;
#[cfg(target_arch = "wasm32")]
mod board_table;
#[cfg(target_arch = "wasm32")]
mod board_visibility;
#[cfg(target_arch = "wasm32")]
mod client;
#[cfg(target_arch = "wasm32")]
mod live_run;
#[cfg(target_arch = "wasm32")]
mod panel;
#[cfg(target_arch = "wasm32")]
mod parts;
#[cfg(target_arch = "wasm32")]
mod player;
#[cfg(target_arch = "wasm32")]
mod replay_bar;
#[cfg(target_arch = "wasm32")]
mod state;

#[cfg(target_arch = "wasm32")]
pub(crate) use self::parts::{attempt_replay_bar, challenge_panel};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::player::ReplayPlayer;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::replay_bar::ReplayBar;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::state::ChallengeState;
