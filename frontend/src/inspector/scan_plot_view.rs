//! A lidar scan drawn from above: the robot at the centre facing up, measured hits as bright dots over the true ones, beams without a hit on the outer ring.
//!
//! SVG built from [`crate::inspector::ScanPlot`]: the geometry is host-tested there; here
//! it only becomes elements. Each kind of point is one `<path>`, whatever the beam count.

use leptos::prelude::*;
use vlab_protocol::SensorReport;

use crate::inspector::{ScanPlot, number_text, outer_radius};
use crate::ui::memo;

/// Side of the plot in SVG units (the CSS sets its size on screen).
const PLOT_SIZE: f64 = 200.0;

/// The plot of one scanning sensor.
#[component]
pub fn ScanPlotView(name: String, sensor: Memo<Option<SensorReport>>) -> impl IntoView {
    let plot_of = move |truth: bool| {
        sensor.with(|s| {
            s.as_ref()
                .and_then(|s| if truth { s.truth.as_ref() } else { s.measured.as_ref() })
                .and_then(|value| ScanPlot::of(value, PLOT_SIZE))
        })
    };
    let measured = memo(move |_| plot_of(false));
    let truth = memo(move |_| plot_of(true));
    // The field of view from whichever scan there is: both share the sensor's geometry.
    let field_of_view =
        move || measured.with(|m| truth.with(|t| m.as_ref().or(t.as_ref()).map(ScanPlot::field_of_view_path)));
    let max_range = move || {
        sensor.with(|s| match s.as_ref().and_then(|s| s.measured.as_ref().or(s.truth.as_ref())) {
            Some(vlab_protocol::SensorValue::Scan { max_range, .. }) => format!("{} m", number_text(*max_range)),
            _ => String::new(),
        })
    };
    let centre = PLOT_SIZE / 2.0;
    let radius = outer_radius(PLOT_SIZE);
    let view_box = format!("0 0 {PLOT_SIZE} {PLOT_SIZE}");
    // The robot: a small triangle pointing forward (up).
    let robot_marker = format!(
        "M{c} {t}L{r} {b}L{l} {b}Z",
        c = centre,
        t = centre - 7.0,
        r = centre + 5.0,
        l = centre - 5.0,
        b = centre + 5.0
    );

    view! {
        <figure class="scan-plot" data-testid="scan-plot" data-sensor=name.clone()
            data-hits=move || measured.with(|p| p.as_ref().map_or(0, |p| p.hits.len()).to_string())
            data-truth-hits=move || truth.with(|p| p.as_ref().map_or(0, |p| p.hits.len()).to_string())>
            <svg viewBox=view_box role="img" aria-label=format!("{name}: scan seen from above, forward up")>
                <circle class="scan-ring" cx=centre cy=centre r=radius></circle>
                <circle class="scan-ring is-half" cx=centre cy=centre r=radius / 2.0></circle>
                <path class="scan-fov" d=move || field_of_view().unwrap_or_default()></path>
                <path class="scan-dots is-miss" d=move || measured.with(|p| p.as_ref().map(ScanPlot::misses_path).unwrap_or_default())></path>
                <path class="scan-dots is-truth" d=move || truth.with(|p| p.as_ref().map(ScanPlot::hits_path).unwrap_or_default())></path>
                <path class="scan-dots is-hit" d=move || measured.with(|p| p.as_ref().map(ScanPlot::hits_path).unwrap_or_default())></path>
                <path class="scan-robot" d=robot_marker></path>
            </svg>
            <figcaption>
                <span class="sensor-name">{name.clone()}</span>
                <span class="scan-legend"><i class="is-hit"></i>"measured"</span>
                <span class="scan-legend"><i class="is-truth"></i>"true"</span>
                <span class="scan-range" title="outer ring: maximum range; inner ring: half of it">{max_range}</span>
            </figcaption>
        </figure>
    }
}
