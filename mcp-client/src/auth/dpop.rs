//! DPoP (RFC 9449): when to ask for sender-constrained tokens
//! ([`DpopPolicy`]), the client's ES256 proof key and its proof JWTs
//! (§4.2), and [`DpopState`], which binds keys to the tokens issued for them
//! and keeps the nonces servers hand out (§8, §9).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use oauth2::url::Url;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::error::{AuthError, fail};

/// The proof algorithm we sign with.
pub(crate) const ALG: &str = "ES256";

/// When the client asks for DPoP-bound tokens (RFC 9449).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DpopPolicy {
    /// When the authorization server's `dpop_signing_alg_values_supported`
    /// lists ES256, or the resource's metadata says
    /// `dpop_bound_access_tokens_required`.
    #[default]
    Auto,
    /// At every authorization server that does not rule ES256 out.
    Always,
    /// Never: bearer tokens only.
    Never,
}

/// Whether `algs` (a metadata array) is absent, or lists [`ALG`].
fn allows_es256(algs: Option<&Value>) -> Result<bool, ()> {
    match algs {
        None => Ok(true),
        Some(Value::Array(a)) => Ok(a.iter().any(|v| v == ALG)),
        Some(_) => Err(()),
    }
}

/// Whether to use DPoP with the authorization server of `meta` for the
/// resource of `prm`; an error when DPoP is needed and no algorithm is shared.
pub(crate) fn decide(policy: DpopPolicy, prm: &Value, meta: &Value) -> Result<bool, AuthError> {
    let required = prm.get("dpop_bound_access_tokens_required") == Some(&json!(true));
    let as_algs = meta.get("dpop_signing_alg_values_supported");
    let rs_algs = prm.get("dpop_signing_alg_values_supported");
    let wanted = match policy {
        DpopPolicy::Never if required => {
            return fail(
                "the resource requires DPoP-bound tokens (dpop_bound_access_tokens_required) but DPoP is turned off",
            );
        }
        DpopPolicy::Never => return Ok(false),
        DpopPolicy::Always => true,
        DpopPolicy::Auto => required || as_algs.is_some(),
    };
    if !wanted {
        return Ok(false);
    }
    let lenient = policy == DpopPolicy::Auto && !required;
    let (Ok(as_ok), Ok(rs_ok)) = (allows_es256(as_algs), allows_es256(rs_algs)) else {
        // A malformed optional field does not stop a flow that can do without.
        if lenient {
            return Ok(false);
        }
        return fail("dpop_signing_alg_values_supported is not an array");
    };
    if as_ok && rs_ok {
        return Ok(true);
    }
    if lenient {
        // Advertised, but not with an algorithm we sign: stay with Bearer.
        return Ok(false);
    }
    fail(format!(
        "DPoP is {} but the servers accept no DPoP algorithm this client signs with ({ALG})",
        if required { "required" } else { "requested" }
    ))
}

/// `htu` (RFC 9449 §4.2): the target URI without query and fragment.
pub(crate) fn htu(url: &str) -> Result<String, AuthError> {
    let mut u = Url::parse(url).map_err(|e| AuthError(format!("DPoP htu `{url}`: {e}")))?;
    u.set_query(None);
    u.set_fragment(None);
    Ok(u.to_string())
}

/// `ath` (RFC 9449 §4.2): base64url(SHA-256(access token)).
pub(crate) fn ath(access_token: &str) -> String {
    B64.encode(Sha256::digest(access_token.as_bytes()))
}

/// The JWK thumbprint (RFC 7638) of a key's required members.
pub(crate) fn thumbprint(members: &[(&str, &str)]) -> String {
    let mut sorted = members.to_vec();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    // The required members are ASCII names and base64url or fixed strings:
    // serde_json's escaping equals RFC 7638's canonical form here.
    let body = sorted
        .iter()
        .map(|(k, v)| format!("{}:{}", json!(k), json!(v)))
        .collect::<Vec<_>>()
        .join(",");
    B64.encode(Sha256::digest(format!("{{{body}}}").as_bytes()))
}

fn random(bytes: usize) -> Result<Vec<u8>, AuthError> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| AuthError(format!("no randomness: {e}")))?;
    Ok(buf)
}

/// A DPoP proof key (P-256). `Debug` shows only its thumbprint.
pub(crate) struct DpopKey {
    key: SigningKey,
    jwk: Value,
    thumbprint: String,
}

impl fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpopKey")
            .field("jkt", &self.thumbprint)
            .finish_non_exhaustive()
    }
}

impl DpopKey {
    /// A fresh key from the OS CSPRNG.
    pub(crate) fn generate() -> Result<Self, AuthError> {
        // A random 32-byte string is a valid scalar but with negligible
        // odds (zero, or at least the group order): draw again then.
        for _ in 0..4 {
            let bytes = random(32)?;
            if let Ok(key) = SigningKey::from_slice(&bytes) {
                return Self::from_key(key);
            }
        }
        fail("could not generate a DPoP key")
    }

    fn from_key(key: SigningKey) -> Result<Self, AuthError> {
        let point = key.verifying_key().as_affine().to_encoded_point(false);
        let (Some(x), Some(y)) = (point.x(), point.y()) else {
            return fail("the DPoP public key has no coordinates");
        };
        let (x, y) = (B64.encode(x), B64.encode(y));
        let thumbprint = thumbprint(&[("crv", "P-256"), ("kty", "EC"), ("x", &x), ("y", &y)]);
        Ok(Self {
            key,
            jwk: json!({"kty": "EC", "crv": "P-256", "x": x, "y": y}),
            thumbprint,
        })
    }

    /// The public JWK (no private member).
    #[cfg(test)]
    pub(crate) fn public_jwk(&self) -> &Value {
        &self.jwk
    }

    /// The JWK SHA-256 thumbprint: what a bound token's `cnf.jkt` holds.
    pub(crate) fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    /// A proof for one request: `method` at `url`, with `ath` when an access
    /// token is presented, and the server's `nonce` when one is known.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, AuthError> {
        let iat = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|e| AuthError(format!("clock: {e}")))?
            .as_secs();
        let header = json!({"typ": "dpop+jwt", "alg": ALG, "jwk": self.jwk});
        let mut claims = json!({
            "jti": B64.encode(random(16)?),
            "htm": method,
            "htu": htu(url)?,
            "iat": iat,
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(ath(token));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let input = format!(
            "{}.{}",
            B64.encode(header.to_string()),
            B64.encode(claims.to_string())
        );
        let signature: Signature = self.key.sign(input.as_bytes());
        Ok(format!("{input}.{}", B64.encode(signature.to_bytes())))
    }
}

/// The DPoP state of one OAuth client: the key armed for token requests,
/// the key each issued token is bound to, and the nonces servers gave.
#[derive(Debug, Default)]
pub(crate) struct DpopState(Mutex<Inner>);

#[derive(Debug, Default)]
struct Inner {
    armed: Option<Arc<DpopKey>>,
    /// `ath` of the last DPoP-bound access token, and its key.
    bound: Option<(String, Arc<DpopKey>)>,
    /// The last nonce by `htu` (an AS's token endpoint, an MCP endpoint).
    nonces: HashMap<String, String>,
}

impl DpopState {
    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets the key token requests prove possession of (`None`: no proofs).
    pub(crate) fn arm(&self, key: Option<Arc<DpopKey>>) {
        self.inner().armed = key;
    }

    pub(crate) fn armed(&self) -> Option<Arc<DpopKey>> {
        self.inner().armed.clone()
    }

    /// Records that `access_token` is bound to `key`.
    pub(crate) fn bind(&self, access_token: &str, key: Arc<DpopKey>) {
        self.inner().bound = Some((ath(access_token), key));
    }

    /// The key `access_token` is bound to, if it is a DPoP token of ours.
    pub(crate) fn key_for(&self, access_token: &str) -> Option<Arc<DpopKey>> {
        let hash = ath(access_token);
        match &self.inner().bound {
            Some((h, key)) if *h == hash => Some(key.clone()),
            _ => None,
        }
    }

    pub(crate) fn nonce(&self, url: &str) -> Option<String> {
        let htu = htu(url).ok()?;
        self.inner().nonces.get(&htu).cloned()
    }

    pub(crate) fn set_nonce(&self, url: &str, nonce: &str) {
        if let Ok(htu) = htu(url) {
            self.inner().nonces.insert(htu, nonce.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.
    use super::*;
    use jsonwebtoken::jwk::Jwk;
    use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};

    fn verify(proof: &str) -> (Value, Value) {
        let header = decode_header(proof).unwrap();
        let jwk: Jwk =
            serde_json::from_value(serde_json::to_value(header.jwk.as_ref().unwrap()).unwrap())
                .unwrap();
        let key = DecodingKey::from_jwk(&jwk).unwrap();
        let mut v = Validation::new(Algorithm::ES256);
        v.required_spec_claims.clear();
        v.validate_exp = false;
        let claims = decode::<Value>(proof, &key, &v).unwrap().claims;
        let raw = proof.split('.').next().unwrap();
        let header: Value = serde_json::from_slice(&B64.decode(raw).unwrap()).unwrap();
        (header, claims)
    }

    #[test]
    fn proofs_verify_with_their_public_jwk() {
        let key = DpopKey::generate().unwrap();
        let proof = key
            .proof(
                "POST",
                "https://mcp.example/mcp?x=1#f",
                Some("tok"),
                Some("n1"),
            )
            .unwrap();
        let (header, claims) = verify(&proof);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(&header["jwk"], key.public_jwk());
        assert!(header["jwk"].get("d").is_none());
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        assert_eq!(claims["nonce"], "n1");
        // RFC 9449 §4.2: ath = base64url(SHA-256("tok")).
        assert_eq!(claims["ath"], "GnZ0607njffhrEOak8P6jjyUV4TU3sn9jjARc4svHWI");
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        assert!(claims["iat"].as_u64().unwrap().abs_diff(now) < 5);
        // A token request's proof carries neither ath nor an unknown nonce.
        let (_, plain) = verify(&key.proof("POST", "https://as/token", None, None).unwrap());
        assert!(plain.get("ath").is_none() && plain.get("nonce").is_none());
        assert_ne!(plain["jti"], claims["jti"]);
    }

    #[test]
    fn a_tampered_proof_does_not_verify() {
        let key = DpopKey::generate().unwrap();
        let other = DpopKey::generate().unwrap();
        let proof = key
            .proof("GET", "https://mcp.example/mcp", None, None)
            .unwrap();
        let forged = other
            .proof("GET", "https://mcp.example/mcp", None, None)
            .unwrap();
        let mut parts: Vec<&str> = proof.split('.').collect();
        parts[2] = forged.split('.').nth(2).unwrap();
        let jwk: Jwk = serde_json::from_value(key.public_jwk().clone()).unwrap();
        let mut v = Validation::new(Algorithm::ES256);
        v.required_spec_claims.clear();
        v.validate_exp = false;
        let decoding = DecodingKey::from_jwk(&jwk).unwrap();
        assert!(decode::<Value>(&parts.join("."), &decoding, &v).is_err());
    }

    #[test]
    fn thumbprints() {
        // RFC 7638 §3.1's example key and thumbprint.
        let n = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw";
        assert_eq!(
            thumbprint(&[("kty", "RSA"), ("n", n), ("e", "AQAB")]),
            "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        );
        // Our EC thumbprint agrees with jsonwebtoken's.
        let key = DpopKey::generate().unwrap();
        let jwk: Jwk = serde_json::from_value(key.public_jwk().clone()).unwrap();
        assert_eq!(
            jwk.thumbprint(jsonwebtoken::jwk::ThumbprintHash::SHA256),
            key.thumbprint()
        );
        assert!(!format!("{key:?}").contains(key.public_jwk()["x"].as_str().unwrap()));
    }

    #[test]
    fn htu_drops_query_and_fragment() {
        assert_eq!(
            htu("https://AS.example:443/token?a=b#c").unwrap(),
            "https://as.example/token"
        );
        assert_eq!(
            htu("http://127.0.0.1:3000/mcp").unwrap(),
            "http://127.0.0.1:3000/mcp"
        );
        assert!(htu("not a url").is_err());
    }

    #[test]
    fn policy() {
        let none = json!({});
        let es = json!({"dpop_signing_alg_values_supported": ["ES256", "RS256"]});
        let rs_only = json!({"dpop_signing_alg_values_supported": ["RS256"]});
        let required = json!({"dpop_bound_access_tokens_required": true});
        use DpopPolicy::*;
        assert!(!decide(Auto, &none, &none).unwrap());
        assert!(decide(Auto, &none, &es).unwrap());
        assert!(!decide(Auto, &none, &rs_only).unwrap());
        assert!(decide(Auto, &required, &none).unwrap());
        assert!(decide(Auto, &required, &rs_only).is_err());
        assert!(decide(Always, &none, &none).unwrap());
        assert!(decide(Always, &none, &rs_only).is_err());
        assert!(!decide(Never, &none, &es).unwrap());
        assert!(decide(Never, &required, &es).is_err());
        // The resource's own algorithm list counts too.
        assert!(decide(Always, &rs_only, &es).is_err());
        // A malformed list: Bearer when DPoP is optional, an error otherwise.
        let bad = json!({"dpop_signing_alg_values_supported": "ES256"});
        assert!(!decide(Auto, &none, &bad).unwrap());
        assert!(decide(Always, &none, &bad).is_err());
    }

    #[test]
    fn state_binds_keys_and_keeps_nonces() {
        let state = DpopState::default();
        let key = Arc::new(DpopKey::generate().unwrap());
        assert!(state.key_for("t1").is_none());
        state.bind("t1", key.clone());
        assert_eq!(state.key_for("t1").unwrap().thumbprint(), key.thumbprint());
        assert!(state.key_for("t2").is_none());
        state.set_nonce("https://as.example/token?x", "n");
        assert_eq!(
            state.nonce("https://as.example/token").as_deref(),
            Some("n")
        );
        assert!(state.nonce("https://mcp.example/mcp").is_none());
    }
}
