//! The timeline's slider. Dragging seeks at most once per the bar's interval and once
//! more on release; letting go at the live end, End (the slider's own key to its end)
//! or Escape goes back to live.

use std::time::Duration;

use leptos::prelude::*;
use web_sys::{Event, HtmlInputElement, KeyboardEvent};

use super::bar::BarModel;
use super::seek::Seeker;
use crate::timeline::replay::Target;
use crate::timeline::throttle::Throttle;

/// The slider over the bar's span.
#[component]
pub(super) fn TimelineSlider(bar: BarModel) -> impl IntoView {
    let flush_scheduled = StoredValue::new(false);
    let schedule_flush = move |wait_ms: f64| {
        if flush_scheduled.get_value() {
            return;
        }
        flush_scheduled.set_value(true);
        flush_later(bar.seeker, bar.throttle, flush_scheduled, wait_ms);
    };
    let on_input = move |event: Event| {
        let Some((target, _)) = read_slider(bar, &event) else { return };
        let now = now_ms();
        match bar.throttle.try_update_value(|t| t.offer(now, target)).flatten() {
            Some(target) => bar.seeker.seek(target),
            None => schedule_flush(bar.throttle.with_value(|t| t.due_in(now)).unwrap_or(0.0)),
        }
    };
    let on_change = move |event: Event| {
        let Some((target, at_end)) = read_slider(bar, &event) else { return };
        // Let go at the live end of the current run: that is the live lab.
        if at_end && bar.span.get_untracked().is_some_and(|span| span.current) {
            bar.back_to_live();
            return;
        }
        if let Some(target) = bar.throttle.try_update_value(|t| t.finish(now_ms(), target)).flatten() {
            bar.seeker.seek(target);
        }
    };
    let on_keydown = move |event: KeyboardEvent| {
        if event.key() == "Escape" && bar.seeking.get_untracked() {
            event.prevent_default();
            bar.back_to_live();
        }
    };
    view! {
        <input
            id="timeline-slider"
            class="timeline-slider"
            data-testid="timeline-slider"
            type="range"
            step="1"
            aria-label="Timeline: drag to see the lab at an earlier moment; End or Escape goes back to live"
            aria-valuetext=move || bar.thumb_time()
            disabled=move || !bar.span.get().is_some_and(|s| s.scrubbable())
            prop:min=move || bar.span.get().map_or(0, |s| s.first).to_string()
            prop:max=move || bar.span.get().map_or(0, |s| s.last).to_string()
            prop:value=move || bar.thumb().unwrap_or(0).to_string()
            on:input=on_input
            on:change=on_change
            on:keydown=on_keydown
        />
    }
}

/// The moment the slider points at, and whether it is at its right end.
fn read_slider(bar: BarModel, event: &Event) -> Option<(Target, bool)> {
    let input: HtmlInputElement = event_target(event);
    let step = input.value().parse::<u64>().ok()?;
    let at_end = input.max().parse::<u64>().is_ok_and(|max| step >= max);
    // The run by its number: a reset meanwhile must not move the moment into the next run.
    let run = bar.run.get_untracked().or_else(|| bar.span.get_untracked().map(|span| span.run));
    Some((Target { run, step }, at_end))
}

/// Sends the seek the throttle held back once its interval is over (again later if the
/// timer fired early).
fn flush_later(seeker: Seeker, throttle: StoredValue<Throttle<Target>>, scheduled: StoredValue<bool>, wait_ms: f64) {
    set_timeout(
        move || {
            let now = now_ms();
            let Some(sent) = throttle.try_update_value(|t| t.flush(now)) else { return };
            if let Some(target) = sent {
                seeker.seek(target);
            }
            match throttle.with_value(|t| t.due_in(now)) {
                Some(wait_ms) => flush_later(seeker, throttle, scheduled, wait_ms),
                None => scheduled.set_value(false),
            }
        },
        Duration::from_millis(wait_ms.ceil() as u64 + 1),
    );
}

fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}
