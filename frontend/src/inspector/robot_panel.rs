//! The "Robots" side panel: the lab's robots to pick from and the picked one's live report; collapsible to a narrow strip.
//!
//! Everyone may inspect and follow a robot with the camera; every other control shows
//! as the permission table (`vlab_protocol::permissions`) allows it toward the picked
//! robot: keyboard driving to its owner (the instructor owns the lab's own robots and
//! those they added), reset, remove, the program's console and manual commands to its
//! owner and the instructor. The server enforces all of it anyway. The socket is
//! subscribed to the picked robot while the panel is open, or while the 3D view draws
//! its rays or trails; picking a robot (here or in the view) opens the panel.

use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use wasm_split_helpers::wasm_split;

use super::InspectorState;
use super::client::keep_subscribed;
use super::eye_view_panel::RobotEyeView;
use super::keyboard_drive::KeyboardDrive;
use super::robot_list_view::RobotList;
use super::robot_report_view::RobotReportView;
use crate::classroom::ClassState;
use crate::classroom::RobotActions;
use crate::programs::RobotConsole;
use crate::programs::keep_console;
use crate::timeline::RobotDownloads;
use crate::ui::{PanelLabels, Part, PartNotLoaded, SidePanel, When, effect};
use crate::view3d::ViewState;

/// The panel at the right edge of the page.
#[component]
pub fn RobotPanel() -> impl IntoView {
    let view = expect_context::<ViewState>();
    let inspector = expect_context::<InspectorState>();
    let class = expect_context::<ClassState>();
    let open = RwSignal::new(true);
    // The 3D view draws the picked robot's rays, trails and program's belief from what
    // its subscription brings: it keeps coming while the panel is folded, unless the
    // view shows none of them.
    let wants_reports = Signal::derive(move || {
        open.get() || view.view_options.with(|options| options.rays || options.trails || options.beliefs)
    });
    keep_subscribed(wants_reports);
    keep_console(open.into());
    // A robot picked in the 3D view opens its inspector.
    effect(move |previous: Option<Option<String>>| {
        let picked = inspector.inspected.get();
        if picked.is_some() && previous.is_some_and(|previous| previous != picked) {
            open.set(true);
        }
        picked
    });
    let may_read_console =
        move || inspector.inspected.get().is_some_and(|robot| class.may_on(Action::ReadConsole, &robot));
    let robot_count = move || inspector.robots.with(Vec::len);

    let labels = PanelLabels {
        title: "Robots",
        class: "robot-panel",
        toggle_testid: "btn-toggle-robot-panel",
        show_hint: "Show the robots and their sensors",
        hide_hint: "Hide the robot panel",
        at_left: false,
    };
    view! {
        <SidePanel labels count=Signal::derive(robot_count) open>
            <RobotList />
            <RobotActions />
            // The program's console: its owner and the instructor (the server sends them its lines).
            <When when=may_read_console>
                <Part what="the program's console" load=|| Box::pin(program_console()) />
            </When>
            // Mounted for anybody who may drive a robot of their own; it enables itself per robot.
            <When when=move || class.may_on_own(Action::SendKeys)>
                <Part what="keyboard driving" load=|| Box::pin(keyboard_drive()) />
            </When>
            <When
                when=move || inspector.inspected.with(Option::is_some)
                fallback=move || {
                    view! {
                        <p class="robot-hint">
                            {move || {
                                if inspector.robots.with(Vec::is_empty) {
                                    "No robots in this lab."
                                } else {
                                    "Pick a robot to see its sensors and actuators."
                                }
                            }}
                        </p>
                    }
                }
            >
                <Part what="the robot's sensors" load=|| Box::pin(picked_robot()) />
            </When>
        </SidePanel>
    }
}

/// A picked robot's sensors, plots, actuators, camera and recording: a part of the page
/// of its own (`ui::part`), fetched when a robot is first picked.
#[wasm_split(picked_robot, fallible)]
fn picked_robot() -> Result<AnyView, PartNotLoaded> {
    Ok(view! {
        <RobotReportView />
        <RobotEyeView />
        <RobotDownloads />
    }
    .into_any())
}

/// Driving one's robot with the keyboard: a part of its own, fetched on the pages of
/// those who may drive a robot.
#[wasm_split(keyboard_drive, fallible)]
fn keyboard_drive() -> Result<AnyView, PartNotLoaded> {
    Ok(view! { <KeyboardDrive /> }.into_any())
}

/// The picked robot's program console, in the same module as its sensors.
#[wasm_split(picked_robot, fallible)]
fn program_console() -> Result<AnyView, PartNotLoaded> {
    Ok(view! { <RobotConsole /> }.into_any())
}
