//! Tests of [`SigningKey`]: key parsing, algorithm choice and refusal,
//! the assertion's header and claims (verified with the public key).

use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde_json::Value;

use super::*;

// Throwaway keys generated for these tests with `openssl genpkey`.
pub(crate) const P256: &str = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgkj2D/uU0dSES8onz\noXcAhS/q1TXBA4QmJnWGmnyrPcKhRANCAATPQHi0mLn+fazB8L6T+FrS8qhQHdt/\nG9aqfTHalumUoQrxCZ/T+fCkqdLobHy1jokFEpEuj3AJFxIiJUmbv2Nh\n-----END PRIVATE KEY-----\n";
pub(crate) const P256_PUBLIC: &str = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEz0B4tJi5/n2swfC+k/ha0vKoUB3b\nfxvWqn0x2pbplKEK8Qmf0/nwpKnS6Gx8tY6JBRKRLo9wCRcSIiVJm79jYQ==\n-----END PUBLIC KEY-----\n";
const P384: &str = "-----BEGIN PRIVATE KEY-----\nMIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDAc/ni1i5wV7rdf4+ts\nqY2EqdzWpfGfcdbSudgLDofSkMawMi7xhgm76AgkkesKnBShZANiAATvLGQy+u8P\nlTBNOBA+7OaG2dPFDawCeXldxo3n90EkdtMuCpxsKpsTr1EjN+vqdSx8cV8ru8tQ\nGi/TTtRxW3tXb8zbeqJLGagXWNsioxjQbQwW+sdbwkfzLxgEM2/kbHc=\n-----END PRIVATE KEY-----\n";
const ED25519: &str = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEICDP7WpRSiFlC2AU3jGHbsL8LZUEXS7Uk4Rgv0rMoFLH\n-----END PRIVATE KEY-----\n";
const ED25519_PUBLIC: &str = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAs7j0z26L6ETTYPvmvUusfjFrBs2yGE4oNbGH8cReArk=\n-----END PUBLIC KEY-----\n";
const JWK_P256: &str = r#"{"kty":"EC","crv":"P-256","kid":"k1","d":"fpO4hJE9UkEGjdf2XTHUnsELu9jfGtFDewVbEYtHOIA","x":"fCdvmIiIFxkKx3zhrl4P105jJ1sGXZvVMxYoYnu4rgo","y":"cCtZsYi0mad71ASvV87NADhbVr2xapd72KtuJ7rX1tw"}"#;

fn claims(jwt: &str, key: &DecodingKey, alg: Algorithm, aud: &str) -> Value {
    let mut v = Validation::new(alg);
    v.set_audience(&[aud]);
    v.set_required_spec_claims(&["exp", "iat", "iss", "sub", "aud"]);
    match decode::<Value>(jwt, key, &v) {
        Ok(data) => data.claims,
        Err(e) => panic!("the assertion does not verify: {e}"),
    }
}

#[test]
fn p256_pem_assertion_has_the_rfc7523_claims() -> Result<(), AuthError> {
    let key = SigningKey::from_pem(P256, None)?;
    let jwt = key.client_assertion("client-1", "https://as.example", None)?;
    let header = decode_header(&jwt).map_err(|e| AuthError(e.to_string()))?;
    assert_eq!(header.alg, Algorithm::ES256);
    let public =
        DecodingKey::from_ec_pem(P256_PUBLIC.as_bytes()).map_err(|e| AuthError(e.to_string()))?;
    let c = claims(&jwt, &public, Algorithm::ES256, "https://as.example");
    assert_eq!(c["iss"], "client-1");
    assert_eq!(c["sub"], "client-1");
    assert_eq!(c["aud"], "https://as.example");
    let (iat, exp) = (
        c["iat"].as_u64().unwrap_or(0),
        c["exp"].as_u64().unwrap_or(0),
    );
    assert!(
        iat > 0 && exp > iat && exp - iat <= 300,
        "short lifetime: {iat}..{exp}"
    );
    assert!(c["jti"].as_str().is_some_and(|j| j.len() >= 16));
    // A fresh jti every time.
    let again = key.client_assertion("client-1", "https://as.example", None)?;
    let c2 = claims(&again, &public, Algorithm::ES256, "https://as.example");
    assert_ne!(c["jti"], c2["jti"]);
    Ok(())
}

#[test]
fn algorithm_is_chosen_from_the_server_list() -> Result<(), AuthError> {
    let p384 = SigningKey::from_pem(P384, None)?;
    assert_eq!(p384.algs, vec![Algorithm::ES384]);
    let supported = vec!["RS256".to_owned(), "ES384".to_owned()];
    assert_eq!(p384.choose(Some(&supported))?, Algorithm::ES384);
    let only_es256 = vec!["ES256".to_owned()];
    let err = p384
        .choose(Some(&only_es256))
        .err()
        .map(|e| e.0)
        .unwrap_or_default();
    assert!(err.contains("ES256"), "{err}");
    Ok(())
}

#[test]
fn ed25519_pem_signs_eddsa() -> Result<(), AuthError> {
    let key = SigningKey::from_pem(ED25519, None)?.with_kid("ed-1");
    let jwt = key.client_assertion("c", "https://as.example/", None)?;
    let header = decode_header(&jwt).map_err(|e| AuthError(e.to_string()))?;
    assert_eq!(
        (header.alg, header.kid.as_deref()),
        (Algorithm::EdDSA, Some("ed-1"))
    );
    let public = DecodingKey::from_ed_pem(ED25519_PUBLIC.as_bytes())
        .map_err(|e| AuthError(e.to_string()))?;
    claims(&jwt, &public, Algorithm::EdDSA, "https://as.example/");
    Ok(())
}

#[test]
fn jwk_p256_signs_and_keeps_its_kid() -> Result<(), AuthError> {
    let key = SigningKey::from_jwk(JWK_P256, None)?;
    let jwt = key.client_assertion("c", "https://as.example", Some(&["ES256".to_owned()]))?;
    let header = decode_header(&jwt).map_err(|e| AuthError(e.to_string()))?;
    assert_eq!(header.kid.as_deref(), Some("k1"));
    let jwk: Value = serde_json::from_str(JWK_P256).map_err(|e| AuthError(e.to_string()))?;
    let public = DecodingKey::from_ec_components(
        jwk["x"].as_str().unwrap_or_default(),
        jwk["y"].as_str().unwrap_or_default(),
    )
    .map_err(|e| AuthError(e.to_string()))?;
    claims(&jwt, &public, Algorithm::ES256, "https://as.example");
    Ok(())
}

fn error_of(r: Result<SigningKey, AuthError>) -> String {
    match r {
        Ok(k) => panic!("accepted: {k:?}"),
        Err(e) => e.0,
    }
}

#[test]
fn bad_keys_and_algorithms_are_refused() {
    assert!(error_of(SigningKey::from_pem("not a key", None)).contains("PKCS#8 PEM"));
    assert!(error_of(SigningKey::from_pem(P256, Some("none"))).contains("`none` is not allowed"));
    assert!(error_of(SigningKey::from_pem(P256, Some("HS256"))).contains("symmetric"));
    assert!(error_of(SigningKey::from_pem(P256, Some("XX999"))).contains("unsupported"));
    assert!(error_of(SigningKey::from_pem(P256, Some("RS256"))).contains("cannot sign with RS256"));
    assert!(error_of(SigningKey::from_jwk("{", None)).contains("not JSON"));
    assert!(
        error_of(SigningKey::from_jwk(
            r#"{"kty":"EC","crv":"P-256","x":"a"}"#,
            None
        ))
        .contains("no private part")
    );
    assert!(
        error_of(SigningKey::from_jwk(r#"{"kty":"RSA","d":"AQAB"}"#, None))
            .contains("unsupported JWK")
    );
    assert!(
        error_of(SigningKey::from_jwk(
            r#"{"kty":"EC","crv":"P-256","d":"AQAB"}"#,
            None
        ))
        .contains("bytes")
    );
    assert!(
        error_of(SigningKey::from_jwk(
            r#"{"kty":"EC","crv":"P-256","d":"!!"}"#,
            None
        ))
        .contains("base64url")
    );
}

#[test]
fn debug_never_shows_the_key() -> Result<(), AuthError> {
    let key = SigningKey::from_jwk(JWK_P256, None)?;
    let shown = format!("{key:?}");
    assert!(
        !shown.contains("fpO4") && shown.contains("ES256"),
        "{shown}"
    );
    Ok(())
}
