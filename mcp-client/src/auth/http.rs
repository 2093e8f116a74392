//! The HTTP client of the OAuth flow: plain requests for discovery and
//! registration, and the `oauth2` crate's token requests, each bounded by
//! [`HTTP_TIMEOUT`]. Token requests carry a DPoP proof when a key is armed
//! (RFC 9449 §5), retried once with the server's nonce (§8).

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Bytes;
use hyper::{Method, Request};

use super::dpop::DpopState;
use super::error::AuthError;
use crate::connector::{Connector, MAX_BODY, connector};

/// How long one HTTP exchange of the flow may take.
const HTTP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The whole body, refused past [`MAX_BODY`] (the transport's bound), for
/// every document the flow fetches: metadata, registration, tokens.
async fn read_body(body: hyper::body::Incoming) -> Result<Bytes, String> {
    match Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<LengthLimitError>() => {
            Err(format!("the answer is larger than {MAX_BODY} bytes"))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The HTTP client the flow uses (the same connector as the transport).
#[derive(Clone)]
pub(crate) struct HyperHttp {
    client: hyper_util::client::legacy::Client<Connector, Full<Bytes>>,
    dpop: std::sync::Arc<DpopState>,
}

impl HyperHttp {
    pub(crate) fn new() -> Result<Self, String> {
        Ok(Self {
            client: hyper_util::client::legacy::Client::builder(
                hyper_util::rt::TokioExecutor::new(),
            )
            .build(connector(&[])?),
            dpop: std::sync::Arc::default(),
        })
    }

    /// The DPoP keys and nonces of this flow.
    pub(crate) fn dpop(&self) -> &DpopState {
        &self.dpop
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
            let bytes = read_body(body)
                .await
                .map_err(|e| AuthError(format!("{url}: {e}")))?;
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

    /// The `oauth2` crate's HTTP client: every token request of every grant.
    /// With a DPoP key armed, each attempt carries a fresh proof; a `400
    /// use_dpop_nonce` with a `DPoP-Nonce` is retried once with that nonce,
    /// and a `DPoP` token in the answer is bound to the key.
    pub(super) async fn exchange(
        &self,
        req: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, std::io::Error> {
        let (parts, body) = req.into_parts();
        let url = parts.uri.to_string();
        let key = self.dpop.armed();
        let mut nonce_retried = false;
        loop {
            let mut req = Request::builder()
                .method(parts.method.clone())
                .uri(parts.uri.clone());
            for (name, value) in &parts.headers {
                req = req.header(name, value);
            }
            if let Some(key) = &key {
                let proof = key
                    .proof(
                        parts.method.as_str(),
                        &url,
                        None,
                        self.dpop.nonce(&url).as_deref(),
                    )
                    .map_err(|e| std::io::Error::other(e.0))?;
                req = req.header("dpop", proof);
            }
            let req = req
                .body(Full::new(Bytes::from(body.clone())))
                .map_err(std::io::Error::other)?;
            // The body counts against the timeout too: a server that
            // trickles it must not hold the flow.
            let answer = async {
                let response = self
                    .client
                    .request(req)
                    .await
                    .map_err(std::io::Error::other)?;
                let (parts_in, body_in) = response.into_parts();
                let bytes = read_body(body_in)
                    .await
                    .map_err(|e| std::io::Error::other(format!("{url}: {e}")))?;
                Ok::<_, std::io::Error>((parts_in, bytes))
            };
            let (parts_in, bytes) = tokio::time::timeout(HTTP_TIMEOUT, answer)
                .await
                .map_err(std::io::Error::other)??;
            let Some(key) = &key else {
                return Ok(hyper::Response::from_parts(parts_in, bytes.to_vec()));
            };
            // §8: the server may hand a new nonce in any answer.
            let nonce = parts_in
                .headers
                .get("dpop-nonce")
                .and_then(|v| v.to_str().ok());
            if let Some(nonce) = nonce {
                self.dpop.set_nonce(&url, nonce);
            }
            let json: Option<serde_json::Value> = serde_json::from_slice(&bytes).ok();
            let field = |name: &str| {
                json.as_ref()
                    .and_then(|j| j.get(name))
                    .and_then(serde_json::Value::as_str)
            };
            if parts_in.status == hyper::StatusCode::BAD_REQUEST
                && field("error") == Some("use_dpop_nonce")
                && nonce.is_some()
                && !nonce_retried
            {
                nonce_retried = true;
                continue;
            }
            if parts_in.status.is_success()
                && field("token_type").is_some_and(|t| t.eq_ignore_ascii_case("dpop"))
                && let Some(token) = field("access_token")
            {
                self.dpop.bind(token, key.clone());
            }
            return Ok(hyper::Response::from_parts(parts_in, bytes.to_vec()));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.
    use std::sync::Arc;

    use base64::Engine;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::super::dpop::DpopKey;
    use super::*;

    /// One scripted answer: status, extra headers, JSON body.
    type Answer = (u16, Option<&'static str>, &'static str);

    /// A token endpoint answering `answers` in turn (one connection each);
    /// yields each request's `DPoP` header.
    async fn token_endpoint(
        answers: Vec<Answer>,
    ) -> (String, tokio::task::JoinHandle<Vec<Option<String>>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/token?q=1", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let mut seen = Vec::new();
            for (status, nonce, body) in answers {
                let (mut sock, _) = listener.accept().await.unwrap();
                let mut buf = Vec::new();
                let head_end = loop {
                    let mut chunk = [0u8; 4096];
                    let n = sock.read(&mut chunk).await.unwrap();
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        break i;
                    }
                };
                let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
                let header = |name: &str| {
                    head.lines()
                        .find_map(|l| {
                            l.split_once(':')
                                .filter(|(k, _)| k.eq_ignore_ascii_case(name))
                        })
                        .map(|(_, v)| v.trim().to_owned())
                };
                let length: usize = header("content-length")
                    .unwrap_or_default()
                    .parse()
                    .unwrap_or(0);
                while buf.len() < head_end + 4 + length {
                    let mut chunk = [0u8; 4096];
                    let n = sock.read(&mut chunk).await.unwrap();
                    buf.extend_from_slice(&chunk[..n]);
                }
                seen.push(header("dpop"));
                let nonce = nonce
                    .map(|n| format!("DPoP-Nonce: {n}\r\n"))
                    .unwrap_or_default();
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{nonce}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                sock.write_all(reply.as_bytes()).await.unwrap();
            }
            seen
        });
        (url, task)
    }

    fn request(url: &str) -> oauth2::HttpRequest {
        hyper::Request::builder()
            .method("POST")
            .uri(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(b"grant_type=authorization_code".to_vec())
            .unwrap()
    }

    fn claims(proof: &str) -> serde_json::Value {
        let part = proof.split('.').nth(1).unwrap();
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[tokio::test]
    async fn answers_over_16_mib_are_refused_not_buffered() {
        let huge = format!(r#"{{"pad":"{}"}}"#, "x".repeat(17 * 1024 * 1024));
        let huge: &'static str = Box::leak(huge.into_boxed_str());
        let http = HyperHttp::new().unwrap();
        // A metadata or registration fetch.
        let (url, _) = token_endpoint(vec![(200, None, huge)]).await;
        let error = http
            .send(Method::GET, &url, vec![], Bytes::new())
            .await
            .unwrap_err();
        assert!(
            error.0.contains("larger than 16777216 bytes"),
            "{}",
            error.0
        );
        // A token request.
        let (url, _) = token_endpoint(vec![(200, None, huge)]).await;
        let error = http.exchange(request(&url)).await.unwrap_err();
        assert!(
            error.to_string().contains("larger than 16777216 bytes"),
            "{error}"
        );
    }

    const NONCE_PLEASE: &str = r#"{"error":"use_dpop_nonce","error_description":"x"}"#;
    const DPOP_TOKEN: &str = r#"{"access_token":"at-1","token_type":"DPoP","expires_in":60}"#;

    #[tokio::test]
    async fn a_nonce_challenge_is_retried_once_with_the_nonce() {
        let (url, server) = token_endpoint(vec![
            (400, Some("as-n1"), NONCE_PLEASE),
            (200, None, DPOP_TOKEN),
        ])
        .await;
        let http = HyperHttp::new().unwrap();
        let key = Arc::new(DpopKey::generate().unwrap());
        http.dpop().arm(Some(key.clone()));
        let response = http.exchange(request(&url)).await.unwrap();
        assert_eq!(response.status(), 200);
        let seen = server.await.unwrap();
        let (first, second) = (
            claims(seen[0].as_ref().unwrap()),
            claims(seen[1].as_ref().unwrap()),
        );
        assert!(first.get("nonce").is_none());
        assert_eq!(second["nonce"], "as-n1");
        assert_eq!(second["htm"], "POST");
        assert!(second["htu"].as_str().unwrap().ends_with("/token"));
        assert!(second.get("ath").is_none());
        assert_ne!(first["jti"], second["jti"]);
        // The DPoP token is bound to the key; the nonce is kept.
        assert_eq!(
            http.dpop().key_for("at-1").unwrap().thumbprint(),
            key.thumbprint()
        );
        assert_eq!(http.dpop().nonce(&url).as_deref(), Some("as-n1"));
    }

    #[tokio::test]
    async fn a_second_nonce_challenge_is_returned() {
        let (url, server) = token_endpoint(vec![
            (400, Some("n1"), NONCE_PLEASE),
            (400, Some("n2"), NONCE_PLEASE),
        ])
        .await;
        let http = HyperHttp::new().unwrap();
        http.dpop()
            .arm(Some(Arc::new(DpopKey::generate().unwrap())));
        let response = http.exchange(request(&url)).await.unwrap();
        assert_eq!(response.status(), 400);
        assert_eq!(server.await.unwrap().len(), 2);
    }

    #[tokio::test]
    async fn without_a_key_requests_are_unchanged() {
        let (url, server) = token_endpoint(vec![(400, Some("n1"), NONCE_PLEASE)]).await;
        let http = HyperHttp::new().unwrap();
        let response = http.exchange(request(&url)).await.unwrap();
        assert_eq!(response.status(), 400);
        assert_eq!(server.await.unwrap(), vec![None]);
    }
}
