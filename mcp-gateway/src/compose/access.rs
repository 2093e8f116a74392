//! Which requests an `[[access]]` rule applies to: those of one principal
//! (or of any), those whose verified token holds a scope, or those whose
//! token lacks one. A request without a token holds no scope, so a
//! `missing_scope` rule applies to it: a rule meant to keep the write tools
//! from tokens without `files:write` keeps them from anonymous requests too.

use mcp_era_server::{Principal, RequestContext};

/// What an `[[access]]` rule selects its requests by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// The requests of this principal (the OAuth subject with the front's
    /// auth, or what your middleware names); `*`: every request that has
    /// one.
    Principal(String),
    /// The requests whose verified token holds this scope.
    Scope(String),
    /// The requests whose token lacks this scope, requests without a token
    /// included.
    MissingScope(String),
}

impl Selector {
    /// Whether the rule applies to the request of `principal` holding
    /// `scopes`.
    pub(crate) fn applies(&self, principal: Option<&str>, scopes: &[String]) -> bool {
        match self {
            Self::Principal(wanted) => principal.is_some_and(|p| wanted == "*" || wanted == p),
            Self::Scope(scope) => scopes.contains(scope),
            Self::MissingScope(scope) => !scopes.contains(scope),
        }
    }
}

/// The request's principal, if it has one.
pub(crate) fn principal_of(ctx: &RequestContext) -> Option<&str> {
    ctx.http_request()
        .and_then(|request| request.extensions.get::<Principal>())
        .map(|Principal(name)| name.as_str())
}

/// The scopes of the request's verified token (none without a token).
#[cfg(feature = "auth")]
pub(crate) fn scopes_of(ctx: &RequestContext) -> &[String] {
    use mcp_era_server::http::auth::Claims;
    ctx.http_request()
        .and_then(|request| request.extensions.get::<Claims>())
        .map_or(&[], |claims| claims.scopes.as_slice())
}

/// Without the `auth` feature no token is verified, so none is held: a
/// `missing_scope` rule applies to every request (it fails closed).
#[cfg(not(feature = "auth"))]
pub(crate) fn scopes_of(_ctx: &RequestContext) -> &[String] {
    &[]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_selector_picks_its_requests() {
        let write = vec!["files:read".to_owned(), "files:write".to_owned()];
        let read = vec!["files:read".to_owned()];
        let alice = Selector::Principal("alice".into());
        assert!(alice.applies(Some("alice"), &[]));
        assert!(!alice.applies(Some("bob"), &write));
        assert!(!alice.applies(None, &write));
        let anyone = Selector::Principal("*".into());
        assert!(anyone.applies(Some("bob"), &[]));
        assert!(!anyone.applies(None, &[]), "a request with no principal");
        let scope = Selector::Scope("files:write".into());
        assert!(scope.applies(None, &write));
        assert!(!scope.applies(Some("alice"), &read));
        assert!(!scope.applies(None, &[]));
        let missing = Selector::MissingScope("files:write".into());
        assert!(!missing.applies(Some("alice"), &write));
        assert!(missing.applies(Some("alice"), &read));
        assert!(missing.applies(None, &[]), "no token: fails closed");
    }
}
