//! What every validator shares: the [`Claims`] of an accepted token, the
//! [`TokenError`] of a refused one, and the [`TokenValidator`] trait.

use std::future::Future;
use std::pin::Pin;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// What a validator learned from a valid token.
#[derive(Debug, Clone, PartialEq)]
pub struct Claims {
    /// `sub`, when the token has a non-empty one.
    pub subject: Option<String>,
    /// The granted scopes (`scope`, space-separated, or `scp`).
    pub scopes: Vec<String>,
    /// `client_id` (or `azp`), when present and non-empty.
    pub client_id: Option<String>,
    /// Every claim as sent.
    pub raw: Value,
}

impl Claims {
    pub(crate) fn from_raw(raw: Value) -> Self {
        let scopes = match (raw.get("scope"), raw.get("scp")) {
            (Some(Value::String(s)), _) => s.split_whitespace().map(str::to_owned).collect(),
            (_, Some(Value::Array(list))) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            (_, Some(Value::String(s))) => s.split_whitespace().map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        // An empty `sub` or `client_id` names nobody.
        let text = |key: &str| {
            raw.get(key)
                .and_then(Value::as_str)
                .filter(|value| !value.is_empty())
                .map(str::to_owned)
        };
        Self {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes,
            raw,
        }
    }
}

/// Why a token was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// Expired, not yet valid, wrong issuer or audience, bad signature,
    /// unknown key, malformed: **401** `invalid_token`.
    Invalid(String),
    /// The keys could not be fetched: **503**, the client may retry.
    Unavailable(String),
}

/// The future a [`TokenValidator`] returns.
pub type ValidationFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Claims, TokenError>> + Send + 'a>>;

/// Checks a bearer token and returns its claims.
pub trait TokenValidator: Send + Sync {
    /// Validates `token` for this resource.
    fn validate<'a>(&'a self, token: &'a str) -> ValidationFuture<'a>;
}

/// Seconds since the Unix epoch (for tests and validators).
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
