//! [`JwtValidator`]: signed JWT access tokens checked with keys from the
//! issuer's JWKS, found through its metadata (RFC 8414 / OpenID discovery).

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;

use super::fetch::{fetch_json, split_origin};
use super::token::{Claims, TokenError, TokenValidator, ValidationFuture};

/// Validates JWT access tokens (RS256/384/512, ES256/384, PS256/384/512)
/// signed with keys from the issuer's JWKS: `iss` must be the issuer,
/// `aud` this resource, `exp`/`nbf` hold with a leeway. The JWKS address
/// comes from the issuer's metadata (RFC 8414, then OpenID discovery)
/// unless given; keys are cached and fetched again when a token names an
/// unknown `kid` (at most once per [`JwtValidator::refresh_interval`]).
pub struct JwtValidator {
    issuer: String,
    audience: String,
    leeway: Duration,
    jwks_uri: Mutex<Option<String>>,
    keys: Mutex<Keys>,
    refresh_interval: Duration,
}

#[derive(Default)]
struct Keys {
    set: Option<JwkSet>,
    fetched: Option<Instant>,
}

impl JwtValidator {
    /// Tokens from `issuer` for `audience` (this resource's URI), 60 s of
    /// leeway.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audience: audience.into(),
            leeway: Duration::from_secs(60),
            jwks_uri: Mutex::new(None),
            keys: Mutex::default(),
            refresh_interval: Duration::from_secs(30),
        }
    }

    /// Uses this JWKS address rather than the issuer's metadata.
    pub fn with_jwks_uri(self, uri: impl Into<String>) -> Self {
        *self.jwks_uri.lock().unwrap_or_else(PoisonError::into_inner) = Some(uri.into());
        self
    }

    /// Clock skew allowed on `exp` and `nbf` (default 60 s).
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How soon an unknown `kid` may fetch the keys again (default 30 s).
    pub fn refresh_interval(mut self, interval: Duration) -> Self {
        self.refresh_interval = interval;
        self
    }

    async fn jwks_uri(&self) -> Result<String, TokenError> {
        if let Some(uri) = self
            .jwks_uri
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
        {
            return Ok(uri);
        }
        let (origin, path) = split_origin(&self.issuer);
        let candidates = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!(
                "{}/.well-known/openid-configuration",
                self.issuer.trim_end_matches('/')
            ),
        ];
        for url in candidates {
            let Ok(metadata) = fetch_json(&url).await else {
                continue;
            };
            if metadata.get("issuer").and_then(Value::as_str) != Some(self.issuer.as_str()) {
                continue;
            }
            if let Some(uri) = metadata.get("jwks_uri").and_then(Value::as_str) {
                *self.jwks_uri.lock().unwrap_or_else(PoisonError::into_inner) =
                    Some(uri.to_owned());
                return Ok(uri.to_owned());
            }
        }
        Err(TokenError::Unavailable(format!(
            "no authorization server metadata with a jwks_uri for {}",
            self.issuer
        )))
    }

    /// The key for `kid`, fetching the set when it is unknown and the last
    /// fetch is old enough.
    async fn key(&self, kid: Option<&str>) -> Result<jsonwebtoken::jwk::Jwk, TokenError> {
        let find = |keys: &Keys| {
            keys.set.as_ref().and_then(|set| match kid {
                Some(kid) => set.find(kid).cloned(),
                None if set.keys.len() == 1 => set.keys.first().cloned(),
                None => None,
            })
        };
        let may_fetch = {
            let keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(key) = find(&keys) {
                return Ok(key);
            }
            keys.fetched
                .is_none_or(|at| at.elapsed() >= self.refresh_interval)
        };
        if !may_fetch {
            return Err(TokenError::Invalid("unknown signing key".into()));
        }
        let uri = self.jwks_uri().await?;
        let set: JwkSet = fetch_json(&uri)
            .await
            .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
            .map_err(|e| TokenError::Unavailable(format!("JWKS {uri}: {e}")))?;
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        *keys = Keys {
            set: Some(set),
            fetched: Some(Instant::now()),
        };
        find(&keys).ok_or_else(|| TokenError::Invalid("unknown signing key".into()))
    }
}

impl TokenValidator for JwtValidator {
    fn validate<'a>(&'a self, token: &'a str) -> ValidationFuture<'a> {
        Box::pin(async move {
            let header = jsonwebtoken::decode_header(token)
                .map_err(|e| TokenError::Invalid(format!("malformed token: {e}")))?;
            if matches!(
                header.alg,
                Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512
            ) {
                return Err(TokenError::Invalid(
                    "symmetric algorithms are not accepted".into(),
                ));
            }
            let jwk = self.key(header.kid.as_deref()).await?;
            let key = DecodingKey::from_jwk(&jwk)
                .map_err(|e| TokenError::Invalid(format!("unusable signing key: {e}")))?;
            let mut validation = Validation::new(header.alg);
            validation.set_issuer(&[&self.issuer]);
            validation.set_audience(&[&self.audience]);
            validation.leeway = self.leeway.as_secs();
            validation.validate_nbf = true;
            validation.set_required_spec_claims(&["exp", "iss", "aud"]);
            let data = jsonwebtoken::decode::<Value>(token, &key, &validation)
                .map_err(|e| TokenError::Invalid(e.to_string()))?;
            Ok(Claims::from_raw(data.claims))
        })
    }
}
