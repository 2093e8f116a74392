//! OAuth 2.1 for Streamable HTTP servers (feature `oauth`): what the client
//! does when a server answers `401` (or `403` with `insufficient_scope`).
//!
//! 1. Protected Resource Metadata (RFC 9728): the `resource_metadata` of the
//!    `WWW-Authenticate` challenge, else the path-based well-known URL, else
//!    the root one. Its `resource` must be the MCP URL or a prefix of it.
//! 2. Authorization server metadata (RFC 8414, then OpenID discovery, in
//!    the MCP order for issuers with a path); its `issuer` must be exactly
//!    the issuer the URL was built from.
//! 3. A client: pre-registered, a client ID metadata document URL when the
//!    server supports those, else dynamic registration (RFC 7591).
//! 4. Authorization code with PKCE S256 and the `resource` indicator
//!    (RFC 8707), through a pluggable [`Authorizer`]; the redirect's `iss`
//!    (RFC 9207) is compared exactly with the issuer, and required when the
//!    server advertises it.
//! 5. The token request (`client_secret_basic`, `client_secret_post` or
//!    `none`, as registered or as the server supports), refresh on a later
//!    `401`, and step-up on `insufficient_scope` with the union of scopes,
//!    at most [`OAuthOptions::max_attempts`] times.
//!
//! The code exchange and PKCE are the `oauth2` crate's; discovery and
//! registration, which it does not cover, are here.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_client::Error> {
//! use std::sync::Arc;
//! use mcp_client::auth::{HeadlessAuthorizer, OAuthOptions};
//! use mcp_client::{Client, ClientOptions};
//!
//! let opts = ClientOptions {
//!     oauth: Some(OAuthOptions::new("http://localhost:3000/callback", Arc::new(HeadlessAuthorizer))),
//!     ..ClientOptions::default()
//! };
//! let client = Client::connect_http("https://example.com/mcp", opts).await?;
//! # let _ = client;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Request};
use oauth2::basic::BasicClient;
use oauth2::url::Url;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, RefreshToken, Scope, TokenResponse, TokenUrl,
};
use serde_json::{Value, json};

use crate::connector::{Connector, connector};
use crate::future::BoxFuture;

/// How long one HTTP exchange of the flow may take.
const HTTP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The HTTP client the flow uses (the same connector as the transport).
#[derive(Clone)]
pub(crate) struct HyperHttp {
    client: hyper_util::client::legacy::Client<Connector, Full<Bytes>>,
}

impl HyperHttp {
    pub(crate) fn new() -> Result<Self, String> {
        Ok(Self {
            client: hyper_util::client::legacy::Client::builder(
                hyper_util::rt::TokioExecutor::new(),
            )
            .build(connector(&[])?),
        })
    }

    /// One request; the whole body is read.
    pub(crate) async fn send(
        &self,
        method: Method,
        url: &str,
        headers: Vec<(&'static str, String)>,
        body: Bytes,
    ) -> Result<hyper::Response<Vec<u8>>, AuthError> {
        let mut req = Request::builder().method(method).uri(url);
        for (name, value) in headers {
            req = req.header(name, value);
        }
        let req = req
            .body(Full::new(body))
            .map_err(|e| AuthError(format!("{url}: {e}")))?;
        let exchange = async {
            let response = self
                .client
                .request(req)
                .await
                .map_err(|e| AuthError(format!("{url}: {e}")))?;
            let (parts, body) = response.into_parts();
            let bytes = body
                .collect()
                .await
                .map_err(|e| AuthError(format!("{url}: {e}")))?
                .to_bytes();
            Ok(hyper::Response::from_parts(parts, bytes.to_vec()))
        };
        tokio::time::timeout(HTTP_TIMEOUT, exchange)
            .await
            .map_err(|_| {
                AuthError(format!(
                    "{url}: no answer within {} s",
                    HTTP_TIMEOUT.as_secs()
                ))
            })?
    }

    /// The `oauth2` crate's HTTP client.
    async fn exchange(
        &self,
        req: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, std::io::Error> {
        let (parts, body) = req.into_parts();
        let headers = parts
            .headers
            .iter()
            .filter_map(|(n, v)| Some((n.clone(), v.to_str().ok()?.to_owned())))
            .collect::<Vec<_>>();
        let mut req = Request::builder()
            .method(parts.method)
            .uri(parts.uri.clone());
        for (name, value) in headers {
            req = req.header(name, value);
        }
        let req = req
            .body(Full::new(Bytes::from(body)))
            .map_err(std::io::Error::other)?;
        let response = tokio::time::timeout(HTTP_TIMEOUT, self.client.request(req))
            .await
            .map_err(std::io::Error::other)?
            .map_err(std::io::Error::other)?;
        let (parts, body) = response.into_parts();
        let bytes = body
            .collect()
            .await
            .map_err(std::io::Error::other)?
            .to_bytes();
        Ok(hyper::Response::from_parts(parts, bytes.to_vec()))
    }
}

/// What went wrong while authorizing.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthError(pub String);

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn fail<T>(message: impl Into<String>) -> Result<T, AuthError> {
    Err(AuthError(message.into()))
}

/// The interactive step: send the user to `url` and return the redirect
/// URL the authorization server sent back (with `code`, `state`, `iss`).
pub trait Authorizer: Send + Sync {
    /// Authorizes at `url`.
    fn authorize(&self, url: String) -> BoxFuture<'_, Result<String, AuthError>>;
}

/// An [`Authorizer`] for servers that redirect at once (tests, trusted
/// automation): it requests the authorization URL and returns `Location`.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeadlessAuthorizer;

impl Authorizer for HeadlessAuthorizer {
    fn authorize(&self, url: String) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(async move {
            let http = HyperHttp::new().map_err(AuthError)?;
            let response = http.send(Method::GET, &url, vec![], Bytes::new()).await?;
            response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| AuthError("the authorization endpoint did not redirect".into()))
        })
    }
}

/// An [`Authorizer`] for command-line programs: it hands the
/// authorization URL to `open` (print it, or start a browser), then waits
/// on the redirect URI's loopback port (`127.0.0.1`, `localhost` or
/// `[::1]`) for the browser to come back, and answers it with a short page.
pub struct LoopbackAuthorizer {
    open: Box<dyn Fn(&str) + Send + Sync>,
    timeout: std::time::Duration,
}

impl fmt::Debug for LoopbackAuthorizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackAuthorizer")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl LoopbackAuthorizer {
    /// Calls `open` with the authorization URL; waits up to five minutes.
    pub fn new(open: impl Fn(&str) + Send + Sync + 'static) -> Self {
        Self {
            open: Box::new(open),
            timeout: std::time::Duration::from_secs(300),
        }
    }

    /// Prints the authorization URL on stderr for the user to open.
    pub fn printing() -> Self {
        Self::new(|url| eprintln!("Open this URL to authorize:\n  {url}"))
    }

    async fn wait(&self, url: &str) -> Result<String, AuthError> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let parsed = Url::parse(url).map_err(|e| AuthError(format!("authorization URL: {e}")))?;
        let Some(redirect) = parsed
            .query_pairs()
            .find(|(k, _)| k == "redirect_uri")
            .and_then(|(_, v)| Url::parse(&v).ok())
        else {
            return fail("the authorization URL has no redirect_uri");
        };
        let host = redirect.host_str().unwrap_or_default().to_owned();
        if !matches!(host.as_str(), "127.0.0.1" | "localhost" | "[::1]") {
            return fail(format!(
                "the redirect URI `{redirect}` is not a loopback address"
            ));
        }
        let port = redirect.port_or_known_default().unwrap_or(80);
        let bind_host = if host == "[::1]" { "::1" } else { "127.0.0.1" };
        let listener = tokio::net::TcpListener::bind((bind_host, port))
            .await
            .map_err(|e| AuthError(format!("listening on {bind_host}:{port}: {e}")))?;
        (self.open)(url);
        loop {
            let (mut stream, _) = listener
                .accept()
                .await
                .map_err(|e| AuthError(format!("accepting the redirect: {e}")))?;
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&head);
            let target = head
                .lines()
                .next()
                .and_then(|line| line.strip_prefix("GET "))
                .and_then(|rest| rest.split(' ').next())
                .unwrap_or_default()
                .to_owned();
            let is_ours = target.split('?').next() == Some(redirect.path());
            let body = if is_ours {
                "Authorization complete; you can close this window."
            } else {
                "Not found."
            };
            let status = if is_ours { "200 OK" } else { "404 Not Found" };
            let reply = format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
            if is_ours {
                return Ok(format!("{}://{}:{port}{target}", redirect.scheme(), host));
            }
        }
    }
}

impl Authorizer for LoopbackAuthorizer {
    fn authorize(&self, url: String) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(async move {
            tokio::time::timeout(self.timeout, self.wait(&url))
                .await
                .map_err(|_| AuthError("no redirect came back in time".into()))?
        })
    }
}

/// Tokens for one protected resource.
#[derive(Clone, PartialEq, Eq)]
pub struct Tokens {
    /// The bearer token.
    pub access_token: String,
    /// The refresh token, if one was issued.
    pub refresh_token: Option<String>,
    /// The scopes granted (or requested), space-separated.
    pub scope: Option<String>,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// Where tokens are kept, by resource URL.
pub trait TokenStore: Send + Sync {
    /// The tokens for `resource`.
    fn load(&self, resource: &str) -> Option<Tokens>;
    /// Keeps `tokens` for `resource`.
    fn save(&self, resource: &str, tokens: Tokens);
}

/// A [`TokenStore`] in memory (the default).
#[derive(Debug, Default)]
pub struct MemoryTokenStore(Mutex<HashMap<String, Tokens>>);

impl TokenStore for MemoryTokenStore {
    fn load(&self, resource: &str) -> Option<Tokens> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(resource)
            .cloned()
    }
    fn save(&self, resource: &str, tokens: Tokens) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(resource.to_owned(), tokens);
    }
}

/// How the client authorizes. Build with [`OAuthOptions::new`].
#[derive(Clone)]
pub struct OAuthOptions {
    /// The redirect URI registered for the client.
    pub redirect_uri: String,
    /// The interactive step.
    pub authorizer: Arc<dyn Authorizer>,
    /// Where tokens are kept.
    pub store: Arc<dyn TokenStore>,
    /// `client_name` for dynamic registration.
    pub client_name: String,
    /// A pre-registered client id (skips registration).
    pub client_id: Option<String>,
    /// The pre-registered client's secret.
    pub client_secret: Option<String>,
    /// A client ID metadata document URL, used as the client id when the
    /// server supports those.
    pub client_metadata_url: Option<String>,
    /// How many authorizations one request may trigger (step-up included).
    pub max_attempts: usize,
}

impl fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthOptions")
            .field("redirect_uri", &self.redirect_uri)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl OAuthOptions {
    /// Options with a redirect URI and an authorizer; tokens in memory,
    /// dynamic registration, three attempts.
    pub fn new(redirect_uri: impl Into<String>, authorizer: Arc<dyn Authorizer>) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
            authorizer,
            store: Arc::new(MemoryTokenStore::default()),
            client_name: "mcp-client".into(),
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            max_attempts: 3,
        }
    }
}

/// A registered client at one authorization server.
#[derive(Debug, Clone)]
struct Registration {
    issuer: String,
    client_id: String,
    client_secret: Option<String>,
    method: String,
}

/// The parameters of a `Bearer` challenge.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Challenge {
    /// `resource_metadata`.
    pub resource_metadata: Option<String>,
    /// `scope`.
    pub scope: Option<String>,
    /// `error`.
    pub error: Option<String>,
}

/// Reads the `Bearer` parameters of a `WWW-Authenticate` value.
pub fn parse_challenge(header: &str) -> Challenge {
    let mut c = Challenge::default();
    let rest = header.trim();
    let rest = rest
        .strip_prefix("Bearer")
        .or_else(|| rest.strip_prefix("bearer"))
        .unwrap_or(rest);
    let mut chars = rest.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
            chars.next();
        }
        let name: String =
            std::iter::from_fn(|| chars.next_if(|c| *c != '=' && *c != ',')).collect();
        if name.is_empty() {
            break;
        }
        if chars.next() != Some('=') {
            continue;
        }
        let value: String = if chars.peek() == Some(&'"') {
            chars.next();
            let mut v = String::new();
            while let Some(ch) = chars.next() {
                match ch {
                    '\\' => v.extend(chars.next()),
                    '"' => break,
                    other => v.push(other),
                }
            }
            v
        } else {
            std::iter::from_fn(|| chars.next_if(|c| *c != ','))
                .collect::<String>()
                .trim()
                .to_owned()
        };
        match name.trim() {
            "resource_metadata" => c.resource_metadata = Some(value),
            "scope" => c.scope = Some(value),
            "error" => c.error = Some(value),
            _ => {}
        }
    }
    c
}

/// The client's OAuth state for one MCP endpoint.
pub(crate) struct OAuth {
    opts: OAuthOptions,
    http: HyperHttp,
    mcp_url: Url,
    registration: tokio::sync::Mutex<Option<Registration>>,
    /// The resource and server metadata of the last authorization (for refresh).
    last: Mutex<Option<(String, Value)>>,
    /// Serialises flows: concurrent refusals wait for the first one's tokens.
    flow: tokio::sync::Mutex<()>,
}

type FlowClient = BasicClient<
    oauth2::EndpointSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
>;

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("mcp_url", &self.mcp_url.as_str())
            .finish_non_exhaustive()
    }
}

/// `{origin}/.well-known/{name}{path}` (path without a trailing `/`).
fn well_known(url: &Url, name: &str, path: &str) -> String {
    format!(
        "{}/.well-known/{name}{}",
        url.origin().ascii_serialization(),
        path.trim_end_matches('/')
    )
}

impl OAuth {
    pub(crate) fn new(opts: OAuthOptions, mcp_url: &str) -> Result<Self, AuthError> {
        let mcp_url = Url::parse(mcp_url).map_err(|e| AuthError(format!("MCP URL: {e}")))?;
        Ok(Self {
            opts,
            http: HyperHttp::new().map_err(AuthError)?,
            mcp_url,
            registration: tokio::sync::Mutex::new(None),
            last: Mutex::new(None),
            flow: tokio::sync::Mutex::new(()),
        })
    }

    pub(crate) fn max_attempts(&self) -> usize {
        self.opts.max_attempts
    }

    /// The access token to send, if there is one.
    pub(crate) fn bearer(&self) -> Option<String> {
        self.opts
            .store
            .load(self.mcp_url.as_str())
            .map(|t| t.access_token)
    }

    async fn get_json(&self, url: &str) -> Result<Option<Value>, AuthError> {
        let response = self
            .http
            .send(
                Method::GET,
                url,
                vec![("accept", "application/json".into())],
                Bytes::new(),
            )
            .await?;
        if !response.status().is_success() {
            return Ok(None);
        }
        Ok(serde_json::from_slice(response.body()).ok())
    }

    /// Acts on a challenge to a request sent with token `sent`: refreshes,
    /// or authorizes from scratch. One flow at a time; a request refused
    /// with a token another flow has since replaced just retries.
    pub(crate) async fn on_challenge(
        &self,
        status: u16,
        header: Option<&str>,
        sent: Option<&str>,
    ) -> Result<(), AuthError> {
        let _one = self.flow.lock().await;
        let current = self.bearer();
        if status == 401 && current.is_some() && current.as_deref() != sent {
            return Ok(());
        }
        let challenge = header.map(parse_challenge).unwrap_or_default();
        let previous = self.opts.store.load(self.mcp_url.as_str());
        let step_up = status == 403 || challenge.error.as_deref() == Some("insufficient_scope");
        if status == 403 && !step_up {
            return fail("the server refused the request (403)");
        }
        // A plain 401 with a refresh token: try refreshing first.
        if !step_up
            && let Some(refresh) = previous.as_ref().and_then(|t| t.refresh_token.clone())
            && self.refresh(&refresh, previous.as_ref()).await.is_ok()
        {
            return Ok(());
        }
        let prm = self.protected_resource(&challenge).await?;
        let resource = prm
            .get("resource")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| self.mcp_url.to_string());
        let Some(issuer) = prm
            .pointer("/authorization_servers/0")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return fail("the protected resource metadata names no authorization server");
        };
        let meta = self.server_metadata(&issuer).await?;
        // Scope: the challenge's (plus what we had, on step-up), else the resource's.
        let mut scopes: Vec<String> = match &challenge.scope {
            Some(s) => s.split_whitespace().map(str::to_owned).collect(),
            None => prm
                .get("scopes_supported")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        };
        if step_up && let Some(granted) = previous.as_ref().and_then(|t| t.scope.clone()) {
            for s in granted.split_whitespace() {
                if !scopes.iter().any(|x| x == s) {
                    scopes.push(s.to_owned());
                }
            }
        }
        let offline = meta
            .get("scopes_supported")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|s| s == "offline_access"));
        if offline && !scopes.is_empty() && !scopes.iter().any(|s| s == "offline_access") {
            scopes.push("offline_access".into());
        }
        let registration = self.register(&issuer, &meta).await?;
        self.authorize(&meta, &registration, &resource, &scopes)
            .await
    }

    /// Finds and checks the protected resource metadata.
    async fn protected_resource(&self, challenge: &Challenge) -> Result<Value, AuthError> {
        let mut candidates = Vec::new();
        if let Some(url) = &challenge.resource_metadata {
            candidates.push(url.clone());
        } else {
            let path = self.mcp_url.path();
            if path != "/" && !path.is_empty() {
                candidates.push(well_known(&self.mcp_url, "oauth-protected-resource", path));
            }
            candidates.push(well_known(&self.mcp_url, "oauth-protected-resource", ""));
        }
        for url in candidates {
            let Some(prm) = self.get_json(&url).await? else {
                continue;
            };
            let resource = prm
                .get("resource")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if !resource_covers(resource, &self.mcp_url) {
                return fail(format!(
                    "the protected resource metadata is for `{resource}`, not `{}`",
                    self.mcp_url
                ));
            }
            return Ok(prm);
        }
        fail("no protected resource metadata found")
    }

    /// Finds the authorization server metadata of `issuer` and checks its issuer.
    async fn server_metadata(&self, issuer: &str) -> Result<Value, AuthError> {
        let url = Url::parse(issuer).map_err(|e| AuthError(format!("issuer `{issuer}`: {e}")))?;
        let path = url.path().trim_end_matches('/').to_owned();
        let candidates = if path.is_empty() {
            vec![
                well_known(&url, "oauth-authorization-server", ""),
                well_known(&url, "openid-configuration", ""),
            ]
        } else {
            vec![
                well_known(&url, "oauth-authorization-server", &path),
                well_known(&url, "openid-configuration", &path),
                format!(
                    "{}{path}/.well-known/openid-configuration",
                    url.origin().ascii_serialization()
                ),
            ]
        };
        for candidate in candidates {
            let Some(meta) = self.get_json(&candidate).await? else {
                continue;
            };
            let got = meta
                .get("issuer")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if got != issuer {
                return fail(format!(
                    "the metadata at {candidate} is for issuer `{got}`, not `{issuer}`"
                ));
            }
            return Ok(meta);
        }
        fail(format!("no authorization server metadata for `{issuer}`"))
    }

    /// The client to use at `issuer`: kept, pre-registered, a metadata
    /// document URL, or freshly registered.
    async fn register(&self, issuer: &str, meta: &Value) -> Result<Registration, AuthError> {
        let mut kept = self.registration.lock().await;
        if let Some(r) = kept.as_ref().filter(|r| r.issuer == issuer) {
            return Ok(r.clone());
        }
        let supported: Vec<&str> = meta
            .get("token_endpoint_auth_methods_supported")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_else(|| vec!["client_secret_basic"]);
        let pick = |secret: bool| -> String {
            let order: &[&str] = if secret {
                &["client_secret_basic", "client_secret_post", "none"]
            } else {
                &["none"]
            };
            order
                .iter()
                .find(|m| supported.contains(m))
                .unwrap_or(&order[0])
                .to_string()
        };
        let registration = if let Some(id) = &self.opts.client_id {
            Registration {
                issuer: issuer.to_owned(),
                client_id: id.clone(),
                client_secret: self.opts.client_secret.clone(),
                method: pick(self.opts.client_secret.is_some()),
            }
        } else if let (Some(url), true) = (
            &self.opts.client_metadata_url,
            meta.get("client_id_metadata_document_supported") == Some(&json!(true)),
        ) {
            Registration {
                issuer: issuer.to_owned(),
                client_id: url.clone(),
                client_secret: None,
                method: "none".into(),
            }
        } else {
            let Some(endpoint) = meta.get("registration_endpoint").and_then(Value::as_str) else {
                return fail(
                    "the authorization server offers no registration and no client id was given",
                );
            };
            let method = supported.first().map_or("none", |m| m).to_owned();
            let body = json!({
                "client_name": self.opts.client_name,
                "redirect_uris": [self.opts.redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": method,
                "application_type": "native",
            });
            let response = self
                .http
                .send(
                    Method::POST,
                    endpoint,
                    vec![("content-type", "application/json".into())],
                    Bytes::from(body.to_string()),
                )
                .await?;
            if !response.status().is_success() {
                return fail(format!(
                    "client registration failed with HTTP {}",
                    response.status()
                ));
            }
            let reply: Value = serde_json::from_slice(response.body())
                .map_err(|e| AuthError(format!("registration response: {e}")))?;
            let Some(client_id) = reply.get("client_id").and_then(Value::as_str) else {
                return fail("the registration response has no client_id");
            };
            let secret = reply
                .get("client_secret")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let method = reply
                .get("token_endpoint_auth_method")
                .and_then(Value::as_str)
                .map_or_else(|| pick(secret.is_some()), str::to_owned);
            Registration {
                issuer: issuer.to_owned(),
                client_id: client_id.to_owned(),
                client_secret: secret,
                method,
            }
        };
        *kept = Some(registration.clone());
        Ok(registration)
    }

    /// The authorization code flow, ending with tokens in the store.
    async fn authorize(
        &self,
        meta: &Value,
        reg: &Registration,
        resource: &str,
        scopes: &[String],
    ) -> Result<(), AuthError> {
        let endpoint = |name: &str| {
            meta.get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| AuthError(format!("the metadata has no {name}")))
        };
        let issuer = endpoint("issuer")?;
        let client = self.flow_client(meta, reg)?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(CsrfToken::new_random)
            .set_pkce_challenge(challenge)
            .add_extra_param("resource", resource);
        if !scopes.is_empty() {
            request = request.add_scopes(scopes.iter().cloned().map(Scope::new));
        }
        let (url, state) = request.url();
        let redirect = self.opts.authorizer.authorize(url.to_string()).await?;
        let redirect = Url::parse(&redirect).map_err(|e| AuthError(format!("redirect: {e}")))?;
        let param = |name: &str| {
            redirect
                .query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
        };
        if let Some(error) = param("error") {
            return fail(format!("authorization refused: {error}"));
        }
        if param("state").as_deref() != Some(state.secret().as_str()) {
            return fail("the redirect's state does not match");
        }
        // RFC 9207: a present iss must equal the issuer exactly; an
        // advertised one must be present.
        match param("iss") {
            Some(iss) if iss != issuer => {
                return fail(format!(
                    "the redirect's iss `{iss}` is not the issuer `{issuer}`"
                ));
            }
            None if meta.get("authorization_response_iss_parameter_supported")
                == Some(&json!(true)) =>
            {
                return fail("the redirect has no iss although the server advertises it");
            }
            _ => {}
        }
        let Some(code) = param("code") else {
            return fail("the redirect has no code");
        };
        let send = |req: oauth2::HttpRequest| {
            let http = self.http.clone();
            async move { http.exchange(req).await }
        };
        let token = client
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(verifier)
            .add_extra_param("resource", resource)
            .request_async(&send)
            .await
            .map_err(|e| AuthError(format!("token request failed: {e}")))?;
        let granted = token
            .scopes()
            .map(|s| {
                s.iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .or_else(|| (!scopes.is_empty()).then(|| scopes.join(" ")));
        self.opts.store.save(
            self.mcp_url.as_str(),
            Tokens {
                access_token: token.access_token().secret().clone(),
                refresh_token: token.refresh_token().map(|r| r.secret().clone()),
                scope: granted,
            },
        );
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) =
            Some((resource.to_owned(), meta.clone()));
        Ok(())
    }

    /// The `oauth2` client for the registered client at the server of `meta`.
    fn flow_client(&self, meta: &Value, reg: &Registration) -> Result<FlowClient, AuthError> {
        let endpoint = |name: &str| {
            meta.get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| AuthError(format!("the metadata has no {name}")))
        };
        let bad = |e: oauth2::url::ParseError| AuthError(e.to_string());
        let mut client = BasicClient::new(ClientId::new(reg.client_id.clone()))
            .set_auth_uri(AuthUrl::new(endpoint("authorization_endpoint")?).map_err(bad)?)
            .set_token_uri(TokenUrl::new(endpoint("token_endpoint")?).map_err(bad)?)
            .set_redirect_uri(RedirectUrl::new(self.opts.redirect_uri.clone()).map_err(bad)?)
            .set_auth_type(match reg.method.as_str() {
                "client_secret_basic" => AuthType::BasicAuth,
                _ => AuthType::RequestBody,
            });
        if reg.method != "none"
            && let Some(secret) = &reg.client_secret
        {
            client = client.set_client_secret(ClientSecret::new(secret.clone()));
        }
        Ok(client)
    }

    /// A refresh-token grant for the last authorization's resource.
    async fn refresh(&self, refresh: &str, previous: Option<&Tokens>) -> Result<(), AuthError> {
        let last = self.last.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let Some((resource, meta)) = last else {
            return fail("nothing to refresh");
        };
        let Some(reg) = self.registration.lock().await.clone() else {
            return fail("no registered client");
        };
        let client = self.flow_client(&meta, &reg)?;
        let send = |req: oauth2::HttpRequest| {
            let http = self.http.clone();
            async move { http.exchange(req).await }
        };
        let token = client
            .exchange_refresh_token(&RefreshToken::new(refresh.to_owned()))
            .add_extra_param("resource", resource)
            .request_async(&send)
            .await
            .map_err(|e| AuthError(format!("refresh failed: {e}")))?;
        self.opts.store.save(
            self.mcp_url.as_str(),
            Tokens {
                access_token: token.access_token().secret().clone(),
                refresh_token: token
                    .refresh_token()
                    .map(|r| r.secret().clone())
                    .or_else(|| Some(refresh.to_owned())),
                scope: previous.and_then(|t| t.scope.clone()),
            },
        );
        Ok(())
    }
}

/// Whether a protected resource identifier covers the MCP URL: the same
/// URL, or the same origin with a path prefix of it.
fn resource_covers(resource: &str, mcp: &Url) -> bool {
    let Ok(r) = Url::parse(resource) else {
        return false;
    };
    if r.origin() != mcp.origin() {
        return false;
    }
    let prefix = r.path().trim_end_matches('/');
    let path = mcp.path();
    path == prefix || path.starts_with(&format!("{prefix}/")) || prefix.is_empty()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.
    use super::*;

    #[test]
    fn challenges_parse() {
        let c = parse_challenge(
            r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope.as_deref(), Some("a b"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://x/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(parse_challenge("Bearer"), Challenge::default());
        assert_eq!(
            parse_challenge("Bearer realm=x, scope=read")
                .scope
                .as_deref(),
            Some("read")
        );
    }

    #[test]
    fn resource_coverage() {
        let mcp = Url::parse("http://localhost:3000/mcp").unwrap();
        assert!(resource_covers("http://localhost:3000/mcp", &mcp));
        assert!(resource_covers("http://localhost:3000", &mcp));
        assert!(resource_covers("http://localhost:3000/", &mcp));
        assert!(!resource_covers("http://localhost:3001/mcp", &mcp));
        assert!(!resource_covers("http://localhost:3000/other", &mcp));
        assert!(!resource_covers("http://localhost:3000/mc", &mcp));
    }

    #[tokio::test]
    async fn the_loopback_authorizer_returns_the_redirect() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let redirect = format!("http://127.0.0.1:{port}/callback");
        let url = Url::parse_with_params(
            "http://as.example/authorize",
            &[("redirect_uri", redirect.as_str())],
        )
        .unwrap();
        let browser = move |_: &str| {
            let target = format!("http://127.0.0.1:{port}/callback?code=c&state=s");
            tokio::spawn(async move {
                let http = HyperHttp::new().unwrap();
                let _ = http.send(Method::GET, &target, vec![], Bytes::new()).await;
            });
        };
        let got = LoopbackAuthorizer::new(browser)
            .authorize(url.to_string())
            .await
            .unwrap();
        assert_eq!(
            got,
            format!("http://127.0.0.1:{port}/callback?code=c&state=s")
        );
    }

    #[test]
    fn well_known_urls() {
        let u = Url::parse("http://as.example:8080/tenant1").unwrap();
        assert_eq!(
            well_known(&u, "oauth-authorization-server", "/tenant1"),
            "http://as.example:8080/.well-known/oauth-authorization-server/tenant1"
        );
    }
}
