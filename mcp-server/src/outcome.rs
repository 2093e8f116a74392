//! What the entry point returns: the JSON-RPC answer (if any), as the
//! bytes to write, and the HTTP status the transport should use.

use serde_json::Value;

use crate::context::LegacySession;

/// The answer to one message.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The JSON-RPC response, serialized (one JSON object, no trailing
    /// newline), or `None` for a notification (which is never answered).
    pub body: Option<Vec<u8>>,
    /// The HTTP status the HTTP transport should use (digest §5 and §6 item
    /// 10), computed by [`crate::http_status_of`] for errors: 200 for
    /// results and for codes the spec maps to no status (`-32603`,
    /// application codes), 202 for notifications, 400 for `-32700`,
    /// `-32600`, `-32602`, `-32020`, `-32021`, `-32022`, 404 for `-32601`.
    /// stdio ignores it.
    pub http_status: u16,
    /// Set when this message was a legacy `initialize` that succeeded: the
    /// transport starts (or replaces) the legacy session with this state.
    pub new_legacy_session: Option<LegacySession>,
}

impl Outcome {
    /// The body alone, dropping the status (what stdio writes).
    pub fn into_body(self) -> Option<Vec<u8>> {
        self.body
    }

    /// The body parsed as JSON, for tests and tools that inspect answers.
    pub fn json(&self) -> Option<Value> {
        self.body
            .as_deref()
            .and_then(|body| serde_json::from_slice(body).ok())
    }
}
