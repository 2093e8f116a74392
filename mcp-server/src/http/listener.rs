//! Serving on a socket: the accept loop, TLS, the connection cap, header
//! timeouts and graceful shutdown.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use hyper::Request;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

use super::config::HttpConfig;
#[cfg(feature = "auth")]
use super::config::with_declared_scopes;
use super::connection::{Stage, drive};
use super::service::handle;
use super::state::State;
use crate::model::context::PeerAddr;
use crate::model::server::McpServer;
use crate::state::events::ServerEvent;

/// Binds [`HttpConfig::listen`] and serves `server` on a new multi-threaded
/// tokio runtime until ctrl-c or SIGTERM ([`shutdown_signal`]), then shuts
/// down gracefully (see [`serve_listener_until`]). Once listening it says
/// where, as [`serve`] does.
pub fn run<S: McpServer + 'static>(server: S, config: HttpConfig) -> io::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve(server, config))
}

/// Binds [`HttpConfig::listen`] and serves `server` until ctrl-c or
/// SIGTERM, then shuts down gracefully.
///
/// Once listening it logs one line with the bound address (the real port
/// when port 0 was asked for), e.g. `MCP server "notes" 1.0.0 listening on
/// http://127.0.0.1:8101/mcp`: through `tracing` at info level, or on
/// stderr when no `tracing` subscriber is installed, so a server started
/// from a terminal always says where it is.
pub async fn serve<S: McpServer + 'static>(server: S, config: HttpConfig) -> io::Result<()> {
    let listener = TcpListener::bind(config.listen).await.map_err(|e| {
        io::Error::new(e.kind(), format!("cannot listen on {}: {e}", config.listen))
    })?;
    serve_until(Arc::new(server), listener, config, shutdown_signal(), true).await
}

/// The startup line: what is served, and where.
fn startup_line<S: McpServer>(
    server: &S,
    address: std::net::SocketAddr,
    config: &HttpConfig,
) -> String {
    let declaration = server.declaration();
    let info = declaration.server_info();
    #[cfg(feature = "rustls")]
    let scheme = if config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    #[cfg(not(feature = "rustls"))]
    let scheme = "http";
    format!(
        "MCP server {:?} {} listening on {scheme}://{address}{}",
        info.name, info.version, config.path
    )
}

/// Logs `line` at info level, or writes it to stderr when `stderr_fallback`
/// is set and no subscriber would show it (none installed, or one that
/// logs warnings only, as `serve_from_args` installs by default).
fn announce(line: &str, stderr_fallback: bool) {
    if stderr_fallback && !info_is_shown() {
        eprintln!("{line}");
    } else {
        tracing::info!("{line}");
    }
}

/// Whether an info event here would reach a subscriber that shows it.
fn info_is_shown() -> bool {
    tracing::enabled!(tracing::Level::INFO)
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
/// is still running after [`HttpConfig::shutdown_grace`]. The startup line
/// goes to `tracing` only (the caller bound the listener, so it knows
/// where it is).
pub async fn serve_listener_until<S: McpServer + 'static>(
    server: Arc<S>,
    listener: TcpListener,
    config: HttpConfig,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    serve_until(server, listener, config, shutdown, false).await
}

/// [`serve_listener_until`], with the startup line also on stderr when
/// `stderr_fallback` is set and no subscriber is installed.
async fn serve_until<S: McpServer + 'static>(
    server: Arc<S>,
    listener: TcpListener,
    config: HttpConfig,
    shutdown: impl Future<Output = ()>,
    stderr_fallback: bool,
) -> io::Result<()> {
    crate::model::server::check_catalogue(&*server)?;
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
    announce(
        &startup_line(&*server, listener.local_addr()?, &config),
        stderr_fallback,
    );
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
        let (stream, peer) = match accepted {
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
            PeerAddr(peer),
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
        #[cfg(feature = "http2")]
        if config.http2 {
            server.alpn_protocols.insert(0, b"h2".to_vec());
        }
        Ok(Some(tokio_rustls::TlsAcceptor::from(Arc::new(server))))
    }
}

/// One connection: hyper HTTP/1.1 with the header-read timeout (or HTTP/2,
/// see [`HttpConfig::http2`]), closed gracefully on shutdown; it holds its
/// connection slot until it ends.
async fn serve_connection<S: McpServer + 'static>(
    state: Arc<State<S>>,
    stream: tokio::net::TcpStream,
    peer: PeerAddr,
    tls: Option<tokio_tls::Acceptor>,
    stage: watch::Receiver<Stage>,
    slot: OwnedSemaphorePermit,
) {
    let Some(acceptor) = tls else {
        #[cfg(feature = "http2")]
        if state.config.http2 {
            // Prior knowledge: the client's first bytes say which.
            let header_timeout = state.config.header_read_timeout;
            let first = tokio::time::timeout(header_timeout, super::http2::sniff(stream)).await;
            match first {
                Ok(Ok((stream, true))) => {
                    // Boxed: inline, HTTP/2's connection would grow every
                    // HTTP/1.1 connection's task.
                    return Box::pin(super::http2::serve(state, stream, peer, stage, slot)).await;
                }
                Ok(Ok((stream, false))) => {
                    return serve_http1(state, stream, peer, stage, slot).await;
                }
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "connection failed before its first request")
                }
                Err(_) => tracing::debug!("no request before the header timeout"),
            }
            return;
        }
        return serve_http1(state, stream, peer, stage, slot).await;
    };
    // The handshake counts against the header timeout: a client that
    // connects and says nothing is closed either way.
    let handshake = tokio::time::timeout(state.config.header_read_timeout, acceptor.accept(stream));
    match handshake.await {
        #[cfg(all(feature = "http2", feature = "rustls"))]
        Ok(Ok(stream)) if stream.get_ref().1.alpn_protocol() == Some(b"h2") => {
            Box::pin(super::http2::serve(state, stream, peer, stage, slot)).await;
        }
        Ok(Ok(stream)) => serve_http1(state, stream, peer, stage, slot).await,
        Ok(Err(e)) => tracing::debug!(error = %e, "TLS handshake failed"),
        Err(_) => tracing::debug!("TLS handshake timed out"),
    }
}

async fn serve_http1<S: McpServer + 'static, I>(
    state: Arc<State<S>>,
    stream: I,
    peer: PeerAddr,
    stage: watch::Receiver<Stage>,
    _slot: OwnedSemaphorePermit,
) where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    // What the tower service an application mounts runs (`handle`), without
    // its boxed future: hyper holds this one in place.
    let service_state = Arc::clone(&state);
    // Anonymous callers are told apart by address (per-caller limits),
    // passed along rather than stored among each request's extensions (an
    // allocation per request).
    let service = service_fn(move |request: Request<Incoming>| {
        handle(Arc::clone(&service_state), request, Some(peer))
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(state.config.header_read_timeout)
        .serve_connection(TokioIo::new(stream), service);
    let connection = std::pin::pin!(connection);
    let result = drive(
        connection,
        |connection| connection.graceful_shutdown(),
        stage,
        std::future::pending(),
    )
    .await;
    if let Some(Err(e)) = result {
        tracing::debug!(error = %e, "connection ended with an error");
    }
}

/// The first pause after a failed `accept` (see the accept loop).
const ACCEPT_PAUSE_MIN: Duration = Duration::from_millis(10);

/// The longest pause after failed `accept`s in a row.
const ACCEPT_PAUSE_MAX: Duration = Duration::from_secs(1);

#[cfg(test)]
mod tests {
    use super::info_is_shown;
    use tracing::level_filters::LevelFilter;

    #[test]
    fn the_startup_line_falls_back_to_stderr_unless_info_is_shown() {
        let at = |level: LevelFilter| {
            tracing_subscriber::fmt()
                .with_writer(std::io::sink)
                .with_max_level(level)
                .finish()
        };
        tracing::subscriber::with_default(at(LevelFilter::INFO), || assert!(info_is_shown()));
        tracing::subscriber::with_default(at(LevelFilter::WARN), || assert!(!info_is_shown()));
        assert!(!info_is_shown());
    }
}
