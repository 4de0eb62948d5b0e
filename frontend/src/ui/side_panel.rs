//! A side panel of the lab view (Robots, People): a header with its title, a count and
//! a collapse button, folding to a narrow tab that shows the title and the count.

use super::When;
use leptos::prelude::*;

/// What a side panel is called and where it sits.
#[derive(Clone, Copy)]
pub struct PanelLabels {
    /// Its title ("Robots").
    pub title: &'static str,
    /// The CSS class of the panel (`robot-panel`); also its `data-testid`.
    pub class: &'static str,
    /// The `data-testid` of its open/close buttons.
    pub toggle_testid: &'static str,
    /// Tooltip of the folded tab ("Show the robots and their sensors").
    pub show_hint: &'static str,
    /// Tooltip and label of the collapse button ("Hide the robot panel").
    pub hide_hint: &'static str,
    /// Whether it sits at the left edge (the collapse arrow points left).
    pub at_left: bool,
}

/// The panel around `children`, open while `open` is.
#[component]
pub fn SidePanel(
    labels: PanelLabels,
    count: Signal<usize>,
    open: RwSignal<bool>,
    children: ChildrenFn,
) -> impl IntoView {
    let PanelLabels { title, class, toggle_testid, show_hint, hide_hint, at_left } = labels;
    view! {
        <aside
            class=class
            class:is-collapsed=move || !open.get()
            data-testid=class
            data-open=move || open.get().to_string()
            aria-label=title
        >
            <When
                when=move || open.get()
                fallback=move || {
                    view! {
                        <button
                            class="robot-panel-tab"
                            data-testid=toggle_testid
                            title=show_hint
                            aria-expanded="false"
                            on:click=move |_| open.set(true)
                        >
                            <span class="robot-panel-tab-text">{title} " " {count}</span>
                        </button>
                    }
                }
            >
                <header class="panel-header">
                    <h2>{title}</h2>
                    <span class="robot-count">{count}</span>
                    <div class="spacer"></div>
                    <button
                        class="panel-collapse"
                        class:is-left=at_left
                        data-testid=toggle_testid
                        title=hide_hint
                        aria-label=hide_hint
                        aria-expanded="true"
                        on:click=move |_| open.set(false)
                    ></button>
                </header>
                {children()}
            </When>
        </aside>
    }
}
