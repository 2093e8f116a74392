//! [`JwtValidator`]: signed JWT access tokens checked with keys from the
//! issuer's JWKS, found through its metadata (RFC 8414 / OpenID discovery).

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;

use super::fetch::{fetch_json, split_origin};
use super::token::{Claims, TokenError, TokenValidator, ValidationFuture};

/// Validates JWT access tokens (RS256/384/512, ES256/384, PS256/384/512)
/// signed with keys from the issuer's JWKS: `iss` must be the issuer,
/// `aud` this resource, `exp`/`nbf` hold with a leeway. The JWKS address
/// comes from the issuer's metadata (RFC 8414, then OpenID discovery)
/// unless given. Keys are cached and fetched again when a token names an
/// unknown `kid` or the set is older than [`JwtValidator::max_key_age`],
/// one fetch at a time (concurrent requests wait for it) and at most once
/// per [`JwtValidator::refresh_interval`], failed fetches included. When a
/// refresh fails, the keys already held stay in use.
pub struct JwtValidator {
    issuer: String,
    audience: String,
    leeway: Duration,
    jwks_uri: Mutex<Option<String>>,
    keys: Mutex<Keys>,
    /// Held while fetching: one fetch at a time.
    fetching: tokio::sync::Mutex<()>,
    refresh_interval: Duration,
    max_key_age: Duration,
}

#[derive(Default)]
struct Keys {
    set: Option<JwkSet>,
    /// When `set` was fetched.
    fetched: Option<Instant>,
    /// When a fetch was last tried, and why it failed if it did.
    tried: Option<Instant>,
    failure: Option<String>,
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
            fetching: tokio::sync::Mutex::new(()),
            refresh_interval: Duration::from_secs(30),
            max_key_age: Duration::from_secs(300),
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

    /// How soon the keys may be fetched again, after a fetch or a failed
    /// one (default 30 s).
    pub fn refresh_interval(mut self, interval: Duration) -> Self {
        self.refresh_interval = interval;
        self
    }

    /// How long fetched keys are used before they are fetched again, so
    /// that a key the issuer withdrew stops being accepted (default 300 s).
    pub fn max_key_age(mut self, age: Duration) -> Self {
        self.max_key_age = age;
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

    /// The key for `kid`, from keys younger than the maximum age, else
    /// after fetching them again (see the type's docs for how often).
    async fn key(&self, kid: Option<&str>) -> Result<Jwk, TokenError> {
        let find = |keys: &Keys| {
            keys.set.as_ref().and_then(|set| match kid {
                Some(kid) => set.find(kid).cloned(),
                None if set.keys.len() == 1 => set.keys.first().cloned(),
                None => None,
            })
        };
        let fresh = |keys: &Keys| {
            keys.fetched
                .is_some_and(|at| at.elapsed() < self.max_key_age)
        };
        {
            let keys = self.lock_keys();
            if fresh(&keys)
                && let Some(key) = find(&keys)
            {
                return Ok(key);
            }
        }
        let _one_fetch = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        let (held, may_fetch, failure) = {
            let mut keys = self.lock_keys();
            let held = find(&keys);
            if let Some(key) = held.as_ref().filter(|_| fresh(&keys)) {
                return Ok(key.clone());
            }
            let may_fetch = keys
                .tried
                .is_none_or(|at| at.elapsed() >= self.refresh_interval);
            if may_fetch {
                keys.tried = Some(Instant::now());
            }
            (held, may_fetch, keys.failure.clone())
        };
        if !may_fetch {
            return match (held, failure) {
                (Some(key), _) => Ok(key),
                (None, Some(failure)) => Err(TokenError::Unavailable(failure)),
                (None, None) => Err(TokenError::Invalid("unknown signing key".into())),
            };
        }
        match self.fetch_keys().await {
            Ok(set) => {
                let mut keys = self.lock_keys();
                keys.set = Some(set);
                keys.fetched = Some(Instant::now());
                keys.failure = None;
                find(&keys).ok_or_else(|| TokenError::Invalid("unknown signing key".into()))
            }
            Err(failure) => {
                self.lock_keys().failure = Some(failure.clone());
                match held {
                    Some(key) => {
                        tracing::warn!(%failure, "JWKS refresh failed; the keys held stay in use");
                        Ok(key)
                    }
                    None => Err(TokenError::Unavailable(failure)),
                }
            }
        }
    }

    fn lock_keys(&self) -> std::sync::MutexGuard<'_, Keys> {
        self.keys.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The issuer's key set, fetched now.
    async fn fetch_keys(&self) -> Result<JwkSet, String> {
        let uri = match self.jwks_uri().await {
            Ok(uri) => uri,
            Err(TokenError::Unavailable(why) | TokenError::Invalid(why)) => return Err(why),
        };
        fetch_json(&uri)
            .await
            .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
            .map_err(|e| format!("JWKS {uri}: {e}"))
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
