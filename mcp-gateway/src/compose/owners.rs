//! Who serves what: the backend each front name, URI or template was
//! claimed by, and the backend each task id came from.

use std::collections::{HashMap, HashSet, VecDeque};

use super::kind::Kind;

/// Which backend each front name (or URI, or template) is served by, as
/// the last listing found it: the first backend that listed it keeps it.
#[derive(Default)]
pub(super) struct Owners {
    pub(super) by_kind: HashMap<&'static str, HashMap<String, usize>>,
    /// The keys two backends served, logged once each.
    pub(super) reported: HashSet<(&'static str, String)>,
}

impl Owners {
    pub(super) fn of(&self, kind: Kind, key: &str) -> Option<usize> {
        self.by_kind.get(kind.method())?.get(key).copied()
    }
}

/// How many task ids a composite remembers the backend of; the oldest
/// are forgotten first (a task outliving that many newer ones is unknown).
const MOST_TASKS: usize = 100_000;

/// The member each task id came from, oldest first.
#[derive(Default)]
pub(super) struct TaskOwners {
    pub(super) owners: HashMap<String, usize>,
    pub(super) order: VecDeque<String>,
}

impl TaskOwners {
    pub(super) fn learn(&mut self, task_id: &str, index: usize) {
        if self.owners.insert(task_id.to_owned(), index).is_none() {
            self.order.push_back(task_id.to_owned());
        }
        while self.order.len() > MOST_TASKS {
            if let Some(oldest) = self.order.pop_front() {
                self.owners.remove(&oldest);
            }
        }
    }
}
