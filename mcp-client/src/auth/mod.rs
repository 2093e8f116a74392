//! OAuth 2.1 for Streamable HTTP servers (feature `oauth`): what the client
//! does when a server answers `401` (or `403` with `insufficient_scope`).
//!
//! 1. Protected Resource Metadata (RFC 9728): the `resource_metadata` of the
//!    `WWW-Authenticate` challenge, else the path-based well-known URL, else
//!    the root one. Its `resource` must be the MCP URL or a prefix of it.
//! 2. Authorization server metadata (RFC 8414, then OpenID discovery, in
//!    the MCP order for issuers with a path); its `issuer` must be exactly
//!    the issuer the URL was built from.
//! 3. A client: pre-registered, a client ID metadata document URL when the
//!    server supports those, else dynamic registration (RFC 7591).
//! 4. Authorization code with PKCE S256 and the `resource` indicator
//!    (RFC 8707), through a pluggable [`Authorizer`]; the redirect's `iss`
//!    (RFC 9207) is compared exactly with the issuer, and required when the
//!    server advertises it.
//! 5. The token request (`client_secret_basic`, `client_secret_post` or
//!    `none`, as registered or as the server supports), refresh on a later
//!    `401`, and step-up on `insufficient_scope` with the union of scopes,
//!    at most [`OAuthOptions::max_attempts`] times.
//! 6. DPoP (RFC 9449) as [`OAuthOptions::dpop`] says: proofs at the token
//!    endpoint, `Authorization: DPoP` with a fresh proof on each request,
//!    and the servers' nonces.
//!
//! The code exchange and PKCE are the `oauth2` crate's; discovery and
//! registration, which it does not cover, are here.
//!
//! Instead of step 3 and 4, [`OAuthOptions::grant`] may name a grant
//! without a user ([`Grant`]): client credentials with a secret or
//! `private_key_jwt` (RFC 6749 §4.4, RFC 7523 §2.2), workload identity
//! (the JWT bearer grant, RFC 7523 §2.1) or enterprise-managed
//! authorization (an RFC 8693 token exchange for an ID-JAG at the
//! enterprise IdP, then the JWT bearer grant).
//!
//! ```no_run
//! # fn run() -> Result<(), mcp_era_client::auth::AuthError> {
//! use mcp_era_client::ClientOptions;
//! use mcp_era_client::auth::{AuthError, ClientAuth, Credential, Grant, OAuthOptions, SigningKey};
//!
//! let pem = std::fs::read_to_string("agent-key.pem").map_err(|e| AuthError(e.to_string()))?;
//! let key = SigningKey::from_pem(&pem, None)?; // the algorithm: as the server supports
//! let grant = Grant::ClientCredentials(ClientAuth::new("my-agent", Credential::PrivateKey(key)));
//! let opts = ClientOptions {
//!     oauth: Some(OAuthOptions::machine(grant)),
//!     ..ClientOptions::default()
//! };
//! # let _ = opts;
//! # Ok(()) }
//! ```
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_era_client::Error> {
//! use std::sync::Arc;
//! use mcp_era_client::auth::{HeadlessAuthorizer, OAuthOptions};
//! use mcp_era_client::{Client, ClientOptions};
//!
//! let opts = ClientOptions {
//!     oauth: Some(OAuthOptions::new("http://localhost:3000/callback", Arc::new(HeadlessAuthorizer))),
//!     ..ClientOptions::default()
//! };
//! let client = Client::connect_http("https://example.com/mcp", opts).await?;
//! # let _ = client;
//! # Ok(()) }
//! ```

// One file a step: `discovery` (1, 2), `registration` (3), `code_grant` (4, 5),
// driven by `flow`; `oauth` is the state they share. The machine grants:
// `grants` (their options), `assertion` (signing), `machine`, `exchange`.
mod assertion;
mod authorizer;
mod code_grant;
mod discovery;
mod dpop;
mod error;
mod exchange;
mod flow;
mod grants;
mod http;
mod machine;
pub(crate) mod oauth;
pub(crate) mod options;
pub(crate) mod present;
mod registration;
mod tokens;

pub use assertion::{SigningKey, parse_alg};
pub use authorizer::{Authorizer, HeadlessAuthorizer, LoopbackAuthorizer};
pub use discovery::{Challenge, parse_challenge};
pub use dpop::DpopPolicy;
pub use error::AuthError;
pub use grants::{ClientAuth, Credential, Enterprise, Grant, SecretMethod, TokenSource};
pub use options::OAuthOptions;
pub use tokens::{MemoryTokenStore, TokenStore, TokenType, Tokens};
