//! Server-wide events: list changes and resource updates, published once
//! and delivered to every `subscriptions/listen` stream (modern) and every
//! legacy session (as plain notifications) that asked for them.

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
#[derive(Debug, Clone)]
pub struct ServerEvents {
    tx: broadcast::Sender<ServerEvent>,
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
        Self { tx }
    }

    /// Publishes an event to every current subscriber.
    pub fn publish(&self, event: ServerEvent) {
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
