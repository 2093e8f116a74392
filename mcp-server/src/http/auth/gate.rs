//! The request gate: the `Authorization` header checked before the body is
//! read (token, server-wide scopes), and the per-method scope check once
//! the body is parsed; refusals carry the `WWW-Authenticate` challenge.

use hyper::header::HeaderValue;
use hyper::{Request, Response};

use super::config::AuthConfig;
use super::dpop::proof::{self, Expected, Proof, ProofError};
use super::dpop::{DpopConfig, constant_time_eq};
use super::fetch::split_origin;
use super::token::{Claims, TokenError, now_secs};
use crate::http::response::{Body, error_response};
use crate::wire::errors;
use crate::wire::message::Parsed;

/// How the `Authorization` header presented the token.
enum Presented {
    Nothing,
    Bearer(String),
    /// RFC 9449 §7.1; only when DPoP is configured.
    Dpop(String),
}

fn presented(auth: &AuthConfig, headers: &hyper::HeaderMap) -> Presented {
    let Some((scheme, token)) = headers
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
    else {
        return Presented::Nothing;
    };
    let token = token.trim().to_owned();
    if scheme.eq_ignore_ascii_case("bearer") {
        Presented::Bearer(token)
    } else if scheme.eq_ignore_ascii_case("dpop") && auth.dpop.is_some() {
        Presented::Dpop(token)
    } else {
        Presented::Nothing
    }
}

/// A 401 whose challenges fit the auth settings and the scheme used.
struct Unauthorized<'a> {
    auth: &'a AuthConfig,
    required: Vec<&'a str>,
}

impl Unauthorized<'_> {
    /// No usable token: a `Bearer` challenge (unless DPoP is required) and a
    /// `DPoP` one (when DPoP is on).
    fn nothing(&self) -> Response<Body> {
        let mut challenges = Vec::new();
        if !self.auth.dpop.as_ref().is_some_and(|d| d.required) {
            challenges.push(self.auth.challenge(None, &self.required));
        }
        if self.auth.dpop.is_some() {
            challenges.push(self.auth.dpop_challenge(None, &self.required));
        }
        self.respond(401, challenges, "Unauthorized: a bearer token is required")
    }

    /// A refused token or proof, answered in the scheme it came with.
    fn refused(&self, dpop: bool, error: &str, reason: &str) -> Response<Body> {
        let challenge = if dpop {
            self.auth
                .dpop_challenge(Some((error, reason)), &self.required)
        } else {
            self.auth.challenge(Some((error, reason)), &self.required)
        };
        self.respond(401, vec![challenge], &format!("Unauthorized: {reason}"))
    }

    fn respond(&self, status: u16, challenges: Vec<String>, message: &str) -> Response<Body> {
        let mut response = error_response(status, None, errors::invalid_request(message));
        let headers = response.headers_mut();
        for challenge in challenges {
            if let Ok(value) = HeaderValue::from_str(&challenge) {
                headers.append(hyper::header::WWW_AUTHENTICATE, value);
            }
        }
        // RFC 9449 §9: a nonce may come with any answer.
        if let Some(nonce) = self.auth.dpop.as_ref().and_then(|d| d.current_nonce())
            && let Ok(value) = HeaderValue::from_str(&nonce)
        {
            headers.insert(DPOP_NONCE, value);
        }
        response
    }
}

/// The `DPoP-Nonce` response header (RFC 9449 §8.1, §9).
pub(crate) const DPOP_NONCE: &str = "dpop-nonce";

/// Checks the token (and, under the `DPoP` scheme, its proof) and the
/// server-wide scopes; the claims go into the request's extensions.
pub(crate) async fn authenticate<B>(
    auth: &AuthConfig,
    mut request: Request<B>,
) -> Result<Request<B>, Response<Body>> {
    let required: Vec<&str> = auth.required_scopes.iter().map(String::as_str).collect();
    let refuse = Unauthorized {
        auth,
        required: required.clone(),
    };
    let (token, dpop) = match presented(auth, request.headers()) {
        Presented::Nothing => return Err(refuse.nothing()),
        Presented::Bearer(token) => (token, None),
        Presented::Dpop(token) => (token, auth.dpop.as_ref()),
    };
    // The proof is checked now but remembered only once the token is
    // known good and bound to its key (RFC 9449 §11.1): a stranger's
    // proofs must not fill the replay table.
    let proof = match dpop {
        Some(dpop) => Some(
            check_proof(auth, dpop, &request, &token)
                .map_err(|(error, why)| refuse.refused(true, error, &why))?,
        ),
        None if auth.dpop.as_ref().is_some_and(|d| d.required) => {
            return Err(refuse.refused(
                true,
                "invalid_token",
                "this resource requires DPoP-bound tokens under the DPoP scheme",
            ));
        }
        None => None,
    };
    let claims = match auth.validator.validate(&token).await {
        Ok(claims) => claims,
        Err(TokenError::Invalid(reason)) => {
            return Err(refuse.refused(dpop.is_some(), "invalid_token", &reason));
        }
        Err(TokenError::Unavailable(reason)) => {
            tracing::warn!(%reason, "token validation unavailable");
            return Err(error_response(
                503,
                None,
                errors::internal_error("Token validation is unavailable; try again"),
            ));
        }
    };
    let bound_to = claims
        .raw
        .get("cnf")
        .and_then(|cnf| cnf.get("jkt"))
        .and_then(serde_json::Value::as_str);
    match (proof.as_ref().map(|p| p.thumbprint.as_str()), bound_to) {
        (None, Some(_)) => {
            // RFC 9449 §7.2: a bound token is never a bearer token.
            return Err(refuse.refused(
                auth.dpop.is_some(),
                "invalid_token",
                "a DPoP-bound token needs the DPoP scheme and a proof",
            ));
        }
        (Some(_), None) => {
            return Err(refuse.refused(true, "invalid_token", "the token is not DPoP-bound"));
        }
        (Some(thumbprint), Some(jkt))
            if !constant_time_eq(thumbprint.as_bytes(), jkt.as_bytes()) =>
        {
            return Err(refuse.refused(
                true,
                "invalid_dpop_proof",
                "the proof's key is not the key the token is bound to",
            ));
        }
        _ => {}
    }
    if let (Some(dpop), Some(proof)) = (dpop, &proof) {
        proof::remember(dpop, proof, now_secs()).map_err(|error| {
            let (error, why) = proof_refusal(error);
            refuse.refused(true, error, &why)
        })?;
    }
    let missing = auth.missing(&claims, &auth.required_scopes);
    if !missing.is_empty() {
        let error = Some(("insufficient_scope", "a required scope is missing"));
        let challenge = if dpop.is_some() {
            auth.dpop_challenge(error, &required)
        } else {
            auth.challenge(error, &required)
        };
        return Err(refuse.respond(
            403,
            vec![challenge],
            &format!("Forbidden: missing scope {}", missing.join(" ")),
        ));
    }
    request.extensions_mut().insert(claims);
    Ok(request)
}

/// The one `DPoP` header's proof checked against this request; the error
/// code and description when refused.
fn check_proof<B>(
    auth: &AuthConfig,
    dpop: &DpopConfig,
    request: &Request<B>,
    token: &str,
) -> Result<Proof, (&'static str, String)> {
    let mut proofs = request.headers().get_all("dpop").iter();
    let (Some(proof), None) = (proofs.next(), proofs.next()) else {
        return Err((
            "invalid_dpop_proof",
            "exactly one DPoP header is required".to_owned(),
        ));
    };
    let proof = proof.to_str().map_err(|_| {
        (
            "invalid_dpop_proof",
            "the DPoP header is not text".to_owned(),
        )
    })?;
    // The URI as the server is known publicly: the resource's origin.
    let (origin, _) = split_origin(&auth.resource);
    let uri = format!("{origin}{}", request.uri().path());
    let expected = Expected {
        method: request.method().as_str(),
        uri: &uri,
        token,
    };
    proof::check(dpop, proof, &expected, now_secs()).map_err(proof_refusal)
}

/// The challenge's error code and description for a refused proof.
fn proof_refusal(error: ProofError) -> (&'static str, String) {
    match error {
        ProofError::Invalid(why) => ("invalid_dpop_proof", why),
        ProofError::UseNonce => (
            "use_dpop_nonce",
            "a DPoP nonce from this server is required".to_owned(),
        ),
    }
}

/// A 403 naming every scope the request needs, when its method's
/// capability or its tool needs scopes the token lacks.
pub(crate) fn scope_refusal(
    auth: &AuthConfig,
    parts: &http::request::Parts,
    message: &Parsed,
) -> Option<Response<Body>> {
    let method = message.method()?;
    let needed = auth.scopes_for(method, message.tool_name());
    if needed.is_empty() {
        return None;
    }
    let claims = parts.extensions.get::<Claims>()?;
    let missing = auth.missing(claims, &needed);
    if missing.is_empty() {
        return None;
    }
    let scopes: Vec<&str> = auth
        .required_scopes
        .iter()
        .chain(&needed)
        .map(String::as_str)
        .collect();
    let error = Some(("insufficient_scope", "the request needs more scope"));
    // Answered in the scheme the token came with.
    let challenge = match presented(auth, &parts.headers) {
        Presented::Dpop(_) => auth.dpop_challenge(error, &scopes),
        _ => auth.challenge(error, &scopes),
    };
    Some(auth_refusal(
        403,
        challenge,
        &format!("Forbidden: {method} needs scope {}", missing.join(" ")),
    ))
}

pub(crate) fn auth_refusal(status: u16, challenge: String, message: &str) -> Response<Body> {
    let mut response = error_response(status, None, errors::invalid_request(message));
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(hyper::header::WWW_AUTHENTICATE, value);
    }
    response
}
