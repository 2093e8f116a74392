//! OAuth 2.1 resource server for the HTTP transport (feature `auth`): the
//! Protected Resource Metadata document (RFC 9728), bearer-token checks
//! with `WWW-Authenticate` challenges, required scopes per server, per
//! capability and per tool, and a JWT validator whose keys come from the
//! authorization server's JWKS.
//!
//! Scopes are set here ([`AuthConfig::require_scopes`],
//! [`AuthConfig::capability_requires`], [`AuthConfig::tool_requires`]) or
//! declared with the server: `#[mcp(scopes = ["mcp"], tools(scopes =
//! ["tools"]))]` and `#[tool(scopes = ["files:write"])]`. The transport
//! requires both (each list is the union; see
//! [`AuthConfig::with_declared_scopes`]), and the metadata's
//! `scopes_supported` lists both. [`AuthConfig::scope_implies`] applies to
//! declared scopes too.
//!
//! A request without a valid token gets **401** with
//! `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` (plus
//! `error="invalid_token"` when a token was sent); a valid token without a
//! required scope gets **403** with `error="insufficient_scope"` naming the
//! scopes. A refusal decided from the headers alone (no token, a bad token,
//! a missing server-wide scope) leaves the body unread and closes the
//! connection, with `Connection: close` so that the client's next request
//! (the metadata fetch) goes on a new one. Validators: [`JwtValidator`]
//! (signed JWTs, keys from the issuer's JWKS) and
//! [`IntrospectionValidator`] (RFC 7662), or your own
//! [`TokenValidator`]. Validated [`Claims`] go into the request's extensions, where
//! handlers read them: `ctx.http_request().and_then(|p| p.extensions.get::<Claims>())`.
//!
//! DPoP (RFC 9449), with [`AuthConfig::with_dpop`]: `Authorization: DPoP
//! <token>` plus one `DPoP` proof header, checked as RFC 9449 §4.3 says and
//! against the token's `cnf.jkt`; refusals get `WWW-Authenticate: DPoP
//! error="invalid_dpop_proof" | "invalid_token" | "use_dpop_nonce",
//! algs="…", resource_metadata="…"`. A token with `cnf.jkt` is never
//! accepted under `Bearer`; with [`DpopConfig::required`] no bearer token
//! is; with [`DpopConfig::require_nonce`] proofs carry a server nonce
//! (`DPoP-Nonce` on every answer).

mod config;
pub(crate) mod dpop;
mod fetch;
pub(crate) mod gate;
mod introspection;
mod jwt;
mod token;

pub use config::AuthConfig;
pub use dpop::{
    DEFAULT_NONCE_LIFETIME, DEFAULT_REPLAY_CAPACITY, DEFAULT_REPLAY_PER_KEY, DpopConfig,
};
pub use introspection::IntrospectionValidator;
pub use jwt::JwtValidator;
pub use token::{Claims, TokenError, TokenValidator, ValidationFuture, now_secs};
