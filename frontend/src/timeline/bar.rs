//! The bar under the 3D view: a slider from the first recorded step of a run to the live step, the time at the thumb and the live time, the run picker, "Back to live" while a moment is shown (and, for the instructor, "Rewind the lab to here"), and a note when the oldest part was dropped.
//!
//! Every viewer has it. The bar's parts share a [`BarModel`]: the span shown, the runs
//! to pick from, and the way back to live.

use leptos::prelude::*;

use super::TimelineState;
use super::badge::ReplayBadge;
use super::rewind_controls::{RewindButton, RewindConfirm, RewindUi};
use super::run_picker::RunPicker;
use super::seek::Seeker;
use super::slider::TimelineSlider;
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::timeline::replay::{Replay, Target};
use crate::timeline::span::{DEFAULT_DT_SECS, LiveEnd, RunChoice, Span, run_choices};
use crate::timeline::throttle::Throttle;
use crate::timeline::time_text::clock_text;
use crate::ui::{When, effect, memo};

/// Least time between two seeks of a drag, milliseconds.
const SEEK_INTERVAL_MS: f64 = 100.0;

/// What the bar's parts read and do: the span the slider covers, the runs, whether a
/// moment is shown, and seeking (held back to one seek per [`SEEK_INTERVAL_MS`]).
#[derive(Clone, Copy)]
pub(super) struct BarModel {
    pub timeline: TimelineState,
    pub seeker: Seeker,
    pub throttle: StoredValue<Throttle<Target>>,
    /// The run a moment is asked of, if any.
    pub run: Memo<Option<u32>>,
    /// The slider's range: over `run`, else over the current run.
    pub span: Memo<Option<Span>>,
    pub choices: Memo<Vec<RunChoice>>,
    pub seeking: Memo<bool>,
}

impl BarModel {
    fn new(session: LabSession, timeline: TimelineState) -> BarModel {
        let live_end = move || {
            let clock = session.clock.get();
            let dt_secs = session.lab_state.with(|state| state.as_ref().map_or(DEFAULT_DT_SECS, |s| s.dt_secs));
            LiveEnd { step: clock.step, time: clock.time_secs, dt_secs }
        };
        let run = memo(move |_| timeline.replay.with(|replay| replay.target().and_then(|t| t.run)));
        let span = memo(move |_| {
            let live = live_end();
            timeline.recording.with(|summary| {
                let summary = summary.as_ref()?;
                Span::of(summary, run.get(), live).or_else(|| Span::of(summary, None, live))
            })
        });
        BarModel {
            timeline,
            seeker: Seeker::from_context(),
            throttle: StoredValue::new(Throttle::new(SEEK_INTERVAL_MS)),
            run,
            span,
            choices: memo(move |_| timeline.recording.with(|s| s.as_ref().map(run_choices).unwrap_or_default())),
            seeking: memo(move |_| timeline.replay.with(Replay::is_seeking)),
        }
    }

    /// The run the slider shows.
    pub fn shown_run(self) -> Option<u32> {
        self.span.get().map(|span| span.run)
    }

    /// The thumb: the step asked while seeking, the live end otherwise.
    pub fn thumb(self) -> Option<u64> {
        let span = self.span.get()?;
        Some(self.timeline.replay.with(Replay::target).map_or(span.last, |t| span.clamp(t.step)))
    }

    pub fn thumb_time(self) -> Option<String> {
        self.span.get().zip(self.thumb()).map(|(span, step)| clock_text(span.time_at(step)))
    }

    pub fn back_to_live(self) {
        self.throttle.update_value(Throttle::cancel);
        self.seeker.go_live();
    }
}

/// The timeline; absent while the server records nothing.
#[component]
pub fn TimelineBar() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let timeline = expect_context::<TimelineState>();
    let bar = BarModel::new(session, timeline);
    let rewind = RewindUi::new();
    let live_time = move || clock_text(session.clock.with(|clock| clock.time_secs));
    let note = move || bar.span.get().and_then(|span| span.dropped_note());
    seek_again_when_another_robot_is_picked(bar);

    view! {
        <When when=move || bar.span.with(Option::is_some)>
            <section
                id="timeline"
                class="timeline"
                class:is-seeking=move || bar.seeking.get()
                data-testid="timeline"
                data-phase=move || timeline.replay.with(|r| r.phase().name())
                data-first=move || bar.span.get().map(|s| s.first.to_string()).unwrap_or_default()
                data-last=move || bar.span.get().map(|s| s.last.to_string()).unwrap_or_default()
                data-run=move || bar.shown_run().map(|r| r.to_string()).unwrap_or_default()
                aria-label="Timeline of the lab's recording"
            >
                <div class="timeline-row">
                    <RunPicker bar=bar />
                    <output
                        id="timeline-time"
                        class="readout timeline-time"
                        data-testid="timeline-time"
                        for="timeline-slider"
                        title="Simulation time at the thumb"
                    >
                        {move || bar.thumb_time()}
                    </output>
                    <TimelineSlider bar=bar />
                    <span class="readout timeline-live-time" data-testid="timeline-live-time" title="The live lab's simulation time">
                        "live " {live_time}
                    </span>
                    <When
                        when=move || bar.seeking.get()
                        fallback=|| view! { <span class="timeline-live-mark" data-testid="timeline-is-live">"● live"</span> }
                    >
                        <ReplayBadge testid="timeline-badge" compact=true />
                        <button
                            id="timeline-live"
                            class="btn btn-small btn-primary"
                            data-testid="timeline-live"
                            title="Back to the live lab (End or Escape on the slider)"
                            on:click=move |_| bar.back_to_live()
                        >
                            "Back to live"
                        </button>
                        <RewindButton ui=rewind />
                    </When>
                </div>
                <RewindConfirm ui=rewind on_live=Callback::new(move |()| bar.back_to_live()) />
                <When when=move || note().is_some()>
                    <p id="timeline-note" class="timeline-note" data-testid="timeline-note">{note}</p>
                </When>
            </section>
        </When>
    }
}

/// Another robot picked while a moment is shown: the same moment, with its readings.
fn seek_again_when_another_robot_is_picked(bar: BarModel) {
    let inspector = expect_context::<InspectorState>();
    effect(move |previous: Option<Option<String>>| {
        let picked = inspector.inspected.get();
        if previous.is_some_and(|previous| previous != picked)
            && let Some(target) = bar.timeline.replay.with_untracked(Replay::target)
        {
            bar.seeker.seek(target);
        }
        picked
    });
}
