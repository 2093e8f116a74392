//! Server-wide events (list changes, resource updates) delivered to one
//! legacy session as 2025-11-25 notifications: stdout on stdio, the
//! session's GET stream on HTTP.

use serde_json::Value;

use crate::features::listen::legacy_notification;
use crate::model::context::LegacySession;
use crate::model::server::McpServer;
use crate::state::events::{ServerEvent, ServerEvents};

/// Sends each event `session` should hear through `send` until the hub
/// closes or shuts down, or `send` says its receiver is gone (`false`).
pub(crate) async fn forward_legacy_events<S: McpServer>(
    server: &S,
    events: &ServerEvents,
    session: &LegacySession,
    send: impl FnMut(&Value) -> bool,
) {
    forward_legacy_events_from(server, events.subscribe(), session, send).await;
}

/// Like [`forward_legacy_events`], from a subscription already made (so
/// that nothing published meanwhile is missed).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) async fn forward_legacy_events_from<S: McpServer>(
    server: &S,
    mut rx: tokio::sync::broadcast::Receiver<ServerEvent>,
    session: &LegacySession,
    mut send: impl FnMut(&Value) -> bool,
) {
    loop {
        match rx.recv().await {
            Ok(ServerEvent::ShuttingDown) => return,
            Ok(event) => {
                if let Some(message) = legacy_notification(&server.declaration(), session, &event)
                    && !send(&message)
                {
                    return;
                }
            }
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        }
    }
}
