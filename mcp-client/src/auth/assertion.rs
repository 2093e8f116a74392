//! [`SigningKey`] and the JWT the client signs with it: the
//! `private_key_jwt` client assertion (RFC 7523 §2.2, claims per §3).

use std::fmt;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use super::error::{AuthError, fail};

/// `client_assertion_type` of a JWT client assertion (RFC 7523 §2.2).
pub(super) const JWT_ASSERTION_TYPE: &str =
    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How long an assertion is valid: RFC 7523 §3 wants a short window.
const LIFETIME_SECS: u64 = 60;

/// The asymmetric algorithms a client assertion may use, in the order
/// tried when neither the key nor the server names one.
const ASYMMETRIC: [Algorithm; 9] = [
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
];

/// A private key for `private_key_jwt`: PKCS#8 PEM (EC P-256/P-384,
/// Ed25519, RSA) or a private JWK (EC P-256/P-384, OKP Ed25519). Its
/// `Debug` shows the algorithms and `kid`, never the key.
#[derive(Clone)]
pub struct SigningKey {
    key: EncodingKey,
    /// The algorithms this key can sign with (one when fixed by the caller).
    algs: Vec<Algorithm>,
    kid: Option<String>,
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("algs", &self.algs)
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

/// Parses an algorithm name, refusing `none` and the symmetric ones.
pub fn parse_alg(name: &str) -> Result<Algorithm, AuthError> {
    if name.eq_ignore_ascii_case("none") {
        return fail("signing algorithm `none` is not allowed: a client assertion must be signed");
    }
    let alg = Algorithm::from_str(name)
        .map_err(|_| AuthError(format!("unsupported signing algorithm `{name}`")))?;
    if !ASYMMETRIC.contains(&alg) {
        return fail(format!(
            "signing algorithm `{name}` is symmetric; private_key_jwt needs an asymmetric one"
        ));
    }
    Ok(alg)
}

impl SigningKey {
    /// A key from PKCS#8 PEM; `alg` fixes the algorithm (else it is chosen
    /// from what the authorization server supports).
    pub fn from_pem(pem: &str, alg: Option<&str>) -> Result<Self, AuthError> {
        let bytes = pem.as_bytes();
        let key = EncodingKey::from_ec_pem(bytes)
            .or_else(|_| EncodingKey::from_ed_pem(bytes))
            .or_else(|_| EncodingKey::from_rsa_pem(bytes))
            .map_err(|_| {
                AuthError(
                    "the private key is not a PKCS#8 PEM EC, Ed25519 or RSA private key".into(),
                )
            })?;
        Self::with_algs(key, alg, None)
    }

    /// A key from a private JWK (JSON text): `kty` EC (`crv` P-256 or
    /// P-384) or OKP (`crv` Ed25519). Its `alg` and `kid` are used unless
    /// `alg` is given.
    pub fn from_jwk(jwk: &str, alg: Option<&str>) -> Result<Self, AuthError> {
        let jwk: Value = serde_json::from_str(jwk)
            .map_err(|e| AuthError(format!("the JWK is not JSON: {e}")))?;
        let field = |name: &str| jwk.get(name).and_then(Value::as_str);
        let Some(d) = field("d") else {
            return fail("the JWK has no private part (`d`)");
        };
        let d = URL_SAFE_NO_PAD
            .decode(d)
            .map_err(|_| AuthError("the JWK's `d` is not base64url".into()))?;
        let der = match (field("kty"), field("crv")) {
            (Some("EC"), Some("P-256")) => pkcs8(P256_PREFIX, &d, 32)?,
            (Some("EC"), Some("P-384")) => pkcs8(P384_PREFIX, &d, 48)?,
            (Some("OKP"), Some("Ed25519")) => pkcs8(ED25519_PREFIX, &d, 32)?,
            (kty, crv) => {
                return fail(format!(
                    "unsupported JWK (kty {}, crv {}): use EC P-256/P-384 or OKP Ed25519, or a PEM key",
                    kty.unwrap_or("missing"),
                    crv.unwrap_or("missing")
                ));
            }
        };
        let key = match field("kty") {
            Some("OKP") => EncodingKey::from_ed_der(&der),
            _ => EncodingKey::from_ec_der(&der),
        };
        Self::with_algs(key, alg.or(field("alg")), field("kid").map(str::to_owned))
    }

    /// Sets the `kid` header of the assertions.
    pub fn with_kid(mut self, kid: impl Into<String>) -> Self {
        self.kid = Some(kid.into());
        self
    }

    /// The algorithms the key can sign with, found by signing a probe.
    fn with_algs(
        key: EncodingKey,
        alg: Option<&str>,
        kid: Option<String>,
    ) -> Result<Self, AuthError> {
        let signs =
            |alg: Algorithm| jsonwebtoken::encode(&Header::new(alg), &json!({}), &key).is_ok();
        let algs: Vec<Algorithm> = match alg {
            Some(name) => {
                let alg = parse_alg(name)?;
                if !signs(alg) {
                    return fail(format!("the private key cannot sign with {name}"));
                }
                vec![alg]
            }
            None => ASYMMETRIC.into_iter().filter(|a| signs(*a)).collect(),
        };
        if algs.is_empty() {
            return fail("the private key signs with none of the supported algorithms");
        }
        Ok(Self { key, algs, kid })
    }

    /// The algorithm to use with a server advertising `supported`
    /// (`token_endpoint_auth_signing_alg_values_supported`, if any).
    pub(super) fn choose(&self, supported: Option<&[String]>) -> Result<Algorithm, AuthError> {
        let Some(supported) = supported else {
            return Ok(self.algs[0]);
        };
        let offered: Vec<Algorithm> = supported.iter().filter_map(|s| parse_alg(s).ok()).collect();
        self.algs
            .iter()
            .copied()
            .find(|a| offered.contains(a))
            .ok_or_else(|| {
                AuthError(format!(
                    "the authorization server accepts {} for client assertions; the key signs with {:?}",
                    supported.join(", "),
                    self.algs
                ))
            })
    }

    /// A client assertion (RFC 7523 §3): `iss` = `sub` = the client id,
    /// `aud` = the authorization server, a short `exp`, `iat`, a fresh `jti`.
    pub(super) fn client_assertion(
        &self,
        client_id: &str,
        audience: &str,
        supported: Option<&[String]>,
    ) -> Result<String, AuthError> {
        let alg = self.choose(supported)?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + LIFETIME_SECS,
            "jti": oauth2::CsrfToken::new_random().secret(),
        });
        let mut header = Header::new(alg);
        header.kid.clone_from(&self.kid);
        jsonwebtoken::encode(&header, &claims, &self.key)
            .map_err(|e| AuthError(format!("signing the client assertion failed: {e}")))
    }
}

// PKCS#8 PrivateKeyInfo prefixes (RFC 5208, RFC 5915, RFC 8410) up to the
// private key octets; the key bytes follow.
const P256_PREFIX: &[u8] = &[
    0x30, 0x41, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
    0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x04, 0x27, 0x30, 0x25, 0x02, 0x01,
    0x01, 0x04, 0x20,
];
const P384_PREFIX: &[u8] = &[
    0x30, 0x4e, 0x02, 0x01, 0x00, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
    0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22, 0x04, 0x37, 0x30, 0x35, 0x02, 0x01, 0x01, 0x04, 0x30,
];
const ED25519_PREFIX: &[u8] = &[
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

fn pkcs8(prefix: &[u8], d: &[u8], len: usize) -> Result<Vec<u8>, AuthError> {
    if d.len() != len {
        return fail(format!(
            "the JWK's `d` has {} bytes; the curve needs {len}",
            d.len()
        ));
    }
    Ok([prefix, d].concat())
}

#[cfg(test)]
pub(super) mod tests;
