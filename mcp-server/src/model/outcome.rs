//! What the entry point returns: the JSON-RPC answer (if any), as the
//! bytes to write, and the HTTP status the transport should use.

use std::time::Duration;

use mcp_era_types::json::{self, WriteJson};
use mcp_era_types::v2026_07_28::{JSONRPCErrorResponse, RequestId};
use serde_json::Value;

use crate::model::context::LegacySession;
use crate::wire::errors::{self, ErrorObject, http_status_of};
use crate::wire::reply::Reply;

/// The answer to one message.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The JSON-RPC response, serialized (one JSON object, no trailing
    /// newline), or `None` for a notification (which is never answered).
    pub body: Option<Vec<u8>>,
    /// The HTTP status the HTTP transport should use (the spec's error
    /// table and the Streamable HTTP status rules), computed by [`crate::errors::http_status_of`] for errors: 200 for
    /// results and for codes the spec maps to no status (`-32603`,
    /// application codes), 202 for notifications, 400 for `-32700`,
    /// `-32600`, `-32602`, `-32020`, `-32021`, `-32022`, 404 for `-32601`.
    /// stdio ignores it.
    pub http_status: u16,
    /// Set when this message was a legacy `initialize` that succeeded: the
    /// transport starts (or replaces) the legacy session with this state.
    /// Boxed: every answer moves through several layers, and inline the
    /// session would triple the size of each move.
    pub new_legacy_session: Option<Box<LegacySession>>,
    /// A rate-limited request's `data.retryAfterMs`: the HTTP transport
    /// also says it in `Retry-After`.
    pub retry_after: Option<Duration>,
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

    /// A notification's: no body, 202.
    pub(crate) fn notification() -> Self {
        Self {
            body: None,
            http_status: 202,
            new_legacy_session: None,
            retry_after: None,
        }
    }

    /// `{"jsonrpc":"2.0","id":…,"result":…}` around an already-rendered
    /// result.
    #[inline]
    pub(crate) fn reply(id: &RequestId, reply: &Reply) -> Self {
        let result = reply.as_bytes();
        let mut body = Vec::with_capacity(result.len() + 48);
        body.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        if id.write_json(&mut body).is_err() {
            return Self::error(None, errors::internal_error("the id could not be written"));
        }
        body.extend_from_slice(b",\"result\":");
        body.extend_from_slice(result);
        body.push(b'}');
        Self {
            body: Some(body),
            http_status: 200,
            new_legacy_session: None,
            retry_after: None,
        }
    }

    /// The answer of a handler: its reply, or its error framed.
    #[inline]
    pub(crate) fn answer(id: &RequestId, answer: Result<Reply, ErrorObject>) -> Self {
        match answer {
            Ok(reply) => Self::reply(id, &reply),
            Err(error) => Self::error(Some(id), error),
        }
    }

    /// `-32700`: the message was not JSON (no id could be read).
    pub(crate) fn parse_error() -> Self {
        Self::error(None, errors::parse_error())
    }

    /// This answer with another HTTP status: for the transport's own
    /// refusals (404 for an unknown session, 429, 503), whose status
    /// the error code alone does not say.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_status(mut self, status: u16) -> Self {
        self.http_status = status;
        self
    }

    /// A JSON-RPC error response with the status of its code; `id` is
    /// `None` only when the request's id could not be read.
    pub(crate) fn error(id: Option<&RequestId>, error: ErrorObject) -> Self {
        let http_status = http_status_of(&error);
        let retry_after = (error.code == errors::codes::RATE_LIMITED)
            .then(|| error.data.as_ref()?.get("retryAfterMs")?.as_u64())
            .flatten()
            .map(Duration::from_millis);
        let mut response = JSONRPCErrorResponse::new(error);
        response.id = id.cloned();
        let body = json::to_vec(&response).unwrap_or_else(|_| {
            br#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#.to_vec()
        });
        Self {
            body: Some(body),
            http_status,
            new_legacy_session: None,
            retry_after,
        }
    }
}
