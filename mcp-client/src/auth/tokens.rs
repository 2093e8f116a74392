//! Where the flow keeps its tokens: [`TokenStore`], by resource URL, and
//! its default, [`MemoryTokenStore`].

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

/// Tokens for one protected resource.
#[derive(Clone, PartialEq, Eq)]
pub struct Tokens {
    /// The bearer token.
    pub access_token: String,
    /// The refresh token, if one was issued.
    pub refresh_token: Option<String>,
    /// The scopes granted (or requested), space-separated.
    pub scope: Option<String>,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("scope", &self.scope)
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
