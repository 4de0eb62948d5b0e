//! The bar under the 3D view while an attempt's replay is shown in place of the live
//! lab: "Back to the lab", play/pause, a slider over the attempt's time, the time shown
//! against its length, and what happened (a click on an event goes there).
//!
//! Playing moves the time by the wall time that passed, checked every [`TICK`]; it
//! stops at the end.

use std::time::Duration;

use leptos::prelude::*;
use vlab_protocol::ReplayEvent;

use super::ChallengeState;
use super::replay::{ReplayTrack, advance, replay_time_text};
use crate::ui::ForEach;
use crate::view3d::ViewState;

/// How often a playing replay moves on.
const TICK: Duration = Duration::from_millis(50);

/// The bar; `data-time` is the time shown, seconds.
#[component]
pub fn AttemptReplayBar() -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let view_state = expect_context::<ViewState>();
    let duration = move || challenge.replay.with(|track| track.as_ref().map_or(0.0, ReplayTrack::duration));
    let title =
        move || challenge.replay.with(|track| track.as_ref().map(|t| format!("Replay of attempt #{}", t.attempt())));
    let events = move || challenge.replay.with(|track| track.as_ref().map(|t| t.events().to_vec()).unwrap_or_default());
    play_while_playing(challenge, view_state);
    let seek = move |time: f64| {
        challenge.playing.set(false);
        challenge.seek_replay(view_state, time);
    };
    let toggle = move |_| {
        // Play again from the start once at the end.
        if !challenge.playing.get_untracked() && challenge.replay_time.get_untracked() >= duration() {
            challenge.seek_replay(view_state, 0.0);
        }
        challenge.playing.update(|playing| *playing = !*playing);
    };
    view! {
        <section
            class="timeline attempt-replay"
            data-testid="attempt-replay"
            data-time=move || challenge.replay_time.get().to_string()
            data-duration=move || duration().to_string()
            data-playing=move || challenge.playing.get().to_string()
            aria-label="Replay of an attempt"
        >
            <div class="timeline-row">
                <button
                    class="btn btn-small btn-primary"
                    data-testid="btn-back-to-lab"
                    title="Back to the live lab"
                    on:click=move |_| challenge.back_to_lab()
                >
                    "Back to the lab"
                </button>
                <span class="badge is-replay" data-testid="attempt-replay-title">{title}</span>
                <button
                    class="btn btn-small play-pause"
                    data-testid="btn-replay-play"
                    on:click=toggle
                >
                    {move || if challenge.playing.get() { "Pause" } else { "Play" }}
                </button>
                <input
                    class="timeline-slider"
                    data-testid="attempt-replay-slider"
                    type="range"
                    min="0"
                    step="0.01"
                    aria-label="The attempt's time: drag to see it at another moment"
                    prop:max=move || duration().to_string()
                    prop:value=move || challenge.replay_time.get().to_string()
                    on:input=move |event| {
                        if let Ok(time) = event_target_value(&event).parse::<f64>() {
                            seek(time);
                        }
                    }
                />
                <output class="readout timeline-time replay-time" data-testid="attempt-replay-time">
                    {move || replay_time_text(challenge.replay_time.get(), duration())}
                </output>
            </div>
            <ol class="replay-events" data-testid="replay-events">
                <ForEach
                    each=events
                    key=|event: &ReplayEvent| (event.time.to_bits(), event.text.clone())
                    let:event
                >
                    <li>
                        <button
                            class="chip replay-event"
                            data-testid="replay-event"
                            data-time=event.time.to_string()
                            title="Go to this moment"
                            on:click=move |_| seek(event.time)
                        >
                            {format!("{:.1} s {}", event.time, event.text)}
                        </button>
                    </li>
                </ForEach>
            </ol>
        </section>
    }
}

/// While `playing`, moves the replay on by the wall time passed, every [`TICK`].
fn play_while_playing(challenge: ChallengeState, view_state: ViewState) {
    let timer = StoredValue::new_local(None::<IntervalHandle>);
    let stop = move || {
        if let Some(handle) = timer.try_update_value(Option::take).flatten() {
            handle.clear();
        }
    };
    crate::ui::effect(move |_| {
        stop();
        if !challenge.playing.get() {
            return;
        }
        let last = StoredValue::new(now_secs());
        let tick = move || {
            // A pause between two ticks wins over a tick already due.
            if !challenge.playing.get_untracked() {
                return;
            }
            let now = now_secs();
            let elapsed = now - last.get_value();
            last.set_value(now);
            let duration = challenge.replay.with_untracked(|t| t.as_ref().map_or(0.0, ReplayTrack::duration));
            let (time, ended) = advance(challenge.replay_time.get_untracked(), elapsed, duration);
            challenge.seek_replay(view_state, time);
            if ended {
                challenge.playing.set(false);
            }
        };
        if let Ok(handle) = set_interval_with_handle(tick, TICK) {
            timer.set_value(Some(handle));
        }
    });
    on_cleanup(stop);
}

fn now_secs() -> f64 {
    window().performance().map_or(0.0, |p| p.now()) / 1000.0
}
