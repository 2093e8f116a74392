//! The grants without a user: client credentials (RFC 6749 §4.4) and the
//! JWT bearer grant (RFC 7523 §2.1) for workload identity and, after the
//! token exchange of `exchange`, enterprise-managed authorization. Each
//! runs again on a later `401` (no refresh tokens); an error answer is
//! surfaced as is, never retried nor followed by another grant type.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hyper::Method;
use hyper::body::Bytes;
use serde_json::Value;

use super::assertion::JWT_ASSERTION_TYPE;
use super::error::{AuthError, fail};
use super::grants::{ClientAuth, Credential, Grant, SecretMethod};
use super::oauth::OAuth;
use super::tokens::Tokens;

/// `grant_type` of the JWT bearer grant (RFC 7523 §2.1).
pub(super) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Whether a token request carries a DPoP proof (RFC 9449 §5).
#[derive(Clone, Copy)]
pub(super) enum Proof {
    None,
    Dpop,
}

/// A token request: the form and the extra headers (Basic authentication).
pub(super) struct TokenRequest {
    pub(super) form: Vec<(&'static str, String)>,
    pub(super) headers: Vec<(&'static str, String)>,
}

impl TokenRequest {
    pub(super) fn new(grant_type: &str) -> Self {
        Self {
            form: vec![("grant_type", grant_type.to_owned())],
            headers: Vec::new(),
        }
    }

    pub(super) fn param(&mut self, name: &'static str, value: impl Into<String>) {
        self.form.push((name, value.into()));
    }

    /// The `resource` (RFC 8707) and, when there are any, the scopes.
    pub(super) fn target(&mut self, resource: &str, scopes: &[String]) {
        self.param("resource", resource);
        if !scopes.is_empty() {
            self.param("scope", scopes.join(" "));
        }
    }

    /// Client authentication at a server with metadata `meta` whose
    /// assertions are addressed to `audience` (its issuer).
    pub(super) fn authenticate(
        &mut self,
        client: &ClientAuth,
        meta: &Value,
        audience: &str,
    ) -> Result<(), AuthError> {
        let listed = |field: &str| -> Option<Vec<String>> {
            meta.get(field).and_then(Value::as_array).map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
        };
        match &client.credential {
            Credential::None => self.param("client_id", client.client_id.clone()),
            Credential::Secret { secret, method } => {
                let methods = listed("token_endpoint_auth_methods_supported");
                let lists = |m: &str| methods.as_ref().is_some_and(|l| l.iter().any(|x| x == m));
                let basic = match method {
                    SecretMethod::Basic => true,
                    SecretMethod::Post => false,
                    SecretMethod::Auto => {
                        methods.is_none()
                            || lists("client_secret_basic")
                            || !lists("client_secret_post")
                    }
                };
                if basic {
                    // RFC 6749 §2.3.1: each part form-encoded, then base64.
                    let pair = format!("{}:{}", encode(&client.client_id), encode(secret));
                    self.headers
                        .push(("authorization", format!("Basic {}", STANDARD.encode(pair))));
                } else {
                    self.param("client_id", client.client_id.clone());
                    self.param("client_secret", secret.clone());
                }
            }
            Credential::PrivateKey(key) => {
                let algs = listed("token_endpoint_auth_signing_alg_values_supported");
                let jwt = key.client_assertion(&client.client_id, audience, algs.as_deref())?;
                // The client is the assertion's `sub` (RFC 7523 §3): no client_id.
                self.param("client_assertion_type", JWT_ASSERTION_TYPE);
                self.param("client_assertion", jwt);
            }
        }
        Ok(())
    }

    /// The `application/x-www-form-urlencoded` body.
    pub(super) fn body(&self) -> String {
        self.form
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// Percent-encodes all but the unreserved characters (RFC 3986 §2.3), so
/// the result reads the same to form and URI decoders.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The metadata field `name` as a string.
pub(super) fn field(meta: &Value, name: &str) -> Result<String, AuthError> {
    meta.get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| AuthError(format!("the authorization server metadata has no {name}")))
}

impl OAuth {
    /// Runs the configured machine grant at the server of `meta`, ending
    /// with tokens in the store.
    pub(super) async fn machine_grant(
        &self,
        meta: &Value,
        resource: &str,
        scopes: &[String],
    ) -> Result<(), AuthError> {
        let issuer = field(meta, "issuer")?;
        let token_endpoint = field(meta, "token_endpoint")?;
        let req = match &self.opts.grant {
            Grant::AuthorizationCode => return fail("not a machine grant"),
            Grant::ClientCredentials(client) => {
                let mut req = TokenRequest::new("client_credentials");
                req.target(resource, scopes);
                req.authenticate(client, meta, &issuer)?;
                req
            }
            Grant::WorkloadIdentity { client, token } => {
                let mut req = TokenRequest::new(JWT_BEARER);
                req.param("assertion", token.read("workload token")?);
                req.target(resource, scopes);
                req.authenticate(client, meta, &issuer)?;
                req
            }
            Grant::Enterprise(e) => {
                let id_jag = self.exchange(e, &issuer, resource, scopes).await?;
                let mut req = TokenRequest::new(JWT_BEARER);
                req.param("assertion", id_jag);
                req.target(resource, scopes);
                req.authenticate(&e.client, meta, &issuer)?;
                req
            }
        };
        let answer = self
            .token_post(&token_endpoint, req, "token request", Proof::Dpop)
            .await?;
        let Some(access_token) = answer.get("access_token").and_then(Value::as_str) else {
            return fail("the token response has no access_token");
        };
        let granted = answer
            .get("scope")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| (!scopes.is_empty()).then(|| scopes.join(" ")));
        let token_type = self.token_type(
            answer
                .get("token_type")
                .and_then(Value::as_str)
                .unwrap_or(""),
        )?;
        self.opts.store.save(
            self.mcp_url.as_str(),
            Tokens {
                access_token: access_token.to_owned(),
                // These grants run again rather than refresh (RFC 6749 §4.4.3).
                refresh_token: None,
                scope: granted,
                token_type,
            },
        );
        Ok(())
    }

    /// POSTs a token request and returns the JSON answer; an error answer
    /// (RFC 6749 §5.2) becomes an [`AuthError`] naming its code. With
    /// [`Proof::Dpop`] it carries the armed DPoP key's proof (the MCP
    /// authorization server's token endpoint, never the IdP's).
    pub(super) async fn token_post(
        &self,
        endpoint: &str,
        req: TokenRequest,
        what: &str,
        proof: Proof,
    ) -> Result<Value, AuthError> {
        let mut headers = vec![
            (
                "content-type",
                "application/x-www-form-urlencoded".to_owned(),
            ),
            ("accept", "application/json".to_owned()),
        ];
        headers.extend(req.headers.iter().cloned());
        let response = match proof {
            Proof::None => {
                self.http
                    .send(Method::POST, endpoint, headers, Bytes::from(req.body()))
                    .await?
            }
            Proof::Dpop => {
                let mut request = hyper::Request::builder().method(Method::POST).uri(endpoint);
                for (name, value) in headers {
                    request = request.header(name, value);
                }
                let request = request
                    .body(req.body().into_bytes())
                    .map_err(|e| AuthError(format!("{endpoint}: {e}")))?;
                self.http
                    .exchange(request)
                    .await
                    .map_err(|e| AuthError(format!("{endpoint}: {e}")))?
            }
        };
        let status = response.status();
        let body: Option<Value> = serde_json::from_slice(response.body()).ok();
        if let Some(error) = body
            .as_ref()
            .and_then(|b| b.get("error"))
            .and_then(Value::as_str)
        {
            let description = body
                .as_ref()
                .and_then(|b| b.get("error_description"))
                .and_then(Value::as_str)
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            return fail(format!("{what} refused ({status}): {error}{description}"));
        }
        match body {
            Some(body) if status.is_success() && body.is_object() => Ok(body),
            _ => fail(format!(
                "{what} failed: HTTP {status} without a token response"
            )),
        }
    }
}

#[cfg(test)]
mod tests;
