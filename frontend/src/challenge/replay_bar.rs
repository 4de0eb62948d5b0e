//! The bar under the 3D view while an attempt's replay is shown (in place of the live
//! lab, or a graded trial's on a class's page): the way back, play/pause, a slider over
//! the attempt's time, the time shown against its length, and what happened (a click on
//! an event goes there).
//!
//! Playing moves the time by the wall time that passed, checked every [`TICK`]; it
//! stops at the end.

use std::time::Duration;

use leptos::prelude::*;
use vlab_protocol::ReplayEvent;

use super::ChallengeState;
use super::player::ReplayPlayer;
use super::replay::{advance, replay_time_text};
use crate::ui::ForEach;
use crate::view3d::ViewState;

/// How often a playing replay moves on.
const TICK: Duration = Duration::from_millis(50);

/// The lab's bar: "Back to the lab" returns to the live lab.
#[component]
pub fn AttemptReplayBar() -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let title = Signal::derive(move || {
        challenge.player.replay.with(|t| t.as_ref().map(|t| format!("Replay of attempt #{}", t.attempt())))
    });
    view! {
        <ReplayBar
            player=challenge.player
            title
            back_label="Back to the lab"
            back_hint="Back to the live lab"
            on_back=Callback::new(move |()| challenge.back_to_lab())
        />
    }
}

/// The bar of `player`'s replay in the [`ViewState`] of the context, titled `title`;
/// `on_back` leaves it. `data-time` is the time shown, seconds.
#[component]
pub fn ReplayBar(
    player: ReplayPlayer,
    title: Signal<Option<String>>,
    back_label: &'static str,
    back_hint: &'static str,
    on_back: Callback<()>,
) -> impl IntoView {
    let view_state = expect_context::<ViewState>();
    let duration = move || player.duration();
    let events = move || player.replay.with(|track| track.as_ref().map(|t| t.events().to_vec()).unwrap_or_default());
    play_while_playing(player, view_state);
    let seek = move |time: f64| {
        player.playing.set(false);
        player.seek(view_state, time);
    };
    let toggle = move |_| {
        // Play again from the start once at the end.
        if !player.playing.get_untracked() && player.time.get_untracked() >= player.duration_untracked() {
            player.seek(view_state, 0.0);
        }
        player.playing.update(|playing| *playing = !*playing);
    };
    view! {
        <section
            class="timeline attempt-replay"
            data-testid="attempt-replay"
            data-time=move || player.time.get().to_string()
            data-duration=move || duration().to_string()
            data-playing=move || player.playing.get().to_string()
            aria-label="Replay of an attempt"
        >
            <div class="timeline-row">
                <button
                    class="btn btn-small btn-primary"
                    data-testid="btn-back-to-lab"
                    title=back_hint
                    on:click=move |_| on_back.run(())
                >
                    {back_label}
                </button>
                <span class="badge is-replay" data-testid="attempt-replay-title">{move || title.get()}</span>
                <button
                    class="btn btn-small play-pause"
                    data-testid="btn-replay-play"
                    on:click=toggle
                >
                    {move || if player.playing.get() { "Pause" } else { "Play" }}
                </button>
                <input
                    class="timeline-slider"
                    data-testid="attempt-replay-slider"
                    type="range"
                    min="0"
                    step="0.01"
                    aria-label="The attempt's time: drag to see it at another moment"
                    prop:max=move || duration().to_string()
                    prop:value=move || player.time.get().to_string()
                    on:input=move |event| {
                        if let Ok(time) = event_target_value(&event).parse::<f64>() {
                            seek(time);
                        }
                    }
                />
                <output class="readout timeline-time replay-time" data-testid="attempt-replay-time">
                    {move || replay_time_text(player.time.get(), duration())}
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
fn play_while_playing(player: ReplayPlayer, view_state: ViewState) {
    let timer = StoredValue::new_local(None::<IntervalHandle>);
    let stop = move || {
        if let Some(handle) = timer.try_update_value(Option::take).flatten() {
            handle.clear();
        }
    };
    crate::ui::effect(move |_| {
        stop();
        if !player.playing.get() {
            return;
        }
        let last = StoredValue::new(now_secs());
        let tick = move || {
            // A pause between two ticks wins over a tick already due.
            if !player.playing.get_untracked() {
                return;
            }
            let now = now_secs();
            let elapsed = now - last.get_value();
            last.set_value(now);
            let (time, ended) = advance(player.time.get_untracked(), elapsed, player.duration_untracked());
            player.seek(view_state, time);
            if ended {
                player.playing.set(false);
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
