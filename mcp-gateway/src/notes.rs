//! What the backend sends unasked, handled as our client reads it (so
//! that a call's last progress and log messages reach the front before
//! its result): progress and log messages to the front request they belong
//! to, list changes and resource updates to the front's listeners.

use std::sync::{Arc, OnceLock};

use mcp_era_client::Subscription;
use mcp_era_client::handler::call_tag;
use mcp_era_server::ServerEvents;
use serde_json::Value;
use tokio::sync::watch;

use crate::calls::CallRoutes;
use crate::tool_headers::ToolHeaders;

/// Where the backend's notifications go: the front's state.
#[derive(Clone)]
pub(crate) struct Notes {
    pub(crate) events: ServerEvents,
    pub(crate) calls: CallRoutes,
    pub(crate) tool_headers: ToolHeaders,
    /// How many times a backend session was lost (it exited, or closed
    /// its stream): a composite then leaves its items out.
    pub(crate) losses: Arc<watch::Sender<u64>>,
}

/// [`Notes`] set once the front serves the backend; before, notifications
/// are dropped.
pub(crate) type NotesSlot = Arc<OnceLock<Notes>>;

impl Notes {
    /// A backend session of this front is gone.
    pub(crate) fn backend_lost(&self) {
        self.losses.send_modify(|count| *count += 1);
    }

    /// One notification of the backend.
    pub(crate) fn notified(&self, method: &str, params: &Value) {
        match method {
            "notifications/progress" => self.calls.progress(params),
            "notifications/message" => self.calls.log(call_tag(), params),
            "notifications/tools/list_changed" => {
                self.tool_headers.forget();
                self.events.tools_list_changed();
            }
            "notifications/prompts/list_changed" => self.events.prompts_list_changed(),
            "notifications/resources/list_changed" => self.events.resources_list_changed(),
            "notifications/resources/updated" => {
                if let Some(uri) = params.get("uri").and_then(Value::as_str) {
                    self.events.resource_updated(uri);
                }
            }
            _ => {}
        }
    }

    /// The notifications of a modern backend's `subscriptions/listen`
    /// stream (list changes), until it ends.
    pub(crate) async fn follow(self, mut listen: Subscription) {
        while let Some(notification) = listen.next().await {
            self.notified(&notification.method, &notification.params);
        }
    }
}
