//! The OAuth resource server (feature `auth`) over real HTTP, against a
//! local authorization-server stand-in that serves its RFC 8414 metadata
//! and a JWKS; tokens are signed with test keys (`tests/auth/*.pem`, test
//! only). Covers the metadata document, the 401 challenge, expired, wrong
//! audience, wrong issuer, an unknown `kid` (the JWKS is fetched again), a
//! missing server scope and a missing tool scope (403), and a good token
//! whose claims reach the tool; and opaque tokens through the stand-in's
//! RFC 7662 introspection endpoint; a legacy session serves only the
//! principal that opened it; capability scopes with a scope hierarchy;
//! scopes declared with the server (`#[mcp(scopes = ...)]`,
//! `tools(scopes = ...)`, `#[tool(scopes = ...)]`) joined to the
//! configured ones; refusals given before the body is read say
//! `Connection: close`.

#![cfg(feature = "auth")]
#![allow(clippy::unwrap_used, reason = "tests panic on broken fixtures")]

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_era_server::http::auth::{
    AuthConfig, Claims, IntrospectionValidator, JwtValidator, TokenValidator, now_secs,
};
use mcp_era_server::http::{HttpConfig, serve_listener};
use mcp_era_server::{McpServer, RequestContext, router};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(McpServer)]
#[mcp(name = "guarded", version = "1.0.0", versions(legacy = ["2025-11-25"]))]
struct Guarded;

#[router]
impl Guarded {
    /// Names the caller.
    #[tool]
    fn whoami(&self, ctx: &RequestContext) -> String {
        let claims = ctx
            .http_request()
            .and_then(|p| p.extensions.get::<Claims>());
        format!("subject {:?}", claims.and_then(|c| c.subject.clone()))
    }

    /// Needs the `admin` scope.
    #[tool]
    fn reset(&self) -> String {
        "reset".into()
    }
}

/// Declares its scopes: `mcp` for everything, `tools` for the tools
/// capability, `files:write` for `write` alone.
#[derive(McpServer)]
#[mcp(name = "files", version = "1.0.0", scopes = ["mcp"], tools(scopes = ["tools"]))]
struct Files;

#[router]
impl Files {
    /// Reads.
    #[tool]
    fn read(&self) -> String {
        "read".into()
    }

    /// Writes.
    #[tool(scopes = ["files:write"])]
    fn write(&self) -> String {
        "written".into()
    }
}

const GUARD: Duration = Duration::from_secs(20);

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/auth")
            .join(name),
    )
    .unwrap()
}

/// The stand-in: metadata naming `issuer`, a JWKS whose keys the test can
/// change, and an introspection endpoint (client `rs`/`s3cret`) whose
/// answer the token's text chooses.
async fn authorization_server(
    jwks: Arc<Mutex<Value>>,
    fetches: Arc<AtomicUsize>,
    resource: String,
) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let served_issuer = issuer.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (issuer, jwks, resource, fetches) = (
                served_issuer.clone(),
                Arc::clone(&jwks),
                resource.clone(),
                Arc::clone(&fetches),
            );
            let service = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                let (issuer, jwks, resource, fetches) = (
                    issuer.clone(),
                    Arc::clone(&jwks),
                    resource.clone(),
                    Arc::clone(&fetches),
                );
                async move {
                    let path = request.uri().path().to_owned();
                    let basic = request
                        .headers()
                        .get("authorization")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned);
                    let form = request.into_body().collect().await.unwrap().to_bytes();
                    let body = match path.as_str() {
                        "/.well-known/oauth-authorization-server" => json!({
                            "issuer": issuer,
                            "authorization_endpoint": format!("{issuer}/authorize"),
                            "token_endpoint": format!("{issuer}/token"),
                            "introspection_endpoint": format!("{issuer}/introspect"),
                            "jwks_uri": format!("{issuer}/jwks"),
                            "response_types_supported": ["code"],
                        }),
                        "/jwks" => {
                            fetches.fetch_add(1, Ordering::SeqCst);
                            jwks.lock().unwrap().clone()
                        }
                        "/introspect" => introspection(basic.as_deref(), &form, &resource),
                        _ => Value::Null,
                    };
                    let status = if body.is_null() { 404 } else { 200 };
                    let mut response =
                        hyper::Response::new(Full::new(Bytes::from(body.to_string())));
                    *response.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
                    Ok::<_, Infallible>(response)
                }
            });
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    issuer
}

fn introspection(basic: Option<&str>, form: &[u8], resource: &str) -> Value {
    // base64("rs:s3cret")
    if basic != Some("Basic cnM6czNjcmV0") {
        return json!({"active": false});
    }
    let form = String::from_utf8_lossy(form);
    let token = form
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
        .unwrap_or_default();
    match token {
        "opaque-good" => json!({"active": true, "scope": "mcp", "sub": "bob",
                                "aud": [resource], "exp": now_secs() + 600}),
        "opaque-elsewhere" => json!({"active": true, "scope": "mcp",
                                     "aud": "http://elsewhere.example/mcp"}),
        "opaque-expired" => json!({"active": true, "scope": "mcp", "aud": resource,
                                   "exp": now_secs() - 10}),
        _ => json!({"active": false}),
    }
}

fn jwks(kids: &[&str]) -> Value {
    let keys: Vec<Value> = kids
        .iter()
        .flat_map(|kid| {
            let set: Value = serde_json::from_str(&fixture(&format!("{kid}.jwks.json"))).unwrap();
            set["keys"].as_array().unwrap().clone()
        })
        .collect();
    json!({ "keys": keys })
}

fn token(kid: &str, claims: Value) -> String {
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some(kid.to_owned());
    let key = EncodingKey::from_rsa_pem(fixture(&format!("{kid}.pem")).as_bytes()).unwrap();
    jsonwebtoken::encode(&header, &claims, &key).unwrap()
}

struct Setup {
    mcp: String,
    resource: String,
    issuer: String,
    jwks: Arc<Mutex<Value>>,
    /// How many times the JWKS was fetched.
    jwks_fetches: Arc<AtomicUsize>,
}

async fn setup() -> Setup {
    setup_with(jwt, |auth| {
        auth.require_scopes(["mcp"])
            .capability_requires("tools", ["tools"])
            .tool_requires("reset", ["admin"])
            .scope_implies("mcp", ["tools"])
    })
    .await
}

fn jwt(issuer: String, resource: String) -> Arc<dyn TokenValidator> {
    Arc::new(JwtValidator::new(issuer, resource).refresh_interval(Duration::ZERO))
}

async fn setup_with(
    validator: impl FnOnce(String, String) -> Arc<dyn TokenValidator>,
    rules: impl FnOnce(AuthConfig) -> AuthConfig,
) -> Setup {
    setup_server(Guarded, validator, rules).await
}

async fn setup_server<S: McpServer + 'static>(
    server: S,
    validator: impl FnOnce(String, String) -> Arc<dyn TokenValidator>,
    rules: impl FnOnce(AuthConfig) -> AuthConfig,
) -> Setup {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://127.0.0.1:{}/mcp", addr.port());
    let jwks_now = Arc::new(Mutex::new(jwks(&["key1"])));
    let jwks_fetches = Arc::new(AtomicUsize::new(0));
    let issuer = authorization_server(
        Arc::clone(&jwks_now),
        Arc::clone(&jwks_fetches),
        resource.clone(),
    )
    .await;
    let mut config = HttpConfig::new(addr);
    config.auth = Some(rules(AuthConfig::new(
        resource.clone(),
        issuer.clone(),
        validator(issuer.clone(), resource.clone()),
    )));
    tokio::spawn(serve_listener(Arc::new(server), listener, config));
    Setup {
        mcp: format!("127.0.0.1:{}", addr.port()),
        resource,
        issuer,
        jwks: jwks_now,
        jwks_fetches,
    }
}

fn claims(s: &Setup, scope: &str) -> Value {
    json!({"iss": s.issuer, "aud": s.resource, "sub": "alice", "scope": scope,
           "exp": now_secs() + 600, "nbf": now_secs() - 10})
}

/// (status, lower-cased head, body)
async fn call(addr: &str, tool: &str, bearer: Option<&str>) -> (u16, String, String) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let auth = bearer.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\n{auth}\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    raw(addr, &head).await
}

async fn raw(addr: &str, request: &str) -> (u16, String, String) {
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).await.unwrap();
        raw
    };
    let raw = tokio::time::timeout(GUARD, exchange).await.unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

fn challenge(head: &str) -> &str {
    head.lines()
        .find_map(|l| l.strip_prefix("www-authenticate: "))
        .unwrap_or_default()
}

#[tokio::test]
async fn metadata_and_the_challenge_point_clients_to_the_authorization_server() {
    let s = setup().await;
    let (status, _, body) = raw(
        &s.mcp,
        &format!(
            "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            s.mcp
        ),
    )
    .await;
    assert_eq!(status, 200);
    let metadata: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(metadata["resource"], s.resource);
    assert_eq!(metadata["authorization_servers"], json!([s.issuer]));
    assert_eq!(
        metadata["scopes_supported"],
        json!(["mcp", "tools", "admin"])
    );

    let (status, head, _) = call(&s.mcp, "whoami", None).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge(&head),
        format!(
            "bearer resource_metadata=\"http://{}/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\"",
            s.mcp
        )
    );
}

/// A refusal decided from the headers leaves the body unread, and hyper
/// then closes the connection (unless the whole body happened to be in its
/// buffer already): the answer must say `Connection: close`, or a client
/// that reuses the connection for its next request (the metadata fetch)
/// races the close. The Python SDK (mcp 2.3.0) lost that race in its
/// legacy OAuth flow: "Server disconnected without sending a response".
#[tokio::test]
async fn refusals_before_the_body_is_read_say_connection_close() {
    let s = setup().await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let narrow = token("key1", claims(&s, "other"));
    for (case, authorization, want) in [
        ("no token", String::new(), 401),
        (
            "bad token",
            "Authorization: Bearer not.a.jwt\r\n".to_owned(),
            401,
        ),
        (
            "no server scope",
            format!("Authorization: Bearer {narrow}\r\n"),
            403,
        ),
    ] {
        // A keep-alive request: nothing asks for the close.
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{authorization}\
             Content-Length: {}\r\n\r\n{body}",
            s.mcp,
            body.len()
        );
        let head = tokio::time::timeout(GUARD, first_head(&s.mcp, &request))
            .await
            .unwrap();
        assert!(
            head.starts_with(&format!("http/1.1 {want} ")),
            "{case}: {head}"
        );
        assert!(
            head.lines().any(|l| l == "connection: close"),
            "{case}: {head}"
        );
    }
}

/// The lower-cased head of the first answer on a connection that is not
/// read to its end (whether hyper closes it depends on how much of the body
/// had arrived).
async fn first_head(addr: &str, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let mut chunk = [0u8; 4096];
    while !raw.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "closed before a full head");
        raw.extend_from_slice(&chunk[..n]);
    }
    let raw = String::from_utf8_lossy(&raw).to_ascii_lowercase();
    raw.split("\r\n\r\n").next().unwrap().to_owned()
}

#[tokio::test]
async fn bad_tokens_get_401_invalid_token() {
    let s = setup().await;
    let mut expired = claims(&s, "mcp");
    expired["exp"] = json!(now_secs() - 3600);
    let mut audience = claims(&s, "mcp");
    audience["aud"] = json!("http://elsewhere.example/mcp");
    let mut issuer = claims(&s, "mcp");
    issuer["iss"] = json!("http://impostor.example");
    for (case, token) in [
        ("expired", token("key1", expired)),
        ("wrong audience", token("key1", audience)),
        ("wrong issuer", token("key1", issuer)),
        ("garbage", "not.a.jwt".to_owned()),
    ] {
        let (status, head, _) = call(&s.mcp, "whoami", Some(&token)).await;
        assert_eq!(status, 401, "{case}");
        assert!(
            challenge(&head).contains("error=\"invalid_token\""),
            "{case}: {head}"
        );
    }
}

#[tokio::test]
async fn an_unknown_key_is_fetched_again_from_the_jwks() {
    let s = setup().await;
    let rotated = token("key2", claims(&s, "mcp"));
    let (status, _, _) = call(&s.mcp, "whoami", Some(&rotated)).await;
    assert_eq!(status, 401, "key2 is not published yet");
    *s.jwks.lock().unwrap() = jwks(&["key1", "key2"]);
    let (status, _, body) = call(&s.mcp, "whoami", Some(&rotated)).await;
    assert_eq!(status, 200, "{body}");
}

/// `n` calls of `whoami` with `bearer` at once: their statuses.
async fn concurrently(n: usize, addr: &str, bearer: &str) -> Vec<u16> {
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..n {
        let (addr, bearer) = (addr.to_owned(), bearer.to_owned());
        calls.spawn(async move { call(&addr, "whoami", Some(&bearer)).await.0 });
    }
    calls.join_all().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_kids_fetch_the_jwks_once_per_interval_even_when_it_fails() {
    let interval = |issuer, resource| -> Arc<dyn TokenValidator> {
        Arc::new(JwtValidator::new(issuer, resource).refresh_interval(Duration::from_secs(60)))
    };
    // 30 concurrent tokens naming a key the JWKS lacks: one fetch.
    let s = setup_with(interval, |auth| auth).await;
    let unknown = token("key2", claims(&s, "mcp"));
    for status in concurrently(30, &s.mcp, &unknown).await {
        assert_eq!(status, 401);
    }
    assert_eq!(s.jwks_fetches.load(Ordering::SeqCst), 1);
    // The JWKS failing: one failed fetch, then 503s without fetching.
    let s = setup_with(interval, |auth| auth).await;
    *s.jwks.lock().unwrap() = Value::Null;
    let good = token("key1", claims(&s, "mcp"));
    for status in concurrently(30, &s.mcp, &good).await {
        assert_eq!(status, 503);
    }
    assert_eq!(s.jwks_fetches.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_withdrawn_key_stops_working_once_the_keys_are_old() {
    let s = setup_with(
        |issuer, resource| {
            Arc::new(
                JwtValidator::new(issuer, resource)
                    .refresh_interval(Duration::ZERO)
                    .max_key_age(Duration::from_millis(300)),
            )
        },
        |auth| auth,
    )
    .await;
    let old = token("key1", claims(&s, "mcp"));
    let (status, _, body) = call(&s.mcp, "whoami", Some(&old)).await;
    assert_eq!(status, 200, "{body}");
    *s.jwks.lock().unwrap() = jwks(&["key2"]);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let (status, _, _) = call(&s.mcp, "whoami", Some(&old)).await;
    assert_eq!(status, 401, "a withdrawn key was accepted");
}

#[tokio::test]
async fn scopes_are_required_per_server_and_per_tool() {
    let s = setup().await;
    let (status, head, _) = call(&s.mcp, "whoami", Some(&token("key1", claims(&s, "other")))).await;
    assert_eq!(status, 403);
    assert!(
        challenge(&head).contains("error=\"insufficient_scope\""),
        "{head}"
    );
    assert!(challenge(&head).contains("scope=\"mcp\""), "{head}");

    let plain = token("key1", claims(&s, "mcp"));
    let (status, head, _) = call(&s.mcp, "reset", Some(&plain)).await;
    assert_eq!(status, 403);
    assert!(
        challenge(&head).contains("scope=\"mcp tools admin\""),
        "{head}"
    );

    let admin = token("key1", claims(&s, "mcp admin"));
    let (status, _, body) = call(&s.mcp, "reset", Some(&admin)).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_good_token_reaches_the_tool_with_its_claims() {
    let s = setup().await;
    let (status, _, body) = call(&s.mcp, "whoami", Some(&token("key1", claims(&s, "mcp")))).await;
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "subject Some(\"alice\")"
    );
}

#[tokio::test]
async fn opaque_tokens_are_checked_by_introspection() {
    let s = setup_with(
        |issuer, resource| {
            Arc::new(IntrospectionValidator::new(
                format!("{issuer}/introspect"),
                "rs",
                "s3cret",
                resource,
            ))
        },
        |auth| auth.require_scopes(["mcp"]),
    )
    .await;
    let (status, _, body) = call(&s.mcp, "whoami", Some("opaque-good")).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#"subject Some(\"bob\")"#), "{body}");
    for token in ["opaque-elsewhere", "opaque-expired", "opaque-unknown"] {
        let (status, head, _) = call(&s.mcp, "whoami", Some(token)).await;
        assert_eq!(status, 401, "{token}");
        assert!(
            challenge(&head).contains("invalid_token"),
            "{token}: {head}"
        );
    }
}

#[tokio::test]
async fn a_legacy_session_serves_only_its_principal() {
    let s = setup().await;
    let alice = token("key1", claims(&s, "mcp"));
    let mut bob_claims = claims(&s, "mcp");
    bob_claims["sub"] = json!("bob");
    let bob = token("key1", bob_claims);
    let post = |bearer: &str, session: Option<&str>, body: &str| {
        let session = session.map_or(String::new(), |id| format!("Mcp-Session-Id: {id}\r\n"));
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\n\
             Authorization: Bearer {bearer}\r\n{session}Content-Length: {}\r\n\r\n{body}",
            s.mcp,
            body.len()
        )
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}})
    .to_string();
    let (status, head, _) = raw(&s.mcp, &post(&alice, None, &initialize)).await;
    assert_eq!(status, 200);
    let session = head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .unwrap()
        .to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let (status, _, _) = raw(&s.mcp, &post(&bob, Some(&session), &ping)).await;
    assert_eq!(status, 404, "another principal must not reach the session");
    // A client named like the user is another caller (RFC 9068 §5), with no
    // `sub` or with an empty one.
    for sub in [None, Some("")] {
        let mut client_claims = claims(&s, "mcp");
        match sub {
            Some(sub) => client_claims["sub"] = json!(sub),
            None => drop(client_claims.as_object_mut().unwrap().remove("sub")),
        }
        client_claims["client_id"] = json!("alice");
        let client = token("key1", client_claims);
        let (status, _, _) = raw(&s.mcp, &post(&client, Some(&session), &ping)).await;
        assert_eq!(
            status, 404,
            "client alice (sub {sub:?}) reached user alice's session"
        );
    }
    let (status, _, body) = raw(&s.mcp, &post(&alice, Some(&session), &ping)).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn capability_scopes_follow_the_scope_hierarchy() {
    // Tools need `tools:call`; `admin` grants `write`, which grants it.
    let s = setup_with(jwt, |auth| {
        auth.capability_requires("tools", ["tools:call"])
            .scope_implies("admin", ["write"])
            .scope_implies("write", ["tools:call"])
    })
    .await;
    let (status, head, _) = call(&s.mcp, "whoami", Some(&token("key1", claims(&s, "read")))).await;
    assert_eq!(status, 403);
    assert!(challenge(&head).contains("scope=\"tools:call\""), "{head}");
    let (status, _, body) = call(&s.mcp, "whoami", Some(&token("key1", claims(&s, "admin")))).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn declared_scopes_join_the_configured_ones() {
    // Declared: `mcp`, `tools`, `write` → `files:write`. Configured: `mcp`
    // again, `read` → `files:read`, and `files:admin` implies `files:write`.
    let s = setup_server(Files, jwt, |auth| {
        auth.require_scopes(["mcp"])
            .tool_requires("read", ["files:read"])
            .scope_implies("files:admin", ["files:write"])
    })
    .await;
    let (status, _, body) = raw(
        &s.mcp,
        &format!(
            "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            s.mcp
        ),
    )
    .await;
    assert_eq!(status, 200);
    let metadata: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        metadata["scopes_supported"],
        json!(["mcp", "tools", "files:read", "files:write"])
    );

    // Without a token, the challenge names the declared server-wide scope.
    let (status, head, _) = call(&s.mcp, "read", None).await;
    assert_eq!(status, 401);
    assert!(challenge(&head).contains("scope=\"mcp\""), "{head}");

    let reader = token("key1", claims(&s, "mcp tools files:read"));
    let (status, _, body) = call(&s.mcp, "read", Some(&reader)).await;
    assert_eq!(status, 200, "other tools work: {body}");
    let (status, head, body) = call(&s.mcp, "write", Some(&reader)).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        challenge(&head).contains("error=\"insufficient_scope\""),
        "{head}"
    );
    assert!(
        challenge(&head).contains("scope=\"mcp tools files:write\""),
        "{head}"
    );
    assert!(
        body.contains("tools/call needs scope files:write"),
        "{body}"
    );

    let (status, head, _) = call(
        &s.mcp,
        "write",
        Some(&token("key1", claims(&s, "mcp files:write"))),
    )
    .await;
    assert_eq!(status, 403, "the declared capability scope is required");
    assert!(challenge(&head).contains("insufficient_scope"), "{head}");
    let (status, head, _) = call(
        &s.mcp,
        "write",
        Some(&token("key1", claims(&s, "tools files:write"))),
    )
    .await;
    assert_eq!(status, 403, "the declared server scope is required");
    assert!(challenge(&head).contains("scope=\"mcp\""), "{head}");

    for granted in ["mcp tools files:write", "mcp tools files:admin"] {
        let writer = token("key1", claims(&s, granted));
        let (status, _, body) = call(&s.mcp, "write", Some(&writer)).await;
        assert_eq!(status, 200, "{granted}: {body}");
        assert!(body.contains("written"), "{body}");
    }
}
