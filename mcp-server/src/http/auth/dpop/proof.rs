//! Checking one DPoP proof (RFC 9449 §4.3) against the request it came
//! with and the access token it accompanies (`ath`, §4.2).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::DpopConfig;
use super::jwk::public_key;
use super::replay::Replay;

/// Proofs longer than this are refused unread (a proof is a few hundred
/// bytes; an RSA-4096 key makes it about 2 KB).
const MAX_PROOF_LEN: usize = 8 * 1024;

/// Longest `jti` accepted (it is kept in the replay table).
const MAX_JTI_LEN: usize = 256;

/// Why a proof was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ProofError {
    /// `invalid_dpop_proof` with this description.
    Invalid(String),
    /// `use_dpop_nonce`: the nonce is missing or no longer current.
    UseNonce,
}

/// What the request was, as the proof must name it.
pub(crate) struct Expected<'a> {
    /// `htm`: the request method.
    pub(crate) method: &'a str,
    /// `htu`: the public URL of the request, without query or fragment.
    pub(crate) uri: &'a str,
    /// The access token, whose hash `ath` must be.
    pub(crate) token: &'a str,
}

/// A proof that passed [`check`], not yet remembered: [`remember`] it once
/// the token it came with is known good and bound to its key.
#[derive(Debug)]
pub(crate) struct Proof {
    /// The RFC 7638 thumbprint of the proof's key (for `cnf.jkt`).
    pub(crate) thumbprint: String,
    jti: String,
    iat: u64,
}

/// Checks `proof` against the request, without remembering it.
pub(crate) fn check(
    config: &DpopConfig,
    proof: &str,
    expected: &Expected<'_>,
    now: u64,
) -> Result<Proof, ProofError> {
    let invalid = |why: &str| ProofError::Invalid(why.to_owned());
    if proof.len() > MAX_PROOF_LEN {
        return Err(invalid("the DPoP proof is too large"));
    }
    let mut parts = proof.split('.');
    let (Some(header), Some(_), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(invalid("the DPoP proof is not a well-formed JWT"));
    };
    let header: Value = URL_SAFE_NO_PAD
        .decode(header)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .filter(Value::is_object)
        .ok_or_else(|| invalid("the DPoP proof's header is not base64url JSON"))?;
    if header.get("typ").and_then(Value::as_str) != Some("dpop+jwt") {
        return Err(invalid("the DPoP proof's typ must be dpop+jwt"));
    }
    let alg = header
        .get("alg")
        .and_then(Value::as_str)
        .and_then(|name| name.parse::<Algorithm>().ok())
        .filter(|alg| config.algorithms.contains(alg))
        .ok_or_else(|| invalid("the DPoP proof's alg is not an accepted asymmetric algorithm"))?;
    let jwk = header
        .get("jwk")
        .ok_or_else(|| invalid("the DPoP proof has no jwk header"))?;
    let (key, thumbprint) = public_key(jwk, alg).map_err(ProofError::Invalid)?;
    let mut validation = Validation::new(alg);
    validation.validate_exp = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let claims = jsonwebtoken::decode::<Value>(proof, &key, &validation)
        .map_err(|_| invalid("the DPoP proof's signature does not verify"))?
        .claims;
    let text = |name: &str| claims.get(name).and_then(Value::as_str);
    let jti = text("jti")
        .filter(|jti| !jti.is_empty() && jti.len() <= MAX_JTI_LEN)
        .ok_or_else(|| invalid("the DPoP proof needs a jti of at most 256 characters"))?;
    if text("htm") != Some(expected.method) {
        return Err(invalid("htm does not match the request method"));
    }
    let htu = text("htu").ok_or_else(|| invalid("the DPoP proof has no htu"))?;
    if htu.contains(['?', '#']) {
        return Err(invalid("htu must not hold a query or fragment"));
    }
    if normalize(htu).is_none() || normalize(htu) != normalize(expected.uri) {
        return Err(invalid("htu does not match the request URI"));
    }
    let iat = claims
        .get("iat")
        .and_then(numeric_date)
        .ok_or_else(|| invalid("the DPoP proof has no numeric iat"))?;
    let too_old = now.saturating_sub(iat) > config.iat_window.as_secs();
    let too_new = iat.saturating_sub(now) > config.iat_future_leeway.as_secs();
    if too_old || too_new {
        return Err(invalid(
            "the DPoP proof's iat is outside the accepted window",
        ));
    }
    let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(expected.token.as_bytes()));
    if text("ath").map(str::as_bytes) != Some(ath.as_bytes()) {
        return Err(invalid("ath does not match the access token"));
    }
    if config.require_nonce && !text("nonce").is_some_and(|nonce| config.nonces.accepts(nonce, now))
    {
        return Err(ProofError::UseNonce);
    }
    Ok(Proof {
        thumbprint,
        jti: jti.to_owned(),
        iat,
    })
}

/// Remembers an accepted proof's `jti` (RFC 9449 §11.1), refusing one
/// its key already used. Only proofs of a valid token bound to their key
/// come here, so strangers cannot fill the table.
pub(crate) fn remember(config: &DpopConfig, proof: &Proof, now: u64) -> Result<(), ProofError> {
    // Kept until the proof's iat leaves the window, after which it fails
    // the iat check anyway.
    let until = proof.iat.saturating_add(config.iat_window.as_secs());
    let invalid = |why: &str| ProofError::Invalid(why.to_owned());
    match config
        .replay
        .record(&proof.thumbprint, &proof.jti, until, now)
    {
        Ok(()) => Ok(()),
        Err(Replay::Seen) => Err(invalid("the DPoP proof's jti was already used")),
        Err(Replay::KeyFull) => Err(invalid(
            "too many recent DPoP proofs by this key; try again later",
        )),
        Err(Replay::Full) => {
            tracing::warn!("DPoP replay table full; proof refused");
            Err(invalid("too many recent DPoP proofs; try again later"))
        }
    }
}

/// An RFC 7519 NumericDate as whole seconds: fractions are allowed and
/// dropped; negative, non-finite and non-numeric values are not dates.
fn numeric_date(value: &Value) -> Option<u64> {
    if let Some(seconds) = value.as_u64() {
        return Some(seconds);
    }
    let seconds = value.as_f64().filter(|s| s.is_finite() && *s >= 0.0)?;
    // Saturates above u64::MAX: such an iat fails the window check.
    Some(seconds.floor() as u64)
}

/// `scheme://host[:port]/path` with scheme and host lower-cased, the
/// default port and a trailing `/` dropped (RFC 9449 §4.3 step 9 compares
/// without query and fragment, with syntax-based normalization).
pub(crate) fn normalize(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if authority.is_empty() || authority.contains('@') {
        return None;
    }
    let mut authority = authority.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "https" => ":443",
        "http" => ":80",
        _ => return None,
    };
    if let Some(host) = authority.strip_suffix(default_port) {
        authority = host.to_owned();
    }
    Some(format!(
        "{scheme}://{authority}{}",
        path.trim_end_matches('/')
    ))
}

#[cfg(test)]
mod tests {
    use super::{normalize, numeric_date};
    use serde_json::json;

    #[test]
    fn numeric_dates_may_have_fractions() {
        assert_eq!(numeric_date(&json!(1_700_000_000)), Some(1_700_000_000));
        assert_eq!(numeric_date(&json!(1_700_000_000.75)), Some(1_700_000_000));
        assert_eq!(numeric_date(&json!(-1.5)), None);
        assert_eq!(numeric_date(&json!(-1)), None);
        assert_eq!(numeric_date(&json!("1700000000")), None);
        assert_eq!(numeric_date(&json!(null)), None);
    }

    #[test]
    fn urls_compare_after_syntax_normalization() {
        assert_eq!(
            normalize("HTTPS://Example.COM:443/mcp/"),
            normalize("https://example.com/mcp")
        );
        assert_ne!(
            normalize("https://example.com/mcp"),
            normalize("https://example.com/MCP")
        );
        assert_ne!(
            normalize("http://example.com/mcp"),
            normalize("https://example.com/mcp")
        );
        assert_eq!(normalize("ftp://example.com/"), None);
        assert_eq!(normalize("https://user@example.com/"), None);
    }
}
