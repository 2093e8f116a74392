//! What the client does about a `401` or `403` challenge: refresh the
//! token, or run the flow from discovery through registration to a new
//! grant, with the union of scopes on step-up; or, for a grant without a
//! user, run that grant again after discovery.

use serde_json::Value;

use super::discovery::parse_challenge;
use super::dpop::{DpopKey, decide};
use super::error::{AuthError, fail};
use super::grants::Grant;
use super::oauth::OAuth;

impl OAuth {
    /// Acts on a challenge to a request sent with token `sent`: refreshes,
    /// or authorizes from scratch. One flow at a time; a request refused
    /// with a token another flow has since replaced just retries.
    pub(crate) async fn on_challenge(
        &self,
        status: u16,
        header: Option<&str>,
        sent: Option<&str>,
    ) -> Result<(), AuthError> {
        let _one = self.flow.lock().await;
        let current = self.bearer();
        if status == 401 && current.is_some() && current.as_deref() != sent {
            return Ok(());
        }
        let challenge = header.map(parse_challenge).unwrap_or_default();
        let previous = self.opts.store.load(self.mcp_url.as_str());
        let step_up = status == 403 || challenge.error.as_deref() == Some("insufficient_scope");
        if status == 403 && !step_up {
            return fail("the server refused the request (403)");
        }
        // A plain 401 with a refresh token: try refreshing first.
        if !step_up
            && let Some(refresh) = previous.as_ref().and_then(|t| t.refresh_token.clone())
            && self.refresh(&refresh, previous.as_ref()).await.is_ok()
        {
            return Ok(());
        }
        let prm = self.protected_resource(&challenge).await?;
        let resource = prm
            .get("resource")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| self.mcp_url.to_string());
        let Some(issuer) = prm
            .pointer("/authorization_servers/0")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return fail("the protected resource metadata names no authorization server");
        };
        let meta = self.server_metadata(&issuer).await?;
        // New tokens from scratch: a new DPoP key, if DPoP is to be used.
        let key = match decide(self.opts.dpop, &prm, &meta)? {
            true => {
                let key = DpopKey::generate()?;
                tracing::debug!(jkt = key.thumbprint(), "DPoP: a new proof key");
                Some(std::sync::Arc::new(key))
            }
            false => None,
        };
        self.http.dpop().arm(key);
        // Scope: the challenge's (plus what we had, on step-up), else the resource's.
        let mut scopes: Vec<String> = match &challenge.scope {
            Some(s) => s.split_whitespace().map(str::to_owned).collect(),
            None => prm
                .get("scopes_supported")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        };
        if step_up && let Some(granted) = previous.as_ref().and_then(|t| t.scope.clone()) {
            for s in granted.split_whitespace() {
                if !scopes.iter().any(|x| x == s) {
                    scopes.push(s.to_owned());
                }
            }
        }
        // The grants without a user: no registration, no refresh token.
        if !matches!(self.opts.grant, Grant::AuthorizationCode) {
            return self.machine_grant(&meta, &resource, &scopes).await;
        }
        let offline = meta
            .get("scopes_supported")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|s| s == "offline_access"));
        if offline && !scopes.is_empty() && !scopes.iter().any(|s| s == "offline_access") {
            scopes.push("offline_access".into());
        }
        let registration = self.register(&issuer, &meta).await?;
        self.authorize(&meta, &registration, &resource, &scopes)
            .await
    }
}
