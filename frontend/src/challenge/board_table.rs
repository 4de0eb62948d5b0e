//! The board: one row per participant who tried (as the caller may see them), best
//! first: name, attempts, solved, best score with its unit, last status; the caller's
//! own row marked.

use leptos::prelude::*;
use vlab_protocol::{BoardRow, BoardVisibility};

use super::ChallengeState;
use super::panel::score_unit;
use super::words::{status_name, status_words};
use crate::ui::{ForEach, When};

/// The table; a line saying nobody tried yet while it is empty.
#[component]
pub fn BoardTable() -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let rows = move || challenge.board.with(|b| b.as_ref().map(|b| b.rows.clone()).unwrap_or_default());
    let note = move || {
        challenge.board.with(|b| match b.as_ref().map(|b| b.visibility) {
            Some(BoardVisibility::Names) => "Everybody sees every row.",
            _ => "Students see only their own row.",
        })
    };
    view! {
        <h4 class="challenge-heading">"Board"</h4>
        <When
            when=move || challenge.board.with(|b| b.as_ref().is_some_and(|b| !b.rows.is_empty()))
            fallback=|| view! { <p class="hint" data-testid="board-empty">"Nobody has finished an attempt yet."</p> }
        >
            <table class="board-table" data-testid="board-table">
                <thead>
                    <tr>
                        <th scope="col">"Name"</th>
                        <th scope="col" title="Attempts finished">"Tries"</th>
                        <th scope="col" title="Solved">"✓"</th>
                        <th scope="col">"Best"</th>
                        <th scope="col">"Last"</th>
                    </tr>
                </thead>
                <tbody>
                    <ForEach
                        each=rows
                        key=|row: &BoardRow| {
                            (row.user, row.attempts, row.solved, row.best.as_ref().map(|b| b.id), row.last.as_ref().map(|l| l.id))
                        }
                        let:row
                    >
                        <BoardLine row=row />
                    </ForEach>
                </tbody>
            </table>
        </When>
        <p class="hint board-note" data-testid="board-note">{note}</p>
    }
}

/// One participant's row.
#[component]
fn BoardLine(row: BoardRow) -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let unit = score_unit(challenge);
    let best =
        row.best.as_ref().and_then(|best| best.score).map(|score| unit.text(score)).unwrap_or_else(|| "—".into());
    let last = row.last.as_ref().map(|last| status_words(last.status)).unwrap_or("—");
    let last_status = row.last.as_ref().map(|last| status_name(last.status)).unwrap_or_default();
    view! {
        <tr
            class="board-row"
            class:is-you=row.you
            data-testid="board-row"
            data-you=row.you.to_string()
            data-name=row.name.clone()
            data-attempts=row.attempts.to_string()
            data-solved=row.solved.to_string()
        >
            // A name is text from another person: shown as text, never as HTML.
            <td class="board-name" title=row.name.clone()>
                {row.name.clone()}
                {row.you.then(|| view! { <span class="badge is-you">"you"</span> })}
            </td>
            <td class="readout">{row.attempts}</td>
            <td class="board-solved">{if row.solved { "✓" } else { "" }}</td>
            <td class="readout" data-testid="board-best">{best}</td>
            <td class=format!("board-last status-{last_status}")>{last}</td>
        </tr>
    }
}
