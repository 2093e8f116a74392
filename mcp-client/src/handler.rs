//! Answering what a server asks of the client: elicitation (form and URL
//! mode), sampling (`sampling/createMessage`) and roots (`roots/list`).
//!
//! One [`ClientHandler`] serves both eras: a modern server asks through an
//! `input_required` result (MRTR) and the client retries with the answers;
//! a legacy session sends real JSON-RPC requests (stdio lines or SSE
//! events) and the client answers them. Only kinds the client declared in
//! [`ClientOptions::capabilities`](crate::ClientOptions::capabilities) are
//! answered: a legacy request of another kind gets `-32601`, a modern
//! `input_required` asking for one fails the call with
//! [`Error::UndeclaredInput`](crate::Error::UndeclaredInput).
//!
//! ```
//! use mcp_era_client::handler::{ClientHandler, HandlerError};
//! use mcp_era_client::transport::BoxFuture;
//! use mcp_era_client::mcp_era_types::v2026_07_28 as m;
//!
//! struct AlwaysYes;
//! impl ClientHandler for AlwaysYes {
//!     fn elicit(&self, _request: m::ElicitRequestParams)
//!         -> BoxFuture<'_, Result<m::ElicitResult, HandlerError>> {
//!         Box::pin(async { Ok(m::ElicitResult::new(m::ElicitResultAction::Accept)) })
//!     }
//! }
//! ```
//!
//! An accepted form answer gets the `default` of every property of the
//! requested schema it leaves out (SEP-1034), so a handler may answer with
//! only what the user changed.

use std::sync::Arc;

use mcp_era_types::v2026_07_28 as modern;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

// Defined in `error`, whose `Error::Handler` carries it.
pub use crate::error::HandlerError;
use crate::future::BoxFuture;

/// What the user of the client supplies to answer server requests. Every
/// method has a default: elicitation is declined, sampling is refused,
/// roots are an empty list.
pub trait ClientHandler: Send + Sync + 'static {
    /// `elicitation/create`, form or URL mode.
    fn elicit(
        &self,
        request: modern::ElicitRequestParams,
    ) -> BoxFuture<'_, Result<modern::ElicitResult, HandlerError>> {
        let _ = request;
        Box::pin(async {
            Ok(modern::ElicitResult::new(
                modern::ElicitResultAction::Decline,
            ))
        })
    }

    /// `sampling/createMessage`.
    fn create_message(
        &self,
        request: modern::CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<modern::CreateMessageResult, HandlerError>> {
        let _ = request;
        Box::pin(async { Err(HandlerError::unsupported("sampling")) })
    }

    /// `roots/list`.
    fn list_roots(&self) -> BoxFuture<'_, Result<modern::ListRootsResult, HandlerError>> {
        Box::pin(async { Ok(modern::ListRootsResult::new(Vec::new())) })
    }

    /// A notification the server sent outside a `subscriptions/listen`
    /// stream (progress, log messages, a legacy session's list changes),
    /// called as it is read: before the response to any request the server
    /// answered after sending it is returned, which a
    /// [`Subscription`](crate::Subscription) read on another task cannot
    /// promise. [`call_tag`] says which request's stream it came on, when
    /// known. Keep it short: it holds up what the server sends next.
    fn notified(&self, method: &str, params: &Value) {
        let _ = (method, params);
    }
}

tokio::task_local! {
    static CALL_TAG: u64;
}

/// Runs `future` (which makes requests with a [`Client`](crate::Client))
/// under `tag`, so that a handler answering what the server asks during
/// those requests can tell whose they are with [`call_tag`].
///
/// A server request is known to belong to a request of the client when it
/// arrives as that request's `input_required` round (a modern server) or on
/// that request's own Streamable HTTP response stream (a legacy server over
/// HTTP). A legacy server over stdio, or on a session's standalone `GET`
/// stream, names no request: there [`call_tag`] is `None`.
///
/// A notification (progress, a log message) is known to belong to a
/// request when it arrives on that request's own Streamable HTTP response
/// stream. Over stdio it is given to the request waiting alone, if one
/// does: exact for a modern server, which writes no notification outside
/// a request or a listen stream; a legacy server's notification names no
/// request, and one it writes outside any request then goes to that
/// request too. With two or more waiting, [`call_tag`] is `None`.
pub async fn with_call_tag<F: std::future::Future>(tag: u64, future: F) -> F::Output {
    CALL_TAG.scope(tag, future).await
}

/// The tag given with [`with_call_tag`] to the request the server request
/// being answered belongs to, when it is known.
pub fn call_tag() -> Option<u64> {
    CALL_TAG.try_with(|tag| *tag).ok()
}

/// Runs `f` under `tag`, if any: for a notification a transport reads
/// knowing whose request it belongs to.
pub(crate) fn under_call_tag<R>(tag: Option<u64>, f: impl FnOnce() -> R) -> R {
    match tag {
        Some(tag) => CALL_TAG.sync_scope(tag, f),
        None => f(),
    }
}

/// `future` under the current call tag, if any: for work a transport
/// spawns on behalf of the request it is reading.
pub(crate) fn keep_call_tag<F: std::future::Future>(
    future: F,
) -> impl std::future::Future<Output = F::Output> {
    let tag = call_tag();
    async move {
        match tag {
            Some(tag) => CALL_TAG.scope(tag, future).await,
            None => future.await,
        }
    }
}

/// The kinds of input a server can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// Form-mode elicitation.
    ElicitForm,
    /// URL-mode elicitation.
    ElicitUrl,
    /// `sampling/createMessage`.
    Sampling,
    /// `roots/list`.
    Roots,
}

impl InputKind {
    /// The kind of a request, by method (and `mode` for elicitation).
    pub fn of(method: &str, params: &Value) -> Option<Self> {
        match method {
            "elicitation/create" => Some(match params.get("mode").and_then(Value::as_str) {
                Some("url") => InputKind::ElicitUrl,
                _ => InputKind::ElicitForm,
            }),
            "sampling/createMessage" => Some(InputKind::Sampling),
            "roots/list" => Some(InputKind::Roots),
            _ => None,
        }
    }

    /// Whether `capabilities` (a `ClientCapabilities` object) declares it.
    /// `elicitation: {}` means form mode only.
    pub fn declared_in(self, capabilities: &Value) -> bool {
        let has = |path: &str| capabilities.pointer(path).is_some_and(|v| !v.is_null());
        match self {
            InputKind::ElicitForm => {
                has("/elicitation/form") || (has("/elicitation") && !has("/elicitation/url"))
            }
            InputKind::ElicitUrl => has("/elicitation/url"),
            InputKind::Sampling => has("/sampling"),
            InputKind::Roots => has("/roots"),
        }
    }
}

/// Routes server requests to the handler, enforcing the declared capabilities.
#[derive(Clone)]
pub(crate) struct Responder {
    handler: Option<Arc<dyn ClientHandler>>,
    capabilities: Value,
}

impl Responder {
    pub(crate) fn new(handler: Option<Arc<dyn ClientHandler>>, capabilities: Value) -> Self {
        Self {
            handler,
            capabilities,
        }
    }

    /// Hands a notification outside listen streams to the handler.
    pub(crate) fn notified(&self, message: &Value) {
        let Some(handler) = &self.handler else {
            return;
        };
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return;
        };
        let params = message.get("params").unwrap_or(&Value::Null);
        if params
            .pointer("/_meta/io.modelcontextprotocol~1subscriptionId")
            .is_none()
        {
            handler.notified(method, params);
        }
    }

    /// Whether the client declared the kind of input `method` asks for.
    pub(crate) fn declares(&self, method: &str, params: &Value) -> bool {
        InputKind::of(method, params).is_some_and(|k| k.declared_in(&self.capabilities))
    }

    /// Answers one server request (`ping` included) with a result object.
    pub(crate) async fn answer(&self, method: &str, params: Value) -> Result<Value, HandlerError> {
        if method == "ping" {
            return Ok(json!({}));
        }
        if InputKind::of(method, &params).is_none() {
            return Err(HandlerError::new(
                -32601,
                format!("Method not found: {method}"),
            ));
        }
        if !self.declares(method, &params) {
            return Err(HandlerError::unsupported(method));
        }
        let Some(handler) = &self.handler else {
            return Err(HandlerError::unsupported(method));
        };
        match method {
            "elicitation/create" => {
                let schema = params.pointer("/requestedSchema").cloned();
                let mut result = to_json(&handler.elicit(typed(params)?).await?)?;
                if let Some(schema) = schema {
                    apply_defaults(&schema, &mut result);
                }
                Ok(result)
            }
            "sampling/createMessage" => to_json(&handler.create_message(typed(params)?).await?),
            _ => to_json(&handler.list_roots().await?),
        }
    }
}

fn typed<T: DeserializeOwned>(params: Value) -> Result<T, HandlerError> {
    serde_json::from_value(params)
        .map_err(|e| HandlerError::new(-32602, format!("invalid request params: {e}")))
}

fn to_json(v: &impl Serialize) -> Result<Value, HandlerError> {
    serde_json::to_value(v).map_err(|e| HandlerError::new(-32603, e.to_string()))
}

/// Fills in the `default` of every schema property an accepted form answer
/// leaves out (SEP-1034).
pub fn apply_defaults(schema: &Value, result: &mut Value) {
    if result.get("action").and_then(Value::as_str) != Some("accept") {
        return;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let Some(obj) = result.as_object_mut() else {
        return;
    };
    let content = obj.entry("content").or_insert_with(|| json!({}));
    let Some(content) = content.as_object_mut() else {
        return;
    };
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !content.contains_key(name)
        {
            content.insert(name.clone(), default.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_kinds() {
        let caps = json!({"elicitation": {}, "roots": {}});
        assert!(InputKind::ElicitForm.declared_in(&caps));
        assert!(!InputKind::ElicitUrl.declared_in(&caps));
        assert!(InputKind::Roots.declared_in(&caps));
        assert!(!InputKind::Sampling.declared_in(&caps));
        let caps = json!({"elicitation": {"url": {}}});
        assert!(!InputKind::ElicitForm.declared_in(&caps));
        assert!(InputKind::ElicitUrl.declared_in(&caps));
        assert_eq!(
            InputKind::of("elicitation/create", &json!({"mode": "url"})),
            Some(InputKind::ElicitUrl)
        );
    }

    #[test]
    fn defaults_fill_only_what_an_accepted_answer_leaves_out() {
        let schema =
            json!({"properties": {"name": {"default": "John"}, "age": {"default": 30}, "x": {}}});
        let mut r = json!({"action": "accept", "content": {"age": 5}});
        apply_defaults(&schema, &mut r);
        assert_eq!(
            r,
            json!({"action": "accept", "content": {"age": 5, "name": "John"}})
        );
        let mut r = json!({"action": "decline"});
        apply_defaults(&schema, &mut r);
        assert_eq!(r, json!({"action": "decline"}));
    }
}
