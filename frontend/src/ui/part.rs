//! Parts of the page that are fetched the first time they are shown: their code lives
//! in a module of its own beside the page's first one, so a page that never opens them
//! never downloads them.
//!
//! A part is a function marked `#[wasm_split(<module>, fallible)]` that returns its
//! view; the build (`cargo xtask web`) moves what only that function reaches into
//! `<module>`'s wasm file. Calling the marked function fetches that file once (later
//! calls find it loaded) and then runs it. `<Part>` shows the result where it stands
//! in the page, nothing while the file is on its way, and a message if it could not be
//! fetched.

use std::future::Future;
use std::pin::Pin;

use leptos::prelude::*;
use send_wrapper::SendWrapper;

/// A part's module could not be fetched: the network failed, or the server was given a
/// new build while this page was open and no longer has the old one.
#[derive(Debug)]
pub struct PartNotLoaded;

impl From<wasm_split_helpers::SplitLoaderError> for PartNotLoaded {
    fn from(_: wasm_split_helpers::SplitLoaderError) -> PartNotLoaded {
        PartNotLoaded
    }
}

/// What a marked function becomes: a future of its view.
pub type PartView = Pin<Box<dyn Future<Output = Result<AnyView, PartNotLoaded>>>>;

/// Shows the view `load` yields once its module is there. `what` names the part in the
/// message shown if it could not be fetched ("the scene editor").
#[component]
pub fn Part(load: fn() -> PartView, what: &'static str) -> impl IntoView {
    // The future touches the DOM and JS promises, which stay on the page's one thread;
    // leptos asks for `Send` because it could run elsewhere, and `SendWrapper` checks
    // that it never does.
    let view = SendWrapper::new(load());
    Suspend::new(async move {
        match view.await {
            Ok(view) => view,
            Err(PartNotLoaded) => view! {
                <p class="part-error" role="alert" data-testid="part-error">
                    {format!("Could not load {what}: check the connection, then reload the page.")}
                </p>
            }
            .into_any(),
        }
    })
}
