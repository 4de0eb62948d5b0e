//! The labs a server runs, by id and by join code.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use super::LabHandle;
use super::participants;

/// The labs a server runs, by id.
#[derive(Default)]
pub struct Labs {
    by_id: RwLock<BTreeMap<String, Arc<LabHandle>>>,
}

impl Labs {
    /// Adds a running lab (replacing, and shutting down, one with the same id).
    pub fn insert(&self, lab: Arc<LabHandle>) {
        let previous = self.by_id.write().expect("labs lock").insert(lab.id().to_owned(), lab);
        if let Some(previous) = previous {
            previous.shut_down();
        }
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
