//! The [`SessionStore`] trait and what it stores and sends: records,
//! changes, the messages between instances (see the module above for the
//! design).

use std::fmt;

use mcp_era_types::v2026_07_28::LoggingLevel;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;

pub use crate::state::tasks::store::{StoreError, StoreFuture};

/// The part of a session that changes while it lives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// The level set by `logging/setLevel`, if any.
    pub log_level: Option<LoggingLevel>,
    /// The URIs subscribed to with `resources/subscribe`, in the order
    /// they were first subscribed (a shared store may return them sorted).
    pub subscriptions: Vec<String>,
    /// When a request last used the session, milliseconds since the Unix
    /// epoch.
    pub last_seen_ms: u64,
}

/// Everything stored about one legacy session: what `initialize` agreed,
/// who opened it, and its [`SessionState`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The `Mcp-Session-Id`.
    pub id: String,
    /// The version `initialize` agreed to.
    pub protocol_version: String,
    /// The client's `capabilities` from `initialize`, as sent.
    pub client_capabilities: Value,
    /// The client's `clientInfo` from `initialize`, as sent.
    pub client_info: Value,
    /// Who opened it (a [`Principal`](crate::Principal)); only requests of
    /// the same principal may use it.
    pub principal: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// Unused for this long, the session ends.
    pub idle_timeout_ms: u64,
    /// Level, subscriptions, last use.
    pub state: SessionState,
}

impl SessionRecord {
    /// Whether the record is past its idle timeout at `now_ms`.
    pub fn is_idle_at(&self, now_ms: u64) -> bool {
        now_ms.saturating_sub(self.state.last_seen_ms) > self.idle_timeout_ms
    }
}

/// One change a request makes to its session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChange {
    /// `logging/setLevel`.
    LogLevel(LoggingLevel),
    /// `resources/subscribe`.
    Subscribe(String),
    /// `resources/unsubscribe`.
    Unsubscribe(String),
}

impl SessionChange {
    /// Applies the change to `state`.
    pub fn apply(&self, state: &mut SessionState) {
        match self {
            Self::LogLevel(level) => state.log_level = Some(*level),
            Self::Subscribe(uri) => {
                if !state.subscriptions.contains(uri) {
                    state.subscriptions.push(uri.clone());
                }
            }
            Self::Unsubscribe(uri) => state.subscriptions.retain(|u| u != uri),
        }
    }
}

/// What one instance tells the others about a session (see the module
/// docs for who sends which, and what the receiver does).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SessionMessage {
    /// The session ended (`DELETE`).
    Ended {
        /// The session id.
        session: String,
    },
    /// The session's level or subscriptions changed.
    Changed {
        /// The session id.
        session: String,
    },
    /// `notifications/cancelled` for the client request `request` (the JSON
    /// text of its id).
    Cancel {
        /// The session id.
        session: String,
        /// The JSON text of the request id.
        request: String,
    },
    /// The client's response to a server→client request that `instance`
    /// sent.
    Response {
        /// The session id.
        session: String,
        /// The instance waiting for it.
        instance: String,
        /// The JSON-RPC response, as the client sent it.
        message: Value,
    },
    /// `instance` now holds the session's GET stream.
    StreamOpened {
        /// The session id.
        session: String,
        /// The instance holding it.
        instance: String,
    },
}

impl SessionMessage {
    /// The session the message is about.
    pub fn session(&self) -> &str {
        match self {
            Self::Ended { session }
            | Self::Changed { session }
            | Self::Cancel { session, .. }
            | Self::Response { session, .. }
            | Self::StreamOpened { session, .. } => session,
        }
    }
}

/// What an instance's subscription to the other instances yields.
#[derive(Debug, Clone, PartialEq)]
pub enum BusEvent {
    /// A message from an instance (this one included).
    Message(SessionMessage),
    /// The subscription was cut and is back: messages sent meanwhile are
    /// lost, so what this instance holds must be read again.
    Reconnected,
}

/// Where legacy sessions live. Every method is one bounded operation (a
/// shared store answers or fails within its timeout); an unknown, ended or
/// expired id reads as `None`.
///
/// A store that [`is_shared`](Self::is_shared) also carries the
/// [`SessionMessage`]s between the instances using it: it announces its own
/// changes and removals (`Changed`, `Ended`) and [`publish`](Self::publish)es
/// the rest; [`listen`](Self::listen) hears them.
pub trait SessionStore: fmt::Debug + Send + Sync + 'static {
    /// Stores a new session; readable everywhere when the future ends.
    fn create(&self, record: SessionRecord) -> StoreFuture<'_, ()>;

    /// The whole record of `id`, used now (its last use and expiry are
    /// refreshed): what an instance that has not served the session yet
    /// needs.
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionRecord>>;

    /// Refreshes the last use and expiry of `id`, returning its current
    /// state: what an instance that holds the session already needs.
    fn touch<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionState>>;

    /// The current state of `id` without using it (idle sweeps, `Changed`).
    fn peek<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionState>>;

    /// Applies `change` (and uses the session); `false` when `id` is gone.
    /// A shared store announces it (`Changed`).
    fn change<'a>(&'a self, id: &'a str, change: &'a SessionChange) -> StoreFuture<'a, bool>;

    /// Removes `id`; `false` when it was already gone. A shared store
    /// announces it (`Ended`).
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;

    /// Whether other processes share this store: then a session unknown
    /// here is looked up in it, and instances send each other
    /// [`SessionMessage`]s.
    fn is_shared(&self) -> bool {
        false
    }

    /// Sends `message` to the instances concerned (a store that is not
    /// shared has no other instance: nothing to do).
    fn publish<'a>(&'a self, message: &'a SessionMessage) -> StoreFuture<'a, ()> {
        let _ = message;
        Box::pin(std::future::ready(Ok(())))
    }

    /// The messages for `instance`: every broadcast, and those addressed to
    /// it. `None` for a store that is not shared. The subscription lives
    /// until the receiver is dropped, reconnecting by itself.
    fn listen(&self, instance: &str) -> Option<mpsc::UnboundedReceiver<BusEvent>> {
        let _ = instance;
        None
    }
}
