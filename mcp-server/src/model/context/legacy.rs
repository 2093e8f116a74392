//! A legacy (2025-11-25) session's state as `initialize` agreed it: the
//! version, the client's capabilities and info, the log level and the
//! subscriptions, and what the server keeps while the client follows.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_era_types::v2026_07_28::LoggingLevel;
use serde_json::Value;

use crate::state::sessions::{SessionChange, SessionRecord, SessionState, SessionStore};
use crate::wire::errors::{self, HandlerResult};

/// What a server keeps while a client follows its events, from
/// [`McpServer::following`](crate::McpServer::following); dropped when the
/// client stops following.
pub type Following = Box<dyn std::any::Any + Send + Sync>;

/// The state of a legacy (2025-11-25 era) session, negotiated by
/// `initialize`. The transport stores it (per process on stdio, per
/// `Mcp-Session-Id` on HTTP, in its
/// [`SessionStore`](crate::sessions::SessionStore)) and passes it back in
/// the `MessageContext` of each message.
///
/// Clones share the mutable part (the `logging/setLevel` level and the
/// `resources/subscribe` set).
#[derive(Clone)]
pub struct LegacySession {
    /// The version `initialize` agreed to; always a legacy version.
    pub protocol_version: String,
    /// The client's `capabilities` from `initialize`, as sent.
    pub client_capabilities: Value,
    /// The client's `clientInfo` from `initialize`, as sent.
    pub client_info: Value,
    state: Arc<Mutex<LegacyState>>,
    /// What the server keeps for each URI this session subscribed to here
    /// ([`McpServer::following`](crate::McpServer::following)).
    following: Arc<Mutex<std::collections::HashMap<String, Following>>>,
    /// Where changes are written before they hold (HTTP sessions).
    stored: Option<Stored>,
}

/// The store an HTTP session lives in, and its id there.
#[derive(Clone)]
struct Stored {
    store: Arc<dyn SessionStore>,
    id: Arc<str>,
}

#[derive(Debug, Default)]
struct LegacyState {
    log_level: Option<LoggingLevel>,
    subscriptions: Vec<String>,
}

impl LegacySession {
    /// A session that agreed to `protocol_version` with a client that sent
    /// these `capabilities` and `clientInfo`.
    pub fn new(protocol_version: String, client_capabilities: Value, client_info: Value) -> Self {
        Self {
            protocol_version,
            client_capabilities,
            client_info,
            state: Arc::default(),
            following: Arc::default(),
            stored: None,
        }
    }

    /// The session a stored record describes, its changes written back
    /// to `store`.
    pub(crate) fn from_record(record: &SessionRecord, store: Arc<dyn SessionStore>) -> Self {
        let session = Self::new(
            record.protocol_version.clone(),
            record.client_capabilities.clone(),
            record.client_info.clone(),
        )
        .stored_in(store, &record.id);
        session.refresh(&record.state);
        session
    }

    /// The same session, its changes written to `store` under `id` first.
    pub(crate) fn stored_in(mut self, store: Arc<dyn SessionStore>, id: &str) -> Self {
        self.stored = Some(Stored {
            store,
            id: Arc::from(id),
        });
        self
    }

    fn state(&self) -> std::sync::MutexGuard<'_, LegacyState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the level and subscriptions as stored (changes made on other
    /// instances).
    pub(crate) fn refresh(&self, stored: &SessionState) {
        let mut state = self.state();
        state.log_level = stored.log_level;
        if state.subscriptions != stored.subscriptions {
            state.subscriptions.clone_from(&stored.subscriptions);
        }
    }

    /// The level set by `logging/setLevel`, if any.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.state().log_level
    }

    /// Makes `change`: in the session's store first (so every instance
    /// serving the session sees it), then here. A store that fails or no
    /// longer has the session leaves it unchanged: `-32603`.
    pub(crate) async fn change(&self, change: SessionChange) -> HandlerResult<()> {
        if let Some(stored) = &self.stored {
            match stored.store.change(&stored.id, &change).await {
                Ok(true) => {}
                Ok(false) => {
                    return Err(errors::internal_error(
                        "The session has ended: initialize a new session",
                    ));
                }
                Err(e) => {
                    return Err(errors::internal_error(format!(
                        "The session change could not be stored: {e}"
                    )));
                }
            }
        }
        let mut state = self.state();
        let mut current = SessionState {
            log_level: state.log_level,
            subscriptions: std::mem::take(&mut state.subscriptions),
            last_seen_ms: 0,
        };
        change.apply(&mut current);
        state.log_level = current.log_level;
        state.subscriptions = current.subscriptions;
        Ok(())
    }

    /// The URIs the client subscribed to with `resources/subscribe`.
    pub fn subscriptions(&self) -> Vec<String> {
        self.state().subscriptions.clone()
    }

    /// Keeps what the server returned when this session subscribed to
    /// `uri` (`None`: drops what it kept, as on unsubscribing).
    pub(crate) fn follow(&self, uri: &str, following: Option<Following>) {
        let mut kept = self
            .following
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match following {
            Some(following) => kept.insert(uri.to_owned(), following),
            None => kept.remove(uri),
        };
    }

    /// Drops everything the server keeps for this session (it ended).
    pub(crate) fn stop_following(&self) {
        self.following
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// Whether the client subscribed to `uri`.
    pub fn is_subscribed(&self, uri: &str) -> bool {
        self.state().subscriptions.iter().any(|u| u == uri)
    }
}

impl PartialEq for LegacySession {
    fn eq(&self, other: &Self) -> bool {
        self.protocol_version == other.protocol_version
            && self.client_capabilities == other.client_capabilities
            && self.client_info == other.client_info
    }
}

impl fmt::Debug for LegacySession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LegacySession")
            .field("protocol_version", &self.protocol_version)
            .field("client_capabilities", &self.client_capabilities)
            .field("client_info", &self.client_info)
            .field("state", &*self.state())
            .finish()
    }
}
