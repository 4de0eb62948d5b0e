//! The inspected robot's actuators: type, command, joint state and a stalled badge; for whoever may drive the robot by hand (the permission table's `DriveRobot`: its owner and the instructor), inputs that command each one.
//!
//! The inputs keep what was typed while reports stream in: they start at the command
//! the actuator had when its row appeared and change only when the user types.

use leptos::prelude::*;
use vlab_protocol::ActuatorReport;
use vlab_protocol::permissions::Action;

use super::InspectorState;
use crate::classroom::ClassState;
use crate::connection::LabSession;
use crate::inspector::client::post_actuator_commands;
use crate::inspector::{
    CommandForm, CommandOutcome, actuators_body, command_text, initial_fields, joint_text, parse_command,
};
use crate::ui::{ForEachName, When, memo};

/// The actuators of the inspected robot's report.
#[component]
pub fn ActuatorList() -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let report = inspector.robot_report;
    let names = memo(move |_| {
        report.with(|r| r.as_ref().map(|r| r.actuators.iter().map(|a| a.name.clone()).collect::<Vec<_>>()))
    });
    let actuator = move |name: String| {
        memo(move |_| report.with(|r| r.as_ref().and_then(|r| r.actuators.iter().find(|a| a.name == name).cloned())))
    };
    view! {
        <section class="robot-section">
            <h4>"Actuators"</h4>
            <When
                when=move || names.with(|n| n.as_ref().is_some_and(|n| !n.is_empty()))
                fallback=|| view! { <p class="robot-hint">"No actuators."</p> }
            >
                <ul class="actuator-list" role="list">
                    <ForEachName each=move || names.get().unwrap_or_default() let:name>
                        <ActuatorRow name=name.clone() actuator=actuator(name) />
                    </ForEachName>
                </ul>
            </When>
        </section>
    }
}

/// One actuator; its manual inputs for whoever may drive the robot by hand.
#[component]
fn ActuatorRow(name: String, actuator: Memo<Option<ActuatorReport>>) -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let class = expect_context::<ClassState>();
    let kind = move || actuator.with(|a| a.as_ref().map(|a| a.kind.clone()).unwrap_or_default());
    let stalled = move || actuator.with(|a| a.as_ref().is_some_and(|a| a.stalled));
    let command = move || actuator.with(|a| a.as_ref().map(|a| command_text(&a.command)).unwrap_or_default());
    let joint = move || actuator.with(|a| a.as_ref().and_then(|a| a.joint.as_ref().map(joint_text)));

    let (actuator_attr, form_name) = (name.clone(), name.clone());
    view! {
        <li class="actuator-row" data-testid="actuator-row" data-actuator=actuator_attr data-stalled=move || stalled().to_string()>
            <div class="actuator-head">
                <span class="actuator-name">{name.clone()}</span>
                <span class="sensor-kind">{kind}</span>
                <When when=stalled>
                    <span
                        class="badge is-stalled"
                        data-testid="actuator-stalled"
                        title="It has not reached its target for a while: blocked, or too weak (max_force)"
                    >
                        "stalled"
                    </span>
                </When>
            </div>
            <div class="readout actuator-command" data-testid="actuator-command" title="its current command">
                {command}
            </div>
            <When when=move || joint().is_some()>
                <div class="readout actuator-joint" title="what its joint does now">{joint}</div>
            </When>
            <When when=move || {
                inspector.inspected.get().is_some_and(|robot| class.may_on(Action::DriveRobot, &robot))
            }>
                <ManualCommand name=form_name.clone() actuator=actuator />
            </When>
        </li>
    }
}

/// Inputs for one actuator's command and the button that posts it.
#[component]
fn ManualCommand(name: String, actuator: Memo<Option<ActuatorReport>>) -> impl IntoView {
    let session = expect_context::<LabSession>();
    let inspector = expect_context::<InspectorState>();
    let (form, start) = actuator.with_untracked(|a| match a {
        Some(a) => {
            let form = CommandForm::for_actuator(&a.kind, &a.command);
            (form, initial_fields(form, &a.command))
        }
        None => (CommandForm::Speed, vec!["0".to_owned()]),
    });
    let texts = RwSignal::new(start);
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);

    let submit = {
        let name = name.clone();
        move || {
            if busy.get_untracked() {
                return;
            }
            let command = match parse_command(form, &texts.get_untracked()) {
                Ok(command) => command,
                Err(message) => {
                    problem.set(Some(message));
                    return;
                }
            };
            let Some(robot) = inspector.inspected.get_untracked() else { return };
            let (path, token) = session.params.with_value(|p| (p.actuators_path(&robot), p.token.clone()));
            let body = actuators_body(&name, &command);
            busy.set(true);
            leptos::task::spawn_local(async move {
                let outcome = post_actuator_commands(path, token, body).await;
                busy.set(false);
                match outcome {
                    CommandOutcome::Applied(report) => {
                        problem.set(None);
                        // The answer is the newest report: show it at once, unless the
                        // user moved on to another robot meanwhile.
                        if inspector.inspected.get_untracked().as_deref() == Some(report.name.as_str()) {
                            inspector.robot_report.set(Some(*report));
                        }
                    }
                    CommandOutcome::Failed(message) => problem.set(Some(message)),
                }
            });
        }
    };
    let on_submit = {
        let submit = submit.clone();
        move |event: leptos::ev::SubmitEvent| {
            event.prevent_default();
            submit();
        }
    };

    let inputs = form
        .fields()
        .iter()
        .enumerate()
        .map(|(index, field)| {
            view! {
                <label class="command-field" title=field.title>
                    <span class="command-label">{field.label}</span>
                    <input
                        class="command-input"
                        data-testid="actuator-input"
                        data-field=field.label
                        type="text"
                        inputmode="decimal"
                        autocomplete="off"
                        spellcheck="false"
                        prop:value=move || texts.with(|t| t.get(index).cloned().unwrap_or_default())
                        on:input=move |event| {
                            let value = event_target_value(&event);
                            texts.update(|t| {
                                if let Some(slot) = t.get_mut(index) {
                                    *slot = value;
                                }
                            });
                        }
                    />
                    <span class="command-unit">{field.unit}</span>
                </label>
            }
        })
        .collect_view();

    view! {
        <form class="manual-command" on:submit=on_submit>
            {inputs}
            <button
                class="btn btn-small"
                type="submit"
                data-testid="btn-set-actuator"
                disabled=move || busy.get()
                title=format!("Send this command to {name} now")
            >
                "Set"
            </button>
        </form>
        <When when=move || problem.with(Option::is_some)>
            <p class="actuator-error" role="alert" data-testid="actuator-error">{move || problem.get()}</p>
        </When>
    }
}
