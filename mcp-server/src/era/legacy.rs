//! Legacy (2025-11-25 era) requests on a dual-era server: `initialize`,
//! `ping`, `logging/setLevel`, `resources/subscribe` / `unsubscribe`, and a
//! bridge that serves tools, resources, prompts and completion with the
//! same handlers as the modern era.
//!
//! The bridge gives the handler a [`RequestContext`] built from the
//! session (`protocolVersion` = the negotiated legacy version,
//! `clientCapabilities` = those sent to `initialize`, `progressToken` from
//! the request's `_meta`), then turns the modern result into its legacy
//! shape in one step, [`legacy_result`] (see there for every difference
//! between the two schemas it adapts), and a resource-not-found `-32602`
//! (with `data.uri`) on `resources/read` becomes `-32002`.
//!
//! An `input_required` result (MRTR) is fulfilled the 2025 way: each input
//! request is sent to the client as a real JSON-RPC request on the
//! request's stream (a URL-mode elicitation with the `elicitationId` the
//! 2025-11-25 schema requires), the answers are collected, and the handler is called
//! again with `inputResponses` and `requestState`, until it completes (at
//! most [`MAX_INPUT_ROUNDS`] rounds). A tool written once in MRTR style so
//! works in both eras.

use std::sync::Arc;

use mcp_era_types::v2025_11_25 as legacy;
use mcp_era_types::v2026_07_28::{
    ClientRequest, LoggingLevel, RequestMetaObject, SubscriptionFilter, methods,
};
use serde_json::{Map, Value, json};

use crate::era::modern::{check_method, is_capability_method};
use crate::model::context::{LegacySession, MessageContext, RequestContext};
use crate::model::declaration::ServerDeclaration;
use crate::model::server::McpServer;
use crate::state::sessions::SessionChange;
use crate::wire::errors::{self, ErrorObject, LEGACY_RESOURCE_NOT_FOUND};
use crate::wire::message::Envelope;

/// How many `input_required` rounds the legacy bridge fulfils for one
/// request before it gives up with `-32603`.
pub const MAX_INPUT_ROUNDS: usize = 16;

/// What a legacy request answers: its result, and the session a
/// successful `initialize` starts.
pub(crate) struct LegacyAnswer {
    pub(crate) result: Value,
    pub(crate) new_session: Option<LegacySession>,
}

impl From<Value> for LegacyAnswer {
    fn from(result: Value) -> Self {
        Self {
            result,
            new_session: None,
        }
    }
}

/// A legacy (2025-11-25 era) request on a dual-era server.
pub(crate) async fn legacy_request<S: McpServer>(
    server: &S,
    declaration: &Arc<ServerDeclaration>,
    envelope: &Envelope<'_>,
    message: &Value,
    ctx: &MessageContext,
) -> Result<LegacyAnswer, ErrorObject> {
    if envelope.method == legacy::methods::INITIALIZE {
        return initialize(declaration, envelope);
    }
    let Some(session) = &ctx.legacy_session else {
        return Err(errors::invalid_request(
            "No legacy session: send initialize first",
        ));
    };
    let caps = declaration.capabilities();
    match envelope.method {
        legacy::methods::PING => Ok(json!({}).into()),
        legacy::methods::LOGGING_SET_LEVEL => {
            if caps.logging.is_none() {
                return Err(errors::method_not_found(
                    "The server does not declare the logging capability",
                ));
            }
            let level = envelope
                .params
                .and_then(|p| p.get("level"))
                .cloned()
                .map(serde_json::from_value::<LoggingLevel>);
            let Some(Ok(level)) = level else {
                return Err(errors::invalid_params(
                    "logging/setLevel needs a valid level",
                ));
            };
            session.change(SessionChange::LogLevel(level)).await?;
            Ok(json!({}).into())
        }
        legacy::methods::RESOURCES_SUBSCRIBE | legacy::methods::RESOURCES_UNSUBSCRIBE => {
            if caps.resources.as_ref().and_then(|r| r.subscribe) != Some(true) {
                return Err(errors::method_not_found(
                    "The server does not support resource subscriptions",
                ));
            }
            let uri = envelope
                .params
                .and_then(|p| p.get("uri"))
                .and_then(Value::as_str)
                .ok_or_else(|| errors::invalid_params("Missing params.uri"))?;
            let subscribe = envelope.method == legacy::methods::RESOURCES_SUBSCRIBE;
            let change = if subscribe {
                SessionChange::Subscribe(uri.to_owned())
            } else {
                SessionChange::Unsubscribe(uri.to_owned())
            };
            let (_, request_ctx) = modern_form(declaration, envelope, message, session, ctx)?;
            session.change(change).await?;
            // What the server keeps for this subscription, while it lasts.
            let following = subscribe
                .then(|| {
                    let filter =
                        SubscriptionFilter::new().with_resource_subscriptions([uri.to_owned()]);
                    server.following(&filter, &request_ctx)
                })
                .flatten();
            session.follow(uri, following);
            Ok(json!({}).into())
        }
        method if is_capability_method(method) => {
            check_method(declaration, envelope.method, |_| false)?;
            match bridge(server, declaration, envelope, message, session, ctx).await {
                Ok(result) => Ok(legacy_result(envelope.method, result).into()),
                Err(error) => Err(legacy_error(envelope.method, error)),
            }
        }
        // A method the runtime does not know, that the server answers itself.
        other if server.serves_method(other) => {
            let (params, request_ctx) = modern_form(declaration, envelope, message, session, ctx)?;
            let result = server
                .handle_method(other, Some(Value::Object(params)), &request_ctx)
                .await?;
            Ok(legacy_result(other, result).into())
        }
        other => Err(errors::method_not_found(format!("Unknown method {other}"))),
    }
}

fn initialize(
    declaration: &ServerDeclaration,
    envelope: &Envelope<'_>,
) -> Result<LegacyAnswer, ErrorObject> {
    let params: legacy::InitializeRequestParams = match envelope.params {
        Some(params) => serde_json::from_value(params.clone())
            .map_err(|e| errors::invalid_params(format!("Invalid initialize params: {e}")))?,
        None => return Err(errors::invalid_params("Missing initialize params")),
    };
    let result = declaration
        .initialize_result(&params.protocol_version)
        .ok_or_else(|| errors::internal_error("This server serves no legacy version"))?;
    let session = LegacySession::new(
        result.protocol_version.clone(),
        serde_json::to_value(&params.capabilities).unwrap_or(Value::Null),
        serde_json::to_value(&params.client_info).unwrap_or(Value::Null),
    );
    let result = serde_json::to_value(result).map_err(|e| errors::internal_error(e.to_string()))?;
    Ok(LegacyAnswer {
        result,
        new_session: Some(session),
    })
}

/// A legacy request's params in their modern form (`_meta` with the
/// session's version, capabilities and `clientInfo`), and the context its
/// handler gets.
fn modern_form(
    declaration: &Arc<ServerDeclaration>,
    envelope: &Envelope<'_>,
    message: &Value,
    session: &LegacySession,
    ctx: &MessageContext,
) -> Result<(Map<String, Value>, RequestContext), ErrorObject> {
    let mut params = match message.get("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params.clone(),
        Some(_) => return Err(errors::invalid_params("params must be an object")),
    };
    let legacy_meta = match params.remove("_meta") {
        Some(Value::Object(meta)) => meta,
        _ => Map::new(),
    };
    let mut meta = legacy_meta;
    meta.insert(
        "io.modelcontextprotocol/protocolVersion".into(),
        json!(session.protocol_version),
    );
    let caps = match &session.client_capabilities {
        Value::Object(caps) => Value::Object(caps.clone()),
        _ => json!({}),
    };
    meta.insert("io.modelcontextprotocol/clientCapabilities".into(), caps);
    meta.remove("io.modelcontextprotocol/clientInfo");
    let mut request_meta: RequestMetaObject =
        serde_json::from_value(Value::Object(meta.clone()))
            .map_err(|e| errors::invalid_params(format!("Invalid params._meta: {e}")))?;
    // A session made by hand may hold any value: only a valid one is told.
    request_meta.client_info = serde_json::from_value(session.client_info.clone()).ok();
    if request_meta.client_info.is_some() {
        meta.insert(
            "io.modelcontextprotocol/clientInfo".into(),
            session.client_info.clone(),
        );
    }
    let meta_value = Value::Object(meta);
    params.insert("_meta".into(), meta_value);
    let request_ctx = RequestContext {
        id: envelope.id.clone(),
        meta: request_meta,
        legacy: Some(session.clone()),
        sink: ctx.sink.clone(),
        events: ctx.events.clone(),
        peer: ctx.peer.clone(),
        stream_closer: ctx.stream_closer.clone(),
        declaration: Some(declaration.clone()),
        server_info_in_results: false,
        http_request: ctx.http_request.clone(),
        remote_addr: ctx.remote_addr,
        task_eligible: false,
    };
    Ok((params, request_ctx))
}

/// Calls the modern handler for a legacy request, fulfilling
/// `input_required` rounds with real server→client requests.
async fn bridge<S: McpServer>(
    server: &S,
    declaration: &Arc<ServerDeclaration>,
    envelope: &Envelope<'_>,
    message: &Value,
    session: &LegacySession,
    ctx: &MessageContext,
) -> Result<Value, ErrorObject> {
    let (mut params, request_ctx) = modern_form(declaration, envelope, message, session, ctx)?;
    for _ in 0..MAX_INPUT_ROUNDS {
        let request_value = json!({
            "jsonrpc": "2.0",
            "id": message.get("id").cloned().unwrap_or(Value::Null),
            "method": envelope.method,
            "params": Value::Object(params.clone()),
        });
        let request: ClientRequest = serde_json::from_value(request_value).map_err(|e| {
            errors::invalid_params(format!("Invalid params for {}: {e}", envelope.method))
        })?;
        let result = server
            .dispatch_capability(request, &request_ctx)
            .await?
            .to_value()?;
        if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
            return Ok(result);
        }
        let responses = fulfil(&result, session, &request_ctx, ctx).await?;
        params.insert("inputResponses".into(), Value::Object(responses));
        // The state never left the server: renewed, however long the
        // client took to answer.
        match result.get("requestState") {
            Some(Value::String(state)) => params.insert(
                "requestState".into(),
                Value::String(declaration.request_state().renew(state.clone())),
            ),
            Some(state) => params.insert("requestState".into(), state.clone()),
            None => params.remove("requestState"),
        };
    }
    Err(errors::internal_error(format!(
        "The request still needed input after {MAX_INPUT_ROUNDS} rounds"
    )))
}

/// Sends each input request of an `input_required` result to the client
/// and collects the answers by key.
async fn fulfil(
    result: &Value,
    session: &LegacySession,
    request_ctx: &RequestContext,
    ctx: &MessageContext,
) -> Result<Map<String, Value>, ErrorObject> {
    let (Some(sink), Some(peer)) = (request_ctx.sink(), &ctx.peer) else {
        return Err(errors::internal_error(
            "This transport cannot send requests to the client",
        ));
    };
    let mut responses = Map::new();
    let Some(requests) = result.get("inputRequests").and_then(Value::as_object) else {
        return Ok(responses);
    };
    for (key, request) in requests {
        let method = request
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let capability = match method {
            methods::SAMPLING_CREATE_MESSAGE => "sampling",
            methods::ELICITATION_CREATE => "elicitation",
            methods::ROOTS_LIST => "roots",
            other => {
                return Err(errors::internal_error(format!(
                    "Unknown input request method {other}"
                )));
            }
        };
        if session.client_capabilities.get(capability).is_none() {
            return Err(errors::missing_client_capability(json!({ capability: {} })));
        }
        let mut params = request.get("params").cloned().unwrap_or_else(|| json!({}));
        legacy_input_request(method, &mut params)?;
        let answer = peer.request(sink, method, params).await?;
        responses.insert(key.clone(), answer);
    }
    Ok(responses)
}

/// The 2025-11-25 shape of a modern input request's `params`: a URL-mode
/// elicitation needs the `elicitationId` that 2026-07-28 dropped (random,
/// as the client echoes it in `notifications/elicitation/complete`).
fn legacy_input_request(method: &str, params: &mut Value) -> Result<(), ErrorObject> {
    if method != methods::ELICITATION_CREATE
        || params.get("mode").and_then(Value::as_str) != Some("url")
        || params.get("elicitationId").is_some()
    {
        return Ok(());
    }
    let id = crate::wire::random_id::random_id()
        .map_err(|e| errors::internal_error(format!("no randomness for an elicitationId: {e}")))?;
    if let Value::Object(params) = params {
        params.insert("elicitationId".into(), Value::String(id));
    }
    Ok(())
}

/// The 2025-11-25 shape of the modern result of `method`. Where the two
/// schemas differ in what a result may hold:
///
/// * every result: `resultType` (modern only) is removed, and so are the
///   caching hints `ttlMs` / `cacheScope` and the `_meta` serverInfo;
/// * `tools/list`: a legacy `outputSchema` must be `"type": "object"`, so
///   any other one is left out; in `inputSchema` and `outputSchema` each
///   `properties` entry must be an object, so a boolean schema becomes its
///   object form (`true` → `{}`, `false` → `{"not": {}}`);
/// * `tools/call`: a legacy `structuredContent` must be an object, so any
///   other value is left out.
///
/// Non-object structured output is left out, not wrapped as
/// `{"result": …}`: the text block [`Json`](crate::Json) writes already
/// holds the same JSON (the legacy spec's fallback), while a wrapper would
/// give legacy clients a shape the text block and the declared schema do
/// not have (and break the schema's `$ref`s). Clients check
/// `structuredContent` only against an `outputSchema`, which goes with it.
///
/// The other differences are looser in 2025-11-25 (untyped `_meta`,
/// completion `values` without `maxItems`) or absent from results
/// (`Tool.execution` is optional; legacy sessions get no tasks).
pub fn legacy_result(method: &str, mut result: Value) -> Value {
    let Value::Object(object) = &mut result else {
        return result;
    };
    object.remove("resultType");
    object.remove("ttlMs");
    object.remove("cacheScope");
    if let Some(Value::Object(meta)) = object.get_mut("_meta") {
        meta.remove("io.modelcontextprotocol/serverInfo");
        if meta.is_empty() {
            object.remove("_meta");
        }
    }
    match method {
        methods::TOOLS_LIST => {
            if let Some(Value::Array(tools)) = object.get_mut("tools") {
                tools.iter_mut().for_each(legacy_tool);
            }
        }
        methods::TOOLS_CALL
            if object
                .get("structuredContent")
                .is_some_and(|c| !c.is_object()) =>
        {
            object.remove("structuredContent");
        }
        _ => {}
    }
    result
}

/// One `tools/list` entry in its legacy shape (see [`legacy_result`]).
fn legacy_tool(tool: &mut Value) {
    let Value::Object(tool) = tool else { return };
    if tool
        .get("outputSchema")
        .is_some_and(|schema| schema.get("type") != Some(&json!("object")))
    {
        tool.remove("outputSchema");
    }
    for key in ["inputSchema", "outputSchema"] {
        if let Some(Value::Object(properties)) = tool
            .get_mut(key)
            .and_then(|schema| schema.get_mut("properties"))
        {
            for property in properties.values_mut() {
                match property {
                    Value::Bool(true) => *property = json!({}),
                    Value::Bool(false) => *property = json!({ "not": {} }),
                    _ => {}
                }
            }
        }
    }
}

/// The legacy form of a handler error: resource-not-found is `-32002`.
fn legacy_error(method: &str, mut error: ErrorObject) -> ErrorObject {
    let has_uri = error.data.as_ref().and_then(|d| d.get("uri")).is_some();
    if method == methods::RESOURCES_READ
        && error.code == mcp_era_types::v2026_07_28::error_codes::INVALID_PARAMS_ERROR
        && has_uri
    {
        error.code = LEGACY_RESOURCE_NOT_FOUND;
    }
    error
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

    use super::*;

    #[test]
    fn a_url_elicitation_gets_the_elicitation_id_2025_11_25_requires() {
        let mut url = json!({"mode": "url", "message": "Sign in", "url": "https://example.com/a"});
        legacy_input_request(methods::ELICITATION_CREATE, &mut url).unwrap();
        let id = url["elicitationId"].as_str().unwrap();
        assert_eq!(id.len(), 32);
        let mut again = url.clone();
        legacy_input_request(methods::ELICITATION_CREATE, &mut again).unwrap();
        assert_eq!(again, url, "an id already there is kept");
        for (method, params) in [
            (
                methods::ELICITATION_CREATE,
                json!({"message": "Name?", "requestedSchema": {}}),
            ),
            (methods::SAMPLING_CREATE_MESSAGE, json!({"mode": "url"})),
        ] {
            let mut adapted = params.clone();
            legacy_input_request(method, &mut adapted).unwrap();
            assert_eq!(adapted, params, "{method}");
        }
    }
}
