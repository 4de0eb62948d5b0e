//! [`ForEach`]: one row per item of a list, keyed, like leptos' `<For>`, but with the
//! list's diffing compiled once for the page.
//!
//! `<For>` is generic over its list, key and row closures, so each use brings its own
//! copy of the keyed diff and of the mounting code of its rows. Here each item becomes a
//! [`Row`]: its key written out as text (the `Debug` form of the key, so two keys are
//! the same text exactly when they are equal) and its row as a boxed closure, and every
//! list shares one `<For>` over rows. Rows behave as with `<For>`: a row is built when
//! its key appears, kept (with its own reactive owner) while the key stays, in the list's
//! order, and dropped when the key goes.

use std::fmt::Debug;
use std::sync::Arc;

use leptos::prelude::*;

/// Builds the view of one row.
pub(crate) type RowView = Arc<dyn Fn() -> AnyView + Send + Sync>;

/// One item of a list: its key and its view.
pub(crate) struct Row {
    /// The item's key, as text.
    pub(crate) key: String,
    /// The item's row.
    pub(crate) view: RowView,
}

/// A list's rows, read again when the list changes.
pub(crate) type Rows = Box<dyn Fn() -> Vec<Row> + Send + Sync>;

/// One `children(item)` row per item of `each`, in order, keyed by `key(item)`.
#[component]
pub fn ForEach<T, E, K, KV, C, V>(
    /// The items, read in a reactive context like `<For>`'s `each`.
    each: E,
    /// The item's key: a row stays while its key does.
    key: K,
    /// The row of one item (`let:item` in `view!`).
    children: C,
) -> impl IntoView
where
    T: Clone + Send + Sync + 'static,
    E: Fn() -> Vec<T> + Send + Sync + 'static,
    K: Fn(&T) -> KV + Send + Sync + 'static,
    KV: Debug,
    C: Fn(T) -> V + Send + Sync + 'static,
    V: IntoView + 'static,
{
    let children = Arc::new(children);
    let rows: Rows = Box::new(move || {
        each()
            .into_iter()
            .map(|item| {
                let key = format!("{:?}", key(&item));
                let children = Arc::clone(&children);
                let view: RowView = Arc::new(move || children(item.clone()).into_any());
                Row { key, view }
            })
            .collect()
    });
    keyed_rows(rows)
}

/// The one `<For>` every keyed list of the page goes through (`<ForEachName>` too).
pub(crate) fn keyed_rows(rows: Rows) -> impl IntoView {
    view! { <For each=move || rows() key=|row: &Row| row.key.clone() children=|row: Row| (row.view)() /> }
}
