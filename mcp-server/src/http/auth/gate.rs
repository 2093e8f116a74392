//! The request gate: the `Authorization` header checked before the body is
//! read (token, server-wide scopes), and the per-method scope check once
//! the body is parsed; refusals carry the `WWW-Authenticate` challenge.

use hyper::header::HeaderValue;
use hyper::{Request, Response};

use super::config::AuthConfig;
use super::token::{Claims, TokenError};
use crate::http::response::{Body, error_response};
use crate::wire::errors;
use crate::wire::message::Parsed;

/// Checks the bearer token and the server-wide scopes; the claims go into
/// the request's extensions.
pub(crate) async fn authenticate<B>(
    auth: &AuthConfig,
    mut request: Request<B>,
) -> Result<Request<B>, Response<Body>> {
    let required: Vec<&str> = auth.required_scopes.iter().map(String::as_str).collect();
    let token = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim().to_owned());
    let Some(token) = token else {
        return Err(auth_refusal(
            401,
            auth.challenge(None, &required),
            "Unauthorized: a bearer token is required",
        ));
    };
    let claims = match auth.validator.validate(&token).await {
        Ok(claims) => claims,
        Err(TokenError::Invalid(reason)) => {
            return Err(auth_refusal(
                401,
                auth.challenge(Some(("invalid_token", &reason)), &required),
                &format!("Unauthorized: {reason}"),
            ));
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
    let missing = auth.missing(&claims, &auth.required_scopes);
    if !missing.is_empty() {
        return Err(auth_refusal(
            403,
            auth.challenge(
                Some(("insufficient_scope", "a required scope is missing")),
                &required,
            ),
            &format!("Forbidden: missing scope {}", missing.join(" ")),
        ));
    }
    request.extensions_mut().insert(claims);
    Ok(request)
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
    Some(auth_refusal(
        403,
        auth.challenge(
            Some(("insufficient_scope", "the request needs more scope")),
            &scopes,
        ),
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
