//! The modern (2026-07-28) gate, steps 5–11 of the checks: the version
//! header, `_meta`, the version, the method and its capability, the
//! routing headers, then the handler. Checks return `Result` and the
//! dispatcher frames the error once.

use std::sync::Arc;

use mcp_era_types::v2026_07_28::{
    ClientRequest, RequestId, RequestMetaObject, SubscriptionsListenRequestParams, meta_keys,
    methods,
};
use serde::Deserialize as _;
use serde_json::{Value, json};

use crate::model::context::{HttpHeaders, MessageContext, RequestContext, Transport};
use crate::model::declaration::ServerDeclaration;
use crate::model::extensions::{MethodCall, MethodHook};
use crate::model::outcome::Outcome;
use crate::model::server::{Detach, McpServer};
use crate::wire::errors::{self, ErrorObject, HandlerResult};
use crate::wire::message::{Call, Envelope, request_parts};
use crate::wire::reply::Reply;

/// Methods of 2025-11-25 that 2026-07-28 removed; with modern `_meta` they
/// answer `-32601` and never get legacy handling. (`tasks/get` and
/// `tasks/cancel` come back, with new shapes, when the server declares the
/// tasks extension; `tasks/result` and `tasks/list` never do.)
pub const REMOVED_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
];

/// Steps 5 and 7–11 for a request read straight into its typed form; the
/// request's id comes back with the answer, for the framing.
pub(crate) async fn typed_request<S: McpServer>(
    server: &S,
    detach: Option<&dyn Detach>,
    request: Box<ClientRequest>,
    ctx: &MessageContext,
) -> (RequestId, HandlerResult<Reply>) {
    let declaration = server.declaration();
    let parts = request_parts(&request);
    let checked = match header_present(ctx) {
        Ok(header) => {
            checks_after_meta(server, &declaration, ctx, header, parts.meta, &parts.call).await
        }
        Err(error) => Err(error),
    };
    if let Err(error) = checked {
        return (parts.id.clone(), Err(error));
    }
    // Pre-rendered: no handler, so no request context either.
    if let ClientRequest::DiscoverRequest(discover) = &*request {
        let reply = declaration.discover_reply().clone();
        return (discover.id.clone(), Ok(reply));
    }
    let request_ctx = request_context(&declaration, parts.id.clone(), parts.meta.clone(), ctx);
    let method = request.method();
    let answer = run_modern(
        server,
        detach,
        &declaration,
        method,
        request,
        &request_ctx,
        ctx,
    )
    .await;
    // The id moves out of the context: no second copy per request.
    (request_ctx.id, answer)
}

/// Step 5 (HTTP): the `MCP-Protocol-Version` header, which must be present.
fn header_present(ctx: &MessageContext) -> Result<Option<&str>, ErrorObject> {
    match &ctx.transport {
        Transport::Stdio => Ok(None),
        Transport::Http(headers) => match headers.protocol_version.as_deref() {
            Some(version) => Ok(Some(version)),
            None => Err(errors::header_mismatch(
                "Missing MCP-Protocol-Version header",
            )),
        },
    }
}

/// Steps 7–10, once `_meta` is known to be well formed.
async fn checks_after_meta<S: McpServer>(
    server: &S,
    declaration: &ServerDeclaration,
    ctx: &MessageContext,
    header: Option<&str>,
    meta: &RequestMetaObject,
    call: &Call<'_>,
) -> Result<(), ErrorObject> {
    if let Some(header) = header
        && header != meta.protocol_version
    {
        return Err(errors::header_mismatch(
            "MCP-Protocol-Version header does not match the _meta protocol version",
        ));
    }
    if !declaration.accepts(&meta.protocol_version) {
        return Err(errors::unsupported_protocol_version(
            declaration.advertised_versions(),
            &meta.protocol_version,
        ));
    }
    let headers = match &ctx.transport {
        Transport::Stdio => None,
        Transport::Http(headers) => Some(headers),
    };
    if let Some(headers) = headers {
        check_routing_headers(headers, call)?;
    }
    check_method(declaration, call.method, |method| {
        server.serves_method(method)
    })?;
    if let Some(headers) = headers
        && headers.method.is_some()
        && call.method == methods::TOOLS_CALL
    {
        crate::era::param_headers::check(server, headers, call.name, call.arguments, meta).await?;
    }
    Ok(())
}

/// Steps 5–11 for a modern request that took the step-by-step path.
pub(crate) async fn modern_request<S: McpServer>(
    server: &S,
    detach: Option<&dyn Detach>,
    declaration: &Arc<ServerDeclaration>,
    envelope: &Envelope<'_>,
    message: &Value,
    ctx: &MessageContext,
) -> HandlerResult<Reply> {
    let id = &envelope.id;
    let header = header_present(ctx)?;
    let meta = read_request_meta(envelope.params)?;
    let call = envelope.call();
    checks_after_meta(server, declaration, ctx, header, &meta, &call).await?;
    if !is_known_method(envelope.method) {
        // An extension's method (no generated request type), unless the
        // server claims it (a proxy); `check_method` let it through.
        if let Some(hook) = crate::era::extensions::of(declaration).method(envelope.method)
            && !server.serves_method(envelope.method)
        {
            return match hook {
                MethodHook::Now(answer) => finished_reply(
                    declaration,
                    envelope.method,
                    answer(declaration, envelope.method, envelope.params)?,
                    ctx.server_info_in_results,
                ),
                MethodHook::Later(answer) => {
                    answer(MethodCall {
                        declaration,
                        detach,
                        id,
                        method: envelope.method,
                        params: envelope.params,
                        meta: &meta,
                        ctx,
                    })
                    .await
                }
            };
        }
        // The server answers it itself.
        let request_ctx = request_context(declaration, id.clone(), meta, ctx);
        let params = envelope.params.cloned();
        let result = server
            .handle_method(envelope.method, params, &request_ctx)
            .await?;
        return finished_reply(
            declaration,
            envelope.method,
            result,
            ctx.server_info_in_results,
        );
    }
    let request = ClientRequest::from_json(message).map_err(|e| {
        errors::invalid_params(format!("Invalid params for {}: {e}", envelope.method))
    })?;
    let request_ctx = request_context(declaration, id.clone(), meta, ctx);
    run_modern(
        server,
        detach,
        declaration,
        envelope.method,
        Box::new(request),
        &request_ctx,
        ctx,
    )
    .await
}

/// `subscriptions/listen`, opened here, then served here or, when the
/// transport takes it, handed over: the stream then outlives this request's
/// context and the handlers' futures, which hold far more than it needs.
async fn serve_listen<S: McpServer>(
    server: &S,
    declaration: &Arc<ServerDeclaration>,
    params: SubscriptionsListenRequestParams,
    request_ctx: &RequestContext,
    ctx: &MessageContext,
) -> HandlerResult<Reply> {
    let listening = crate::features::listen::open(declaration, params, request_ctx, |filter| {
        server.following(filter, request_ctx)
    })
    .await?;
    let server_info = ctx.server_info_in_results;
    let Some(handoff) = &ctx.handoff else {
        let result = listening.run().await;
        return finished_reply(
            declaration,
            methods::SUBSCRIPTIONS_LISTEN,
            result,
            server_info,
        );
    };
    let declaration = Arc::clone(declaration);
    let id = request_ctx.id.clone();
    handoff.put(Box::pin(async move {
        let result = listening.run().await;
        let answer = finished_reply(
            &declaration,
            methods::SUBSCRIPTIONS_LISTEN,
            result,
            server_info,
        );
        Outcome::answer(&id, answer)
    }));
    // Never sent: the transport answers with the stream's own outcome.
    Ok(Reply::from_rendered(b"{}".to_vec()))
}

/// The context a modern request's handler gets.
#[inline(always)]
fn request_context(
    declaration: &Arc<ServerDeclaration>,
    id: RequestId,
    meta: RequestMetaObject,
    ctx: &MessageContext,
) -> RequestContext {
    RequestContext {
        id,
        meta,
        legacy: None,
        sink: ctx.sink.clone(),
        events: ctx.events.clone(),
        peer: None,
        stream_closer: None,
        declaration: Some(declaration.clone()),
        server_info_in_results: ctx.server_info_in_results,
        http_request: ctx.http_request.clone(),
        remote_addr: ctx.remote_addr,
        task_eligible: false,
    }
}

/// Step 11: the handler and its reply (framed by the dispatcher). The
/// request stays boxed and the context borrowed, so that this future, which every request
/// moves, stays small.
async fn run_modern<S: McpServer>(
    server: &S,
    detach: Option<&dyn Detach>,
    declaration: &Arc<ServerDeclaration>,
    method: &str,
    request: Box<ClientRequest>,
    request_ctx: &RequestContext,
    ctx: &MessageContext,
) -> HandlerResult<Reply> {
    // The extensions' hooks, each looked up only for the request it
    // applies to: an empty table costs one length check.
    match &*request {
        ClientRequest::CallToolRequest(call) => {
            for hook in crate::era::extensions::of(declaration).tool_call() {
                if let Some(detach) = (hook.route)(server, detach, call, request_ctx)? {
                    return (hook.run)(detach, declaration, request, request_ctx).await;
                }
            }
        }
        ClientRequest::ReadResourceRequest(read) => {
            for hook in crate::era::extensions::of(declaration).read_resource() {
                if let Some(result) = (*hook)(server, declaration, &read.params.uri) {
                    return finished_reply(
                        declaration,
                        method,
                        result?,
                        ctx.server_info_in_results,
                    );
                }
            }
        }
        _ => {}
    }
    match *request {
        ClientRequest::DiscoverRequest(_) => Ok(declaration.discover_reply().clone()),
        ClientRequest::SubscriptionsListenRequest(listen) => {
            Box::pin(serve_listen(
                server,
                declaration,
                listen.params,
                request_ctx,
                ctx,
            ))
            .await
        }
        // Extensions add entries to the first page.
        ClientRequest::ListResourcesRequest(list)
            if list.params.cursor.is_none()
                && !crate::era::extensions::of(declaration)
                    .first_list_page()
                    .is_empty() =>
        {
            let added: Vec<Value> = crate::era::extensions::of(declaration)
                .first_list_page()
                .iter()
                .flat_map(|hook| (*hook)(declaration))
                .collect();
            let reply = server
                .dispatch_capability(ClientRequest::ListResourcesRequest(list), request_ctx)
                .await?;
            if added.is_empty() {
                return Ok(reply);
            }
            let mut result = reply.to_value()?;
            if let Some(Value::Array(resources)) = result.get_mut("resources") {
                resources.extend(added);
            }
            Reply::from_value(&result)
        }
        request => server.dispatch_capability(request, request_ctx).await,
    }
}

/// The six methods whose complete results carry caching hints.
pub const CACHEABLE_METHODS: &[&str] = &[
    methods::SERVER_DISCOVER,
    methods::TOOLS_LIST,
    methods::PROMPTS_LIST,
    methods::RESOURCES_LIST,
    methods::RESOURCES_TEMPLATES_LIST,
    methods::RESOURCES_READ,
];

/// A result built as JSON here (listen, extension methods): finished like a
/// handler's, with `_meta`'s server identity when the transport wants it.
fn finished_reply(
    declaration: &ServerDeclaration,
    method: &str,
    result: Value,
    server_info: bool,
) -> HandlerResult<Reply> {
    let result = finish_modern_result(declaration, method, result);
    let result = if server_info {
        declaration.with_server_info(result)
    } else {
        result
    };
    Reply::from_value(&result)
}

/// Every modern result carries `resultType` (`"complete"` unless the
/// handler said otherwise); complete results of the six cacheable methods
/// carry `ttlMs` and `cacheScope`, taken from the declaration
/// (`#[mcp(cache(...))]`, or `discover(...)` for discover) when the handler
/// left them out. Typed results already have them;
/// this covers results built as raw JSON.
fn finish_modern_result(declaration: &ServerDeclaration, method: &str, mut result: Value) -> Value {
    if let Value::Object(object) = &mut result {
        let complete = match object.get("resultType") {
            None => {
                object.insert("resultType".into(), json!("complete"));
                true
            }
            Some(kind) => kind == "complete",
        };
        if complete && CACHEABLE_METHODS.contains(&method) {
            let (ttl, scope) = if method == methods::SERVER_DISCOVER {
                (
                    declaration.discover_ttl_ms(),
                    declaration.discover_cache_scope(),
                )
            } else {
                (declaration.cache_ttl_ms(), declaration.cache_scope())
            };
            if !object.contains_key("ttlMs") {
                object.insert("ttlMs".into(), json!(ttl));
            }
            if !object.contains_key("cacheScope") {
                object.insert("cacheScope".into(), json!(scope));
            }
        }
    }
    result
}

/// Step 10 (HTTP): `Mcp-Method` equals the body's method; `Mcp-Name`
/// equals `params.name` (`tools/call`, `prompts/get`) or `params.uri`
/// (`resources/read`), after decoding the `=?base64?…?=` sentinel.
/// Skipped when the transport did not report the method header at all
/// ([`MessageContext::http`]).
fn check_routing_headers(headers: &HttpHeaders, call: &Call<'_>) -> Result<(), ErrorObject> {
    let Some(method_header) = &headers.method else {
        return Ok(());
    };
    match method_header.as_deref() {
        None => return Err(errors::header_mismatch("Missing Mcp-Method header")),
        Some(value) if value != call.method => {
            return Err(errors::header_mismatch(format!(
                "Mcp-Method header {value:?} does not match the method {:?}",
                call.method
            )));
        }
        Some(_) => {}
    }
    let Some(name_key) = mcp_era_types::headers::name_source(call.method) else {
        return Ok(());
    };
    let Some(body_name) = call.name else {
        // The params check reports the missing field.
        return Ok(());
    };
    let Some(raw) = headers.name.as_deref() else {
        return Err(errors::header_mismatch("Missing Mcp-Name header"));
    };
    let decoded = mcp_era_types::headers::decode_value(raw)
        .map_err(|reason| errors::header_mismatch(format!("Invalid Mcp-Name header: {reason}")))?;
    if decoded != body_name {
        return Err(errors::header_mismatch(format!(
            "Mcp-Name header does not match params.{name_key}"
        )));
    }
    Ok(())
}

/// Step 6: the required `_meta` fields, then the whole `RequestMetaObject`.
fn read_request_meta(params: Option<&Value>) -> Result<RequestMetaObject, ErrorObject> {
    let invalid = |reason: String| errors::invalid_params(reason);
    let params = match params {
        None => {
            return Err(invalid(
                "Missing params: every request carries params._meta".into(),
            ));
        }
        Some(Value::Object(params)) => params,
        Some(_) => return Err(invalid("params must be an object".into())),
    };
    let (meta_value, meta) = match params.get("_meta") {
        None => return Err(invalid("Missing params._meta".into())),
        Some(value @ Value::Object(meta)) => (value, meta),
        Some(_) => return Err(invalid("params._meta must be an object".into())),
    };
    match meta.get(meta_keys::PROTOCOL_VERSION) {
        None => {
            return Err(invalid(format!(
                "Missing _meta[\"{}\"]",
                meta_keys::PROTOCOL_VERSION
            )));
        }
        Some(Value::String(_)) => {}
        Some(_) => {
            return Err(invalid(format!(
                "_meta[\"{}\"] must be a string",
                meta_keys::PROTOCOL_VERSION
            )));
        }
    }
    match meta.get(meta_keys::CLIENT_CAPABILITIES) {
        None => {
            return Err(invalid(format!(
                "Missing _meta[\"{}\"]",
                meta_keys::CLIENT_CAPABILITIES
            )));
        }
        Some(Value::Object(_)) => {}
        Some(_) => {
            return Err(invalid(format!(
                "_meta[\"{}\"] must be an object",
                meta_keys::CLIENT_CAPABILITIES
            )));
        }
    }
    RequestMetaObject::deserialize(meta_value)
        .map_err(|e| invalid(format!("Invalid params._meta: {e}")))
}

/// Whether `method` is a request of a server capability (tools, resources,
/// prompts, completions): the methods both eras route to the handlers.
pub(crate) fn is_capability_method(method: &str) -> bool {
    matches!(
        method,
        methods::TOOLS_LIST
            | methods::TOOLS_CALL
            | methods::RESOURCES_LIST
            | methods::RESOURCES_READ
            | methods::RESOURCES_TEMPLATES_LIST
            | methods::PROMPTS_LIST
            | methods::PROMPTS_GET
            | methods::COMPLETION_COMPLETE
    )
}

/// Whether `method` is one of the core methods with a typed request.
fn is_known_method(method: &str) -> bool {
    method == methods::SERVER_DISCOVER
        || method == methods::SUBSCRIPTIONS_LISTEN
        || is_capability_method(method)
}

/// Step 9: the method is a modern client request and its server capability
/// is declared.
pub(crate) fn check_method(
    declaration: &ServerDeclaration,
    method: &str,
    served_by_hand: impl FnOnce(&str) -> bool,
) -> Result<(), ErrorObject> {
    let caps = declaration.capabilities();
    let (capability, declared) = match method {
        methods::SERVER_DISCOVER => return Ok(()),
        methods::TOOLS_LIST | methods::TOOLS_CALL => ("tools", caps.tools.is_some()),
        methods::RESOURCES_LIST | methods::RESOURCES_READ | methods::RESOURCES_TEMPLATES_LIST => {
            ("resources", caps.resources.is_some())
        }
        methods::PROMPTS_LIST | methods::PROMPTS_GET => ("prompts", caps.prompts.is_some()),
        methods::COMPLETION_COMPLETE => ("completions", caps.completions.is_some()),
        methods::SUBSCRIPTIONS_LISTEN => return Ok(()),
        // A method a declared extension registered and enabled.
        extension
            if crate::era::extensions::of(declaration)
                .method(extension)
                .is_some() =>
        {
            return Ok(());
        }
        removed if REMOVED_METHODS.contains(&removed) => {
            return Err(errors::method_not_found(format!(
                "{removed} was removed in MCP 2026-07-28"
            )));
        }
        // A method the runtime does not know, that the server answers itself.
        unknown if served_by_hand(unknown) => return Ok(()),
        unknown => {
            return Err(errors::method_not_found(format!(
                "Unknown method {unknown}"
            )));
        }
    };
    if declared {
        Ok(())
    } else {
        Err(errors::method_not_found(format!(
            "The server does not declare the {capability} capability"
        )))
    }
}
