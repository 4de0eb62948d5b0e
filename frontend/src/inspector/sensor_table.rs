//! The inspected robot's sensors: name, type, the sim time of the reading and buttons to plot it, then the measured and the true value; then a plot of every lidar scan.
//!
//! Rows are keyed by sensor name and read their sensor through a memo, so a report
//! arriving ten times a second updates text in place instead of rebuilding the table.

use leptos::prelude::*;
use vlab_protocol::{SensorReport, SensorValue};

use super::InspectorState;
use super::scan_plot_view::ScanPlotView;
use crate::inspector::plot_board::{PlotSource, has_odometry_error, plottable};
use crate::inspector::{seconds_text, sensor_value_text};
use crate::ui::{ForEachName, When, memo};

/// The sensors of the inspected robot's report.
#[component]
pub fn SensorTable() -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let report = inspector.robot_report;
    let names = memo(move |_| {
        report.with(|r| r.as_ref().map(|r| r.sensors.iter().map(|s| s.name.clone()).collect::<Vec<_>>()))
    });
    let scans = memo(move |_| {
        report.with(|r| {
            r.as_ref().map_or_else(Vec::new, |r| {
                r.sensors
                    .iter()
                    .filter(|s| matches!(s.measured.as_ref().or(s.truth.as_ref()), Some(SensorValue::Scan { .. })))
                    .map(|s| s.name.clone())
                    .collect::<Vec<_>>()
            })
        })
    });
    let sensor = move |name: String| {
        memo(move |_| report.with(|r| r.as_ref().and_then(|r| r.sensors.iter().find(|s| s.name == name).cloned())))
    };

    let estimate_text = move || {
        inspector.belief.with(|b| {
            b.as_ref().and_then(|b| b.estimate).map_or_else(String::new, |e| {
                sensor_value_text(&SensorValue::Pose2d { x: e.x, y: e.y, theta: e.theta })
            })
        })
    };

    view! {
        <section class="robot-section">
            <h4>"Sensors"</h4>
            <When
                when=move || names.with(|n| n.as_ref().is_some_and(|n| !n.is_empty()))
                fallback=|| view! { <p class="robot-hint">"No sensors."</p> }
            >
                <table class="sensor-table" data-testid="sensor-table">
                    <thead>
                        <tr>
                            <th scope="col" title="what the robot's program reads (through the noise model)">"measured"</th>
                            <th scope="col" title="what the world really was at that instant">"true"</th>
                            <th scope="col" title="simulation time of the reading, seconds">"at (s)"</th>
                        </tr>
                    </thead>
                    <ForEachName each=move || names.get().unwrap_or_default() let:name>
                        <SensorRows name=name.clone() sensor=sensor(name) />
                    </ForEachName>
                </table>
            </When>
            <When when=move || inspector.belief.with(|b| b.as_ref().is_some_and(|b| b.estimate.is_some()))>
                <p class="robot-hint estimate-row" data-testid="estimate-row">
                    "Its program's estimate: "
                    <span class="readout" data-testid="estimate-text">{estimate_text}</span>
                    " "
                    <PlotToggle source=PlotSource::EstimateError testid="btn-plot-estimate-error" text="plot error" />
                </p>
            </When>
            <div class="scan-plots">
                <ForEachName each=move || scans.get() let:name>
                    <ScanPlotView name=name.clone() sensor=sensor(name) />
                </ForEachName>
            </div>
        </section>
    }
}

/// One sensor: a title row (name, type, time of the reading), then its values across
/// the panel's whole width (a scan or a pose needs it).
#[component]
fn SensorRows(name: String, sensor: Memo<Option<SensorReport>>) -> impl IntoView {
    let text = move |value: Option<&SensorValue>| value.map_or_else(|| "—".to_owned(), sensor_value_text);
    let kind = move || sensor.with(|s| s.as_ref().map(|s| s.kind.clone()).unwrap_or_default());
    let rate_title = move || {
        sensor.with(|s| match s.as_ref().and_then(|s| s.rate) {
            Some(rate) => format!("{rate} updates per second of simulation time"),
            None => "updates every step".to_owned(),
        })
    };
    let sensor_attr = name.clone();
    let reading = PlotSource::Reading { sensor: name.clone() };
    let error = PlotSource::OdometryError { sensor: name.clone() };
    view! {
        <tbody
            class="sensor-row"
            data-testid="sensor-row"
            data-sensor=sensor_attr
            data-kind=kind
            data-time=move || sensor.with(|s| s.as_ref().and_then(|s| s.time).map(|t| t.to_string()).unwrap_or_default())
        >
            <tr class="sensor-title">
                <th scope="rowgroup" colspan="2" title=rate_title>
                    <span class="sensor-name">{name}</span>
                    " "
                    <span class="sensor-kind">{kind}</span>
                    <When when=move || sensor.with(|s| s.as_ref().is_some_and(plottable))>
                        <PlotToggle source=reading.clone() testid="btn-plot-sensor" text="plot" />
                    </When>
                    <When when=move || sensor.with(|s| s.as_ref().is_some_and(has_odometry_error))>
                        <PlotToggle source=error.clone() testid="btn-plot-error" text="plot error" />
                    </When>
                </th>
                <td class="readout sensor-time">
                    {move || sensor.with(|s| s.as_ref().and_then(|s| s.time).map_or_else(|| "—".to_owned(), seconds_text))}
                </td>
            </tr>
            <tr class="sensor-values">
                <td class="readout sensor-value" data-testid="sensor-measured">
                    {move || sensor.with(|s| text(s.as_ref().and_then(|s| s.measured.as_ref())))}
                </td>
                <td class="readout sensor-value is-truth" colspan="2" data-testid="sensor-truth">
                    {move || sensor.with(|s| text(s.as_ref().and_then(|s| s.truth.as_ref())))}
                </td>
            </tr>
        </tbody>
    }
}

/// A button opening (or closing) a plot of the inspected robot.
#[component]
fn PlotToggle(source: PlotSource, testid: &'static str, text: &'static str) -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let key = source.key();
    let open = move || inspector.plots.with(|board| board.is_open(&key));
    let hint = match &source {
        PlotSource::Reading { sensor } => format!("Plot {sensor} over simulation time, measured and true"),
        PlotSource::OdometryError { sensor } => format!("Plot how far {sensor}'s position is from the true one"),
        PlotSource::EstimateError => "Plot how far its program's estimate is from the true position".to_owned(),
    };
    let toggle = move |_| {
        let source = source.clone();
        inspector.plots.update(|board| {
            inspector.robot_report.with_untracked(|report| board.toggle(source, report.as_ref()));
        });
    };
    view! {
        <button
            class="btn btn-tiny plot-toggle"
            class:is-active=open.clone()
            data-testid=testid
            aria-pressed=move || open().to_string()
            title=hint
            on:click=toggle
        >
            {text}
        </button>
    }
}
