//! What the transport keeps between requests: the server, the settings,
//! rate-limited logs, and the legacy session table (admit, look up, end,
//! idle sweep) with its streams and its requests in flight.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::header::HeaderValue;
use hyper::{Response, StatusCode};
use mcp_era_types::headers::MCP_SESSION_ID;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::config::HttpConfig;
use super::log_limit::LogLimiter;
use super::response::{
    AbortOnDrop, Body, closing, error_response, json_bytes_response, json_response, status_only,
};
use super::sse::{sse_frame, sse_response};
use super::streams;
use crate::model::context::LegacySession;
use crate::model::outcome::Outcome;
use crate::model::peer::ClientPeer;
use crate::model::server::McpServer;
use crate::runtime::in_flight::InFlight;
use crate::runtime::legacy_events::forward_legacy_events;
use crate::wire::errors;

/// Ends idle legacy sessions in the background (never on a request's
/// path), every half idle timeout, at least every minute.
pub(super) async fn sweep_sessions_every<S>(state: Weak<State<S>>) {
    loop {
        let period = match state.upgrade() {
            Some(state) => (state.config.session_idle_timeout / 2)
                .clamp(Duration::from_millis(100), Duration::from_secs(60)),
            None => return,
        };
        tokio::time::sleep(period).await;
        match state.upgrade() {
            Some(state) => state.end_idle_sessions(),
            None => return,
        }
    }
}

/// One legacy session: what `initialize` agreed, its client peer, its
/// GET stream and its requests in flight.
pub(super) struct Session {
    pub(super) session: LegacySession,
    pub(super) peer: ClientPeer,
    pub(super) last_seen: Mutex<Instant>,
    /// Whether a request after `initialize` named this session.
    pub(super) used: AtomicBool,
    /// Who opened it (the token's subject or client, with `auth`): only
    /// requests of the same principal may use it.
    pub(super) principal: Option<String>,
    pub(super) in_flight: Arc<InFlight>,
    pub(super) stream: Mutex<Option<AbortHandle>>,
}

impl Session {
    pub(super) fn end(&self) {
        self.peer.close();
        if let Some(stream) = self
            .stream
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            stream.abort();
        }
        self.in_flight.abort_all(false);
    }

    pub(super) fn seen(&self) -> Instant {
        *self
            .last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// The live legacy sessions, and the ids of those not used yet, oldest
/// first (the first to go when the table is full).
#[derive(Default)]
pub(super) struct Sessions {
    pub(super) by_id: HashMap<String, Arc<Session>>,
    pub(super) unused: VecDeque<String>,
}

/// What every request of one server shares: the server, the settings,
/// the legacy sessions, stream admission and rate-limited logs.
pub(super) struct State<S> {
    pub(super) server: Arc<S>,
    pub(super) config: HttpConfig,
    /// Serve every path (mounted as a service, the host routes).
    pub(super) any_path: bool,
    pub(super) sessions: Mutex<Sessions>,
    pub(super) sweeper: std::sync::Once,
    pub(super) limit_log: LogLimiter,
    pub(super) rejected_log: LogLimiter,
    pub(super) streams: Arc<streams::StreamLimits>,
}

impl<S: Send + Sync + 'static> State<S> {
    pub(super) fn new(server: Arc<S>, config: HttpConfig, any_path: bool) -> Arc<Self> {
        let streams =
            streams::StreamLimits::new(config.max_streams, config.max_streams_per_principal);
        Arc::new(State {
            server,
            config,
            streams,
            any_path,
            sessions: Mutex::default(),
            sweeper: std::sync::Once::new(),
            limit_log: LogLimiter::default(),
            rejected_log: LogLimiter::default(),
        })
    }

    /// Starts the idle-session sweep on the first request (inside the
    /// runtime); it ends once the transport is gone.
    pub(super) fn start_sweeper(self: &Arc<Self>) {
        self.sweeper.call_once(|| {
            tokio::spawn(sweep_sessions_every(Arc::downgrade(self)));
        });
    }
}

impl<S> State<S> {
    pub(super) fn sessions(&self) -> std::sync::MutexGuard<'_, Sessions> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The live session `id`, when `principal` opened it.
    pub(super) fn session(&self, id: &str, principal: Option<&str>) -> Option<Arc<Session>> {
        let session = self.sessions().by_id.get(id).cloned()?;
        if session.principal.as_deref() != principal {
            return None;
        }
        let mut last_seen = session
            .last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if last_seen.elapsed() > self.config.session_idle_timeout {
            drop(last_seen);
            self.end_session(id);
            return None;
        }
        *last_seen = Instant::now();
        drop(last_seen);
        session.used.store(true, Ordering::Relaxed);
        Some(session)
    }

    pub(super) fn end_session(&self, id: &str) -> bool {
        let removed = self.sessions().by_id.remove(id);
        if let Some(session) = &removed {
            session.end();
        }
        removed.is_some()
    }

    /// Adds a session; at the cap it first ends the oldest never-used
    /// session, or, when every session is in use, the least recently used.
    pub(super) fn admit(&self, id: String, session: Arc<Session>) {
        let cap = self.config.max_sessions.max(1);
        let mut sessions = self.sessions();
        let mut ended = Vec::new();
        while sessions.by_id.len() >= cap {
            let victim = match sessions.unused.pop_front() {
                Some(old) => match sessions.by_id.get(&old) {
                    Some(s) if !s.used.load(Ordering::Relaxed) => Some(old),
                    _ => continue,
                },
                // Every session is in use: a scan, rare by construction.
                None => sessions
                    .by_id
                    .iter()
                    .min_by_key(|(_, s)| s.seen())
                    .map(|(id, _)| id.clone()),
            };
            match victim.and_then(|id| sessions.by_id.remove(&id)) {
                Some(s) => ended.push(s),
                None => break,
            }
        }
        // Ids of sessions used or ended since are dropped now and then.
        if sessions.unused.len() > 2 * cap {
            let Sessions { by_id, unused } = &mut *sessions;
            unused.retain(|id| {
                by_id
                    .get(id)
                    .is_some_and(|s| !s.used.load(Ordering::Relaxed))
            });
        }
        sessions.unused.push_back(id.clone());
        sessions.by_id.insert(id, session);
        drop(sessions);
        if !ended.is_empty() {
            tracing::warn!(
                ended = ended.len(),
                cap,
                "legacy session table full; ended unused or least recently used sessions"
            );
        }
        for session in ended {
            session.end();
        }
    }

    /// Ends sessions idle for longer than the timeout.
    pub(super) fn end_idle_sessions(&self) {
        let timeout = self.config.session_idle_timeout;
        let mut ended: Vec<Arc<Session>> = Vec::new();
        self.sessions().by_id.retain(|_, s| {
            let keep = s.seen().elapsed() <= timeout;
            if !keep {
                ended.push(Arc::clone(s));
            }
            keep
        });
        for session in ended {
            session.end();
        }
    }
}

/// The legacy GET stream: server-wide events as legacy notifications.
pub(super) fn legacy_stream<S: McpServer + 'static>(
    state: &State<S>,
    session: Arc<Session>,
    permit: streams::StreamPermit,
) -> Response<Body> {
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    let events = state.config.events.clone();
    let legacy = session.session.clone();
    let task = tokio::spawn(async move {
        let _permit = permit;
        // An SSE comment opens the stream at once for the client.
        if tx.send(Bytes::from_static(b": stream open\n\n")).is_err() {
            return;
        }
        forward_legacy_events::<S>(&events, &legacy, |message| {
            tx.send(sse_frame(message)).is_ok()
        })
        .await;
    });
    if let Some(old) = session
        .stream
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .replace(task.abort_handle())
    {
        old.abort();
    }
    sse_response(rx, AbortOnDrop::new(task.abort_handle()))
}

/// 429 for a stream past its cap, closing the connection: a client that
/// floods streams must not keep the connections either.
pub(super) fn too_many_streams<S>(
    state: &State<S>,
    id: Option<&Value>,
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

/// The HTTP answer of a JSON outcome; a successful `initialize` opens its
/// session here and names it in `Mcp-Session-Id`.
pub(super) fn outcome_response<S>(
    state: &State<S>,
    outcome: Outcome,
    principal: Option<String>,
) -> Response<Body> {
    // Only a new session needs the id again (for its error); read it first.
    let request_id = outcome
        .new_legacy_session
        .as_ref()
        .and_then(|_| outcome.json())
        .and_then(|body| body.get("id").cloned());
    let mut response = match outcome.body {
        Some(body) => json_bytes_response(outcome.http_status, body),
        None => status_only(StatusCode::ACCEPTED),
    };
    if let Some(session) = outcome.new_legacy_session {
        let id = match crate::wire::random_id::random_id() {
            Ok(id) => id,
            Err(error) => {
                tracing::error!(%error, "no OS randomness for a session id");
                let body = json!({"jsonrpc": "2.0", "id": request_id,
                    "error": {"code": -32603, "message": "Cannot create a session: no OS randomness"}});
                return json_response(500, &body);
            }
        };
        tracing::info!(session = %id, version = %session.protocol_version, "legacy session started");
        state.admit(
            id.clone(),
            Arc::new(Session {
                session,
                peer: ClientPeer::with_timeout(state.config.client_request_timeout),
                last_seen: Mutex::new(Instant::now()),
                used: AtomicBool::new(false),
                principal,
                in_flight: Arc::default(),
                stream: Mutex::default(),
            }),
        );
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(MCP_SESSION_ID, value);
        }
    }
    response
}
