//! The [`Client`]: connects over stdio or HTTP, tells the server's era
//! apart, agrees on a version and sends requests with the right envelope.
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
//! clientInfo) and, on HTTP, `MCP-Protocol-Version`, `Mcp-Method` and
//! `Mcp-Name`. A `-32022` at any time re-selects the version from
//! `data.supported` and retries that request once.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use mcp_types::v2025_11_25 as legacy;
use mcp_types::v2026_07_28::{self as modern, DiscoverResult, RequestMetaObject, methods};
use mcp_types::versions::{Era, IMPLEMENTED_LEGACY_VERSIONS, IMPLEMENTED_MODERN_VERSIONS};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::cache::{AuthContext, Cache, ServerKey, normalise_discover};
use crate::error::{Error, Result};
use crate::headers;
use crate::negotiate::{
    self, ModernError, Verdict, recognise_modern_error, select_version, split_response,
};
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
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Which era to speak.
    pub era: EraMode,
    /// Sent as `clientInfo`.
    pub client_info: modern::Implementation,
    /// Sent as `clientCapabilities` (converted for `initialize`).
    pub capabilities: modern::ClientCapabilities,
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
    /// How long any other request waits for its answer.
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

#[derive(Debug)]
enum Conn {
    Stdio(StdioTransport),
    Http(HttpTransport),
}

/// What the transport brought back for one request.
struct Exchange {
    status: Option<u16>,
    message: Option<Value>,
    body: String,
}

/// A connected client.
#[derive(Debug)]
pub struct Client {
    conn: Conn,
    opts: ClientOptions,
    server: ServerKey,
    auth: Option<AuthContext>,
    era: Era,
    version: String,
    hello: ByEra<DiscoverResult, legacy::InitializeResult>,
    era_from_cache: bool,
    next_id: i64,
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
        Self::establish(Conn::Stdio(t), server, opts).await
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
        Self::establish(Conn::Stdio(t), server, opts).await
    }

    /// Connects to a Streamable HTTP endpoint.
    pub async fn connect_http(url: &str, opts: ClientOptions) -> Result<Self> {
        let t = HttpTransport::with_extra_roots(
            url,
            opts.authorization.as_deref(),
            &opts.extra_root_certificates,
        )?;
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
        let mut client = Client {
            conn,
            opts,
            server,
            auth,
            era: Era::Modern,
            version,
            hello: placeholder,
            era_from_cache: false,
            next_id: 0,
        };
        client.handshake().await?;
        Ok(client)
    }

    /// Decides the era (cache, probe or forced) and completes the hello.
    async fn handshake(&mut self) -> Result<()> {
        let cached = match self.opts.era {
            EraMode::Auto => self.opts.cache.era(&self.server),
            _ => None,
        };
        match (self.opts.era, cached) {
            (EraMode::Legacy, _) => self.initialize().await,
            (EraMode::Modern, _) => self.probe(true).await,
            (EraMode::Auto, None) => self.probe(false).await,
            (EraMode::Auto, Some(entry)) => {
                self.era_from_cache = true;
                let attempt = match entry.era {
                    Era::Legacy => self.initialize().await,
                    Era::Modern => {
                        self.version = entry.version;
                        match self.opts.cache.discover(&self.server, self.auth.as_ref()) {
                            Some(d) => {
                                self.era = Era::Modern;
                                self.hello = ByEra::Modern(d);
                                Ok(())
                            }
                            None => self.probe(false).await,
                        }
                    }
                };
                match attempt {
                    Err(e) if assumption_failed(&e) => {
                        self.opts.cache.forget(&self.server);
                        self.era_from_cache = false;
                        if let Conn::Http(t) = &self.conn {
                            t.set_session_id(None);
                        }
                        self.probe(false).await
                    }
                    other => other,
                }
            }
        }
    }

    /// Sends the `server/discover` probe and acts on the verdict.
    async fn probe(&mut self, forced_modern: bool) -> Result<()> {
        let version =
            self.opts
                .modern_versions
                .first()
                .cloned()
                .ok_or_else(|| Error::NoMutualVersion {
                    client: vec![],
                    server: vec![],
                })?;
        let timeout = self.opts.probe_timeout;
        let verdict = match self
            .exchange(methods::SERVER_DISCOVER, json!({}), Some(&version), timeout)
            .await
        {
            Ok(x) => match (&self.conn, x.status) {
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
                        select_version(&self.opts.modern_versions, &supported)?
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
                    )
                    .await?;
                let version = self.version.clone();
                self.finish_modern(result, version)
            }
            Verdict::Legacy(reason) if forced_modern => Err(Error::NotModern {
                detail: reason.to_string(),
            }),
            Verdict::Legacy(_) => self.initialize().await,
        }
    }

    fn finish_modern(&mut self, mut raw: Value, version: String) -> Result<()> {
        normalise_discover(&mut raw);
        let result: DiscoverResult = parse(methods::SERVER_DISCOVER, raw)?;
        let version = if result.supported_versions.contains(&version) {
            version
        } else {
            select_version(&self.opts.modern_versions, &result.supported_versions)?
        };
        self.era = Era::Modern;
        self.version = version.clone();
        self.opts
            .cache
            .store_discover(self.server.clone(), self.auth.as_ref(), result.clone());
        self.opts
            .cache
            .remember_era(self.server.clone(), Era::Modern, version);
        self.hello = ByEra::Modern(result);
        Ok(())
    }

    /// The legacy handshake: `initialize`, then `notifications/initialized`.
    async fn initialize(&mut self) -> Result<()> {
        let mut version =
            self.opts
                .legacy_versions
                .first()
                .cloned()
                .ok_or_else(|| Error::NoMutualVersion {
                    client: vec![],
                    server: vec![],
                })?;
        self.era = Era::Legacy;
        if let Conn::Http(t) = &self.conn {
            t.set_session_id(None);
        }
        let mut retried = false;
        let result = loop {
            let params = legacy::InitializeRequestParams::new(
                convert(&self.opts.capabilities).unwrap_or_default(),
                convert(&self.opts.client_info).unwrap_or_else(|| {
                    legacy::Implementation::builder()
                        .name("mcp-client")
                        .version(env!("CARGO_PKG_VERSION"))
                        .build()
                }),
                version.clone(),
            );
            let params = to_value(&params)?;
            let x = self
                .exchange("initialize", params, None, self.opts.request_timeout)
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
                            version = select_version(&self.opts.legacy_versions, &list)?;
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
        if !self.opts.legacy_versions.contains(&result.protocol_version) {
            return Err(Error::NoMutualVersion {
                client: self.opts.legacy_versions.clone(),
                server: vec![result.protocol_version.clone()],
            });
        }
        self.version = result.protocol_version.clone();
        self.hello = ByEra::Legacy(result);
        self.notify(&legacy::InitializedNotification::new()).await?;
        self.opts
            .cache
            .remember_era(self.server.clone(), Era::Legacy, self.version.clone());
        Ok(())
    }

    async fn notify(&self, notification: &impl Serialize) -> Result<()> {
        let message = to_value(notification)?;
        match &self.conn {
            Conn::Stdio(t) => t.send(&message).await,
            Conn::Http(t) => {
                let method = message
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let mut h = vec![(headers::MCP_PROTOCOL_VERSION, self.version.clone())];
                h.push((headers::MCP_METHOD, headers::encode_value(&method)));
                // A notification is accepted with 202; a refusal is not worth failing the connection.
                t.post(&message, &h, self.opts.request_timeout)
                    .await
                    .map(drop)
            }
        }
    }

    /// Sends one request and returns what came back. `modern_version` set:
    /// add `_meta` and the modern headers for that version.
    async fn exchange(
        &mut self,
        method: &str,
        params: Value,
        modern_version: Option<&str>,
        timeout: Duration,
    ) -> Result<Exchange> {
        self.next_id += 1;
        let params = match modern_version {
            Some(v) => with_meta(params, self.meta(v)?),
            None => params,
        };
        let message =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        match &self.conn {
            Conn::Stdio(t) => {
                let response = t.request(&message, timeout).await?;
                Ok(Exchange {
                    status: None,
                    message: Some(response),
                    body: String::new(),
                })
            }
            Conn::Http(t) => {
                let h = match modern_version {
                    Some(v) => headers::standard_headers(v, method, &message["params"]),
                    None => {
                        let mut h = Vec::new();
                        if method != "initialize" {
                            h.push((headers::MCP_PROTOCOL_VERSION, self.version.clone()));
                        }
                        h.extend(
                            headers::standard_headers("", method, &message["params"])
                                .into_iter()
                                .skip(1),
                        );
                        h
                    }
                };
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
        let mut meta = RequestMetaObject::new(self.opts.capabilities.clone(), version.to_owned());
        meta.client_info = Some(self.opts.client_info.clone());
        to_value(&meta)
    }

    /// A modern request at `version`; if `may_retry`, retried once on
    /// `-32022` with a version re-selected from `data.supported`.
    async fn modern_request_with(
        &mut self,
        method: &str,
        params: Value,
        mut version: String,
        may_retry: bool,
    ) -> Result<Value> {
        let mut retried = !may_retry;
        loop {
            let x = self
                .exchange(
                    method,
                    params.clone(),
                    Some(&version),
                    self.opts.request_timeout,
                )
                .await?;
            match self.reply(method, x)? {
                Ok(result) => {
                    if version != self.version {
                        self.version = version.clone();
                        self.opts
                            .cache
                            .remember_era(self.server.clone(), Era::Modern, version);
                    }
                    return Ok(result);
                }
                Err(error) => match recognise_modern_error(&error) {
                    Some(ModernError::UnsupportedVersion { supported, .. }) if !retried => {
                        version = select_version(&self.opts.modern_versions, &supported)?;
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

    async fn request_once(&mut self, method: &str, params: Value) -> Result<Value> {
        match self.era {
            Era::Modern => {
                self.modern_request_with(method, params, self.version.clone(), true)
                    .await
            }
            Era::Legacy => {
                let x = self
                    .exchange(method, params, None, self.opts.request_timeout)
                    .await?;
                self.reply(method, x)?.map_err(|error| Error::Rpc {
                    method: method.to_owned(),
                    error,
                })
            }
        }
    }

    /// Sends any request and returns its `result`. In the modern era
    /// `params` gets the `_meta` envelope (keys you set in `params._meta`
    /// are kept, the required ones are ours).
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        match self.request_once(method, params.clone()).await {
            Err(e) if self.era_from_cache && assumption_failed(&e) => {
                // The cached era was wrong (the server changed): probe again.
                self.opts.cache.forget(&self.server);
                self.era_from_cache = false;
                if let Conn::Http(t) = &self.conn {
                    t.set_session_id(None);
                }
                self.probe(self.opts.era == EraMode::Modern).await?;
                self.request_once(method, params).await
            }
            Err(Error::Http {
                status: Some(404), ..
            }) if self.era == Era::Legacy && self.session_id().is_some() => {
                // The legacy session expired: start a new one and retry once.
                self.initialize().await?;
                self.request_once(method, params).await
            }
            other => other,
        }
    }

    /// Lists tools (one page).
    pub async fn list_tools(
        &mut self,
        cursor: Option<&str>,
    ) -> Result<ByEra<modern::ListToolsResult, legacy::ListToolsResult>> {
        let params = match cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let result = self.request(methods::TOOLS_LIST, params).await?;
        self.typed(methods::TOOLS_LIST, result)
    }

    /// Calls a tool.
    pub async fn call_tool(
        &mut self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<ByEra<modern::CallToolResultResponseResult, legacy::CallToolResult>> {
        let result = self
            .request(
                methods::TOOLS_CALL,
                json!({"name": name, "arguments": arguments}),
            )
            .await?;
        self.typed(methods::TOOLS_CALL, result)
    }

    /// Lists every resource, following `nextCursor` (at most
    /// [`ClientOptions::max_pages`] pages). The result holds all pages'
    /// resources and no `nextCursor`.
    pub async fn list_resources(
        &mut self,
    ) -> Result<ByEra<modern::ListResourcesResult, legacy::ListResourcesResult>> {
        let result = self.list_all(methods::RESOURCES_LIST, "resources").await?;
        self.typed(methods::RESOURCES_LIST, result)
    }

    /// Lists every resource template, following `nextCursor` like
    /// [`list_resources`](Self::list_resources).
    pub async fn list_resource_templates(
        &mut self,
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
        &mut self,
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
        &mut self,
    ) -> Result<ByEra<modern::ListPromptsResult, legacy::ListPromptsResult>> {
        let result = self.list_all(methods::PROMPTS_LIST, "prompts").await?;
        self.typed(methods::PROMPTS_LIST, result)
    }

    /// Gets a prompt, filled in with `arguments` (left out when empty).
    pub async fn get_prompt(
        &mut self,
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

    /// Fetches every page of a list method and merges them into one result
    /// (see [`merge_page`]). A repeated cursor or more than `max_pages`
    /// pages is an [`Error::InvalidResult`].
    async fn list_all(&mut self, method: &str, items: &str) -> Result<Value> {
        let invalid = |detail: String| Error::InvalidResult {
            method: method.to_owned(),
            detail,
        };
        let mut merged: Option<Map<String, Value>> = None;
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        for _ in 0..self.opts.max_pages.max(1) {
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
                None => return Ok(Value::Object(merged.unwrap_or_default())),
                Some(c) if !seen.insert(c.clone()) => {
                    return Err(invalid(format!("the server repeated cursor `{c}`")));
                }
                Some(c) => cursor = Some(c),
            }
        }
        Err(invalid(format!(
            "more than {} pages (ClientOptions::max_pages)",
            self.opts.max_pages.max(1)
        )))
    }

    fn typed<M: DeserializeOwned, L: DeserializeOwned>(
        &self,
        method: &str,
        result: Value,
    ) -> Result<ByEra<M, L>> {
        Ok(match self.era {
            Era::Modern => ByEra::Modern(parse(method, result)?),
            Era::Legacy => ByEra::Legacy(parse(method, result)?),
        })
    }

    /// Fetches `server/discover` again unless a fresh cached result exists
    /// (modern servers only; `None` for legacy ones).
    pub async fn discover(&mut self) -> Result<Option<&DiscoverResult>> {
        if self.era == Era::Legacy {
            return Ok(None);
        }
        let result = match self.opts.cache.discover(&self.server, self.auth.as_ref()) {
            Some(d) => d,
            None => {
                let mut raw = self.request(methods::SERVER_DISCOVER, json!({})).await?;
                normalise_discover(&mut raw);
                let d: DiscoverResult = parse(methods::SERVER_DISCOVER, raw)?;
                self.opts
                    .cache
                    .store_discover(self.server.clone(), self.auth.as_ref(), d.clone());
                d
            }
        };
        self.hello = ByEra::Modern(result);
        Ok(self.discover_result())
    }

    /// The server's era.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> &str {
        &self.version
    }

    /// Whether the era came from the cache rather than a probe.
    pub fn era_from_cache(&self) -> bool {
        self.era_from_cache
    }

    /// `supportedVersions` from `server/discover` (modern servers only).
    pub fn supported_versions(&self) -> Option<&[String]> {
        self.discover_result()
            .map(|d| d.supported_versions.as_slice())
    }

    /// The `server/discover` result (modern servers).
    pub fn discover_result(&self) -> Option<&DiscoverResult> {
        match &self.hello {
            ByEra::Modern(d) => Some(d),
            ByEra::Legacy(_) => None,
        }
    }

    /// The `initialize` result (legacy servers).
    pub fn initialize_result(&self) -> Option<&legacy::InitializeResult> {
        match &self.hello {
            ByEra::Legacy(r) => Some(r),
            ByEra::Modern(_) => None,
        }
    }

    /// The server's self-description: `_meta` serverInfo of the discover
    /// result (or a `serverInfo` member its body carries against the spec),
    /// or `serverInfo` of the `initialize` result.
    pub fn server_info(&self) -> Option<ByEra<modern::Implementation, legacy::Implementation>> {
        match &self.hello {
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
    pub fn capabilities(&self) -> ByEra<&modern::ServerCapabilities, &legacy::ServerCapabilities> {
        match &self.hello {
            ByEra::Modern(d) => ByEra::Modern(&d.capabilities),
            ByEra::Legacy(r) => ByEra::Legacy(&r.capabilities),
        }
    }

    /// The server's instructions, if it gave any.
    pub fn instructions(&self) -> Option<&str> {
        match &self.hello {
            ByEra::Modern(d) => d.instructions.as_deref(),
            ByEra::Legacy(r) => r.instructions.as_deref(),
        }
    }

    /// The legacy HTTP session id, if the server issued one.
    pub fn session_id(&self) -> Option<String> {
        match &self.conn {
            Conn::Http(t) => t.session_id(),
            Conn::Stdio(_) => None,
        }
    }

    /// Ends the connection: closes a stdio server's stdin and waits briefly
    /// for it to exit (then kills it); ends a legacy HTTP session with
    /// `DELETE`.
    pub async fn close(self) {
        match self.conn {
            Conn::Stdio(t) => t.close(Duration::from_secs(2)).await,
            Conn::Http(t) => t.end_session(&self.version, Duration::from_secs(2)).await,
        }
    }
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
fn parse<T: DeserializeOwned>(method: &str, value: Value) -> Result<T> {
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
