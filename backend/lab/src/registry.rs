//! The labs a server runs, by id and by join code.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use super::LabHandle;
use super::participants;

/// The labs a server runs, by id.
#[derive(Default)]
pub struct Labs {
    by_id: RwLock<BTreeMap<String, Arc<LabHandle>>>,
    /// Told of every lab added (cluster mode: it claims the lab's lease).
    on_insert: RwLock<Option<InsertWatcher>>,
}

/// What is told of every lab added to the registry.
pub type InsertWatcher = Arc<dyn Fn(&Arc<LabHandle>) + Send + Sync>;

impl Labs {
    /// Adds a running lab (replacing, and shutting down, one with the same id).
    pub fn insert(&self, lab: Arc<LabHandle>) {
        let previous = self.by_id.write().expect("labs lock").insert(lab.id().to_owned(), Arc::clone(&lab));
        if let Some(previous) = previous {
            previous.shut_down();
        }
        let watcher = self.on_insert.read().expect("labs lock").clone();
        if let Some(watcher) = watcher {
            watcher(&lab);
        }
    }

    /// From now on `watcher` is told of every lab added, right after it is.
    pub fn watch_inserts(&self, watcher: InsertWatcher) {
        *self.on_insert.write().expect("labs lock") = Some(watcher);
    }

    /// The lab with this id.
    pub fn get(&self, id: &str) -> Option<Arc<LabHandle>> {
        self.by_id.read().expect("labs lock").get(id).cloned()
    }

    /// Every lab, ordered by id.
    pub fn all(&self) -> Vec<Arc<LabHandle>> {
        self.by_id.read().expect("labs lock").values().cloned().collect()
    }

    /// Takes a lab out of the registry (it keeps running until closed or dropped).
    pub fn remove(&self, id: &str) -> Option<Arc<LabHandle>> {
        self.by_id.write().expect("labs lock").remove(id)
    }

    /// The lab students join with `code`, if any.
    pub fn by_join_code(&self, code: &str) -> Option<Arc<LabHandle>> {
        let code = participants::normalise_code(code);
        self.all().into_iter().find(|lab| lab.people().join_code() == code)
    }

    /// Stops every lab (server shutdown).
    pub fn shut_down_all(&self) {
        for lab in self.all() {
            lab.shut_down();
        }
    }
}
