//! The default [`SessionStore`]: a map in this process, the store of one
//! instance (nothing to share, nobody to tell).

use std::collections::HashMap;
use std::future::ready;
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::store::{SessionChange, SessionRecord, SessionState, SessionStore, StoreFuture};
use crate::state::tasks::store::now_ms;

/// Sessions in a map in this process. A record past its idle timeout
/// reads as gone and is dropped then; the HTTP transport also removes
/// every session it ends (DELETE, idle sweep, the session cap), so the map
/// holds no more than its session table. [`sweep`](Self::sweep) drops
/// expired records for a store used on its own.
#[derive(Debug, Default)]
pub struct MemorySessionStore {
    sessions: Mutex<HashMap<String, SessionRecord>>,
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, SessionRecord>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many records are held (expired ones not yet dropped included).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no record is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every expired record; returns how many.
    pub fn sweep(&self) -> usize {
        let now = now_ms();
        let mut sessions = self.lock();
        let before = sessions.len();
        sessions.retain(|_, record| !record.is_idle_at(now));
        before - sessions.len()
    }

    /// The live record of `id`, used now when `used`.
    fn live<R>(
        &self,
        id: &str,
        used: bool,
        read: impl FnOnce(&mut SessionRecord) -> R,
    ) -> Option<R> {
        let now = now_ms();
        let mut sessions = self.lock();
        if sessions.get(id).is_some_and(|r| r.is_idle_at(now)) {
            sessions.remove(id);
            return None;
        }
        let record = sessions.get_mut(id)?;
        if used {
            record.state.last_seen_ms = now;
        }
        Some(read(record))
    }
}

impl SessionStore for MemorySessionStore {
    fn create(&self, record: SessionRecord) -> StoreFuture<'_, ()> {
        self.lock().insert(record.id.clone(), record);
        Box::pin(ready(Ok(())))
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionRecord>> {
        Box::pin(ready(Ok(self.live(id, true, |r| r.clone()))))
    }

    fn touch<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionState>> {
        Box::pin(ready(Ok(self.live(id, true, |r| r.state.clone()))))
    }

    fn peek<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionState>> {
        Box::pin(ready(Ok(self.live(id, false, |r| r.state.clone()))))
    }

    fn change<'a>(&'a self, id: &'a str, change: &'a SessionChange) -> StoreFuture<'a, bool> {
        let found = self.live(id, true, |r| change.apply(&mut r.state));
        Box::pin(ready(Ok(found.is_some())))
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(ready(Ok(self.lock().remove(id).is_some())))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

    use mcp_era_types::v2026_07_28::LoggingLevel;
    use serde_json::json;

    use super::*;

    pub(crate) fn record(id: &str, idle_timeout_ms: u64) -> SessionRecord {
        SessionRecord {
            id: id.to_owned(),
            protocol_version: "2025-11-25".into(),
            client_capabilities: json!({"elicitation": {}}),
            client_info: json!({"name": "t", "version": "1"}),
            principal: Some("alice".into()),
            created_at_ms: now_ms(),
            idle_timeout_ms,
            state: SessionState {
                last_seen_ms: now_ms(),
                ..SessionState::default()
            },
        }
    }

    #[tokio::test]
    async fn a_session_is_created_changed_read_and_removed() {
        let store = MemorySessionStore::new();
        store.create(record("s1", 60_000)).await.unwrap();
        let subscribe = SessionChange::Subscribe("test://a".into());
        assert!(store.change("s1", &subscribe).await.unwrap());
        assert!(
            store.change("s1", &subscribe).await.unwrap(),
            "twice is once"
        );
        let level = SessionChange::LogLevel(LoggingLevel::Error);
        assert!(store.change("s1", &level).await.unwrap());
        let state = store.touch("s1").await.unwrap().unwrap();
        assert_eq!(state.subscriptions, ["test://a"]);
        assert_eq!(state.log_level, Some(LoggingLevel::Error));
        let loaded = store.load("s1").await.unwrap().unwrap();
        assert_eq!(loaded.principal.as_deref(), Some("alice"));
        assert_eq!(loaded.client_capabilities, json!({"elicitation": {}}));
        let unsubscribe = SessionChange::Unsubscribe("test://a".into());
        assert!(store.change("s1", &unsubscribe).await.unwrap());
        assert!(
            store
                .peek("s1")
                .await
                .unwrap()
                .unwrap()
                .subscriptions
                .is_empty()
        );
        assert!(store.remove("s1").await.unwrap());
        assert!(!store.remove("s1").await.unwrap());
        assert_eq!(store.touch("s1").await.unwrap(), None);
        assert!(!store.change("s1", &level).await.unwrap());
        assert!(store.is_empty());
    }

    #[tokio::test]
    async fn an_idle_session_is_gone_and_a_used_one_stays() {
        let store = MemorySessionStore::new();
        let mut old = record("old", 1_000);
        old.state.last_seen_ms -= 5_000;
        store.create(old).await.unwrap();
        store.create(record("new", 60_000)).await.unwrap();
        assert_eq!(store.sweep(), 1);
        assert_eq!(store.load("old").await.unwrap(), None);
        assert!(store.peek("new").await.unwrap().is_some());
        let mut stale = record("stale", 1_000);
        stale.state.last_seen_ms -= 5_000;
        store.create(stale).await.unwrap();
        assert_eq!(
            store.touch("stale").await.unwrap(),
            None,
            "dropped when read"
        );
        assert_eq!(store.len(), 1);
        assert!(!store.is_shared());
        assert!(store.listen("me").is_none());
    }
}
