//! The proof's `jwk` header (RFC 9449 §4.3 steps 6–7): a public key only,
//! of the family and curve its `alg` names, and its RFC 7638 thumbprint
//! (the value a bound token's `cnf.jkt` holds, RFC 9449 §6.1).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Members that only a private (or symmetric) key has.
const PRIVATE_MEMBERS: [&str; 8] = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/// RSA keys shorter than this (bits) are refused.
const MIN_RSA_BITS: usize = 2048;

/// The key to verify with and its thumbprint, or why the `jwk` is refused.
pub(crate) fn public_key(jwk: &Value, alg: Algorithm) -> Result<(DecodingKey, String), String> {
    let Value::Object(members) = jwk else {
        return Err("the jwk header is not a JSON object".into());
    };
    if let Some(private) = PRIVATE_MEMBERS.iter().find(|m| members.contains_key(**m)) {
        return Err(format!("the jwk holds private key material ({private})"));
    }
    let text = |name: &str| -> Result<&str, String> {
        members
            .get(name)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| format!("the jwk lacks `{name}`"))
    };
    let kty = text("kty")?;
    // RFC 7638 §3.2: the required members, sorted, no whitespace.
    let canonical = match (alg, kty) {
        (Algorithm::ES256 | Algorithm::ES384, "EC") => {
            let crv = text("crv")?;
            let wanted = if alg == Algorithm::ES256 {
                "P-256"
            } else {
                "P-384"
            };
            if crv != wanted {
                return Err(format!("{alg:?} needs curve {wanted}, the jwk has {crv}"));
            }
            canonical_json(&[
                ("crv", crv),
                ("kty", kty),
                ("x", text("x")?),
                ("y", text("y")?),
            ])
        }
        (Algorithm::EdDSA, "OKP") => {
            let crv = text("crv")?;
            if crv != "Ed25519" {
                return Err(format!("EdDSA needs curve Ed25519, the jwk has {crv}"));
            }
            canonical_json(&[("crv", crv), ("kty", kty), ("x", text("x")?)])
        }
        (
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512,
            "RSA",
        ) => {
            let n = text("n")?;
            let bits = URL_SAFE_NO_PAD
                .decode(n)
                .map_err(|_| "the jwk's `n` is not base64url".to_owned())?
                .iter()
                .skip_while(|b| **b == 0)
                .count()
                * 8;
            if bits < MIN_RSA_BITS {
                return Err(format!("the RSA key is shorter than {MIN_RSA_BITS} bits"));
            }
            canonical_json(&[("e", text("e")?), ("kty", kty), ("n", n)])
        }
        (alg, kty) => return Err(format!("a {kty} key cannot sign {alg:?}")),
    };
    let parsed: Jwk = serde_json::from_value(Value::Object(public_members(members)))
        .map_err(|e| format!("the jwk is malformed: {e}"))?;
    let key = DecodingKey::from_jwk(&parsed).map_err(|e| format!("the jwk is unusable: {e}"))?;
    Ok((key, URL_SAFE_NO_PAD.encode(Sha256::digest(canonical))))
}

/// The key members the decoder reads (others, like `use`, are dropped so
/// that an odd value there cannot fail parsing).
fn public_members(members: &Map<String, Value>) -> Map<String, Value> {
    ["kty", "crv", "x", "y", "n", "e"]
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), members.get(*name)?.clone())))
        .collect()
}

fn canonical_json(pairs: &[(&str, &str)]) -> String {
    let body: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}:{}", Value::from(*k), Value::from(*v)))
        .collect();
    format!("{{{}}}", body.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_thumbprint_is_rfc_7638s_example() {
        // RFC 7638 §3.1: the RSA key and its SHA-256 thumbprint.
        let jwk = json!({"kty": "RSA", "e": "AQAB", "alg": "RS256", "kid": "2011-04-29",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"});
        let (_, thumbprint) = public_key(&jwk, Algorithm::RS256).unwrap();
        assert_eq!(thumbprint, "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs");
    }

    #[test]
    fn private_parts_wrong_curves_and_families_are_refused() {
        let ec = json!({"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA", "d": "AA"});
        assert!(
            public_key(&ec, Algorithm::ES256)
                .unwrap_err()
                .contains("private")
        );
        let ec = json!({"kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"});
        assert!(
            public_key(&ec, Algorithm::ES256)
                .unwrap_err()
                .contains("curve")
        );
        assert!(
            public_key(&ec, Algorithm::RS256)
                .unwrap_err()
                .contains("cannot sign")
        );
        let bad = json!({"kty": "EC", "crv": "P-256", "x": "!!", "y": "AA"});
        assert!(public_key(&bad, Algorithm::ES256).is_err());
        assert!(public_key(&json!("x"), Algorithm::ES256).is_err());
    }
}
