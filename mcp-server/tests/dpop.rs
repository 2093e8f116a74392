//! DPoP-bound tokens at the resource server (RFC 9449) over real HTTP:
//! a local authorization-server stand-in serves its metadata and JWKS,
//! access tokens are RS256 JWTs (`tests/auth/key1.pem`) bound with
//! `cnf.jkt` to a P-256 proof key (`tests/auth/dpop1.pem`, test only).
//! Each RFC 9449 §4.3 check is broken once and must give its error code;
//! bad input (malformed keys, `alg: none`, HS256 confusion, garbage,
//! huge headers) is refused, never accepted.

#![cfg(feature = "auth")]
#![allow(clippy::unwrap_used, reason = "tests panic on broken fixtures")]

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_era_server::http::auth::{AuthConfig, DpopConfig, JwtValidator, now_secs};
use mcp_era_server::http::{HttpConfig, serve_listener};
use mcp_era_server::{McpServer, router};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(McpServer)]
#[mcp(name = "bound", version = "1.0.0")]
struct Bound;

#[router]
impl Bound {
    /// Answers.
    #[tool]
    fn ping(&self) -> String {
        "pong".into()
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

/// Metadata and the JWKS of `key1`.
async fn authorization_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let served = issuer.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let issuer = served.clone();
            let service = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                let body = match request.uri().path() {
                    "/.well-known/oauth-authorization-server" => json!({
                        "issuer": issuer, "jwks_uri": format!("{issuer}/jwks"),
                        "authorization_endpoint": format!("{issuer}/authorize"),
                        "token_endpoint": format!("{issuer}/token"),
                        "response_types_supported": ["code"]}),
                    "/jwks" => serde_json::from_str(&fixture("key1.jwks.json")).unwrap(),
                    _ => Value::Null,
                };
                async move {
                    Ok::<_, Infallible>(hyper::Response::new(Full::new(Bytes::from(
                        body.to_string(),
                    ))))
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

struct Setup {
    addr: String,
    resource: String,
    issuer: String,
}

async fn setup(dpop: DpopConfig) -> Setup {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://127.0.0.1:{}/mcp", addr.port());
    let issuer = authorization_server().await;
    let mut config = HttpConfig::new(addr);
    let validator = Arc::new(JwtValidator::new(issuer.clone(), resource.clone()));
    config.auth =
        Some(AuthConfig::new(resource.clone(), issuer.clone(), validator).with_dpop(dpop));
    tokio::spawn(serve_listener(Arc::new(Bound), listener, config));
    Setup {
        addr: format!("127.0.0.1:{}", addr.port()),
        resource,
        issuer,
    }
}

/// A proof key: the signing key, its public JWK and RFC 7638 thumbprint.
struct ProofKey {
    signing: EncodingKey,
    jwk: Value,
    jkt: String,
}

fn proof_key(file: &str) -> ProofKey {
    let signing = EncodingKey::from_ec_pem(fixture(file).as_bytes()).unwrap();
    let jwk =
        serde_json::to_value(Jwk::from_encoding_key(&signing, Algorithm::ES256).unwrap()).unwrap();
    let canonical = format!(
        r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
        jwk["x"].as_str().unwrap(),
        jwk["y"].as_str().unwrap()
    );
    let jkt = URL_SAFE_NO_PAD.encode(Sha256::digest(canonical));
    ProofKey {
        signing,
        jwk: json!({"kty": "EC", "crv": "P-256", "x": jwk["x"], "y": jwk["y"]}),
        jkt,
    }
}

/// An RS256 access token for `s`, bound to `jkt` when given.
fn access_token(s: &Setup, jkt: Option<&str>) -> String {
    let mut claims = json!({"iss": s.issuer, "aud": s.resource, "sub": "alice",
                            "exp": now_secs() + 600, "nbf": now_secs() - 10});
    if let Some(jkt) = jkt {
        claims["cnf"] = json!({"jkt": jkt});
    }
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("key1".into());
    let key = EncodingKey::from_rsa_pem(fixture("key1.pem").as_bytes()).unwrap();
    jsonwebtoken::encode(&header, &claims, &key).unwrap()
}

/// A JWT from raw header and claims, signed by `key` with `alg`.
fn sign(header: &Value, claims: &Value, key: &EncodingKey, alg: Algorithm) -> String {
    let message = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature = jsonwebtoken::crypto::sign(message.as_bytes(), key, alg).unwrap();
    format!("{message}.{signature}")
}

static JTI: AtomicU64 = AtomicU64::new(0);

/// The claims of a good proof for a POST to the resource with `token`.
fn proof_claims(s: &Setup, token: &str) -> Value {
    json!({"jti": format!("jti-{}-{}", now_secs(), JTI.fetch_add(1, Ordering::Relaxed)),
           "htm": "POST", "htu": s.resource, "iat": now_secs(),
           "ath": URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))})
}

fn proof(key: &ProofKey, claims: &Value) -> String {
    let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": key.jwk});
    sign(&header, claims, &key.signing, Algorithm::ES256)
}

/// POSTs a `tools/call` with `authorization` and `DPoP` lines:
/// (status, lower-cased head).
async fn call(s: &Setup, authorization: &str, proofs: &[String]) -> (u16, String) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ping",
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let dpop: String = proofs.iter().map(|p| format!("DPoP: {p}\r\n")).collect();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: ping\r\n\
         Authorization: {authorization}\r\n{dpop}Content-Length: {}\r\n\r\n{body}",
        s.addr,
        body.len()
    );
    let exchange = async {
        let mut stream = TcpStream::connect(&s.addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.unwrap();
        String::from_utf8_lossy(&raw).into_owned()
    };
    let raw = tokio::time::timeout(GUARD, exchange).await.unwrap();
    let head = raw.split("\r\n\r\n").next().unwrap_or_default().to_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase())
}

fn header<'a>(head: &'a str, name: &str) -> Vec<&'a str> {
    head.lines()
        .filter_map(|l| l.strip_prefix(name)?.strip_prefix(": "))
        .collect()
}

/// A 401 whose DPoP challenge names `error` and the metadata.
fn assert_dpop_error(answer: &(u16, String), error: &str) {
    assert_eq!(answer.0, 401, "{}", answer.1);
    let challenges = header(&answer.1, "www-authenticate");
    assert!(
        challenges.iter().any(|c| c.starts_with("dpop ")
            && c.contains(&format!("error=\"{error}\""))
            && c.contains("resource_metadata=\"")
            && c.contains("algs=\"es256")),
        "{}",
        answer.1
    );
}

/// A bound token and a good proof for it.
fn bound(s: &Setup, key: &ProofKey) -> (String, Value) {
    let token = access_token(s, Some(&key.jkt));
    let claims = proof_claims(s, &token);
    (token, claims)
}

#[tokio::test]
async fn a_good_proof_is_accepted_and_its_jti_only_once() {
    let s = setup(DpopConfig::new()).await;
    let key = proof_key("dpop1.pem");
    let (token, claims) = bound(&s, &key);
    let good = proof(&key, &claims);
    let first = call(&s, &format!("DPoP {token}"), std::slice::from_ref(&good)).await;
    assert_eq!(first.0, 200, "{}", first.1);
    let replay = call(&s, &format!("DPoP {token}"), &[good]).await;
    assert_dpop_error(&replay, "invalid_dpop_proof");
    assert!(replay.1.contains("already used"), "{}", replay.1);
}

#[tokio::test]
async fn each_broken_claim_is_an_invalid_proof() {
    let s = setup(DpopConfig::new()).await;
    let key = proof_key("dpop1.pem");
    let (token, claims) = bound(&s, &key);
    let other_ath = URL_SAFE_NO_PAD.encode(Sha256::digest(b"another token"));
    let broken: [(&str, Value, &str); 7] = [
        (
            "htu",
            json!(format!("{}/other", s.resource)),
            "htu does not match",
        ),
        (
            "htu",
            json!(format!("{}?a=b", s.resource)),
            "query or fragment",
        ),
        ("htm", json!("GET"), "htm does not match"),
        ("ath", json!(other_ath), "ath does not match"),
        ("iat", json!(now_secs() - 3600), "iat is outside"),
        ("iat", json!(now_secs() + 3600), "iat is outside"),
        // Ahead by more than the 5 s leeway, though inside the 120 s window.
        ("iat", json!(now_secs() + 60), "iat is outside"),
    ];
    for (name, value, why) in broken {
        let mut claims = claims.clone();
        claims[name] = value;
        claims["jti"] = json!(format!("{name}-{}", JTI.fetch_add(1, Ordering::Relaxed)));
        let answer = call(&s, &format!("DPoP {token}"), &[proof(&key, &claims)]).await;
        assert_dpop_error(&answer, "invalid_dpop_proof");
        assert!(answer.1.contains(why), "{why}: {}", answer.1);
    }
}

#[tokio::test]
async fn a_fractional_iat_is_a_numeric_date() {
    let s = setup(DpopConfig::new()).await;
    let key = proof_key("dpop1.pem");
    let (token, mut claims) = bound(&s, &key);
    // RFC 7519 §2: a NumericDate may have a fraction (1700000000.25).
    claims["iat"] = json!(now_secs() as f64 + 0.25);
    let answer = call(&s, &format!("DPoP {token}"), &[proof(&key, &claims)]).await;
    assert_eq!(answer.0, 200, "{}", answer.1);
}

#[tokio::test]
async fn proofs_with_a_bad_token_do_not_fill_the_replay_table() {
    // The probe's flood, scaled down: far more proofs than the table holds,
    // under a token that is no token and a throwaway key.
    let s = setup(DpopConfig::new().replay_limits(20, 10)).await;
    let stranger = proof_key("dpop2.pem");
    for _ in 0..60 {
        let claims = proof_claims(&s, "x");
        let answer = call(&s, "DPoP x", &[proof(&stranger, &claims)]).await;
        assert_dpop_error(&answer, "invalid_token");
    }
    let key = proof_key("dpop1.pem");
    let (token, claims) = bound(&s, &key);
    let answer = call(&s, &format!("DPoP {token}"), &[proof(&key, &claims)]).await;
    assert_eq!(answer.0, 200, "{}", answer.1);
}

#[tokio::test]
async fn one_key_cannot_take_the_whole_replay_table() {
    let s = setup(DpopConfig::new().replay_limits(20, 3)).await;
    let greedy = proof_key("dpop2.pem");
    let greedy_token = access_token(&s, Some(&greedy.jkt));
    for _ in 0..3 {
        let claims = proof_claims(&s, &greedy_token);
        let answer = call(
            &s,
            &format!("DPoP {greedy_token}"),
            &[proof(&greedy, &claims)],
        )
        .await;
        assert_eq!(answer.0, 200, "{}", answer.1);
    }
    let claims = proof_claims(&s, &greedy_token);
    let over = call(
        &s,
        &format!("DPoP {greedy_token}"),
        &[proof(&greedy, &claims)],
    )
    .await;
    assert_dpop_error(&over, "invalid_dpop_proof");
    assert!(over.1.contains("by this key"), "{}", over.1);
    // Another key still gets in.
    let key = proof_key("dpop1.pem");
    let (token, claims) = bound(&s, &key);
    let answer = call(&s, &format!("DPoP {token}"), &[proof(&key, &claims)]).await;
    assert_eq!(answer.0, 200, "{}", answer.1);
}

#[tokio::test]
async fn a_proof_by_another_key_than_cnf_jkt_is_refused() {
    let s = setup(DpopConfig::new()).await;
    let (bound_key, other) = (proof_key("dpop1.pem"), proof_key("dpop2.pem"));
    let (token, claims) = bound(&s, &bound_key);
    let answer = call(&s, &format!("DPoP {token}"), &[proof(&other, &claims)]).await;
    assert_dpop_error(&answer, "invalid_dpop_proof");
    assert!(answer.1.contains("bound to"), "{}", answer.1);
}

#[tokio::test]
async fn a_bound_token_needs_its_proof_and_the_dpop_scheme() {
    let s = setup(DpopConfig::new()).await;
    let key = proof_key("dpop1.pem");
    let (token, claims) = bound(&s, &key);
    let missing = call(&s, &format!("DPoP {token}"), &[]).await;
    assert_dpop_error(&missing, "invalid_dpop_proof");
    let two = call(
        &s,
        &format!("DPoP {token}"),
        &[proof(&key, &claims), proof(&key, &claims)],
    )
    .await;
    assert_dpop_error(&two, "invalid_dpop_proof");
    let bearer = call(&s, &format!("Bearer {token}"), &[proof(&key, &claims)]).await;
    assert_eq!(bearer.0, 401);
    assert!(bearer.1.contains("error=\"invalid_token\""), "{}", bearer.1);
    // An unbound token under the DPoP scheme is refused too.
    let unbound = access_token(&s, None);
    let claims = proof_claims(&s, &unbound);
    let answer = call(&s, &format!("DPoP {unbound}"), &[proof(&key, &claims)]).await;
    assert_dpop_error(&answer, "invalid_token");
    // While DPoP is optional, plain bearer tokens still work.
    assert_eq!(call(&s, &format!("Bearer {unbound}"), &[]).await.0, 200);
}

#[tokio::test]
async fn required_dpop_refuses_bearer_and_the_metadata_says_so() {
    let s = setup(DpopConfig::new().required(true)).await;
    let unbound = access_token(&s, None);
    let answer = call(&s, &format!("Bearer {unbound}"), &[]).await;
    assert_dpop_error(&answer, "invalid_token");
    let metadata = fetch_metadata(&s).await;
    assert_eq!(metadata["dpop_bound_access_tokens_required"], json!(true));
    assert_eq!(
        metadata["dpop_signing_alg_values_supported"],
        json!(["ES256", "ES384", "RS256", "PS256", "EdDSA"])
    );
}

async fn fetch_metadata(s: &Setup) -> Value {
    let request = format!(
        "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        s.addr
    );
    let mut stream = TcpStream::connect(&s.addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).await.unwrap();
    serde_json::from_str(raw.split("\r\n\r\n").nth(1).unwrap()).unwrap()
}

#[tokio::test]
async fn nonces_are_issued_then_required_then_accepted() {
    let s = setup(DpopConfig::new().require_nonce(true)).await;
    let key = proof_key("dpop1.pem");
    let (token, claims) = bound(&s, &key);
    let absent = call(&s, &format!("DPoP {token}"), &[proof(&key, &claims)]).await;
    assert_dpop_error(&absent, "use_dpop_nonce");
    let nonce = header(&absent.1, "dpop-nonce")[0].to_owned();
    // Header values were lower-cased; read the nonce again as sent.
    let stale = {
        let mut claims = proof_claims(&s, &token);
        claims["nonce"] = json!("c3RhbGU");
        call(&s, &format!("DPoP {token}"), &[proof(&key, &claims)]).await
    };
    assert_dpop_error(&stale, "use_dpop_nonce");
    let issued = issued_nonce(&s, &token, &key).await;
    assert_eq!(issued.to_ascii_lowercase(), nonce);
    let mut claims = proof_claims(&s, &token);
    claims["nonce"] = json!(issued);
    let answer = call(&s, &format!("DPoP {token}"), &[proof(&key, &claims)]).await;
    assert_eq!(answer.0, 200, "{}", answer.1);
    assert_eq!(header(&answer.1, "dpop-nonce"), [nonce.as_str()]);
}

/// The `DPoP-Nonce` of a refusal, with its case kept.
async fn issued_nonce(s: &Setup, token: &str, key: &ProofKey) -> String {
    let claims = proof_claims(s, token);
    let body = "{}";
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nAuthorization: DPoP {token}\r\n\
         DPoP: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        s.addr,
        proof(key, &claims),
        body.len()
    );
    let mut stream = TcpStream::connect(&s.addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let raw = String::from_utf8_lossy(&raw).into_owned();
    raw.lines()
        .find_map(|l| {
            l.strip_prefix("dpop-nonce: ")
                .or_else(|| l.strip_prefix("DPoP-Nonce: "))
        })
        .unwrap()
        .to_owned()
}

/// Sends `proof` with a good bound token: must be an invalid proof.
async fn refused_proof(s: &Setup, token: &str, proof: String) {
    let answer = call(s, &format!("DPoP {token}"), &[proof]).await;
    assert_dpop_error(&answer, "invalid_dpop_proof");
}

#[tokio::test]
async fn a_malformed_jwk_is_refused() {
    let s = setup(DpopConfig::new()).await;
    let key = proof_key("dpop1.pem");
    let (token, claims) = bound(&s, &key);
    for jwk in [
        json!({"kty": "EC", "crv": "P-256", "x": "not base64!", "y": key.jwk["y"]}),
        json!({"kty": "EC", "crv": "P-256", "x": key.jwk["x"]}),
        json!({"kty": "EC", "crv": "P-256", "x": "AAAA", "y": "AAAA"}),
        json!({"kty": "EC", "crv": "P-256", "x": key.jwk["x"], "y": key.jwk["y"], "d": "AAAA"}),
        json!({"kty": "RSA", "n": "AQAB", "e": "AQAB"}),
        json!("a string"),
    ] {
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": jwk});
        refused_proof(
            &s,
            &token,
            sign(&header, &claims, &key.signing, Algorithm::ES256),
        )
        .await;
    }
}

#[tokio::test]
async fn unsupported_algorithms_and_alg_none_are_refused() {
    let s = setup(DpopConfig::new().algorithms([Algorithm::ES256])).await;
    let key = proof_key("dpop1.pem");
    let (token, claims) = bound(&s, &key);
    // RS256 is a real signature, but not on this server's list.
    let rsa = EncodingKey::from_rsa_pem(fixture("key1.pem").as_bytes()).unwrap();
    let rsa_jwk: Value =
        serde_json::from_str::<Value>(&fixture("key1.jwks.json")).unwrap()["keys"][0].clone();
    let header = json!({"typ": "dpop+jwt", "alg": "RS256", "jwk": {"kty": "RSA", "n": rsa_jwk["n"], "e": rsa_jwk["e"]}});
    refused_proof(&s, &token, sign(&header, &claims, &rsa, Algorithm::RS256)).await;
    // `none`: no signature at all.
    let header = json!({"typ": "dpop+jwt", "alg": "none", "jwk": key.jwk});
    let unsigned = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    refused_proof(&s, &token, unsigned).await;
    // HS256 with a symmetric jwk.
    let secret = EncodingKey::from_secret(b"shared");
    let header = json!({"typ": "dpop+jwt", "alg": "HS256", "jwk": {"kty": "oct", "k": "c2hhcmVk"}});
    refused_proof(
        &s,
        &token,
        sign(&header, &claims, &secret, Algorithm::HS256),
    )
    .await;
    // The wrong `typ`.
    let header = json!({"typ": "JWT", "alg": "ES256", "jwk": key.jwk});
    refused_proof(
        &s,
        &token,
        sign(&header, &claims, &key.signing, Algorithm::ES256),
    )
    .await;
}

#[tokio::test]
async fn an_hs256_token_signed_with_the_public_key_is_refused() {
    let s = setup(DpopConfig::new()).await;
    let key = proof_key("dpop1.pem");
    // Algorithm confusion: the issuer's public key used as an HMAC secret.
    let public = serde_json::from_str::<Value>(&fixture("key1.jwks.json")).unwrap()["keys"][0]["n"]
        .as_str()
        .unwrap()
        .to_owned();
    let claims = json!({"iss": s.issuer, "aud": s.resource, "sub": "mallory", "exp": now_secs() + 600,
                        "cnf": {"jkt": key.jkt}});
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("key1".into());
    let forged = jsonwebtoken::encode(
        &header,
        &claims,
        &EncodingKey::from_secret(public.as_bytes()),
    )
    .unwrap();
    let proof_claims = proof_claims(&s, &forged);
    let answer = call(&s, &format!("DPoP {forged}"), &[proof(&key, &proof_claims)]).await;
    assert_dpop_error(&answer, "invalid_token");
    let bearer = call(&s, &format!("Bearer {forged}"), &[]).await;
    assert_eq!(bearer.0, 401);
    assert!(bearer.1.contains("error=\"invalid_token\""), "{}", bearer.1);
}

#[tokio::test]
async fn garbage_proofs_and_tokens_are_refused() {
    let s = setup(DpopConfig::new()).await;
    let key = proof_key("dpop1.pem");
    let (token, claims) = bound(&s, &key);
    for garbage in [
        "",
        "a.b.c",
        "!!!.???.***",
        "eyJ0eXAiOiJkcG9wK2p3dCJ9",
        "e30.e30.e30.e30",
    ] {
        refused_proof(&s, &token, garbage.to_owned()).await;
    }
    let answer = call(&s, "DPoP not.a.token", &[proof(&key, &claims)]).await;
    // The proof's `ath` names another token: the proof is refused first.
    assert_dpop_error(&answer, "invalid_dpop_proof");
    let garbage = "%%%.###.@@@";
    let claims = proof_claims(&s, garbage);
    let answer = call(&s, &format!("DPoP {garbage}"), &[proof(&key, &claims)]).await;
    assert_dpop_error(&answer, "invalid_token");
}

#[tokio::test]
async fn huge_proofs_are_refused() {
    let s = setup(DpopConfig::new()).await;
    let key = proof_key("dpop1.pem");
    let (token, mut claims) = bound(&s, &key);
    claims["padding"] = json!("x".repeat(12 * 1024));
    let answer = call(&s, &format!("DPoP {token}"), &[proof(&key, &claims)]).await;
    assert_dpop_error(&answer, "invalid_dpop_proof");
    // Past the transport's header limit the connection is refused outright.
    claims["padding"] = json!("x".repeat(200 * 1024));
    let answer = call(&s, &format!("DPoP {token}"), &[proof(&key, &claims)]).await;
    if answer.0 == 401 {
        assert!(answer.1.contains("too large"), "{}", answer.1);
    } else {
        assert!(answer.0 == 431 || answer.0 == 400, "{}", answer.1);
    }
}
