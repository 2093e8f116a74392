//! Server-wide events: list changes and resource updates, published once
//! and delivered to every `subscriptions/listen` stream (modern) and every
//! legacy session (as plain notifications) that asked for them.
//!
//! With the `redis` feature a hub can also be shared by several processes
//! (`ServerEvents::with_redis`, in `state::redis_events`): each event is
//! then also handed to a relay, which carries it to the other processes
//! and brings theirs in. Without the feature the hub is the in-process
//! broadcast alone.

#[cfg(feature = "redis")]
use std::sync::Arc;

use tokio::sync::broadcast;

/// One server-wide event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerEvent {
    /// The tool list changed (`notifications/tools/list_changed`).
    ToolsListChanged,
    /// The prompt list changed (`notifications/prompts/list_changed`).
    PromptsListChanged,
    /// The resource list changed (`notifications/resources/list_changed`).
    ResourcesListChanged,
    /// The resource at this URI changed (`notifications/resources/updated`).
    ResourceUpdated(String),
    /// The server is shutting down: `subscriptions/listen` streams end
    /// (with their result) and legacy event streams close. Published by
    /// the HTTP transport's graceful shutdown.
    ShuttingDown,
    /// A task changed status (tasks extension, `notifications/tasks`),
    /// delivered to the owner's listen streams that asked for its id.
    TaskStatus {
        /// The task's id.
        task_id: String,
        /// The principal that created it (`None`: unauthenticated).
        owner: Option<String>,
        /// Its `DetailedTask`, without `resultType`.
        task: serde_json::Value,
    },
}

/// The event hub of one running server. Cheap to clone; clones publish to
/// the same subscribers. Transports create one per `serve` unless given
/// one, so code outside request handlers (a file watcher, a timer) can
/// publish too.
///
/// A hub made with `ServerEvents::with_redis` (feature `redis`) is shared
/// by every process on the same Redis channel: each process's listen
/// streams and legacy sessions get every process's events (except
/// [`ServerEvent::ShuttingDown`], which stays in its process), each at
/// most once and in the order its process published them. [`publish`]
/// never waits for Redis; see `RedisEventBus` for the bounds.
///
/// [`publish`]: Self::publish
#[derive(Debug, Clone)]
pub struct ServerEvents {
    tx: broadcast::Sender<ServerEvent>,
    #[cfg(feature = "redis")]
    relay: Option<Arc<dyn Relay>>,
}

/// Carries the events of a shared hub to the other processes (feature
/// `redis`). `offer` must not block.
#[cfg(feature = "redis")]
pub(crate) trait Relay: Send + Sync + std::fmt::Debug {
    /// Takes an event published in this process (never `ShuttingDown`).
    fn offer(&self, event: &ServerEvent);
    /// What the relay has counted so far.
    fn stats(&self) -> EventBusStats;
}

/// What the relay of a shared hub has counted since it started (feature
/// `redis`; see [`ServerEvents::bus_stats`]).
#[cfg(feature = "redis")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EventBusStats {
    /// Events of this process sent to the other processes.
    pub sent: u64,
    /// Events of this process dropped because the queue toward Redis was
    /// full (Redis unreachable or slow).
    pub dropped: u64,
    /// Events of this process dropped because they waited too long for
    /// Redis to come back.
    pub expired: u64,
    /// Events of other processes delivered here.
    pub received: u64,
    /// Whether the relay is connected and subscribed now.
    pub connected: bool,
}

impl Default for ServerEvents {
    fn default() -> Self {
        Self::new()
    }
}

impl ServerEvents {
    /// A hub with no subscribers. Up to 256 events are buffered per slow
    /// subscriber; older ones are dropped for it.
    pub fn new() -> Self {
        let (tx, _) = broadcast::channel(256);
        Self {
            tx,
            #[cfg(feature = "redis")]
            relay: None,
        }
    }

    /// A hub whose events also go to `relay`, which `start` makes given a
    /// handle to deliver other processes' events here (weak, so that the
    /// relay does not keep the hub open).
    #[cfg(feature = "redis")]
    pub(crate) fn with_relay<E>(
        start: impl FnOnce(broadcast::WeakSender<ServerEvent>) -> Result<Arc<dyn Relay>, E>,
    ) -> Result<Self, E> {
        let (tx, _) = broadcast::channel(256);
        let relay = start(tx.downgrade())?;
        Ok(Self {
            tx,
            relay: Some(relay),
        })
    }

    /// Whether this hub is shared with other processes (feature `redis`).
    #[cfg(feature = "redis")]
    pub fn is_shared(&self) -> bool {
        self.relay.is_some()
    }

    /// What the relay of a shared hub has counted (feature `redis`);
    /// `None` for a hub of this process only.
    #[cfg(feature = "redis")]
    pub fn bus_stats(&self) -> Option<EventBusStats> {
        self.relay.as_ref().map(|relay| relay.stats())
    }

    /// Publishes an event to every current subscriber (and, on a shared
    /// hub, to the other processes; never waits for them).
    pub fn publish(&self, event: ServerEvent) {
        #[cfg(feature = "redis")]
        if let Some(relay) = &self.relay
            && !matches!(event, ServerEvent::ShuttingDown)
        {
            relay.offer(&event);
        }
        let _ = self.tx.send(event);
    }

    /// Publishes [`ServerEvent::ToolsListChanged`].
    pub fn tools_list_changed(&self) {
        self.publish(ServerEvent::ToolsListChanged);
    }

    /// Publishes [`ServerEvent::PromptsListChanged`].
    pub fn prompts_list_changed(&self) {
        self.publish(ServerEvent::PromptsListChanged);
    }

    /// Publishes [`ServerEvent::ResourcesListChanged`].
    pub fn resources_list_changed(&self) {
        self.publish(ServerEvent::ResourcesListChanged);
    }

    /// Publishes [`ServerEvent::ResourceUpdated`].
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.publish(ServerEvent::ResourceUpdated(uri.into()));
    }

    /// A new subscription, receiving events published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.tx.subscribe()
    }
}
