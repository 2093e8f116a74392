//! Server-sent events: frames, the stream response, and the JSON-or-SSE
//! switch of one POST (`respond`), with the ids and the early close of a
//! resumable (legacy session) stream.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::Response;
use hyper::header::HeaderValue;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::event_log::{Resumable, StreamLog};
use super::outbox::{self, Item};
use super::response::{AbortOnDrop, Body, BodyKind, Frames};
use crate::model::outcome::Outcome;

/// One SSE `data:` frame around a JSON message.
pub(super) fn sse_frame(message: &Value) -> Bytes {
    sse_frame_bytes(&mcp_era_types::json::to_vec(message).unwrap_or_default())
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
    event_stream(BodyKind::Stream { rx, _guard: guard })
}

/// A `text/event-stream` response made by `live` as it is sent.
fn live_response(live: Live) -> Response<Body> {
    event_stream(BodyKind::Frames(Box::new(live)))
}

fn event_stream(kind: BodyKind) -> Response<Body> {
    let mut response = Response::new(Body { kind });
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

/// What a resumable POST answer needs besides its messages: the SSE
/// frames with ids, the priming event first.
pub(super) enum Framer {
    Plain,
    Logged(StreamLog),
}

impl Framer {
    /// Ids and the store when `resumable` (and OS randomness) allow.
    pub(super) fn open(resumable: Option<&Resumable>) -> Self {
        match resumable.and_then(|r| StreamLog::open(r, 'p')) {
            Some(log) => Self::Logged(log),
            None => Self::Plain,
        }
    }

    /// Whether the stream outlives its client (it can be resumed, so the
    /// request goes on when the client leaves).
    pub(super) fn resumable(&self) -> bool {
        matches!(self, Self::Logged(_))
    }

    /// The frame that opens the stream, if any.
    pub(super) fn start(&mut self) -> Option<Bytes> {
        match self {
            Self::Plain => None,
            Self::Logged(log) => Some(log.priming()),
        }
    }

    /// A message before the response.
    pub(super) fn message(&mut self, message: &Value) -> Bytes {
        match self {
            Self::Plain => sse_frame(message),
            Self::Logged(log) => log.frame(
                &mcp_era_types::json::to_vec(message).unwrap_or_default(),
                false,
            ),
        }
    }

    /// The response, the stream's last event.
    pub(super) fn response(&mut self, body: &[u8]) -> Bytes {
        match self {
            Self::Plain => sse_frame_bytes(body),
            Self::Logged(log) => log.frame(body, true),
        }
    }
}

/// How one POST is answered: JSON, an SSE stream, or nothing (cancelled).
pub(super) enum Respond {
    Json(Outcome),
    /// Boxed: the JSON answer, far more common, need not move its size.
    Sse(Box<Response<Body>>),
    Cancelled,
}

/// The handling of one request: its own task (which may be aborted), or a
/// future run in place.
pub(super) type Work =
    Pin<Box<dyn Future<Output = Result<Outcome, tokio::task::JoinError>> + Send>>;

/// A stream that ends with its client: its frames are made as hyper asks
/// for them, in the connection's task, with no task or channel between
/// the handler and the connection.
struct Live {
    /// Frames ready to go: the first message, what came with the outcome.
    queued: VecDeque<Bytes>,
    /// The handling, until its outcome.
    work: Option<Work>,
    rx: outbox::Receiver,
    _guard: AbortOnDrop,
}

impl Frames for Live {
    /// The handler's messages first (as the forwarder did), then its
    /// response, which ends the stream.
    fn poll_frame(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        loop {
            if let Some(frame) = self.queued.pop_front() {
                return Poll::Ready(Some(frame));
            }
            let Some(work) = self.work.as_mut() else {
                return Poll::Ready(None);
            };
            match self.rx.poll_recv(cx) {
                Poll::Ready(Some(Item::Message(message))) => {
                    return Poll::Ready(Some(sse_frame(&message)));
                }
                // Only a resumable stream closes early.
                Poll::Ready(Some(Item::Close(_))) => continue,
                Poll::Ready(None) | Poll::Pending => {}
            }
            let outcome = std::task::ready!(work.as_mut().poll(cx));
            self.work = None;
            while let Some(item) = self.rx.try_recv() {
                if let Item::Message(message) = item {
                    self.queued.push_back(sse_frame(&message));
                }
            }
            if let Ok(Outcome {
                body: Some(body), ..
            }) = outcome
            {
                self.queued.push_back(sse_frame_bytes(&body));
            }
        }
    }
}

/// The SSE `retry` field alone: how long the client waits before it
/// resumes a connection the server closes.
fn retry_frame(retry: Duration) -> Bytes {
    Bytes::from(format!("retry: {}\n\n", retry.as_millis()))
}

/// Where a resumable stream's frames go: the client while it is
/// connected; nowhere once it left or was told to come back (the log still
/// records every frame, to be replayed).
struct Out {
    tx: Option<mpsc::UnboundedSender<Bytes>>,
}

impl Out {
    fn send(&self, frame: Bytes) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(frame);
        }
    }

    /// One queued item: a message framed and sent, or the connection
    /// closed after a `retry` field.
    fn item(&mut self, framer: &mut Framer, item: Item) {
        match item {
            Item::Message(message) => {
                let frame = framer.message(&message);
                self.send(frame);
            }
            Item::Close(retry) => {
                if let Some(tx) = self.tx.take() {
                    let _ = tx.send(retry_frame(retry));
                }
            }
        }
    }
}

/// JSON unless the handler sends a message before its response; then SSE,
/// the handling polled by the response body as it is sent. With `resumable`
/// (a legacy session's request) the stream's events get ids and are kept,
/// the client leaving does not stop the request (it may resume), and the
/// handler may close the connection early
/// ([`RequestContext::close_sse_stream`](crate::RequestContext::close_sse_stream)):
/// the handling moves into a forwarder task of its own.
pub(super) async fn respond(
    mut task: Work,
    abort: Option<AbortHandle>,
    rx: outbox::Receiver,
    resumable: Option<Resumable>,
) -> Respond {
    let guard = AbortOnDrop(abort);
    let first = loop {
        let item = tokio::select! {
            biased;
            item = rx.recv() => item,
            outcome = &mut task => {
                let mut queued = Vec::new();
                while let Some(item) = rx.try_recv() {
                    if let Item::Message(message) = item {
                        queued.push(message);
                    }
                }
                let outcome = match outcome {
                    Ok(outcome) => outcome,
                    Err(_) => return Respond::Cancelled,
                };
                guard.disarm();
                if queued.is_empty() {
                    return Respond::Json(outcome);
                }
                // Everything at once: no reason to close early.
                let mut framer = Framer::open(resumable.as_ref());
                let (btx, brx) = mpsc::unbounded_channel();
                if let Some(start) = framer.start() {
                    let _ = btx.send(start);
                }
                for message in &queued {
                    let _ = btx.send(framer.message(message));
                }
                if let Some(body) = outcome.body {
                    let _ = btx.send(framer.response(&body));
                }
                return Respond::Sse(Box::new(sse_response(brx, AbortOnDrop(None))));
            }
        };
        match item {
            // Closing a connection that is still a JSON answer: only a
            // resumable stream can, and then it becomes one first.
            Some(Item::Close(_)) if resumable.is_none() => {}
            other => break other,
        }
    };
    let Some(first) = first else {
        return match task.await {
            Ok(outcome) => Respond::Json(outcome),
            Err(_) => Respond::Cancelled,
        };
    };
    let mut framer = Framer::open(resumable.as_ref());
    if !framer.resumable() {
        return Respond::Sse(Box::new(live_response(Live {
            queued: match first {
                Item::Message(message) => VecDeque::from([sse_frame(&message)]),
                Item::Close(_) => VecDeque::new(),
            },
            work: Some(task),
            rx,
            _guard: guard,
        })));
    }
    // A resumable stream goes on storing its events once the client has
    // left: its own task, which the response does not stop.
    let (btx, brx) = mpsc::unbounded_channel::<Bytes>();
    let mut out = Out { tx: Some(btx) };
    if let Some(start) = framer.start() {
        out.send(start);
    }
    out.item(&mut framer, first);
    tokio::spawn(async move {
        let _guard = guard;
        loop {
            tokio::select! {
                biased;
                item = rx.recv() => match item {
                    Some(item) => out.item(&mut framer, item),
                    None => break,
                },
                outcome = &mut task => {
                    while let Some(item) = rx.try_recv() {
                        out.item(&mut framer, item);
                    }
                    if let Ok(Outcome { body: Some(body), .. }) = outcome {
                        out.send(framer.response(&body));
                    }
                    return;
                }
            }
        }
        if let Ok(Outcome {
            body: Some(body), ..
        }) = task.await
        {
            out.send(framer.response(&body));
        }
    });
    Respond::Sse(Box::new(sse_response(brx, AbortOnDrop(None))))
}
