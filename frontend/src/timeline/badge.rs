//! The "Replay — step N, t = …" badge: says, wherever it is placed, that what is shown is a recorded moment and which one.

use leptos::prelude::*;

use super::TimelineState;
use crate::timeline::replay::Replay;
use crate::timeline::time_text::clock_text;
use crate::ui::When;

/// Shown while the page is seeking; `testid` names it for tests. `compact` leaves the
/// time out (the timeline shows it at its thumb).
#[component]
pub fn ReplayBadge(testid: &'static str, #[prop(optional)] compact: bool) -> impl IntoView {
    let timeline = expect_context::<TimelineState>();
    let seeking = move || timeline.replay.with(Replay::is_seeking);
    let shown = move || timeline.replay.with(Replay::shown);
    let text = move || match shown() {
        Some(shown) if compact => format!("Replay — step {}", shown.step),
        Some(shown) => format!("Replay — step {}, t = {}", shown.step, clock_text(shown.time)),
        None => "Replay — finding the moment…".to_owned(),
    };
    view! {
        <When when=seeking>
            <span
                class="badge is-replay"
                data-testid=testid
                data-step=move || shown().map(|s| s.step.to_string()).unwrap_or_default()
                data-asked=move || shown().map(|s| s.asked.to_string()).unwrap_or_default()
                data-run=move || shown().map(|s| s.run.to_string()).unwrap_or_default()
                data-time=move || shown().map(|s| s.time.to_string()).unwrap_or_default()
                title="A recorded moment: the live lab goes on meanwhile"
            >
                {text}
            </span>
        </When>
    }
}
