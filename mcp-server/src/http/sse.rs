//! Server-sent events: frames, the stream response, and the JSON-or-SSE
//! switch of one POST (`respond`).

use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use hyper::Response;
use hyper::header::HeaderValue;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::outbox;
use super::response::{AbortOnDrop, Body, BodyKind};
use crate::model::outcome::Outcome;

/// One SSE `data:` frame around a JSON message.
pub(super) fn sse_frame(message: &Value) -> Bytes {
    sse_frame_bytes(&serde_json::to_vec(message).unwrap_or_default())
}

/// One SSE `message` event carrying a serialized JSON-RPC message (which
/// has no newline: serde_json escapes them inside strings).
pub(super) fn sse_frame_bytes(json: &[u8]) -> Bytes {
    let mut frame = Vec::with_capacity(json.len() + 22);
    frame.extend_from_slice(b"event: message\ndata: ");
    frame.extend_from_slice(json);
    frame.extend_from_slice(b"\n\n");
    Bytes::from(frame)
}

/// A `text/event-stream` response fed by `rx`; dropping it stops the work.
pub(super) fn sse_response(
    rx: mpsc::UnboundedReceiver<Bytes>,
    guard: AbortOnDrop,
) -> Response<Body> {
    let mut response = Response::new(Body {
        kind: BodyKind::Stream { rx, _guard: guard },
    });
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        hyper::header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache"),
    );
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// How one POST is answered: JSON, an SSE stream, or nothing (cancelled).
pub(super) enum Respond {
    Json(Outcome),
    Sse(Response<Body>),
    Cancelled,
}

/// The handling of one request: its own task (which may be aborted), or a
/// future run in place.
pub(super) type Work =
    Pin<Box<dyn Future<Output = Result<Outcome, tokio::task::JoinError>> + Send>>;

/// JSON unless the handler sends a message before its response; then SSE,
/// with the handling moved into the stream's forwarder.
pub(super) async fn respond(
    mut task: Work,
    abort: Option<AbortHandle>,
    rx: outbox::Receiver,
) -> Respond {
    let guard = AbortOnDrop(abort);
    let first = tokio::select! {
        biased;
        message = rx.recv() => message,
        outcome = &mut task => {
            match (outcome, rx.try_recv()) {
                (Ok(outcome), None) => {
                    guard.disarm();
                    return Respond::Json(outcome);
                }
                (Ok(outcome), Some(message)) => {
                    let (btx, brx) = mpsc::unbounded_channel();
                    let _ = btx.send(sse_frame(&message));
                    while let Some(message) = rx.try_recv() {
                        let _ = btx.send(sse_frame(&message));
                    }
                    if let Some(body) = outcome.body {
                        let _ = btx.send(sse_frame_bytes(&body));
                    }
                    guard.disarm();
                    return Respond::Sse(sse_response(brx, AbortOnDrop(None)));
                }
                (Err(_), _) => return Respond::Cancelled,
            }
        }
    };
    let Some(first) = first else {
        return match task.await {
            Ok(outcome) => Respond::Json(outcome),
            Err(_) => Respond::Cancelled,
        };
    };
    let (btx, brx) = mpsc::unbounded_channel::<Bytes>();
    let _ = btx.send(sse_frame(&first));
    let forwarder = tokio::spawn(async move {
        let _guard = guard;
        loop {
            tokio::select! {
                biased;
                message = rx.recv() => match message {
                    Some(message) => {
                        if btx.send(sse_frame(&message)).is_err() {
                            return;
                        }
                    }
                    None => break,
                },
                outcome = &mut task => {
                    while let Some(message) = rx.try_recv() {
                        let _ = btx.send(sse_frame(&message));
                    }
                    if let Ok(Outcome { body: Some(body), .. }) = outcome {
                        let _ = btx.send(sse_frame_bytes(&body));
                    }
                    return;
                }
            }
        }
        if let Ok(Outcome {
            body: Some(body), ..
        }) = task.await
        {
            let _ = btx.send(sse_frame_bytes(&body));
        }
    });
    Respond::Sse(sse_response(
        brx,
        AbortOnDrop::new(forwarder.abort_handle()),
    ))
}
