//! The "Class" side panel at the left edge: who is in the lab (from Presence; the instructor may remove a student), the button that adds a robot, the palette of objects (`objects_panel`), the Challenge panel when the lab has a challenge, and for whoever may change the lab's settings (the instructor) the join code and the lab's tools; collapsible to a narrow strip.

use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use vlab_protocol::{Participant, Role, UserId};
use wasm_split_helpers::wasm_split;

use super::ClassState;
use super::client::remove_participant;
use super::instructor_tools::InstructorTools;
use super::objects_panel::ObjectsPanel;
use crate::api::error_sentence;
use crate::challenge::{ChallengeState, challenge_panel};
use crate::classroom::forms::role_badge;
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::programs::RobotUploadOpen;
use crate::ui::{ForEach, PanelLabels, Part, PartNotLoaded, SidePanel, When};

/// The panel; everybody sees the people, the button and the tools show to whom the permission table allows them.
#[component]
pub fn ClassPanel() -> impl IntoView {
    let class = expect_context::<ClassState>();
    let challenge = expect_context::<ChallengeState>();
    let upload_open = expect_context::<RobotUploadOpen>().0;
    let open = RwSignal::new(true);
    let people_count = move || class.participants.with(Vec::len);
    // Viewers without a session cannot add robots: the server wants a session.
    let may_add = move || class.may(Action::AddRobot);

    let labels = PanelLabels {
        title: "People",
        class: "class-panel",
        toggle_testid: "btn-toggle-class-panel",
        show_hint: "Show the people in the lab",
        hide_hint: "Hide the people panel",
        at_left: true,
    };
    view! {
        <SidePanel labels count=Signal::derive(people_count) open>
            <When when=may_add>
                <button
                    class="btn add-robot-button"
                    class:is-active=move || upload_open.get()
                    data-testid="btn-open-robot-upload"
                    aria-pressed=move || upload_open.get().to_string()
                    title="Add a robot of your own to the lab"
                    on:click=move |_| upload_open.update(|open| *open = !*open)
                >
                    "+ Add robot"
                </button>
            </When>
            <ObjectsPanel />
            <When when=move || challenge.exists()>
                <Part what="the challenge" load=|| Box::pin(challenge_panel()) />
            </When>
            <PeopleList />
            <When when=move || class.may(Action::ChangeSettings)>
                <Part what="the instructor's tools" load=|| Box::pin(instructor_tools()) />
            </When>
        </SidePanel>
    }
}

/// Everybody who joined: name (as text), role badge, online dot, robots; "you" marked;
/// a "Remove" control on each student for whoever the permission table lets remove them.
#[component]
fn PeopleList() -> impl IntoView {
    let class = expect_context::<ClassState>();
    let removing = RwSignal::new(None::<UserId>);
    view! {
        <ul class="people-list" role="list" data-testid="people-list">
            <ForEach
                each=move || class.participants.get()
                key=|p: &Participant| (p.id, p.name.clone(), p.online, p.robots.clone())
                let:person
            >
                <PersonItem person=person removing=removing />
            </ForEach>
        </ul>
    }
}

/// One person: online dot, name, role, "you", the instructor's Remove, their robots.
#[component]
fn PersonItem(person: Participant, removing: RwSignal<Option<UserId>>) -> impl IntoView {
    let session = expect_context::<LabSession>();
    let class = expect_context::<ClassState>();
    let id = person.id;
    let is_you = move || class.you.with(|you| you.as_ref().is_some_and(|you| you.id == id));
    let badge = role_badge(person.role);
    let is_student = person.role == Role::Student;
    let removable = move || is_student && class.may(Action::RemoveParticipant);
    let (name, robot_count) = (person.name.clone(), person.robots.len());
    let remove_title = format!("Remove {name} from the lab (their robots too)");
    let remove = move |_| remove_person(session, removing, id, name.clone(), robot_count);
    view! {
        <li
            class="person"
            class:is-you=is_you
            data-testid="person"
            data-name=person.name.clone()
            data-role=badge
            data-online=person.online.to_string()
            data-you=move || is_you().to_string()
        >
            <div class="person-line">
                <span class="dot" class:is-online=person.online title=if person.online { "online" } else { "not connected" }></span>
                // A name is text from another person: shown as text, never as HTML.
                <span class="person-name" title=person.name.clone()>{person.name.clone()}</span>
            </div>
            <div class="person-badges">
                <span class=format!("badge role-{badge}")>{badge}</span>
                <When when=is_you>
                    <span class="badge is-you">"you"</span>
                </When>
                <When when=removable>
                    <button
                        class="btn btn-small btn-danger person-remove"
                        data-testid="btn-remove-person"
                        disabled=move || removing.get() == Some(id)
                        title=remove_title.clone()
                        on:click=remove.clone()
                    >
                        "Remove"
                    </button>
                </When>
            </div>
            <PersonRobots robots=person.robots.clone() />
        </li>
    }
}

/// A person's robots, each a chip that inspects it.
#[component]
fn PersonRobots(robots: Vec<String>) -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    (!robots.is_empty()).then(|| {
        view! {
            <ul class="person-robots" role="list">
                {robots
                    .into_iter()
                    .map(|robot| {
                        let pick = robot.clone();
                        view! {
                            <li>
                                <button
                                    class="chip person-robot"
                                    data-testid="person-robot"
                                    data-robot=robot.clone()
                                    title=format!("Inspect {robot}")
                                    on:click=move |_| inspector.inspect(Some(pick.clone()))
                                >
                                    {robot.clone()}
                                </button>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
    })
}

/// Asks, then removes a person from the lab; presence then takes them off the list.
fn remove_person(session: LabSession, removing: RwSignal<Option<UserId>>, id: UserId, name: String, robots: usize) {
    let robots = match robots {
        0 => String::new(),
        1 => " and their robot is taken out".to_owned(),
        n => format!(" and their {n} robots are taken out"),
    };
    let sure = window()
        .confirm_with_message(&format!(
            "Remove {name} from the lab? Their session ends{robots}; they can only come back with the join code."
        ))
        .unwrap_or(false);
    if !sure {
        return;
    }
    let (lab, token) = (session.lab_id(), session.token());
    removing.set(Some(id));
    leptos::task::spawn_local(async move {
        if let Err(error) = remove_participant(&lab, id, token.as_deref()).await {
            session.error.set(Some(format!("Could not remove {name}: {}", error_sentence(&error))));
        }
        removing.set(None);
    });
}

/// The instructor's tools: a part of the page of their own (`ui::part`), which the
/// students' pages never fetch.
#[wasm_split(instructor_tools, fallible)]
fn instructor_tools() -> Result<AnyView, PartNotLoaded> {
    Ok(view! { <InstructorTools /> }.into_any())
}
