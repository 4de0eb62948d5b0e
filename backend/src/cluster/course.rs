//! The course as every server of the cluster holds it: the database is shared, but
//! each server keeps its classes in memory, so a change made on one server is told on
//! NATS and the others read the course from the database again. Changes heard together
//! are read once; the course is read again every 30 s besides, for a change told while
//! NATS was away.

use std::sync::{Arc, Weak};
use std::time::Duration;

use async_nats::Client;
use futures_util::{FutureExt as _, StreamExt as _};
use tokio::sync::Notify;

use crate::net::AppState;

/// How often the course is read again without being told of a change.
const READ_AGAIN_EVERY: Duration = Duration::from_secs(30);

/// The subject a cluster's servers tell each other of course changes on.
pub fn changes_subject(cluster: &str) -> String {
    format!("{cluster}.course.changed")
}

/// Tells the cluster of each change to the course made here, and reads the course
/// again when another server tells of one. Runs until the NATS connection is dropped.
pub async fn share(
    nats: Client,
    subject: String,
    me: String,
    state: &Arc<AppState>,
) -> Result<(), async_nats::SubscribeError> {
    let heard = nats.subscribe(subject.clone()).await?;
    let changed = Arc::new(Notify::new());
    let told = Arc::clone(&changed);
    state.classroom.course_held().tell_changes_to(Arc::new(move || told.notify_one()));
    tokio::spawn(tell(nats, subject, me.clone(), changed));
    tokio::spawn(follow(heard, me, Arc::downgrade(state)));
    Ok(())
}

/// Publishes one message per change, or one for several made before it went out.
async fn tell(nats: Client, subject: String, me: String, changed: Arc<Notify>) {
    loop {
        changed.notified().await;
        if let Err(error) = nats.publish(subject.clone(), me.clone().into()).await {
            tracing::warn!(%error, "the cluster could not be told of a change to the course");
        }
    }
}

/// Reads the course again for every change another server tells of (and every
/// [`READ_AGAIN_EVERY`]).
async fn follow(mut heard: async_nats::Subscriber, me: String, state: Weak<AppState>) {
    let mut every = tokio::time::interval(READ_AGAIN_EVERY);
    every.tick().await;
    loop {
        tokio::select! {
            message = heard.next() => {
                let Some(message) = message else { return };
                if message.payload == me.as_bytes() {
                    continue;
                }
                // What was told meanwhile is read with it.
                while let Some(Some(_)) = heard.next().now_or_never() {}
            }
            _ = every.tick() => {}
        }
        let Some(state) = state.upgrade() else { return };
        let read = tokio::task::spawn_blocking(move || state.classroom.course_held().reload()).await;
        match read {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!(%error, "the course could not be read again from the database"),
            Err(error) => tracing::error!(%error, "reading the course again failed"),
        }
    }
}
