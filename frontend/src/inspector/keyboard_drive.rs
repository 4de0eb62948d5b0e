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

/// The toggle's state: whether it drives, the keys held, and what was last sent.
#[derive(Clone, Copy)]
struct Driver {
    session: LabSession,
    inspector: InspectorState,
    driving: RwSignal<bool>,
    held: StoredValue<HeldKeys>,
    /// What was last sent, for the page to show (the report shows what the robot got).
    held_names: RwSignal<Vec<String>>,
    /// Counts sends, so a repeat is skipped when a newer set went out meanwhile.
    sends: StoredValue<u64>,
}

impl Driver {
    fn send_settled(self, robot: String, names: Vec<String>) {
        let Driver { session, sends, .. } = self;
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
    }

    fn send_held(self) {
        let names = self.held.with_value(HeldKeys::names);
        self.held_names.set(names.clone());
        if let Some(robot) = self.inspector.inspected.get_untracked() {
            self.send_settled(robot, names);
        }
    }

    /// Forgets every key held, without telling the server.
    fn forget_keys(self) {
        self.held.update_value(|keys| {
            keys.clear();
        });
        self.held_names.set(Vec::new());
    }

    /// Lets every key go for `robot`: an empty set is sent even when nothing seemed held,
    /// so the robot never keeps a key this page lost track of.
    fn release_all(self, robot: Option<String>) {
        self.forget_keys();
        if let Some(robot) = robot {
            self.send_settled(robot, Vec::new());
        }
    }

    fn stop(self) {
        if self.driving.get_untracked() {
            self.driving.set(false);
            self.release_all(self.inspector.inspected.get_untracked());
        }
    }

    fn key_down(self, event: KeyboardEvent) {
        if !self.driving.get_untracked() || typed_into_a_field(&event) {
            return;
        }
        match route_key(&event.key(), event.ctrl_key(), event.alt_key(), event.meta_key()) {
            KeyRoute::PassThrough => {}
            KeyRoute::StopDriving => {
                event.prevent_default();
                self.stop();
            }
            KeyRoute::Drive(name) => {
                event.prevent_default();
                event.stop_propagation();
                if !event.repeat() && self.held.try_update_value(|keys| keys.press(&event.code(), &name)) == Some(true)
                {
                    self.send_held();
                }
            }
        }
    }

    fn key_up(self, event: KeyboardEvent) {
        if !self.driving.get_untracked() {
            return;
        }
        // Released whatever the modifiers or focus now: a key must never stay held.
        let name = key_name(&event.key()).unwrap_or_default();
        let changed = self.held.try_update_value(|keys| keys.release(&event.code(), &name)) == Some(true);
        if !typed_into_a_field(&event) {
            event.prevent_default();
            event.stop_propagation();
        }
        if changed {
            self.send_held();
        }
    }

    /// Listens on the window (capture phase) while the toggle is mounted.
    fn listen(self) -> Listeners {
        let on_key_down = Closure::<dyn FnMut(KeyboardEvent)>::new(move |event| self.key_down(event));
        let on_key_up = Closure::<dyn FnMut(KeyboardEvent)>::new(move |event| self.key_up(event));
        let on_blur = Closure::<dyn FnMut(Event)>::new(move |_: Event| {
            if self.driving.get_untracked() {
                self.release_all(self.inspector.inspected.get_untracked());
            }
        });
        let window = window();
        let _ = window.add_event_listener_with_callback_and_bool("keydown", on_key_down.as_ref().unchecked_ref(), true);
        let _ = window.add_event_listener_with_callback_and_bool("keyup", on_key_up.as_ref().unchecked_ref(), true);
        let _ = window.add_event_listener_with_callback("blur", on_blur.as_ref().unchecked_ref());
        Listeners { on_key_down, on_key_up, on_blur }
    }

    /// Another robot picked while driving: the previous one lets go of its keys. No
    /// robot, one this page may not drive, or a lost connection: driving stops.
    fn follow_the_picked_robot(self, class: ClassState) {
        let Driver { session, inspector, driving, .. } = self;
        effect(move |previous: Option<Option<String>>| {
            let current = inspector.inspected.get();
            if let Some(Some(previous)) = previous
                && Some(&previous) != current.as_ref()
                && driving.get_untracked()
            {
                self.release_all(Some(previous));
            }
            if !current.as_ref().is_some_and(|robot| class.may_on(Action::SendKeys, robot)) {
                driving.set(false);
            }
            current
        });
        effect(move |_| {
            if !session.is_connected() && driving.get_untracked() {
                // The server forgets the keys of a closed connection; start clean.
                self.forget_keys();
                driving.set(false);
            }
        });
    }
}

/// The toggle and what is held now; enabled for the robots this page may drive.
#[component]
pub fn KeyboardDrive() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let inspector = expect_context::<InspectorState>();
    let class = expect_context::<ClassState>();
    let driver = Driver {
        session,
        inspector,
        driving: RwSignal::new(false),
        held: StoredValue::new(HeldKeys::default()),
        held_names: RwSignal::new(Vec::new()),
        sends: StoredValue::new(0),
    };
    let Driver { driving, held_names, .. } = driver;
    driver.follow_the_picked_robot(class);
    let listeners = StoredValue::new_local(Some(driver.listen()));
    on_cleanup(move || {
        // The panel closed or the role changed while driving: let go first.
        if driving.try_get_untracked() == Some(true) {
            driver.release_all(inspector.inspected.try_get_untracked().flatten());
        }
        listeners.try_update_value(|listeners| listeners.take());
    });
    let toggle = move |event: leptos::ev::MouseEvent| {
        if driving.get_untracked() {
            driver.stop();
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
    let held_text = move || match (driving.get(), held_names.with(Vec::is_empty)) {
        (false, _) => String::new(),
        (true, true) => "hold keys to drive · Esc stops".to_owned(),
        (true, false) => held_names.with(|names| names.join(" + ")),
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
            <span class="readout held-keys" data-testid="held-keys">{held_text}</span>
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
