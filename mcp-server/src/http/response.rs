//! HTTP responses: the body type (whole or streamed), JSON and error
//! answers, the bare statuses.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::Frame;
use hyper::header::HeaderValue;
use hyper::{Response, StatusCode};
use mcp_era_types::v2026_07_28::RequestId;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::model::outcome::Outcome;
use crate::wire::errors::{self, ErrorObject};

/// The response body: a whole buffer, or a stream of SSE frames.
pub struct Body {
    pub(super) kind: BodyKind,
}

/// Whole bytes, or a stream of frames: fed by a task through a channel,
/// or made as hyper asks for them.
pub(super) enum BodyKind {
    Full(Option<Bytes>),
    Stream {
        rx: mpsc::UnboundedReceiver<Bytes>,
        _guard: AbortOnDrop,
    },
    Frames(Box<dyn Frames>),
}

/// A body's frames made on demand (hyper polls for the next one), so
/// nothing runs between the source and the connection.
pub(super) trait Frames: Send {
    /// The next frame; `None` once the stream is over.
    fn poll_frame(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>>;
}

impl Body {
    pub(super) fn full(bytes: impl Into<Bytes>) -> Self {
        Self {
            kind: BodyKind::Full(Some(bytes.into())),
        }
    }

    pub(super) fn empty() -> Self {
        Self {
            kind: BodyKind::Full(None),
        }
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.get_mut().kind {
            BodyKind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            BodyKind::Stream { rx, .. } => rx.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b)))),
            BodyKind::Frames(frames) => {
                frames.poll_frame(cx).map(|b| b.map(|b| Ok(Frame::data(b))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(&self.kind, BodyKind::Full(None))
    }

    /// Exact for a whole buffer, so hyper sends `Content-Length` rather
    /// than chunked encoding.
    fn size_hint(&self) -> hyper::body::SizeHint {
        match &self.kind {
            BodyKind::Full(Some(bytes)) => hyper::body::SizeHint::with_exact(bytes.len() as u64),
            BodyKind::Full(None) => hyper::body::SizeHint::with_exact(0),
            BodyKind::Stream { .. } | BodyKind::Frames(_) => hyper::body::SizeHint::default(),
        }
    }
}

/// Aborts a task when dropped (a closed response cancels its handler).
pub(super) struct AbortOnDrop(pub(super) Option<AbortHandle>);

impl AbortOnDrop {
    pub(super) fn new(handle: AbortHandle) -> Self {
        Self(Some(handle))
    }

    pub(super) fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            handle.abort();
        }
    }
}

/// A JSON body with `status`.
#[cfg_attr(not(feature = "auth"), allow(dead_code))]
pub(super) fn json_response(status: u16, body: &Value) -> Response<Body> {
    json_bytes_response(status, serde_json::to_vec(body).unwrap_or_default())
}

/// Already-serialized JSON with `status`.
pub(super) fn json_bytes_response(status: u16, bytes: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Body::full(bytes));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// An error answer with `status`, framed by [`Outcome`] as every answer is.
pub(super) fn error_response(
    status: u16,
    id: Option<&RequestId>,
    error: ErrorObject,
) -> Response<Body> {
    plain_response(Outcome::error(id, error).with_status(status))
}

/// The HTTP answer of a JSON outcome that opens no session.
pub(super) fn plain_response(outcome: Outcome) -> Response<Body> {
    let Some(body) = outcome.body else {
        return status_only(StatusCode::ACCEPTED);
    };
    let mut response = json_bytes_response(outcome.http_status, body);
    // A rate-limited request is answered 200 with its JSON-RPC error (the
    // TypeScript SDK turns a 429 into a transport failure and loses the
    // error), and says when to retry in whole seconds, rounded up.
    if let Some(after) = outcome.retry_after {
        let seconds = after.as_millis().div_ceil(1000).max(1);
        if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
            response
                .headers_mut()
                .insert(hyper::header::RETRY_AFTER, value);
        }
    }
    response
}

/// A status with an empty body.
pub(super) fn status_only(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

/// 405, naming the methods the endpoint takes.
pub(super) fn method_not_allowed() -> Response<Body> {
    let mut response = error_response(
        405,
        None,
        errors::invalid_request("Method not allowed: this endpoint accepts POST"),
    );
    response
        .headers_mut()
        .insert(hyper::header::ALLOW, HeaderValue::from_static("POST"));
    response
}

/// 404 for an unknown or ended legacy session: the client starts a new one.
pub(super) fn session_not_found(id: Option<&RequestId>) -> Response<Body> {
    error_response(
        404,
        id,
        errors::invalid_request("Session not found: initialize a new session"),
    )
}

/// `response` with `Connection: close`: for answers given without reading
/// the request body to its end, after which hyper closes the connection.
/// Said out loud, a client opens a new connection for its next request
/// instead of racing the close on this one (RFC 9112 §9.6).
pub(super) fn closing(mut response: Response<Body>) -> Response<Body> {
    response
        .headers_mut()
        .insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
    response
}
