//! The proofs already seen (RFC 9449 §11.1): `jti` per key thumbprint,
//! each kept until its proof could no longer pass the `iat` check, in a
//! table of bounded size.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// `(thumbprint, jti)` → the Unix second after which the entry may go.
pub(crate) struct ReplayCache {
    capacity: usize,
    entries: Mutex<HashMap<(String, String), u64>>,
}

/// Why a proof was not recorded.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Replay {
    /// This key already used this `jti` within the window.
    Seen,
    /// The table is full of live entries: refuse rather than forget one
    /// (forgetting would let that proof be replayed).
    Full,
}

impl ReplayCache {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// Records `jti` for `thumbprint` until `expires`, unless seen.
    pub(crate) fn record(
        &self,
        thumbprint: &str,
        jti: &str,
        expires: u64,
        now: u64,
    ) -> Result<(), Replay> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (thumbprint.to_owned(), jti.to_owned());
        if entries.get(&key).is_some_and(|until| *until >= now) {
            return Err(Replay::Seen);
        }
        if entries.len() >= self.capacity {
            entries.retain(|_, until| *until >= now);
        }
        if entries.len() >= self.capacity {
            return Err(Replay::Full);
        }
        entries.insert(key, expires);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jti_is_refused_twice_per_key_and_expired_entries_make_room() {
        let cache = ReplayCache::new(2);
        assert_eq!(cache.record("k1", "a", 200, 100), Ok(()));
        assert_eq!(cache.record("k1", "a", 200, 150), Err(Replay::Seen));
        assert_eq!(cache.record("k2", "a", 200, 150), Ok(()));
        assert_eq!(cache.record("k1", "b", 300, 150), Err(Replay::Full));
        assert_eq!(cache.record("k1", "b", 300, 250), Ok(()));
    }
}
