//! [`OAuthOptions`]: how the client authorizes (the grant, redirect URI,
//! authorizer, token store, the client to use, how many attempts).

use std::fmt;
use std::sync::Arc;

use super::authorizer::{Authorizer, HeadlessAuthorizer};
use super::dpop::DpopPolicy;
use super::grants::Grant;
use super::tokens::{MemoryTokenStore, TokenStore};

/// How the client authorizes. Build with [`OAuthOptions::new`].
#[derive(Clone)]
pub struct OAuthOptions {
    /// The redirect URI registered for the client.
    pub redirect_uri: String,
    /// The interactive step.
    pub authorizer: Arc<dyn Authorizer>,
    /// Where tokens are kept.
    pub store: Arc<dyn TokenStore>,
    /// `client_name` for dynamic registration.
    pub client_name: String,
    /// A pre-registered client id (skips registration).
    pub client_id: Option<String>,
    /// The pre-registered client's secret.
    pub client_secret: Option<String>,
    /// A client ID metadata document URL, used as the client id when the
    /// server supports those.
    pub client_metadata_url: Option<String>,
    /// How many authorizations one request may trigger (step-up included).
    pub max_attempts: usize,
    /// The grant: the authorization code flow (the default) or one
    /// without a user, which ignores the redirect URI, authorizer and
    /// registration fields above.
    pub grant: Grant,
    /// When to ask for DPoP-bound tokens (RFC 9449).
    pub dpop: DpopPolicy,
}

impl fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthOptions")
            .field("redirect_uri", &self.redirect_uri)
            .field("client_id", &self.client_id)
            .field("grant", &self.grant)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

impl OAuthOptions {
    /// Options with a redirect URI and an authorizer; tokens in memory,
    /// dynamic registration, three attempts, DPoP when the servers offer it.
    pub fn new(redirect_uri: impl Into<String>, authorizer: Arc<dyn Authorizer>) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
            authorizer,
            store: Arc::new(MemoryTokenStore::default()),
            client_name: "mcp-client".into(),
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            max_attempts: 3,
            dpop: DpopPolicy::Auto,
            grant: Grant::AuthorizationCode,
        }
    }

    /// Options for a grant without a user (client credentials, workload
    /// identity, enterprise-managed): no redirect, no browser.
    pub fn machine(grant: Grant) -> Self {
        Self {
            grant,
            ..Self::new(String::new(), Arc::new(HeadlessAuthorizer))
        }
    }
}
