//! The student's My grades section: her row of the gradebook, each graded hand-in's
//! trials with the way to watch their replays.

use leptos::prelude::*;

use super::gradebook::{GradeTable, GradebookState};

/// The section.
#[component]
pub fn MyGrades() -> impl IntoView {
    let state = GradebookState::new();
    view! {
        <section class="card course-card wide-card" aria-label="My grades" data-testid="my-grades-section">
            <header class="card-header">
                <h2>"My grades"</h2>
                <div class="spacer"></div>
                <button class="btn btn-small" data-testid="btn-refresh-grades" on:click=move |_| state.reload()>"Refresh"</button>
            </header>
            <p class="hint">"Open a grade's trials to see how each hidden trial went, and watch it."</p>
            <GradeTable state teacher=false />
        </section>
    }
}
