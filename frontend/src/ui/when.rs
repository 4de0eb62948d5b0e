//! [`When`]: shows its children while a condition holds, like leptos' `<Show>`, but
//! compiled once for the whole page.
//!
//! `<Show>` is generic over its condition's closure and its children's view type, so
//! each of its uses brings its own copy of the memo, the reactive render effect and the
//! two-way branch's mounting code. Here the condition arrives boxed ([`Condition`]) and
//! the children as a `ChildrenFn` (both type-erased), so every use shares one copy; only
//! boxing the condition and turning the children into an `AnyView` stay per use. The
//! page is the same: the condition is memoized as `<Show>` memoizes it, so the children
//! are built again only when it flips, and the fallback shows while it is false.

use leptos::prelude::*;

/// A `when` closure, boxed. Not a `Signal<bool>`: a derived signal is a boxed closure
/// too, but each closure type brings its own copy of the signal's constructor and
/// arena code; a plain box brings only its allocation.
pub struct Condition(Box<dyn Fn() -> bool + Send + Sync>);

impl<F> From<F> for Condition
where
    F: Fn() -> bool + Send + Sync + 'static,
{
    fn from(when: F) -> Self {
        Condition(Box::new(when))
    }
}

/// Shows `children` while `when` is true, `fallback` (nothing by default) otherwise.
#[component]
pub fn When(
    /// The condition: a closure, tracked like a `<Show>`'s.
    #[prop(into)]
    when: Condition,
    /// Built anew each time the condition turns true.
    children: ChildrenFn,
    /// Shown while the condition is false.
    #[prop(optional, into)]
    fallback: ViewFn,
) -> impl IntoView {
    let shown = Memo::new(move |_| (when.0)());
    move || if shown.get() { children() } else { fallback.run() }
}
