//! What each request to the endpoint carries to authenticate: the OAuth
//! token (Bearer, or DPoP with a fresh proof for the request's method, RFC
//! 9449 §7.1), else the configured `Authorization` value; and the single
//! retry a resource server's DPoP nonce challenge earns (RFC 9449 §9).

use hyper::Method;
use hyper::header::{AUTHORIZATION, HeaderMap};
use hyper::http::request::Builder;

use super::HttpTransport;
use crate::error::Result;

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
