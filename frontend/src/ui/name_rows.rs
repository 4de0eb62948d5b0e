//! [`ForEachName`]: one row per name of a list, keyed by the name, like leptos' `<For>`
//! with `key=|name| name.clone()`, but with the list's diffing compiled once for the page.
//!
//! `<For>` is generic over its list closure, its key closure and its row closure, so each
//! use brings its own copy of the keyed diff and of the mounting code of its rows. The
//! page lists names (robots, sensors, actuators, cameras, plots) in seven places; here
//! the list arrives as a `Signal<Vec<String>>` and each row as an `AnyView`, and they
//! share the one `<For>` of [`super::ForEach`]. Rows behave as with `<For>`: a row is built when its name
//! appears, kept (with its own reactive owner) while the name stays, in the list's order,
//! and dropped when the name goes.

use std::sync::Arc;

use leptos::prelude::*;

use super::for_each::{Row, keyed_rows};

/// Builds the row of one name.
type NameView = Arc<dyn Fn(String) -> AnyView + Send + Sync>;

/// One `children(name)` row per name of `each`, in order, keyed by the name.
#[component]
pub fn ForEachName<C, V>(
    /// The names, each at most once (a repeated name is one key, as with `<For>`).
    #[prop(into)]
    each: Signal<Vec<String>>,
    /// The row of one name (`let:name` in `view!`).
    children: C,
) -> impl IntoView
where
    C: Fn(String) -> V + Send + Sync + 'static,
    V: IntoView + 'static,
{
    let row: NameView = Arc::new(move |name| children(name).into_any());
    name_rows(each, row)
}

/// The rows of a list of names, for the shared `<For>`.
fn name_rows(each: Signal<Vec<String>>, row: NameView) -> impl IntoView {
    keyed_rows(Box::new(move || {
        each.get()
            .into_iter()
            .map(|name| {
                let row = Arc::clone(&row);
                Row { key: name.clone(), view: Arc::new(move || row(name.clone())) }
            })
            .collect()
    }))
}
