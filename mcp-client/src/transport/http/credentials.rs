//! What each request to the endpoint carries to authenticate: the OAuth
//! token (Bearer, or DPoP with a fresh proof for the request's method, RFC
//! 9449 §7.1), else the configured `Authorization` value; and the single
//! retry a resource server's DPoP nonce challenge earns (RFC 9449 §9), and
//! the POST that carries them.

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap};
use hyper::http::request::Builder;
use hyper::{Method, Request};

use super::{HttpTransport, error_chain};
use crate::error::{Error, Result};
use crate::headers::MCP_SESSION_ID;

/// What one request carried.
#[derive(Default)]
pub(super) struct Credentials {
    #[cfg(feature = "oauth")]
    presented: Option<crate::auth::present::Presented>,
}

impl Credentials {
    /// The OAuth access token sent, if any.
    #[cfg(feature = "oauth")]
    pub(super) fn token(&self) -> Option<&str> {
        self.presented.as_ref().map(|p| p.token.as_str())
    }
}

impl HttpTransport {
    /// Acts on a `401`/`403` to a request that carried `creds`: authorizes
    /// again (at most `max_attempts` times across one request's `attempts`)
    /// and says whether to send the request again.
    pub(super) async fn reauthorize(
        &self,
        resp: &hyper::Response<hyper::body::Incoming>,
        creds: &Credentials,
        attempts: &mut usize,
    ) -> Result<bool> {
        #[cfg(feature = "oauth")]
        if let Some(oauth) = self.shared.oauth.get()
            && matches!(resp.status().as_u16(), 401 | 403)
        {
            *attempts += 1;
            if *attempts > oauth.max_attempts() {
                return Err(Error::Auth {
                    detail: format!(
                        "still refused after {} authorizations",
                        oauth.max_attempts()
                    ),
                });
            }
            // Every challenge: a resource may offer DPoP and Bearer apart.
            let challenge = resp
                .headers()
                .get_all(hyper::header::WWW_AUTHENTICATE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect::<Vec<_>>()
                .join(", ");
            oauth
                .on_challenge(
                    resp.status().as_u16(),
                    (!challenge.is_empty()).then_some(challenge.as_str()),
                    creds.token(),
                )
                .await
                .map_err(|e| Error::Auth { detail: e.0 })?;
            return Ok(true);
        }
        let _ = (resp, creds, attempts);
        Ok(false)
    }

    /// One POST of `body` with the credentials of the moment, retried once
    /// on a DPoP nonce challenge (RFC 9449 §9); `session` adds the legacy
    /// session id. Other refusals are the caller's.
    pub(super) async fn send_post(
        &self,
        headers: &[(&str, String)],
        body: &Bytes,
        session: bool,
        fail: &(dyn Fn(Option<u16>, String) -> Error + Sync),
    ) -> Result<(hyper::Response<hyper::body::Incoming>, Credentials)> {
        let mut nonce_retried = false;
        loop {
            let mut req = Request::builder()
                .method(Method::POST)
                .uri(self.shared.uri.clone())
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, "application/json, text/event-stream");
            for (name, value) in headers {
                req = req.header(*name, value.as_str());
            }
            let (mut req, creds) = self.authorize(&Method::POST, req)?;
            if session && let Some(id) = self.session_id() {
                req = req.header(MCP_SESSION_ID, id);
            }
            let req = req
                .body(Full::new(body.clone()))
                .map_err(|e| fail(None, e.to_string()))?;
            let resp = self
                .shared
                .client
                .request(req)
                .await
                .map_err(|e| fail(None, error_chain(&e)))?;
            if self.nonce_retry(&creds, resp.status().as_u16(), resp.headers()) && !nonce_retried {
                nonce_retried = true;
                continue;
            }
            return Ok((resp, creds));
        }
    }

    /// `req` with the credentials for a `method` request.
    pub(super) fn authorize(
        &self,
        method: &Method,
        req: Builder,
    ) -> Result<(Builder, Credentials)> {
        let mut req = req;
        #[cfg(feature = "oauth")]
        if let Some(oauth) = self.shared.oauth.get() {
            let presented = oauth
                .present(method.as_str(), &self.shared.uri.to_string())
                .map_err(|e| crate::error::Error::Auth { detail: e.0 })?;
            if let Some(p) = presented {
                for (name, value) in &p.headers {
                    req = req.header(*name, value.as_str());
                }
                return Ok((req, Credentials { presented: Some(p) }));
            }
        }
        #[cfg(not(feature = "oauth"))]
        let _ = method;
        if let Some(auth) = &self.shared.authorization {
            req = req.header(AUTHORIZATION, auth.clone());
        }
        Ok((req, Credentials::default()))
    }

    /// Keeps any `DPoP-Nonce` of an answer to a request that carried
    /// `creds`, and says whether it is a nonce challenge to retry, once.
    pub(super) fn nonce_retry(
        &self,
        creds: &Credentials,
        status: u16,
        headers: &HeaderMap,
    ) -> bool {
        #[cfg(feature = "oauth")]
        if let Some(oauth) = self.shared.oauth.get() {
            let url = self.shared.uri.to_string();
            return oauth.nonce_challenge(&url, creds.presented.as_ref(), status, headers);
        }
        let _ = (creds, status, headers);
        false
    }
}
