//! A small code editor: a plain textarea over a highlighted copy of its text, with a line-number gutter.
//!
//! The textarea keeps all the editing (caret, selection, undo, IME, copy-paste) and is
//! drawn with transparent text; the `<pre>` under it shows the same text as the HTML the
//! caller colours it into (with its language's highlighter). Neither scrolls on its own:
//! both grow with the text inside one scrolling box, so they can never drift apart.

use leptos::html::{Div, Textarea};
use leptos::prelude::*;

use super::memo;
use super::text_lines::{line_count, longest_line_chars};

/// Height of one line in pixels: the CSS `line-height` of `.code-editor` (keep them equal).
pub const LINE_HEIGHT_PX: i32 = 20;
/// Padding above the first line in pixels (`.code-highlight`, `.code-input`).
pub const TOP_PADDING_PX: i32 = 8;

/// Handles the panel needs to move the caret to a line.
#[derive(Clone, Copy)]
pub struct CodeEditorRefs {
    /// The textarea.
    pub input: NodeRef<Textarea>,
    /// The scrolling box.
    pub scroller: NodeRef<Div>,
}

impl CodeEditorRefs {
    /// Fresh, unmounted refs.
    pub fn new() -> CodeEditorRefs {
        CodeEditorRefs { input: NodeRef::new(), scroller: NodeRef::new() }
    }

    /// Focuses the editor with the caret at UTF-16 `offset`, scrolling 1-based `line` into the middle of the view.
    pub fn jump_to(&self, offset: u32, line: u32) {
        if let Some(input) = self.input.get_untracked() {
            let _ = input.focus();
            let _ = input.set_selection_range(offset, offset);
        }
        if let Some(scroller) = self.scroller.get_untracked() {
            let line_top = TOP_PADDING_PX + (line.max(1) as i32 - 1) * LINE_HEIGHT_PX;
            scroller.set_scroll_top((line_top - scroller.client_height() / 2).max(0));
        }
    }
}

/// The editor. `error_line` (1-based) gets a red marker; `on_submit` runs on Ctrl/⌘+Enter.
/// `testid` names its hooks: `<testid>-source` (the textarea), `<testid>-error-line`.
#[component]
pub fn CodeEditor(
    text: RwSignal<String>,
    #[prop(into)] error_line: Signal<Option<u32>>,
    refs: CodeEditorRefs,
    on_submit: Callback<()>,
    /// The text as coloured HTML (escaped, each token in its class's `<span>`).
    #[prop(into)]
    highlighted: Signal<String>,
    /// Prefix of the `data-testid`s.
    #[prop(default = "scene")]
    testid: &'static str,
    /// The textarea's accessible name.
    #[prop(default = "scene source (.vlab)")]
    label: &'static str,
    /// Shown while the text is empty.
    #[prop(default = "// Write a scene to add, e.g.\ncrate1 { shape box(1,1,1); pos(2,0.5,2); }")]
    placeholder: &'static str,
) -> impl IntoView {
    let lines = memo(move |_| text.with(|text| line_count(text)));
    let gutter = move || {
        let error = error_line.get();
        let mut html = String::new();
        for line in 1..=lines.get() {
            if Some(line as u32) == error {
                html.push_str(&format!("<span class=\"is-error\">{line}</span>\n"));
            } else {
                html.push_str(&format!("{line}\n"));
            }
        }
        html
    };
    // Wide enough for the longest line (the textarea must never need to scroll itself).
    let min_width = move || format!("calc({}ch + 24px)", text.with(|text| longest_line_chars(text)) + 1);

    view! {
        <div class="code-editor" node_ref=refs.scroller>
            <div class="code-inner">
                <pre class="code-gutter" aria-hidden="true" inner_html=gutter></pre>
                <div class="code-area" style:min-width=min_width>
                    {move || {
                        error_line
                            .get()
                            .map(|line| {
                                view! {
                                    <div
                                        class="code-error-line"
                                        data-testid=format!("{testid}-error-line")
                                        data-line=line.to_string()
                                        style:top=format!(
                                            "{}px",
                                            TOP_PADDING_PX + (line as i32 - 1) * LINE_HEIGHT_PX,
                                        )
                                    ></div>
                                }
                            })
                    }}
                    <pre class="code-highlight" aria-hidden="true" inner_html=move || highlighted.get()></pre>
                    <textarea
                        class="code-input"
                        data-testid=format!("{testid}-source")
                        aria-label=label
                        spellcheck="false"
                        autocomplete="off"
                        autocapitalize="off"
                        wrap="off"
                        placeholder=placeholder
                        node_ref=refs.input
                        prop:value=move || text.get()
                        on:input=move |event| text.set(event_target_value(&event))
                        on:keydown=move |event: web_sys::KeyboardEvent| {
                            if event.key() == "Enter" && (event.ctrl_key() || event.meta_key()) {
                                event.prevent_default();
                                on_submit.run(());
                            }
                        }
                        // It is sized to its text; a browser scrolling it anyway would misalign the overlay.
                        on:scroll=move |_| {
                            if let Some(input) = refs.input.get_untracked() {
                                input.set_scroll_top(0);
                                input.set_scroll_left(0);
                            }
                        }
                    ></textarea>
                </div>
            </div>
        </div>
    }
}
