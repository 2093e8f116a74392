//! [`Grant`]: which OAuth grant the client uses, and what the machine
//! grants need: [`ClientAuth`] at a token endpoint, [`TokenSource`] for a
//! workload or ID token, [`Enterprise`] for enterprise-managed
//! authorization. `Debug` never shows a secret, key or token.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use super::assertion::SigningKey;
use super::error::AuthError;

/// The grant the client runs when a server asks for authorization.
#[derive(Clone, Debug, Default)]
pub enum Grant {
    /// Authorization code with PKCE through the [`Authorizer`](super::Authorizer)
    /// (a user in a browser).
    #[default]
    AuthorizationCode,
    /// Client credentials (RFC 6749 §4.4; the MCP extension
    /// `io.modelcontextprotocol/oauth-client-credentials`): no user, a
    /// pre-registered client.
    ClientCredentials(ClientAuth),
    /// Workload identity federation (SEP-1933): the JWT bearer grant
    /// (RFC 7523 §2.1) with a workload token the platform issued.
    WorkloadIdentity {
        /// The client at the authorization server (often [`Credential::None`]).
        client: ClientAuth,
        /// Where the workload JWT comes from; read again on each grant.
        token: TokenSource,
    },
    /// Enterprise-managed authorization (SEP-990): the user's ID token is
    /// exchanged at the enterprise IdP for an ID-JAG (RFC 8693), then the
    /// ID-JAG is the assertion of a JWT bearer grant at the MCP server's
    /// authorization server.
    Enterprise(Enterprise),
}

/// A client and how it authenticates at a token endpoint.
#[derive(Clone, Debug)]
pub struct ClientAuth {
    /// The client id, as registered out of band.
    pub client_id: String,
    /// Its credential.
    pub credential: Credential,
}

impl ClientAuth {
    /// A client with a credential.
    pub fn new(client_id: impl Into<String>, credential: Credential) -> Self {
        Self {
            client_id: client_id.into(),
            credential,
        }
    }
}

/// How a client authenticates (RFC 6749 §2.3, RFC 7523 §2.2).
#[derive(Clone)]
pub enum Credential {
    /// No authentication: `client_id` in the form (a public client).
    None,
    /// A client secret, sent as `method` says.
    Secret {
        /// The secret.
        secret: String,
        /// `client_secret_basic` or `client_secret_post`.
        method: SecretMethod,
    },
    /// `private_key_jwt`: a signed client assertion.
    PrivateKey(SigningKey),
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("None"),
            Self::Secret { method, .. } => f
                .debug_struct("Secret")
                .field("method", method)
                .finish_non_exhaustive(),
            Self::PrivateKey(key) => f.debug_tuple("PrivateKey").field(key).finish(),
        }
    }
}

/// Where a client secret goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SecretMethod {
    /// `client_secret_basic` when the server lists it (or lists nothing,
    /// the RFC 8414 default), else `client_secret_post` when it lists that.
    #[default]
    Auto,
    /// HTTP Basic (`client_secret_basic`).
    Basic,
    /// In the form (`client_secret_post`).
    Post,
}

/// A token the client presents but does not mint: read from a file (again
/// on each grant: projected tokens rotate) or asked of a callback.
#[derive(Clone)]
pub enum TokenSource {
    /// A file holding the token (surrounding whitespace ignored).
    File(PathBuf),
    /// A callback returning the current token.
    Callback(Arc<dyn Fn() -> Result<String, String> + Send + Sync>),
}

impl fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File(path) => f.debug_tuple("File").field(path).finish(),
            Self::Callback(_) => f.write_str("Callback(..)"),
        }
    }
}

impl TokenSource {
    /// The current token; `what` names it in errors.
    pub(super) fn read(&self, what: &str) -> Result<String, AuthError> {
        let token = match self {
            Self::File(path) => std::fs::read_to_string(path).map_err(|e| {
                AuthError(format!("reading the {what} from {}: {e}", path.display()))
            })?,
            Self::Callback(get) => get().map_err(|e| AuthError(format!("the {what}: {e}")))?,
        };
        let token = token.trim();
        if token.is_empty() {
            return Err(AuthError(format!("the {what} is empty")));
        }
        Ok(token.to_owned())
    }
}

/// Enterprise-managed authorization: the IdP's token endpoint and the two
/// clients (at the IdP and at the MCP server's authorization server).
#[derive(Clone, Debug)]
pub struct Enterprise {
    /// The IdP's token endpoint, where the token exchange goes.
    pub idp_token_endpoint: String,
    /// The IdP's issuer: the `aud` of a `private_key_jwt` assertion to the
    /// IdP (the token endpoint when absent).
    pub idp_issuer: Option<String>,
    /// The client as registered at the IdP (the ID token's audience).
    pub idp_client: ClientAuth,
    /// The user's ID token from single sign-on.
    pub id_token: TokenSource,
    /// The client at the MCP server's authorization server.
    pub client: ClientAuth,
}
