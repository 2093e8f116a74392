//! The Streamable HTTP transport (hyper 1, HTTP/1.1): one endpoint,
//! `/mcp` by default, serving modern (2026-07-28) requests statelessly and
//! legacy (2025-11-25) clients through `Mcp-Session-Id` sessions.
//!
//! ```no_run
//! # use mcp_server::McpServer;
//! # #[derive(McpServer)] #[mcp(name = "x", version = "1")] struct MyServer;
//! use mcp_server::http::HttpConfig;
//! fn main() -> std::io::Result<()> {
//!     mcp_server::http::run(MyServer, HttpConfig::new("127.0.0.1:8080".parse().unwrap()))
//! }
//! ```
//!
//! OAuth: with the `auth` feature, [`HttpConfig::auth`] makes the server
//! an OAuth 2.1 resource server ([`auth`]): Protected Resource Metadata at
//! `/.well-known/oauth-protected-resource{path}`, 401/403 challenges,
//! scopes per server, per capability and per tool (set in `AuthConfig`,
//! declared with the server, or both), JWT validation against the
//! issuer's JWKS. A mounted [`McpService`] answers the metadata too when
//! the host routes that path to it.
//!
//! HTTPS: with the `rustls` feature, set [`HttpConfig::tls`] to a PEM
//! certificate chain and key (`TlsConfig::from_pem_files`).
//!
//! To mount MCP in an existing application (axum's
//! `Router::nest_service("/mcp", …)`, tower layers, plain hyper), use
//! [`McpService`], a `tower::Service` over any request body; `run` and
//! `serve` own the listener and add the connection limits, the header
//! timeout and graceful shutdown. `cargo run -p mcp-era-server --example
//! axum` shows MCP beside an app's own routes with tracing, CORS and a
//! middleware whose request extension a tool reads.
//!
//! # What each request gets, in order
//!
//! 1. **Transfer coding**: a `Transfer-Encoding` other than one `chunked`
//!    (`gzip, chunked`, `identity, chunked`, `chunked` twice) gets **501**
//!    (RFC 9112 §6.1) with a JSON-RPC `-32600` body without `id` and
//!    `Connection: close`; hyper itself answers 400 (no body) when
//!    `chunked` is missing or not the last coding.
//! 2. A path other than [`HttpConfig::path`]: 404.
//! 3. **Host** (RFC 9112 §3.2): an HTTP/1.1 request without `Host`, with
//!    more than one `Host` line, or with an invalid one (or an absolute-form
//!    target with an invalid authority) gets **400**, whatever the
//!    allow-list. **Host / Origin** (DNS-rebinding protection): the host is
//!    the target's authority when the target is absolute-form (or HTTP/2's
//!    `:authority`), else `Host`; its hostname must be in
//!    [`HttpConfig::allowed_hosts`] (default `localhost`, `127.0.0.1`,
//!    `::1`, any port), and each `Origin` line must be `http(s)://`
//!    plus an allowed host (or be listed in
//!    [`HttpConfig::allowed_origins`]); else **403**. Both with a JSON-RPC
//!    `-32600` body without `id`.
//! 4. **GET / DELETE**: with the `Mcp-Session-Id` of a live legacy session,
//!    GET opens that session's SSE stream (server-wide events as legacy
//!    notifications) and DELETE ends the session (200). An unknown session
//!    id gets 404; more than one `Mcp-Session-Id` line, 400 `-32600`.
//!    Without a session id (the modern era has no sessions) both get
//!    **405** with `Allow: POST`. Other methods: 405. A GET stream past
//!    the stream caps gets **429** (see the limits below).
//! 5. **POST media types**: a `Content-Type` other than `application/json`
//!    → **415**; an `Accept` that allows neither `application/json` nor
//!    `text/event-stream` (nor a wildcard covering one) → **406** (both with
//!    a JSON-RPC `-32600` body and no `id`; a missing header is accepted).
//!    **POST body**: larger than [`HttpConfig::max_body_bytes`] → **413**
//!    with a JSON-RPC `-32600` body; not JSON → 400 `-32700`.
//! 6. **MCP header lines**: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`
//!    and each `Mcp-Param-{Name}` may come as one line only; a second line,
//!    even with the same value, or bytes outside visible ASCII get **400**
//!    `-32020` with the request's `id` (a comma-joined value is one line).
//! 7. A JSON-RPC **response** (a legacy client answering a server→client
//!    request) is handed to its session and answered 202.
//! 8. **Era and session**. A message whose `params._meta` carries the
//!    modern keys is modern, whatever else it carries. **Stale session id
//!    rule** (digest edge case 14): the spec says modern `_meta` wins, so a
//!    modern request with an `Mcp-Session-Id` is served statelessly and the
//!    header is ignored: not validated, not echoed, no 404 even if the
//!    session is unknown. Any other message with an `Mcp-Session-Id` is
//!    legacy: an unknown or ended session gets **404**, more than one
//!    `Mcp-Session-Id` line 400 `-32600`.
//! 9. **Notifications** get **202** and an empty body (a legacy
//!    `notifications/cancelled` first aborts the named request).
//! 10. Everything else goes to the entry point ([`crate::handle_message`]),
//!     which applies the header rules (`MCP-Protocol-Version` equal to
//!     `_meta`, `Mcp-Method`, `Mcp-Name` with the base64 sentinel; values
//!     trimmed, names case-insensitive) and gives the status: 400 for
//!     `-32700`/`-32600`/`-32602`/`-32020`/`-32021`/`-32022`, 404 for
//!     `-32601`, 200 otherwise. **Inside a legacy session every JSON-RPC
//!     answer is 200**, errors included: in 2025-11-25 a 404 to a request
//!     with `Mcp-Session-Id` means "session gone, initialize again", and
//!     clients report a 4xx as a transport failure rather than the error.
//!     A successful legacy `initialize` creates a session and returns its
//!     `Mcp-Session-Id` (32 hex digits). A request in a session whose
//!     `MCP-Protocol-Version` header names another version than the one
//!     `initialize` agreed to gets **400** (a missing header is accepted).
//!     A session serves only the principal that opened it (a
//!     [`Principal`](crate::Principal) set by middleware, or the token's
//!     subject with `auth`): anyone else gets 404 for its id.
//!
//! # JSON or SSE
//!
//! A request is answered as `application/json` unless its handler sends a
//! message before its response (a progress or log notification, a listen
//! acknowledgement, a legacy server→client request): the first such
//! message switches the answer to `text/event-stream` (200,
//! `Cache-Control: no-cache`, `X-Accel-Buffering: no`), carrying each
//! message as one `event: message` / `data:` event on one line, then the
//! response, then the end of the stream. So plain requests cost no SSE
//! framing, and a handler that reports progress streams it as it goes.
//! Closing the response (client disconnect) cancels the handler.
//!
//! # Limits, timeouts and shutdown
//!
//! Each has a setting on [`HttpConfig`]; the defaults:
//!
//! | What | Default | When exceeded |
//! |---|---|---|
//! | connections at once ([`max_connections`](HttpConfig::max_connections)) | 1024 | the server stops accepting until one closes |
//! | long-lived streams at once: `subscriptions/listen` and legacy GET ([`max_streams`](HttpConfig::max_streams)) | 512 | **429**, `Retry-After: 1`, `Connection: close`, JSON-RPC `-32603` naming the cap |
//! | streams of one principal ([`max_streams_per_principal`](HttpConfig::max_streams_per_principal)) | 32 | the same |
//! | header block ([`header_read_timeout`](HttpConfig::header_read_timeout)) | 30 s, idle keep-alive included | the connection is closed |
//! | POST body ([`body_read_timeout`](HttpConfig::body_read_timeout)) | 30 s | **408**, `Connection: close` |
//! | POST body size ([`max_body_bytes`](HttpConfig::max_body_bytes)) | 4 MiB | **413**, `Connection: close` |
//! | legacy sessions ([`max_sessions`](HttpConfig::max_sessions)) | 10 000 | the oldest never-used session ends (else the least recently used) |
//! | idle legacy session ([`session_idle_timeout`](HttpConfig::session_idle_timeout)) | 30 min | ended by a background sweep; its id gets 404 |
//! | server→client request ([`client_request_timeout`](HttpConfig::client_request_timeout)) | 60 s | cancelled; the handler gets `-32603` |
//! | shutdown ([`shutdown_grace`](HttpConfig::shutdown_grace)) | 10 s | connections still busy are dropped |
//!
//! A failed `accept` (out of file descriptors) pauses 10 ms, doubling up to
//! a second, with one log line per pause; rejected `Host`/`Origin` and the
//! connection limit log at most once a second, with a count of what was
//! not logged. [`run`] and [`serve`] shut down gracefully on ctrl-c or
//! SIGTERM: no new connections, `subscriptions/listen` streams end with
//! their result, each connection finishes its request in flight, then the
//! call returns.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Frame;
use hyper::header::HeaderValue;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use mcp_types::headers::MCP_SESSION_ID;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tokio::task::AbortHandle;

use crate::context::{LegacySession, MessageContext, principal};
use crate::envelope::{Parsed, handle_parsed, parse};
use crate::errors::{self, ErrorObject};
use crate::events::{ServerEvent, ServerEvents};
use crate::listen::legacy_notification;
use crate::outcome::Outcome;
use crate::peer::{ClientPeer, is_response};
use crate::server::McpServer;

/// The default body limit: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The default cap on connections served at once.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// The default cap on long-lived streams open at once: half the
/// connections, so ordinary requests always keep the other half.
pub const DEFAULT_MAX_STREAMS: usize = DEFAULT_MAX_CONNECTIONS / 2;

/// The default cap on long-lived streams of one principal.
pub const DEFAULT_MAX_STREAMS_PER_PRINCIPAL: usize = 32;

/// The default time a client has to send a request's header block.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The default time a client has to send a POST body.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The default time graceful shutdown gives in-flight requests.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The hosts allowed by default: loopback only.
pub const DEFAULT_ALLOWED_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The MCP endpoint path (default `/mcp`).
    pub path: String,
    /// Hostnames (without port; IPv6 without brackets) accepted in `Host`
    /// and in `Origin` (default [`DEFAULT_ALLOWED_HOSTS`]). Empty: any host
    /// (only behind a proxy that checks it).
    pub allowed_hosts: Vec<String>,
    /// Extra exact `Origin` values accepted (e.g. `https://app.example`).
    pub allowed_origins: Vec<String>,
    /// The largest accepted POST body (default [`DEFAULT_MAX_BODY_BYTES`]).
    pub max_body_bytes: usize,
    /// Whether results carry `_meta["io.modelcontextprotocol/serverInfo"]`
    /// (default true).
    pub server_info_in_results: bool,
    /// The event hub listen streams and legacy sessions follow.
    pub events: ServerEvents,
    /// A legacy session unused for this long is ended (default 30 min);
    /// its id then gets 404 and the client re-initializes.
    pub session_idle_timeout: Duration,
    /// At most this many legacy sessions live at once (default 10 000).
    /// At the cap a new session replaces the oldest session that never
    /// served a request after its `initialize`; only when every session is
    /// in use does the least recently used one end. So a flood of
    /// `initialize` calls cannot push out the sessions clients use.
    pub max_sessions: usize,
    /// At most this many connections are served at once (default
    /// [`DEFAULT_MAX_CONNECTIONS`]). At the cap the server stops accepting
    /// (the kernel's backlog holds new connections) until one closes, so
    /// idle or slow clients cannot exhaust file descriptors.
    pub max_connections: usize,
    /// At most this many long-lived streams (`subscriptions/listen`
    /// requests and legacy GET streams) are open at once (default
    /// [`DEFAULT_MAX_STREAMS`]); one more gets **429** with a JSON-RPC
    /// error and `Connection: close`. Each stream holds a connection, so
    /// keep this below [`max_connections`](Self::max_connections): the
    /// difference is what ordinary requests always have.
    pub max_streams: usize,
    /// At most this many streams of one principal (a [`Principal`] set by
    /// middleware, or the token's subject with `auth`) are open at once
    /// (default [`DEFAULT_MAX_STREAMS_PER_PRINCIPAL`]); unauthenticated
    /// streams count toward [`max_streams`](Self::max_streams) only.
    ///
    /// [`Principal`]: crate::Principal
    pub max_streams_per_principal: usize,
    /// A connection must deliver a request's complete header block within
    /// this time, counted from when it starts waiting for one, between
    /// requests on a kept-alive connection too; else it is closed (default
    /// [`DEFAULT_HEADER_READ_TIMEOUT`]). This ends slowloris clients and
    /// idle keep-alive connections.
    pub header_read_timeout: Duration,
    /// A POST body must arrive within this time, else **408** (default
    /// [`DEFAULT_BODY_READ_TIMEOUT`]).
    pub body_read_timeout: Duration,
    /// On shutdown, how long requests in flight may take to finish before
    /// their connections are dropped (default [`DEFAULT_SHUTDOWN_GRACE`]).
    pub shutdown_grace: Duration,
    /// How long a legacy session's server→client request waits for the
    /// client (default
    /// [`DEFAULT_CLIENT_REQUEST_TIMEOUT`](crate::DEFAULT_CLIENT_REQUEST_TIMEOUT));
    /// see [`ClientPeer::request`] for the error the handler then gets.
    pub client_request_timeout: Duration,
    /// Serve HTTPS with this certificate (feature `rustls`; default: plain
    /// HTTP). Applies to [`run`], [`serve`] and [`serve_listener_until`];
    /// a mounted [`McpService`] leaves TLS to its host.
    #[cfg(feature = "rustls")]
    pub tls: Option<TlsConfig>,
    /// Require OAuth bearer tokens (feature `auth`; default: none). See
    /// [`auth`] for what each request then gets.
    #[cfg(feature = "auth")]
    pub auth: Option<auth::AuthConfig>,
}

impl HttpConfig {
    /// Defaults, listening on `listen`.
    pub fn new(listen: SocketAddr) -> Self {
        Self {
            listen,
            path: "/mcp".to_owned(),
            allowed_hosts: DEFAULT_ALLOWED_HOSTS
                .iter()
                .map(|h| (*h).to_owned())
                .collect(),
            allowed_origins: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            server_info_in_results: true,
            events: ServerEvents::new(),
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_streams: DEFAULT_MAX_STREAMS,
            max_streams_per_principal: DEFAULT_MAX_STREAMS_PER_PRINCIPAL,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            client_request_timeout: crate::peer::DEFAULT_CLIENT_REQUEST_TIMEOUT,
            #[cfg(feature = "rustls")]
            tls: None,
            #[cfg(feature = "auth")]
            auth: None,
        }
    }

    /// Also accepts `host` in `Host` and `Origin`.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into().to_ascii_lowercase());
        self
    }

    /// Accepts any `Host` and `Origin` (only behind a proxy that checks
    /// them).
    pub fn allow_any_host(mut self) -> Self {
        self.allowed_hosts.clear();
        self
    }
}

/// Binds [`HttpConfig::listen`] and serves `server` on a new multi-threaded
/// tokio runtime until ctrl-c or SIGTERM ([`shutdown_signal`]), then shuts
/// down gracefully (see [`serve_listener_until`]).
pub fn run<S: McpServer + 'static>(server: S, config: HttpConfig) -> io::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve(server, config))
}

/// Binds [`HttpConfig::listen`] and serves `server` until ctrl-c or
/// SIGTERM, then shuts down gracefully.
pub async fn serve<S: McpServer + 'static>(server: S, config: HttpConfig) -> io::Result<()> {
    let listener = TcpListener::bind(config.listen).await?;
    tracing::info!(addr = %listener.local_addr()?, path = %config.path, "MCP over HTTP");
    serve_listener_until(Arc::new(server), listener, config, shutdown_signal()).await
}

/// Completes on ctrl-c (SIGINT) or, on Unix, SIGTERM. If the handlers
/// cannot be installed it never completes (the process then ends the usual
/// way, by the signal's default action).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
    tracing::info!("shutting down");
}

/// Serves `server` on an already bound listener (tests bind
/// `127.0.0.1:0`) forever; `config.listen` is ignored.
pub async fn serve_listener<S: McpServer + 'static>(
    server: Arc<S>,
    listener: TcpListener,
    config: HttpConfig,
) -> io::Result<()> {
    serve_listener_until(server, listener, config, std::future::pending()).await
}

/// Like [`serve_listener`], until `shutdown` completes; then it shuts down
/// gracefully: it stops accepting, ends `subscriptions/listen` and legacy
/// event streams ([`ServerEvent::ShuttingDown`]), lets each connection
/// finish the request it is serving (keep-alive off), and drops whatever
/// is still running after [`HttpConfig::shutdown_grace`].
pub async fn serve_listener_until<S: McpServer + 'static>(
    server: Arc<S>,
    listener: TcpListener,
    config: HttpConfig,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    crate::server::check_catalogue(&*server)?;
    #[cfg(feature = "auth")]
    let config = with_declared_scopes(&*server, config);
    let max_connections = config.max_connections.max(1);
    if config.max_streams >= max_connections {
        tracing::warn!(
            max_streams = config.max_streams,
            max_connections,
            "max_streams is not below max_connections: idle streams can lock out other requests"
        );
    }
    let tls = tokio_tls::acceptor(&config)?;
    let state = State::new(server, config, false);
    let connections = Arc::new(Semaphore::new(max_connections));
    let (stage, _) = watch::channel(Stage::Serving);
    let stage = Arc::new(stage);
    let mut shutdown = std::pin::pin!(shutdown);
    let mut pause = ACCEPT_PAUSE_MIN;
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&connections).acquire_owned() => permit,
            () = &mut shutdown => break,
        };
        let Ok(permit) = permit else { break };
        if connections.available_permits() == 0
            && let Some(suppressed) = state.limit_log.allow()
        {
            tracing::warn!(
                max_connections,
                suppressed,
                "connection limit reached; new connections wait"
            );
        }
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, _) = match accepted {
            Ok(accepted) => {
                pause = ACCEPT_PAUSE_MIN;
                accepted
            }
            Err(e) => {
                // Out of file descriptors (EMFILE/ENFILE) or another
                // failure that retrying at once would only repeat: pause,
                // doubling up to a second, with one log line per pause.
                tracing::warn!(error = %e, pause_ms = pause.as_millis() as u64, "accept failed; pausing");
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    () = &mut shutdown => break,
                }
                pause = (pause * 2).min(ACCEPT_PAUSE_MAX);
                continue;
            }
        };
        tokio::spawn(serve_connection(
            Arc::clone(&state),
            stream,
            tls.clone(),
            stage.subscribe(),
            permit,
        ));
    }
    drop(listener);
    let in_flight = max_connections - connections.available_permits();
    tracing::info!(
        connections = in_flight,
        grace_ms = state.config.shutdown_grace.as_millis() as u64,
        "no longer accepting; finishing requests in flight"
    );
    state.config.events.publish(ServerEvent::ShuttingDown);
    stage.send_replace(Stage::Draining);
    let all = u32::try_from(max_connections).unwrap_or(u32::MAX);
    let drained =
        tokio::time::timeout(state.config.shutdown_grace, connections.acquire_many(all)).await;
    if drained.is_err() {
        let left = max_connections - connections.available_permits();
        tracing::warn!(
            connections = left,
            "shutdown grace over; dropping connections"
        );
        stage.send_replace(Stage::Dropping);
    }
    Ok(())
}

/// The transport as a [`tower_service::Service`], for mounting MCP in an
/// existing application: `axum::Router::nest_service("/mcp", service)`,
/// tower layers around it (tracing, CORS, timeouts, authentication), or
/// hyper directly. It serves every path it is given (the host routes), with
/// every other rule of this module: Host/Origin checks, media types, the
/// body limit and timeout, legacy sessions (their idle sweep starts with
/// the first request). Connection limits, the header timeout and graceful
/// shutdown belong to whoever owns the listener. Handlers see the request's
/// parts, extensions set by layers included, through
/// [`RequestContext::http_request`](crate::RequestContext::http_request).
pub struct McpService<S> {
    state: Arc<State<S>>,
}

impl<S> Clone for McpService<S> {
    fn clone(&self) -> Self {
        Self {
            state: Arc::clone(&self.state),
        }
    }
}

impl<S: McpServer + 'static> McpService<S> {
    /// A service for `server`; `config.listen` and `config.path` are not
    /// used. Refuses a server whose catalogue is invalid, as [`run`] does.
    pub fn new(server: S, config: HttpConfig) -> io::Result<Self> {
        Self::from_arc(Arc::new(server), config)
    }

    /// Like [`McpService::new`] for a server shared with other code.
    pub fn from_arc(server: Arc<S>, config: HttpConfig) -> io::Result<Self> {
        crate::server::check_catalogue(&*server)?;
        #[cfg(feature = "auth")]
        let config = with_declared_scopes(&*server, config);
        Ok(Self {
            state: State::new(server, config, true),
        })
    }
}

impl<S: McpServer + 'static, B: RequestBody> tower_service::Service<Request<B>> for McpService<S> {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let state = Arc::clone(&self.state);
        Box::pin(async move { Ok(handle(state, request).await) })
    }
}

#[cfg(feature = "auth")]
pub mod auth;
mod host;
mod mcp_headers;
mod outbox;
mod streams;

/// Adds the server's declared scopes to the auth settings, once, before
/// the first request.
#[cfg(feature = "auth")]
fn with_declared_scopes<S: McpServer>(server: &S, mut config: HttpConfig) -> HttpConfig {
    config.auth = config
        .auth
        .map(|auth| auth.with_declared_scopes(&server.declared_scopes()));
    config
}

/// Checks the bearer token and the server-wide scopes; the claims go into
/// the request's extensions.
#[cfg(feature = "auth")]
async fn authenticate<B>(
    auth: &auth::AuthConfig,
    mut request: Request<B>,
) -> Result<Request<B>, Response<Body>> {
    let required: Vec<&str> = auth.required_scopes.iter().map(String::as_str).collect();
    let token = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim().to_owned());
    let Some(token) = token else {
        return Err(auth_refusal(
            401,
            auth.challenge(None, &required),
            "Unauthorized: a bearer token is required",
        ));
    };
    let claims = match auth.validator.validate(&token).await {
        Ok(claims) => claims,
        Err(auth::TokenError::Invalid(reason)) => {
            return Err(auth_refusal(
                401,
                auth.challenge(Some(("invalid_token", &reason)), &required),
                &format!("Unauthorized: {reason}"),
            ));
        }
        Err(auth::TokenError::Unavailable(reason)) => {
            tracing::warn!(%reason, "token validation unavailable");
            return Err(error_response(
                503,
                None,
                errors::internal_error("Token validation is unavailable; try again"),
            ));
        }
    };
    let missing = auth.missing(&claims, &auth.required_scopes);
    if !missing.is_empty() {
        return Err(auth_refusal(
            403,
            auth.challenge(
                Some(("insufficient_scope", "a required scope is missing")),
                &required,
            ),
            &format!("Forbidden: missing scope {}", missing.join(" ")),
        ));
    }
    request.extensions_mut().insert(claims);
    Ok(request)
}

/// A 403 naming every scope the request needs, when its method's
/// capability or its tool needs scopes the token lacks.
#[cfg(feature = "auth")]
fn scope_refusal(
    auth: &auth::AuthConfig,
    parts: &http::request::Parts,
    message: &Parsed,
) -> Option<Response<Body>> {
    let method = message.method()?;
    let needed = auth.scopes_for(method, message.tool_name());
    if needed.is_empty() {
        return None;
    }
    let claims = parts.extensions.get::<auth::Claims>()?;
    let missing = auth.missing(claims, &needed);
    if missing.is_empty() {
        return None;
    }
    let scopes: Vec<&str> = auth
        .required_scopes
        .iter()
        .chain(&needed)
        .map(String::as_str)
        .collect();
    Some(auth_refusal(
        403,
        auth.challenge(
            Some(("insufficient_scope", "the request needs more scope")),
            &scopes,
        ),
        &format!("Forbidden: {method} needs scope {}", missing.join(" ")),
    ))
}

#[cfg(feature = "auth")]
fn auth_refusal(status: u16, challenge: String, message: &str) -> Response<Body> {
    let mut response = error_response(status, None, errors::invalid_request(message));
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(hyper::header::WWW_AUTHENTICATE, value);
    }
    response
}

/// TLS for the listener (feature `rustls`): a certificate chain and its
/// private key, both PEM files.
#[cfg(feature = "rustls")]
#[derive(Debug, Clone)]
pub struct TlsConfig {
    /// The certificate chain, leaf first (PEM).
    pub cert_chain: std::path::PathBuf,
    /// The private key (PEM: PKCS#8, PKCS#1 or SEC1).
    pub private_key: std::path::PathBuf,
}

#[cfg(feature = "rustls")]
impl TlsConfig {
    /// TLS from a PEM certificate chain and a PEM private key.
    pub fn from_pem_files(
        cert_chain: impl Into<std::path::PathBuf>,
        private_key: impl Into<std::path::PathBuf>,
    ) -> Self {
        Self {
            cert_chain: cert_chain.into(),
            private_key: private_key.into(),
        }
    }
}

/// The listener's TLS acceptor, or none: one type either way, so the
/// accept loop has no feature switches.
mod tokio_tls {
    use super::HttpConfig;

    #[cfg(feature = "rustls")]
    pub(super) type Acceptor = tokio_rustls::TlsAcceptor;

    /// Without the `rustls` feature there is never an acceptor.
    #[cfg(not(feature = "rustls"))]
    #[derive(Clone)]
    pub(super) enum Acceptor {}

    #[cfg(not(feature = "rustls"))]
    impl Acceptor {
        pub(super) async fn accept(
            &self,
            _: tokio::net::TcpStream,
        ) -> std::io::Result<tokio::net::TcpStream> {
            match *self {}
        }
    }

    #[cfg(not(feature = "rustls"))]
    pub(super) fn acceptor(_: &HttpConfig) -> std::io::Result<Option<Acceptor>> {
        Ok(None)
    }

    /// Reads the PEM files and builds the acceptor (HTTP/1.1 by ALPN);
    /// an unreadable or unusable file is an error naming it.
    #[cfg(feature = "rustls")]
    pub(super) fn acceptor(config: &HttpConfig) -> std::io::Result<Option<Acceptor>> {
        use rustls_pki_types::pem::PemObject as _;
        use rustls_pki_types::{CertificateDer, PrivateKeyDer};
        use std::io::{Error, ErrorKind};
        use std::sync::Arc;

        let Some(tls) = &config.tls else {
            return Ok(None);
        };
        let bad = |path: &std::path::Path, e: &dyn std::fmt::Display| {
            Error::new(
                ErrorKind::InvalidInput,
                format!("TLS: {}: {e}", path.display()),
            )
        };
        let chain = CertificateDer::pem_file_iter(&tls.cert_chain)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| bad(&tls.cert_chain, &e))?;
        if chain.is_empty() {
            return Err(bad(&tls.cert_chain, &"no certificate in the file"));
        }
        let key = PrivateKeyDer::from_pem_file(&tls.private_key)
            .map_err(|e| bad(&tls.private_key, &e))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut server = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::other(format!("TLS: {e}")))?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| bad(&tls.cert_chain, &e))?;
        server.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Some(tokio_rustls::TlsAcceptor::from(Arc::new(server))))
    }
}

/// Where the server is in its life, as connections see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Serving,
    /// Finish the current request, then close.
    Draining,
    /// Close now.
    Dropping,
}

/// One connection: hyper HTTP/1.1 with the header-read timeout, closed
/// gracefully on shutdown; it holds its connection slot until it ends.
async fn serve_connection<S: McpServer + 'static>(
    state: Arc<State<S>>,
    stream: tokio::net::TcpStream,
    tls: Option<tokio_tls::Acceptor>,
    stage: watch::Receiver<Stage>,
    slot: OwnedSemaphorePermit,
) {
    let Some(acceptor) = tls else {
        return serve_io(state, stream, stage, slot).await;
    };
    // The handshake counts against the header timeout: a client that
    // connects and says nothing is closed either way.
    let handshake = tokio::time::timeout(state.config.header_read_timeout, acceptor.accept(stream));
    match handshake.await {
        Ok(Ok(stream)) => serve_io(state, stream, stage, slot).await,
        Ok(Err(e)) => tracing::debug!(error = %e, "TLS handshake failed"),
        Err(_) => tracing::debug!("TLS handshake timed out"),
    }
}

async fn serve_io<S: McpServer + 'static, I>(
    state: Arc<State<S>>,
    stream: I,
    mut stage: watch::Receiver<Stage>,
    _slot: OwnedSemaphorePermit,
) where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    // What the tower service an application mounts runs (`handle`), without
    // its boxed future: hyper holds this one in place.
    let service_state = Arc::clone(&state);
    let service = service_fn(move |request| {
        let state = Arc::clone(&service_state);
        async move { Ok::<_, Infallible>(handle(state, request).await) }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(state.config.header_read_timeout)
        .serve_connection(TokioIo::new(stream), service);
    let mut connection = std::pin::pin!(connection);
    let served = tokio::select! {
        result = connection.as_mut() => Some(result),
        _ = stage.wait_for(|s| *s != Stage::Serving) => None,
    };
    let result = match served {
        Some(result) => result,
        None => {
            connection.as_mut().graceful_shutdown();
            tokio::select! {
                result = connection.as_mut() => result,
                _ = stage.wait_for(|s| *s == Stage::Dropping) => return,
            }
        }
    };
    if let Err(e) = result {
        tracing::debug!(error = %e, "connection ended with an error");
    }
}

/// At most one log line a second for a repeated event (rejected requests,
/// the connection limit), with how many were not logged meanwhile.
#[derive(Default)]
struct LogLimiter {
    state: Mutex<(Option<Instant>, u64)>,
}

impl LogLimiter {
    /// `Some(suppressed)` when this occurrence may be logged.
    fn allow(&self) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        match state.0 {
            Some(last) if now.duration_since(last) < Duration::from_secs(1) => {
                state.1 += 1;
                None
            }
            _ => {
                let suppressed = state.1;
                *state = (Some(now), 0);
                Some(suppressed)
            }
        }
    }
}

/// Ends idle legacy sessions in the background (never on a request's
/// path), every half idle timeout, at least every minute.
async fn sweep_sessions_every<S>(state: Weak<State<S>>) {
    loop {
        let period = match state.upgrade() {
            Some(state) => (state.config.session_idle_timeout / 2)
                .clamp(Duration::from_millis(100), Duration::from_secs(60)),
            None => return,
        };
        tokio::time::sleep(period).await;
        match state.upgrade() {
            Some(state) => state.end_idle_sessions(),
            None => return,
        }
    }
}

struct Session {
    session: LegacySession,
    peer: ClientPeer,
    last_seen: Mutex<Instant>,
    /// Whether a request after `initialize` named this session.
    used: AtomicBool,
    /// Who opened it (the token's subject or client, with `auth`): only
    /// requests of the same principal may use it.
    principal: Option<String>,
    in_flight: Mutex<HashMap<String, AbortHandle>>,
    stream: Mutex<Option<AbortHandle>>,
}

impl Session {
    fn end(&self) {
        self.peer.close();
        if let Some(stream) = self
            .stream
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            stream.abort();
        }
        for (_, task) in self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
        {
            task.abort();
        }
    }

    fn seen(&self) -> Instant {
        *self
            .last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// The live legacy sessions, and the ids of those not used yet, oldest
/// first (the first to go when the table is full).
#[derive(Default)]
struct Sessions {
    by_id: HashMap<String, Arc<Session>>,
    unused: VecDeque<String>,
}

struct State<S> {
    server: Arc<S>,
    config: HttpConfig,
    /// Serve every path (mounted as a service, the host routes).
    any_path: bool,
    sessions: Mutex<Sessions>,
    sweeper: std::sync::Once,
    limit_log: LogLimiter,
    rejected_log: LogLimiter,
    streams: Arc<streams::StreamLimits>,
}

impl<S: Send + Sync + 'static> State<S> {
    fn new(server: Arc<S>, config: HttpConfig, any_path: bool) -> Arc<Self> {
        let streams =
            streams::StreamLimits::new(config.max_streams, config.max_streams_per_principal);
        Arc::new(State {
            server,
            config,
            streams,
            any_path,
            sessions: Mutex::default(),
            sweeper: std::sync::Once::new(),
            limit_log: LogLimiter::default(),
            rejected_log: LogLimiter::default(),
        })
    }

    /// Starts the idle-session sweep on the first request (inside the
    /// runtime); it ends once the transport is gone.
    fn start_sweeper(self: &Arc<Self>) {
        self.sweeper.call_once(|| {
            tokio::spawn(sweep_sessions_every(Arc::downgrade(self)));
        });
    }
}

impl<S> State<S> {
    fn sessions(&self) -> std::sync::MutexGuard<'_, Sessions> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The live session `id`, when `principal` opened it.
    fn session(&self, id: &str, principal: Option<&str>) -> Option<Arc<Session>> {
        let session = self.sessions().by_id.get(id).cloned()?;
        if session.principal.as_deref() != principal {
            return None;
        }
        let mut last_seen = session
            .last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if last_seen.elapsed() > self.config.session_idle_timeout {
            drop(last_seen);
            self.end_session(id);
            return None;
        }
        *last_seen = Instant::now();
        drop(last_seen);
        session.used.store(true, Ordering::Relaxed);
        Some(session)
    }

    fn end_session(&self, id: &str) -> bool {
        let removed = self.sessions().by_id.remove(id);
        if let Some(session) = &removed {
            session.end();
        }
        removed.is_some()
    }

    /// Adds a session; at the cap it first ends the oldest never-used
    /// session, or, when every session is in use, the least recently used.
    fn admit(&self, id: String, session: Arc<Session>) {
        let cap = self.config.max_sessions.max(1);
        let mut sessions = self.sessions();
        let mut ended = Vec::new();
        while sessions.by_id.len() >= cap {
            let victim = match sessions.unused.pop_front() {
                Some(old) => match sessions.by_id.get(&old) {
                    Some(s) if !s.used.load(Ordering::Relaxed) => Some(old),
                    _ => continue,
                },
                // Every session is in use: a scan, rare by construction.
                None => sessions
                    .by_id
                    .iter()
                    .min_by_key(|(_, s)| s.seen())
                    .map(|(id, _)| id.clone()),
            };
            match victim.and_then(|id| sessions.by_id.remove(&id)) {
                Some(s) => ended.push(s),
                None => break,
            }
        }
        // Ids of sessions used or ended since are dropped now and then.
        if sessions.unused.len() > 2 * cap {
            let Sessions { by_id, unused } = &mut *sessions;
            unused.retain(|id| {
                by_id
                    .get(id)
                    .is_some_and(|s| !s.used.load(Ordering::Relaxed))
            });
        }
        sessions.unused.push_back(id.clone());
        sessions.by_id.insert(id, session);
        drop(sessions);
        if !ended.is_empty() {
            tracing::warn!(
                ended = ended.len(),
                cap,
                "legacy session table full; ended unused or least recently used sessions"
            );
        }
        for session in ended {
            session.end();
        }
    }

    /// Ends sessions idle for longer than the timeout.
    fn end_idle_sessions(&self) {
        let timeout = self.config.session_idle_timeout;
        let mut ended: Vec<Arc<Session>> = Vec::new();
        self.sessions().by_id.retain(|_, s| {
            let keep = s.seen().elapsed() <= timeout;
            if !keep {
                ended.push(Arc::clone(s));
            }
            keep
        });
        for session in ended {
            session.end();
        }
    }
}

/// The first pause after a failed `accept` (see the accept loop).
const ACCEPT_PAUSE_MIN: Duration = Duration::from_millis(10);
/// The longest pause after failed `accept`s in a row.
const ACCEPT_PAUSE_MAX: Duration = Duration::from_secs(1);

/// The response body: a whole buffer, or a stream of SSE frames.
pub struct Body {
    kind: BodyKind,
}

enum BodyKind {
    Full(Option<Bytes>),
    Stream {
        rx: mpsc::UnboundedReceiver<Bytes>,
        _guard: AbortOnDrop,
    },
}

impl Body {
    fn full(bytes: impl Into<Bytes>) -> Self {
        Self {
            kind: BodyKind::Full(Some(bytes.into())),
        }
    }

    fn empty() -> Self {
        Self {
            kind: BodyKind::Full(None),
        }
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.get_mut().kind {
            BodyKind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            BodyKind::Stream { rx, .. } => rx.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(&self.kind, BodyKind::Full(None))
    }

    /// Exact for a whole buffer, so hyper sends `Content-Length` rather
    /// than chunked encoding.
    fn size_hint(&self) -> hyper::body::SizeHint {
        match &self.kind {
            BodyKind::Full(Some(bytes)) => hyper::body::SizeHint::with_exact(bytes.len() as u64),
            BodyKind::Full(None) => hyper::body::SizeHint::with_exact(0),
            BodyKind::Stream { .. } => hyper::body::SizeHint::default(),
        }
    }
}

/// Aborts a task when dropped (a closed response cancels its handler).
struct AbortOnDrop(Option<AbortHandle>);

impl AbortOnDrop {
    fn new(handle: AbortHandle) -> Self {
        Self(Some(handle))
    }

    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            handle.abort();
        }
    }
}

fn sse_frame(message: &Value) -> Bytes {
    sse_frame_bytes(&serde_json::to_vec(message).unwrap_or_default())
}

/// One SSE `message` event carrying a serialized JSON-RPC message (which
/// has no newline: serde_json escapes them inside strings).
fn sse_frame_bytes(json: &[u8]) -> Bytes {
    let mut frame = Vec::with_capacity(json.len() + 22);
    frame.extend_from_slice(b"event: message\ndata: ");
    frame.extend_from_slice(json);
    frame.extend_from_slice(b"\n\n");
    Bytes::from(frame)
}

fn json_response(status: u16, body: &Value) -> Response<Body> {
    json_bytes_response(status, serde_json::to_vec(body).unwrap_or_default())
}

fn json_bytes_response(status: u16, bytes: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Body::full(bytes));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// An error answer; `id` is echoed only when it is a valid request id (a
/// string or an integer), as the entry point does on every transport.
fn error_response(status: u16, id: Option<&Value>, error: ErrorObject) -> Response<Body> {
    let mut body = json!({ "jsonrpc": "2.0", "error": error });
    let valid = id.filter(|id| id.is_string() || id.as_i64().is_some());
    if let (Some(id), Value::Object(object)) = (valid, &mut body) {
        object.insert("id".into(), id.clone());
    }
    json_response(status, &body)
}

fn status_only(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

fn method_not_allowed() -> Response<Body> {
    let mut response = error_response(
        405,
        None,
        errors::invalid_request("Method not allowed: this endpoint accepts POST"),
    );
    response
        .headers_mut()
        .insert(hyper::header::ALLOW, HeaderValue::from_static("POST"));
    response
}

const LISTEN: &str = mcp_types::v2026_07_28::methods::SUBSCRIPTIONS_LISTEN;

/// A request body the transport can read: hyper's own, axum's, any
/// `http_body::Body` of bytes.
pub trait RequestBody:
    hyper::body::Body<Error: Into<BoxError>, Data: Send> + Send + 'static
{
}

impl<B> RequestBody for B where
    B: hyper::body::Body<Error: Into<BoxError>, Data: Send> + Send + 'static
{
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

async fn handle<S: McpServer + 'static, B: RequestBody>(
    state: Arc<State<S>>,
    request: Request<B>,
) -> Response<Body> {
    let config = &state.config;
    if let Some(refused) = unsupported_transfer_coding(request.headers()) {
        return refused;
    }
    // Answers given before the body is read close the connection.
    let unread_body = !hyper::body::Body::is_end_stream(request.body());
    let refuse = |response| {
        if unread_body {
            closing(response)
        } else {
            response
        }
    };
    #[cfg(feature = "auth")]
    if let Some(auth) = &config.auth
        && request.method() == Method::GET
        && auth
            .metadata_paths()
            .iter()
            .any(|p| p == request.uri().path())
    {
        return json_response(200, &auth.metadata());
    }
    if !state.any_path && request.uri().path() != config.path {
        return refuse(status_only(StatusCode::NOT_FOUND));
    }
    state.start_sweeper();
    let headers = request.headers();
    let host = match host::request_authority(request.version(), request.uri(), headers) {
        Ok(host) => host,
        Err(reason) => return refuse(error_response(400, None, errors::invalid_request(reason))),
    };
    let allowed_hosts = &config.allowed_hosts;
    if !allowed_hosts.is_empty() && !host.is_some_and(|h| host::host_allowed(allowed_hosts, h)) {
        if let Some(suppressed) = state.rejected_log.allow() {
            tracing::warn!(?host, suppressed, "rejected Host");
        }
        return refuse(error_response(
            403,
            None,
            errors::invalid_request("Forbidden: Host not allowed"),
        ));
    }
    // Every `Origin` line must pass, not just the first.
    for origin in headers.get_all(hyper::header::ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|o| host::origin_allowed(allowed_hosts, &config.allowed_origins, o));
        if !allowed {
            if let Some(suppressed) = state.rejected_log.allow() {
                tracing::warn!(?origin, suppressed, "rejected Origin");
            }
            return refuse(error_response(
                403,
                None,
                errors::invalid_request("Forbidden: Origin not allowed"),
            ));
        }
    }
    #[cfg(feature = "auth")]
    let request = match &config.auth {
        Some(auth) => match authenticate(auth, request).await {
            Ok(request) => request,
            // The client's next request (the metadata fetch, usually)
            // must not be sent on this connection.
            Err(refused) => return refuse(refused),
        },
        None => request,
    };
    // A modern POST ignores the header whatever it holds; the era is only
    // known once the body is read.
    let session_id = mcp_headers::session_id(request.headers());
    if *request.method() == Method::POST {
        return post(state, request, session_id).await;
    }
    let session_id = match session_id {
        Ok(id) => id,
        Err(reason) => return error_response(400, None, errors::invalid_request(reason)),
    };
    match *request.method() {
        Method::GET => match session_id {
            None => method_not_allowed(),
            Some(id) => {
                let caller = principal(request.extensions());
                match state.session(&id, caller.as_deref()) {
                    None => session_not_found(None),
                    Some(session) => match state.streams.admit(caller.as_deref()) {
                        Ok(permit) => legacy_stream::<S>(&state, session, permit),
                        Err(refusal) => too_many_streams(&state, None, refusal),
                    },
                }
            }
        },
        Method::DELETE => match session_id {
            None => method_not_allowed(),
            Some(id) => {
                let owner = principal(request.extensions());
                if state.session(&id, owner.as_deref()).is_some() && state.end_session(&id) {
                    tracing::info!(session = %id, "legacy session ended by DELETE");
                    status_only(StatusCode::OK)
                } else {
                    session_not_found(None)
                }
            }
        },
        _ => method_not_allowed(),
    }
}

fn session_not_found(id: Option<&Value>) -> Response<Body> {
    error_response(
        404,
        id,
        errors::invalid_request("Session not found: initialize a new session"),
    )
}

/// The legacy GET stream: server-wide events as legacy notifications.
fn legacy_stream<S: McpServer + 'static>(
    state: &State<S>,
    session: Arc<Session>,
    permit: streams::StreamPermit,
) -> Response<Body> {
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    let mut events = state.config.events.subscribe();
    let legacy = session.session.clone();
    let task = tokio::spawn(async move {
        let _permit = permit;
        // An SSE comment opens the stream at once for the client.
        if tx.send(Bytes::from_static(b": stream open\n\n")).is_err() {
            return;
        }
        loop {
            match events.recv().await {
                Ok(ServerEvent::ShuttingDown) => return,
                Ok(event) => {
                    if let Some(message) = legacy_notification(S::declaration(), &legacy, &event)
                        && tx.send(sse_frame(&message)).is_err()
                    {
                        return;
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            }
        }
    });
    if let Some(old) = session
        .stream
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .replace(task.abort_handle())
    {
        old.abort();
    }
    sse_response(rx, AbortOnDrop::new(task.abort_handle()))
}

/// 429 for a stream past its cap, closing the connection: a client that
/// floods streams must not keep the connections either.
fn too_many_streams<S>(
    state: &State<S>,
    id: Option<&Value>,
    refusal: streams::Refusal,
) -> Response<Body> {
    if let Some(suppressed) = state.limit_log.allow() {
        tracing::warn!(?refusal, suppressed, "stream cap reached; stream refused");
    }
    let mut response = closing(error_response(
        429,
        id,
        errors::internal_error(refusal.message()),
    ));
    response
        .headers_mut()
        .insert(hyper::header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

fn sse_response(rx: mpsc::UnboundedReceiver<Bytes>, guard: AbortOnDrop) -> Response<Body> {
    let mut response = Response::new(Body {
        kind: BodyKind::Stream { rx, _guard: guard },
    });
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        hyper::header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache"),
    );
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

fn has_modern_meta(message: &Value) -> bool {
    match message.pointer("/params/_meta") {
        Some(Value::Object(meta)) => {
            meta.contains_key("io.modelcontextprotocol/protocolVersion")
                || meta.contains_key("io.modelcontextprotocol/clientCapabilities")
        }
        Some(_) => true,
        None => false,
    }
}

/// `response` with `Connection: close`: for answers given without reading
/// the request body to its end, after which hyper closes the connection.
/// Said out loud, a client opens a new connection for its next request
/// instead of racing the close on this one (RFC 9112 §9.6).
fn closing(mut response: Response<Body>) -> Response<Body> {
    response
        .headers_mut()
        .insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// 501 for a transfer coding other than one `chunked` (RFC 9112 §6.1):
/// the body could not be read as sent. `identity` is no coding since RFC
/// 7230 and is refused too; hyper itself answers 400 when `chunked` is
/// missing or not last.
fn unsupported_transfer_coding(headers: &hyper::HeaderMap) -> Option<Response<Body>> {
    let lines = headers.get_all(hyper::header::TRANSFER_ENCODING);
    let mut codings = lines
        .iter()
        .flat_map(|line| line.to_str().unwrap_or("?").split(','))
        .map(str::trim)
        // Empty list elements do not count (RFC 9110 §5.6.1).
        .filter(|coding| !coding.is_empty());
    let only_chunked = matches!(
        (codings.next(), codings.next()),
        (Some(coding), None) if coding.eq_ignore_ascii_case("chunked")
    );
    if only_chunked || lines.iter().next().is_none() {
        return None;
    }
    Some(closing(error_response(
        501,
        None,
        errors::invalid_request("Not Implemented: the only transfer coding served is chunked"),
    )))
}

/// The POST body, within the size limit and the time limit. A refused
/// body is not read to its end, so its answer closes the connection.
async fn read_body<B: RequestBody>(
    headers: &hyper::HeaderMap,
    body: B,
    limit: usize,
    timeout: Duration,
) -> Result<Bytes, Response<Body>> {
    let too_large = || {
        closing(error_response(
            413,
            None,
            errors::invalid_request(format!("Request body exceeds the {limit}-byte limit")),
        ))
    };
    let declared = headers
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let collected =
        tokio::time::timeout(timeout, http_body_util::Limited::new(body, limit).collect());
    let Ok(collected) = collected.await else {
        return Err(closing(error_response(
            408,
            None,
            errors::invalid_request(format!(
                "Request body not received within {} ms",
                timeout.as_millis()
            )),
        )));
    };
    match collected {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) => {
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some()
            {
                Err(too_large())
            } else {
                Err(status_only(StatusCode::BAD_REQUEST))
            }
        }
    }
}

/// The media type of a header value, without parameters.
fn media_type(value: &str) -> &str {
    value.split(';').next().unwrap_or_default().trim()
}

/// 415 for a body that is not declared JSON, 406 for a client that takes
/// neither JSON nor SSE; `None` when the request may go on.
fn check_media_types(headers: &hyper::HeaderMap) -> Option<Response<Body>> {
    if let Some(content_type) = headers.get(hyper::header::CONTENT_TYPE) {
        let declared = content_type.to_str().map(media_type).unwrap_or_default();
        if !declared.eq_ignore_ascii_case("application/json") {
            return Some(error_response(
                415,
                None,
                errors::invalid_request(format!(
                    "Unsupported Content-Type `{}`: send application/json",
                    declared.to_ascii_lowercase()
                )),
            ));
        }
    }
    let accepts = |value: &str| {
        value.split(',').map(media_type).any(|range| {
            [
                "application/json",
                "text/event-stream",
                "*/*",
                "application/*",
                "text/*",
            ]
            .iter()
            .any(|accepted| range.eq_ignore_ascii_case(accepted))
        })
    };
    let mut accept_values = headers
        .get_all(hyper::header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .peekable();
    if accept_values.peek().is_some() && !accept_values.any(accepts) {
        return Some(error_response(
            406,
            None,
            errors::invalid_request(
                "Not acceptable: the answer is application/json or text/event-stream",
            ),
        ));
    }
    None
}

async fn post<S: McpServer + 'static, B: RequestBody>(
    state: Arc<State<S>>,
    request: Request<B>,
    session_id: Result<Option<String>, String>,
) -> Response<Body> {
    if let Some(refused) = check_media_types(request.headers()) {
        return closing(refused);
    }
    let (parts, body) = request.into_parts();
    let parts = Arc::new(parts);
    let headers = &parts.headers;
    let body = match read_body(
        headers,
        body,
        state.config.max_body_bytes,
        state.config.body_read_timeout,
    )
    .await
    {
        Ok(body) => body,
        Err(response) => return response,
    };
    let message = parse(&body);
    drop(body);
    #[cfg(feature = "auth")]
    if let Some(auth) = &state.config.auth
        && let Some(refused) = scope_refusal(auth, &parts, &message)
    {
        return refused;
    }
    let (modern, raw) = match &message {
        Parsed::Modern(_) => (true, None),
        Parsed::Json(message) => (has_modern_meta(message), Some(message)),
        Parsed::Invalid => return error_response(400, None, errors::parse_error()),
    };
    let id = message.id_json();
    let mcp_headers = match mcp_headers::read(headers) {
        Ok(mcp_headers) => mcp_headers,
        Err(error) => return error_response(400, id.as_ref(), error),
    };
    // Era and session (the stale-session rule is in the module docs).
    let response = raw.is_some_and(is_response);
    let session_id = match session_id {
        Ok(session_id) => session_id,
        Err(_) if modern => None,
        Err(reason) => return error_response(400, id.as_ref(), errors::invalid_request(reason)),
    };
    let session = match (&session_id, modern) {
        (Some(sid), false) => match state.session(sid, principal(&parts.extensions).as_deref()) {
            Some(session) => Some(session),
            // A response carries the id of a server→client request: not one
            // the client may see echoed as its own request's.
            None => return session_not_found(id.as_ref().filter(|_| !response)),
        },
        _ => None,
    };
    // 2025-11-25: a request whose version header is not the session's
    // negotiated version gets 400.
    if let Some(session) = &session
        && let Some(version) = mcp_headers.protocol_version.as_deref()
        && version != session.session.protocol_version
    {
        return error_response(
            400,
            id.as_ref().filter(|_| !response),
            errors::invalid_request(format!(
                "Unsupported MCP-Protocol-Version header {version:?}: this session speaks {}",
                session.session.protocol_version
            )),
        );
    }
    if let Some(raw) = raw.filter(|_| response) {
        let delivered = session.as_ref().is_some_and(|s| s.peer.deliver(raw));
        if !delivered {
            tracing::debug!("a response that no request waits for; ignored");
        }
        return status_only(StatusCode::ACCEPTED);
    }
    if let Some(raw) = raw
        && raw.get("id").is_none()
        && let Some(method) = raw.get("method").and_then(Value::as_str)
        && !method.is_empty()
    {
        if method == "notifications/cancelled"
            && let (Some(session), Some(request_id)) = (&session, raw.pointer("/params/requestId"))
        {
            let task = session
                .in_flight
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&request_id.to_string());
            if let Some(task) = task {
                task.abort();
            }
        }
        return status_only(StatusCode::ACCEPTED);
    }
    let mut ctx = MessageContext::http_headers(mcp_headers)
        .with_http_request(Arc::clone(&parts))
        .with_events(state.config.events.clone())
        .with_server_info_in_results(state.config.server_info_in_results);
    if let Some(session) = &session {
        ctx = ctx
            .with_legacy_session(session.session.clone())
            .with_peer(session.peer.clone());
    }
    let (tx, rx) = outbox::outbox();
    // A client that does not accept SSE gets JSON only: the request's
    // notifications are dropped (and legacy server→client requests fail).
    let sse_ok = headers
        .get(hyper::header::ACCEPT)
        .and_then(|a| a.to_str().ok())
        .is_none_or(|a| a.contains("text/event-stream") || a.contains("*/*"));
    if sse_ok {
        ctx = ctx.with_sink(move |message| tx.send(message));
    } else {
        drop(tx);
    }
    let server = Arc::clone(&state.server);
    let key = match &message {
        Parsed::Json(message) => message.get("id").map(Value::to_string),
        _ => None,
    };
    let in_flight = match (&session, key) {
        (Some(session), Some(key)) => Some((Arc::clone(session), key)),
        _ => None,
    };
    let response = match in_flight {
        // Legacy requests stay cancellable (`notifications/cancelled`)
        // until their handler ends, whether the answer is JSON or SSE: a
        // task of their own, registered before it can finish.
        Some((session, key)) => {
            let guard = InFlightEntry {
                session: Arc::clone(&session),
                key: key.clone(),
            };
            let task = {
                let mut registry = session
                    .in_flight
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                let task = tokio::spawn(async move {
                    let _guard = guard;
                    handle_parsed(&*server, Some(&server), message, &ctx).await
                });
                registry.insert(key, task.abort_handle());
                task
            };
            let abort = task.abort_handle();
            respond(Box::pin(task), Some(abort), rx).await
        }
        // Everything else runs in the connection's own task: no spawn.
        None => {
            // A listen holds its place until its stream ends.
            let permit = match message.method() {
                Some(LISTEN) => {
                    match state.streams.admit(principal(&parts.extensions).as_deref()) {
                        Ok(permit) => Some(permit),
                        Err(refusal) => return too_many_streams(&state, id.as_ref(), refusal),
                    }
                }
                _ => None,
            };
            let work = async move {
                let _permit = permit;
                Ok(handle_parsed(&*server, Some(&server), message, &ctx).await)
            };
            respond(Box::pin(work), None, rx).await
        }
    };
    match response {
        Respond::Json(mut outcome) => {
            if session.is_some() {
                // A legacy session's JSON-RPC answers are all HTTP 200.
                outcome.http_status = 200;
            }
            outcome_response(&state, outcome, principal(&parts.extensions))
        }
        Respond::Sse(response) => response,
        Respond::Cancelled => status_only(StatusCode::ACCEPTED),
    }
}

/// Removes a legacy request from its session's cancellable set when its
/// handler ends (or is aborted).
struct InFlightEntry {
    session: Arc<Session>,
    key: String,
}

impl Drop for InFlightEntry {
    fn drop(&mut self) {
        self.session
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.key);
    }
}

enum Respond {
    Json(Outcome),
    Sse(Response<Body>),
    Cancelled,
}

/// The handling of one request: its own task (which may be aborted), or a
/// future run in place.
type Work = Pin<Box<dyn Future<Output = Result<Outcome, tokio::task::JoinError>> + Send>>;

/// JSON unless the handler sends a message before its response; then SSE,
/// with the handling moved into the stream's forwarder.
async fn respond(mut task: Work, abort: Option<AbortHandle>, rx: outbox::Receiver) -> Respond {
    let guard = AbortOnDrop(abort);
    let first = tokio::select! {
        biased;
        message = rx.recv() => message,
        outcome = &mut task => {
            match (outcome, rx.try_recv()) {
                (Ok(outcome), None) => {
                    guard.disarm();
                    return Respond::Json(outcome);
                }
                (Ok(outcome), Some(message)) => {
                    let (btx, brx) = mpsc::unbounded_channel();
                    let _ = btx.send(sse_frame(&message));
                    while let Some(message) = rx.try_recv() {
                        let _ = btx.send(sse_frame(&message));
                    }
                    if let Some(body) = outcome.body {
                        let _ = btx.send(sse_frame_bytes(&body));
                    }
                    guard.disarm();
                    return Respond::Sse(sse_response(brx, AbortOnDrop(None)));
                }
                (Err(_), _) => return Respond::Cancelled,
            }
        }
    };
    let Some(first) = first else {
        return match task.await {
            Ok(outcome) => Respond::Json(outcome),
            Err(_) => Respond::Cancelled,
        };
    };
    let (btx, brx) = mpsc::unbounded_channel::<Bytes>();
    let _ = btx.send(sse_frame(&first));
    let forwarder = tokio::spawn(async move {
        let _guard = guard;
        loop {
            tokio::select! {
                biased;
                message = rx.recv() => match message {
                    Some(message) => {
                        if btx.send(sse_frame(&message)).is_err() {
                            return;
                        }
                    }
                    None => break,
                },
                outcome = &mut task => {
                    while let Some(message) = rx.try_recv() {
                        let _ = btx.send(sse_frame(&message));
                    }
                    if let Ok(Outcome { body: Some(body), .. }) = outcome {
                        let _ = btx.send(sse_frame_bytes(&body));
                    }
                    return;
                }
            }
        }
        if let Ok(Outcome {
            body: Some(body), ..
        }) = task.await
        {
            let _ = btx.send(sse_frame_bytes(&body));
        }
    });
    Respond::Sse(sse_response(
        brx,
        AbortOnDrop::new(forwarder.abort_handle()),
    ))
}

fn outcome_response<S>(
    state: &State<S>,
    outcome: Outcome,
    principal: Option<String>,
) -> Response<Body> {
    // Only a new session needs the id again (for its error); read it first.
    let request_id = outcome
        .new_legacy_session
        .as_ref()
        .and_then(|_| outcome.json())
        .and_then(|body| body.get("id").cloned());
    let mut response = match outcome.body {
        Some(body) => json_bytes_response(outcome.http_status, body),
        None => status_only(StatusCode::ACCEPTED),
    };
    if let Some(session) = outcome.new_legacy_session {
        let id = match crate::random_id::random_id() {
            Ok(id) => id,
            Err(error) => {
                tracing::error!(%error, "no OS randomness for a session id");
                let body = json!({"jsonrpc": "2.0", "id": request_id,
                    "error": {"code": -32603, "message": "Cannot create a session: no OS randomness"}});
                return json_response(500, &body);
            }
        };
        tracing::info!(session = %id, version = %session.protocol_version, "legacy session started");
        state.admit(
            id.clone(),
            Arc::new(Session {
                session,
                peer: ClientPeer::with_timeout(state.config.client_request_timeout),
                last_seen: Mutex::new(Instant::now()),
                used: AtomicBool::new(false),
                principal,
                in_flight: Mutex::default(),
                stream: Mutex::default(),
            }),
        );
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(MCP_SESSION_ID, value);
        }
    }
    response
}
