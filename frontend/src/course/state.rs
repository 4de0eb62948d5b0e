//! The class page's state: which class, the session's token, the class as the server
//! last showed it, and the browser's clock and dates in the words the page uses.

use leptos::prelude::*;
use vlab_protocol::ClassView;
use wasm_bindgen::JsValue;

use super::client::{class_view, forget_class};
use crate::api::error_sentence;

/// Handles to the class page's state; `Copy`, so every component and callback takes its own.
#[derive(Clone, Copy)]
pub struct ClassSession {
    class: StoredValue<String>,
    token: StoredValue<String>,
    /// The class as the server last showed it (`None` before the first answer).
    pub view: RwSignal<Option<ClassView>>,
    /// Why the class could not be read, when it could not.
    pub error: RwSignal<Option<String>>,
}

impl ClassSession {
    /// The session `token` in `class`, nothing read yet.
    pub fn new(class: String, token: String) -> ClassSession {
        ClassSession {
            class: StoredValue::new(class),
            token: StoredValue::new(token),
            view: RwSignal::new(None),
            error: RwSignal::new(None),
        }
    }

    /// The class's id.
    pub fn class(&self) -> String {
        self.class.get_value()
    }

    /// The session's bearer token.
    pub fn token(&self) -> String {
        self.token.get_value()
    }

    /// Reads the class again (after a change that shows in it: a lesson, an assignment).
    pub fn reload(&self) {
        let this = *self;
        leptos::task::spawn_local(async move {
            match class_view(&this.class(), &this.token()).await {
                Ok(view) => {
                    this.error.set(None);
                    this.view.set(Some(view));
                }
                Err(error) => {
                    // A session the server no longer knows is forgotten here, so the
                    // start page stops offering it.
                    if error.status() == Some(401) {
                        forget_class(&this.class(), &this.token());
                    }
                    this.error.set(Some(error_sentence(&error)));
                }
            }
        });
    }
}

/// Now, Unix seconds, by the browser's clock.
pub fn now_secs() -> i64 {
    (js_sys::Date::now() / 1000.0) as i64
}

/// `3 Dec 2026, 14:00`: a time in the browser's own language and time zone.
pub fn date_text(secs: i64) -> String {
    let date = js_sys::Date::new(&JsValue::from_f64(secs as f64 * 1000.0));
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"dateStyle".into(), &"medium".into());
    let _ = js_sys::Reflect::set(&options, &"timeStyle".into(), &"short".into());
    String::from(date.to_locale_string("default", &options))
}

/// A `datetime-local` input's value (`2026-12-03T14:00`, the browser's time zone) as
/// Unix seconds; `None` when empty or not a date.
pub fn local_input_secs(text: &str) -> Option<i64> {
    if text.trim().is_empty() {
        return None;
    }
    let millis = js_sys::Date::new(&JsValue::from_str(text.trim())).get_time();
    millis.is_finite().then(|| (millis / 1000.0) as i64)
}
