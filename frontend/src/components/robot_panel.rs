//! The "Robots" side panel: the lab's robots to pick from and the picked one's live report; collapsible to a narrow strip.
//!
//! Everyone may inspect and follow a robot with the camera; keyboard driving shows to
//! the robot's owner (and to the instructor for the lab's own robots), reset and
//! remove to its owner and the instructor; manual commands to the instructor (the
//! server enforces all of it anyway). The socket is subscribed to the
//! picked robot only while the panel is open.

use leptos::prelude::*;

use super::{KeyboardDrive, RobotActions, RobotList, RobotReportView};
use crate::robot_client::keep_subscribed;
use crate::session::LabSession;

/// The panel at the right edge of the page.
#[component]
pub fn RobotPanel() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let open = RwSignal::new(true);
    keep_subscribed(session, open.into());
    let robot_count = move || session.robots.with(Vec::len);

    view! {
        <aside
            class="robot-panel"
            class:is-collapsed=move || !open.get()
            data-testid="robot-panel"
            data-open=move || open.get().to_string()
            aria-label="Robots"
        >
            <Show
                when=move || open.get()
                fallback=move || {
                    view! {
                        <button
                            class="robot-panel-tab"
                            data-testid="btn-toggle-robot-panel"
                            title="Show the robots and their sensors"
                            aria-expanded="false"
                            on:click=move |_| open.set(true)
                        >
                            <span class="robot-panel-tab-text">"Robots " {robot_count}</span>
                        </button>
                    }
                }
            >
                <header class="panel-header">
                    <h2>"Robots"</h2>
                    <span class="robot-count">{robot_count}</span>
                    <div class="spacer"></div>
                    <button
                        class="panel-collapse"
                        data-testid="btn-toggle-robot-panel"
                        title="Hide the robot panel"
                        aria-label="Hide the robot panel"
                        aria-expanded="true"
                        on:click=move |_| open.set(false)
                    ></button>
                </header>
                <RobotList />
                <RobotActions />
                // Mounted for anybody who may drive some robot; it enables itself per robot.
                <Show when=move || session.is_instructor() || session.you.with(Option::is_some)>
                    <KeyboardDrive />
                </Show>
                <Show
                    when=move || session.inspected.with(Option::is_some)
                    fallback=move || {
                        view! {
                            <p class="robot-hint">
                                {move || {
                                    if session.robots.with(Vec::is_empty) {
                                        "No robots in this lab."
                                    } else {
                                        "Pick a robot to see its sensors and actuators."
                                    }
                                }}
                            </p>
                        }
                    }
                >
                    <RobotReportView />
                </Show>
            </Show>
        </aside>
    }
}
