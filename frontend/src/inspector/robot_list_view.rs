//! The lab's robots as buttons: picking one inspects it, picking it again lets go; a warning badge beside the picked one while its program answers late.

use leptos::prelude::*;

use super::InspectorState;
use super::robot_list::list_late_badge;
use crate::programs::console_log::LATE_TITLE;
use crate::ui::{ForEachName, When, memo};

/// The robots of the scene as buttons; the picked one is pressed, and marked late while
/// its report says its program needs more CPU per control step than its share (only the
/// picked robot's report reaches the page).
#[component]
pub fn RobotList() -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    view! {
        <ul class="robot-list" role="list">
            <ForEachName each=move || inspector.robots.get() let:name>
                {
                    let picked = {
                        let name = name.clone();
                        move || inspector.inspected.with(|robot| robot.as_ref() == Some(&name))
                    };
                    let choose = {
                        let name = name.clone();
                        move |_| {
                            let again = inspector.inspected.with_untracked(|robot| robot.as_ref() == Some(&name));
                            inspector.inspect(if again { None } else { Some(name.clone()) });
                        }
                    };
                    // Reports come ten times a second: the badge changes only when its text does.
                    let late = {
                        let name = name.clone();
                        memo(move |_| inspector.robot_report.with(|report| list_late_badge(&name, report.as_ref())))
                    };
                    view! {
                        <li class="robot-entry">
                            <button
                                class="robot-item"
                                class:is-picked=picked.clone()
                                data-testid="robot-item"
                                data-robot=name.clone()
                                aria-pressed=move || picked().to_string()
                                title=format!("Inspect {name}")
                                on:click=choose
                            >
                                {name.clone()}
                            </button>
                            <When when=move || late.with(Option::is_some)>
                                <span class="badge is-late" data-testid="robot-late" data-robot=name.clone() title=LATE_TITLE>
                                    {move || late.get().unwrap_or_default()}
                                </span>
                            </When>
                        </li>
                    }
                }
            </ForEachName>
        </ul>
    }
}
