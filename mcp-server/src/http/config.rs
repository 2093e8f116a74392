//! Every setting of the HTTP transport and its default (`HttpConfig`,
//! `TlsConfig`).

use std::net::SocketAddr;
use std::time::Duration;

#[cfg(feature = "auth")]
use super::auth;
#[cfg(feature = "auth")]
use crate::model::server::McpServer;
use crate::state::events::ServerEvents;

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
            client_request_timeout: crate::model::peer::DEFAULT_CLIENT_REQUEST_TIMEOUT,
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

/// Adds the server's declared scopes to the auth settings, once, before
/// the first request.
#[cfg(feature = "auth")]
pub(super) fn with_declared_scopes<S: McpServer>(server: &S, mut config: HttpConfig) -> HttpConfig {
    config.auth = config
        .auth
        .map(|auth| auth.with_declared_scopes(&server.declared_scopes()));
    config
}
