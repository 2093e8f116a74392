//! The token grants, through the `oauth2` crate: the authorization code
//! with PKCE S256 and the `resource` indicator (RFC 8707), its redirect
//! checked (`state`, RFC 9207 `iss`), and the refresh-token grant.

use oauth2::basic::BasicClient;
use oauth2::url::Url;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, RefreshToken, Scope, TokenResponse, TokenUrl,
};
use serde_json::{Value, json};

use super::error::{AuthError, fail};
use super::oauth::{OAuth, Registration};
use super::tokens::{TokenType, Tokens};

type FlowClient = BasicClient<
    oauth2::EndpointSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
>;

impl OAuth {
    /// The authorization code flow, ending with tokens in the store.
    pub(super) async fn authorize(
        &self,
        meta: &Value,
        reg: &Registration,
        resource: &str,
        scopes: &[String],
    ) -> Result<(), AuthError> {
        let endpoint = |name: &str| {
            meta.get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| AuthError(format!("the metadata has no {name}")))
        };
        let issuer = endpoint("issuer")?;
        let client = self.flow_client(meta, reg)?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(CsrfToken::new_random)
            .set_pkce_challenge(challenge)
            .add_extra_param("resource", resource);
        if !scopes.is_empty() {
            request = request.add_scopes(scopes.iter().cloned().map(Scope::new));
        }
        let (url, state) = request.url();
        let redirect = self.opts.authorizer.authorize(url.to_string()).await?;
        let redirect = Url::parse(&redirect).map_err(|e| AuthError(format!("redirect: {e}")))?;
        let param = |name: &str| {
            redirect
                .query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
        };
        if let Some(error) = param("error") {
            return fail(format!("authorization refused: {error}"));
        }
        if param("state").as_deref() != Some(state.secret().as_str()) {
            return fail("the redirect's state does not match");
        }
        // RFC 9207: a present iss must equal the issuer exactly; an
        // advertised one must be present.
        match param("iss") {
            Some(iss) if iss != issuer => {
                return fail(format!(
                    "the redirect's iss `{iss}` is not the issuer `{issuer}`"
                ));
            }
            None if meta.get("authorization_response_iss_parameter_supported")
                == Some(&json!(true)) =>
            {
                return fail("the redirect has no iss although the server advertises it");
            }
            _ => {}
        }
        let Some(code) = param("code") else {
            return fail("the redirect has no code");
        };
        let send = |req: oauth2::HttpRequest| {
            let http = self.http.clone();
            async move { http.exchange(req).await }
        };
        let token = client
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(verifier)
            .add_extra_param("resource", resource)
            .request_async(&send)
            .await
            .map_err(|e| AuthError(format!("token request failed: {e}")))?;
        let token_type = self.token_type(token.token_type().as_ref())?;
        let granted = token
            .scopes()
            .map(|s| {
                s.iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .or_else(|| (!scopes.is_empty()).then(|| scopes.join(" ")));
        self.opts.store.save(
            self.mcp_url.as_str(),
            Tokens {
                access_token: token.access_token().secret().clone(),
                refresh_token: token.refresh_token().map(|r| r.secret().clone()),
                scope: granted,
                token_type,
            },
        );
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) =
            Some((resource.to_owned(), meta.clone()));
        Ok(())
    }

    /// The `oauth2` client for the registered client at the server of `meta`.
    fn flow_client(&self, meta: &Value, reg: &Registration) -> Result<FlowClient, AuthError> {
        let endpoint = |name: &str| {
            meta.get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| AuthError(format!("the metadata has no {name}")))
        };
        let bad = |e: oauth2::url::ParseError| AuthError(e.to_string());
        let mut client = BasicClient::new(ClientId::new(reg.client_id.clone()))
            .set_auth_uri(AuthUrl::new(endpoint("authorization_endpoint")?).map_err(bad)?)
            .set_token_uri(TokenUrl::new(endpoint("token_endpoint")?).map_err(bad)?)
            .set_redirect_uri(RedirectUrl::new(self.opts.redirect_uri.clone()).map_err(bad)?)
            .set_auth_type(match reg.method.as_str() {
                "client_secret_basic" => AuthType::BasicAuth,
                _ => AuthType::RequestBody,
            });
        if reg.method != "none"
            && let Some(secret) = &reg.client_secret
        {
            client = client.set_client_secret(ClientSecret::new(secret.clone()));
        }
        Ok(client)
    }

    /// A refresh-token grant for the last authorization's resource.
    pub(super) async fn refresh(
        &self,
        refresh: &str,
        previous: Option<&Tokens>,
    ) -> Result<(), AuthError> {
        let last = self.last.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let Some((resource, meta)) = last else {
            return fail("nothing to refresh");
        };
        let Some(reg) = self.registration.lock().await.clone() else {
            return fail("no registered client");
        };
        let client = self.flow_client(&meta, &reg)?;
        // RFC 9449 §5: a public client's refresh token is bound to the key
        // of the tokens it came with.
        let key = previous.and_then(|t| self.http.dpop().key_for(&t.access_token));
        self.http.dpop().arm(key);
        let send = |req: oauth2::HttpRequest| {
            let http = self.http.clone();
            async move { http.exchange(req).await }
        };
        let token = client
            .exchange_refresh_token(&RefreshToken::new(refresh.to_owned()))
            .add_extra_param("resource", resource)
            .request_async(&send)
            .await
            .map_err(|e| AuthError(format!("refresh failed: {e}")))?;
        let token_type = self.token_type(token.token_type().as_ref())?;
        self.opts.store.save(
            self.mcp_url.as_str(),
            Tokens {
                access_token: token.access_token().secret().clone(),
                refresh_token: token
                    .refresh_token()
                    .map(|r| r.secret().clone())
                    .or_else(|| Some(refresh.to_owned())),
                scope: previous.and_then(|t| t.scope.clone()),
                token_type,
            },
        );
        Ok(())
    }

    /// The `token_type` of a token response: `DPoP` (RFC 9449 §5) only for
    /// a request that proved a key, which `HyperHttp` has bound it to.
    pub(super) fn token_type(&self, t: &str) -> Result<TokenType, AuthError> {
        if !t.eq_ignore_ascii_case("dpop") {
            return Ok(TokenType::Bearer);
        }
        if self.http.dpop().armed().is_none() {
            return fail("the authorization server issued a DPoP token without a DPoP proof");
        }
        Ok(TokenType::DPoP)
    }
}
