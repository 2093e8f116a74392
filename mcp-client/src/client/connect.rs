//! A connection's life: opening it (stdio, streams, HTTP), the handshake
//! (the era from the cache, the `server/discover` probe, or legacy
//! `initialize`), the legacy session's GET stream, and closing it.

use std::sync::atomic::{AtomicI64, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_era_types::v2025_11_25 as legacy;
use mcp_era_types::v2026_07_28::{self as modern, DiscoverResult, methods};
use mcp_era_types::versions::Era;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::exchange::{parse, to_value};
use super::options::{ClientOptions, EraMode};
use super::{ByEra, Client, Conn, Inner, State, duration_ms, lock};
use crate::cache::{AuthContext, ServerKey, normalise_discover};
use crate::error::{Error, Result};
use crate::future::BoxFuture;
use crate::handler::Responder;
use crate::negotiate::{
    self, ModernError, Verdict, recognise_modern_error, select_version, split_response,
};
use crate::subscription::Routes;
use crate::transport::Inbound;
use crate::transport::http::HttpTransport;
use crate::transport::stdio::StdioTransport;

/// Delivers what the server sends unasked: requests to the handler,
/// notifications to subscriptions (and list-changed ones to the cache).
struct ClientInbound {
    responder: Responder,
    routes: Arc<Routes>,
}

impl Inbound for ClientInbound {
    fn request(&self, method: String, params: Value) -> BoxFuture<'static, Result<Value, Value>> {
        let responder = self.responder.clone();
        Box::pin(async move {
            responder
                .answer(&method, params)
                .await
                .map_err(|e| json!({"code": e.code, "message": e.message}))
        })
    }

    fn notification(&self, message: Value) {
        self.responder.notified(&message);
        self.routes.deliver(message);
    }
}

impl Client {
    /// Spawns `program args…` and connects to it over stdio.
    pub async fn connect_stdio(
        program: &str,
        args: &[String],
        opts: ClientOptions,
    ) -> Result<Self> {
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        Self::connect_command(
            command,
            crate::transport::stdio::label_of(program, args),
            opts,
        )
        .await
    }

    /// Starts `command` (set up as the caller wants: environment, working
    /// directory) and connects to it over stdio; `label` names it in
    /// errors and keys the era cache with its process id.
    pub async fn connect_command(
        command: tokio::process::Command,
        label: String,
        opts: ClientOptions,
    ) -> Result<Self> {
        let t = StdioTransport::spawn_command(command, label)?;
        let server = ServerKey::Process {
            command: t.label().to_owned(),
            pid: t.pid().unwrap_or(0),
        };
        Self::establish(Conn::Stdio(Arc::new(t)), server, opts).await
    }

    /// Connects over an existing pair of streams speaking the stdio framing
    /// (`reader` is the server's stdout). `pid` keys the era cache.
    pub async fn connect_streams(
        reader: impl tokio::io::AsyncRead + Send + Unpin + 'static,
        writer: impl tokio::io::AsyncWrite + Send + Unpin + 'static,
        label: &str,
        pid: u32,
        opts: ClientOptions,
    ) -> Result<Self> {
        let t = StdioTransport::from_streams(reader, writer, label);
        let server = ServerKey::Process {
            command: label.to_owned(),
            pid,
        };
        Self::establish(Conn::Stdio(Arc::new(t)), server, opts).await
    }

    /// Connects to a Streamable HTTP endpoint.
    pub async fn connect_http(url: &str, opts: ClientOptions) -> Result<Self> {
        let t = HttpTransport::with_extra_roots(
            url,
            opts.authorization.as_deref(),
            &opts.extra_root_certificates,
        )?;
        #[cfg(feature = "oauth")]
        if let Some(oauth) = opts.oauth.clone() {
            t.enable_oauth(oauth)?;
        }
        let server = ServerKey::Origin(t.origin().to_owned());
        Self::establish(Conn::Http(t), server, opts).await
    }

    async fn establish(conn: Conn, server: ServerKey, opts: ClientOptions) -> Result<Self> {
        let auth = opts.authorization.clone().map(AuthContext::new);
        let version = opts.modern_versions.first().cloned().unwrap_or_default();
        let placeholder = ByEra::Modern(DiscoverResult::new(
            modern::ServerCapabilities::new(),
            vec![],
            modern::CacheHints::NONE,
        ));
        let responder = Responder::new(
            opts.handler.clone(),
            serde_json::to_value(&opts.capabilities).unwrap_or_else(|_| json!({})),
        );
        let routes = Arc::new(Routes::new(opts.cache.clone(), server.clone()));
        let inbound: Arc<dyn Inbound> = Arc::new(ClientInbound {
            responder: responder.clone(),
            routes: routes.clone(),
        });
        match &conn {
            Conn::Stdio(t) => t.set_inbound(inbound),
            Conn::Http(t) => t.set_inbound(inbound),
        }
        let client = Client {
            inner: Arc::new(Inner {
                conn,
                timeout_ms: AtomicU64::new(duration_ms(opts.request_timeout)),
                opts,
                server,
                auth,
                state: Mutex::new(State {
                    era: Era::Modern,
                    version,
                    hello: placeholder,
                    era_from_cache: false,
                }),
                next_id: AtomicI64::new(0),
                responder,
                routes,
                tool_headers: Mutex::default(),
                reconnect: tokio::sync::Mutex::new(()),
                standalone: Mutex::new(None),
            }),
        };
        client.handshake().await?;
        Ok(client)
    }

    /// Decides the era (cache, probe or forced) and completes the hello.
    async fn handshake(&self) -> Result<()> {
        let cached = match self.opts().era {
            EraMode::Auto => self.opts().cache.era(&self.inner.server),
            _ => None,
        };
        match (self.opts().era, cached) {
            (EraMode::Legacy, _) => self.initialize().await,
            (EraMode::Modern, _) => self.probe(true).await,
            (EraMode::Auto, None) => self.probe(false).await,
            (EraMode::Auto, Some(entry)) => {
                self.state().era_from_cache = true;
                let attempt = match entry.era {
                    Era::Legacy => self.initialize().await,
                    Era::Modern => {
                        self.state().version = entry.version;
                        match self
                            .opts()
                            .cache
                            .discover(&self.inner.server, self.inner.auth.as_ref())
                        {
                            Some(d) => {
                                let mut st = self.state();
                                st.era = Era::Modern;
                                st.hello = ByEra::Modern(d);
                                Ok(())
                            }
                            None => self.probe(false).await,
                        }
                    }
                };
                match attempt {
                    Err(e) if assumption_failed(&e) => {
                        self.forget_cached_era();
                        self.probe(false).await
                    }
                    other => other,
                }
            }
        }
    }

    pub(super) fn forget_cached_era(&self) {
        self.opts().cache.forget(&self.inner.server);
        self.state().era_from_cache = false;
        if let Conn::Http(t) = &self.inner.conn {
            t.set_session_id(None);
        }
    }

    /// Sends the `server/discover` probe and acts on the verdict.
    pub(super) async fn probe(&self, forced_modern: bool) -> Result<()> {
        let version = self
            .opts()
            .modern_versions
            .first()
            .cloned()
            .ok_or_else(no_version_offered)?;
        let timeout = self.opts().probe_timeout;
        let verdict = match self
            .exchange(
                methods::SERVER_DISCOVER,
                json!({}),
                Some(&version),
                timeout,
                Vec::new(),
            )
            .await
        {
            Ok(x) => match (&self.inner.conn, x.status) {
                (Conn::Http(_), Some(status)) => {
                    negotiate::classify_http(status, x.message.as_ref(), &x.body)?
                }
                _ => negotiate::classify_stdio(x.message.as_ref().and_then(split_response)),
            },
            Err(Error::Timeout { .. }) => negotiate::classify_stdio(None),
            Err(e) => return Err(e),
        };
        match verdict {
            Verdict::Modern(result) => self.finish_modern(result, version),
            Verdict::ModernError(kind, _) => {
                let version = match kind {
                    ModernError::UnsupportedVersion { supported, .. } => {
                        select_version(&self.opts().modern_versions, &supported)?
                    }
                    _ => version,
                };
                // This is the one retry: a second -32022 is an error.
                let result = self
                    .modern_request_with(
                        methods::SERVER_DISCOVER,
                        json!({}),
                        version.clone(),
                        false,
                        self.request_timeout(),
                    )
                    .await?;
                let version = self.state().version.clone();
                self.finish_modern(result, version)
            }
            Verdict::Legacy(reason) if forced_modern => Err(Error::NotModern {
                detail: reason.to_string(),
            }),
            Verdict::Legacy(_) => match self.initialize().await {
                Err(Error::Rpc { error, .. }) => match self.late_modern_version(&error) {
                    // The server answered the probe after its timeout (a slow
                    // start) and now serves the modern era on this connection.
                    Some(version) => {
                        let result = self
                            .modern_request_with(
                                methods::SERVER_DISCOVER,
                                json!({}),
                                version.clone(),
                                false,
                                self.request_timeout(),
                            )
                            .await?;
                        let version = self.state().version.clone();
                        self.finish_modern(result, version)
                    }
                    None => Err(Error::Rpc {
                        method: "initialize".into(),
                        error,
                    }),
                },
                other => other,
            },
        }
    }

    /// The modern version to use when `initialize` was refused with the
    /// modern `-32022` naming versions we speak.
    fn late_modern_version(&self, error: &modern::Error) -> Option<String> {
        match recognise_modern_error(error)? {
            ModernError::UnsupportedVersion { supported, .. } => {
                select_version(&self.opts().modern_versions, &supported).ok()
            }
            _ => None,
        }
    }

    fn finish_modern(&self, mut raw: Value, version: String) -> Result<()> {
        normalise_discover(&mut raw);
        let result: DiscoverResult = parse(methods::SERVER_DISCOVER, raw)?;
        let version = if result.supported_versions.contains(&version) {
            version
        } else {
            select_version(&self.opts().modern_versions, &result.supported_versions)?
        };
        {
            let mut st = self.state();
            st.era = Era::Modern;
            st.version = version.clone();
            st.hello = ByEra::Modern(result.clone());
        }
        let cache = &self.opts().cache;
        cache.store_discover(self.inner.server.clone(), self.inner.auth.as_ref(), result);
        cache.remember_era(self.inner.server.clone(), Era::Modern, version);
        Ok(())
    }

    /// The legacy handshake: `initialize`, then `notifications/initialized`.
    pub(super) async fn initialize(&self) -> Result<()> {
        let mut version = self
            .opts()
            .legacy_versions
            .first()
            .cloned()
            .ok_or_else(no_version_offered)?;
        self.state().era = Era::Legacy;
        if let Conn::Http(t) = &self.inner.conn {
            t.set_session_id(None);
        }
        let mut retried = false;
        let result = loop {
            let params = legacy::InitializeRequestParams::new(
                convert::<legacy::ClientCapabilities>(&self.opts().capabilities)
                    .unwrap_or_default(),
                convert::<legacy::Implementation>(&self.opts().client_info).unwrap_or_else(|| {
                    legacy::Implementation::builder()
                        .name("mcp-client")
                        .version(env!("CARGO_PKG_VERSION"))
                        .build()
                }),
                version.clone(),
            );
            let params = to_value(&params)?;
            let x = self
                .exchange(
                    "initialize",
                    params,
                    None,
                    self.request_timeout(),
                    Vec::new(),
                )
                .await?;
            match self.reply("initialize", x)? {
                Ok(result) => break result,
                Err(error) => {
                    // The legacy "unsupported version" form: -32602 with data.supported.
                    let supported = error
                        .data
                        .as_ref()
                        .and_then(|d| d.get("supported"))
                        .and_then(|s| {
                            s.as_array()?
                                .iter()
                                .map(|v| v.as_str().map(str::to_owned))
                                .collect::<Option<Vec<_>>>()
                        });
                    match supported {
                        Some(list) if !retried && recognise_modern_error(&error).is_none() => {
                            version = select_version(&self.opts().legacy_versions, &list)?;
                            retried = true;
                        }
                        _ => {
                            return Err(Error::Rpc {
                                method: "initialize".into(),
                                error,
                            });
                        }
                    }
                }
            }
        };
        let result: legacy::InitializeResult = parse("initialize", result)?;
        if !self
            .opts()
            .legacy_versions
            .contains(&result.protocol_version)
        {
            return Err(Error::NoMutualVersion {
                client: self.opts().legacy_versions.clone(),
                server: vec![result.protocol_version.clone()],
            });
        }
        let version = result.protocol_version.clone();
        {
            let mut st = self.state();
            st.version = version.clone();
            st.hello = ByEra::Legacy(result);
        }
        self.notify(&legacy::InitializedNotification::new()).await?;
        if let Conn::Http(t) = &self.inner.conn {
            t.set_protocol_version(Some(version.clone()));
            // Server requests not tied to a call come on the session's GET
            // stream; only worth opening when a handler can answer them.
            if self.opts().handler.is_some() {
                self.open_standalone_stream(true).await;
            }
        }
        self.opts()
            .cache
            .remember_era(self.inner.server.clone(), Era::Legacy, version);
        Ok(())
    }

    /// Opens the legacy HTTP session's GET stream (replacing an old one
    /// when `replace`, else only if none is open).
    pub(super) async fn open_standalone_stream(&self, replace: bool) {
        let Conn::Http(t) = &self.inner.conn else {
            return;
        };
        if t.session_id().is_none() || (!replace && lock(&self.inner.standalone).is_some()) {
            return;
        }
        let task = tokio::time::timeout(self.request_timeout(), t.open_standalone_stream())
            .await
            .ok()
            .flatten();
        if let Some(old) = std::mem::replace(&mut *lock(&self.inner.standalone), task) {
            old.abort();
        }
    }

    /// Waits until the connection to a stdio server is gone (the server
    /// exited, was killed or closed its stdout), and says why. Over HTTP,
    /// where each request is a connection of its own, it never resolves:
    /// a server that went away shows in the next request's error.
    pub async fn closed(&self) -> String {
        match &self.inner.conn {
            Conn::Stdio(t) => t.closed().await,
            Conn::Http(_) => std::future::pending().await,
        }
    }

    /// Ends the connection for every clone: closes a stdio server's stdin
    /// and waits briefly for it to exit (then kills it); ends a legacy HTTP
    /// session with `DELETE`.
    pub async fn close(&self) {
        if let Some(task) = lock(&self.inner.standalone).take() {
            task.abort();
        }
        match &self.inner.conn {
            Conn::Stdio(t) => t.close(Duration::from_secs(2)).await,
            Conn::Http(t) => {
                let version = self.protocol_version();
                t.end_session(&version, Duration::from_secs(2)).await
            }
        }
    }
}

/// Whether an error looks like the other era answering: an HTTP 4xx with no
/// JSON-RPC error in it, or a JSON-RPC error a modern server would send
/// to a legacy request (or a legacy server to a modern one).
pub(super) fn assumption_failed(e: &Error) -> bool {
    match e {
        Error::Http {
            status: Some(s), ..
        } => (400..500).contains(s),
        Error::Rpc { error, .. } => {
            recognise_modern_error(error).is_some()
                || error.code == modern::error_codes::METHOD_NOT_FOUND_ERROR
        }
        Error::NoMutualVersion { .. } => true,
        _ => false,
    }
}

/// Reads a value of one era's type as the other's (both are open objects
/// with the same members where it matters).
fn convert<T: DeserializeOwned>(v: &impl Serialize) -> Option<T> {
    serde_json::from_value(serde_json::to_value(v).ok()?).ok()
}

/// A client that offers no version of the era it tries.
fn no_version_offered() -> Error {
    Error::NoMutualVersion {
        client: vec![],
        server: vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_counts_as_a_failed_assumption() {
        let http = |s| Error::Http {
            method: "m".into(),
            status: Some(s),
            detail: String::new(),
        };
        assert!(assumption_failed(&http(400)));
        assert!(assumption_failed(&http(404)));
        assert!(!assumption_failed(&http(500)));
        let rpc = |code| Error::Rpc {
            method: "m".into(),
            error: modern::Error::new(code, "x"),
        };
        assert!(assumption_failed(&rpc(-32601)));
        assert!(assumption_failed(&rpc(-32020)));
        assert!(!assumption_failed(&rpc(-32602)));
        assert!(!assumption_failed(&Error::Timeout {
            method: "m".into(),
            after: Duration::ZERO
        }));
    }
}
