//! The proofs already seen (RFC 9449 §11.1): `jti` per key thumbprint,
//! each kept until its proof could no longer pass the `iat` check, in a
//! table of bounded size with a bounded share per key.
//!
//! Only proofs that were accepted (token valid, bound to the proof's key)
//! are recorded, so filling the table takes valid tokens; the share per
//! key keeps one holder of such a token from filling it for everyone.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Key thumbprint → (`jti` → the Unix second after which it may go).
pub(crate) struct ReplayCache {
    capacity: usize,
    per_key: usize,
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    keys: HashMap<String, HashMap<String, u64>>,
    entries: usize,
}

impl Table {
    /// Forgets the expired entries of every key.
    fn prune(&mut self, now: u64) {
        self.keys.retain(|_, jtis| {
            jtis.retain(|_, until| *until >= now);
            !jtis.is_empty()
        });
        self.entries = self.keys.values().map(HashMap::len).sum();
    }
}

/// Why a proof was not recorded.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Replay {
    /// This key already used this `jti` within the window.
    Seen,
    /// This key holds its whole share of live entries.
    KeyFull,
    /// The table is full of live entries: refuse rather than forget one
    /// (forgetting would let that proof be replayed).
    Full,
}

impl ReplayCache {
    /// At most `capacity` live entries, `per_key` of them for one key.
    pub(crate) fn new(capacity: usize, per_key: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            per_key: per_key.max(1),
            table: Mutex::new(Table::default()),
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
        let mut guard = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        let table = &mut *guard;
        let held = match table.keys.get_mut(thumbprint) {
            Some(jtis) => {
                if jtis.get(jti).is_some_and(|until| *until >= now) {
                    return Err(Replay::Seen);
                }
                let before = jtis.len();
                if before >= self.per_key {
                    jtis.retain(|_, until| *until >= now);
                }
                let after = jtis.len();
                table.entries -= before - after;
                after
            }
            None => 0,
        };
        if held >= self.per_key {
            return Err(Replay::KeyFull);
        }
        if table.entries >= self.capacity {
            table.prune(now);
        }
        if table.entries >= self.capacity {
            return Err(Replay::Full);
        }
        let jtis = table.keys.entry(thumbprint.to_owned()).or_default();
        if jtis.insert(jti.to_owned(), expires).is_none() {
            table.entries += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jti_is_refused_twice_per_key_and_expired_entries_make_room() {
        let cache = ReplayCache::new(2, 2);
        assert_eq!(cache.record("k1", "a", 200, 100), Ok(()));
        assert_eq!(cache.record("k1", "a", 200, 150), Err(Replay::Seen));
        assert_eq!(cache.record("k2", "a", 200, 150), Ok(()));
        assert_eq!(cache.record("k1", "b", 300, 150), Err(Replay::Full));
        assert_eq!(cache.record("k1", "b", 300, 250), Ok(()));
        // An expired jti may come again: its proof fails the iat check.
        assert_eq!(cache.record("k1", "a", 400, 250), Ok(()));
    }

    #[test]
    fn one_key_cannot_take_more_than_its_share() {
        let cache = ReplayCache::new(10, 3);
        for jti in ["a", "b", "c"] {
            assert_eq!(cache.record("greedy", jti, 200, 100), Ok(()));
        }
        assert_eq!(cache.record("greedy", "d", 200, 100), Err(Replay::KeyFull));
        // Other keys still have room.
        assert_eq!(cache.record("other", "a", 200, 100), Ok(()));
        // The greedy key's share frees as its entries expire.
        assert_eq!(cache.record("greedy", "d", 300, 201), Ok(()));
        assert_eq!(cache.record("greedy", "e", 300, 201), Ok(()));
    }
}
