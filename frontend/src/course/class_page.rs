//! The class page (`?class=<id>`): finds the session (the link's token, a one-time sign-in
//! link traded for one, this tab's or this browser's), then shows the teacher's sections
//! or the student's, one at a time, or a graded trial's replay.

use leptos::prelude::*;

use super::assignments::AssignmentsSection;
use super::client::{sign_in_with_link, store_class, stored_class};
use super::forms::StoredClass;
use super::gradebook::GradebookSection;
use super::graded_replay::GradedReplayPage;
use super::homework::MyAssignments;
use super::lessons::{LessonsSection, MyLessons};
use super::my_grades::MyGrades;
use super::overview::OverviewSection;
use super::roster::StudentsSection;
use super::state::ClassSession;
use crate::api::error_sentence;
use crate::page::{ClassParams, class_query, trial_replay_query};
use crate::ui::browser::{hide_link_token, link_token};
use crate::ui::{ForEach, When, effect, memo};

/// Where a page's arrival stands.
#[derive(Clone)]
enum Arrival {
    /// Trading a one-time link for a session.
    SigningIn,
    /// The session is known.
    Ready(ClassSession),
    /// No session: why, for the person.
    Refused(String),
}

/// The key under which this tab keeps a class's token (beside the labs' own).
fn tab_key(class: &str) -> String {
    format!("class:{class}")
}

/// The whole class page, or a graded trial's replay, as the [`ClassParams`] of the
/// context (the route's) ask.
#[component]
pub fn ClassPage() -> impl IntoView {
    document().set_title("Class · VLab");
    let ClassParams { class, token, link, replay } = expect_context::<ClassParams>();
    let key = tab_key(&class);
    // The address the tab shows: the token leaves it at once (a projector, a copied
    // link), and the tab keeps it, so a reload stays the same person.
    let plain = match replay {
        Some((evaluation, trial)) => trial_replay_query(&class, evaluation, trial),
        None => class_query(&class, None),
    };
    let arrival = RwSignal::new(Arrival::SigningIn);
    match (link, token) {
        (Some(link), _) => {
            let class = class.clone();
            leptos::task::spawn_local(async move {
                match sign_in_with_link(&link).await {
                    Ok(signed) if signed.class == class => {
                        store_class(&StoredClass::signed_in(&signed));
                        hide_link_token(&key, &signed.token, &plain);
                        arrival.set(Arrival::Ready(ClassSession::new(class, signed.token)));
                    }
                    Ok(_) => arrival.set(Arrival::Refused("This sign-in link belongs to another class.".into())),
                    Err(error) => arrival.set(Arrival::Refused(format!(
                        "This sign-in link does not work any more ({}) A link signs in once: sign in with the class code, your name and your PIN instead.",
                        error_sentence(&error)
                    ))),
                }
            });
        }
        (None, Some(token)) => {
            hide_link_token(&key, &token, &plain);
            arrival.set(Arrival::Ready(ClassSession::new(class, token)));
        }
        (None, None) => match link_token(&key).or_else(|| stored_class(&class).map(|s| s.token)) {
            Some(token) => arrival.set(Arrival::Ready(ClassSession::new(class, token))),
            None => arrival.set(Arrival::Refused(
                "This browser is not signed in to this class: sign in from the start page with the class code, your name and your PIN.".into(),
            )),
        },
    }
    move || match arrival.get() {
        Arrival::SigningIn => {
            view! { <p class="page hint" data-testid="class-signing-in">"Signing in…"</p> }.into_any()
        }
        Arrival::Refused(message) => view! { <Refused message /> }.into_any(),
        Arrival::Ready(session) => match replay {
            Some((evaluation, trial)) => view! { <GradedReplayPage session evaluation trial /> }.into_any(),
            None => view! { <ClassHome session /> }.into_any(),
        },
    }
}

/// No session: why, and the way to the sign-in form.
#[component]
fn Refused(message: String) -> impl IntoView {
    view! {
        <div class="page" data-testid="class-page">
            <PageHeader tagline="A class on VLab." />
            <section class="card refusal-card">
                <p class="form-error" role="alert" data-testid="class-error">{message}</p>
                <a class="btn btn-primary" href="/">"To the start page"</a>
            </section>
        </div>
    }
}

/// The brand, back to the start page, and a line about the page.
#[component]
fn PageHeader(#[prop(into)] tagline: Signal<String>) -> impl IntoView {
    view! {
        <header class="page-header">
            <a class="brand" href="/">
                <span class="brand-mark">"V"</span>
                <span class="brand-name">"VLab"</span>
            </a>
            <p class="tagline" data-testid="class-tagline">{move || tagline.get()}</p>
        </header>
    }
}

/// The sections of the page, as its tabs name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    Students,
    Lessons,
    Assignments,
    Gradebook,
    Overview,
    MyLessons,
    MyAssignments,
    MyGrades,
}

impl Section {
    fn label(self) -> &'static str {
        match self {
            Section::Students => "Students",
            Section::Lessons => "Lessons",
            Section::Assignments => "Assignments",
            Section::Gradebook => "Gradebook",
            Section::Overview => "Overview",
            Section::MyLessons => "My lessons",
            Section::MyAssignments => "My assignments",
            Section::MyGrades => "My grades",
        }
    }

    fn testid(self) -> &'static str {
        match self {
            Section::Students => "tab-students",
            Section::Lessons => "tab-lessons",
            Section::Assignments => "tab-assignments",
            Section::Gradebook => "tab-gradebook",
            Section::Overview => "tab-overview",
            Section::MyLessons => "tab-my-lessons",
            Section::MyAssignments => "tab-my-assignments",
            Section::MyGrades => "tab-my-grades",
        }
    }
}

const TEACHER_SECTIONS: [Section; 5] =
    [Section::Students, Section::Lessons, Section::Assignments, Section::Gradebook, Section::Overview];
const STUDENT_SECTIONS: [Section; 3] = [Section::MyLessons, Section::MyAssignments, Section::MyGrades];

/// The class read, its header and the sections of the caller's role.
#[component]
fn ClassHome(session: ClassSession) -> impl IntoView {
    provide_context(session);
    session.reload();
    let teacher = move || session.view.with(|view| view.as_ref().is_some_and(|v| v.teacher));
    let loaded = move || session.view.with(Option::is_some);
    let tagline = Signal::derive(move || {
        session.view.with(|view| match view {
            Some(view) if view.teacher => format!("{}: you teach this class.", view.name),
            Some(view) => format!("{}: signed in as {}.", view.name, view.you.name),
            None => "A class on VLab.".to_owned(),
        })
    });
    effect(move |_| {
        if let Some(name) = session.view.with(|view| view.as_ref().map(|v| v.name.clone())) {
            document().set_title(&format!("{name} · VLab"));
        }
    });
    let section = RwSignal::new(None::<Section>);
    // A memo: reading the class again (after a new lesson, say) must not build the
    // section shown anew, which would lose what its forms hold.
    let shown = memo(move |_| section.get().unwrap_or(if teacher() { Section::Students } else { Section::MyLessons }));
    view! {
        <div class="page class-page" data-testid="class-page" data-role=move || if !loaded() { "" } else if teacher() { "teacher" } else { "student" }>
            <PageHeader tagline />
            <When when=move || session.error.with(Option::is_some) && !loaded()>
                <section class="card refusal-card">
                    <p class="form-error" role="alert" data-testid="class-error">
                        {move || session.error.get()}
                        " Sign in again from the start page."
                    </p>
                    <a class="btn btn-primary" href="/">"To the start page"</a>
                </section>
            </When>
            <When when=loaded>
                <When when=teacher>
                    <ClassCode />
                </When>
                <nav class="class-tabs" aria-label="Sections of the class">
                    <ForEach
                        each=move || if teacher() { TEACHER_SECTIONS.to_vec() } else { STUDENT_SECTIONS.to_vec() }
                        key=|section: &Section| *section
                        let:tab
                    >
                        <button
                            class="btn class-tab"
                            class:is-active=move || shown.get() == tab
                            data-testid=tab.testid()
                            on:click=move |_| section.set(Some(tab))
                        >
                            {tab.label()}
                        </button>
                    </ForEach>
                </nav>
                {move || match shown.get() {
                    Section::Students => view! { <StudentsSection /> }.into_any(),
                    Section::Lessons => view! { <LessonsSection /> }.into_any(),
                    Section::Assignments => view! { <AssignmentsSection /> }.into_any(),
                    Section::Gradebook => view! { <GradebookSection /> }.into_any(),
                    Section::Overview => view! { <OverviewSection /> }.into_any(),
                    Section::MyLessons => view! { <MyLessons /> }.into_any(),
                    Section::MyAssignments => view! { <MyAssignments /> }.into_any(),
                    Section::MyGrades => view! { <MyGrades /> }.into_any(),
                }}
            </When>
        </div>
    }
}

/// The class code, for the teacher to write on the board.
#[component]
fn ClassCode() -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let code = move || session.view.with(|view| view.as_ref().and_then(|v| v.class_code.clone()).unwrap_or_default());
    view! {
        <p class="hint class-code-line">
            "Students sign in on the start page with the class code "
            <strong class="join-code class-code" data-testid="class-code">{code}</strong>
            ", their name and their PIN."
        </p>
    }
}
