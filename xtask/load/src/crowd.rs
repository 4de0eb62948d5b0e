//! Viewers of one lab spread over one or more servers: connected together, counted over
//! one window, their reports handed back server by server.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::task::JoinHandle;

use super::stats::ViewerReport;
use super::viewer::{self, Acknowledge, Phase, Watch};

/// Handshakes in flight at once while viewers connect.
const CONNECTING_AT_ONCE: usize = 32;

/// Where viewers connect: `count` websockets on `url`.
#[derive(Clone, Debug)]
pub struct Group {
    /// The viewer websocket's URL on one server.
    pub url: String,
    /// Viewers on it.
    pub count: usize,
}

/// Connected viewers, waiting for their window.
pub struct Crowd {
    /// Each viewer's task, with its group's index.
    tasks: Vec<(usize, JoinHandle<Option<ViewerReport>>)>,
    groups: usize,
    phase: watch::Sender<Phase>,
    /// Viewers whose websocket opened.
    pub connected: usize,
    /// Why the first viewer that could not connect could not.
    pub connect_error: Option<String>,
}

impl Crowd {
    /// Connects every group's viewers (at most [`CONNECTING_AT_ONCE`] handshakes at a
    /// time) and returns once each has opened its websocket or given up.
    pub async fn connect(groups: &[Group], rate: Option<f64>, origin: Instant, acknowledge: Acknowledge) -> Crowd {
        let connecting = Arc::new(Semaphore::new(CONNECTING_AT_ONCE));
        let (connected_tx, mut connected_rx) = mpsc::unbounded_channel();
        let (phase, phase_rx) = watch::channel(Phase::Connecting);
        let mut tasks = Vec::new();
        for (index, group) in groups.iter().enumerate() {
            let run = Arc::new(Watch { url: group.url.clone(), rate, origin, acknowledge });
            for _ in 0..group.count {
                let task =
                    viewer::watch(Arc::clone(&run), Arc::clone(&connecting), connected_tx.clone(), phase_rx.clone());
                tasks.push((index, tokio::spawn(task)));
            }
        }
        let (mut connected, mut connect_error) = (0, None);
        for _ in 0..tasks.len() {
            match connected_rx.recv().await {
                Some(Ok(())) => connected += 1,
                Some(Err(why)) => {
                    connect_error.get_or_insert(why);
                }
                None => break,
            }
        }
        Crowd { tasks, groups: groups.len(), phase, connected, connect_error }
    }

    /// Every viewer counts what arrives from `start` to `end`.
    pub fn open_window(&self, start: Instant, end: Instant) {
        self.phase.send_replace(Phase::Window { start, end });
    }

    /// Closes every websocket; the reports of the viewers that connected, group by group.
    pub async fn reports(self) -> Result<Vec<Vec<ViewerReport>>> {
        self.phase.send_replace(Phase::Stop);
        let mut reports = vec![Vec::new(); self.groups];
        for (group, task) in self.tasks {
            if let Some(report) = task.await.context("a viewer task panicked")? {
                reports[group].push(report);
            }
        }
        Ok(reports)
    }
}
