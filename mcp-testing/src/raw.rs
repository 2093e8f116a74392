//! Raw JSON-RPC against a server's entry point: messages built with the
//! modern `_meta`, the HTTP headers a correct client sends, and the answer
//! with the HTTP status the Streamable HTTP transport would use.

use std::sync::Arc;

use mcp_era_server::McpServer;
use mcp_era_server::transport::{
    HeaderText, HttpHeaders, MessageContext, Outcome, handle_message_shared,
};
use serde_json::{Value, json};

/// The modern version these helpers put in `_meta` and headers.
pub const MODERN_VERSION: &str = "2026-07-28";

/// The answer to one message sent as an HTTP POST body.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpAnswer {
    /// The HTTP status the Streamable HTTP transport would answer with.
    pub status: u16,
    /// The JSON-RPC answer (`None` for a notification, 202).
    pub body: Option<Value>,
}

impl HttpAnswer {
    /// `body.error.code`, when the answer is an error.
    pub fn error_code(&self) -> Option<i64> {
        error_code(self.body.as_ref())
    }
}

/// `error.code` of a JSON-RPC answer, when it is an error.
pub fn error_code(answer: Option<&Value>) -> Option<i64> {
    answer?.get("error")?.get("code")?.as_i64()
}

/// A modern request: `params` (an object, or `null` for none) with the
/// required `_meta` (protocol version 2026-07-28, no client capabilities)
/// added.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    request_with_version(id, method, params, MODERN_VERSION)
}

/// [`request`] declaring `version` in `_meta`.
pub fn request_with_version(
    id: impl Into<Value>,
    method: &str,
    params: Value,
    version: &str,
) -> Value {
    let mut params = match params {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    params.insert(
        "_meta".into(),
        json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        }),
    );
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params})
}

/// The headers a correct client sends with `message` over Streamable
/// HTTP: `MCP-Protocol-Version` (the `_meta` version), `Mcp-Method`, and
/// `Mcp-Name` for `tools/call`, `prompts/get` and `resources/read`. No
/// `Mcp-Param-*` headers.
pub fn headers_for(message: &Value) -> HttpHeaders {
    let params = message.get("params");
    let version = params
        .and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1protocolVersion"))
        .and_then(Value::as_str)
        .map(HeaderText::from);
    let method = message.get("method").and_then(Value::as_str);
    let name = match method {
        Some("tools/call" | "prompts/get") => params.and_then(|p| p.get("name")),
        Some("resources/read") => params.and_then(|p| p.get("uri")),
        _ => None,
    };
    HttpHeaders {
        protocol_version: version,
        method: Some(method.map(HeaderText::from)),
        name: name.and_then(Value::as_str).map(HeaderText::from),
        params: Vec::new(),
    }
}

fn answer(outcome: &Outcome) -> Option<Value> {
    // A body that is not JSON is reported as a string rather than lost.
    outcome.body.as_deref().map(|bytes| {
        serde_json::from_slice(bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
    })
}

/// Answers `message` as a stdio line outside any legacy session.
pub async fn stdio<S: McpServer + 'static>(server: &Arc<S>, message: &Value) -> Option<Value> {
    bytes(server, &to_bytes(message), &MessageContext::stdio()).await
}

/// Answers raw bytes (which need not be JSON) in `ctx`.
pub async fn bytes<S: McpServer + 'static>(
    server: &Arc<S>,
    message: &[u8],
    ctx: &MessageContext,
) -> Option<Value> {
    answer(&handle_message_shared(server, message, ctx).await)
}

/// Answers `message` as an HTTP POST body with `headers`.
pub async fn http<S: McpServer + 'static>(
    server: &Arc<S>,
    message: &Value,
    headers: HttpHeaders,
) -> HttpAnswer {
    http_bytes(server, &to_bytes(message), headers).await
}

/// Answers raw bytes as an HTTP POST body with `headers`.
pub async fn http_bytes<S: McpServer + 'static>(
    server: &Arc<S>,
    message: &[u8],
    headers: HttpHeaders,
) -> HttpAnswer {
    let outcome =
        handle_message_shared(server, message, &MessageContext::http_headers(headers)).await;
    HttpAnswer {
        status: outcome.http_status,
        body: answer(&outcome),
    }
}

fn to_bytes(message: &Value) -> Vec<u8> {
    // Serialising a `Value` cannot fail (its keys are strings).
    serde_json::to_vec(message).unwrap_or_default()
}
