//! OAuth 2.1 resource server for the HTTP transport (feature `auth`): the
//! Protected Resource Metadata document (RFC 9728), bearer-token checks
//! with `WWW-Authenticate` challenges, required scopes per server, per
//! capability and per tool, and a JWT validator whose keys come from the
//! authorization server's JWKS.
//!
//! Scopes are set here ([`AuthConfig::require_scopes`],
//! [`AuthConfig::capability_requires`], [`AuthConfig::tool_requires`]) or
//! declared with the server: `#[mcp(scopes = ["mcp"], tools(scopes =
//! ["tools"]))]` and `#[tool(scopes = ["files:write"])]`. The transport
//! requires both (each list is the union; see
//! [`AuthConfig::with_declared_scopes`]), and the metadata's
//! `scopes_supported` lists both. [`AuthConfig::scope_implies`] applies to
//! declared scopes too.
//!
//! A request without a valid token gets **401** with
//! `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` (plus
//! `error="invalid_token"` when a token was sent); a valid token without a
//! required scope gets **403** with `error="insufficient_scope"` naming the
//! scopes. A refusal decided from the headers alone (no token, a bad token,
//! a missing server-wide scope) leaves the body unread and closes the
//! connection, with `Connection: close` so that the client's next request
//! (the metadata fetch) goes on a new one. Validators: [`JwtValidator`]
//! (signed JWTs, keys from the issuer's JWKS) and
//! [`IntrospectionValidator`] (RFC 7662), or your own
//! [`TokenValidator`]. Validated [`Claims`] go into the request's extensions, where
//! handlers read them: `ctx.http_request().and_then(|p| p.extensions.get::<Claims>())`.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Value, json};

use crate::model::declaration::extend_unique;

/// What a validator learned from a valid token.
#[derive(Debug, Clone, PartialEq)]
pub struct Claims {
    /// `sub`, when the token has one.
    pub subject: Option<String>,
    /// The granted scopes (`scope`, space-separated, or `scp`).
    pub scopes: Vec<String>,
    /// `client_id` (or `azp`), when present.
    pub client_id: Option<String>,
    /// Every claim as sent.
    pub raw: Value,
}

impl Claims {
    fn from_raw(raw: Value) -> Self {
        let scopes = match (raw.get("scope"), raw.get("scp")) {
            (Some(Value::String(s)), _) => s.split_whitespace().map(str::to_owned).collect(),
            (_, Some(Value::Array(list))) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            (_, Some(Value::String(s))) => s.split_whitespace().map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        let text = |key: &str| raw.get(key).and_then(Value::as_str).map(str::to_owned);
        Self {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes,
            raw,
        }
    }
}

/// Why a token was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// Expired, not yet valid, wrong issuer or audience, bad signature,
    /// unknown key, malformed: **401** `invalid_token`.
    Invalid(String),
    /// The keys could not be fetched: **503**, the client may retry.
    Unavailable(String),
}

/// The future a [`TokenValidator`] returns.
pub type ValidationFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Claims, TokenError>> + Send + 'a>>;

/// Checks a bearer token and returns its claims.
pub trait TokenValidator: Send + Sync {
    /// Validates `token` for this resource.
    fn validate<'a>(&'a self, token: &'a str) -> ValidationFuture<'a>;
}

/// The resource server's settings (`HttpConfig::auth`).
#[derive(Clone)]
pub struct AuthConfig {
    /// This MCP endpoint's canonical URI (`https://mcp.example.com/mcp`):
    /// the `resource` of the metadata, and the audience tokens must name.
    pub resource: String,
    /// Issuers of the authorization servers clients may use.
    pub authorization_servers: Vec<String>,
    /// Scopes listed in the metadata (default: every scope required below).
    pub scopes_supported: Vec<String>,
    /// Scopes every request needs.
    pub required_scopes: Vec<String>,
    /// Scopes the methods of a capability need on top, by capability
    /// (`tools`, `resources`, `prompts`, `completions`, `tasks`).
    pub capability_scopes: HashMap<String, Vec<String>>,
    /// Scopes a `tools/call` of a tool needs on top, by tool name.
    pub tool_scopes: HashMap<String, Vec<String>>,
    /// Scope hierarchy: a granted scope also grants these (transitively),
    /// e.g. `admin` → `write` → `read`.
    pub implied_scopes: HashMap<String, Vec<String>>,
    /// The token check.
    pub validator: Arc<dyn TokenValidator>,
}

impl std::fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthConfig")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .field("capability_scopes", &self.capability_scopes)
            .field("tool_scopes", &self.tool_scopes)
            .field("implied_scopes", &self.implied_scopes)
            .finish_non_exhaustive()
    }
}

impl AuthConfig {
    /// Tokens for `resource` from `authorization_server`, checked by
    /// `validator`; no scope required yet.
    pub fn new(
        resource: impl Into<String>,
        authorization_server: impl Into<String>,
        validator: Arc<dyn TokenValidator>,
    ) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers: vec![authorization_server.into()],
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            capability_scopes: HashMap::new(),
            tool_scopes: HashMap::new(),
            implied_scopes: HashMap::new(),
            validator,
        }
    }

    /// Every request needs `scopes`.
    pub fn require_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.required_scopes
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Calls of `tool` need `scopes` as well.
    pub fn tool_requires<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        tool: impl Into<String>,
        scopes: I,
    ) -> Self {
        self.tool_scopes
            .entry(tool.into())
            .or_default()
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The methods of `capability` (`tools`, `resources`, `prompts`,
    /// `completions`, `tasks`) need `scopes` as well.
    pub fn capability_requires<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        capability: impl Into<String>,
        scopes: I,
    ) -> Self {
        self.capability_scopes
            .entry(capability.into())
            .or_default()
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// A token granted `scope` also holds `implied` (and what those imply).
    pub fn scope_implies<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scope: impl Into<String>,
        implied: I,
    ) -> Self {
        self.implied_scopes
            .entry(scope.into())
            .or_default()
            .extend(implied.into_iter().map(Into::into));
        self
    }

    /// Adds the scopes the server declares (`#[mcp(scopes = [...])]`,
    /// `#[mcp(tools(scopes = [...]))]`, `#[tool(scopes = [...])]`) to the
    /// ones set here: each list becomes the union of both. The transport
    /// does this at start with
    /// [`McpServer::declared_scopes`](crate::McpServer::declared_scopes).
    pub fn with_declared_scopes(
        mut self,
        declared: &crate::model::declaration::DeclaredScopes,
    ) -> Self {
        extend_unique(&mut self.required_scopes, declared.required.iter().cloned());
        for (capability, scopes) in &declared.capabilities {
            let entry = self
                .capability_scopes
                .entry(capability.clone())
                .or_default();
            extend_unique(entry, scopes.iter().cloned());
        }
        for (tool, scopes) in &declared.tools {
            let entry = self.tool_scopes.entry(tool.clone()).or_default();
            extend_unique(entry, scopes.iter().cloned());
        }
        self
    }

    /// The scopes of `wanted` that `claims` lack, after the hierarchy.
    pub fn missing<'a>(&self, claims: &Claims, wanted: &'a [String]) -> Vec<&'a str> {
        let mut held: Vec<&str> = claims.scopes.iter().map(String::as_str).collect();
        let mut next = 0;
        while let Some(scope) = held.get(next).copied() {
            for implied in self.implied_scopes.get(scope).into_iter().flatten() {
                if !held.contains(&implied.as_str()) {
                    held.push(implied);
                }
            }
            next += 1;
        }
        wanted
            .iter()
            .map(String::as_str)
            .filter(|scope| !held.contains(scope))
            .collect()
    }

    /// Scopes a request for `method` (of tool `tool`, for `tools/call`)
    /// needs beyond the server-wide ones.
    pub(crate) fn scopes_for(&self, method: &str, tool: Option<&str>) -> Vec<String> {
        let capability = match method.split('/').next() {
            Some("completion") => "completions",
            Some(prefix) => prefix,
            None => "",
        };
        let mut needed: Vec<String> = self
            .capability_scopes
            .get(capability)
            .cloned()
            .unwrap_or_default();
        if let Some(tool) = tool {
            needed.extend(self.tool_scopes.get(tool).into_iter().flatten().cloned());
        }
        needed
    }

    /// The Protected Resource Metadata document (RFC 9728 §2).
    pub fn metadata(&self) -> Value {
        let mut scopes = self.scopes_supported.clone();
        for scope in self
            .required_scopes
            .iter()
            .chain(by_key(&self.capability_scopes))
            .chain(by_key(&self.tool_scopes))
        {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
        })
    }

    /// Where the metadata lives (RFC 9728 §3.1): the well-known prefix
    /// between the resource's authority and its path.
    pub fn metadata_url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        format!("{origin}/.well-known/oauth-protected-resource{path}")
    }

    /// The paths this server answers with the metadata: the one for the
    /// resource's path and the bare well-known path.
    pub(crate) fn metadata_paths(&self) -> [String; 2] {
        let (_, path) = split_origin(&self.resource);
        [
            format!("/.well-known/oauth-protected-resource{path}"),
            "/.well-known/oauth-protected-resource".to_owned(),
        ]
    }

    /// The `WWW-Authenticate` value of a 401 (`error` when a token was sent
    /// and refused) or a 403 (`insufficient_scope`).
    pub(crate) fn challenge(&self, error: Option<(&str, &str)>, scopes: &[&str]) -> String {
        let mut value = format!("Bearer resource_metadata=\"{}\"", self.metadata_url());
        if !scopes.is_empty() {
            value.push_str(&format!(", scope=\"{}\"", scopes.join(" ")));
        }
        if let Some((error, description)) = error {
            let description = description.replace(['"', '\\'], "'");
            value.push_str(&format!(
                ", error=\"{error}\", error_description=\"{description}\""
            ));
        }
        value
    }
}

/// The scopes of `map` in key order, so the metadata is the same on every
/// start.
fn by_key(map: &HashMap<String, Vec<String>>) -> impl Iterator<Item = &String> {
    let mut entries: Vec<(&String, &Vec<String>)> = map.iter().collect();
    entries.sort();
    entries.into_iter().flat_map(|(_, scopes)| scopes)
}

fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => {
            let path = &url[after_scheme + i..];
            (&url[..after_scheme + i], path.trim_end_matches('/'))
        }
        None => (url, ""),
    }
}

/// Validates JWT access tokens (RS256/384/512, ES256/384, PS256/384/512)
/// signed with keys from the issuer's JWKS: `iss` must be the issuer,
/// `aud` this resource, `exp`/`nbf` hold with a leeway. The JWKS address
/// comes from the issuer's metadata (RFC 8414, then OpenID discovery)
/// unless given; keys are cached and fetched again when a token names an
/// unknown `kid` (at most once per [`JwtValidator::refresh_interval`]).
pub struct JwtValidator {
    issuer: String,
    audience: String,
    leeway: Duration,
    jwks_uri: Mutex<Option<String>>,
    keys: Mutex<Keys>,
    refresh_interval: Duration,
}

#[derive(Default)]
struct Keys {
    set: Option<JwkSet>,
    fetched: Option<Instant>,
}

impl JwtValidator {
    /// Tokens from `issuer` for `audience` (this resource's URI), 60 s of
    /// leeway.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audience: audience.into(),
            leeway: Duration::from_secs(60),
            jwks_uri: Mutex::new(None),
            keys: Mutex::default(),
            refresh_interval: Duration::from_secs(30),
        }
    }

    /// Uses this JWKS address rather than the issuer's metadata.
    pub fn with_jwks_uri(self, uri: impl Into<String>) -> Self {
        *self.jwks_uri.lock().unwrap_or_else(PoisonError::into_inner) = Some(uri.into());
        self
    }

    /// Clock skew allowed on `exp` and `nbf` (default 60 s).
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How soon an unknown `kid` may fetch the keys again (default 30 s).
    pub fn refresh_interval(mut self, interval: Duration) -> Self {
        self.refresh_interval = interval;
        self
    }

    async fn jwks_uri(&self) -> Result<String, TokenError> {
        if let Some(uri) = self
            .jwks_uri
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
        {
            return Ok(uri);
        }
        let (origin, path) = split_origin(&self.issuer);
        let candidates = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!(
                "{}/.well-known/openid-configuration",
                self.issuer.trim_end_matches('/')
            ),
        ];
        for url in candidates {
            let Ok(metadata) = fetch_json(&url).await else {
                continue;
            };
            if metadata.get("issuer").and_then(Value::as_str) != Some(self.issuer.as_str()) {
                continue;
            }
            if let Some(uri) = metadata.get("jwks_uri").and_then(Value::as_str) {
                *self.jwks_uri.lock().unwrap_or_else(PoisonError::into_inner) =
                    Some(uri.to_owned());
                return Ok(uri.to_owned());
            }
        }
        Err(TokenError::Unavailable(format!(
            "no authorization server metadata with a jwks_uri for {}",
            self.issuer
        )))
    }

    /// The key for `kid`, fetching the set when it is unknown and the last
    /// fetch is old enough.
    async fn key(&self, kid: Option<&str>) -> Result<jsonwebtoken::jwk::Jwk, TokenError> {
        let find = |keys: &Keys| {
            keys.set.as_ref().and_then(|set| match kid {
                Some(kid) => set.find(kid).cloned(),
                None if set.keys.len() == 1 => set.keys.first().cloned(),
                None => None,
            })
        };
        let may_fetch = {
            let keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(key) = find(&keys) {
                return Ok(key);
            }
            keys.fetched
                .is_none_or(|at| at.elapsed() >= self.refresh_interval)
        };
        if !may_fetch {
            return Err(TokenError::Invalid("unknown signing key".into()));
        }
        let uri = self.jwks_uri().await?;
        let set: JwkSet = fetch_json(&uri)
            .await
            .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
            .map_err(|e| TokenError::Unavailable(format!("JWKS {uri}: {e}")))?;
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        *keys = Keys {
            set: Some(set),
            fetched: Some(Instant::now()),
        };
        find(&keys).ok_or_else(|| TokenError::Invalid("unknown signing key".into()))
    }
}

impl TokenValidator for JwtValidator {
    fn validate<'a>(&'a self, token: &'a str) -> ValidationFuture<'a> {
        Box::pin(async move {
            let header = jsonwebtoken::decode_header(token)
                .map_err(|e| TokenError::Invalid(format!("malformed token: {e}")))?;
            if matches!(
                header.alg,
                Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512
            ) {
                return Err(TokenError::Invalid(
                    "symmetric algorithms are not accepted".into(),
                ));
            }
            let jwk = self.key(header.kid.as_deref()).await?;
            let key = DecodingKey::from_jwk(&jwk)
                .map_err(|e| TokenError::Invalid(format!("unusable signing key: {e}")))?;
            let mut validation = Validation::new(header.alg);
            validation.set_issuer(&[&self.issuer]);
            validation.set_audience(&[&self.audience]);
            validation.leeway = self.leeway.as_secs();
            validation.validate_nbf = true;
            validation.set_required_spec_claims(&["exp", "iss", "aud"]);
            let data = jsonwebtoken::decode::<Value>(token, &key, &validation)
                .map_err(|e| TokenError::Invalid(e.to_string()))?;
            Ok(Claims::from_raw(data.claims))
        })
    }
}

/// Validates opaque (or any) tokens by asking the authorization server
/// (RFC 7662 token introspection), authenticating with HTTP Basic: the
/// token must be `active`, its `aud` (when given) must name this resource,
/// its `iss` (when given) the expected issuer, and `exp` must not be past.
///
/// Every request asks the authorization server unless
/// [`cache_for`](Self::cache_for) is set: a cache trades revocation
/// latency for load (RFC 7662 §4), so the choice is yours.
pub struct IntrospectionValidator {
    endpoint: String,
    authorization: String,
    audience: String,
    issuer: Option<String>,
    cache: Option<AnswerCache>,
}

/// Positive introspection answers by token, each until its deadline.
struct AnswerCache {
    ttl: Duration,
    capacity: usize,
    entries: Mutex<HashMap<String, (Instant, Claims)>>,
}

impl AnswerCache {
    fn get(&self, token: &str) -> Option<Claims> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        match entries.get(token) {
            Some((deadline, claims)) if *deadline > Instant::now() => Some(claims.clone()),
            Some(_) => {
                entries.remove(token);
                None
            }
            None => None,
        }
    }

    /// Keeps `claims` for the cache's TTL, never past the token's `exp`.
    fn put(&self, token: &str, claims: &Claims) {
        let now = Instant::now();
        let mut ttl = self.ttl;
        if let Some(exp) = claims.raw.get("exp").and_then(Value::as_u64) {
            ttl = ttl.min(Duration::from_secs(exp.saturating_sub(now_secs())));
        }
        if ttl.is_zero() {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= self.capacity {
            entries.retain(|_, (deadline, _)| *deadline > now);
        }
        if entries.len() >= self.capacity {
            // Full of live answers: start over rather than grow.
            entries.clear();
        }
        entries.insert(token.to_owned(), (now + ttl, claims.clone()));
    }
}

impl IntrospectionValidator {
    /// Introspection at `endpoint` as client `client_id`/`client_secret`,
    /// for tokens meant for `audience` (this resource's URI).
    pub fn new(
        endpoint: impl Into<String>,
        client_id: &str,
        client_secret: &str,
        audience: impl Into<String>,
    ) -> Self {
        use base64::Engine as _;
        // RFC 6749 §2.3.1: each part form-encoded before Basic encoding.
        let credentials = format!("{}:{}", form_encode(client_id), form_encode(client_secret));
        Self {
            endpoint: endpoint.into(),
            authorization: format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(credentials)
            ),
            audience: audience.into(),
            issuer: None,
            cache: None,
        }
    }

    /// Also requires `iss` to be `issuer` when the answer names one.
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Reuses an accepted token's answer for up to `ttl` (never past its
    /// `exp`), for at most `capacity` tokens; a token revoked meanwhile
    /// is accepted until then. Refusals are never cached.
    pub fn cache_for(mut self, ttl: Duration, capacity: usize) -> Self {
        self.cache = Some(AnswerCache {
            ttl,
            capacity: capacity.max(1),
            entries: Mutex::new(HashMap::new()),
        });
        self
    }
}

impl TokenValidator for IntrospectionValidator {
    fn validate<'a>(&'a self, token: &'a str) -> ValidationFuture<'a> {
        Box::pin(async move {
            if let Some(claims) = self.cache.as_ref().and_then(|c| c.get(token)) {
                return Ok(claims);
            }
            let form = format!("token={}&token_type_hint=access_token", form_encode(token));
            let answer = post_form_json(&self.endpoint, &self.authorization, &form)
                .await
                .map_err(|e| TokenError::Unavailable(format!("introspection: {e}")))?;
            if answer.get("active") != Some(&Value::Bool(true)) {
                return Err(TokenError::Invalid("the token is not active".into()));
            }
            let audience_ok = match answer.get("aud") {
                None => true,
                Some(Value::String(aud)) => *aud == self.audience,
                Some(Value::Array(list)) => list
                    .iter()
                    .any(|a| a.as_str() == Some(self.audience.as_str())),
                Some(_) => false,
            };
            if !audience_ok {
                return Err(TokenError::Invalid(
                    "the token is for another audience".into(),
                ));
            }
            if let (Some(expected), Some(iss)) = (&self.issuer, answer.get("iss"))
                && iss.as_str() != Some(expected.as_str())
            {
                return Err(TokenError::Invalid("the token has another issuer".into()));
            }
            if answer
                .get("exp")
                .and_then(Value::as_u64)
                .is_some_and(|exp| exp <= now_secs())
            {
                return Err(TokenError::Invalid("the token has expired".into()));
            }
            let claims = Claims::from_raw(answer);
            if let Some(cache) = &self.cache {
                cache.put(token, &claims);
            }
            Ok(claims)
        })
    }
}

/// `application/x-www-form-urlencoded` for one value.
fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Seconds since the Unix epoch (for tests and validators).
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// GETs `url` and parses the body as JSON (an authorization server behind
/// `https://` needs the `rustls` feature).
async fn fetch_json(url: &str) -> Result<Value, String> {
    exchange_json(url, None).await
}

/// A form POST (`application/x-www-form-urlencoded`) with an
/// `Authorization` header; the answer parsed as JSON.
async fn post_form_json(url: &str, authorization: &str, form: &str) -> Result<Value, String> {
    exchange_json(url, Some((authorization, form))).await
}

async fn exchange_json(url: &str, form: Option<(&str, &str)>) -> Result<Value, String> {
    let uri: hyper::Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
    let host = uri
        .host()
        .ok_or_else(|| format!("{url}: no host"))?
        .to_owned();
    let https = uri.scheme_str() == Some("https");
    let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    let authority = uri.authority().map_or(host.as_str(), |a| a.as_str());
    let builder = hyper::Request::builder()
        .uri(path)
        .header(hyper::header::HOST, authority)
        .header(hyper::header::ACCEPT, "application/json");
    let request = match form {
        None => builder
            .method(hyper::Method::GET)
            .body(Full::new(Bytes::new())),
        Some((authorization, form)) => builder
            .method(hyper::Method::POST)
            .header(hyper::header::AUTHORIZATION, authorization)
            .header(
                hyper::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(Full::new(Bytes::from(form.to_owned()))),
    }
    .map_err(|e| e.to_string())?;
    let tcp = tokio::time::timeout(
        Duration::from_secs(10),
        tokio::net::TcpStream::connect((host.as_str(), port)),
    )
    .await
    .map_err(|_| format!("{url}: connect timed out"))?
    .map_err(|e| format!("{url}: {e}"))?;
    let response = if https {
        #[cfg(feature = "rustls")]
        {
            let stream = tls_connect(&host, tcp).await?;
            send(stream, request).await?
        }
        #[cfg(not(feature = "rustls"))]
        return Err(format!("{url}: https needs the `rustls` feature"));
    } else {
        send(tcp, request).await?
    };
    if !response.0.is_success() {
        return Err(format!("{url}: HTTP {}", response.0));
    }
    serde_json::from_slice(&response.1).map_err(|e| format!("{url}: {e}"))
}

async fn send<I>(
    io: I,
    request: hyper::Request<Full<Bytes>>,
) -> Result<(hyper::StatusCode, Bytes), String>
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let exchange = async {
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(io))
                .await
                .map_err(|e| e.to_string())?;
        tokio::spawn(connection);
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        let body = http_body_util::Limited::new(response.into_body(), 1 << 20)
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        Ok((status, body))
    };
    tokio::time::timeout(Duration::from_secs(10), exchange)
        .await
        .map_err(|_| "timed out".to_owned())?
}

#[cfg(feature = "rustls")]
async fn tls_connect(
    host: &str,
    tcp: tokio::net::TcpStream,
) -> Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>, String> {
    let roots = rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name =
        rustls_pki_types::ServerName::try_from(host.to_owned()).map_err(|e| e.to_string())?;
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|e| e.to_string())
}
