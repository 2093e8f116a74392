//! Who sent an HTTP request: the principal middleware or a token names,
//! and the address it came from.

/// Who sent an HTTP request, as authentication middleware of your own
/// names it: insert one into the request's extensions and legacy sessions
/// and tasks are bound to it, as they are to a validated token's subject
/// with the `auth` feature. Two requests with the same value are the same
/// caller.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

/// The address an HTTP request came from, for per-address limits. The HTTP
/// listener knows each connection's; an application that mounts
/// [`McpService`](crate::http::McpService) in its own server inserts it
/// among the request's extensions (from axum's `ConnectInfo`, say).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PeerAddr(pub std::net::SocketAddr);

/// The caller of an HTTP request. The HTTP transport resolves it once per
/// request (a `Principal` set by middleware, else with `auth` the validated
/// token's subject, else `client:` and its client) and leaves it among the
/// extensions.
pub(crate) fn principal_in(extensions: &http::Extensions) -> Option<&str> {
    extensions
        .get::<Principal>()
        .map(|Principal(name)| name.as_str())
}
