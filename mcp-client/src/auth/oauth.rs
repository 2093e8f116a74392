//! [`OAuth`], the client's OAuth state for one MCP endpoint, as the HTTP
//! transport holds it: what it was given, its HTTP client, the client
//! registered and the last authorization. Its steps are `impl OAuth` in
//! `discovery`, `registration`, `code_grant` and `machine`; `flow` drives them.

use std::fmt;
use std::sync::Mutex;

use oauth2::url::Url;
use serde_json::Value;

use super::error::AuthError;
use super::http::HyperHttp;
use super::options::OAuthOptions;
use super::tokens::TokenType;

/// A registered client at one authorization server.
#[derive(Debug, Clone)]
pub(super) struct Registration {
    pub(super) issuer: String,
    pub(super) client_id: String,
    pub(super) client_secret: Option<String>,
    pub(super) method: String,
}

/// The client's OAuth state for one MCP endpoint.
pub(crate) struct OAuth {
    pub(super) opts: OAuthOptions,
    pub(super) http: HyperHttp,
    pub(super) mcp_url: Url,
    pub(super) registration: tokio::sync::Mutex<Option<Registration>>,
    /// The resource and server metadata of the last authorization (for refresh).
    pub(super) last: Mutex<Option<(String, Value)>>,
    /// Serialises flows: concurrent refusals wait for the first one's tokens.
    pub(super) flow: tokio::sync::Mutex<()>,
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("mcp_url", &self.mcp_url.as_str())
            .finish_non_exhaustive()
    }
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

    /// The access token to send, if there is one we can present (a DPoP
    /// token only with its key).
    pub(crate) fn bearer(&self) -> Option<String> {
        let tokens = self.opts.store.load(self.mcp_url.as_str())?;
        (tokens.token_type == TokenType::Bearer
            || self.http.dpop().key_for(&tokens.access_token).is_some())
        .then_some(tokens.access_token)
    }
}
