//! The root component: reads the page URL and shows the landing page, the create page, a class, or a lab (session, websocket client, layout).

use std::rc::Rc;

use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use wasm_split_helpers::wasm_split;

use crate::challenge::attempt_replay_bar;
use crate::classroom::client::stored_session;
use crate::classroom::{ClassPanel, CreateLabPage, LandingPage, NoticeBanner};
use crate::connection::{ErrorBanner, LabSession};
use crate::course::ClassPage;
use crate::features::Features;
use crate::inspector::RobotPanel;
use crate::page::{PageParams, Route, lab_query};
use crate::programs::{RobotDraft, RobotUpload, RobotUploadOpen};
use crate::scene::{SceneDraft, SceneEditor};
use crate::timeline::TimelineBar;
use crate::toolbar::Toolbar;
use crate::ui::browser::{hide_link_token, link_token};
use crate::ui::{Part, PartNotLoaded, When, effect};
use crate::view3d::LabCanvas;

/// The page the URL asks for.
#[component]
pub fn App() -> impl IntoView {
    let search = window().location().search().unwrap_or_default();
    match Route::from_query(&search) {
        Route::Landing => view! { <Part what="the start page" load=|| Box::pin(landing_page()) /> }.into_any(),
        Route::Create => view! { <Part what="the new lab form" load=|| Box::pin(create_lab_page()) /> }.into_any(),
        Route::Class(params) => {
            // A part's function takes no arguments: the class page finds them in the context.
            provide_context(params);
            view! { <Part what="the class page" load=|| Box::pin(class_page()) /> }.into_any()
        }
        Route::Lab(params) => view! { <LabPage params=params /> }.into_any(),
    }
}

/// A lab: toolbar on top, the class panel at the left edge, the 3D view filling the rest
/// (the banners over its top edge, the timeline or an attempt's replay under it), the scene editor or the robot upload beside it when
/// opened, and the robot panel at the right edge.
#[component]
fn LabPage(mut params: PageParams) -> impl IntoView {
    let location = window().location();
    let host = location.host().unwrap_or_default();
    let secure = location.protocol().is_ok_and(|p| p == "https:");
    let title = format!("{} · VLab", params.lab);
    // A token in the link leaves the address bar at once (the tab keeps it); a link
    // without one is this tab's earlier link, or this browser's session in the lab if
    // it joined it: a reload, a bookmark or a new tab stays the same person.
    match &params.token {
        Some(token) => hide_link_token(&params.lab, token, &lab_query(&params.lab, None)),
        None => params.token = link_token(&params.lab).or_else(|| stored_session(&params.lab).map(|s| s.token)),
    }

    let draft = SceneDraft::new(&params.lab);
    provide_context(draft);
    let robot_draft = RobotDraft::new();
    provide_context(robot_draft);
    let upload_open = RobotUploadOpen(RwSignal::new(false));
    provide_context(upload_open);
    let session = LabSession::new(params, host);
    provide_context(session);
    let features = Features::provide(session);
    let class = features.class;
    let challenge = features.challenge;
    crate::connection::ws_client::start(session, Rc::new(features), secure);

    // The tab title follows the lab's display name once the server tells it.
    effect(move |_| {
        let name = session.lab_name.get();
        document().set_title(&name.map_or_else(|| title.clone(), |name| format!("{name} · VLab")));
    });
    // One editor beside the view at a time.
    effect(move |_| {
        if upload_open.0.get() {
            draft.open.set(false);
        }
    });
    effect(move |_| {
        if draft.open.get() {
            upload_open.0.set(false);
        }
    });

    view! {
        <div class="app">
            <Toolbar />
            <div class="workspace">
                <ClassPanel />
                <main class="stage">
                    <LabCanvas />
                    // An attempt's replay has its own bar; the lab's timeline waits.
                    <When
                        when=move || challenge.watch.with(|watch| watch.attempt().is_some())
                        fallback=|| view! { <TimelineBar /> }
                    >
                        <Part what="the attempt's replay" load=|| Box::pin(attempt_replay_bar()) />
                    </When>
                    <ErrorBanner />
                    <NoticeBanner />
                </main>
                // What the permission table allows (the server refuses the rest anyway).
                <When when=move || draft.open.get() && class.may(Action::InsertScene)>
                    <Part what="the scene editor" load=|| Box::pin(scene_editor()) />
                </When>
                <When when=move || {
                    upload_open.0.get()
                        && match robot_draft.editing.get() {
                            Some(robot) => class.may_on(Action::ReplaceProgram, &robot),
                            None => class.may(Action::AddRobot),
                        }
                }>
                    <Part what="the robot form" load=|| Box::pin(robot_upload()) />
                </When>
                <RobotPanel />
            </div>
        </div>
    }
}

// The parts of the page that are fetched when first shown (`ui::part`): the start
// pages and the class page, which a lab's page never shows, and the two forms, which
// open on demand.

#[wasm_split(landing, fallible)]
fn landing_page() -> Result<AnyView, PartNotLoaded> {
    Ok(view! { <LandingPage /> }.into_any())
}

#[wasm_split(landing, fallible)]
fn create_lab_page() -> Result<AnyView, PartNotLoaded> {
    Ok(view! { <CreateLabPage /> }.into_any())
}

#[wasm_split(class_page, fallible)]
fn class_page() -> Result<AnyView, PartNotLoaded> {
    Ok(view! { <ClassPage /> }.into_any())
}

#[wasm_split(scene_editor, fallible)]
fn scene_editor() -> Result<AnyView, PartNotLoaded> {
    Ok(view! { <SceneEditor /> }.into_any())
}

#[wasm_split(robot_upload, fallible)]
fn robot_upload() -> Result<AnyView, PartNotLoaded> {
    Ok(view! { <RobotUpload /> }.into_any())
}
