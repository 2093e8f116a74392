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
use super::mcp_headers::PostLines;
use super::outbox;
use super::response::{
    Body, closing, error_response, plain_response, session_not_found, status_only,
};
use super::sessions::{Lookup, Session};
use super::sse::{Respond, Work, respond};
use super::state::{State, outcome_response, store_unavailable, too_many_streams};
use super::streams::StreamPermit;
use crate::dispatch::handle_parsed;
use crate::model::context::{Handoff, HttpHeaders, MessageContext, PeerAddr, principal_in};
use crate::model::outcome::Outcome;
use crate::model::server::McpServer;
use crate::runtime::connection::{Kind, Message, cancelled_key, classify};
use crate::wire::errors;
use crate::wire::message::Parsed;

/// A legacy session a POST names: its id and what this instance holds.
type Named = Option<(String, Arc<Session>)>;

/// One POST: the message, its era and session, then what it is: a
/// client's response or a notification is routed, a request answered.
pub(super) async fn post<S: McpServer + 'static, B: RequestBody>(
    state: Arc<State<S>>,
    parts: Arc<Parts>,
    body: B,
    peer: Option<PeerAddr>,
) -> Response<Body> {
    let lines = PostLines::scan(&parts.headers);
    let (message, sse_ok) = match read_message(&state, &parts, &lines, body).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let (mcp_headers, session) = match era_and_session(&state, &parts, &lines, &message).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    let request = match message {
        Message::Request(request) => request,
        Message::Response(response) => return route_response(&state, session, &response).await,
        Message::Notification(notification) => {
            return route_notification(&state, session, &notification).await;
        }
        Message::Unparsable => return plain_response(Outcome::parse_error()),
    };
    let listen = request.kind == Kind::Listen;
    let (ctx, rx) = message_context(&state, &parts, mcp_headers, peer, &session, listen, sse_ok);
    let caller = principal_in(&parts.extensions);
    let key = session.as_ref().and_then(|_| request.key());
    let response = match (session, key) {
        // Legacy requests stay cancellable (`notifications/cancelled`)
        // until their handler ends, whether the answer is JSON or SSE: a
        // task of their own, registered before it can finish.
        // Their SSE answers are resumable (`Last-Event-ID`).
        (Some((sid, session)), Some(key)) => {
            let server = Arc::clone(&state.server);
            let message = request.message;
            let task = session
                .conn
                .in_flight
                .spawn(key, false, |finish| async move {
                    let _finish = finish;
                    handle_parsed(&*server, Some(&server), message, &ctx).await
                });
            let abort = task.abort_handle();
            let resumable = Resumable::of(&state.sessions, &sid);
            respond(Box::pin(task), Some(abort), rx, Some(resumable)).await
        }
        // Everything else runs in the connection's own task: no spawn.
        _ => {
            // A listen holds its place until its stream ends.
            let permit = if listen {
                match state.streams.admit(caller) {
                    Ok(permit) => Some(permit),
                    Err(refusal) => {
                        return too_many_streams(&state, request.message.id().as_ref(), refusal);
                    }
                }
            } else {
                None
            };
            let work = in_place(Arc::clone(&state.server), request.message, ctx, permit);
            respond(work, None, rx, None).await
        }
    };
    match response {
        Respond::Json(outcome) if outcome.new_legacy_session.is_none() => plain_response(outcome),
        // Boxed: only `initialize` opens a session, and inline its future
        // would grow every request's.
        Respond::Json(outcome) => {
            Box::pin(outcome_response(&state, outcome, caller.map(str::to_owned))).await
        }
        Respond::Sse(response) => *response,
        Respond::Cancelled => status_only(StatusCode::ACCEPTED),
    }
}

/// The handling of a request outside any session, to run in the
/// connection's task. A listen (admitted with `permit`) goes on as the
/// stream it hands over once acknowledged: the request, its context (a copy
/// of the head among them) and the handlers' futures go then. Not `async`:
/// in `post`'s future, the context would keep a place across every await.
fn in_place<S: McpServer + 'static>(
    server: Arc<S>,
    message: Parsed,
    mut ctx: MessageContext,
    permit: Option<StreamPermit>,
) -> Work {
    let Some(permit) = permit else {
        return Box::pin(
            async move { Ok(handle_parsed(&*server, Some(&server), message, &ctx).await) },
        );
    };
    let handoff = Arc::new(Handoff::default());
    ctx.handoff = Some(Arc::clone(&handoff));
    let chain: Work =
        Box::pin(async move { Ok(handle_parsed(&*server, Some(&server), message, &ctx).await) });
    Box::pin(async move {
        let _permit = permit;
        let outcome = chain.await;
        let Some(rest) = handoff.take() else {
            return outcome;
        };
        drop(outcome);
        Ok(rest.await)
    })
}

/// The context a request is handled in: what the transport knows of it,
/// its session's, and where its own messages go (the outbox the answer
/// reads, when the client takes SSE). Inlined: returned, the context would
/// be copied once more on every request.
#[inline(always)]
fn message_context<S>(
    state: &State<S>,
    parts: &Arc<Parts>,
    mcp_headers: HttpHeaders,
    peer: Option<PeerAddr>,
    session: &Named,
    listen: bool,
    sse_ok: bool,
) -> (MessageContext, outbox::Receiver) {
    // A listen stream holds its request for long: its head and MCP headers
    // are copied out of the connection's read buffer (hyper's header values
    // share it), so that hyper reuses that buffer rather than allocate
    // another.
    let (request_parts, mcp_headers) = if listen {
        (Arc::new(detached(parts)), mcp_headers.detached())
    } else {
        (Arc::clone(parts), mcp_headers)
    };
    // Fields set in place: each `with_*` call would move the whole
    // context (over 300 bytes) in and out.
    let mut ctx = MessageContext::http_headers(mcp_headers);
    ctx.http_request = Some(request_parts);
    ctx.remote_addr = peer.map(|PeerAddr(addr)| addr);
    ctx.events = Some(state.config.events.clone());
    ctx.server_info_in_results = state.config.server_info_in_results;
    if let Some((_, session)) = &session {
        ctx = session.conn.context(ctx);
    }
    let (tx, rx) = outbox::outbox();
    // A client that does not accept SSE gets JSON only: the request's
    // notifications are dropped (and legacy server→client requests fail).
    if sse_ok && session.is_some() {
        // Inside a session the stream is resumable, so it may close early.
        let tx = Arc::new(tx);
        let closer = Arc::clone(&tx);
        ctx.stream_closer = Some(Arc::new(move |retry| closer.close_stream(retry)));
        ctx.sink = Some(Arc::new(move |message| tx.send(message)));
    } else if sse_ok {
        ctx.sink = Some(Arc::new(move |message| tx.send(message)));
    } else {
        drop(tx);
    }
    (ctx, rx)
}

/// The media types, the body, then the message it holds and, with
/// `auth`, whether the token's scope allows it; and whether the client
/// takes SSE.
async fn read_message<S, B: RequestBody>(
    state: &State<S>,
    #[cfg_attr(not(feature = "auth"), allow(unused_variables))] parts: &Parts,
    lines: &PostLines<'_>,
    body: B,
) -> Result<(Message, bool), Response<Body>> {
    let sse_ok = check_media_types(lines.content_type, lines.accept()).map_err(closing)?;
    let body = read_body(
        body,
        state.config.max_body_bytes,
        state.config.body_read_timeout,
    )
    .await?;
    let message = classify(&body);
    drop(body);
    #[cfg(feature = "auth")]
    if let (Some(auth), Message::Request(request)) = (&state.config.auth, &message)
        && let Some(refused) = scope_refusal(auth, parts, &request.message)
    {
        return Err(refused);
    }
    if matches!(message, Message::Unparsable) {
        return Err(plain_response(Outcome::parse_error()));
    }
    Ok((message, sse_ok))
}

/// The MCP headers, and the legacy session the message belongs to (the
/// stale-session rule is in the module docs).
async fn era_and_session<S>(
    state: &State<S>,
    parts: &Parts,
    lines: &PostLines<'_>,
    message: &Message,
) -> Result<(HttpHeaders, Named), Response<Body>> {
    // Read only for an error. A response carries the id of a
    // server→client request: not one the client may see echoed as its own
    // request's.
    let id = || match message {
        Message::Request(request) => request.message.id(),
        _ => None,
    };
    let (mcp_headers, session_id) = lines
        .mcp()
        .map_err(|error| error_response(400, id().as_ref(), error))?;
    let modern = message.is_modern();
    let session_id = match session_id {
        Ok(session_id) => session_id,
        Err(_) if modern => None,
        Err(reason) => {
            return Err(error_response(
                400,
                id().as_ref(),
                errors::invalid_request(reason),
            ));
        }
    };
    let Some(sid) = session_id.filter(|_| !modern) else {
        return Ok((mcp_headers, None));
    };
    let caller = principal_in(&parts.extensions);
    // Boxed, as the other session-only steps: inline, their futures would
    // grow every request's (modern ones included).
    let session = match Box::pin(state.sessions.session(&sid, caller)).await {
        Lookup::Found(session) => session,
        Lookup::NotFound => return Err(session_not_found(id().as_ref())),
        Lookup::Unavailable(error) => return Err(store_unavailable(id().as_ref(), &error)),
    };
    // 2025-11-25: a request whose version header is not the session's
    // negotiated version gets 400.
    let agreed = session
        .conn
        .with_legacy(|legacy| legacy.map(|l| l.protocol_version.clone()));
    if let (Some(version), Some(agreed)) = (mcp_headers.protocol_version.as_deref(), agreed)
        && version != agreed
    {
        let error = errors::invalid_request(format!(
            "Unsupported MCP-Protocol-Version header {version:?}: this session speaks {agreed}"
        ));
        return Err(error_response(400, id().as_ref(), error));
    }
    Ok((mcp_headers, Some((sid, session))))
}

/// A client's response to a server→client request: to the request
/// waiting for it, here or on another instance.
async fn route_response<S>(state: &State<S>, session: Named, response: &Value) -> Response<Body> {
    let Some((sid, session)) = session else {
        tracing::debug!("a response outside any session; ignored");
        return status_only(StatusCode::ACCEPTED);
    };
    match Box::pin(state.sessions.route_response(&sid, &session, response)).await {
        Ok(()) => status_only(StatusCode::ACCEPTED),
        Err(error) => store_unavailable(None, &error),
    }
}

/// A notification: never answered; a cancellation inside a session stops
/// its request, here or on another instance.
async fn route_notification<S>(
    state: &State<S>,
    session: Named,
    notification: &Value,
) -> Response<Body> {
    if let (Some((sid, session)), Some(key)) = (session, cancelled_key(notification))
        && let Err(error) = Box::pin(state.sessions.route_cancel(&sid, &session, key)).await
    {
        return store_unavailable(None, &error);
    }
    status_only(StatusCode::ACCEPTED)
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
