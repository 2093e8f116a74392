//! The `x-mcp-header` annotations of a hand-written tools handler, read
//! from its own `tools/list` and kept for the list's `ttlMs`.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Tool name → (argument name, header suffix in lower case).
pub(crate) type Annotations = HashMap<String, Vec<(String, String)>>;

/// The cached annotations of one server type.
#[derive(Debug, Default)]
pub(crate) struct ParamHeaderCache {
    entry: Mutex<Option<(Instant, Annotations)>>,
}

impl ParamHeaderCache {
    /// `Some(pairs of tool)` while the cache is fresh, `None` when it must
    /// be read again.
    pub(crate) fn get(&self, tool: &str) -> Option<Option<Vec<(String, String)>>> {
        let entry = self.entry.lock().unwrap_or_else(PoisonError::into_inner);
        match &*entry {
            Some((until, annotations)) if Instant::now() < *until => {
                Some(annotations.get(tool).cloned())
            }
            _ => None,
        }
    }

    /// Keeps `annotations` for `ttl`.
    pub(crate) fn put(&self, annotations: Annotations, ttl: Duration) {
        *self.entry.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((Instant::now() + ttl, annotations));
    }
}
