//! The Room form in the instructor's tools: the lab's room as it stands (width, length,
//! height, floor and wall materials) and Apply, which changes it while the lab runs
//! (`PATCH .../environment`); the server's refusal shows under the form. Every page
//! redraws the new room from the snapshot the lab sends.

use leptos::prelude::*;
use vlab_protocol::RoomView;

use super::client::{change_room, room};
use super::room_fields::RoomFields;
use crate::api::error_sentence;
use crate::connection::LabSession;

/// The form; nothing for a lab whose scene declares no room.
#[component]
pub fn RoomForm() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let now = RwSignal::new(None::<RoomView>);
    let fields = RwSignal::new(RoomFields::default());
    let refusal = RwSignal::new(None::<String>);
    let applying = RwSignal::new(false);
    {
        let (lab, token) = (session.lab_id(), session.token());
        leptos::task::spawn_local(async move {
            if let Ok(current) = room(&lab, token.as_deref()).await {
                fields.set(RoomFields::of(&current));
                now.set(Some(current));
            }
        });
    }
    let apply = move || {
        let Some(current) = now.get_untracked() else { return };
        let change = match fields.get_untracked().change_from(&current) {
            Ok(change) => change,
            Err(message) => {
                refusal.set(Some(message));
                return;
            }
        };
        let (lab, token) = (session.lab_id(), session.token());
        applying.set(true);
        leptos::task::spawn_local(async move {
            match change_room(&lab, token.as_deref(), &change).await {
                Ok(changed) => {
                    refusal.set(None);
                    fields.set(RoomFields::of(&changed));
                    now.set(Some(changed));
                }
                Err(error) => refusal.set(Some(error_sentence(&error))),
            }
            applying.set(false);
        });
    };
    let field = move |label: &'static str,
                      testid: &'static str,
                      get: fn(&RoomFields) -> String,
                      set: fn(&mut RoomFields, String)| {
        view! {
            <label class="room-field">
                {label}
                <input
                    class="input room-input"
                    data-testid=testid
                    prop:value=move || fields.with(get)
                    on:input=move |event| fields.update(|f| set(f, event_target_value(&event)))
                    on:keydown=move |event: web_sys::KeyboardEvent| {
                        if event.key() == "Enter" {
                            apply();
                        }
                    }
                />
            </label>
        }
    };
    view! {
        <Show when=move || now.with(Option::is_some)>
            <h3>"Room"</h3>
            <div class="room-form" data-testid="room-form">
                {field("Width (m)", "room-width", |f| f.width.clone(), |f, v| f.width = v)}
                {field("Length (m)", "room-length", |f| f.length.clone(), |f, v| f.length = v)}
                {field("Height (m)", "room-height", |f| f.height.clone(), |f, v| f.height = v)}
                {field("Floor material", "room-ground", |f| f.ground.clone(), |f, v| f.ground = v)}
                {field("Wall material", "room-walls", |f| f.walls.clone(), |f, v| f.walls = v)}
                <button
                    class="btn btn-small"
                    data-testid="btn-apply-room"
                    disabled=move || applying.get()
                    title="Change the room now, for everybody; refused while a robot or an object would be left outside"
                    on:click=move |_| apply()
                >
                    "Apply"
                </button>
            </div>
            <Show when=move || refusal.with(Option::is_some)>
                <p class="form-error" data-testid="room-error" role="alert">
                    {move || refusal.get().unwrap_or_default()}
                </p>
            </Show>
        </Show>
    }
}
