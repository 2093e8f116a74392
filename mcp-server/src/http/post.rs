//! One POST: MCP headers, era and session, the message context, dispatch,
//! and the answer as JSON or SSE.

use std::sync::Arc;

use bytes::Bytes;
use hyper::http::request::Parts;
use hyper::http::{HeaderValue, Uri};
use hyper::{Request, Response, StatusCode};
use serde_json::Value;

#[cfg(feature = "auth")]
use super::auth::gate::scope_refusal;
use super::event_log::Resumable;
use super::guards::{RequestBody, check_media_types, read_body};
use super::mcp_headers;
use super::outbox;
use super::response::{Body, closing, error_response, session_not_found, status_only};
use super::sessions::Lookup;
use super::sse::{Respond, respond};
use super::state::{State, outcome_response, plain_response, store_unavailable, too_many_streams};
use crate::dispatch::handle_parsed;
use crate::model::context::{MessageContext, PeerAddr, principal_in};
use crate::model::peer::is_response;
use crate::model::server::McpServer;
use crate::runtime::in_flight::{cancelled_request, id_key};
use crate::wire::errors;
use crate::wire::message::{Parsed, has_modern_meta, parse};

/// The one long-lived POST: a stream that holds a place until it ends.
pub(super) const LISTEN: &str = mcp_era_types::v2026_07_28::methods::SUBSCRIPTIONS_LISTEN;

/// One POST: headers, era and session, the message context, dispatch,
/// then the answer as JSON or SSE.
pub(super) async fn post<S: McpServer + 'static, B: RequestBody>(
    state: Arc<State<S>>,
    request: Request<B>,
    session_id: Result<Option<String>, String>,
    peer: Option<PeerAddr>,
) -> Response<Body> {
    if let Some(refused) = check_media_types(request.headers()) {
        return closing(refused);
    }
    let (parts, body) = request.into_parts();
    let parts = Arc::new(parts);
    let caller = principal_in(&parts.extensions);
    let headers = &parts.headers;
    let body = match read_body(
        headers,
        body,
        state.config.max_body_bytes,
        state.config.body_read_timeout,
    )
    .await
    {
        Ok(body) => body,
        Err(response) => return response,
    };
    let message = parse(&body);
    drop(body);
    #[cfg(feature = "auth")]
    if let Some(auth) = &state.config.auth
        && let Some(refused) = scope_refusal(auth, &parts, &message)
    {
        return refused;
    }
    let (modern, raw) = match &message {
        Parsed::Modern(_) => (true, None),
        Parsed::Json(message) => (has_modern_meta(message.get("params")), Some(message)),
        Parsed::Invalid => return error_response(400, None, errors::parse_error()),
    };
    let id = message.id_json();
    let mcp_headers = match mcp_headers::read(headers) {
        Ok(mcp_headers) => mcp_headers,
        Err(error) => return error_response(400, id.as_ref(), error),
    };
    // Era and session (the stale-session rule is in the module docs).
    let response = raw.is_some_and(is_response);
    let session_id = match session_id {
        Ok(session_id) => session_id,
        Err(_) if modern => None,
        Err(reason) => return error_response(400, id.as_ref(), errors::invalid_request(reason)),
    };
    // A response carries the id of a server→client request: not one the
    // client may see echoed as its own request's.
    let own_id = id.as_ref().filter(|_| !response);
    let session = match (&session_id, modern) {
        // Boxed, as the other session-only steps below: inline, their
        // futures would grow every request's (modern ones included).
        (Some(sid), false) => match Box::pin(state.sessions.session(sid, caller)).await {
            Lookup::Found(session) => Some((sid.as_str(), session)),
            Lookup::NotFound => return session_not_found(own_id),
            Lookup::Unavailable(error) => return store_unavailable(own_id, &error),
        },
        _ => None,
    };
    // 2025-11-25: a request whose version header is not the session's
    // negotiated version gets 400.
    if let Some((_, session)) = &session
        && let Some(version) = mcp_headers.protocol_version.as_deref()
        && version != session.session.protocol_version
    {
        return error_response(
            400,
            own_id,
            errors::invalid_request(format!(
                "Unsupported MCP-Protocol-Version header {version:?}: this session speaks {}",
                session.session.protocol_version
            )),
        );
    }
    if let Some(raw) = raw.filter(|_| response) {
        let Some((sid, session)) = &session else {
            tracing::debug!("a response outside any session; ignored");
            return status_only(StatusCode::ACCEPTED);
        };
        return match Box::pin(state.sessions.route_response(sid, session, raw)).await {
            Ok(()) => status_only(StatusCode::ACCEPTED),
            Err(error) => store_unavailable(None, &error),
        };
    }
    if let Some(raw) = raw
        && raw.get("id").is_none()
        && raw
            .get("method")
            .and_then(Value::as_str)
            .is_some_and(|method| !method.is_empty())
    {
        if let (Some((sid, session)), Some(request_id)) = (&session, cancelled_request(raw))
            && let Err(error) = Box::pin(state.sessions.route_cancel(
                sid,
                session,
                id_key(request_id),
            ))
            .await
        {
            return store_unavailable(None, &error);
        }
        return status_only(StatusCode::ACCEPTED);
    }
    let listen = message.method() == Some(LISTEN);
    // A listen stream holds its request for long: its head is copied out
    // of the connection's read buffer (hyper's header values share it), so
    // that hyper reuses that buffer rather than allocate another.
    let request_parts = if listen {
        Arc::new(detached(&parts))
    } else {
        Arc::clone(&parts)
    };
    let mut ctx = MessageContext::http_headers(mcp_headers)
        .with_http_request(request_parts)
        .with_remote_addr(peer.map(|PeerAddr(addr)| addr))
        .with_events(state.config.events.clone())
        .with_server_info_in_results(state.config.server_info_in_results);
    if let Some((_, session)) = &session {
        ctx = ctx
            .with_legacy_session(session.session.clone())
            .with_peer(session.peer.clone());
    }
    let (tx, rx) = outbox::outbox();
    // A client that does not accept SSE gets JSON only: the request's
    // notifications are dropped (and legacy server→client requests fail).
    let sse_ok = headers
        .get(hyper::header::ACCEPT)
        .and_then(|a| a.to_str().ok())
        .is_none_or(|a| a.contains("text/event-stream") || a.contains("*/*"));
    if sse_ok && session.is_some() {
        // Inside a session the stream is resumable, so it may close early.
        let tx = Arc::new(tx);
        let closer = Arc::clone(&tx);
        ctx = ctx
            .with_stream_closer(move |retry| closer.close_stream(retry))
            .with_sink(move |message| tx.send(message));
    } else if sse_ok {
        ctx = ctx.with_sink(move |message| tx.send(message));
    } else {
        drop(tx);
    }
    let server = Arc::clone(&state.server);
    let key = match &message {
        Parsed::Json(message) => message.get("id").map(id_key),
        _ => None,
    };
    let in_flight = match (&session, key) {
        (Some((sid, session)), Some(key)) => Some((
            Arc::clone(session),
            key,
            Resumable::of(&state.sessions, sid),
        )),
        _ => None,
    };
    let response = match in_flight {
        // Legacy requests stay cancellable (`notifications/cancelled`)
        // until their handler ends, whether the answer is JSON or SSE: a
        // task of their own, registered before it can finish.
        // Their SSE answers are resumable (`Last-Event-ID`).
        Some((session, key, resumable)) => {
            let task = session.in_flight.spawn(key, false, |finish| async move {
                let _finish = finish;
                handle_parsed(&*server, Some(&server), message, &ctx).await
            });
            let abort = task.abort_handle();
            respond(Box::pin(task), Some(abort), rx, Some(resumable)).await
        }
        // Everything else runs in the connection's own task: no spawn.
        None => {
            // A listen holds its place until its stream ends.
            let permit = if listen {
                match state.streams.admit(caller) {
                    Ok(permit) => Some(permit),
                    Err(refusal) => return too_many_streams(&state, id.as_ref(), refusal),
                }
            } else {
                None
            };
            let work = async move {
                let _permit = permit;
                Ok(handle_parsed(&*server, Some(&server), message, &ctx).await)
            };
            respond(Box::pin(work), None, rx, None).await
        }
    };
    match response {
        Respond::Json(outcome) if outcome.new_legacy_session.is_none() => plain_response(outcome),
        // Boxed: only `initialize` opens a session, and inline its future
        // would grow every request's.
        Respond::Json(outcome) => {
            Box::pin(outcome_response(&state, outcome, caller.map(str::to_owned))).await
        }
        Respond::Sse(response) => response,
        Respond::Cancelled => status_only(StatusCode::ACCEPTED),
    }
}

/// A copy of `parts` that shares no bytes with the connection's buffers.
fn detached(parts: &Parts) -> Parts {
    let mut copy = Request::new(()).into_parts().0;
    copy.method = parts.method.clone();
    copy.uri = Uri::from_maybe_shared(Bytes::copy_from_slice(parts.uri.to_string().as_bytes()))
        .unwrap_or_else(|_| parts.uri.clone());
    copy.version = parts.version;
    copy.headers.reserve(parts.headers.len());
    for (name, value) in &parts.headers {
        let mut owned = HeaderValue::from_bytes(value.as_bytes()).unwrap_or_else(|_| value.clone());
        owned.set_sensitive(value.is_sensitive());
        copy.headers.append(name.clone(), owned);
    }
    copy.extensions = parts.extensions.clone();
    copy
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_detached_head_is_equal_and_shares_no_bytes() {
        let buffer = Bytes::from_static(b"/mcp?x=1 secret");
        let (mut parts, ()) = Request::post("/").body(()).unwrap_or_default().into_parts();
        parts.uri = Uri::from_maybe_shared(buffer.slice(0..8)).unwrap_or_default();
        let mut token = HeaderValue::from_maybe_shared(buffer.slice(9..))
            .unwrap_or_else(|_| HeaderValue::from_static(""));
        token.set_sensitive(true);
        parts.headers.insert("authorization", token);
        parts.headers.append(
            "mcp-method",
            HeaderValue::from_static("subscriptions/listen"),
        );
        parts.extensions.insert(7_u8);
        let copy = detached(&parts);
        assert_eq!(
            (&copy.method, &copy.uri, copy.version),
            (&parts.method, &parts.uri, parts.version)
        );
        assert_eq!(copy.headers, parts.headers);
        assert!(copy.headers["authorization"].is_sensitive());
        assert_eq!(copy.extensions.get::<u8>(), Some(&7));
        let shared = buffer.as_ptr_range();
        assert!(!shared.contains(&copy.headers["authorization"].as_bytes().as_ptr()));
        assert!(!shared.contains(&copy.uri.path().as_ptr()));
    }
}
