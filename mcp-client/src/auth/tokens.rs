//! Where the flow keeps its tokens: [`TokenStore`], by resource URL, and
//! its default, [`MemoryTokenStore`].

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// How an access token is presented (RFC 9449 §7.1; RFC 6750).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TokenType {
    /// `Authorization: Bearer`.
    #[default]
    Bearer,
    /// `Authorization: DPoP` with a proof of the key it is bound to.
    #[serde(rename = "DPoP")]
    DPoP,
}

/// Tokens for one protected resource.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// The access token.
    pub access_token: String,
    /// The refresh token, if one was issued.
    pub refresh_token: Option<String>,
    /// The scopes granted (or requested), space-separated.
    pub scope: Option<String>,
    /// Its `token_type` (tokens stored without one are Bearer). A DPoP
    /// token is only usable with its key, which lives in memory.
    #[serde(default)]
    pub token_type: TokenType,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("scope", &self.scope)
            .field("token_type", &self.token_type)
            .finish_non_exhaustive()
    }
}

/// Where tokens are kept, by resource URL.
pub trait TokenStore: Send + Sync {
    /// The tokens for `resource`.
    fn load(&self, resource: &str) -> Option<Tokens>;
    /// Keeps `tokens` for `resource`.
    fn save(&self, resource: &str, tokens: Tokens);
}

/// A [`TokenStore`] in memory (the default).
#[derive(Debug, Default)]
pub struct MemoryTokenStore(Mutex<HashMap<String, Tokens>>);

impl TokenStore for MemoryTokenStore {
    fn load(&self, resource: &str) -> Option<Tokens> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(resource)
            .cloned()
    }
    fn save(&self, resource: &str, tokens: Tokens) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(resource.to_owned(), tokens);
    }
}
