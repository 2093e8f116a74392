//! What the transport keeps between requests: the server, the settings,
//! this instance's id, rate-limited logs, stream admission and the legacy
//! session table (`sessions.rs`); and the answers built from them.

use std::sync::Arc;

use hyper::Response;
use hyper::header::HeaderValue;
use mcp_era_types::headers::MCP_SESSION_ID;
use mcp_era_types::v2026_07_28::RequestId;

use super::config::HttpConfig;
use super::log_limit::LogLimiter;
use super::response::{Body, closing, error_response, plain_response};
use super::sessions::{OpenError, SessionTable, follow_bus, sweep_sessions_every};
use super::streams;
use crate::model::outcome::Outcome;
use crate::state::sessions::StoreError;
use crate::wire::errors;

/// What every request of one server shares: the server, the settings,
/// the legacy sessions, stream admission and rate-limited logs.
pub(super) struct State<S> {
    pub(super) server: Arc<S>,
    pub(super) config: HttpConfig,
    /// Serve every path (mounted as a service, the host routes).
    pub(super) any_path: bool,
    /// The legacy sessions (an `Arc` for the background tasks).
    pub(super) sessions: Arc<SessionTable>,
    pub(super) background: std::sync::Once,
    pub(super) limit_log: LogLimiter,
    pub(super) rejected_log: LogLimiter,
    pub(super) store_log: LogLimiter,
    pub(super) streams: Arc<streams::StreamLimits>,
}

impl<S> State<S> {
    pub(super) fn new(server: Arc<S>, config: HttpConfig, any_path: bool) -> Arc<Self> {
        let streams =
            streams::StreamLimits::new(config.max_streams, config.max_streams_per_principal);
        let sessions = Arc::new(SessionTable::new(&config));
        Arc::new(State {
            server,
            config,
            streams,
            any_path,
            sessions,
            background: std::sync::Once::new(),
            limit_log: LogLimiter::default(),
            rejected_log: LogLimiter::default(),
            store_log: LogLimiter::default(),
        })
    }

    /// Starts, on the first request (inside the runtime), the idle-session
    /// sweep and, with a shared session store, the subscription to the
    /// other instances; both end once the transport is gone.
    pub(super) fn start_background(self: &Arc<Self>) {
        self.background.call_once(|| {
            let table = Arc::downgrade(&self.sessions);
            tokio::spawn(sweep_sessions_every(table.clone()));
            if let Some(bus) = self.sessions.store.listen(&self.sessions.instance) {
                tokio::spawn(follow_bus(table, bus));
            }
        });
    }
}

/// 429 for a stream past its cap, closing the connection: a client that
/// floods streams must not keep the connections either.
pub(super) fn too_many_streams<S>(
    state: &State<S>,
    id: Option<&RequestId>,
    refusal: streams::Refusal,
) -> Response<Body> {
    if let Some(suppressed) = state.limit_log.allow() {
        tracing::warn!(?refusal, suppressed, "stream cap reached; stream refused");
    }
    let mut response = closing(error_response(
        429,
        id,
        errors::internal_error(refusal.message()),
    ));
    response
        .headers_mut()
        .insert(hyper::header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// 503 when the session store cannot answer: a JSON-RPC `-32603` naming
/// the failure, `Retry-After: 1`.
pub(super) fn store_unavailable(id: Option<&RequestId>, error: &StoreError) -> Response<Body> {
    let mut response = error_response(
        503,
        id,
        errors::internal_error(format!("The session store is unavailable: {error}")),
    );
    response
        .headers_mut()
        .insert(hyper::header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// The HTTP answer of a JSON outcome; a successful `initialize` opens its
/// session here and names it in `Mcp-Session-Id`.
pub(super) async fn outcome_response<S>(
    state: &State<S>,
    mut outcome: Outcome,
    principal: Option<String>,
) -> Response<Body> {
    // Only a new session needs the id again (for its error); read it first.
    let request_id: Option<RequestId> = outcome
        .new_legacy_session
        .as_ref()
        .and_then(|_| outcome.json())
        .and_then(|body| serde_json::from_value(body.get("id")?.clone()).ok());
    let session = outcome.new_legacy_session.take();
    let mut response = plain_response(outcome);
    if let Some(session) = session {
        let version = session.protocol_version.clone();
        let id = match state.sessions.open_session(*session, principal).await {
            Ok(id) => id,
            Err(OpenError::Randomness(error)) => {
                tracing::error!(%error, "no OS randomness for a session id");
                let error = errors::internal_error("Cannot create a session: no OS randomness");
                return error_response(500, request_id.as_ref(), error);
            }
            Err(OpenError::Store(error)) => {
                if let Some(suppressed) = state.store_log.allow() {
                    tracing::warn!(%error, suppressed, "session store: a session could not be opened");
                }
                return store_unavailable(request_id.as_ref(), &error);
            }
        };
        tracing::info!(session = %id, %version, "legacy session started");
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(MCP_SESSION_ID, value);
        }
    }
    response
}
