//! The "Drive with keyboard" toggle (whoever the permission table lets send keys: the robot's owner, the instructor for the lab's own robots and those they added): while on, the keys held on the page go to the inspected robot's Keyboard sensors.
//!
//! Listens on the window in the capture phase, so a driving key is claimed before
//! anything else sees it: no scrolling, no button activated by Space, no shortcut.
//! Keys typed into inputs stay with the inputs; Ctrl/Alt/Meta combinations, Tab and
//! function keys stay with the browser; Escape stops driving. The held set is sent
//! whenever it changes, and emptied when driving stops, the page loses focus, the
//! robot changes or the panel closes.

use std::time::Duration;

use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{Event, HtmlElement, KeyboardEvent};

use super::InspectorState;
use crate::classroom::ClassState;
use crate::connection::LabSession;
use crate::inspector::client::send_keys;
use crate::inspector::{HeldKeys, KeyRoute, key_name, route_key};
use crate::ui::effect;

/// How long after the last change the held set is sent once more. The server applies
/// each `Keys` message in a task of its own, so two sent a few milliseconds apart may
/// land in either order; repeating the settled set after a pause makes the newest win.
const RESEND_SETTLED_KEYS_MS: u64 = 250;

/// The window listeners of one mounted toggle; removed when dropped.
struct Listeners {
    on_key_down: Closure<dyn FnMut(KeyboardEvent)>,
    on_key_up: Closure<dyn FnMut(KeyboardEvent)>,
    on_blur: Closure<dyn FnMut(Event)>,
}

impl Drop for Listeners {
    fn drop(&mut self) {
        let window = window();
        let _ = window.remove_event_listener_with_callback_and_bool(
            "keydown",
            self.on_key_down.as_ref().unchecked_ref(),
            true,
        );
        let _ =
            window.remove_event_listener_with_callback_and_bool("keyup", self.on_key_up.as_ref().unchecked_ref(), true);
        let _ = window.remove_event_listener_with_callback("blur", self.on_blur.as_ref().unchecked_ref());
    }
}

/// The toggle and what is held now; enabled for the robots this page may drive.
#[component]
pub fn KeyboardDrive() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let inspector = expect_context::<InspectorState>();
    let class = expect_context::<ClassState>();
    let driving = RwSignal::new(false);
    let held = StoredValue::new(HeldKeys::default());
    // What was last sent, for the page to show (the report shows what the robot got).
    let held_names = RwSignal::new(Vec::<String>::new());

    // Counts sends, so a repeat is skipped when a newer set went out meanwhile.
    let sends = StoredValue::new(0_u64);
    let send_settled = move |robot: String, names: Vec<String>| {
        send_keys(session, robot.clone(), names.clone());
        let this_send = sends.try_update_value(|n| {
            *n += 1;
            *n
        });
        set_timeout(
            move || {
                if sends.try_get_value() == this_send {
                    send_keys(session, robot, names);
                }
            },
            Duration::from_millis(RESEND_SETTLED_KEYS_MS),
        );
    };
    let send_held = move || {
        let names = held.with_value(HeldKeys::names);
        held_names.set(names.clone());
        if let Some(robot) = inspector.inspected.get_untracked() {
            send_settled(robot, names);
        }
    };
    // Lets every key go for `robot`: an empty set is sent even when nothing seemed held,
    // so the robot never keeps a key this page lost track of.
    let release_all = move |robot: Option<String>| {
        held.update_value(|keys| {
            keys.clear();
        });
        held_names.set(Vec::new());
        if let Some(robot) = robot {
            send_settled(robot, Vec::new());
        }
    };
    let stop = move || {
        if driving.get_untracked() {
            driving.set(false);
            release_all(inspector.inspected.get_untracked());
        }
    };

    // Another robot picked while driving: the previous one lets go of its keys. No robot
    // (or a lost connection): driving stops.
    effect(move |previous: Option<Option<String>>| {
        let current = inspector.inspected.get();
        if let Some(Some(previous)) = previous
            && Some(&previous) != current.as_ref()
            && driving.get_untracked()
        {
            release_all(Some(previous));
        }
        // No robot, or one this page may not drive: driving stops.
        if !current.as_ref().is_some_and(|robot| class.may_on(Action::SendKeys, robot)) {
            driving.set(false);
        }
        current
    });
    effect(move |_| {
        if !session.is_connected() && driving.get_untracked() {
            // The server forgets the keys of a closed connection; start clean.
            held.update_value(|keys| {
                keys.clear();
            });
            held_names.set(Vec::new());
            driving.set(false);
        }
    });

    let on_key_down = Closure::<dyn FnMut(KeyboardEvent)>::new(move |event: KeyboardEvent| {
        if !driving.get_untracked() || typed_into_a_field(&event) {
            return;
        }
        match route_key(&event.key(), event.ctrl_key(), event.alt_key(), event.meta_key()) {
            KeyRoute::PassThrough => {}
            KeyRoute::StopDriving => {
                event.prevent_default();
                stop();
            }
            KeyRoute::Drive(name) => {
                event.prevent_default();
                event.stop_propagation();
                if !event.repeat() && held.try_update_value(|keys| keys.press(&event.code(), &name)) == Some(true) {
                    send_held();
                }
            }
        }
    });
    let on_key_up = Closure::<dyn FnMut(KeyboardEvent)>::new(move |event: KeyboardEvent| {
        if !driving.get_untracked() {
            return;
        }
        // Released whatever the modifiers or focus now: a key must never stay held.
        let name = key_name(&event.key()).unwrap_or_default();
        let changed = held.try_update_value(|keys| keys.release(&event.code(), &name)) == Some(true);
        if !typed_into_a_field(&event) {
            event.prevent_default();
            event.stop_propagation();
        }
        if changed {
            send_held();
        }
    });
    let on_blur = Closure::<dyn FnMut(Event)>::new(move |_: Event| {
        if driving.get_untracked() {
            release_all(inspector.inspected.get_untracked());
        }
    });
    let window = window();
    let _ = window.add_event_listener_with_callback_and_bool("keydown", on_key_down.as_ref().unchecked_ref(), true);
    let _ = window.add_event_listener_with_callback_and_bool("keyup", on_key_up.as_ref().unchecked_ref(), true);
    let _ = window.add_event_listener_with_callback("blur", on_blur.as_ref().unchecked_ref());
    let listeners = StoredValue::new_local(Some(Listeners { on_key_down, on_key_up, on_blur }));
    on_cleanup(move || {
        // The panel closed or the role changed while driving: let go first.
        if driving.try_get_untracked() == Some(true) {
            release_all(inspector.inspected.try_get_untracked().flatten());
        }
        listeners.try_update_value(|listeners| listeners.take());
    });

    let toggle = move |event: leptos::ev::MouseEvent| {
        if driving.get_untracked() {
            stop();
        } else {
            // Nothing is held yet: the first key down sends the first set.
            driving.set(true);
        }
        // Keys go to the page, not to this button (Space would press it again).
        if let Some(button) = event.current_target().and_then(|t| t.dyn_into::<HtmlElement>().ok()) {
            let _ = button.blur();
        }
    };
    let can_drive = move || {
        session.is_connected() && inspector.inspected.get().is_some_and(|robot| class.may_on(Action::SendKeys, &robot))
    };

    view! {
        <div class="keyboard-drive" class:is-driving=move || driving.get()>
            <button
                class="btn btn-small drive-toggle"
                class:is-active=move || driving.get()
                data-testid="btn-drive-keys"
                aria-pressed=move || driving.get().to_string()
                disabled=move || !can_drive() && !driving.get()
                title="While on, the keys you hold on this page go to the robot's Keyboard sensors (Esc stops)"
                on:click=toggle
            >
                {move || if driving.get() { "■ Stop driving" } else { "⌨ Drive with keyboard" }}
            </button>
            <span class="readout held-keys" data-testid="held-keys">
                {move || {
                    if !driving.get() {
                        String::new()
                    } else if held_names.with(Vec::is_empty) {
                        "hold keys to drive · Esc stops".to_owned()
                    } else {
                        held_names.with(|names| names.join(" + "))
                    }
                }}
            </span>
        </div>
    }
}

/// Whether the key went to a place that types text (the actuator inputs, the scene
/// editor): those keep their keys.
fn typed_into_a_field(event: &KeyboardEvent) -> bool {
    let Some(element) = event.target().and_then(|t| t.dyn_into::<HtmlElement>().ok()) else {
        return false;
    };
    matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT") || element.is_content_editable()
}
