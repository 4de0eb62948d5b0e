//! What can be done to the inspected robot beside watching it: follow it with the camera (anybody), put it back at its start, make where it stands its start, or remove it (as the permission table allows: its owner and the instructor).

use leptos::prelude::*;
use vlab_protocol::NewStart;
use vlab_protocol::permissions::Action;

use super::ClassState;
use super::client::{remove_robot, reset_robot, set_start};
use super::forms::owner_of;
use crate::api::error_sentence;
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::timeline::TimelineState;
use crate::ui::When;
use crate::view3d::ViewState;

/// A row of buttons for the inspected robot; nothing when no robot is picked.
#[component]
pub fn RobotActions() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let inspector = expect_context::<InspectorState>();
    let class = expect_context::<ClassState>();
    let view = expect_context::<ViewState>();
    let timeline = expect_context::<TimelineState>();
    let busy = RwSignal::new(false);
    let robot = move || inspector.inspected.get();
    let owner = move || {
        robot().and_then(|robot| class.participants.with(|people| owner_of(&robot, people).map(|p| p.name.clone())))
    };
    let may = move |action: Action| robot().is_some_and(|robot| class.may_on(action, &robot));
    let following = move || robot().is_some_and(|robot| view.follow.with(|f| f.as_ref() == Some(&robot)));

    // What the last "Start here" did, for the robot it was about.
    let start_note = RwSignal::new(None::<(String, String)>);
    let acts = RobotActs { session, inspector, busy, start_note };
    let act = move |what: &'static str| acts.act(what);
    // "Start here" takes where the robot stands in the live lab, not in a past moment.
    let live = move || timeline.replay.with(|replay| replay.inspector_follows_live());
    let note = move || {
        start_note.with(|note| note.as_ref().filter(|(r, _)| Some(r) == robot().as_ref()).map(|(_, t)| t.clone()))
    };

    view! {
        <When when=move || robot().is_some()>
            <div class="robot-actions" data-testid="robot-actions">
                <span class="robot-owner" data-testid="robot-owner" title="who added it">
                    {move || owner().map_or_else(|| "the lab's robot".to_owned(), |name| format!("owner: {name}"))}
                </span>
                <div class="robot-action-buttons">
                    <button
                        class="btn btn-small"
                        class:is-active=following
                        data-testid="btn-follow-robot"
                        aria-pressed=move || following().to_string()
                        title="Keep the camera on this robot wherever it goes (double-click the view to stop)"
                        on:click=move |_| {
                            let picked = inspector.inspected.get_untracked();
                            view.follow.update(|f| *f = if *f == picked { None } else { picked });
                        }
                    >
                        {move || if following() { "◎ Following" } else { "◎ Follow" }}
                    </button>
                    <When when=move || may(Action::ResetRobot)>
                        <button
                            class="btn btn-small"
                            data-testid="btn-reset-robot"
                            disabled=move || busy.get()
                            title="Back to where it started, at rest"
                            on:click=move |_| act("reset")
                        >
                            "↺ Reset"
                        </button>
                    </When>
                    <When when=move || may(Action::SetStart)>
                        <button
                            class="btn btn-small"
                            data-testid="btn-start-here"
                            disabled=move || busy.get() || !live()
                            title=move || {
                                if live() {
                                    "Make where it stands now its start: a reset (its own or the lab's) puts it back here"
                                } else {
                                    "The timeline shows a past moment: go back to the live lab to move its start"
                                }
                            }
                            on:click=move |_| acts.start_here()
                        >
                            "Start here"
                        </button>
                    </When>
                    <When when=move || may(Action::RemoveRobot)>
                        <button
                            class="btn btn-small btn-danger"
                            data-testid="btn-remove-robot"
                            disabled=move || busy.get()
                            title="Take it out of the lab"
                            on:click=move |_| act("remove")
                        >
                            "Remove"
                        </button>
                    </When>
                </div>
                <When when=move || note().is_some()>
                    <p class="robot-start-note" data-testid="start-note">{note}</p>
                </When>
            </div>
        </When>
    }
}

/// What the buttons do, with what they were made with (a click runs outside the component).
#[derive(Clone, Copy)]
struct RobotActs {
    session: LabSession,
    inspector: InspectorState,
    busy: RwSignal<bool>,
    start_note: RwSignal<Option<(String, String)>>,
}

impl RobotActs {
    /// Resets or removes the inspected robot (a removal asks first).
    fn act(self, what: &'static str) {
        let RobotActs { session, inspector, busy, .. } = self;
        let Some(robot) = inspector.inspected.get_untracked() else { return };
        let removing = what == "remove";
        if removing
            && !window()
                .confirm_with_message(&format!("Remove {robot} from the lab? It is gone for everybody."))
                .unwrap_or(false)
        {
            return;
        }
        let (lab, token) = (session.lab_id(), session.token());
        busy.set(true);
        leptos::task::spawn_local(async move {
            let done = if removing {
                remove_robot(&lab, &robot, token.as_deref()).await
            } else {
                reset_robot(&lab, &robot, token.as_deref()).await
            };
            if let Err(error) = done {
                session.error.set(Some(format!("Could not {what} {robot}: {}", error_sentence(&error))));
            }
            busy.set(false);
        });
    }

    /// Makes where the inspected robot stands (in its last report) its start.
    fn start_here(self) {
        let RobotActs { session, inspector, busy, start_note } = self;
        let Some(robot) = inspector.inspected.get_untracked() else { return };
        let Some(pose) =
            inspector.robot_report.with_untracked(|r| r.as_ref().filter(|r| r.name == robot).map(|r| r.pose))
        else {
            return;
        };
        let start = NewStart { position: pose.position.map(|v| v as f32), heading: Some(pose.heading as f32) };
        let (lab, token) = (session.lab_id(), session.token());
        busy.set(true);
        leptos::task::spawn_local(async move {
            match set_start(&lab, &robot, &start, token.as_deref()).await {
                Ok(()) => start_note.set(Some((robot.clone(), start_moved_words(&robot, start.position)))),
                Err(error) => {
                    start_note.set(None);
                    session.error.set(Some(format!("Could not move {robot}'s start: {}", error_sentence(&error))));
                }
            }
            busy.set(false);
        });
    }
}

/// What the page says once robot `robot`'s start moved to `position`.
fn start_moved_words(robot: &str, [x, _, z]: [f32; 3]) -> String {
    format!("{robot} starts here now, at x {x:.2}, z {z:.2}: a reset puts it back here.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_says_where_the_start_is_now() {
        assert_eq!(
            start_moved_words("bob", [1.234, 0.05, 3.0]),
            "bob starts here now, at x 1.23, z 3.00: a reset puts it back here."
        );
    }
}
