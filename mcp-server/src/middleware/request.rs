//! What a layer sees and answers: [`McpRequest`], [`McpResponse`], and the
//! JSON-RPC error a stack's failure becomes.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;

use mcp_era_types::v2026_07_28::{ClientRequest, RequestId};
use serde_json::{Map, Value};
use tower::BoxError;

use crate::model::context::{Era, RequestContext, principal_in};
use crate::wire::errors::{self, ErrorObject, HandlerResult};
use crate::wire::message::request_parts;
use crate::wire::reply::Reply;

/// A boxed, sendable future, the one every service here returns.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// What a layer answers: the handler's result (as bytes) or a JSON-RPC
/// error. A layer that refuses a request answers `Ok(Err(error))`; the
/// service's own `Err` is for failures of the layer itself (a timeout),
/// which [`error_of`] turns into a JSON-RPC error. A result a layer makes
/// itself ([`Reply::from_serialize`]) is sent as it is: give it the modern
/// shape (`resultType`, and `ttlMs`/`cacheScope` on cacheable methods); in
/// a legacy session the runtime converts it as it converts a handler's.
pub type McpResponse = HandlerResult<Reply>;

/// One MCP request on its way to its handler: the typed request and the
/// context its handler gets.
#[derive(Debug)]
pub struct McpRequest {
    request: ClientRequest,
    context: RequestContext,
}

impl McpRequest {
    /// A request to send through a stack by hand (tests of a layer).
    pub fn new(request: ClientRequest, context: RequestContext) -> Self {
        Self { request, context }
    }

    /// The method, such as `tools/call`.
    pub fn method(&self) -> &str {
        self.request.method()
    }

    /// What the request names: the tool of `tools/call`, the prompt of
    /// `prompts/get`, the URI of `resources/read`.
    pub fn name(&self) -> Option<&str> {
        request_parts(&self.request).call.name
    }

    /// The tool a `tools/call` calls.
    pub fn tool_name(&self) -> Option<&str> {
        match &self.request {
            ClientRequest::CallToolRequest(call) => Some(&call.params.name),
            _ => None,
        }
    }

    /// The arguments of a `tools/call`.
    pub fn arguments(&self) -> Option<&Map<String, Value>> {
        request_parts(&self.request).call.arguments
    }

    /// The caller, as the HTTP transport resolved it (a [`Principal`]
    /// middleware set, else with the `auth` feature the token's subject or
    /// client). `None` on stdio and for anonymous HTTP callers.
    ///
    /// [`Principal`]: crate::Principal
    pub fn principal(&self) -> Option<&str> {
        let parts = self.context.http_request()?;
        principal_in(&parts.extensions)
    }

    /// The address the HTTP request came from ([`PeerAddr`]); `None` on
    /// stdio and where the application that mounts the service did not
    /// say.
    ///
    /// [`PeerAddr`]: crate::http::PeerAddr
    pub fn peer_addr(&self) -> Option<SocketAddr> {
        self.context.remote_addr()
    }

    /// The protocol version of the request (a legacy session's negotiated
    /// version in the legacy era).
    pub fn protocol_version(&self) -> &str {
        self.context.protocol_version()
    }

    /// The request's era.
    pub fn era(&self) -> Era {
        self.context.era()
    }

    /// The request id, exactly as sent.
    pub fn id(&self) -> &RequestId {
        &self.context.id
    }

    /// The typed request.
    pub fn request(&self) -> &ClientRequest {
        &self.request
    }

    /// The typed request, to change before the handler sees it.
    pub fn request_mut(&mut self) -> &mut ClientRequest {
        &mut self.request
    }

    /// The context the handler gets (`_meta`, the HTTP request, the client's
    /// capabilities).
    pub fn context(&self) -> &RequestContext {
        &self.context
    }

    /// The request and its context.
    pub fn into_parts(self) -> (ClientRequest, RequestContext) {
        (self.request, self.context)
    }
}

/// A layer's refusal as an error, for layers that fail through the
/// service's `Err` (`Err(Rejection(error).into())`) rather than answering
/// `Ok(Err(error))`.
#[derive(Debug, Clone)]
pub struct Rejection(pub ErrorObject);

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.0.message, self.0.code)
    }
}

impl std::error::Error for Rejection {}

/// The JSON-RPC error a stack's failure becomes: a [`Rejection`] as it is,
/// tower's timeout as [`codes::TIMED_OUT`](crate::errors::codes::TIMED_OUT),
/// its load shedding as [`codes::OVERLOADED`](crate::errors::codes::OVERLOADED),
/// anything else `-32603` with the error's text.
pub fn error_of(error: &BoxError) -> ErrorObject {
    if let Some(Rejection(refusal)) = error.downcast_ref::<Rejection>() {
        return refusal.clone();
    }
    if error.is::<tower::timeout::error::Elapsed>() {
        return errors::timed_out("The request did not finish in time");
    }
    if error.is::<tower::load_shed::error::Overloaded>() {
        return errors::overloaded("The server is at capacity; try again later");
    }
    errors::internal_error(format!("Middleware failed: {error}"))
}

/// `text` cut to at most `max` bytes at a character boundary, with `…`
/// after a cut: client-chosen text (a tool name, a URI, an id) put into
/// logs and telemetry.
pub(crate) fn clipped(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::clipped;

    #[test]
    fn clipping_keeps_short_text_and_cuts_at_a_character() {
        assert_eq!(clipped("add", 8), "add");
        assert_eq!(clipped("abcdefgh", 8), "abcdefgh");
        assert_eq!(clipped("abcdefghi", 8), "abcdefgh…");
        // "é" is two bytes: a cut inside it moves before it.
        assert_eq!(clipped("abcdefgé", 8), "abcdefg…");
    }
}
