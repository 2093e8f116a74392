//! The per-message context a transport hands to the entry point, and the
//! per-request context handlers receive.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use mcp_era_types::v2026_07_28::{
    ClientCapabilities, Implementation, LoggingLevel, ProgressToken, RequestId, RequestMetaObject,
    methods,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::model::peer::{ClientPeer, Sink};

/// Closes a request's SSE connection, the client told to come back after
/// the given time.
pub(crate) type StreamCloser = Arc<dyn Fn(Duration) + Send + Sync>;
use crate::state::events::ServerEvents;
use crate::state::sessions::{SessionChange, SessionRecord, SessionState, SessionStore};
use crate::wire::errors::{self, HandlerResult};

/// Who sent an HTTP request, as authentication middleware of your own
/// names it: insert one into the request's extensions and legacy sessions
/// and tasks are bound to it, as they are to a validated token's subject
/// with the `auth` feature. Two requests with the same value are the same
/// caller.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

/// The address an HTTP request came from, for per-address limits. The HTTP
/// listener knows each connection's; an application that mounts
/// [`McpService`](crate::http::McpService) in its own server inserts it
/// among the request's extensions (from axum's `ConnectInfo`, say).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PeerAddr(pub std::net::SocketAddr);

/// The caller of an HTTP request. The HTTP transport resolves it once per
/// request (a `Principal` set by middleware, else with `auth` the validated
/// token's subject, else `client:` and its client) and leaves it among the
/// extensions.
pub(crate) fn principal_in(extensions: &http::Extensions) -> Option<&str> {
    extensions
        .get::<Principal>()
        .map(|Principal(name)| name.as_str())
}

/// Which transport a message arrived on, with what the envelope checks need
/// from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// stdio: all metadata lives in `_meta`; there is no header layer, so
    /// `-32020` never applies.
    Stdio,
    /// Streamable HTTP.
    Http(HttpHeaders),
}

/// The HTTP request headers the envelope checks use. The HTTP transport
/// fills this in; names are matched case-insensitively and values are
/// trimmed of surrounding whitespace by the transport before they get here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpHeaders {
    /// The `MCP-Protocol-Version` header, if present.
    ///
    /// The entry point enforces, for modern requests and in this order
    /// (the conformance suite's order): header present (else `-32020`),
    /// required `_meta` fields (else `-32602`), header equal to the `_meta`
    /// version (else `-32020`, even when the body version is unsupported),
    /// version supported (else `-32022`).
    pub protocol_version: Option<String>,
    /// The `Mcp-Method` header, if present. Modern requests must carry it,
    /// equal to the body's `method` (else `-32020`, step 10). `None` in
    /// [`MessageContext::http`] skips the check, for callers that only
    /// know the version header.
    pub method: Option<Option<String>>,
    /// The `Mcp-Name` header (raw, trimmed), if present. `tools/call` and
    /// `prompts/get` must carry `params.name`, `resources/read` must carry
    /// `params.uri` (after decoding the `=?base64?…?=` sentinel).
    pub name: Option<String>,
    /// The `Mcp-Param-{Name}` headers: the name suffix in lower case and
    /// the value (raw, trimmed). A `tools/call` argument whose input
    /// schema property carries `"x-mcp-header": "{Name}"` must be mirrored
    /// in that header when the body has a value for it (else `-32020`).
    pub params: Vec<(String, String)>,
}

/// The per-message context: everything the entry point needs besides the
/// message itself.
#[derive(Clone)]
pub struct MessageContext {
    /// The transport the message arrived on.
    pub transport: Transport,
    /// The legacy (2025-11-25 era) session this message belongs to, if the
    /// transport has one (stdio: the process after a legacy `initialize`;
    /// HTTP: the session named by `Mcp-Session-Id`).
    pub legacy_session: Option<LegacySession>,
    /// Where the request's own notifications (progress, logging) go, and
    /// server→client requests of a legacy session. `None` drops them.
    pub(crate) sink: Option<Sink>,
    /// The client side of a legacy session: matches client responses to
    /// server→client requests.
    pub(crate) peer: Option<ClientPeer>,
    /// Closes the request's SSE connection early (resumable legacy HTTP
    /// streams only).
    pub(crate) stream_closer: Option<StreamCloser>,
    /// Server-wide events (list changes, resource updates) that
    /// `subscriptions/listen` streams follow.
    pub(crate) events: Option<ServerEvents>,
    /// Whether results carry `_meta["io.modelcontextprotocol/serverInfo"]`.
    pub(crate) server_info_in_results: bool,
    /// The HTTP request's parts (method, URI, headers, extensions set by
    /// middleware), when the message came over HTTP.
    pub(crate) http_request: Option<Arc<http::request::Parts>>,
    /// The address the HTTP request came from, when known ([`PeerAddr`]).
    pub(crate) remote_addr: Option<std::net::SocketAddr>,
}

impl fmt::Debug for MessageContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessageContext")
            .field("transport", &self.transport)
            .field("legacy_session", &self.legacy_session)
            .field("sink", &self.sink.is_some())
            .field("server_info_in_results", &self.server_info_in_results)
            .finish_non_exhaustive()
    }
}

impl MessageContext {
    fn new(transport: Transport) -> Self {
        Self {
            transport,
            legacy_session: None,
            sink: None,
            peer: None,
            stream_closer: None,
            events: None,
            server_info_in_results: true,
            http_request: None,
            remote_addr: None,
        }
    }

    /// A stdio message outside any legacy session.
    pub fn stdio() -> Self {
        Self::new(Transport::Stdio)
    }

    /// An HTTP message with the given `MCP-Protocol-Version` header value
    /// (already trimmed), outside any legacy session. The `Mcp-Method` and
    /// `Mcp-Name` checks are skipped; use [`MessageContext::http_headers`]
    /// to have them.
    pub fn http(protocol_version_header: Option<&str>) -> Self {
        Self::new(Transport::Http(HttpHeaders {
            protocol_version: protocol_version_header.map(str::to_owned),
            method: None,
            name: None,
            params: Vec::new(),
        }))
    }

    /// An HTTP message with all the MCP headers the transport read.
    pub fn http_headers(headers: HttpHeaders) -> Self {
        Self::new(Transport::Http(headers))
    }

    /// The same context inside the given legacy session.
    pub fn with_legacy_session(mut self, session: LegacySession) -> Self {
        self.legacy_session = Some(session);
        self
    }

    /// Sends the request's own messages (notifications before the response;
    /// in a legacy session also server→client requests) to `sink`, which
    /// the transport writes to the request's stream (stdout, or the POST's
    /// SSE response).
    pub fn with_sink(mut self, sink: impl Fn(Value) + Send + Sync + 'static) -> Self {
        self.sink = Some(Arc::new(sink));
        self
    }

    /// The client side of the connection or legacy session: server→client
    /// requests wait on it for the client's response, which the transport
    /// hands to [`ClientPeer::deliver`].
    pub fn with_peer(mut self, peer: ClientPeer) -> Self {
        self.peer = Some(peer);
        self
    }

    /// Lets handlers close the request's SSE connection early
    /// ([`RequestContext::close_sse_stream`]): for a stream the client can
    /// resume.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_stream_closer(
        mut self,
        closer: impl Fn(Duration) + Send + Sync + 'static,
    ) -> Self {
        self.stream_closer = Some(Arc::new(closer));
        self
    }

    /// The server-wide event hub that `subscriptions/listen` streams and
    /// legacy sessions follow, and that handlers reach through
    /// [`RequestContext::events`].
    pub fn with_events(mut self, events: ServerEvents) -> Self {
        self.events = Some(events);
        self
    }

    /// Whether every result carries
    /// `_meta["io.modelcontextprotocol/serverInfo"]` (default: yes, as the
    /// spec says servers SHOULD). Legacy results never do.
    pub fn with_server_info_in_results(mut self, on: bool) -> Self {
        self.server_info_in_results = on;
        self
    }

    /// The HTTP request the message came in (its body already read), for
    /// handlers to read headers and middleware extensions through
    /// [`RequestContext::http_request`].
    /// A [`Principal`] among its extensions names the caller: legacy
    /// sessions and tasks are bound to it.
    pub fn with_http_request(mut self, parts: Arc<http::request::Parts>) -> Self {
        self.http_request = Some(parts);
        self
    }

    /// The address the HTTP request came from ([`PeerAddr`]).
    pub(crate) fn with_remote_addr(mut self, addr: Option<std::net::SocketAddr>) -> Self {
        self.remote_addr = addr;
        self
    }

    /// Who sent the message: the [`Principal`] of its HTTP request.
    pub(crate) fn principal(&self) -> Option<&str> {
        principal_in(&self.http_request.as_deref()?.extensions)
    }
}

/// What a server keeps while a client follows its events, from
/// [`McpServer::following`](crate::McpServer::following); dropped when the
/// client stops following.
pub type Following = Box<dyn std::any::Any + Send + Sync>;

/// The state of a legacy (2025-11-25 era) session, negotiated by
/// `initialize`. The transport stores it (per process on stdio, per
/// `Mcp-Session-Id` on HTTP, in its
/// [`SessionStore`](crate::sessions::SessionStore)) and passes it back in
/// [`MessageContext`].
///
/// Clones share the mutable part (the `logging/setLevel` level and the
/// `resources/subscribe` set).
#[derive(Clone)]
pub struct LegacySession {
    /// The version `initialize` agreed to; always a legacy version.
    pub protocol_version: String,
    /// The client's `capabilities` from `initialize`, as sent.
    pub client_capabilities: Value,
    /// The client's `clientInfo` from `initialize`, as sent.
    pub client_info: Value,
    state: Arc<Mutex<LegacyState>>,
    /// What the server keeps for each URI this session subscribed to here
    /// ([`McpServer::following`](crate::McpServer::following)).
    following: Arc<Mutex<std::collections::HashMap<String, Following>>>,
    /// Where changes are written before they hold (HTTP sessions).
    stored: Option<Stored>,
}

/// The store an HTTP session lives in, and its id there.
#[derive(Clone)]
struct Stored {
    store: Arc<dyn SessionStore>,
    id: Arc<str>,
}

#[derive(Debug, Default)]
struct LegacyState {
    log_level: Option<LoggingLevel>,
    subscriptions: Vec<String>,
}

impl LegacySession {
    /// A session that agreed to `protocol_version` with a client that sent
    /// these `capabilities` and `clientInfo`.
    pub fn new(protocol_version: String, client_capabilities: Value, client_info: Value) -> Self {
        Self {
            protocol_version,
            client_capabilities,
            client_info,
            state: Arc::default(),
            following: Arc::default(),
            stored: None,
        }
    }

    /// The session a stored record describes, its changes written back
    /// to `store`.
    pub(crate) fn from_record(record: &SessionRecord, store: Arc<dyn SessionStore>) -> Self {
        let session = Self::new(
            record.protocol_version.clone(),
            record.client_capabilities.clone(),
            record.client_info.clone(),
        )
        .stored_in(store, &record.id);
        session.refresh(&record.state);
        session
    }

    /// The same session, its changes written to `store` under `id` first.
    pub(crate) fn stored_in(mut self, store: Arc<dyn SessionStore>, id: &str) -> Self {
        self.stored = Some(Stored {
            store,
            id: Arc::from(id),
        });
        self
    }

    fn state(&self) -> std::sync::MutexGuard<'_, LegacyState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the level and subscriptions as stored (changes made on other
    /// instances).
    pub(crate) fn refresh(&self, stored: &SessionState) {
        let mut state = self.state();
        state.log_level = stored.log_level;
        if state.subscriptions != stored.subscriptions {
            state.subscriptions.clone_from(&stored.subscriptions);
        }
    }

    /// The level set by `logging/setLevel`, if any.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.state().log_level
    }

    /// Makes `change`: in the session's store first (so every instance
    /// serving the session sees it), then here. A store that fails or no
    /// longer has the session leaves it unchanged: `-32603`.
    pub(crate) async fn change(&self, change: SessionChange) -> HandlerResult<()> {
        if let Some(stored) = &self.stored {
            match stored.store.change(&stored.id, &change).await {
                Ok(true) => {}
                Ok(false) => {
                    return Err(errors::internal_error(
                        "The session has ended: initialize a new session",
                    ));
                }
                Err(e) => {
                    return Err(errors::internal_error(format!(
                        "The session change could not be stored: {e}"
                    )));
                }
            }
        }
        let mut state = self.state();
        let mut current = SessionState {
            log_level: state.log_level,
            subscriptions: std::mem::take(&mut state.subscriptions),
            last_seen_ms: 0,
        };
        change.apply(&mut current);
        state.log_level = current.log_level;
        state.subscriptions = current.subscriptions;
        Ok(())
    }

    /// The URIs the client subscribed to with `resources/subscribe`.
    pub fn subscriptions(&self) -> Vec<String> {
        self.state().subscriptions.clone()
    }

    /// Keeps what the server returned when this session subscribed to
    /// `uri` (`None`: drops what it kept, as on unsubscribing).
    pub(crate) fn follow(&self, uri: &str, following: Option<Following>) {
        let mut kept = self
            .following
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match following {
            Some(following) => kept.insert(uri.to_owned(), following),
            None => kept.remove(uri),
        };
    }

    /// Drops everything the server keeps for this session (it ended).
    pub(crate) fn stop_following(&self) {
        self.following
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// Whether the client subscribed to `uri`.
    pub fn is_subscribed(&self, uri: &str) -> bool {
        self.state().subscriptions.iter().any(|u| u == uri)
    }
}

impl PartialEq for LegacySession {
    fn eq(&self, other: &Self) -> bool {
        self.protocol_version == other.protocol_version
            && self.client_capabilities == other.client_capabilities
            && self.client_info == other.client_info
    }
}

impl fmt::Debug for LegacySession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LegacySession")
            .field("protocol_version", &self.protocol_version)
            .field("client_capabilities", &self.client_capabilities)
            .field("client_info", &self.client_info)
            .field("state", &*self.state())
            .finish()
    }
}

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
    /// our listener; with a mounted `McpService`, the [`PeerAddr`] the
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
        self.meta.client_info.as_ref()
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
/// (2025-11-25) session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// A modern request.
    Modern,
    /// A request of a legacy session.
    Legacy,
}

impl Era {
    /// The era of the request `ctx` serves.
    pub fn of(ctx: &RequestContext) -> Self {
        if ctx.is_legacy() {
            Self::Legacy
        } else {
            Self::Modern
        }
    }
}
