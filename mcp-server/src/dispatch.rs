//! The transport-agnostic entry point: one parse, the envelope, era
//! selection (step 4), then the era's gate (`era::modern`, `era::legacy`).
//!
//! See [`handle_message`] for the order of the checks. Every check below
//! returns a `Result`; the answer is framed here, once.

use std::future::Future;
use std::sync::Arc;

use mcp_era_types::v2026_07_28::error_codes;
use mcp_era_types::versions::{Era, era_of};
use serde_json::{Value, json};
use tower::{Layer, Service};

use crate::era::legacy::legacy_request;
use crate::era::modern::{modern_request, typed_request};
use crate::features::tasks::Detach;
use crate::middleware::{BoxError, Handler, Layered, McpRequest, McpResponse, Redeclared};
use crate::model::context::{MessageContext, Transport};
use crate::model::declaration::ServerDeclaration;
use crate::model::outcome::Outcome;
use crate::model::server::McpServer;
use crate::wire::errors::{self, ErrorObject};
use crate::wire::message::{Envelope, Parsed, parse, read_envelope};
use crate::wire::reply::Reply;

/// The legacy `initialize` method.
pub const INITIALIZE: &str = mcp_era_types::v2025_11_25::methods::INITIALIZE;

/// Answers one raw JSON-RPC message (one stdio line or one HTTP POST body).
///
/// Returns the response to write (none for notifications) and the HTTP
/// status to use.
///
/// Checks run in the order the conformance suite forces on the Streamable
/// HTTP transport, skipping the HTTP-only steps on stdio:
///
/// 1. parse, else `-32700` (400);
/// 2. JSON-RPC envelope (object, `jsonrpc: "2.0"`, string `method`, string
///    or integer `id`; batch arrays rejected), else `-32600` (400);
/// 3. notification (no `id`): never answered (202);
/// 4. era selection, per message, keyed on `_meta` and the header, never on
///    the method name;
/// 5. HTTP only: `MCP-Protocol-Version` header present, else `-32020` (400);
/// 6. required `_meta` fields (`params`, `params._meta`, `protocolVersion`
///    string, `clientCapabilities` object), else `-32602` (400);
/// 7. HTTP only: header equals the `_meta` version, else `-32020` (400);
/// 8. version accepted, else `-32022` (400) with `data.supported` equal to
///    what `server/discover` advertises and `data.requested` verbatim;
/// 9. method known and its server capability declared, else `-32601` (404);
/// 10. params well-formed for the method, else `-32602` (400);
/// 11. the handler (its errors are passed through).
///
/// Every error echoes the request id exactly; it is left out only when the
/// id could not be read (parse errors, a malformed `id`, batches).
pub async fn handle_message<S: McpServer>(
    server: &S,
    message: &[u8],
    ctx: &MessageContext,
) -> Outcome {
    handle_parsed(server, None, parse(message), ctx).await
}

/// [`handle_message`] for a server held in an `Arc`, which lets a
/// `tools/call` outlive its request as a task (tasks extension); the
/// transports call this. Through [`handle_message`] a task-capable tool
/// runs synchronously.
pub async fn handle_message_shared<S: McpServer + 'static>(
    server: &Arc<S>,
    message: &[u8],
    ctx: &MessageContext,
) -> Outcome {
    handle_parsed(&**server, Some(server), parse(message), ctx).await
}

/// Answers one already-parsed JSON-RPC message. Same contract as
/// [`handle_message`], without the parse step.
pub async fn handle_value<S: McpServer>(
    server: &S,
    message: Value,
    ctx: &MessageContext,
) -> Outcome {
    value_request(server, None, message, ctx).await
}

async fn value_request<S: McpServer>(
    server: &S,
    detach: Option<&dyn Detach>,
    message: Value,
    ctx: &MessageContext,
) -> Outcome {
    let declaration = server.declaration();
    let envelope = match read_envelope(&message) {
        Ok(Some(envelope)) => envelope,
        Ok(None) => return Outcome::notification(),
        Err((id, error)) => return Outcome::error(id.as_ref(), error),
    };
    let id = &envelope.id;
    match select_era(&declaration, &envelope, ctx) {
        EraChoice::Legacy => {
            let answer = legacy_request(server, &declaration, &envelope, &message, ctx).await;
            let mut outcome = match answer {
                Ok(answer) => {
                    let mut outcome = Outcome::answer(id, Reply::from_value(&answer.result));
                    outcome.new_legacy_session = answer.new_session.map(Box::new);
                    outcome
                }
                Err(error) => Outcome::error(Some(id), error),
            };
            // 2025-11-25: a session's JSON-RPC answers are all HTTP 200.
            if ctx.legacy_session.is_some() {
                outcome.http_status = 200;
            }
            outcome
        }
        EraChoice::ModernOnlyInitialize(error) => Outcome::error(Some(id), error),
        EraChoice::Modern => Outcome::answer(
            id,
            modern_request(server, detach, &declaration, &envelope, &message, ctx).await,
        ),
    }
}

/// `detach` is the transport's owned handle on the server, for tasks.
pub(crate) async fn handle_parsed<S: McpServer>(
    server: &S,
    detach: Option<&dyn Detach>,
    parsed: Parsed,
    ctx: &MessageContext,
) -> Outcome {
    match parsed {
        // Both boxed: their state is large (kilobytes), and the future of
        // every request is moved into a task.
        Parsed::Modern(request) => {
            let (id, answer) = Box::pin(typed_request(server, detach, request, ctx)).await;
            Outcome::answer(&id, answer)
        }
        Parsed::Json(message) => Box::pin(value_request(server, detach, message, ctx)).await,
        Parsed::Invalid => Outcome::parse_error(),
    }
}

enum EraChoice {
    Modern,
    Legacy,
    ModernOnlyInitialize(ErrorObject),
}

/// Step 4: era selection. A request is modern when its `_meta` carries a
/// modern key (or is not an object at all), or when HTTP sends a header
/// that is not a legacy version. Otherwise it looks legacy: a dual-era
/// server handles it as legacy if it is `initialize`, belongs to a legacy
/// session, or carries a legacy header; anything else is checked as modern
/// (and so gets `-32602` for the missing `_meta`). A modern-only server
/// answers a legacy-looking `initialize` with an error naming its versions.
fn select_era(
    declaration: &ServerDeclaration,
    envelope: &Envelope<'_>,
    ctx: &MessageContext,
) -> EraChoice {
    let modern_meta = envelope.has_modern_meta();
    if modern_meta {
        return EraChoice::Modern;
    }
    let header = match &ctx.transport {
        Transport::Stdio => None,
        Transport::Http(headers) => Some(headers.protocol_version.as_deref()),
    };
    let legacy_header = matches!(header, Some(Some(v)) if era_of(v) == Some(Era::Legacy));
    let legacy_looking = matches!(header, None | Some(None)) || legacy_header;
    if !legacy_looking {
        return EraChoice::Modern;
    }
    let is_initialize = envelope.method == INITIALIZE;
    if declaration.is_dual_era() {
        if is_initialize || ctx.legacy_session.is_some() || legacy_header {
            return EraChoice::Legacy;
        }
        return EraChoice::Modern;
    }
    if !is_initialize {
        return EraChoice::Modern;
    }
    let supported = declaration.advertised_versions();
    let speaks = supported.join(", ");
    let data = json!({ "supported": supported });
    let mut error = if header == Some(None) {
        errors::header_mismatch(format!(
            "Missing MCP-Protocol-Version header; initialize is not supported, this server speaks MCP {speaks}"
        ))
    } else {
        ErrorObject::new(
            error_codes::METHOD_NOT_FOUND_ERROR,
            format!("initialize is not supported; this server speaks MCP {speaks}"),
        )
    };
    error.data = Some(data);
    EraChoice::ModernOnlyInitialize(error)
}

/// [`handle_message`] and [`handle_value`] as methods of every server:
/// `use mcp_era_server::McpServerExt;` then `server.handle_value(message, &ctx)`.
pub trait McpServerExt: McpServer {
    /// Answers one raw JSON-RPC message (bytes as read from the transport).
    /// See [`handle_message`].
    fn handle_message(
        &self,
        message: &[u8],
        ctx: &MessageContext,
    ) -> impl Future<Output = Outcome> + Send {
        handle_message(self, message, ctx)
    }

    /// Answers one already-parsed JSON-RPC message. See [`handle_value`].
    fn handle_value(
        &self,
        message: Value,
        ctx: &MessageContext,
    ) -> impl Future<Output = Outcome> + Send {
        handle_value(self, message, ctx)
    }

    /// This server with `layer` around its handlers: see
    /// [`middleware`](crate::middleware). Serve the result as the server
    /// itself; a second `.layer(..)` goes outside the first.
    fn layer<L>(self, layer: L) -> Layered<Self>
    where
        Self: 'static,
        L: Layer<Handler<Self>>,
        L::Service: Service<McpRequest, Response = McpResponse> + Clone + Send + Sync + 'static,
        <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
        <L::Service as Service<McpRequest>>::Future: Send + 'static,
    {
        Layered::new(self, layer)
    }

    /// This server answering as `declaration` says (other versions,
    /// identity or capabilities), with its handlers unchanged: see
    /// [`Redeclared`](crate::middleware::Redeclared). Start from
    /// `self.declaration().duplicate()` to keep the rest.
    fn redeclared(self, declaration: ServerDeclaration) -> Redeclared<Self> {
        Redeclared::new(self, declaration)
    }
}

impl<S: McpServer> McpServerExt for S {}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

    use std::sync::Mutex;
    use std::time::Duration;

    use mcp_era_types::v2026_07_28::{Implementation, ServerCapabilities, meta_keys};

    use super::*;
    use crate::model::context::Handoff;
    use crate::state::events::{ServerEvent, ServerEvents};

    struct Lists(Arc<ServerDeclaration>);

    impl McpServer for Lists {
        fn declaration(&self) -> Arc<ServerDeclaration> {
            Arc::clone(&self.0)
        }
    }

    #[tokio::test]
    async fn a_listen_handed_over_leaves_its_chain_once_acknowledged() {
        let capabilities: ServerCapabilities =
            serde_json::from_value(json!({"tools": {"listChanged": true}})).unwrap();
        let info = Implementation::builder().name("lists").version("1").build();
        let server = Lists(Arc::new(
            ServerDeclaration::new(info).with_capabilities(capabilities),
        ));
        let sent = Arc::new(Mutex::new(Vec::new()));
        let events = ServerEvents::new();
        let handoff = Arc::new(Handoff::default());
        let mut ctx = MessageContext::stdio().with_sink({
            let sent = Arc::clone(&sent);
            move |message| sent.lock().unwrap().push(message)
        });
        ctx.events = Some(events.clone());
        ctx.handoff = Some(Arc::clone(&handoff));
        let listen = json!({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": {
            "notifications": {"toolsListChanged": true, "promptsListChanged": true},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}
        }});
        let parsed = parse(listen.to_string().as_bytes());
        // Served in place, the chain would not end before the stream does.
        let chain = handle_parsed(&server, None, parsed, &ctx);
        tokio::time::timeout(Duration::from_secs(10), chain)
            .await
            .unwrap();
        drop(ctx);
        let ack = sent.lock().unwrap()[0].clone();
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        assert_eq!(
            ack["params"]["notifications"],
            json!({"toolsListChanged": true})
        );
        let rest = tokio::spawn(handoff.take().unwrap());
        events.tools_list_changed();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while sent.lock().unwrap().len() < 2 {
            assert!(tokio::time::Instant::now() < deadline, "no notification");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let changed = sent.lock().unwrap()[1].clone();
        assert_eq!(changed["method"], "notifications/tools/list_changed");
        assert_eq!(
            changed["params"]["_meta"][meta_keys::SUBSCRIPTION_ID],
            json!(7)
        );
        events.publish(ServerEvent::ShuttingDown);
        let answer = tokio::time::timeout(Duration::from_secs(10), rest)
            .await
            .unwrap()
            .unwrap()
            .json()
            .unwrap();
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["result"]["resultType"], "complete");
        assert_eq!(answer["result"]["_meta"][meta_keys::SUBSCRIPTION_ID], 7);
    }
}
