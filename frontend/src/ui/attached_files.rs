//! [`AttachedFiles`]: the chips of the files a form sends beside its main text, each with a button that drops it.

use leptos::prelude::*;

use super::ForEachName;

/// One chip per name of `names`, in order; its × calls `on_remove` with the name.
#[component]
pub fn AttachedFiles(
    /// The files' names, each at most once.
    #[prop(into)]
    names: Signal<Vec<String>>,
    /// Drops the file of this name.
    on_remove: Callback<String>,
    /// The `data-testid` of each chip, if tests look for them.
    #[prop(optional)]
    testid: Option<&'static str>,
) -> impl IntoView {
    view! {
        <ul class="attached">
            <ForEachName each=names let:name>
                <li class="chip attached-file" data-testid=testid title=format!("sent along as {name}")>
                    <span>{name.clone()}</span>
                    <button
                        class="chip-remove"
                        aria-label=format!("do not send {name}")
                        on:click={
                            let name = name.clone();
                            move |_| on_remove.run(name.clone())
                        }
                    ></button>
                </li>
            </ForEachName>
        </ul>
    }
}
