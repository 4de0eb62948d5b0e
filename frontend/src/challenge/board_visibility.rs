//! The instructor's part of the Challenge panel: which rows of the board students see
//! (only their own, or every row with names), a lab setting.

use leptos::prelude::*;
use vlab_protocol::LabSettingsPatch;

use super::ChallengeState;
use super::words::{VISIBILITY_CHOICES, parse_visibility};
use crate::api::error_sentence;
use crate::classroom::ClassState;
use crate::classroom::client::change_settings;
use crate::connection::LabSession;

/// "Board shows students": only their own row, or every row with names.
#[component]
pub fn BoardVisibilityChoice() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let class = expect_context::<ClassState>();
    let challenge = expect_context::<ChallengeState>();
    let current = move || class.settings.with(|s| s.as_ref().map(|s| s.board));
    let change = move |value: String| {
        let Some(board) = parse_visibility(&value) else { return };
        let (lab, token) = (session.lab_id(), session.token());
        let patch = LabSettingsPatch { board: Some(board), ..Default::default() };
        leptos::task::spawn_local(async move {
            match change_settings(&lab, token.as_deref(), &patch).await {
                Ok(settings) => {
                    class.settings.set(Some(settings));
                    challenge.refresh();
                }
                Err(error) => challenge.error.set(Some(error_sentence(&error))),
            }
        });
    };
    view! {
        <div class="setting-choice">
            <label for="board-visibility">"Board shows students"</label>
            <select
                id="board-visibility"
                class="input"
                data-testid="board-visibility"
                on:change=move |event| change(event_target_value(&event))
            >
                {VISIBILITY_CHOICES
                    .map(|(choice, value, words)| {
                        view! {
                            <option value=value prop:selected=move || current() == Some(choice)>
                                {words}
                            </option>
                        }
                    })}
            </select>
        </div>
    }
}
