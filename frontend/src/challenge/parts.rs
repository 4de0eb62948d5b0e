//! The challenge's parts of the page, fetched the first time they are shown (`ui::part`):
//! a lab without a challenge never downloads them.

use leptos::prelude::*;
use wasm_split_helpers::wasm_split;

use super::panel::ChallengePanel;
use super::replay_bar::AttemptReplayBar;
use crate::ui::PartNotLoaded;

/// The Challenge panel.
#[wasm_split(challenge, fallible)]
pub fn challenge_panel() -> Result<AnyView, PartNotLoaded> {
    Ok(view! { <ChallengePanel /> }.into_any())
}

/// The bar of an attempt's replay, under the 3D view.
#[wasm_split(challenge, fallible)]
pub fn attempt_replay_bar() -> Result<AnyView, PartNotLoaded> {
    Ok(view! { <AttemptReplayBar /> }.into_any())
}
