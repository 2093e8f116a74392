//! How a request to the MCP endpoint presents the current access token:
//! `Authorization: Bearer` (RFC 6750), or `Authorization: DPoP` with a
//! fresh proof carrying `ath` (RFC 9449 §7.1), and what the resource
//! server's `DPoP-Nonce` answers mean (§9).

use std::fmt;

use hyper::HeaderMap;
use hyper::header::WWW_AUTHENTICATE;

use super::discovery::parse_challenge;
use super::error::AuthError;
use super::oauth::OAuth;
use super::tokens::TokenType;

/// What one request carries for the current token.
pub(crate) struct Presented {
    /// The header pairs to add (`authorization`, and `dpop` for DPoP).
    pub(crate) headers: Vec<(&'static str, String)>,
    /// The access token sent (`on_challenge` compares it with the current one).
    pub(crate) token: String,
    dpop: bool,
}

impl fmt::Debug for Presented {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Presented")
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

impl OAuth {
    /// The headers for a `method` request to `url` with the current token;
    /// `None` without a usable token (a DPoP token whose key is gone).
    pub(crate) fn present(&self, method: &str, url: &str) -> Result<Option<Presented>, AuthError> {
        let Some(tokens) = self.opts.store.load(self.mcp_url.as_str()) else {
            return Ok(None);
        };
        let state = self.http.dpop();
        let token = tokens.access_token;
        match state.key_for(&token) {
            Some(key) => {
                let proof = key.proof(method, url, Some(&token), state.nonce(url).as_deref())?;
                Ok(Some(Presented {
                    headers: vec![("authorization", format!("DPoP {token}")), ("dpop", proof)],
                    token,
                    dpop: true,
                }))
            }
            None if tokens.token_type == TokenType::DPoP => Ok(None),
            None => Ok(Some(Presented {
                headers: vec![("authorization", format!("Bearer {token}"))],
                token,
                dpop: false,
            })),
        }
    }

    /// Notes the answer to a request to `url` that carried `presented`:
    /// keeps its `DPoP-Nonce`, and says whether it is a `401` DPoP
    /// `use_dpop_nonce` challenge, which the request answers by retrying
    /// with that nonce (not by authorizing again).
    pub(crate) fn nonce_challenge(
        &self,
        url: &str,
        presented: Option<&Presented>,
        status: u16,
        headers: &HeaderMap,
    ) -> bool {
        let Some(nonce) = headers.get("dpop-nonce").and_then(|v| v.to_str().ok()) else {
            return false;
        };
        self.http.dpop().set_nonce(url, nonce);
        if status != 401 || !presented.is_some_and(|p| p.dpop) {
            return false;
        }
        headers
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(parse_challenge)
            .any(|c| c.dpop && c.error.as_deref() == Some("use_dpop_nonce"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.
    use std::sync::Arc;

    use super::super::dpop::DpopKey;
    use super::super::tokens::Tokens;
    use super::*;
    use crate::auth::{HeadlessAuthorizer, OAuthOptions};

    const MCP: &str = "http://127.0.0.1:9/mcp";

    fn oauth(token_type: TokenType) -> OAuth {
        let o = OAuth::new(
            OAuthOptions::new("http://localhost/cb", Arc::new(HeadlessAuthorizer)),
            MCP,
        )
        .unwrap();
        o.opts.store.save(
            MCP,
            Tokens {
                access_token: "at".into(),
                refresh_token: None,
                scope: None,
                token_type,
            },
        );
        o
    }

    #[test]
    fn bearer_is_unchanged() {
        let o = oauth(TokenType::Bearer);
        let p = o.present("POST", MCP).unwrap().unwrap();
        assert_eq!(p.headers, vec![("authorization", "Bearer at".to_owned())]);
        assert_eq!(p.token, "at");
        assert_eq!(o.bearer().as_deref(), Some("at"));
        // A nonce means nothing to a Bearer request.
        let mut h = HeaderMap::new();
        h.insert("dpop-nonce", "n".parse().unwrap());
        h.insert(
            WWW_AUTHENTICATE,
            r#"DPoP error="use_dpop_nonce""#.parse().unwrap(),
        );
        assert!(!o.nonce_challenge(MCP, Some(&p), 401, &h));
    }

    #[test]
    fn dpop_tokens_need_their_key() {
        let o = oauth(TokenType::DPoP);
        assert!(o.present("POST", MCP).unwrap().is_none());
        assert!(o.bearer().is_none());
        o.http
            .dpop()
            .bind("at", Arc::new(DpopKey::generate().unwrap()));
        let p = o.present("GET", MCP).unwrap().unwrap();
        assert_eq!(p.headers[0], ("authorization", "DPoP at".to_owned()));
        assert_eq!(p.headers[1].0, "dpop");
        assert_eq!(o.bearer().as_deref(), Some("at"));
    }

    #[test]
    fn a_nonce_challenge_is_retried_with_the_nonce() {
        let o = oauth(TokenType::DPoP);
        o.http
            .dpop()
            .bind("at", Arc::new(DpopKey::generate().unwrap()));
        let p = o.present("POST", MCP).unwrap().unwrap();
        let mut h = HeaderMap::new();
        h.insert(
            WWW_AUTHENTICATE,
            r#"DPoP error="use_dpop_nonce", error_description="x""#
                .parse()
                .unwrap(),
        );
        // No DPoP-Nonce: nothing to retry with.
        assert!(!o.nonce_challenge(MCP, Some(&p), 401, &h));
        h.insert("dpop-nonce", "n-1".parse().unwrap());
        assert!(o.nonce_challenge(MCP, Some(&p), 401, &h));
        assert_eq!(o.http.dpop().nonce(MCP).as_deref(), Some("n-1"));
        // Another error is a real refusal.
        h.insert(
            WWW_AUTHENTICATE,
            r#"DPoP error="invalid_token""#.parse().unwrap(),
        );
        assert!(!o.nonce_challenge(MCP, Some(&p), 401, &h));
        // A nonce on a success is kept for the next proof.
        h.insert("dpop-nonce", "n-2".parse().unwrap());
        assert!(!o.nonce_challenge(MCP, Some(&p), 200, &h));
        let next = o.present("POST", MCP).unwrap().unwrap();
        let claims = next.headers[1].1.split('.').nth(1).unwrap();
        use base64::Engine;
        let claims: serde_json::Value = serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(claims)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(claims["nonce"], "n-2");
    }
}
