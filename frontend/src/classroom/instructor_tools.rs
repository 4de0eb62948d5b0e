//! The instructor's tools in the class panel: the join code (and a new one, when the old one got out), the lab's settings (lock uploads, pause on join, whether the lab keeps its pace or waits for every program, robot quota, how many students may join; shown as the server's Settings say), the room (its size and materials), a notice to everybody, the lab's recording to download, the lab saved as a scene, closing the lab.
//!
//! Render it for whoever the permission table lets change the lab's settings (the
//! instructor, who alone may also see the join code, send notices and close the lab); the
//! server refuses every one of these to anybody else anyway. A refusal shows in the error
//! banner.

use leptos::prelude::*;
use vlab_protocol::permissions::Action;

use super::ClassState;
use super::client::{broadcast, close_lab as close, lab_summary, new_join_code};
use super::forms::broadcast_body;
use super::lab_settings::{LabLimits, LabSettingsFields};
use super::room_form::RoomForm;
use super::save_scene::SaveScene;
use crate::api::error_sentence;
use crate::connection::LabSession;
use crate::timeline::LabDownloads;
use crate::ui::When;

/// The tools.
#[component]
pub fn InstructorTools() -> impl IntoView {
    let class = expect_context::<ClassState>();
    view! {
        <section class="instructor-tools" data-testid="instructor-tools" aria-label="Instructor tools">
            <JoinCode />
            <LabSettingsFields />
            <LabLimits />
            <When when=move || class.may(Action::ChangeEnvironment)>
                <RoomForm />
            </When>
            <NoticeForm />
            <LabDownloads />
            <SaveScene />
            <CloseLabButton />
        </section>
    }
}

/// The join code, and a new one for whoever the permission table lets change it.
#[component]
fn JoinCode() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let class = expect_context::<ClassState>();
    let join_code = RwSignal::new(None::<String>);
    {
        let (lab, token) = (session.lab_id(), session.token());
        leptos::task::spawn_local(async move {
            if let Ok(summary) = lab_summary(&lab, token.as_deref()).await {
                join_code.set(summary.join_code);
            }
        });
    }
    // A new code, for when the old one got out: asked first, since students who have not
    // joined yet need the new one (those in the lab stay).
    let renewing = RwSignal::new(false);
    let renew_code = move |_| {
        let sure = window()
            .confirm_with_message(
                "Give the lab a new join code? The current code stops working at once; students already in the lab stay.",
            )
            .unwrap_or(false);
        if !sure {
            return;
        }
        let (lab, token) = (session.lab_id(), session.token());
        renewing.set(true);
        leptos::task::spawn_local(async move {
            match new_join_code(&lab, token.as_deref()).await {
                Ok(code) => join_code.set(Some(code.join_code)),
                Err(error) => session.error.set(Some(error_sentence(&error))),
            }
            renewing.set(false);
        });
    };
    view! {
        <h3>"Join code"</h3>
        <div class="join-code-row">
            <div class="join-code" data-testid="join-code-shown" title="Students join at this server's front page with this code">
                {move || join_code.get().unwrap_or_else(|| "…".to_owned())}
            </div>
            <When when=move || class.may(Action::ChangeJoinCode)>
                <button
                    class="btn btn-small"
                    data-testid="btn-new-join-code"
                    disabled=move || renewing.get()
                    title="Replace the join code: the current one stops working (students already in stay)"
                    on:click=renew_code
                >
                    "New code"
                </button>
            </When>
        </div>
    }
}

/// A notice to everybody: its text and Send.
#[component]
fn NoticeForm() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let notice = RwSignal::new(String::new());
    let sending = RwSignal::new(false);
    let send_notice = move || {
        let body = match broadcast_body(&notice.get_untracked()) {
            Ok(body) => body,
            Err(message) => {
                session.error.set(Some(message));
                return;
            }
        };
        let (lab, token) = (session.lab_id(), session.token());
        sending.set(true);
        leptos::task::spawn_local(async move {
            match broadcast(&lab, token.as_deref(), body).await {
                Ok(()) => notice.set(String::new()),
                Err(error) => session.error.set(Some(error_sentence(&error))),
            }
            sending.set(false);
        });
    };
    view! {
        <h3>"Notice to everybody"</h3>
        <div class="field-row">
            <input
                class="input"
                data-testid="notice-input"
                maxlength=vlab_protocol::MAX_NOTICE_CHARS.to_string()
                placeholder="Five minutes left"
                prop:value=move || notice.get()
                on:input=move |event| notice.set(event_target_value(&event))
                on:keydown=move |event: web_sys::KeyboardEvent| {
                    if event.key() == "Enter" {
                        send_notice();
                    }
                }
            />
            <button
                class="btn btn-small"
                data-testid="btn-send-notice"
                disabled=move || sending.get()
                on:click=move |_| send_notice()
            >
                "Send"
            </button>
        </div>
    }
}

/// "Close the lab…", after a confirmation; the page goes to the front page.
#[component]
fn CloseLabButton() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let close_lab = move |_| {
        let name = session.lab_name.get_untracked().unwrap_or_else(|| session.lab_id());
        let sure = window()
            .confirm_with_message(&format!(
                "Close “{name}” for everybody? The simulation stops, every page is disconnected and students' robots are gone."
            ))
            .unwrap_or(false);
        if !sure {
            return;
        }
        let (lab, token) = (session.lab_id(), session.token());
        leptos::task::spawn_local(async move {
            match close(&lab, token.as_deref()).await {
                Ok(()) => {
                    let _ = window().location().set_href("/");
                }
                Err(error) => session.error.set(Some(error_sentence(&error))),
            }
        });
    };
    view! {
        <button class="btn btn-danger close-lab" data-testid="btn-close-lab" on:click=close_lab>
            "Close the lab…"
        </button>
    }
}
