//! The lab's robots as buttons: picking one inspects it, picking it again lets go.

use leptos::prelude::*;

use crate::connection::LabSession;

/// The robots of the scene as buttons; the picked one is pressed.
#[component]
pub fn RobotList() -> impl IntoView {
    let session = expect_context::<LabSession>();
    view! {
        <ul class="robot-list" role="list">
            <For each=move || session.robots.get() key=|name| name.clone() let:name>
                {
                    let picked = {
                        let name = name.clone();
                        move || session.inspected.with(|robot| robot.as_ref() == Some(&name))
                    };
                    let choose = {
                        let name = name.clone();
                        move |_| {
                            let again = session.inspected.with_untracked(|robot| robot.as_ref() == Some(&name));
                            session.inspect(if again { None } else { Some(name.clone()) });
                        }
                    };
                    view! {
                        <li>
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
                        </li>
                    }
                }
            </For>
        </ul>
    }
}
