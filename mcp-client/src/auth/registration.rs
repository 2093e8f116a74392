//! The client to use at an authorization server: kept from before,
//! pre-registered, a client ID metadata document URL, or registered
//! dynamically (RFC 7591).

use hyper::Method;
use hyper::body::Bytes;
use serde_json::{Value, json};

use super::error::{AuthError, fail};
use super::oauth::{OAuth, Registration};

impl OAuth {
    /// The client to use at `issuer`: kept, pre-registered, a metadata
    /// document URL, or freshly registered.
    pub(super) async fn register(
        &self,
        issuer: &str,
        meta: &Value,
    ) -> Result<Registration, AuthError> {
        let mut kept = self.registration.lock().await;
        if let Some(r) = kept.as_ref().filter(|r| r.issuer == issuer) {
            return Ok(r.clone());
        }
        let supported: Vec<&str> = meta
            .get("token_endpoint_auth_methods_supported")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_else(|| vec!["client_secret_basic"]);
        let pick = |secret: bool| -> String {
            let order: &[&str] = if secret {
                &["client_secret_basic", "client_secret_post", "none"]
            } else {
                &["none"]
            };
            order
                .iter()
                .find(|m| supported.contains(m))
                .unwrap_or(&order[0])
                .to_string()
        };
        let registration = if let Some(id) = &self.opts.client_id {
            Registration {
                issuer: issuer.to_owned(),
                client_id: id.clone(),
                client_secret: self.opts.client_secret.clone(),
                method: pick(self.opts.client_secret.is_some()),
            }
        } else if let (Some(url), true) = (
            &self.opts.client_metadata_url,
            meta.get("client_id_metadata_document_supported") == Some(&json!(true)),
        ) {
            Registration {
                issuer: issuer.to_owned(),
                client_id: url.clone(),
                client_secret: None,
                method: "none".into(),
            }
        } else {
            let Some(endpoint) = meta.get("registration_endpoint").and_then(Value::as_str) else {
                return fail(
                    "the authorization server offers no registration and no client id was given",
                );
            };
            let method = supported.first().map_or("none", |m| m).to_owned();
            let body = json!({
                "client_name": self.opts.client_name,
                "redirect_uris": [self.opts.redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": method,
                "application_type": "native",
            });
            let response = self
                .http
                .send(
                    Method::POST,
                    endpoint,
                    vec![("content-type", "application/json".into())],
                    Bytes::from(body.to_string()),
                )
                .await?;
            if !response.status().is_success() {
                return fail(format!(
                    "client registration failed with HTTP {}",
                    response.status()
                ));
            }
            let reply: Value = serde_json::from_slice(response.body())
                .map_err(|e| AuthError(format!("registration response: {e}")))?;
            let Some(client_id) = reply.get("client_id").and_then(Value::as_str) else {
                return fail("the registration response has no client_id");
            };
            let secret = reply
                .get("client_secret")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let method = reply
                .get("token_endpoint_auth_method")
                .and_then(Value::as_str)
                .map_or_else(|| pick(secret.is_some()), str::to_owned);
            Registration {
                issuer: issuer.to_owned(),
                client_id: client_id.to_owned(),
                client_secret: secret,
                method,
            }
        };
        *kept = Some(registration.clone());
        Ok(registration)
    }
}
