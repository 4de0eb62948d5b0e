//! [`When`]: shows its children while a condition holds, like leptos' `<Show>`, but
//! compiled once for the whole page.
//!
//! `<Show>` is generic over its condition's closure and its children's view type, so
//! each of its uses brings its own copy of the memo, the reactive render effect and the
//! two-way branch's mounting code. Here the condition arrives as a `Signal<bool>` and the
//! children as a `ChildrenFn` (both type-erased), so every use shares one copy; only
//! turning the children into an `AnyView` stays per use. The page is the same: the
//! condition is memoized as `<Show>` memoizes it, so the children are built again only
//! when it flips, and the fallback shows while it is false.

use leptos::prelude::*;

/// Shows `children` while `when` is true, `fallback` (nothing by default) otherwise.
#[component]
pub fn When(
    /// The condition: a closure (or any signal of `bool`), tracked like a `<Show>`'s.
    #[prop(into)]
    when: Signal<bool>,
    /// Built anew each time the condition turns true.
    children: ChildrenFn,
    /// Shown while the condition is false.
    #[prop(optional, into)]
    fallback: ViewFn,
) -> impl IntoView {
    let shown = Memo::new(move |_| when.get());
    move || if shown.get() { children() } else { fallback.run() }
}
