//! The per-request context handlers receive: the request's `_meta`, and how
//! a handler talks back while it runs (progress, logs, server→client
//! requests, its SSE stream), and the era it belongs to.

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use mcp_era_types::v2026_07_28::{
    ClientCapabilities, Implementation, LoggingLevel, ProgressToken, RequestId, RequestMetaObject,
    methods,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::caller::principal_in;
use super::legacy::LegacySession;
use crate::model::peer::{ClientPeer, Sink};

use crate::state::events::ServerEvents;
use crate::wire::errors::{self, HandlerResult};
/// Closes a request's SSE connection, the client told to come back after
/// the given time.
pub(crate) type StreamCloser = Arc<dyn Fn(Duration) + Send + Sync>;

/// What a handler learns about the request it serves, and how it talks
/// back while it runs: notifications tied to the request (progress,
/// logging), capability checks, server-wide events.
#[derive(Clone)]
pub struct RequestContext {
    /// The request id, exactly as sent.
    pub id: RequestId,
    /// The request's validated `params._meta`. In a legacy session the
    /// runtime builds it from the session: `protocolVersion` is the
    /// negotiated legacy version and `clientCapabilities` the ones sent to
    /// `initialize`.
    pub meta: RequestMetaObject,
    pub(crate) legacy: Option<LegacySession>,
    pub(crate) sink: Option<Sink>,
    pub(crate) events: Option<ServerEvents>,
    pub(crate) peer: Option<ClientPeer>,
    pub(crate) stream_closer: Option<StreamCloser>,
    pub(crate) declaration: Option<std::sync::Arc<crate::model::declaration::ServerDeclaration>>,
    /// Whether results get `_meta["io.modelcontextprotocol/serverInfo"]`.
    pub(crate) server_info_in_results: bool,
    pub(crate) http_request: Option<Arc<http::request::Parts>>,
    pub(crate) remote_addr: Option<std::net::SocketAddr>,
    /// Whether this call may still become a task (tasks extension).
    pub(crate) task_eligible: bool,
}

impl fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestContext")
            .field("id", &self.id)
            .field("meta", &self.meta)
            .field("legacy", &self.legacy.is_some())
            .finish_non_exhaustive()
    }
}

impl RequestContext {
    /// A context for calling handlers directly (tests, benchmarks): no
    /// notification sink, no events, modern era.
    pub fn new(id: RequestId, meta: RequestMetaObject) -> Self {
        Self {
            id,
            meta,
            legacy: None,
            sink: None,
            events: None,
            peer: None,
            stream_closer: None,
            declaration: None,
            server_info_in_results: false,
            http_request: None,
            remote_addr: None,
            task_eligible: false,
        }
    }

    /// The HTTP request this MCP request came in: method, URI, headers,
    /// and the extensions middleware set (authentication claims, a tenant).
    /// `None` on stdio and for contexts built with [`RequestContext::new`].
    pub fn http_request(&self) -> Option<&http::request::Parts> {
        self.http_request.as_deref()
    }

    /// The address the HTTP request came from: the connection's peer with
    /// our listener; with a mounted `McpService`, the [`PeerAddr`](crate::http::PeerAddr) the
    /// application put among the request's extensions. `None` on stdio.
    pub fn remote_addr(&self) -> Option<std::net::SocketAddr> {
        self.remote_addr
    }

    /// Who sent the request (see [`Principal`]).
    pub(crate) fn principal(&self) -> Option<&str> {
        principal_in(&self.http_request.as_deref()?.extensions)
    }

    /// Whether this call may become a task (or already runs as one): the
    /// tool allows it and both the server and this request declared the
    /// tasks extension. See [`crate::features::tasks`].
    pub fn may_become_task(&self) -> bool {
        self.task_eligible
    }

    /// Lets a call that may become a task become one now: it answers the
    /// client with a `CreateTaskResult` and goes on in the background (a
    /// call also becomes a task when its handler first waits). Elsewhere
    /// it returns at once and changes nothing.
    pub fn continue_as_task(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        YieldOnce(!self.task_eligible)
    }

    /// `result` as the answer to this request, rendered as the runtime
    /// renders a handler's: with `_meta["io.modelcontextprotocol/serverInfo"]`
    /// when the transport carries it and the result has none. For servers
    /// that implement [`McpServer::dispatch_capability`](crate::McpServer::dispatch_capability)
    /// by hand.
    pub fn reply<T: crate::wire::reply::ResultMeta>(
        &self,
        result: T,
    ) -> crate::wire::errors::HandlerResult<crate::wire::reply::Reply> {
        crate::wire::reply::render(result, self.result_server_info())
    }

    /// Which declaration's identity this request's results carry, if any:
    /// rendered pages are kept apart by it.
    pub(crate) fn result_server_info_key(&self) -> Option<u64> {
        self.declaration
            .as_deref()
            .filter(|_| self.server_info_in_results)
            .map(crate::model::declaration::ServerDeclaration::id)
    }

    /// The identity to put in this request's result, if any.
    pub(crate) fn result_server_info(&self) -> Option<crate::wire::reply::ServerInfo<'_>> {
        let declaration = self
            .declaration
            .as_deref()
            .filter(|_| self.server_info_in_results)?;
        Some(crate::wire::reply::ServerInfo {
            typed: declaration.server_info(),
            rendered: declaration.server_info_bytes(),
        })
    }

    /// The declared default `ttlMs` for list and read results
    /// (`#[mcp(cache(ttl_ms = ...))]`, else
    /// [`DEFAULT_CACHE_TTL_MS`](crate::DEFAULT_CACHE_TTL_MS)); the typed
    /// constructors take both hints at once from
    /// [`cache_hints`](Self::cache_hints). A handler overrides them per
    /// result by passing other values.
    pub fn cache_ttl_ms(&self) -> u64 {
        self.declaration
            .as_deref()
            .map_or(crate::model::declaration::DEFAULT_CACHE_TTL_MS, |d| {
                d.cache_ttl_ms()
            })
    }

    /// The declared default cache hints for list and read results
    /// (`#[mcp(cache(...))]`), for the typed constructors:
    /// `ListToolsResult::new(tools, ctx.cache_hints())`.
    pub fn cache_hints(&self) -> mcp_era_types::v2026_07_28::CacheHints {
        mcp_era_types::v2026_07_28::CacheHints::new(self.cache_ttl_ms(), self.cache_scope())
    }

    /// The declared default `cacheScope` for list and read results
    /// (`#[mcp(cache(scope = ...))]`, else
    /// [`DEFAULT_CACHE_SCOPE`](crate::DEFAULT_CACHE_SCOPE)).
    pub fn cache_scope(&self) -> mcp_era_types::v2026_07_28::CacheScope {
        self.declaration
            .as_deref()
            .map_or(crate::model::declaration::DEFAULT_CACHE_SCOPE, |d| {
                d.cache_scope()
            })
    }

    /// The protocol version of this request (one of the accepted versions,
    /// or the negotiated legacy version in a legacy session).
    pub fn protocol_version(&self) -> &str {
        &self.meta.protocol_version
    }

    /// The era this request belongs to: [`Era::Legacy`] in a legacy
    /// (2025-11-25 era) session, else [`Era::Modern`].
    pub fn era(&self) -> Era {
        if self.is_legacy() {
            Era::Legacy
        } else {
            Era::Modern
        }
    }

    /// Whether this request belongs to a legacy (2025-11-25 era) session.
    pub fn is_legacy(&self) -> bool {
        self.legacy.is_some()
    }

    /// The legacy session this request belongs to, if any.
    pub fn legacy_session(&self) -> Option<&LegacySession> {
        self.legacy.as_ref()
    }

    /// The client capabilities declared by this request. A server MUST NOT
    /// rely on a capability this request did not declare.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.meta.client_capabilities
    }

    /// Whether this request declared the client capability `name`
    /// (`"sampling"`, `"elicitation"`, `"roots"`, …).
    pub fn has_client_capability(&self, name: &str) -> bool {
        match serde_json::to_value(&self.meta.client_capabilities) {
            Ok(Value::Object(caps)) => matches!(caps.get(name), Some(v) if !v.is_null()),
            _ => false,
        }
    }

    /// `Ok` if this request declared the client capability `name`, else the
    /// `-32021` error to return (`data.requiredCapabilities` is
    /// `{"<name>": {}}`; HTTP 400):
    ///
    /// ```ignore
    /// ctx.require_client_capability("sampling")?;
    /// ```
    pub fn require_client_capability(&self, name: &str) -> HandlerResult<()> {
        if self.has_client_capability(name) {
            Ok(())
        } else {
            let mut required = Map::new();
            required.insert(name.to_owned(), json!({}));
            Err(errors::missing_client_capability(Value::Object(required)))
        }
    }

    /// `Ok` if this request declared the extension `id` in
    /// `clientCapabilities.extensions`, else `-32021` with
    /// `requiredCapabilities: {"extensions": {"<id>": {}}}`.
    pub fn require_client_extension(&self, id: &str) -> HandlerResult<()> {
        let declared = self
            .meta
            .client_capabilities
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(id));
        if declared {
            Ok(())
        } else {
            Err(errors::missing_client_capability(
                json!({ "extensions": { id: {} } }),
            ))
        }
    }

    /// The self-reported client identity, if sent; never a basis for
    /// behaviour or security decisions.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.meta.client_info.as_deref()
    }

    /// The request's `progressToken`, if the client asked for progress.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.meta.progress_token.as_ref()
    }

    /// The lowest level of log messages this request wants: the
    /// request's `io.modelcontextprotocol/logLevel` (modern), or the
    /// session's `logging/setLevel` level (legacy; `debug`, i.e. all,
    /// until the client sets one). `None`: no log messages at all.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        match &self.legacy {
            Some(session) => Some(session.log_level().unwrap_or(LoggingLevel::Debug)),
            None => self.meta.log_level,
        }
    }

    /// Whether this request asked for log messages at `level` (its
    /// [`log_level`](Self::log_level) or above).
    pub fn wants_log(&self, level: LoggingLevel) -> bool {
        self.log_level()
            .is_some_and(|threshold| severity(level) >= severity(threshold))
    }

    /// Sends a notification on this request's stream (before its
    /// response). Dropped when the transport has nowhere to put it.
    pub fn notify(&self, method: &str, params: impl Serialize) {
        if let Some(sink) = &self.sink {
            let params = serde_json::to_value(params).unwrap_or(Value::Null);
            sink(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
        }
    }

    /// Sends a `notifications/message` at `level` with `data`, if the
    /// request asked for logs at that level or above (see
    /// [`log_level`](Self::log_level)); otherwise does nothing, as the spec
    /// requires.
    pub fn log(&self, level: LoggingLevel, data: impl Serialize) {
        if !self.wants_log(level) {
            return;
        }
        let data = serde_json::to_value(data).unwrap_or(Value::Null);
        self.notify(
            methods::NOTIFICATIONS_MESSAGE,
            json!({ "level": level, "data": data }),
        );
    }

    /// A `notifications/progress` for this request at `progress` (which
    /// must grow from one report to the next), sent when the returned
    /// [`Progress`] is dropped or [`sent`](Progress::send); set the total
    /// and a message on it first:
    ///
    /// ```ignore
    /// ctx.progress(50.0).total(100.0).message("Half way");
    /// ```
    ///
    /// Nothing is sent when the request carried no `progressToken`.
    pub fn progress(&self, progress: f64) -> Progress<'_> {
        Progress {
            ctx: self,
            progress,
            total: None,
            message: None,
        }
    }

    /// The server-wide event hub (list changes, resource updates).
    /// Publishing there reaches every `subscriptions/listen` stream and
    /// legacy session that asked for it; where the transport has no hub
    /// (a context from [`RequestContext::new`]) events go nowhere.
    pub fn events(&self) -> &ServerEvents {
        static NOWHERE: OnceLock<ServerEvents> = OnceLock::new();
        self.events
            .as_ref()
            .unwrap_or_else(|| NOWHERE.get_or_init(ServerEvents::new))
    }

    /// A value middleware put in the HTTP request's extensions (a tenant,
    /// authentication claims), by type. `None` on stdio, for contexts built
    /// with [`RequestContext::new`], and when no middleware set one.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.http_request.as_deref()?.extensions.get::<T>()
    }

    /// Legacy sessions only: sends a server→client request (for example
    /// `elicitation/create`) on this request's stream and waits for the
    /// client's answer. Prefer returning an `input_required` result, which
    /// works in both eras (the runtime fulfils it in legacy sessions); this
    /// is for input a modern `InputRequest` cannot express. Fails with
    /// `-32603` in the modern era (servers must not send requests there) or
    /// when the transport cannot carry requests.
    pub async fn legacy_request(&self, method: &str, params: Value) -> HandlerResult<Value> {
        match (&self.legacy, &self.sink, &self.peer) {
            (Some(_), Some(sink), Some(peer)) => peer.request(sink, method, params).await,
            (None, _, _) => Err(errors::internal_error(
                "Server-to-client requests exist only in legacy sessions",
            )),
            _ => Err(errors::internal_error(
                "This transport cannot send requests to the client",
            )),
        }
    }

    /// Legacy (2025-11-25) sessions over HTTP: ends this request's SSE
    /// connection now, telling the client (the SSE `retry` field) to come
    /// back after `retry`, without ending the request. The client resumes
    /// with `GET` and `Last-Event-ID`, on any instance sharing the event
    /// store, and gets what the request sends from then on, its response
    /// included: the "polling" of SEP-1699, which keeps no connection open
    /// while a request works. The answer becomes SSE first if it was not
    /// yet. Elsewhere (modern requests, stdio, a client that takes no SSE)
    /// it does nothing.
    pub fn close_sse_stream(&self, retry: Duration) {
        if let Some(close) = &self.stream_closer {
            close(retry);
        }
    }

    pub(crate) fn sink(&self) -> Option<&Sink> {
        self.sink.as_ref()
    }
}

/// One `notifications/progress`, sent when dropped (or by
/// [`send`](Self::send)); from [`RequestContext::progress`].
pub struct Progress<'a> {
    ctx: &'a RequestContext,
    progress: f64,
    total: Option<f64>,
    message: Option<String>,
}

impl Progress<'_> {
    /// The total the progress runs to, if known.
    pub fn total(mut self, total: f64) -> Self {
        self.total = Some(total);
        self
    }

    /// A human-readable message about the progress.
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// Sends the report now (dropping it does the same).
    pub fn send(self) {}
}

impl fmt::Debug for Progress<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field("progress", &self.progress)
            .field("total", &self.total)
            .field("message", &self.message)
            .finish_non_exhaustive()
    }
}

impl Drop for Progress<'_> {
    fn drop(&mut self) {
        let Some(token) = self.ctx.progress_token() else {
            return;
        };
        let mut params = Map::new();
        params.insert("progressToken".into(), json!(token));
        params.insert("progress".into(), number(self.progress));
        if let Some(total) = self.total {
            params.insert("total".into(), number(total));
        }
        if let Some(message) = self.message.take() {
            params.insert("message".into(), Value::String(message));
        }
        self.ctx
            .notify(methods::NOTIFICATIONS_PROGRESS, Value::Object(params));
    }
}

/// Pending once (waking itself), then ready: the point where the runtime
/// sees a task-eligible call wait.
struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// An integer-valued float is written as an integer (`50`, not `50.0`).
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        #[allow(
            clippy::cast_possible_truncation,
            reason = "checked integral and in range"
        )]
        let int = value as i64;
        json!(int)
    } else {
        json!(value)
    }
}

/// Syslog severity, `debug` lowest.
pub(crate) fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// The era a request belongs to: modern (2026-07-28 on) or a legacy
/// (2025-11-25) session. The one `Era` of the toolkit (`mcp_era_types::versions::Era`);
/// [`RequestContext::era`] tells a request's.
pub use mcp_era_types::versions::Era;

/// `Era::of(&ctx)`, the form of earlier releases, when `Era` was this
/// crate's own type; write [`RequestContext::era`] (`ctx.era()`).
#[deprecated(since = "0.2.0", note = "use `ctx.era()` (`RequestContext::era`)")]
pub trait EraOf {
    /// The era of the request `ctx` serves.
    #[deprecated(since = "0.2.0", note = "use `ctx.era()` (`RequestContext::era`)")]
    fn of(ctx: &RequestContext) -> Self;
}

#[allow(deprecated)]
impl EraOf for Era {
    fn of(ctx: &RequestContext) -> Self {
        ctx.era()
    }
}
