//! [`IntrospectionValidator`]: opaque tokens checked by RFC 7662 token
//! introspection, with an optional cache of positive answers.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::fetch::post_form_json;
use super::token::{Claims, TokenError, TokenValidator, ValidationFuture, now_secs};

/// Validates opaque (or any) tokens by asking the authorization server
/// (RFC 7662 token introspection), authenticating with HTTP Basic: the
/// token must be `active`, its `aud` (when given) must name this resource,
/// its `iss` (when given) the expected issuer, and `exp` must not be past.
///
/// Every request asks the authorization server unless
/// [`cache_for`](Self::cache_for) is set: a cache trades revocation
/// latency for load (RFC 7662 §4), so the choice is yours.
pub struct IntrospectionValidator {
    endpoint: String,
    authorization: String,
    audience: String,
    issuer: Option<String>,
    cache: Option<AnswerCache>,
}

/// Positive introspection answers by token, each until its deadline.
struct AnswerCache {
    ttl: Duration,
    capacity: usize,
    entries: Mutex<HashMap<String, (Instant, Claims)>>,
}

impl AnswerCache {
    fn get(&self, token: &str) -> Option<Claims> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        match entries.get(token) {
            Some((deadline, claims)) if *deadline > Instant::now() => Some(claims.clone()),
            Some(_) => {
                entries.remove(token);
                None
            }
            None => None,
        }
    }

    /// Keeps `claims` for the cache's TTL, never past the token's `exp`.
    fn put(&self, token: &str, claims: &Claims) {
        let now = Instant::now();
        let mut ttl = self.ttl;
        if let Some(exp) = claims.raw.get("exp").and_then(Value::as_u64) {
            ttl = ttl.min(Duration::from_secs(exp.saturating_sub(now_secs())));
        }
        if ttl.is_zero() {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= self.capacity {
            entries.retain(|_, (deadline, _)| *deadline > now);
        }
        if entries.len() >= self.capacity {
            // Full of live answers: start over rather than grow.
            entries.clear();
        }
        entries.insert(token.to_owned(), (now + ttl, claims.clone()));
    }
}

impl IntrospectionValidator {
    /// Introspection at `endpoint` as client `client_id`/`client_secret`,
    /// for tokens meant for `audience` (this resource's URI).
    pub fn new(
        endpoint: impl Into<String>,
        client_id: &str,
        client_secret: &str,
        audience: impl Into<String>,
    ) -> Self {
        use base64::Engine as _;
        // RFC 6749 §2.3.1: each part form-encoded before Basic encoding.
        let credentials = format!("{}:{}", form_encode(client_id), form_encode(client_secret));
        Self {
            endpoint: endpoint.into(),
            authorization: format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(credentials)
            ),
            audience: audience.into(),
            issuer: None,
            cache: None,
        }
    }

    /// Also requires `iss` to be `issuer` when the answer names one.
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Reuses an accepted token's answer for up to `ttl` (never past its
    /// `exp`), for at most `capacity` tokens; a token revoked meanwhile
    /// is accepted until then. Refusals are never cached.
    pub fn cache_for(mut self, ttl: Duration, capacity: usize) -> Self {
        self.cache = Some(AnswerCache {
            ttl,
            capacity: capacity.max(1),
            entries: Mutex::new(HashMap::new()),
        });
        self
    }
}

impl TokenValidator for IntrospectionValidator {
    fn validate<'a>(&'a self, token: &'a str) -> ValidationFuture<'a> {
        Box::pin(async move {
            if let Some(claims) = self.cache.as_ref().and_then(|c| c.get(token)) {
                return Ok(claims);
            }
            let form = format!("token={}&token_type_hint=access_token", form_encode(token));
            let answer = post_form_json(&self.endpoint, &self.authorization, &form)
                .await
                .map_err(|e| TokenError::Unavailable(format!("introspection: {e}")))?;
            if answer.get("active") != Some(&Value::Bool(true)) {
                return Err(TokenError::Invalid("the token is not active".into()));
            }
            let audience_ok = match answer.get("aud") {
                None => true,
                Some(Value::String(aud)) => *aud == self.audience,
                Some(Value::Array(list)) => list
                    .iter()
                    .any(|a| a.as_str() == Some(self.audience.as_str())),
                Some(_) => false,
            };
            if !audience_ok {
                return Err(TokenError::Invalid(
                    "the token is for another audience".into(),
                ));
            }
            if let (Some(expected), Some(iss)) = (&self.issuer, answer.get("iss"))
                && iss.as_str() != Some(expected.as_str())
            {
                return Err(TokenError::Invalid("the token has another issuer".into()));
            }
            if answer
                .get("exp")
                .and_then(Value::as_u64)
                .is_some_and(|exp| exp <= now_secs())
            {
                return Err(TokenError::Invalid("the token has expired".into()));
            }
            let claims = Claims::from_raw(answer);
            if let Some(cache) = &self.cache {
                cache.put(token, &claims);
            }
            Ok(claims)
        })
    }
}

/// `application/x-www-form-urlencoded` for one value.
fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}
