//! The picked robot's open plots: each an SVG of its numbers over simulation time, measured solid and true dashed, with a legend and a close button.
//!
//! The geometry comes from [`lay_out`] (host-tested); here it only becomes elements.
//! `data-points` on each plot says how many samples it holds.

use leptos::prelude::*;

use super::InspectorState;
use crate::inspector::plot_layout::{PlotLayout, lay_out};
use crate::ui::{ForEachName, When, memo};

/// Size of a plot in SVG units (the CSS stretches it to the panel's width).
const PLOT_WIDTH: f64 = 300.0;
const PLOT_HEIGHT: f64 = 130.0;

/// Every open plot, in the order they were opened.
#[component]
pub fn PlotList() -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let keys =
        memo(move |_| inspector.plots.with(|board| board.plots().iter().map(|p| p.source().key()).collect::<Vec<_>>()));
    view! {
        <When when=move || keys.with(|keys| !keys.is_empty())>
            <section class="robot-section plots" data-testid="plots">
                <h4>"Plots"</h4>
                <ForEachName each=move || keys.get() let:key>
                    <PlotView key />
                </ForEachName>
            </section>
        </When>
    }
}

/// What one plot shows, recomputed when its samples change.
#[derive(Clone, PartialEq)]
struct Shown {
    title: String,
    points: usize,
    channels: Vec<&'static str>,
    has_truth: bool,
    layout: PlotLayout,
}

/// One plot.
#[component]
fn PlotView(key: String) -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let shown = {
        let key = key.clone();
        memo(move |_| {
            inspector.plots.with(|board| {
                board.plot(&key).map(|plot| Shown {
                    title: plot.source().title(),
                    points: plot.series().len(),
                    channels: plot.channels().to_vec(),
                    has_truth: plot.has_truth(),
                    layout: lay_out(plot.series(), PLOT_WIDTH, PLOT_HEIGHT),
                })
            })
        })
    };
    let read = move |f: fn(&Shown) -> String| move || shown.with(|s| s.as_ref().map(f).unwrap_or_default());
    let close = {
        let key = key.clone();
        move |_| inspector.plots.update(|board| board.close(&key))
    };
    let grid = move || {
        shown.with(|s| {
            let Some(s) = s else { return Vec::new() };
            let [left, top, right, bottom] = s.layout.area;
            // One element per tick (a group), never a bare pair: the list is replaced
            // whole ten times a second and must not leave stray nodes behind.
            let mut marks = Vec::new();
            for tick in &s.layout.value_ticks {
                marks.push(view! {
                    <g class="plot-mark">
                        <line class="plot-grid" x1=left x2=right y1=tick.at y2=tick.at></line>
                        <text class="plot-tick" x=left - 4.0 y=tick.at + 3.5 text-anchor="end">{tick.label.clone()}</text>
                    </g>
                });
            }
            for tick in &s.layout.time_ticks {
                marks.push(view! {
                    <g class="plot-mark">
                        <line class="plot-grid is-time" x1=tick.at x2=tick.at y1=top y2=bottom></line>
                        <text class="plot-tick" x=tick.at y=PLOT_HEIGHT - 3.0 text-anchor="middle">{tick.label.clone()}</text>
                    </g>
                });
            }
            marks
        })
    };
    let lines = move || {
        shown.with(|s| {
            s.as_ref().map_or_else(Vec::new, |s| {
                s.layout
                    .lines
                    .iter()
                    .map(|line| {
                        view! {
                            <path
                                class=format!("plot-line ch-{}", line.channel)
                                class:is-truth=line.truth
                                d=line.path.clone()
                            ></path>
                        }
                    })
                    .collect::<Vec<_>>()
            })
        })
    };
    let legend = move || {
        shown.with(|s| {
            s.as_ref().map_or_else(Vec::new, |s| {
                s.channels
                    .iter()
                    .enumerate()
                    .map(|(c, name)| view! { <span class=format!("plot-key ch-{c}")><i></i>{*name}</span> })
                    .collect::<Vec<_>>()
            })
        })
    };
    let has_truth = move || shown.with(|s| s.as_ref().is_some_and(|s| s.has_truth));
    let area = move || shown.with(|s| s.as_ref().map(|s| s.layout.area).unwrap_or_default());

    view! {
        <figure class="time-plot" data-testid="time-plot" data-plot=key.clone() data-points=read(|s| s.points.to_string())>
            <figcaption>
                <span class="sensor-name">{read(|s| s.title.clone())}</span>
                <button class="plot-close" data-testid="btn-close-plot" title="Close this plot" on:click=close>
                    "×"
                </button>
            </figcaption>
            <svg
                viewBox=format!("0 0 {PLOT_WIDTH} {PLOT_HEIGHT}")
                role="img"
                aria-label=move || format!("{} over simulation time", shown.with(|s| s.as_ref().map(|s| s.title.clone()).unwrap_or_default()))
            >
                <rect
                    class="plot-area"
                    x=move || area()[0]
                    y=move || area()[1]
                    width=move || area()[2] - area()[0]
                    height=move || area()[3] - area()[1]
                ></rect>
                {grid}
                {lines}
            </svg>
            <div class="plot-legend">
                {legend}
                <span class="plot-style">"— measured"</span>
                <When when=has_truth>
                    <span class="plot-style is-truth">"- - true"</span>
                </When>
                <span class="plot-axis">"sim time (s)"</span>
            </div>
        </figure>
    }
}
