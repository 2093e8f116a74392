//! The [`Client`]: connects over stdio or HTTP, tells the server's era
//! apart, agrees on a version and sends requests with the right envelope.
//!
//! A `Client` is a cheap, cloneable handle (`&self` methods): any number of
//! requests may be in flight at once over one stdio pipe or HTTP origin.
//! Responses are matched by id; dropping a request's future cancels it
//! (`notifications/cancelled` on stdio and in legacy HTTP sessions; on
//! modern HTTP closing the stream is the cancellation). Each request waits
//! at most [`Client::request_timeout`] (settable, or per call with
//! [`Client::request_with_timeout`]) and is cancelled when that expires.
//!
//! Connecting (see [`negotiate`](crate::negotiate) for the rules):
//!
//! * [`EraMode::Auto`] sends `server/discover` with the preferred modern
//!   version. A `DiscoverResult` → modern. A recognised modern error →
//!   modern: pick a mutual version and retry once. Anything else, or
//!   silence for [`ClientOptions::probe_timeout`] → legacy `initialize`.
//!   A cached era for the same server (HTTP origin; stdio process) skips
//!   the probe, and a request that then fails the way the other era would
//!   answer drops the cache entry and probes again.
//! * [`EraMode::Modern`] probes the same way but never falls back.
//! * [`EraMode::Legacy`] goes straight to `initialize`.
//!
//! Modern requests carry `_meta` (protocolVersion, clientCapabilities,
//! clientInfo) and, on HTTP, `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name` and the `Mcp-Param-*` mirrors of annotated tool arguments. A
//! `-32022` at any time re-selects the version from `data.supported` and
//! retries that request once. An `input_required` result of `tools/call`,
//! `prompts/get` or `resources/read` is answered through the
//! [`ClientHandler`](crate::handler::ClientHandler) and retried under a new
//! id (at most [`ClientOptions::max_input_rounds`] times).
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_client::Error> {
//! use mcp_client::{Client, ClientOptions};
//! use serde_json::Map;
//!
//! let client = Client::connect_stdio("my-server", &[], ClientOptions::default()).await?;
//! // Many calls at once over the one pipe.
//! let calls = (0..10).map(|_| {
//!     let c = client.clone();
//!     tokio::spawn(async move { c.call_tool("add", Map::new()).await })
//! });
//! for call in calls {
//!     let _ = call.await;
//! }
//! # Ok(()) }
//! ```

pub mod tasks;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use mcp_types::v2025_11_25 as legacy;
use mcp_types::v2026_07_28::{self as modern, DiscoverResult, RequestMetaObject, methods};
use mcp_types::versions::{Era, IMPLEMENTED_LEGACY_VERSIONS, IMPLEMENTED_MODERN_VERSIONS};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::cache::{AuthContext, Cache, ServerKey, normalise_discover};
use crate::error::{Error, Result};
use crate::future::BoxFuture;
use crate::handler::{ClientHandler, Responder};
use crate::headers::{self, ParamHeaders};
use crate::negotiate::{
    self, ModernError, Verdict, recognise_modern_error, select_version, split_response,
};
use crate::subscription::{Routes, Subscription};
use crate::transport::Inbound;
use crate::transport::http::HttpTransport;
use crate::transport::stdio::StdioTransport;

/// Which era to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EraMode {
    /// Detect it (the default).
    #[default]
    Auto,
    /// 2026-07-28 and later only; never fall back.
    Modern,
    /// `initialize` only (2025-11-25 and older).
    Legacy,
}

/// How the client connects. Build with `ClientOptions::default()` and
/// change the fields you need.
#[derive(Clone)]
pub struct ClientOptions {
    /// Which era to speak.
    pub era: EraMode,
    /// Sent as `clientInfo`.
    pub client_info: modern::Implementation,
    /// Sent as `clientCapabilities` (converted for `initialize`). Only the
    /// kinds of input declared here are answered.
    pub capabilities: modern::ClientCapabilities,
    /// Answers elicitation, sampling and roots requests (both eras).
    pub handler: Option<Arc<dyn ClientHandler>>,
    /// How many `input_required` rounds one request (or task) may take.
    pub max_input_rounds: usize,
    /// Declare the tasks extension (`io.modelcontextprotocol/tasks`) in
    /// every modern request, so the server may answer a tool call with a
    /// task; see [`tasks`](crate::tasks). Off by default.
    pub tasks: bool,
    /// Modern versions to offer, newest first. Default:
    /// [`IMPLEMENTED_MODERN_VERSIONS`](crate::IMPLEMENTED_MODERN_VERSIONS).
    /// The client speaks 2026-07-28; another version here is offered as is.
    pub modern_versions: Vec<String>,
    /// Legacy versions to offer through `initialize`, newest first, and the
    /// only ones accepted in its answer. Default:
    /// [`IMPLEMENTED_LEGACY_VERSIONS`](crate::IMPLEMENTED_LEGACY_VERSIONS)
    /// (2025-11-25): a server answering an older revision is refused rather
    /// than spoken to with rules it does not follow.
    pub legacy_versions: Vec<String>,
    /// How long the `server/discover` probe waits before concluding "legacy".
    pub probe_timeout: Duration,
    /// How long any other request waits for its answer (the default; see
    /// [`Client::set_request_timeout`]).
    pub request_timeout: Duration,
    /// What the client remembers between connections.
    pub cache: Arc<Cache>,
    /// HTTP `Authorization` header value; also the cache's authorization context.
    pub authorization: Option<String>,
    /// DER certificates trusted for `https://` besides the bundled web PKI
    /// roots (a private CA). Used with the `rustls` feature.
    pub extra_root_certificates: Vec<Vec<u8>>,
    /// The most pages a "list everything" method fetches before it gives up
    /// (a server whose cursors never end would otherwise keep it busy).
    pub max_pages: usize,
    /// OAuth for HTTP servers that ask for it (`401`).
    #[cfg(feature = "oauth")]
    pub oauth: Option<crate::auth::options::OAuthOptions>,
}

impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions")
            .field("era", &self.era)
            .field("client_info", &self.client_info)
            .field("capabilities", &self.capabilities)
            .field("handler", &self.handler.is_some())
            .field("tasks", &self.tasks)
            .field("probe_timeout", &self.probe_timeout)
            .field("request_timeout", &self.request_timeout)
            .finish_non_exhaustive()
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            era: EraMode::Auto,
            client_info: modern::Implementation::builder()
                .name("mcp-client")
                .version(env!("CARGO_PKG_VERSION"))
                .build(),
            capabilities: modern::ClientCapabilities::new(),
            handler: None,
            max_input_rounds: 8,
            tasks: false,
            modern_versions: IMPLEMENTED_MODERN_VERSIONS
                .iter()
                .map(|v| (*v).to_owned())
                .collect(),
            legacy_versions: IMPLEMENTED_LEGACY_VERSIONS
                .iter()
                .map(|v| (*v).to_owned())
                .collect(),
            probe_timeout: Duration::from_secs(3),
            request_timeout: Duration::from_secs(30),
            cache: Arc::default(),
            authorization: None,
            extra_root_certificates: Vec::new(),
            max_pages: 100,
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }
}

/// A value that differs by era: the 2026-07-28 type or the 2025-11-25 one.
/// Serializes as the inner value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ByEra<M, L> {
    /// From a modern server.
    Modern(M),
    /// From a legacy server.
    Legacy(L),
}

#[derive(Debug, Clone)]
enum Conn {
    Stdio(Arc<StdioTransport>),
    Http(HttpTransport),
}

/// What the transport brought back for one request.
struct Exchange {
    status: Option<u16>,
    message: Option<Value>,
    body: String,
}

/// What the handshake learned; replaced as a whole when it is redone.
#[derive(Debug, Clone)]
struct State {
    era: Era,
    version: String,
    hello: ByEra<DiscoverResult, legacy::InitializeResult>,
    era_from_cache: bool,
}

struct Inner {
    conn: Conn,
    opts: ClientOptions,
    server: ServerKey,
    auth: Option<AuthContext>,
    state: Mutex<State>,
    next_id: AtomicI64,
    timeout_ms: AtomicU64,
    responder: Responder,
    routes: Arc<Routes>,
    /// Tool name → its `x-mcp-header` annotations, from the last `tools/list`.
    tool_headers: Mutex<HashMap<String, ParamHeaders>>,
    /// Serialises re-probing and re-initialising after a failed assumption.
    reconnect: tokio::sync::Mutex<()>,
    /// The legacy HTTP session's standalone GET stream.
    standalone: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(task) = lock(&self.standalone).take() {
            task.abort();
        }
    }
}

/// A connected client: a cloneable handle to one connection.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("conn", &self.inner.conn)
            .field("state", &*self.state())
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The methods whose result may be `input_required` (MRTR).
const INPUT_METHODS: [&str; 3] = [
    methods::TOOLS_CALL,
    methods::PROMPTS_GET,
    methods::RESOURCES_READ,
];

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
        self.routes.deliver(message);
    }
}

/// Cancels a request whose future is dropped before its answer arrived.
struct InFlight {
    conn: Conn,
    id: Value,
    /// `Some(version)` in a legacy HTTP session (which takes the notification by POST).
    legacy_http: Option<String>,
    armed: bool,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": self.id, "reason": "the client no longer waits for this request"}});
        match &self.conn {
            Conn::Stdio(t) => {
                t.forget(&self.id);
                let t = t.clone();
                rt.spawn(async move {
                    let _ = t.send(&note).await;
                });
            }
            // Modern HTTP: dropping the response stream is the cancellation.
            Conn::Http(t) => {
                if let Some(version) = self.legacy_http.clone() {
                    let t = t.clone();
                    rt.spawn(async move {
                        let h = [
                            (headers::MCP_PROTOCOL_VERSION, version),
                            (headers::MCP_METHOD, "notifications/cancelled".to_owned()),
                        ];
                        let _ = t.post(&note, &h, Duration::from_secs(5)).await;
                    });
                }
            }
        }
    }
}

impl Client {
    /// Spawns `program args…` and connects to it over stdio.
    pub async fn connect_stdio(
        program: &str,
        args: &[String],
        opts: ClientOptions,
    ) -> Result<Self> {
        let t = StdioTransport::spawn(program, args)?;
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

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.inner.state)
    }

    fn opts(&self) -> &ClientOptions {
        &self.inner.opts
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

    fn forget_cached_era(&self) {
        self.opts().cache.forget(&self.inner.server);
        self.state().era_from_cache = false;
        if let Conn::Http(t) = &self.inner.conn {
            t.set_session_id(None);
        }
    }

    /// Sends the `server/discover` probe and acts on the verdict.
    async fn probe(&self, forced_modern: bool) -> Result<()> {
        let version = self
            .opts()
            .modern_versions
            .first()
            .cloned()
            .ok_or_else(|| Error::NoMutualVersion {
                client: vec![],
                server: vec![],
            })?;
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
            Verdict::Legacy(_) => self.initialize().await,
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
    async fn initialize(&self) -> Result<()> {
        let mut version = self
            .opts()
            .legacy_versions
            .first()
            .cloned()
            .ok_or_else(|| Error::NoMutualVersion {
                client: vec![],
                server: vec![],
            })?;
        self.state().era = Era::Legacy;
        if let Conn::Http(t) = &self.inner.conn {
            t.set_session_id(None);
        }
        let mut retried = false;
        let result = loop {
            let params = legacy::InitializeRequestParams::new(
                convert(&self.opts().capabilities).unwrap_or_default(),
                convert(&self.opts().client_info).unwrap_or_else(|| {
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
    async fn open_standalone_stream(&self, replace: bool) {
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

    async fn notify(&self, notification: &impl Serialize) -> Result<()> {
        let message = to_value(notification)?;
        match &self.inner.conn {
            Conn::Stdio(t) => t.send(&message).await,
            Conn::Http(t) => {
                let method = message
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let mut h = vec![(headers::MCP_PROTOCOL_VERSION, self.state().version.clone())];
                h.push((headers::MCP_METHOD, headers::encode_value(&method)));
                // A notification is accepted with 202; a refusal is not worth failing the connection.
                t.post(&message, &h, self.request_timeout()).await.map(drop)
            }
        }
    }

    /// Sends one request and returns what came back. `modern_version` set:
    /// add `_meta` and the modern headers for that version (plus
    /// `extra_headers`). Dropping the future, or `timeout` expiring,
    /// cancels the request.
    async fn exchange(
        &self,
        method: &str,
        params: Value,
        modern_version: Option<&str>,
        timeout: Duration,
        extra_headers: Vec<(String, String)>,
    ) -> Result<Exchange> {
        let id = json!(self.inner.next_id.fetch_add(1, Ordering::Relaxed) + 1);
        let params = match modern_version {
            Some(v) => with_meta(params, self.meta(v)?),
            None => params,
        };
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let legacy_version = match modern_version {
            Some(_) => None,
            None => Some(self.state().version.clone()),
        };
        // The probe and the handshake are never cancelled: a legacy server
        // may not even know the notification yet.
        let mut guard = InFlight {
            conn: self.inner.conn.clone(),
            id,
            legacy_http: legacy_version
                .clone()
                .filter(|_| self.session_id().is_some()),
            armed: method != methods::SERVER_DISCOVER && method != "initialize",
        };
        let conn = &self.inner.conn;
        let sent = async {
            match conn {
                Conn::Stdio(t) => {
                    let response = t.request(&message, timeout).await?;
                    Ok(Exchange {
                        status: None,
                        message: Some(response),
                        body: String::new(),
                    })
                }
                Conn::Http(t) => {
                    let mut h: Vec<(&str, String)> = match modern_version {
                        Some(v) => headers::standard_headers(v, method, &message["params"]),
                        None => {
                            let mut h = Vec::new();
                            if let Some(v) =
                                legacy_version.clone().filter(|_| method != "initialize")
                            {
                                h.push((headers::MCP_PROTOCOL_VERSION, v));
                            }
                            h.extend(
                                headers::standard_headers("", method, &message["params"])
                                    .into_iter()
                                    .skip(1),
                            );
                            h
                        }
                    };
                    h.extend(extra_headers.iter().map(|(n, v)| (n.as_str(), v.clone())));
                    let r = t.post(&message, &h, timeout).await?;
                    if method == "initialize" && (200..300).contains(&r.status) {
                        t.set_session_id(r.session_id.clone());
                    }
                    Ok(Exchange {
                        status: Some(r.status),
                        message: r.message,
                        body: r.body,
                    })
                }
            }
        };
        let outcome = match tokio::time::timeout(timeout, sent).await {
            Ok(outcome) => outcome,
            Err(_) => Err(Error::Timeout {
                method: method.to_owned(),
                after: timeout,
            }),
        };
        // A timed-out request stays armed: the server is told to stop.
        if !matches!(outcome, Err(Error::Timeout { .. })) {
            guard.armed = false;
        }
        outcome
    }

    /// Turns an exchange into the JSON-RPC outcome, or a transport error
    /// when the answer holds no JSON-RPC response.
    fn reply(&self, method: &str, x: Exchange) -> Result<negotiate::Reply> {
        if let Some(reply) = x.message.as_ref().and_then(split_response) {
            return Ok(reply);
        }
        Err(match x.status {
            Some(status) if !(200..300).contains(&status) => Error::Http {
                method: method.to_owned(),
                status: Some(status),
                detail: x.body,
            },
            _ => Error::InvalidMessage {
                detail: format!("no JSON-RPC response to `{method}` in the answer"),
            },
        })
    }

    fn meta(&self, version: &str) -> Result<Value> {
        let mut capabilities = self.opts().capabilities.clone();
        if self.opts().tasks {
            capabilities
                .extensions
                .get_or_insert_with(BTreeMap::new)
                .entry(crate::tasks::TASKS_EXTENSION.to_owned())
                .or_default();
        }
        let mut meta = RequestMetaObject::new(capabilities, version.to_owned());
        meta.client_info = Some(self.opts().client_info.clone());
        to_value(&meta)
    }

    /// The `Mcp-Param-*` headers of a modern `tools/call` over HTTP.
    fn param_headers(&self, method: &str, params: &Value) -> Vec<(String, String)> {
        if method != methods::TOOLS_CALL || !matches!(self.inner.conn, Conn::Http(_)) {
            return Vec::new();
        }
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Vec::new();
        };
        let empty = Map::new();
        let args = params
            .get("arguments")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        match lock(&self.inner.tool_headers).get(name) {
            Some(annotations) => headers::param_headers(annotations, args),
            None => Vec::new(),
        }
    }

    /// A modern request at `version`; if `may_retry`, retried once on
    /// `-32022` with a version re-selected from `data.supported`.
    async fn modern_request_with(
        &self,
        method: &str,
        params: Value,
        mut version: String,
        may_retry: bool,
        timeout: Duration,
    ) -> Result<Value> {
        let mut retried = !may_retry;
        let extra = self.param_headers(method, &params);
        loop {
            let x = self
                .exchange(
                    method,
                    params.clone(),
                    Some(&version),
                    timeout,
                    extra.clone(),
                )
                .await?;
            match self.reply(method, x)? {
                Ok(result) => {
                    let changed = {
                        let mut st = self.state();
                        let changed = version != st.version;
                        st.version = version.clone();
                        changed
                    };
                    if changed {
                        self.opts().cache.remember_era(
                            self.inner.server.clone(),
                            Era::Modern,
                            version,
                        );
                    }
                    return Ok(result);
                }
                Err(error) => match recognise_modern_error(&error) {
                    Some(ModernError::UnsupportedVersion { supported, .. }) if !retried => {
                        version = select_version(&self.opts().modern_versions, &supported)?;
                        retried = true;
                    }
                    _ => {
                        return Err(Error::Rpc {
                            method: method.to_owned(),
                            error,
                        });
                    }
                },
            }
        }
    }

    async fn request_once(&self, method: &str, params: Value, timeout: Duration) -> Result<Value> {
        let (era, version) = {
            let st = self.state();
            (st.era, st.version.clone())
        };
        match era {
            Era::Modern => {
                self.modern_request_with(method, params, version, true, timeout)
                    .await
            }
            Era::Legacy => {
                let x = self
                    .exchange(method, params, None, timeout, Vec::new())
                    .await?;
                self.reply(method, x)?.map_err(|error| Error::Rpc {
                    method: method.to_owned(),
                    error,
                })
            }
        }
    }

    /// One request with the era-repair rules, without MRTR.
    async fn request_plain(&self, method: &str, params: Value, timeout: Duration) -> Result<Value> {
        match self.request_once(method, params.clone(), timeout).await {
            Err(e) if self.era_from_cache() && assumption_failed(&e) => {
                // The cached era was wrong (the server changed): probe again, once.
                {
                    let _one = self.inner.reconnect.lock().await;
                    if self.era_from_cache() {
                        self.forget_cached_era();
                        self.probe(self.opts().era == EraMode::Modern).await?;
                    }
                }
                self.request_once(method, params, timeout).await
            }
            Err(Error::Http {
                status: Some(404), ..
            }) if self.era() == Era::Legacy && self.session_id().is_some() => {
                // The legacy session expired: start a new one and retry once.
                {
                    let _one = self.inner.reconnect.lock().await;
                    self.initialize().await?;
                }
                self.request_once(method, params, timeout).await
            }
            other => other,
        }
    }

    /// Sends any request and returns its `result`. In the modern era
    /// `params` gets the `_meta` envelope (keys you set in `params._meta`
    /// are kept, the required ones are ours); an `input_required` result is
    /// answered through the handler and the request retried until complete.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value> {
        self.request_with_timeout(method, params, self.request_timeout())
            .await
    }

    /// [`request`](Self::request) with its own timeout (per round trip).
    pub async fn request_with_timeout(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value> {
        let modern = self.era() == Era::Modern;
        let outcome = if modern && INPUT_METHODS.contains(&method) {
            self.request_answering_input(method, params.clone(), timeout)
                .await
        } else {
            self.request_plain(method, params.clone(), timeout).await
        };
        let mut result = match outcome {
            // A tool called before any tools/list: its Mcp-Param-* headers
            // were unknown. Learn them from the list and try once more.
            Err(Error::Rpc { error, .. })
                if modern
                    && method == methods::TOOLS_CALL
                    && error.code == modern::error_codes::HEADER_MISMATCH_ERROR
                    && matches!(self.inner.conn, Conn::Http(_))
                    && !self.knows_tool_headers(&params) =>
            {
                self.learn_tool_headers(timeout).await?;
                self.request_answering_input(method, params, timeout)
                    .await?
            }
            other => other?,
        };
        if method == methods::TOOLS_LIST && modern {
            self.screen_tools(&mut result);
        }
        Ok(result)
    }

    /// MRTR: answers `inputRequests` and retries with `inputResponses` (and
    /// the `requestState` exactly as received) under a new id.
    async fn request_answering_input(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value> {
        let mut attempt = params.clone();
        let mut rounds = 0;
        loop {
            let result = self.request_plain(method, attempt, timeout).await?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            if rounds >= self.opts().max_input_rounds {
                return Err(Error::TooManyInputRounds {
                    method: method.to_owned(),
                    rounds,
                });
            }
            rounds += 1;
            let empty = Map::new();
            let requests = result
                .get("inputRequests")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            let responses = self.answer_inputs(method, requests).await?;
            // Each retry is the original request plus this round's answers.
            let mut next = match &params {
                Value::Object(m) => m.clone(),
                _ => Map::new(),
            };
            next.insert("inputResponses".into(), Value::Object(responses));
            if let Some(state) = result.get("requestState") {
                next.insert("requestState".into(), state.clone());
            }
            attempt = Value::Object(next);
        }
    }

    /// Answers input requests (`{key: {method, params}}`) through the
    /// handler: MRTR rounds and task `input_required` rounds alike.
    pub(crate) async fn answer_inputs(
        &self,
        method: &str,
        requests: &Map<String, Value>,
    ) -> Result<Map<String, Value>> {
        let mut responses = Map::new();
        for (key, request) in requests {
            let input = request
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let input_params = request.get("params").cloned().unwrap_or_else(|| json!({}));
            if !self.inner.responder.declares(input, &input_params) {
                return Err(Error::UndeclaredInput {
                    method: method.to_owned(),
                    input: input.to_owned(),
                });
            }
            let answer = self
                .inner
                .responder
                .answer(input, input_params)
                .await
                .map_err(|error| Error::Handler {
                    method: method.to_owned(),
                    error,
                })?;
            responses.insert(key.clone(), answer);
        }
        Ok(responses)
    }

    pub(crate) fn max_input_rounds(&self) -> usize {
        self.opts().max_input_rounds
    }

    /// Reads every `tools/list` page for the tools' `x-mcp-header` annotations.
    async fn learn_tool_headers(&self, timeout: Duration) -> Result<()> {
        let mut cursor: Option<String> = None;
        for _ in 0..self.opts().max_pages.max(1) {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let mut page = self
                .request_plain(methods::TOOLS_LIST, params, timeout)
                .await?;
            self.screen_tools(&mut page);
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_owned()),
                _ => break,
            }
        }
        Ok(())
    }

    /// Whether the `x-mcp-header` annotations of the tool `params` call are known.
    fn knows_tool_headers(&self, params: &Value) -> bool {
        params
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|name| lock(&self.inner.tool_headers).contains_key(name))
    }

    /// Drops tools whose `x-mcp-header` annotations are invalid (with a
    /// warning) and remembers the annotations of the others.
    fn screen_tools(&self, result: &mut Value) {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
            return;
        };
        let mut table = lock(&self.inner.tool_headers);
        tools.retain(|tool| {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            match headers::tool_param_headers(tool) {
                Ok(annotations) => {
                    table.insert(name.to_owned(), annotations);
                    true
                }
                Err(why) => {
                    tracing::warn!(
                        tool = name,
                        "tool excluded: invalid x-mcp-header annotation: {why}"
                    );
                    table.remove(name);
                    false
                }
            }
        });
    }

    /// The default timeout of each request.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.inner.timeout_ms.load(Ordering::Relaxed))
    }

    /// Changes the default timeout of each request (every clone shares it).
    pub fn set_request_timeout(&self, timeout: Duration) {
        self.inner
            .timeout_ms
            .store(duration_ms(timeout), Ordering::Relaxed);
    }

    /// Lists tools (one page). Tools with invalid `x-mcp-header`
    /// annotations are left out (modern servers).
    pub async fn list_tools(
        &self,
        cursor: Option<&str>,
    ) -> Result<ByEra<modern::ListToolsResult, legacy::ListToolsResult>> {
        let params = match cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let result = self.request(methods::TOOLS_LIST, params).await?;
        self.typed(methods::TOOLS_LIST, result)
    }

    /// Lists every tool, following `nextCursor` like
    /// [`list_resources`](Self::list_resources).
    pub async fn list_all_tools(
        &self,
    ) -> Result<ByEra<modern::ListToolsResult, legacy::ListToolsResult>> {
        let result = self.list_all(methods::TOOLS_LIST, "tools").await?;
        self.typed(methods::TOOLS_LIST, result)
    }

    /// Calls a tool. With [`ClientOptions::tasks`] set the server may
    /// make the call a task: it is then polled until it ends (see
    /// [`TaskHandle::wait`](crate::tasks::TaskHandle::wait)) and its result
    /// returned; [`call_tool_as_task`](Self::call_tool_as_task) gives the
    /// handle instead.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<ByEra<modern::CallToolResultResponseResult, legacy::CallToolResult>> {
        let result = self
            .request(
                methods::TOOLS_CALL,
                json!({"name": name, "arguments": arguments}),
            )
            .await?;
        if self.era() == Era::Modern && crate::tasks::is_create_task_result(&result) {
            let created = parse(methods::TOOLS_CALL, result)?;
            let done = crate::tasks::TaskHandle::new(self.clone(), created)
                .wait()
                .await?;
            return Ok(ByEra::Modern(
                modern::CallToolResultResponseResult::CallToolResult(done),
            ));
        }
        self.typed(methods::TOOLS_CALL, result)
    }

    /// Lists every resource, following `nextCursor` (at most
    /// [`ClientOptions::max_pages`] pages). The result holds all pages'
    /// resources and no `nextCursor`. A fresh cached list (by `ttlMs`,
    /// dropped on `notifications/resources/list_changed`) is reused.
    pub async fn list_resources(
        &self,
    ) -> Result<ByEra<modern::ListResourcesResult, legacy::ListResourcesResult>> {
        let result = self.list_all(methods::RESOURCES_LIST, "resources").await?;
        self.typed(methods::RESOURCES_LIST, result)
    }

    /// Lists every resource template, following `nextCursor` like
    /// [`list_resources`](Self::list_resources).
    pub async fn list_resource_templates(
        &self,
    ) -> Result<ByEra<modern::ListResourceTemplatesResult, legacy::ListResourceTemplatesResult>>
    {
        let result = self
            .list_all(methods::RESOURCES_TEMPLATES_LIST, "resourceTemplates")
            .await?;
        self.typed(methods::RESOURCES_TEMPLATES_LIST, result)
    }

    /// Reads a resource. A missing one is an [`Error::Rpc`] (`-32602` with
    /// `data.uri` from a modern server, `-32002` from a legacy one).
    pub async fn read_resource(
        &self,
        uri: &str,
    ) -> Result<ByEra<modern::ReadResourceResultResponseResult, legacy::ReadResourceResult>> {
        let result = self
            .request(methods::RESOURCES_READ, json!({"uri": uri}))
            .await?;
        self.typed(methods::RESOURCES_READ, result)
    }

    /// Lists every prompt, following `nextCursor` like
    /// [`list_resources`](Self::list_resources).
    pub async fn list_prompts(
        &self,
    ) -> Result<ByEra<modern::ListPromptsResult, legacy::ListPromptsResult>> {
        let result = self.list_all(methods::PROMPTS_LIST, "prompts").await?;
        self.typed(methods::PROMPTS_LIST, result)
    }

    /// Gets a prompt, filled in with `arguments` (left out when empty).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<ByEra<modern::GetPromptResultResponseResult, legacy::GetPromptResult>> {
        let mut params = json!({"name": name});
        if !arguments.is_empty() {
            params["arguments"] = json!(arguments);
        }
        let result = self.request(methods::PROMPTS_GET, params).await?;
        self.typed(methods::PROMPTS_GET, result)
    }

    /// `completion/complete`: completions for argument `name` (typed so far:
    /// `value`) of `reference` (`{"type": "ref/prompt", "name": …}` or
    /// `{"type": "ref/resource", "uri": …}`), with the values of the other
    /// arguments in `context`.
    pub async fn complete(
        &self,
        reference: Value,
        name: &str,
        value: &str,
        context: BTreeMap<String, String>,
    ) -> Result<ByEra<modern::CompleteResult, legacy::CompleteResult>> {
        let mut params = json!({"ref": reference, "argument": {"name": name, "value": value}});
        if !context.is_empty() {
            params["context"] = json!({"arguments": context});
        }
        let result = self.request(methods::COMPLETION_COMPLETE, params).await?;
        self.typed(methods::COMPLETION_COMPLETE, result)
    }

    /// Fetches every page of a list method (`items` names the array member)
    /// and merges them into one result: the items appended, the shortest
    /// `ttlMs`, `"private"` if any page says so. A fresh cached one is reused. A repeated cursor
    /// or more than `max_pages` pages is an [`Error::InvalidResult`].
    pub async fn list_all(&self, method: &str, items: &str) -> Result<Value> {
        let modern = self.era() == Era::Modern;
        if modern
            && let Some(hit) =
                self.opts()
                    .cache
                    .list(&self.inner.server, self.inner.auth.as_ref(), method)
        {
            return Ok(hit);
        }
        // A list_changed during the fetch makes the merged list stale.
        let generation = self.inner.routes.generation();
        let invalid = |detail: String| Error::InvalidResult {
            method: method.to_owned(),
            detail,
        };
        let mut merged: Option<Map<String, Value>> = None;
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        for _ in 0..self.opts().max_pages.max(1) {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let Value::Object(mut page) = self.request(method, params).await? else {
                return Err(invalid("the result is not an object".into()));
            };
            let next = match page.remove("nextCursor") {
                None | Some(Value::Null) => None,
                Some(Value::String(c)) => Some(c),
                Some(other) => return Err(invalid(format!("`nextCursor` is {other}"))),
            };
            merged = Some(match merged {
                None => page,
                Some(mut all) => {
                    merge_page(&mut all, page, items);
                    all
                }
            });
            match next {
                None => {
                    let all = Value::Object(merged.unwrap_or_default());
                    if modern && self.inner.routes.generation() == generation {
                        self.opts().cache.store_list(
                            self.inner.server.clone(),
                            self.inner.auth.as_ref(),
                            method,
                            &all,
                        );
                    }
                    return Ok(all);
                }
                Some(c) if !seen.insert(c.clone()) => {
                    return Err(invalid(format!("the server repeated cursor `{c}`")));
                }
                Some(c) => cursor = Some(c),
            }
        }
        Err(invalid(format!(
            "more than {} pages (ClientOptions::max_pages)",
            self.opts().max_pages.max(1)
        )))
    }

    fn typed<M: DeserializeOwned, L: DeserializeOwned>(
        &self,
        method: &str,
        result: Value,
    ) -> Result<ByEra<M, L>> {
        Ok(match self.era() {
            Era::Modern => ByEra::Modern(parse(method, result)?),
            Era::Legacy => ByEra::Legacy(parse(method, result)?),
        })
    }

    /// Fetches `server/discover` again unless a fresh cached result exists
    /// (modern servers only; `None` for legacy ones).
    pub async fn discover(&self) -> Result<Option<DiscoverResult>> {
        if self.era() == Era::Legacy {
            return Ok(None);
        }
        let cache = &self.opts().cache;
        let result = match cache.discover(&self.inner.server, self.inner.auth.as_ref()) {
            Some(d) => d,
            None => {
                let mut raw = self.request(methods::SERVER_DISCOVER, json!({})).await?;
                normalise_discover(&mut raw);
                let d: DiscoverResult = parse(methods::SERVER_DISCOVER, raw)?;
                cache.store_discover(
                    self.inner.server.clone(),
                    self.inner.auth.as_ref(),
                    d.clone(),
                );
                d
            }
        };
        self.state().hello = ByEra::Modern(result.clone());
        Ok(Some(result))
    }

    /// Opens a stream of server notifications. Modern servers:
    /// `subscriptions/listen` with `filter`, returned once the server
    /// acknowledged it; every notification on it (list changes, resource
    /// updates) comes out of the stream, which ends when the server closes
    /// it. Dropping the [`Subscription`] ends the listen request. Legacy
    /// servers: the notifications the session sends anyway (`filter` is
    /// not sent). Either way a list-changed notification also drops the
    /// cached list.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// use mcp_client::mcp_types::v2026_07_28::SubscriptionFilter;
    ///
    /// let mut changes = client
    ///     .subscribe(SubscriptionFilter::new().with_tools_list_changed(true))
    ///     .await?;
    /// while let Some(note) = changes.next().await {
    ///     println!("{}", note.method);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn subscribe(&self, filter: modern::SubscriptionFilter) -> Result<Subscription> {
        if self.era() == Era::Legacy {
            // Unsolicited legacy notifications come on the session's GET stream.
            let sub = self.inner.routes.general();
            self.open_standalone_stream(false).await;
            return Ok(sub);
        }
        let version = self.state().version.clone();
        let id = json!(self.inner.next_id.fetch_add(1, Ordering::Relaxed) + 1);
        let params = with_meta(
            json!({"notifications": to_value(&filter)?}),
            self.meta(&version)?,
        );
        let message =
            json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params});
        let (tx, rx) = mpsc::unbounded_channel();
        let mut sub = match &self.inner.conn {
            Conn::Stdio(t) => {
                self.inner.routes.listen(&id, tx.clone());
                let t2 = t.clone();
                let (message2, routes) = (message.clone(), self.inner.routes.clone());
                // The listen request stays pending for the stream's life; its
                // response (the server closing it) ends the stream.
                let task = tokio::spawn(async move {
                    let forever = Duration::from_secs(100 * 365 * 24 * 3600);
                    if let Ok(response) = t2.request(&message2, forever).await {
                        let _ = tx.send(response);
                    }
                    routes.unlisten(&message2["id"]);
                });
                Subscription::new(rx, self.inner.routes.clone()).with_cancel(
                    id.clone(),
                    t.clone(),
                    task,
                )
            }
            Conn::Http(t) => {
                let h =
                    headers::standard_headers(&version, "subscriptions/listen", &message["params"]);
                let reply = t.post_streaming(&message, &h, tx).await?;
                if let Some(msg) = reply.message {
                    // Answered at once (an error): no stream.
                    if let Some(Err(error)) = split_response(&msg) {
                        return Err(Error::Rpc {
                            method: "subscriptions/listen".into(),
                            error,
                        });
                    }
                }
                if !(200..300).contains(&reply.status) {
                    return Err(Error::Http {
                        method: "subscriptions/listen".into(),
                        status: Some(reply.status),
                        detail: reply.body,
                    });
                }
                Subscription::new(rx, self.inner.routes.clone())
            }
        };
        sub.acknowledged(self.request_timeout()).await?;
        Ok(sub)
    }

    /// Every notification the server sends outside a listen stream (progress,
    /// logs, legacy list changes), from now on.
    pub fn notifications(&self) -> Subscription {
        self.inner.routes.general()
    }

    /// The server's era.
    pub fn era(&self) -> Era {
        self.state().era
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> String {
        self.state().version.clone()
    }

    /// Whether the era came from the cache rather than a probe.
    pub fn era_from_cache(&self) -> bool {
        self.state().era_from_cache
    }

    /// `supportedVersions` from `server/discover` (modern servers only).
    pub fn supported_versions(&self) -> Option<Vec<String>> {
        self.discover_result().map(|d| d.supported_versions)
    }

    /// The `server/discover` result (modern servers).
    pub fn discover_result(&self) -> Option<DiscoverResult> {
        match &self.state().hello {
            ByEra::Modern(d) => Some(d.clone()),
            ByEra::Legacy(_) => None,
        }
    }

    /// The `initialize` result (legacy servers).
    pub fn initialize_result(&self) -> Option<legacy::InitializeResult> {
        match &self.state().hello {
            ByEra::Legacy(r) => Some(r.clone()),
            ByEra::Modern(_) => None,
        }
    }

    /// The server's self-description: `_meta` serverInfo of the discover
    /// result (or a `serverInfo` member its body carries against the spec),
    /// or `serverInfo` of the `initialize` result.
    pub fn server_info(&self) -> Option<ByEra<modern::Implementation, legacy::Implementation>> {
        match &self.state().hello {
            ByEra::Modern(d) => d
                .meta
                .as_ref()
                .and_then(|m| m.server_info.clone())
                .or_else(|| serde_json::from_value(d.extra.get("serverInfo")?.clone()).ok())
                .map(ByEra::Modern),
            ByEra::Legacy(r) => Some(ByEra::Legacy(r.server_info.clone())),
        }
    }

    /// The server's capabilities.
    pub fn capabilities(&self) -> ByEra<modern::ServerCapabilities, legacy::ServerCapabilities> {
        match &self.state().hello {
            ByEra::Modern(d) => ByEra::Modern(d.capabilities.clone()),
            ByEra::Legacy(r) => ByEra::Legacy(r.capabilities.clone()),
        }
    }

    /// The server's instructions, if it gave any.
    pub fn instructions(&self) -> Option<String> {
        match &self.state().hello {
            ByEra::Modern(d) => d.instructions.clone(),
            ByEra::Legacy(r) => r.instructions.clone(),
        }
    }

    /// The legacy HTTP session id, if the server issued one.
    pub fn session_id(&self) -> Option<String> {
        match &self.inner.conn {
            Conn::Http(t) => t.session_id(),
            Conn::Stdio(_) => None,
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

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Whether an error looks like the other era answering: an HTTP 4xx with no
/// JSON-RPC error in it, or a JSON-RPC error a modern server would send
/// to a legacy request (or a legacy server to a modern one).
fn assumption_failed(e: &Error) -> bool {
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

/// Adds one page to the result so far: its `items` are appended; a modern
/// page's caching hints combine so the whole stays valid (the shortest
/// `ttlMs`, `"private"` if any page says so). Other members come from the
/// first page.
fn merge_page(all: &mut Map<String, Value>, page: Map<String, Value>, items: &str) {
    for (key, value) in page {
        match (key.as_str(), all.get_mut(&key), value) {
            (k, Some(Value::Array(so_far)), Value::Array(more)) if k == items => {
                so_far.extend(more);
            }
            ("ttlMs", Some(so_far), Value::Number(n)) => {
                if let (Some(a), Some(b)) = (so_far.as_u64(), n.as_u64()) {
                    *so_far = json!(a.min(b));
                }
            }
            ("cacheScope", Some(so_far), Value::String(scope)) if scope == "private" => {
                *so_far = json!(scope);
            }
            (_, None, value) => {
                all.insert(key, value);
            }
            _ => {}
        }
    }
}

/// Puts our `_meta` into `params`, keeping any other `_meta` keys the caller set.
fn with_meta(params: Value, meta: Value) -> Value {
    let mut params = match params {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let mut merged = match params.remove("_meta") {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    if let Value::Object(ours) = meta {
        merged.extend(ours);
    }
    params.insert("_meta".to_owned(), Value::Object(merged));
    Value::Object(params)
}

fn to_value(v: &impl Serialize) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| Error::InvalidMessage {
        detail: e.to_string(),
    })
}

/// Reads a value of one era's type as the other's (both are open objects
/// with the same members where it matters).
fn convert<T: DeserializeOwned>(v: &impl Serialize) -> Option<T> {
    serde_json::from_value(serde_json::to_value(v).ok()?).ok()
}

/// Typed parse of a result, naming the failing field.
pub(crate) fn parse<T: DeserializeOwned>(method: &str, value: Value) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| Error::InvalidResult {
        method: method.to_owned(),
        detail: format!("at `{}`: {}", e.path(), e.inner()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_is_merged_into_params() {
        let p = with_meta(
            json!({"name": "x", "_meta": {"progressToken": 1, "io.modelcontextprotocol/protocolVersion": "old"}}),
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}),
        );
        assert_eq!(
            p,
            json!({"name": "x", "_meta": {"progressToken": 1, "io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
        );
        assert_eq!(
            with_meta(Value::Null, json!({"a": 1})),
            json!({"_meta": {"a": 1}})
        );
    }

    #[test]
    fn pages_merge_items_and_the_strictest_caching_hints() {
        let mut all = json!({"resultType": "complete", "prompts": [{"name": "a"}], "ttlMs": 5000, "cacheScope": "public"});
        let Value::Object(all_map) = &mut all else {
            panic!()
        };
        let page = json!({"prompts": [{"name": "b"}], "ttlMs": 100, "cacheScope": "private", "_meta": {"x": 1}});
        let Value::Object(page) = page else { panic!() };
        merge_page(all_map, page, "prompts");
        assert_eq!(
            all,
            json!({"resultType": "complete", "prompts": [{"name": "a"}, {"name": "b"}],
                "ttlMs": 100, "cacheScope": "private", "_meta": {"x": 1}})
        );
    }

    #[test]
    fn default_options_offer_the_implemented_versions() {
        let o = ClientOptions::default();
        assert_eq!(o.modern_versions, ["2026-07-28"]);
        assert_eq!(o.legacy_versions, ["2025-11-25"]);
    }

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
