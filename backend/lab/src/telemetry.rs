//! Live robot reports for the websocket clients that asked for them.
//!
//! Clients say which robots they watch; the lab's thread reads that interest and,
//! about ten times a second of wall clock (and after anything a person did), publishes
//! the latest report of every watched robot on a `watch` channel: the newest report
//! replaces the previous one, so a slow client skips reports and never holds the lab
//! back. What a robot's program believes and draws goes with its report, to the
//! connections that may see it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use tokio::sync::watch;
use vlab_protocol::UserId;

/// One watched robot's latest, as JSON messages.
#[derive(Clone, Debug, PartialEq)]
pub struct Published {
    /// `ServerMsg::Robot`.
    pub report: Arc<str>,
    /// `ServerMsg::Belief`, if its program published one.
    pub belief: Option<Arc<str>>,
    /// Its owner (`None`: the lab's own robot), who may see the belief.
    pub owner: Option<UserId>,
}

impl Published {
    /// A report alone (no belief, the lab's own robot).
    pub fn report(json: &str) -> Published {
        Published { report: Arc::from(json), belief: None, owner: None }
    }
}

/// The latest of each watched robot.
pub type Reports = Arc<BTreeMap<String, Published>>;

/// Most robots one connection may watch at once.
pub const MAX_WATCHED_PER_CLIENT: usize = 8;

/// A lab's robot reports and who wants them.
pub struct Telemetry {
    interest: Mutex<BTreeMap<String, usize>>,
    latest: watch::Sender<Reports>,
    /// The watched cameras' images, published with the reports.
    pub cameras: Arc<super::camera_feed::CameraFeed>,
}

impl Default for Telemetry {
    fn default() -> Self {
        Telemetry {
            interest: Mutex::new(BTreeMap::new()),
            latest: watch::Sender::new(Arc::default()),
            cameras: Arc::default(),
        }
    }
}

impl Telemetry {
    /// The robots somebody watches.
    pub fn wanted(&self) -> Vec<String> {
        self.interest.lock().expect("interest lock").keys().cloned().collect()
    }

    /// Publishes the latest reports.
    pub fn publish(&self, reports: BTreeMap<String, Published>) {
        self.latest.send_replace(Arc::new(reports));
    }

    /// A new connection's view: it watches nothing yet.
    pub fn watcher(self: &Arc<Self>) -> Watcher {
        Watcher { telemetry: Arc::clone(self), robots: BTreeSet::new(), receiver: self.latest.subscribe() }
    }
}

/// One connection's watched robots. Dropping it withdraws its interest.
pub struct Watcher {
    telemetry: Arc<Telemetry>,
    robots: BTreeSet<String>,
    receiver: watch::Receiver<Reports>,
}

/// Why a robot could not be watched.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("a connection watches at most {MAX_WATCHED_PER_CLIENT} robots at once: unsubscribe from one first")]
pub struct TooManyWatched;

impl Watcher {
    /// Starts watching `robot` (the caller checked that it exists).
    pub fn watch(&mut self, robot: &str) -> Result<(), TooManyWatched> {
        if self.robots.contains(robot) {
            return Ok(());
        }
        if self.robots.len() >= MAX_WATCHED_PER_CLIENT {
            return Err(TooManyWatched);
        }
        self.robots.insert(robot.to_owned());
        *self.telemetry.interest.lock().expect("interest lock").entry(robot.to_owned()).or_default() += 1;
        Ok(())
    }

    /// Stops watching `robot`.
    pub fn unwatch(&mut self, robot: &str) {
        if self.robots.remove(robot) {
            withdraw(&self.telemetry, robot);
        }
    }

    /// A receiver of the reports' channel, to wait for new reports apart from this
    /// watcher (a connection waits on it while it changes what it watches).
    pub fn updates(&self) -> watch::Receiver<Reports> {
        self.receiver.clone()
    }

    /// The latest messages about the robots this connection watches: each report, and
    /// its belief where `sees_belief` (given the robot's owner) allows.
    pub fn latest(&mut self, sees_belief: impl Fn(Option<UserId>) -> bool) -> Vec<Arc<str>> {
        let reports = self.receiver.borrow_and_update().clone();
        let mut messages = Vec::new();
        for published in self.robots.iter().filter_map(|robot| reports.get(robot)) {
            messages.push(Arc::clone(&published.report));
            if let Some(belief) = published.belief.as_ref().filter(|_| sees_belief(published.owner)) {
                messages.push(Arc::clone(belief));
            }
        }
        messages
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        for robot in std::mem::take(&mut self.robots) {
            withdraw(&self.telemetry, &robot);
        }
    }
}

fn withdraw(telemetry: &Telemetry, robot: &str) {
    let mut interest = telemetry.interest.lock().expect("interest lock");
    if let Some(count) = interest.get_mut(robot) {
        *count -= 1;
        if *count == 0 {
            interest.remove(robot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interest_counts_watchers_and_ends_with_them() {
        let telemetry = Arc::new(Telemetry::default());
        let mut a = telemetry.watcher();
        let mut b = telemetry.watcher();
        a.watch("bot").unwrap();
        b.watch("bot").unwrap();
        b.watch("bot").unwrap();
        assert_eq!(telemetry.wanted(), ["bot"]);
        a.unwatch("bot");
        assert_eq!(telemetry.wanted(), ["bot"]);
        drop(b);
        assert!(telemetry.wanted().is_empty());
    }

    #[test]
    fn a_watcher_sees_only_its_robots_and_has_a_limit() {
        let telemetry = Arc::new(Telemetry::default());
        let mut watcher = telemetry.watcher();
        watcher.watch("a").unwrap();
        telemetry
            .publish(BTreeMap::from([("a".into(), Published::report("{1}")), ("b".into(), Published::report("{2}"))]));
        assert_eq!(watcher.latest(|_| true), vec![Arc::<str>::from("{1}")]);
        for i in 1..MAX_WATCHED_PER_CLIENT {
            watcher.watch(&format!("r{i}")).unwrap();
        }
        assert_eq!(watcher.watch("one-too-many"), Err(TooManyWatched));
    }

    #[test]
    fn a_belief_goes_only_where_it_may_be_seen() {
        let telemetry = Arc::new(Telemetry::default());
        let mut watcher = telemetry.watcher();
        watcher.watch("a").unwrap();
        let published = Published { report: Arc::from("{r}"), belief: Some(Arc::from("{b}")), owner: Some(7) };
        telemetry.publish(BTreeMap::from([("a".into(), published)]));
        assert_eq!(watcher.latest(|owner| owner == Some(7)), vec![Arc::<str>::from("{r}"), Arc::from("{b}")]);
        assert_eq!(watcher.latest(|_| false), vec![Arc::<str>::from("{r}")]);
    }
}
