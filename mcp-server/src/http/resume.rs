//! Resumable SSE streams of legacy sessions (2025-11-25 "Resumability and
//! Redelivery"): the session's GET stream, and `GET` with `Last-Event-ID`,
//! which replays what one stream sent after that id, on any instance (the
//! ids and the stored events are `event_log.rs`'s).
//!
//! Stream ids start with `g` (a GET stream) or `p` (a POST answered with
//! SSE), then 16 hex digits. A POST stream opens with a priming event (an
//! id, empty data), so the client holds an id before anything else comes;
//! so does a GET stream. Resuming:
//!
//! * a `p` stream is followed from the id until its response (stored with
//!   it, wherever the request runs), then the answer ends; the request
//!   itself was never cancelled by the disconnect (in 2025-11-25 only
//!   `notifications/cancelled` cancels);
//! * a `g` stream's missed events are sent (until the instance that held
//!   it marks its end, which it does once it hears the stream moved, or
//!   [`HANDOVER_QUIET`] without more), then the answer goes on as the
//!   session's GET stream (under a new stream id);
//! * an id that is not ours, or of a stream the store no longer has, opens
//!   a plain GET stream (nothing to replay).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hyper::Response;
use tokio::sync::mpsc;

use super::event_log::{Resumable, StreamLog, is_end_mark, replayed_frame};
use super::response::{AbortOnDrop, Body, session_not_found};
use super::sessions::Session;
use super::sse::{sse_frame_bytes, sse_response};
use super::state::{State, store_unavailable};
use super::streams::StreamPermit;
use crate::model::server::McpServer;
use crate::runtime::legacy_events::forward_legacy_events_from;
use crate::state::sessions::{EventFollow, StreamKey, parse_event_id};

/// How long a resumed GET stream waits for more of the stream it resumes
/// before it goes on live: the instance that held it closes it (and marks
/// its end) as soon as it hears that the stream moved; one that died never
/// does.
const HANDOVER_QUIET: Duration = Duration::from_secs(2);

/// The `GET` of a legacy session: its SSE stream of server-wide events as
/// legacy notifications, or, with `Last-Event-ID`, the resumption of the
/// stream that id names (see the module docs).
pub(super) async fn legacy_get<S: McpServer + 'static>(
    state: &Arc<State<S>>,
    id: &str,
    session: Arc<Session>,
    permit: StreamPermit,
    last_event_id: Option<&str>,
) -> Response<Body> {
    let resumable = Resumable::of(&state.sessions, id);
    let mut earlier = None;
    if let Some((stream, after)) = last_event_id.and_then(parse_event_id) {
        let key = StreamKey {
            session: id.to_owned(),
            stream: stream.to_owned(),
        };
        match resumable.store.follow(key, after).await {
            Ok(Some(follow)) if stream.starts_with('p') => {
                return resumed_post_stream(&session, stream, follow, permit);
            }
            Ok(Some(follow)) => earlier = Some((stream.to_owned(), follow)),
            Ok(None) => {}
            Err(error) => return store_unavailable(None, &error),
        }
    }
    get_stream::<S>(state, id, &session, permit, &resumable, earlier).await
}

/// The session's GET stream: what `earlier` (the GET stream it resumes)
/// still holds first, then its own events, live.
async fn get_stream<S: McpServer + 'static>(
    state: &Arc<State<S>>,
    id: &str,
    session: &Session,
    permit: StreamPermit,
    resumable: &Resumable,
    earlier: Option<(String, EventFollow)>,
) -> Response<Body> {
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    // Every HTTP session has one: `initialize` opened it.
    let Some(legacy) = session.conn.legacy() else {
        return session_not_found(None);
    };
    let log = StreamLog::open(resumable, 'g');
    // Subscribed before the answer's head and the handover (up to
    // HANDOVER_QUIET when the holder died): what is raised meanwhile waits
    // here, not lost. One the holder also sent before its end mark comes
    // twice: these notifications are idempotent hints; a lost one is not.
    let events = state.config.events.subscribe();
    let server = Arc::clone(&state.server);
    let task = tokio::spawn(async move {
        let _permit = permit;
        if let Some((stream, mut follow)) = earlier {
            // Until the stream's end mark, or quiet (its holder died).
            while let Ok(Some(Ok(event))) =
                tokio::time::timeout(HANDOVER_QUIET, follow.recv()).await
            {
                if is_end_mark(&event) {
                    break;
                }
                if tx.send(replayed_frame(&stream, &event)).is_err() {
                    return;
                }
            }
        }
        let mut log = log;
        let opening = match &mut log {
            Some(log) => log.priming(),
            None => Bytes::from_static(b": stream open\n\n"),
        };
        if tx.send(opening).is_err() {
            return;
        }
        forward_legacy_events_from(&*server, events, &legacy, |message| {
            let json = mcp_era_types::json::to_vec(message).unwrap_or_default();
            let frame = match &mut log {
                Some(log) => log.frame(&json, false),
                None => sse_frame_bytes(&json),
            };
            tx.send(frame).is_ok()
        })
        .await;
    });
    session.set_stream(task.abort_handle());
    state.sessions.announce_stream(id).await;
    sse_response(rx, AbortOnDrop::new(task.abort_handle()))
}

/// A POST stream resumed: what `follow` yields, with the ids it was sent
/// with, until its response. Registered with the session's requests, so
/// the session's end stops it.
fn resumed_post_stream(
    session: &Session,
    stream: &str,
    mut follow: EventFollow,
    permit: StreamPermit,
) -> Response<Body> {
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    let stream = stream.to_owned();
    // Not a JSON text, so no client request id can name it.
    let key = format!("resume {stream}");
    let task = session
        .conn
        .in_flight
        .spawn(key, false, move |finish| async move {
            let _finish = finish;
            let _permit = permit;
            while let Some(event) = follow.recv().await {
                match event {
                    Ok(event) => {
                        if tx.send(replayed_frame(&stream, &event)).is_err() || event.last {
                            return;
                        }
                    }
                    Err(error) => {
                        tracing::warn!(%stream, %error, "event store: a resumed stream broke off");
                        return;
                    }
                }
            }
        });
    sse_response(rx, AbortOnDrop::new(task.abort_handle()))
}

/// Reads a `Last-Event-ID` header (one line, visible ASCII).
pub(super) fn last_event_id(headers: &hyper::HeaderMap) -> Option<String> {
    let mut lines = headers.get_all("last-event-id").iter();
    let value = lines.next()?;
    if lines.next().is_some() {
        return None;
    }
    value.to_str().ok().map(|v| v.trim().to_owned())
}
