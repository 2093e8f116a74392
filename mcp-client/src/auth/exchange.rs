//! The first step of enterprise-managed authorization (SEP-990, ext-auth
//! `enterprise-managed-authorization.mdx` §4): an RFC 8693 token exchange
//! at the enterprise IdP, the user's ID token for an ID-JAG addressed to
//! the MCP server's authorization server.

use serde_json::{Value, json};

use super::error::{AuthError, fail};
use super::grants::Enterprise;
use super::machine::{Proof, TokenRequest};
use super::oauth::OAuth;

/// RFC 8693 §2.1 `grant_type`.
pub(super) const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The token type of an Identity Assertion JWT Authorization Grant.
pub(super) const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// RFC 8693 §3: an OpenID Connect ID token.
pub(super) const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";

/// The token exchange request: `audience` the MCP authorization server's
/// issuer, `resource` the MCP server, the ID token as subject token.
pub(super) fn exchange_request(
    e: &Enterprise,
    id_token: String,
    issuer: &str,
    resource: &str,
    scopes: &[String],
) -> Result<TokenRequest, AuthError> {
    let mut req = TokenRequest::new(TOKEN_EXCHANGE);
    req.param("requested_token_type", ID_JAG);
    req.param("audience", issuer);
    req.target(resource, scopes);
    req.param("subject_token", id_token);
    req.param("subject_token_type", ID_TOKEN);
    // At the IdP the assertion's audience is its issuer (RFC 7523 §3).
    let audience = e.idp_issuer.as_deref().unwrap_or(&e.idp_token_endpoint);
    let idp_meta = json!({});
    req.authenticate(&e.idp_client, &idp_meta, audience)?;
    Ok(req)
}

impl OAuth {
    /// Exchanges the user's ID token for an ID-JAG.
    pub(super) async fn exchange(
        &self,
        e: &Enterprise,
        issuer: &str,
        resource: &str,
        scopes: &[String],
    ) -> Result<String, AuthError> {
        let id_token = e.id_token.read("ID token")?;
        let req = exchange_request(e, id_token, issuer, resource, scopes)?;
        let answer = self
            .token_post(
                &e.idp_token_endpoint,
                req,
                "token exchange at the IdP",
                Proof::None,
            )
            .await?;
        // RFC 8693 §2.2.1: issued_token_type is required; it must be what we asked.
        match answer.get("issued_token_type").and_then(Value::as_str) {
            Some(ID_JAG) => {}
            other => {
                return fail(format!(
                    "the IdP issued {} instead of an ID-JAG",
                    other.unwrap_or("an untyped token")
                ));
            }
        }
        answer
            .get("access_token")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| AuthError("the token exchange answer has no access_token".into()))
    }
}
