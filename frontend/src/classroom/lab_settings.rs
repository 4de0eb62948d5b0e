//! The lab's settings in the instructor's tools, shown as the server's Settings say: lock uploads, pause on join, share beliefs, let students add objects, whether the lab keeps its pace or waits for every program, the robot quota and how many students may join.

use leptos::prelude::*;
use vlab_protocol::{LabSettings, LabSettingsPatch};

use super::ClassState;
use super::client::change_settings;
use super::forms::{SYNC_CHOICES, parse_max_participants, parse_quota, parse_sync};
use crate::api::error_sentence;
use crate::connection::LabSession;
use crate::ui::effect;

/// What asks the server to change the settings as a patch says (a refusal shows in the
/// error banner); made in a component, where the lab's context is.
fn settings_patcher() -> impl Fn(LabSettingsPatch) + Copy + 'static {
    let (session, class) = (expect_context::<LabSession>(), expect_context::<ClassState>());
    move |change: LabSettingsPatch| {
        let (lab, token) = (session.lab_id(), session.token());
        leptos::task::spawn_local(async move {
            match change_settings(&lab, token.as_deref(), &change).await {
                // The Settings message follows; the answer is the same, and sooner.
                Ok(settings) => class.settings.set(Some(settings)),
                Err(error) => session.error.set(Some(error_sentence(&error))),
            }
        });
    }
}

/// The three switches and the programs' pace.
#[component]
pub fn LabSettingsFields() -> impl IntoView {
    let class = expect_context::<ClassState>();
    let patch = settings_patcher();
    let setting = move |read: fn(&LabSettings) -> bool| move || class.settings.with(|s| s.as_ref().is_some_and(read));
    let sync = move || class.settings.with(|s| s.as_ref().map(|s| s.sync));
    view! {
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
        <label class="toggle">
            <input
                type="checkbox"
                data-testid="toggle-students-add-objects"
                prop:checked=setting(|s| s.students_add_objects)
                on:change=move |event| {
                    patch(LabSettingsPatch { students_add_objects: Some(event_target_checked(&event)), ..Default::default() })
                }
            />
            <span>"Students may add objects (boxes, ramps, walls...)"</span>
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
    }
}

/// The robot quota and the most students, each with its Set.
#[component]
pub fn LabLimits() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let class = expect_context::<ClassState>();
    let patch = settings_patcher();
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
    view! {
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
    }
}
