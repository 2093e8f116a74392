//! `McpService`, the transport as a tower service, and `handle`, which
//! routes a request by path and method (POST, GET stream, DELETE).

use std::convert::Infallible;
use std::future::{Future, Ready, ready};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::FutureExt;
use futures_util::future::Either;
use hyper::{Method, Request, Response, StatusCode};

#[cfg(feature = "auth")]
use super::auth::gate::authenticate;
use super::config::HttpConfig;
#[cfg(feature = "auth")]
use super::config::with_declared_scopes;
use super::guards::{
    GuardLines, RequestBody, host_and_origin, resolve_principal, unsupported_transfer_coding,
};
use super::mcp_headers;
use super::post::post;
#[cfg(feature = "auth")]
use super::response::json_response;
use super::response::{
    Body, closing, error_response, method_not_allowed, session_not_found, status_only,
};
use super::resume::{last_event_id, legacy_get};
use super::sessions::Lookup;
use super::state::{State, store_unavailable, too_many_streams};
use crate::model::context::{PeerAddr, principal_in};
use crate::model::server::McpServer;
use crate::wire::errors;

/// The transport as a [`tower_service::Service`], for mounting MCP in an
/// existing application: `axum::Router::nest_service("/mcp", service)`,
/// tower layers around it (tracing, CORS, timeouts, authentication), or
/// hyper directly. It serves every path it is given (the host routes), with
/// every other rule of this module: Host/Origin checks, media types, the
/// body limit and timeout, legacy sessions (their idle sweep starts with
/// the first request). Connection limits, the header timeout and graceful
/// shutdown belong to whoever owns the listener. Handlers see the request's
/// parts, extensions set by layers included, through
/// [`RequestContext::http_request`](crate::RequestContext::http_request).
pub struct McpService<S> {
    pub(super) state: Arc<State<S>>,
}

impl<S> Clone for McpService<S> {
    fn clone(&self) -> Self {
        Self {
            state: Arc::clone(&self.state),
        }
    }
}

impl<S: McpServer + 'static> McpService<S> {
    /// A service for `server`; `config.listen` and `config.path` are not
    /// used. Refuses a server whose catalogue is invalid, as [`run`](super::run) does.
    pub fn new(server: S, config: HttpConfig) -> io::Result<Self> {
        Self::from_arc(Arc::new(server), config)
    }

    /// Like [`McpService::new`] for a server shared with other code.
    pub fn from_arc(server: Arc<S>, config: HttpConfig) -> io::Result<Self> {
        crate::model::server::check_catalogue(&*server)?;
        #[cfg(feature = "auth")]
        let config = with_declared_scopes(&*server, config);
        Ok(Self {
            state: State::new(server, config, true),
        })
    }
}

impl<S: McpServer + 'static, B: RequestBody> tower_service::Service<Request<B>> for McpService<S> {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let state = Arc::clone(&self.state);
        // The application says where the request came from, if it knows.
        let peer = request.extensions().get::<PeerAddr>().copied();
        Box::pin(handle(state, request, peer))
    }
}

/// Answers one request; with DPoP nonces required, every answer carries the
/// current one (RFC 9449 §9). Never an error: the `Result` is the service's,
/// so callers take this future as it is, without one around it to move the
/// request into.
///
/// Not an `async fn`, nor is [`route`]: hyper keeps a slot the size of
/// this future for every connection, and an `async fn` keeps its
/// arguments beside the future it awaits, so each layer would add the
/// request's head (about 250 bytes) to every idle connection.
pub(super) fn handle<S: McpServer + 'static, B: RequestBody>(
    state: Arc<State<S>>,
    request: Request<B>,
    peer: Option<PeerAddr>,
) -> impl Future<Output = Result<Response<Body>, Infallible>> + Send + 'static {
    #[cfg(feature = "auth")]
    let nonce = state
        .config
        .auth
        .as_ref()
        .and_then(|auth| auth.dpop.as_ref())
        .and_then(|dpop| dpop.current_nonce())
        .and_then(|nonce| hyper::header::HeaderValue::from_str(&nonce).ok());
    route(state, request, peer).map(move |response| {
        #[cfg(feature = "auth")]
        let response = with_nonce(response, nonce);
        Ok(response)
    })
}

/// `response` with the DPoP nonce, unless it has one.
#[cfg(feature = "auth")]
fn with_nonce(
    mut response: Response<Body>,
    nonce: Option<hyper::header::HeaderValue>,
) -> Response<Body> {
    if let Some(nonce) = nonce {
        response
            .headers_mut()
            .entry(super::auth::gate::DPOP_NONCE)
            .or_insert(nonce);
    }
    response
}

/// What [`route`] made of a request: an answer at once, or the future
/// that makes it (a POST's inline, the rest boxed).
type Routed<P> = Either<Ready<Response<Body>>, Either<P, BoxedAnswer>>;

type BoxedAnswer = Pin<Box<dyn Future<Output = Response<Body>> + Send>>;

/// Routes one request: guards first (transfer coding, path, Host and
/// Origin, bearer auth), then POST, the legacy GET stream, or DELETE.
fn route<S: McpServer + 'static, B: RequestBody>(
    state: Arc<State<S>>,
    request: Request<B>,
    peer: Option<PeerAddr>,
) -> Routed<impl Future<Output = Response<Body>> + Send + 'static> {
    let answer = |response| Either::Left(ready(response));
    let config = &state.config;
    let lines = GuardLines::scan(request.headers());
    if let Some(refused) = unsupported_transfer_coding(request.headers(), &lines) {
        return answer(refused);
    }
    // Answers given before the body is read close the connection.
    let unread_body = !hyper::body::Body::is_end_stream(request.body());
    let closing_if_unread = move |response| {
        if unread_body {
            closing(response)
        } else {
            response
        }
    };
    let refuse = |response| answer(closing_if_unread(response));
    #[cfg(feature = "auth")]
    if let Some(auth) = &config.auth
        && request.method() == Method::GET
        && auth
            .metadata_paths()
            .iter()
            .any(|p| p == request.uri().path())
    {
        return answer(json_response(200, &auth.metadata()));
    }
    if !state.any_path && request.uri().path() != config.path {
        return refuse(status_only(StatusCode::NOT_FOUND));
    }
    state.start_background();
    if let Some(refused) = host_and_origin(config, &state.rejected_log, &request, &lines) {
        return refuse(refused);
    }
    // Authentication awaits (keys, introspection): boxed, so that servers
    // without it carry none of its future.
    #[cfg(feature = "auth")]
    if config.auth.is_some() {
        return Either::Right(Either::Right(Box::pin(async move {
            let checked = match &state.config.auth {
                Some(auth) => authenticate(auth, request).await,
                None => Ok(request),
            };
            match checked {
                Ok(request) => authenticated(state, request, peer).await,
                // The client's next request (the metadata fetch, usually)
                // must not be sent on this connection.
                Err(refused) => closing_if_unread(refused),
            }
        })));
    }
    Either::Right(authenticated(state, request, peer))
}

/// A request past the guards: POST, or the legacy GET stream or DELETE.
fn authenticated<S: McpServer + 'static, B: RequestBody>(
    state: Arc<State<S>>,
    mut request: Request<B>,
    peer: Option<PeerAddr>,
) -> Either<impl Future<Output = Response<Body>> + Send + 'static, BoxedAnswer> {
    // The caller, resolved once (after authentication) for everything below.
    resolve_principal(request.extensions_mut());
    if *request.method() == Method::POST {
        // The head goes on shared, so the layers below pass a pointer.
        let (parts, body) = request.into_parts();
        return Either::Left(post(state, Arc::new(parts), body, peer));
    }
    let session_id = mcp_headers::session_id(request.headers());
    // Boxed: inline, the stream's future would grow every POST's.
    Either::Right(Box::pin(get_or_delete(state, request, session_id)))
}

/// A legacy session's GET stream or DELETE.
async fn get_or_delete<S: McpServer + 'static, B: RequestBody>(
    state: Arc<State<S>>,
    request: Request<B>,
    session_id: Result<Option<String>, String>,
) -> Response<Body> {
    let caller = principal_in(request.extensions());
    let session_id = match session_id {
        Ok(id) => id,
        Err(reason) => return error_response(400, None, errors::invalid_request(reason)),
    };
    match *request.method() {
        Method::GET => match session_id {
            None => method_not_allowed(),
            Some(id) => match state.sessions.session(&id, caller).await {
                Lookup::NotFound => session_not_found(None),
                Lookup::Unavailable(error) => store_unavailable(None, &error),
                Lookup::Found(session) => match state.streams.admit(caller) {
                    Ok(permit) => {
                        let resume = last_event_id(request.headers());
                        legacy_get::<S>(&state, &id, session, permit, resume.as_deref()).await
                    }
                    Err(refusal) => too_many_streams(&state, None, refusal),
                },
            },
        },
        Method::DELETE => match session_id {
            None => method_not_allowed(),
            Some(id) => match state.sessions.session(&id, caller).await {
                Lookup::NotFound => session_not_found(None),
                Lookup::Unavailable(error) => store_unavailable(None, &error),
                Lookup::Found(_) => match state.sessions.delete_session(&id).await {
                    Ok(true) => {
                        tracing::info!(session = %id, "legacy session ended by DELETE");
                        status_only(StatusCode::OK)
                    }
                    Ok(false) => session_not_found(None),
                    Err(error) => store_unavailable(None, &error),
                },
            },
        },
        _ => method_not_allowed(),
    }
}
