//! The two transports: [`stdio`] (spawns the server, one JSON message per
//! line) and [`http`] (Streamable HTTP: one POST per message, answered as
//! JSON or as an SSE stream). They move JSON-RPC messages; what the messages
//! mean is the [`Client`](crate::Client)'s business, reached through
//! [`Inbound`] for whatever the server sends unasked.

use std::sync::{Arc, OnceLock};

use serde_json::Value;

pub mod http;
pub mod stdio;

// Defined in `future`, so that handlers and OAuth need not import the transport.
pub use crate::future::BoxFuture;

/// Where a transport delivers what the server sends on its own: requests
/// (legacy sessions: elicitation, sampling, roots, ping) and notifications.
pub trait Inbound: Send + Sync {
    /// Answers a server-to-client request: the JSON-RPC `result`, or an
    /// error object (`{code, message, data?}`).
    fn request(&self, method: String, params: Value) -> BoxFuture<'static, Result<Value, Value>>;
    /// Takes a notification (the whole message).
    fn notification(&self, message: Value);
}

/// The inbound sink a transport shares with its reader; set once by the client.
pub(crate) type InboundSlot = Arc<OnceLock<Arc<dyn Inbound>>>;

/// The JSON-RPC response a transport writes back for a server request.
pub(crate) fn reply_message(id: &Value, outcome: Result<Value, Value>) -> Value {
    match outcome {
        Ok(result) => serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error}),
    }
}

/// Answers a server request through `inbound` (or built-in defaults when
/// none is set: `ping` gets `{}`, anything else `-32601`).
pub(crate) async fn answer(
    inbound: &InboundSlot,
    method: &str,
    params: Value,
) -> Result<Value, Value> {
    match inbound.get() {
        Some(sink) => sink.request(method.to_owned(), params).await,
        None if method == "ping" => Ok(serde_json::json!({})),
        None => Err(serde_json::json!({"code": -32601, "message": "Method not found"})),
    }
}
