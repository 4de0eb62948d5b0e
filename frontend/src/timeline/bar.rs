//! The bar under the 3D view: a slider from the first recorded step of a run to the live step, the time at the thumb and the live time, the run picker, "Back to live" while a moment is shown (and, for the instructor, "Rewind the lab to here"), and a note when the oldest part was dropped.
//!
//! Every viewer has it. Dragging seeks at most every [`SEEK_INTERVAL_MS`] and once more
//! on release; letting go at the live end, End (the slider's own key to its end) or
//! Escape, the button, or picking the current run goes back to live.

use std::time::Duration;

use leptos::prelude::*;
use web_sys::{Event, HtmlInputElement, KeyboardEvent};

use super::TimelineState;
use super::badge::ReplayBadge;
use super::rewind_controls::{RewindButton, RewindConfirm, RewindUi};
use super::seek::Seeker;
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::timeline::replay::{Replay, Target};
use crate::timeline::span::{DEFAULT_DT_SECS, LiveEnd, Span, run_choices};
use crate::timeline::throttle::Throttle;
use crate::timeline::time_text::clock_text;
use crate::ui::{ForEach, When, effect, memo};

/// Least time between two seeks of a drag, milliseconds.
const SEEK_INTERVAL_MS: f64 = 100.0;

/// The timeline; absent while the server records nothing.
#[component]
pub fn TimelineBar() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let timeline = expect_context::<TimelineState>();
    let inspector = expect_context::<InspectorState>();
    let seeker = Seeker::from_context();
    let throttle = StoredValue::new(Throttle::<Target>::new(SEEK_INTERVAL_MS));
    let flush_scheduled = StoredValue::new(false);

    let live_end = move || {
        let clock = session.clock.get();
        let dt_secs = session.lab_state.with(|state| state.as_ref().map_or(DEFAULT_DT_SECS, |s| s.dt_secs));
        LiveEnd { step: clock.step, time: clock.time_secs, dt_secs }
    };
    // The run the slider covers: the one a moment is asked of, else the current one.
    let run = memo(move |_| timeline.replay.with(|replay| replay.target().and_then(|t| t.run)));
    let span = memo(move |_| {
        let live = live_end();
        timeline.recording.with(|summary| {
            let summary = summary.as_ref()?;
            Span::of(summary, run.get(), live).or_else(|| Span::of(summary, None, live))
        })
    });
    let choices = memo(move |_| timeline.recording.with(|s| s.as_ref().map(run_choices).unwrap_or_default()));
    let seeking = memo(move |_| timeline.replay.with(Replay::is_seeking));
    // The thumb: the step asked while seeking, the live end otherwise.
    let value = move || {
        let span = span.get()?;
        Some(timeline.replay.with(Replay::target).map_or(span.last, |t| span.clamp(t.step)))
    };
    let thumb_time = move || span.get().zip(value()).map(|(span, step)| clock_text(span.time_at(step)));
    let live_time = move || clock_text(session.clock.with(|clock| clock.time_secs));
    let shown_run = move || span.get().map(|span| span.run);

    let schedule_flush = move |wait_ms: f64| {
        if flush_scheduled.get_value() {
            return;
        }
        flush_scheduled.set_value(true);
        flush_later(seeker, throttle, flush_scheduled, wait_ms);
    };
    let read_slider = move |event: &Event| -> Option<(Target, bool)> {
        let input: HtmlInputElement = event_target(event);
        let step = input.value().parse::<u64>().ok()?;
        let at_end = input.max().parse::<u64>().is_ok_and(|max| step >= max);
        // The run by its number: a reset meanwhile must not move the moment into the next run.
        let run = run.get_untracked().or_else(|| span.get_untracked().map(|span| span.run));
        Some((Target { run, step }, at_end))
    };
    let on_input = move |event: Event| {
        let Some((target, _)) = read_slider(&event) else { return };
        let now = now_ms();
        match throttle.try_update_value(|t| t.offer(now, target)).flatten() {
            Some(target) => seeker.seek(target),
            None => schedule_flush(throttle.with_value(|t| t.due_in(now)).unwrap_or(0.0)),
        }
    };
    let back_to_live = move || {
        throttle.update_value(Throttle::cancel);
        seeker.go_live();
    };
    let rewind = RewindUi::new();
    let on_change = move |event: Event| {
        let Some((target, at_end)) = read_slider(&event) else { return };
        // Let go at the live end of the current run: that is the live lab.
        if at_end && span.get_untracked().is_some_and(|span| span.current) {
            back_to_live();
            return;
        }
        if let Some(target) = throttle.try_update_value(|t| t.finish(now_ms(), target)).flatten() {
            seeker.seek(target);
        }
    };
    let on_keydown = move |event: KeyboardEvent| {
        if event.key() == "Escape" && seeking.get_untracked() {
            event.prevent_default();
            back_to_live();
        }
    };
    let pick_run = move |event: Event| {
        let Ok(picked) = event_target_value(&event).parse::<u32>() else { return };
        let Some(choice) = choices.with_untracked(|c| c.iter().find(|c| c.run == picked).cloned()) else { return };
        if choice.current {
            back_to_live();
            return;
        }
        let first = timeline.recording.with_untracked(|summary| {
            summary.as_ref().and_then(|s| s.runs.iter().find(|r| r.run == picked).map(|r| r.first_step))
        });
        throttle.update_value(Throttle::cancel);
        // An earlier run opens at its start (its first step still kept).
        seeker.seek(Target { run: Some(picked), step: first.unwrap_or(0) });
    };
    let note = move || span.get().and_then(|span| span.dropped_note());
    // Another robot picked while a moment is shown: the same moment, with its readings.
    effect(move |previous: Option<Option<String>>| {
        let picked = inspector.inspected.get();
        if previous.is_some_and(|previous| previous != picked)
            && let Some(target) = timeline.replay.with_untracked(Replay::target)
        {
            seeker.seek(target);
        }
        picked
    });

    view! {
        <When when=move || span.with(Option::is_some)>
            <section
                id="timeline"
                class="timeline"
                class:is-seeking=move || seeking.get()
                data-testid="timeline"
                data-phase=move || timeline.replay.with(|r| r.phase().name())
                data-first=move || span.get().map(|s| s.first.to_string()).unwrap_or_default()
                data-last=move || span.get().map(|s| s.last.to_string()).unwrap_or_default()
                data-run=move || shown_run().map(|r| r.to_string()).unwrap_or_default()
                aria-label="Timeline of the lab's recording"
            >
                <div class="timeline-row">
                    <When when=move || choices.with(|c| c.len() > 1)>
                        <select
                            id="timeline-run"
                            class="input timeline-run"
                            data-testid="timeline-run"
                            aria-label="Run to show"
                            title="Earlier runs: before a reset or a server restart"
                            on:change=pick_run
                        >
                            <ForEach each=move || choices.get() key=|choice| (choice.run, choice.label.clone()) let:choice>
                                <option
                                    value=choice.run.to_string()
                                    prop:selected=move || shown_run() == Some(choice.run)
                                >
                                    {choice.label.clone()}
                                </option>
                            </ForEach>
                        </select>
                    </When>
                    <output
                        id="timeline-time"
                        class="readout timeline-time"
                        data-testid="timeline-time"
                        for="timeline-slider"
                        title="Simulation time at the thumb"
                    >
                        {thumb_time}
                    </output>
                    <input
                        id="timeline-slider"
                        class="timeline-slider"
                        data-testid="timeline-slider"
                        type="range"
                        step="1"
                        aria-label="Timeline: drag to see the lab at an earlier moment; End or Escape goes back to live"
                        aria-valuetext=thumb_time
                        disabled=move || !span.get().is_some_and(|s| s.scrubbable())
                        prop:min=move || span.get().map_or(0, |s| s.first).to_string()
                        prop:max=move || span.get().map_or(0, |s| s.last).to_string()
                        prop:value=move || value().unwrap_or(0).to_string()
                        on:input=on_input
                        on:change=on_change
                        on:keydown=on_keydown
                    />
                    <span class="readout timeline-live-time" data-testid="timeline-live-time" title="The live lab's simulation time">
                        "live " {live_time}
                    </span>
                    <When
                        when=move || seeking.get()
                        fallback=|| view! { <span class="timeline-live-mark" data-testid="timeline-is-live">"● live"</span> }
                    >
                        <ReplayBadge testid="timeline-badge" compact=true />
                        <button
                            id="timeline-live"
                            class="btn btn-small btn-primary"
                            data-testid="timeline-live"
                            title="Back to the live lab (End or Escape on the slider)"
                            on:click=move |_| back_to_live()
                        >
                            "Back to live"
                        </button>
                        <RewindButton ui=rewind />
                    </When>
                </div>
                <RewindConfirm ui=rewind on_live=Callback::new(move |()| back_to_live()) />
                <When when=move || note().is_some()>
                    <p id="timeline-note" class="timeline-note" data-testid="timeline-note">{note}</p>
                </When>
            </section>
        </When>
    }
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
