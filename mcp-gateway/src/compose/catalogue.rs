//! What each backend listed last, kept until it may have changed: the
//! backend's `list_changed` for that list, a tool call to it (whose
//! `list_changed` may come on another stream, after the result), or the
//! loss of its session. Only lists the backend announces changes of are
//! kept; the others are read afresh each time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::Value;

use super::kind::Kind;

/// How many lists (one kind, as one audience saw it: a principal and the
/// capabilities its client declared) of one backend are kept; one more
/// empties them.
const MOST_LISTS: usize = 256;

/// Every item of one backend's list, and its first page (its cache hints).
pub(crate) struct Listing {
    pub(crate) items: Vec<Value>,
    pub(crate) first: Value,
}

/// The lists kept, per backend.
pub(crate) struct Catalogue {
    members: Mutex<Vec<Kept>>,
}

/// One backend's kept lists, and a count of the times they were dropped
/// (a listing begun before a drop is not kept).
#[derive(Default)]
struct Kept {
    generation: u64,
    lists: HashMap<(Kind, String), Arc<Listing>>,
}

impl Catalogue {
    pub(crate) fn new(members: usize) -> Self {
        Self {
            members: Mutex::new((0..members).map(|_| Kept::default()).collect()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Kept>> {
        self.members.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Member `index`'s list `kind` as `audience` saw it, if kept; else the
    /// generation to hand [`keep`](Self::keep) with the listing.
    pub(crate) fn get(
        &self,
        index: usize,
        kind: Kind,
        audience: &str,
    ) -> Result<Arc<Listing>, u64> {
        let members = self.lock();
        let Some(kept) = members.get(index) else {
            return Err(0);
        };
        match kept.lists.get(&(kind, audience.to_owned())) {
            Some(listing) => Ok(Arc::clone(listing)),
            None => Err(kept.generation),
        }
    }

    /// Keeps a listing begun at `generation`, unless the backend's lists
    /// were dropped since.
    pub(crate) fn keep(
        &self,
        index: usize,
        kind: Kind,
        audience: String,
        generation: u64,
        listing: Arc<Listing>,
    ) {
        let mut members = self.lock();
        let Some(kept) = members.get_mut(index) else {
            return;
        };
        if kept.generation != generation {
            return;
        }
        if kept.lists.len() >= MOST_LISTS {
            kept.lists.clear();
        }
        kept.lists.insert((kind, audience), listing);
    }

    /// Drops member `index`'s lists of `kinds`, and voids its listings
    /// under way.
    pub(crate) fn forget(&self, index: usize, kinds: &[Kind]) {
        let mut members = self.lock();
        if let Some(kept) = members.get_mut(index) {
            kept.generation += 1;
            kept.lists.retain(|(kind, _), _| !kinds.contains(kind));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(name: &str) -> Arc<Listing> {
        Arc::new(Listing {
            items: vec![serde_json::json!({ "name": name })],
            first: Value::Null,
        })
    }

    #[test]
    fn a_listing_is_kept_per_audience_until_forgotten() {
        let catalogue = Catalogue::new(2);
        let generation = catalogue.get(0, Kind::Tools, "a").err().unwrap();
        catalogue.keep(0, Kind::Tools, "a".into(), generation, listing("x"));
        assert!(catalogue.get(0, Kind::Tools, "a").is_ok());
        assert!(catalogue.get(0, Kind::Tools, "b").is_err());
        assert!(catalogue.get(1, Kind::Tools, "a").is_err());
        assert!(catalogue.get(0, Kind::Prompts, "a").is_err());
        catalogue.forget(0, &[Kind::Prompts]);
        assert!(catalogue.get(0, Kind::Tools, "a").is_ok());
        catalogue.forget(0, &[Kind::Tools]);
        assert!(catalogue.get(0, Kind::Tools, "a").is_err());
    }

    #[test]
    fn a_listing_begun_before_a_change_is_not_kept() {
        let catalogue = Catalogue::new(1);
        let generation = catalogue.get(0, Kind::Tools, "a").err().unwrap();
        catalogue.forget(0, &[Kind::Tools]);
        catalogue.keep(0, Kind::Tools, "a".into(), generation, listing("old"));
        assert!(catalogue.get(0, Kind::Tools, "a").is_err());
    }
}
