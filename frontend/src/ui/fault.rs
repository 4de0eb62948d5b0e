//! A fault of the page's own (a Rust panic) is said on the page and recovered from:
//! the page reloads itself (at most once a minute, so a fault at start-up cannot loop)
//! and comes back to the same lab as the same person. Without this, the module stops
//! at its first panic and the page stops answering in silence. The lab itself runs on
//! the server and never notices.

use leptos::prelude::window;

/// How long the notice shows before the page reloads, milliseconds.
const RELOAD_AFTER_MS: i32 = 4_000;
/// A page reloaded for a fault less than this long ago does not reload again by itself.
const RELOAD_AT_MOST_EVERY_MS: f64 = 60_000.0;
/// Where the tab keeps when it last reloaded for a fault.
const LAST_RELOAD_KEY: &str = "vlab-fault-reload";

/// Installs the hook: the panic in the browser's console (with its message), then the
/// notice, then the reload.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        // The message for people; where in the code it happened is in the console.
        let payload = info.payload();
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "an unexpected state".to_owned());
        report(&what);
    }));
}

/// Shows the notice and schedules the reload (plain DOM: the app's runtime is what
/// just failed).
fn report(what: &str) {
    let Some(document) = window().document() else { return };
    let Some(body) = document.body() else { return };
    let reload = may_reload_now();
    let Ok(notice) = document.create_element("div") else { return };
    notice.set_class_name("fault-notice");
    let _ = notice.set_attribute("role", "alert");
    let _ = notice.set_attribute("data-testid", "page-fault");
    let _ = notice.set_attribute("data-reloads", if reload { "true" } else { "false" });
    let then = if reload {
        "It reloads in a few seconds and comes back to your lab; the lab went on meanwhile."
    } else {
        "It reloaded for the same reason a moment ago, so it waits: reload it when you are ready."
    };
    notice.set_text_content(Some(&format!("This page hit a fault of its own ({what}). {then} ")));
    if let Ok(button) = document.create_element("button") {
        button.set_class_name("btn");
        button.set_text_content(Some("Reload now"));
        let _ = button.set_attribute("onclick", "location.reload()");
        let _ = notice.append_child(&button);
    }
    let _ = body.append_child(&notice);
    if reload {
        let reload = js_sys::Function::new_no_args("location.reload()");
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&reload, RELOAD_AFTER_MS);
    }
}

/// Whether the page may reload by itself now, noting that it does.
fn may_reload_now() -> bool {
    let now = js_sys::Date::now();
    let Some(storage) = window().session_storage().ok().flatten() else { return false };
    let last = storage.get_item(LAST_RELOAD_KEY).ok().flatten().and_then(|t| t.parse::<f64>().ok());
    if last.is_some_and(|last| now - last < RELOAD_AT_MOST_EVERY_MS) {
        return false;
    }
    storage.set_item(LAST_RELOAD_KEY, &now.to_string()).is_ok()
}

/// A fault on purpose, for the browser tests of this recovery: `vlab_fault_drill()`
/// from the page's module.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn vlab_fault_drill() {
    panic!("a fault drill");
}
