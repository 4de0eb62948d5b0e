//! The instructor's tools in the class panel: the join code (and a new one, when the old one got out), the lab's settings (lock uploads, pause on join, whether the lab keeps its pace or waits for every program, robot quota, how many students may join; shown as the server's Settings say), a notice to everybody, the lab's recording to download, closing the lab.
//!
//! Render it for whoever the permission table lets change the lab's settings (the
//! instructor, who alone may also see the join code, send notices and close the lab); the
//! server refuses every one of these to anybody else anyway. A refusal shows in the error
//! banner.

use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use vlab_protocol::{LabSettings, LabSettingsPatch};

use super::ClassState;
use super::client::{broadcast, change_settings, close_lab as close, lab_summary, new_join_code};
use super::forms::{SYNC_CHOICES, broadcast_body, parse_max_participants, parse_quota, parse_sync};
use crate::api::error_sentence;
use crate::connection::LabSession;
use crate::timeline::LabDownloads;
use crate::ui::{When, effect};

/// The tools.
#[component]
pub fn InstructorTools() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let class = expect_context::<ClassState>();
    let lab = session.lab_id();
    let join_code = RwSignal::new(None::<String>);
    {
        let token = session.token();
        leptos::task::spawn_local(async move {
            if let Ok(summary) = lab_summary(&lab, token.as_deref()).await {
                join_code.set(summary.join_code);
            }
        });
    }

    let patch = move |change: LabSettingsPatch| {
        let (lab, token) = (session.lab_id(), session.token());
        leptos::task::spawn_local(async move {
            match change_settings(&lab, token.as_deref(), &change).await {
                // The Settings message follows; the answer is the same, and sooner.
                Ok(settings) => class.settings.set(Some(settings)),
                Err(error) => session.error.set(Some(error_sentence(&error))),
            }
        });
    };
    let setting = move |read: fn(&LabSettings) -> bool| move || class.settings.with(|s| s.as_ref().is_some_and(read));
    let sync = move || class.settings.with(|s| s.as_ref().map(|s| s.sync));

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

    let quota_text = RwSignal::new(String::new());
    let max_text = RwSignal::new(String::new());
    effect(move |_| {
        if let Some(settings) = class.settings.get() {
            quota_text.set(settings.robot_quota.to_string());
            max_text.set(settings.max_participants.to_string());
        }
    });
    let set_quota = move || match parse_quota(&quota_text.get_untracked()) {
        Ok(quota) => patch(LabSettingsPatch { robot_quota: Some(quota), ..Default::default() }),
        Err(message) => session.error.set(Some(message)),
    };
    let set_max = move || match parse_max_participants(&max_text.get_untracked()) {
        Ok(max) => patch(LabSettingsPatch { max_participants: Some(max), ..Default::default() }),
        Err(message) => session.error.set(Some(message)),
    };

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
        <section class="instructor-tools" data-testid="instructor-tools" aria-label="Instructor tools">
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
            <h3>"Settings"</h3>
            <label class="toggle">
                <input
                    type="checkbox"
                    data-testid="toggle-uploads-locked"
                    prop:checked=setting(|s| s.uploads_locked)
                    on:change=move |event| {
                        patch(LabSettingsPatch { uploads_locked: Some(event_target_checked(&event)), ..Default::default() })
                    }
                />
                <span>"Lock uploads (students cannot add robots)"</span>
            </label>
            <label class="toggle">
                <input
                    type="checkbox"
                    data-testid="toggle-pause-on-join"
                    prop:checked=setting(|s| s.pause_on_join)
                    on:change=move |event| {
                        patch(LabSettingsPatch { pause_on_join: Some(event_target_checked(&event)), ..Default::default() })
                    }
                />
                <span>"Pause when a student joins"</span>
            </label>
            <label class="toggle">
                <input
                    type="checkbox"
                    data-testid="toggle-share-beliefs"
                    prop:checked=setting(|s| s.share_beliefs)
                    on:change=move |event| {
                        patch(LabSettingsPatch { share_beliefs: Some(event_target_checked(&event)), ..Default::default() })
                    }
                />
                <span>"Show programs' estimates and drawings to everybody"</span>
            </label>
            <div class="setting-choice">
                <label for="sync-mode">"Programs"</label>
                <select
                    id="sync-mode"
                    class="input"
                    data-testid="sync-mode"
                    title="Real time: the lab keeps its pace, and a program that answers late has its robot keep its last commands. Lockstep: the lab waits for every program at every control step, so the same scene and uploads give the same run. Stepping and max speed always wait."
                    on:change=move |event| {
                        if let Some(mode) = parse_sync(&event_target_value(&event)) {
                            patch(LabSettingsPatch { sync: Some(mode), ..Default::default() });
                        }
                    }
                >
                    // Selection is set per option: a `value` set on the select before its
                    // options exist would be lost.
                    {SYNC_CHOICES
                        .map(|(mode, words, _)| {
                            view! {
                                <option value=mode.as_str() prop:selected=move || sync() == Some(mode)>
                                    {words}
                                </option>
                            }
                        })}
                </select>
                <p class="setting-hint" data-testid="sync-mode-hint">
                    {move || {
                        SYNC_CHOICES.iter().find(|(mode, _, _)| sync() == Some(*mode)).map_or("", |(_, _, sentence)| sentence)
                    }}
                </p>
            </div>
            <div class="field-row">
                <label for="robot-quota">"Robots per student"</label>
                <input
                    id="robot-quota"
                    class="input quota-input"
                    type="number"
                    min="0"
                    max=vlab_protocol::MAX_ROBOT_QUOTA.to_string()
                    data-testid="robot-quota"
                    prop:value=move || quota_text.get()
                    on:input=move |event| quota_text.set(event_target_value(&event))
                    on:keydown=move |event: web_sys::KeyboardEvent| {
                        if event.key() == "Enter" {
                            set_quota();
                        }
                    }
                />
                <button class="btn btn-small" data-testid="btn-set-quota" on:click=move |_| set_quota()>
                    "Set"
                </button>
            </div>
            <div class="field-row">
                <label for="max-participants">"Students at most"</label>
                <input
                    id="max-participants"
                    class="input quota-input"
                    type="number"
                    min="0"
                    max=vlab_protocol::MAX_PARTICIPANTS.to_string()
                    data-testid="max-participants"
                    title="Joins past this number are refused; nobody already in is removed"
                    prop:value=move || max_text.get()
                    on:input=move |event| max_text.set(event_target_value(&event))
                    on:keydown=move |event: web_sys::KeyboardEvent| {
                        if event.key() == "Enter" {
                            set_max();
                        }
                    }
                />
                <button class="btn btn-small" data-testid="btn-set-max-participants" on:click=move |_| set_max()>
                    "Set"
                </button>
            </div>
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
            <LabDownloads />
            <button class="btn btn-danger close-lab" data-testid="btn-close-lab" on:click=close_lab>
                "Close the lab…"
            </button>
        </section>
    }
}
