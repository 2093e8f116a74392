//! Every setting of the HTTP transport and its default (`HttpConfig`,
//! `TlsConfig`).

use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "auth")]
use super::auth;
#[cfg(feature = "auth")]
use crate::model::server::McpServer;
use crate::state::events::ServerEvents;
use crate::state::sessions::{EventStore, MemoryEventStore, MemorySessionStore, SessionStore};

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

/// The address [`HttpConfig::default`] listens on: loopback, port 8080.
pub const DEFAULT_LISTEN: SocketAddr =
    SocketAddr::new(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 8080);

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The MCP endpoint path (default `/mcp`).
    pub path: String,
    /// Hostnames (without port; IPv6 without brackets) accepted in `Host`
    /// and in `Origin`: the DNS-rebinding protection. Default
    /// [`DEFAULT_ALLOWED_HOSTS`] (loopback), plus the host the constructor
    /// was given unless it is a wildcard address (`0.0.0.0`, `::`): a
    /// server started on `myhost.lan:8080` answers requests for
    /// `myhost.lan`. A server reached under any other name (a mounted
    /// [`McpService`](crate::http::McpService), one listening on
    /// `0.0.0.0`) needs [`allow_host`](Self::allow_host). Empty: any host
    /// (only behind a proxy that checks it).
    pub allowed_hosts: Vec<String>,
    /// Extra exact `Origin` values accepted (e.g. `https://app.example`).
    pub allowed_origins: Vec<String>,
    /// The largest accepted POST body (default [`DEFAULT_MAX_BODY_BYTES`]).
    pub max_body_bytes: usize,
    /// Whether results carry `_meta["io.modelcontextprotocol/serverInfo"]`
    /// (default true).
    pub server_info_in_results: bool,
    /// The event hub listen streams and legacy sessions follow (default:
    /// this process's own). Several instances behind a load balancer share
    /// one with `ServerEvents::with_redis(RedisEventBus::open(url)?)?`
    /// (feature `redis`), so a list change, resource update or task
    /// status raised on any instance reaches the listeners of all.
    pub events: ServerEvents,
    /// A legacy session unused for this long is ended (default 30 min);
    /// its id then gets 404 and the client re-initializes. The timeout is
    /// stored with the session: with a shared store it holds on every
    /// instance.
    pub session_idle_timeout: Duration,
    /// Where legacy sessions live (default: a [`MemorySessionStore`], this
    /// process only). A shared store (`RedisSessionStore`, feature
    /// `redis`) lets every instance behind a load balancer serve every
    /// session; see [`sessions`](crate::sessions) for what is shared.
    pub session_store: Arc<dyn SessionStore>,
    /// Where the SSE events of legacy session streams are kept for
    /// `Last-Event-ID` resumption (default: a [`MemoryEventStore`], this
    /// process only; with several instances use a shared one, e.g.
    /// `RedisSessionStore::event_store`).
    pub event_store: Arc<dyn EventStore>,
    /// At most this many legacy sessions live at once (default 10 000).
    /// At the cap a new session replaces the oldest session that never
    /// served a request after its `initialize`; only when every session is
    /// in use does the least recently used one end. So a flood of
    /// `initialize` calls cannot push out the sessions clients use. With a
    /// shared [`session_store`](Self::session_store) this bounds what one
    /// instance holds: a session pushed out loses only this instance's part
    /// (its GET stream and requests here) and is loaded again when used;
    /// the store's own bound is the idle timeout.
    pub max_sessions: usize,
    /// At most this many connections are served at once (default
    /// [`DEFAULT_MAX_CONNECTIONS`]). At the cap the server stops accepting
    /// (the kernel's backlog holds new connections) until one closes, so
    /// idle or slow clients cannot exhaust file descriptors.
    pub max_connections: usize,
    /// At most this many long-lived streams (`subscriptions/listen`
    /// requests and legacy GET streams) are open at once (default
    /// [`DEFAULT_MAX_STREAMS`]); one more gets **429** with a JSON-RPC
    /// error and `Connection: close`. Over HTTP/1.1 each stream holds a
    /// connection, so keep this below
    /// [`max_connections`](Self::max_connections): the difference is what
    /// ordinary requests always have.
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
    /// [`DEFAULT_CLIENT_REQUEST_TIMEOUT`](crate::model::peer::DEFAULT_CLIENT_REQUEST_TIMEOUT));
    /// see [`ClientPeer::request`](crate::model::peer::ClientPeer::request) for the error the handler then gets.
    pub client_request_timeout: Duration,
    /// Serve HTTP/2 beside HTTP/1.1 (feature `http2`; default: on with the
    /// feature) from [`run`](super::run), [`serve`](super::serve) and
    /// [`serve_listener_until`](super::serve_listener_until): by prior
    /// knowledge on plain connections (the client's first bytes are the
    /// HTTP/2 preface), by ALPN (`h2`) with TLS. Every request of a
    /// connection is a stream of its own (at most 200 open at once, hyper's
    /// default), so idle listen streams share their connections;
    /// [`max_streams`](Self::max_streams) still counts each. A connection
    /// with no request open for
    /// [`header_read_timeout`](Self::header_read_timeout) is closed
    /// (GOAWAY), as an idle HTTP/1.1 connection is.
    #[cfg(feature = "http2")]
    pub http2: bool,
    /// Serve HTTPS with this certificate (feature `rustls`; default: plain
    /// HTTP). Applies to [`run`](super::run), [`serve`](super::serve) and
    /// [`serve_listener_until`](super::serve_listener_until); a mounted
    /// [`McpService`](super::McpService) leaves TLS to its host.
    #[cfg(feature = "rustls")]
    pub tls: Option<TlsConfig>,
    /// Require OAuth bearer tokens (feature `auth`; default: none). See
    /// [`auth`] for what each request then gets.
    #[cfg(feature = "auth")]
    pub auth: Option<auth::AuthConfig>,
}

impl Default for HttpConfig {
    /// Defaults, listening on [`DEFAULT_LISTEN`] (`127.0.0.1:8080`). Meant
    /// for a mounted [`McpService`](crate::http::McpService), which
    /// ignores the address: its host decides where to listen. `Host` and
    /// `Origin` must still name loopback ([`DEFAULT_ALLOWED_HOSTS`]), since
    /// the name the application is reached under is not known here; add it
    /// with
    /// [`allow_host`](Self::allow_host) (`.allow_host("api.example.com")`)
    /// rather than [`allow_any_host`](Self::allow_any_host), which turns
    /// DNS-rebinding protection off.
    fn default() -> Self {
        Self::new(DEFAULT_LISTEN)
    }
}

impl HttpConfig {
    /// Defaults, listening on `listen`; its IP is allowed in `Host` and
    /// `Origin` unless it is a wildcard (see
    /// [`allowed_hosts`](Self::allowed_hosts)).
    pub fn new(listen: SocketAddr) -> Self {
        let config = Self::defaults(listen);
        config.allow_listen_host(&listen.ip().to_string(), Some(listen.ip()))
    }

    /// Defaults, listening on `addr`, written `HOST:PORT` as for
    /// [`std::net::TcpListener::bind`]: `"127.0.0.1:8080"`,
    /// `"localhost:8101"`, `"[::1]:8080"`, `"0.0.0.0:0"` (port 0: any free
    /// port; the startup line says which). A name is resolved now,
    /// blocking, and its first IPv4 address is
    /// used (else its first address), so `localhost` means `127.0.0.1`
    /// where it resolves to both. The host as written is allowed in `Host`
    /// and `Origin` unless it is a wildcard address (see
    /// [`allowed_hosts`](Self::allowed_hosts)).
    ///
    /// ```
    /// # use mcp_era_server::http::HttpConfig;
    /// let config = HttpConfig::bind("127.0.0.1:8101")?;
    /// assert_eq!(config.listen.port(), 8101);
    /// assert!(HttpConfig::bind("8101").is_err());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::InvalidInput`] when `addr` is not `HOST:PORT`;
    /// the resolver's error when the name does not resolve. Both name
    /// `addr`.
    pub fn bind(addr: &str) -> io::Result<Self> {
        if let Ok(listen) = addr.parse::<SocketAddr>() {
            return Ok(Self::new(listen));
        }
        let invalid = |why: &str| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "invalid listen address {addr:?}: {why}; \
                     write HOST:PORT, e.g. 127.0.0.1:8080, localhost:8080 or [::1]:8080"
                ),
            )
        };
        let Some((host, port)) = addr.rsplit_once(':') else {
            return Err(invalid("no port"));
        };
        let port: u16 = port
            .parse()
            .map_err(|_| invalid("the port is not a number from 0 to 65535"))?;
        if host.is_empty() {
            return Err(invalid(
                "no host (127.0.0.1 serves this machine only, 0.0.0.0 every interface)",
            ));
        }
        if host.starts_with('[') {
            return Err(invalid("not a valid IPv6 address"));
        }
        if host.contains(':') {
            return Err(invalid("an IPv6 address goes in brackets"));
        }
        let resolved: Vec<SocketAddr> = (host, port)
            .to_socket_addrs()
            .map_err(|e| io::Error::new(e.kind(), format!("cannot resolve {addr:?}: {e}")))?
            .collect();
        let listen = resolved
            .iter()
            .find(|a| a.is_ipv4())
            .or_else(|| resolved.first())
            .copied()
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("cannot resolve {addr:?}: no address"),
                )
            })?;
        Ok(Self::defaults(listen).allow_listen_host(host, None))
    }

    /// Allows the listen host `host` (`ip` when it is an address literal)
    /// unless it is a wildcard or already allowed.
    fn allow_listen_host(self, host: &str, ip: Option<IpAddr>) -> Self {
        let wildcard = ip
            .or_else(|| host.parse().ok())
            .is_some_and(|ip| ip.is_unspecified());
        let known = self
            .allowed_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(host));
        if wildcard || known {
            self
        } else {
            self.allow_host(host)
        }
    }

    /// Every default, listening on `listen`, loopback allowed.
    fn defaults(listen: SocketAddr) -> Self {
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
            session_store: Arc::new(MemorySessionStore::new()),
            event_store: Arc::new(MemoryEventStore::default()),
            max_sessions: 10_000,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_streams: DEFAULT_MAX_STREAMS,
            max_streams_per_principal: DEFAULT_MAX_STREAMS_PER_PRINCIPAL,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            client_request_timeout: crate::model::peer::DEFAULT_CLIENT_REQUEST_TIMEOUT,
            #[cfg(feature = "http2")]
            http2: true,
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

    /// Keeps legacy sessions in `store` (see
    /// [`session_store`](Self::session_store)).
    pub fn with_session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.session_store = store;
        self
    }

    /// Keeps the events of legacy session streams in `store` (see
    /// [`event_store`](Self::event_store)).
    pub fn with_event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = store;
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

    use super::*;

    fn loopback() -> Vec<String> {
        DEFAULT_ALLOWED_HOSTS
            .iter()
            .map(|h| (*h).to_owned())
            .collect()
    }

    #[test]
    fn bind_takes_addresses_and_names() {
        let config = HttpConfig::bind("127.0.0.1:0").unwrap();
        assert_eq!(config.listen, SocketAddr::from(([127, 0, 0, 1], 0)));
        assert_eq!(config.allowed_hosts, loopback());
        let config = HttpConfig::bind("[::1]:8080").unwrap();
        assert_eq!(config.listen, "[::1]:8080".parse().unwrap());
        assert_eq!(config.allowed_hosts, loopback());
        let config = HttpConfig::bind("localhost:8101").unwrap();
        assert!(config.listen.ip().is_loopback(), "{}", config.listen);
        assert_eq!(config.listen.port(), 8101);
        assert_eq!(config.allowed_hosts, loopback());
        assert_eq!(config.path, "/mcp");
    }

    #[test]
    fn the_listen_host_is_allowed_unless_a_wildcard() {
        for wildcard in ["0.0.0.0:8080", "[::]:8080"] {
            let config = HttpConfig::bind(wildcard).unwrap();
            assert_eq!(config.allowed_hosts, loopback(), "{wildcard}");
        }
        let config = HttpConfig::bind("192.0.2.7:80").unwrap();
        assert_eq!(config.allowed_hosts.last().unwrap(), "192.0.2.7");
        let config = HttpConfig::new("[2001:db8::1]:80".parse().unwrap());
        assert_eq!(config.allowed_hosts.last().unwrap(), "2001:db8::1");
        let config = HttpConfig::defaults(DEFAULT_LISTEN).allow_listen_host("MyHost.lan", None);
        assert_eq!(config.allowed_hosts.last().unwrap(), "myhost.lan");
    }

    #[test]
    fn bind_names_what_is_wrong() {
        for (addr, why) in [
            ("8080", "no port"),
            ("localhost", "no port"),
            (":8080", "no host"),
            ("localhost:99999", "the port is not a number"),
            ("localhost:http", "the port is not a number"),
            ("::1:8080", "an IPv6 address goes in brackets"),
            ("[nope]:80", "not a valid IPv6 address"),
        ] {
            let e = HttpConfig::bind(addr).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{addr}");
            let message = e.to_string();
            assert!(
                message.starts_with(&format!("invalid listen address {addr:?}: {why}")),
                "{message}"
            );
            assert!(message.contains("HOST:PORT"), "{message}");
        }
        let e = HttpConfig::bind("no-such-host.invalid:80").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot resolve \"no-such-host.invalid:80\""),
            "{e}"
        );
    }

    #[test]
    fn default_listens_on_loopback_and_allows_only_loopback() {
        let config = HttpConfig::default();
        assert_eq!(config.listen, DEFAULT_LISTEN);
        assert_eq!(config.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(config.allowed_hosts, loopback());
        assert!(config.allowed_origins.is_empty());
    }
}
