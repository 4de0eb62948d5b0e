//! A page's placements (`ClientMsg::Place`, a thing dragged in the 3D view): done one
//! at a time through the same classroom call as the HTTP move, at most one every
//! `PLACE_INTERVAL_MS`, and the newest that came meanwhile waiting its turn. An older
//! one waiting is refused when a newer one takes its place (a drag wants where the
//! pointer is now), so a client sending thousands of placements costs the lab at most
//! ten moves a second and the connection goes on meanwhile.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use vlab_protocol::{ErrorBody, ErrorCode, PLACE_INTERVAL_MS, ServerMsg};

use super::AppError;
use crate::classroom::Classroom;
use vlab_lab::{Caller, LabHandle};

/// One placement asked for.
pub(super) struct Place {
    pub id: u32,
    pub name: String,
    pub position: [f32; 3],
    pub heading: Option<f32>,
}

/// The answer to a placement, in the making.
type Answering<'a> = Pin<Box<dyn Future<Output = ServerMsg> + Send + 'a>>;

/// One page's placements: at most one being done and one waiting.
pub(super) struct PagePlacements<'a> {
    classroom: &'a Classroom,
    lab: &'a Arc<LabHandle>,
    answering: Option<Answering<'a>>,
    waiting: Option<Place>,
    /// When the latest placement began to be done.
    last: Instant,
}

const INTERVAL: Duration = Duration::from_millis(PLACE_INTERVAL_MS);

impl<'a> PagePlacements<'a> {
    pub fn new(classroom: &'a Classroom, lab: &'a Arc<LabHandle>) -> PagePlacements<'a> {
        PagePlacements { classroom, lab, answering: None, waiting: None, last: Instant::now() - INTERVAL }
    }

    /// The page asks for `place`: done now if nothing is, else it waits. Returns the
    /// refusal of the placement it displaced from the wait, if any.
    pub fn ask(&mut self, place: Place, caller: Caller) -> Option<ServerMsg> {
        if self.answering.is_none() {
            self.start(place, caller);
            return None;
        }
        let newer = place.id;
        self.waiting.replace(place).map(|old| {
            let message = format!(
                "placement {} of '{}' was not done: placement {newer} came before its turn (a page's placements \
                 are done one at a time, at most one every {PLACE_INTERVAL_MS} ms)",
                old.id, old.name
            );
            ServerMsg::PlaceRefused {
                id: old.id,
                name: old.name,
                error: ErrorBody::new(ErrorCode::TooManyRequests, message),
            }
        })
    }

    /// After an answer: the placement waiting, if any, is done next.
    pub fn next(&mut self, caller: Caller) {
        if let Some(place) = self.waiting.take() {
            self.start(place, caller);
        }
    }

    fn start(&mut self, place: Place, caller: Caller) {
        let at = Instant::now().max(self.last + INTERVAL);
        self.last = at;
        let (classroom, lab) = (self.classroom, self.lab);
        self.answering = Some(Box::pin(async move {
            tokio::time::sleep_until(at.into()).await;
            let Place { id, name, position, heading } = place;
            match classroom.robots().move_object(lab, caller, &name, position, heading).await {
                Ok(()) => ServerMsg::Placed { id, name, position, heading },
                Err(refused) => {
                    let (_, error) = AppError::from(refused).parts();
                    ServerMsg::PlaceRefused { id, name, error }
                }
            }
        }));
    }

    /// The answer being made, once made; never while none is.
    pub async fn answered(&mut self) -> ServerMsg {
        let Some(answering) = self.answering.as_mut() else {
            return std::future::pending().await;
        };
        let reply = answering.await;
        self.answering = None;
        reply
    }
}
