//! The console's lines, newest in view unless the reader scrolled up to older ones.

use leptos::html::Div;
use leptos::prelude::*;

use super::ConsoleState;
use super::console_log::{line_stamp, opens_a_run, source_tag};
use crate::ui::{ForEach, When, effect};

/// How close to the bottom (pixels) still counts as "reading the newest lines".
const STICK_TO_BOTTOM_PX: i32 = 24;

/// The scrolling list of console lines.
#[component]
pub(super) fn ConsoleLines() -> impl IntoView {
    let console = expect_context::<ConsoleState>();
    let scroller = NodeRef::<Div>::new();
    let stick = StoredValue::new(true);
    effect(move |_| {
        console.buffer.track();
        if !stick.get_value() {
            return;
        }
        // By the next frame the console may be gone (another robot picked, one whose
        // console this page may not read): then there is nothing to scroll.
        request_animation_frame(move || {
            if let Some(element) = scroller.try_get_untracked().flatten() {
                element.set_scroll_top(element.scroll_height());
            }
        });
    });
    let on_scroll = move |_| {
        if let Some(element) = scroller.get_untracked() {
            let from_bottom = element.scroll_height() - element.scroll_top() - element.client_height();
            stick.set_value(from_bottom <= STICK_TO_BOTTOM_PX);
        }
    };
    let lines = move || {
        console.buffer.with(|console| {
            let first = console.dropped();
            console.lines().enumerate().map(|(i, line)| (first + i as u64, line.clone())).collect::<Vec<_>>()
        })
    };
    view! {
        <div
            class="console-lines"
            data-testid="console-lines"
            data-count=move || console.buffer.with(|c| c.len())
            node_ref=scroller
            on:scroll=on_scroll
        >
            <When when=move || console.buffer.with(|c| c.dropped() > 0)>
                <div class="console-dropped">
                    {move || format!("… {} older lines not shown", console.buffer.with(|c| c.dropped()))}
                </div>
            </When>
            <When when=move || console.buffer.with(|c| c.is_empty())>
                <div class="console-empty">"No output yet."</div>
            </When>
            <ForEach each=lines key=|(seq, _)| *seq let:entry>
                <div
                    class=format!(
                        "console-line is-{}{}",
                        source_tag(entry.1.source),
                        if opens_a_run(&entry.1) { " opens-run" } else { "" }
                    )
                    data-testid="console-line"
                    data-step=entry.1.step.to_string()
                    data-source=source_tag(entry.1.source)
                >
                    <span class="console-stamp">{line_stamp(&entry.1)}</span>
                    <span class="console-tag">{source_tag(entry.1.source)}</span>
                    <span class="console-text">{entry.1.text.clone()}</span>
                </div>
            </ForEach>
        </div>
    }
}
