//! The picked robot's live report (or, while the timeline shows a recorded moment, its report then, under a badge saying so): when it was made, where the robot truly is, its program, the keys it reads, then its open plots, its sensors and actuators.

use leptos::prelude::*;

use super::InspectorState;
use super::actuator_list::ActuatorList;
use super::plot_view::PlotList;
use super::sensor_table::SensorTable;
use crate::inspector::{heading_text, position_text, program_text, time_text};
use crate::timeline::ReplayBadge;
use crate::timeline::TimelineState;
use crate::timeline::replay::Replay;
use crate::ui::When;

/// Shows the inspected robot's report; a placeholder until the first report arrives.
#[component]
pub fn RobotReportView() -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let timeline = expect_context::<TimelineState>();
    let report = inspector.robot_report;
    let name = move || inspector.inspected.get().unwrap_or_default();
    let field = move |read: fn(&vlab_protocol::RobotReport) -> String| {
        move || report.with(|r| r.as_ref().map(read).unwrap_or_default())
    };
    let has_report = move || report.with(Option::is_some);
    let keys_text = move || {
        report.with(|r| match r {
            Some(r) if !r.keys.is_empty() => r.keys.join(", "),
            Some(_) => "none".to_owned(),
            None => String::new(),
        })
    };
    let program_message = move || report.with(|r| r.as_ref().and_then(|r| r.program.message.clone()));

    view! {
        <section
            class="robot-report"
            data-testid="robot-report"
            data-robot=name
            data-step=field(|r| r.step.to_string())
            data-time=field(|r| r.time.to_string())
            aria-live="off"
        >
            <header class="robot-report-header">
                <h3 class="robot-name">{name}</h3>
                <span class="readout robot-report-time" title="simulation time and step when the report was made">
                    {move || {
                        report.with(|r| r.as_ref().map(|r| format!("{} · step {}", time_text(r.time), r.step)))
                    }}
                </span>
            </header>
            <ReplayBadge testid="replay-badge" />
            <When
                when=has_report
                fallback=move || {
                    view! {
                        <p class="robot-hint">
                            {move || {
                                if timeline.replay.with(Replay::is_seeking) {
                                    "Nothing recorded of this robot at this moment."
                                } else {
                                    "Waiting for the robot's first report…"
                                }
                            }}
                        </p>
                    }
                }
            >
                <dl class="robot-facts">
                    <dt>"position"</dt>
                    <dd class="readout" data-testid="robot-position" title="true position of its main body, metres (world frame, Y up)">
                        {field(|r| position_text(r.pose.position))}
                    </dd>
                    <dt>"heading"</dt>
                    <dd class="readout" data-testid="robot-heading" title="true heading: counter-clockwise from world +X, seen from above">
                        {field(|r| heading_text(r.pose.heading))}
                    </dd>
                    <dt>"program"</dt>
                    <dd data-testid="robot-program">
                        {field(|r| program_text(&r.program))}
                        <When when=move || program_message().is_some()>
                            <span class="program-message">{program_message}</span>
                        </When>
                    </dd>
                    <dt>"keys"</dt>
                    <dd class="readout" data-testid="robot-keys" title="keys its Keyboard sensors read">
                        {keys_text}
                    </dd>
                </dl>
                <PlotList />
                <SensorTable />
                <ActuatorList />
            </When>
        </section>
    }
}
