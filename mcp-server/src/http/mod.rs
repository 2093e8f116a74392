//! The Streamable HTTP transport (hyper 1, HTTP/1.1 and with the `http2`
//! feature HTTP/2): one endpoint,
//! `/mcp` by default, serving modern (2026-07-28) requests statelessly and
//! legacy (2025-11-25) clients through `Mcp-Session-Id` sessions.
//!
//! ```no_run
//! # use mcp_era_server::McpServer;
//! # #[derive(McpServer)] #[mcp(name = "x", version = "1")] struct MyServer;
//! use mcp_era_server::http::HttpConfig;
//! fn main() -> std::io::Result<()> {
//!     mcp_era_server::http::run(MyServer, HttpConfig::bind("127.0.0.1:8080")?)
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
//! HTTP/2: with the `http2` feature the listener also speaks HTTP/2 (see
//! `HttpConfig::http2`), each request a stream; many idle listen streams
//! then share a connection rather than hold one each.
//!
//! To mount MCP in an existing application (axum's
//! `Router::nest_service("/mcp", …)`, tower layers, plain hyper), use
//! [`McpService`], a `tower::Service` over any request body; `run` and
//! `serve` own the listener and add the connection limits, the header
//! timeout and graceful shutdown. `cargo run -p mcp-era --example
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
//!    `::1` and the listen host unless a wildcard, any port), and each
//!    `Origin` line must be `http(s)://`
//!    plus an allowed host (or be listed in
//!    [`HttpConfig::allowed_origins`]); else **403**. Both with a JSON-RPC
//!    `-32600` body without `id`.
//! 4. **GET / DELETE**: with the `Mcp-Session-Id` of a live legacy session,
//!    GET opens that session's SSE stream (server-wide events as legacy
//!    notifications; one per session: a new one closes the one before, on
//!    whichever instance it was) and DELETE ends the session everywhere
//!    (200). A GET with `Last-Event-ID` resumes the stream that id names
//!    (see [Legacy sessions](#legacy-sessions-and-several-instances)). An
//!    unknown session id gets 404; more than one `Mcp-Session-Id` line, 400
//!    `-32600`. Without a session id (the modern era has no sessions) both
//!    get **405** with `Allow: POST`. Other methods: 405. A GET stream past
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
//!    request) is handed to the request waiting for it, on this instance
//!    or the one its id names, and answered 202.
//! 8. **Era and session**. A message whose `params._meta` carries the
//!    modern keys is modern, whatever else it carries. **Stale session id
//!    rule**: the spec says modern `_meta` wins, so a
//!    modern request with an `Mcp-Session-Id` is served statelessly and the
//!    header is ignored: not validated, not echoed, no 404 even if the
//!    session is unknown. Any other message with an `Mcp-Session-Id` is
//!    legacy: an unknown or ended session gets **404**, more than one
//!    `Mcp-Session-Id` line 400 `-32600`.
//! 9. **Notifications** get **202** and an empty body (a legacy
//!    `notifications/cancelled` first aborts the named request, wherever
//!    it runs).
//! 10. Everything else goes to the entry point ([`handle_message`](crate::dispatch::handle_message)),
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
//! Closing the response (client disconnect) cancels the handler, except
//! inside a legacy session: there the stream is resumable and the request
//! goes on (2025-11-25: a disconnect is not a cancellation).
//!
//! # Legacy sessions and several instances
//!
//! A legacy session lives in [`HttpConfig::session_store`]: by default in
//! this process, or shared by several (Redis, feature `redis`), so that
//! every instance behind a load balancer serves every request of every
//! session: [`sessions`](crate::sessions) says what is shared and what stays
//! with one instance, and how instances tell each other about a session.
//! If a shared store cannot answer, a request of a session this instance
//! holds is still served (a change to the session then fails with
//! `-32603`), and any other session request, `initialize` and `DELETE` get
//! **503** with `Retry-After: 1` and a JSON-RPC `-32603` naming the
//! failure, within the store's bound.
//!
//! **Resumable streams** (2025-11-25 "Resumability and Redelivery"): every
//! SSE event of a legacy session's streams (the GET stream, and each POST
//! answered with SSE) carries an id `{stream}-{seq}`, and each stream opens
//! with a priming event (that id, empty data). Events are kept in
//! [`HttpConfig::event_store`] (a window per stream). A GET with
//! `Last-Event-ID` gets the events of that stream after that id, in order,
//! once, on any instance sharing the event store: a POST stream is then
//! followed to its response (the request was not cancelled by the
//! disconnect), a GET stream goes on live as the session's GET stream. An
//! id the server did not give, or of a stream no longer kept, opens a plain
//! GET stream. A handler may close its POST connection early, the request
//! going on ([`RequestContext::close_sse_stream`](crate::RequestContext::close_sse_stream),
//! the "polling" of SEP-1699): the stream then ends with a `retry` field and
//! the client resumes it. Modern requests have no ids and no resumption
//! (2026-07-28 removed them).
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
//! | legacy sessions held by one instance ([`max_sessions`](HttpConfig::max_sessions)) | 10 000 | the oldest never-used session ends (else the least recently used); with a shared store only this instance's part of it |
//! | idle legacy session ([`session_idle_timeout`](HttpConfig::session_idle_timeout)) | 30 min | ended (on every instance with a shared store); its id gets 404 |
//! | events kept per stream for `Last-Event-ID` ([`MemoryEventStore`](crate::sessions::MemoryEventStore), Redis `MAXLEN ~`) | 1000 (50 000 in all in memory) | older events are dropped; a resume from before them gets what is left |
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

#[cfg(feature = "auth")]
pub mod auth;
mod config;
mod connection;
mod event_log;
mod guards;
mod host;
#[cfg(feature = "http2")]
mod http2;
mod listener;
mod log_limit;
mod mcp_headers;
mod outbox;
mod post;
mod response;
mod resume;
mod service;
mod sessions;
mod sse;
mod state;
mod streams;

#[cfg(feature = "rustls")]
pub use config::TlsConfig;
pub use config::{
    DEFAULT_ALLOWED_HOSTS, DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_LISTEN,
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_STREAMS,
    DEFAULT_MAX_STREAMS_PER_PRINCIPAL, DEFAULT_SHUTDOWN_GRACE, HttpConfig,
};
pub use guards::RequestBody;
pub use listener::{run, serve, serve_listener, serve_listener_until, shutdown_signal};
pub use response::Body;
pub use service::McpService;

pub use crate::model::context::PeerAddr;
