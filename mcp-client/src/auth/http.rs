//! The HTTP client of the OAuth flow: plain requests for discovery and
//! registration, and the `oauth2` crate's token requests, each bounded by
//! [`HTTP_TIMEOUT`]. Token requests carry a DPoP proof when a key is armed
//! (RFC 9449 §5), retried once with the server's nonce (§8).

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Request};

use super::dpop::DpopState;
use super::error::AuthError;
use crate::connector::{Connector, connector};

/// How long one HTTP exchange of the flow may take.
const HTTP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

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
            let response = tokio::time::timeout(HTTP_TIMEOUT, self.client.request(req))
                .await
                .map_err(std::io::Error::other)?
                .map_err(std::io::Error::other)?;
            let (parts_in, body_in) = response.into_parts();
            let bytes = body_in
                .collect()
                .await
                .map_err(std::io::Error::other)?
                .to_bytes();
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
