//! Tests of the token requests: the form and headers of each grant and
//! client authentication, the token exchange, and (over real HTTP) how
//! an answer is stored or an error surfaced without a retry.

use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::super::assertion::SigningKey;
use super::super::assertion::tests::{P256, P256_PUBLIC};
use super::super::exchange::exchange_request;
use super::super::grants::{ClientAuth, Credential, Enterprise, Grant, SecretMethod, TokenSource};
use super::super::oauth::OAuth;
use super::super::options::OAuthOptions;
use super::*;

fn secret(method: SecretMethod) -> ClientAuth {
    ClientAuth::new(
        "my client",
        Credential::Secret {
            secret: "s3:cr et".into(),
            method,
        },
    )
}

fn param<'a>(req: &'a TokenRequest, name: &str) -> Option<&'a str> {
    req.form
        .iter()
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn client_credentials_with_basic_authentication() -> Result<(), AuthError> {
    let mut req = TokenRequest::new("client_credentials");
    req.target("https://mcp.example/mcp", &["a".into(), "b:c".into()]);
    let meta = json!({"token_endpoint_auth_methods_supported": ["client_secret_basic"]});
    req.authenticate(&secret(SecretMethod::Auto), &meta, "https://as.example")?;
    assert_eq!(
        req.body(),
        "grant_type=client_credentials&resource=https%3A%2F%2Fmcp.example%2Fmcp&scope=a%20b%3Ac"
    );
    // RFC 6749 §2.3.1: id and secret form-encoded before base64.
    let expected = format!("Basic {}", STANDARD.encode("my%20client:s3%3Acr%20et"));
    assert_eq!(req.headers, vec![("authorization", expected)]);
    Ok(())
}

#[test]
fn secret_goes_in_the_form_when_only_post_is_listed() -> Result<(), AuthError> {
    let mut req = TokenRequest::new("client_credentials");
    let meta = json!({"token_endpoint_auth_methods_supported": ["client_secret_post"]});
    req.authenticate(&secret(SecretMethod::Auto), &meta, "https://as.example")?;
    assert!(req.headers.is_empty());
    assert_eq!(param(&req, "client_id"), Some("my client"));
    assert_eq!(param(&req, "client_secret"), Some("s3:cr et"));
    // Explicit Basic wins over the listing.
    let mut req = TokenRequest::new("client_credentials");
    req.authenticate(&secret(SecretMethod::Basic), &meta, "https://as.example")?;
    assert_eq!(req.headers.len(), 1);
    assert_eq!(param(&req, "client_secret"), None);
    Ok(())
}

#[test]
fn private_key_jwt_sends_an_assertion_and_no_client_id() -> Result<(), AuthError> {
    let key = SigningKey::from_pem(P256, None)?;
    let client = ClientAuth::new("cc-client", Credential::PrivateKey(key));
    let meta = json!({"token_endpoint_auth_signing_alg_values_supported": ["RS256", "ES256"]});
    let mut req = TokenRequest::new("client_credentials");
    req.authenticate(&client, &meta, "https://as.example")?;
    assert_eq!(param(&req, "client_id"), None);
    assert_eq!(
        param(&req, "client_assertion_type"),
        Some("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
    );
    let jwt = param(&req, "client_assertion").unwrap_or_default();
    let public =
        DecodingKey::from_ec_pem(P256_PUBLIC.as_bytes()).map_err(|e| AuthError(e.to_string()))?;
    let mut v = Validation::new(Algorithm::ES256);
    v.set_audience(&["https://as.example"]);
    let claims = jsonwebtoken::decode::<Value>(jwt, &public, &v)
        .map_err(|e| AuthError(e.to_string()))?
        .claims;
    assert_eq!(
        (claims["iss"].as_str(), claims["sub"].as_str()),
        (Some("cc-client"), Some("cc-client"))
    );
    // A server that accepts no algorithm the key has: refused before sending.
    let meta = json!({"token_endpoint_auth_signing_alg_values_supported": ["RS256"]});
    let mut req = TokenRequest::new("client_credentials");
    assert!(
        req.authenticate(&client, &meta, "https://as.example")
            .is_err()
    );
    Ok(())
}

#[test]
fn token_exchange_asks_for_an_id_jag() -> Result<(), AuthError> {
    let e = Enterprise {
        idp_token_endpoint: "https://idp.example/token".into(),
        idp_issuer: None,
        idp_client: ClientAuth::new("idp-client", Credential::None),
        id_token: TokenSource::File("/nonexistent".into()),
        client: secret(SecretMethod::Auto),
    };
    let req = exchange_request(
        &e,
        "ID.TOKEN".into(),
        "https://as.example",
        "https://mcp.example/mcp",
        &["read".into()],
    )?;
    assert_eq!(
        req.body(),
        "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange\
         &requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid-jag\
         &audience=https%3A%2F%2Fas.example\
         &resource=https%3A%2F%2Fmcp.example%2Fmcp&scope=read\
         &subject_token=ID.TOKEN\
         &subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token\
         &client_id=idp-client"
    );
    Ok(())
}

#[test]
fn token_files_are_read_again_and_checked() -> Result<(), AuthError> {
    let dir = std::env::temp_dir().join(format!("mcp-wif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| AuthError(e.to_string()))?;
    let path = dir.join("token");
    let source = TokenSource::File(path.clone());
    std::fs::write(&path, "first\n").map_err(|e| AuthError(e.to_string()))?;
    assert_eq!(source.read("workload token")?, "first");
    std::fs::write(&path, "second").map_err(|e| AuthError(e.to_string()))?;
    assert_eq!(source.read("workload token")?, "second");
    std::fs::write(&path, " \n").map_err(|e| AuthError(e.to_string()))?;
    assert!(
        source
            .read("workload token")
            .is_err_and(|e| e.0.contains("empty"))
    );
    std::fs::remove_dir_all(&dir).map_err(|e| AuthError(e.to_string()))?;
    assert!(
        source
            .read("workload token")
            .is_err_and(|e| e.0.contains("reading"))
    );
    let shown = format!(
        "{:?}",
        TokenSource::Callback(Arc::new(|| Ok("SECRET".into())))
    );
    assert!(!shown.contains("SECRET"));
    Ok(())
}

/// A token endpoint on a real socket: answers every request with
/// `status` and `body`, keeping each request's body.
async fn token_endpoint(status: &'static str, body: String) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let url = format!(
        "http://{}/token",
        listener.local_addr().unwrap_or_else(|e| panic!("{e}"))
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let keep = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            // Headers, then Content-Length bytes of form.
            while let Ok(n) = sock.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if buf.len() >= end + 4 + len {
                        keep.lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(text[end + 4..].to_owned());
                        break;
                    }
                }
            }
            let answer = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = sock.write_all(answer.as_bytes()).await;
        }
    });
    (url, seen)
}

fn workload(token: &'static str) -> OAuthOptions {
    OAuthOptions::machine(Grant::WorkloadIdentity {
        client: ClientAuth::new("wl", Credential::None),
        token: TokenSource::Callback(Arc::new(move || Ok(token.to_owned()))),
    })
}

#[tokio::test]
async fn jwt_bearer_grant_stores_the_token() -> Result<(), AuthError> {
    let (url, seen) = token_endpoint(
        "200 OK",
        r#"{"access_token":"AT","token_type":"Bearer","scope":"x"}"#.to_owned(),
    )
    .await;
    let oauth = OAuth::new(workload("W.J.T"), "http://127.0.0.1:1/mcp")?;
    let meta = json!({"issuer": "http://127.0.0.1:1", "token_endpoint": url});
    oauth
        .machine_grant(&meta, "http://127.0.0.1:1/mcp", &[])
        .await?;
    assert_eq!(oauth.bearer().as_deref(), Some("AT"));
    let bodies = seen.lock().unwrap_or_else(|p| p.into_inner()).clone();
    assert_eq!(
        bodies,
        vec![
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=W.J.T\
              &resource=http%3A%2F%2F127.0.0.1%3A1%2Fmcp&client_id=wl"
                .to_owned()
        ]
    );
    Ok(())
}

#[tokio::test]
async fn jwt_bearer_errors_are_surfaced_once() -> Result<(), AuthError> {
    for code in ["invalid_grant", "invalid_scope", "unauthorized_client"] {
        let body = format!(r#"{{"error":"{code}","error_description":"no"}}"#);
        let (url, seen) = token_endpoint("400 Bad Request", body).await;
        let oauth = OAuth::new(workload("W.J.T"), "http://127.0.0.1:1/mcp")?;
        let meta = json!({"issuer": "http://127.0.0.1:1", "token_endpoint": url});
        let err = oauth
            .machine_grant(&meta, "http://127.0.0.1:1/mcp", &[])
            .await
            .err();
        assert!(err.as_ref().is_some_and(|e| e.0.contains(code)), "{err:?}");
        assert_eq!(
            seen.lock().unwrap_or_else(|p| p.into_inner()).len(),
            1,
            "one request, no retry"
        );
        assert_eq!(oauth.bearer(), None);
    }
    Ok(())
}

#[test]
fn debug_of_the_options_hides_secrets_and_keys() -> Result<(), AuthError> {
    let key = SigningKey::from_pem(P256, None)?;
    for grant in [
        Grant::ClientCredentials(secret(SecretMethod::Post)),
        Grant::ClientCredentials(ClientAuth::new("c", Credential::PrivateKey(key))),
    ] {
        let shown = format!("{:?}", OAuthOptions::machine(grant));
        assert!(
            !shown.contains("s3:cr et") && !shown.contains("PRIVATE"),
            "{shown}"
        );
        assert!(shown.contains("ClientCredentials"), "{shown}");
    }
    Ok(())
}
