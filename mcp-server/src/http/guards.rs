//! The checks a request passes before its body reaches the dispatcher:
//! the caller, transfer codings, media types, the
//! body size and time.

use std::future::Future;
use std::task::Poll;
use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use hyper::header::{HOST, HeaderMap, HeaderValue, ORIGIN, TRANSFER_ENCODING};
use hyper::{Request, Response, StatusCode};

#[cfg(feature = "auth")]
use super::auth;
use super::config::HttpConfig;
use super::host;
use super::log_limit::LogLimiter;
use super::response::{Body, closing, error_response, status_only};
#[cfg(feature = "auth")]
use crate::model::context::Principal;
use crate::wire::errors;

/// Resolves who made an HTTP request, once: a [`Principal`](crate::Principal) set by
/// middleware, else (with `auth`) the validated token's subject, else its
/// client as `client:ID`; nobody without either. The answer stays among
/// the extensions, where sessions, tasks and listen streams read it.
pub(super) fn resolve_principal(extensions: &mut http::Extensions) {
    #[cfg(feature = "auth")]
    if extensions.get::<Principal>().is_none()
        && let Some(claims) = extensions.get::<auth::Claims>()
        && let Some(name) = token_principal(claims)
    {
        extensions.insert(Principal(name));
    }
    #[cfg(not(feature = "auth"))]
    let _ = extensions;
}

/// A token's caller: its subject, else its client, namespaced so that a
/// client registered as `alice` is never the user `alice` (RFC 9068 §2.2,
/// §5: a subject and a client id are different kinds of name).
#[cfg(feature = "auth")]
fn token_principal(claims: &auth::Claims) -> Option<String> {
    claims.subject.clone().or_else(|| {
        claims
            .client_id
            .as_ref()
            .map(|client| format!("{CLIENT_PRINCIPAL_PREFIX}{client}"))
    })
}

/// What a client-only token's principal starts with.
#[cfg(feature = "auth")]
const CLIENT_PRINCIPAL_PREFIX: &str = "client:";

/// The lines the guards before the body read, found in one pass over the
/// head: a lookup per name would hash each again.
#[derive(Default)]
pub(super) struct GuardLines<'a> {
    host: Option<&'a HeaderValue>,
    hosts: usize,
    origin: Option<&'a HeaderValue>,
    origins: usize,
    transfer_encoding: bool,
}

impl<'a> GuardLines<'a> {
    pub(super) fn scan(headers: &'a HeaderMap) -> Self {
        let mut lines = Self::default();
        for (name, value) in headers {
            if name == HOST {
                lines.hosts += 1;
                lines.host.get_or_insert(value);
            } else if name == ORIGIN {
                lines.origins += 1;
                lines.origin.get_or_insert(value);
            } else if name == TRANSFER_ENCODING {
                lines.transfer_encoding = true;
            }
        }
        lines
    }
}

/// DNS-rebinding protection: the request's authority (RFC 9112: the
/// absolute-form target's, else the one `Host` line) must be an allowed
/// host, and every `Origin` line an allowed origin; else the refusal,
/// logged at most once a second.
pub(super) fn host_and_origin<B>(
    config: &HttpConfig,
    rejected_log: &LogLimiter,
    request: &Request<B>,
    lines: &GuardLines<'_>,
) -> Option<Response<Body>> {
    let host =
        match host::request_authority(request.version(), request.uri(), lines.host, lines.hosts) {
            Ok(host) => host,
            Err(reason) => return Some(error_response(400, None, errors::invalid_request(reason))),
        };
    let allowed_hosts = &config.allowed_hosts;
    if !allowed_hosts.is_empty() && !host.is_some_and(|h| host::host_allowed(allowed_hosts, h)) {
        if let Some(suppressed) = rejected_log.allow() {
            tracing::warn!(?host, suppressed, "rejected Host");
        }
        return Some(error_response(
            403,
            None,
            errors::invalid_request("Forbidden: Host not allowed"),
        ));
    }
    // Every `Origin` line must pass, not just the first.
    let refused = |origin: &HeaderValue| {
        let allowed = origin
            .to_str()
            .is_ok_and(|o| host::origin_allowed(allowed_hosts, &config.allowed_origins, o));
        if allowed {
            return None;
        }
        if let Some(suppressed) = rejected_log.allow() {
            tracing::warn!(?origin, suppressed, "rejected Origin");
        }
        Some(error_response(
            403,
            None,
            errors::invalid_request("Forbidden: Origin not allowed"),
        ))
    };
    match lines.origins {
        0 => None,
        1 => lines.origin.and_then(refused),
        _ => request.headers().get_all(ORIGIN).iter().find_map(refused),
    }
}

/// 501 for a transfer coding other than one `chunked` (RFC 9112 §6.1):
/// the body could not be read as sent. `identity` is no coding since RFC
/// 7230 and is refused too; hyper itself answers 400 when `chunked` is
/// missing or not last.
pub(super) fn unsupported_transfer_coding(
    headers: &HeaderMap,
    lines: &GuardLines<'_>,
) -> Option<Response<Body>> {
    if !lines.transfer_encoding {
        return None;
    }
    let mut codings = headers
        .get_all(TRANSFER_ENCODING)
        .iter()
        .flat_map(|line| line.to_str().unwrap_or("?").split(','))
        .map(str::trim_ascii)
        // Empty list elements do not count (RFC 9110 §5.6.1).
        .filter(|coding| !coding.is_empty());
    let only_chunked = matches!(
        (codings.next(), codings.next()),
        (Some(coding), None) if coding.eq_ignore_ascii_case("chunked")
    );
    if only_chunked {
        return None;
    }
    Some(closing(error_response(
        501,
        None,
        errors::invalid_request("Not Implemented: the only transfer coding served is chunked"),
    )))
}

/// A request body the transport can read: hyper's own, axum's, any
/// `http_body::Body` of bytes.
pub trait RequestBody:
    hyper::body::Body<Error: Into<BoxError>, Data: Send> + Send + 'static
{
}

impl<B> RequestBody for B where
    B: hyper::body::Body<Error: Into<BoxError>, Data: Send> + Send + 'static
{
}

/// The error type of request bodies.
pub(super) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The POST body, within the size limit and the time limit. A refused
/// body is not read to its end, so its answer closes the connection.
pub(super) async fn read_body<B: RequestBody>(
    body: B,
    limit: usize,
    timeout: Duration,
) -> Result<Bytes, Response<Body>> {
    let too_large = || {
        closing(error_response(
            413,
            None,
            errors::invalid_request(format!("Request body exceeds the {limit}-byte limit")),
        ))
    };
    // A body's least size is its `Content-Length` (hyper parsed it): a
    // larger one is refused unread.
    if body.size_hint().lower() > limit as u64 {
        return Err(too_large());
    }
    let mut collecting = std::pin::pin!(collect(body, limit));
    // A small body is most often whole at the first poll: the timer (made,
    // registered and dropped) is armed only for one that is not.
    let ready = std::future::poll_fn(|cx| Poll::Ready(collecting.as_mut().poll(cx))).await;
    let collected = match ready {
        Poll::Ready(collected) => Ok(collected),
        Poll::Pending => tokio::time::timeout(timeout, collecting).await,
    };
    let Ok(collected) = collected else {
        return Err(closing(error_response(
            408,
            None,
            errors::invalid_request(format!(
                "Request body not received within {} ms",
                timeout.as_millis()
            )),
        )));
    };
    match collected {
        Ok(body) => Ok(body),
        Err(Unread::TooLarge) => Err(too_large()),
        Err(Unread::Broken) => Err(status_only(StatusCode::BAD_REQUEST)),
    }
}

/// Why a body was not read whole.
enum Unread {
    TooLarge,
    Broken,
}

/// The body's data, at most `limit` bytes. The first chunk is kept as it
/// came (a small body is one), later ones are joined in a copy; trailers
/// are not part of the message.
async fn collect<B: RequestBody>(body: B, limit: usize) -> Result<Bytes, Unread> {
    let mut body = std::pin::pin!(body);
    let mut first = Bytes::new();
    let mut joined: Option<BytesMut> = None;
    let mut read = 0usize;
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let Ok(mut data) = frame.map_err(|_| Unread::Broken)?.into_data() else {
            continue;
        };
        let len = data.remaining();
        read = read.saturating_add(len);
        if read > limit {
            return Err(Unread::TooLarge);
        }
        if len == 0 {
            continue;
        }
        match &mut joined {
            None if first.is_empty() => first = data.copy_to_bytes(len),
            None => {
                let mut buffer = BytesMut::with_capacity(read);
                buffer.extend_from_slice(&first);
                buffer.put(data);
                joined = Some(buffer);
            }
            Some(buffer) => buffer.put(data),
        }
    }
    Ok(joined.map_or(first, BytesMut::freeze))
}

/// The media type of a header value, without parameters.
pub(super) fn media_type(value: &str) -> &str {
    let end = value.bytes().position(|b| b == b';').unwrap_or(value.len());
    value[..end].trim_ascii()
}

/// 415 for a body that is not declared JSON, 406 for a client that takes
/// neither JSON nor SSE. `Ok` says whether the client takes SSE: when it
/// sends no `Accept`, or names `text/event-stream` or `*/*`.
#[allow(
    clippy::result_large_err,
    reason = "returned once per POST straight into the answer; the async callers return the same"
)]
pub(super) fn check_media_types<'a>(
    content_type: Option<&HeaderValue>,
    accept: impl Iterator<Item = &'a HeaderValue>,
) -> Result<bool, Response<Body>> {
    if let Some(content_type) = content_type {
        let declared = content_type.to_str().map(media_type).unwrap_or_default();
        if !declared.eq_ignore_ascii_case("application/json") {
            return Err(error_response(
                415,
                None,
                errors::invalid_request(format!(
                    "Unsupported Content-Type `{}`: send application/json",
                    declared.to_ascii_lowercase()
                )),
            ));
        }
    }
    let (mut any, mut acceptable, mut sse) = (false, false, false);
    for value in accept {
        // The value the spec tells clients to send, before any parsing.
        if value.as_bytes() == b"application/json, text/event-stream" {
            (any, acceptable, sse) = (true, true, true);
            continue;
        }
        let Ok(value) = value.to_str() else { continue };
        any = true;
        // Bytes, not `str::split`: these values are short, and a searcher
        // per comma cost more than the comparisons.
        for range in value.as_bytes().split(|b| *b == b',') {
            let end = range.iter().position(|b| *b == b';').unwrap_or(range.len());
            let range = range[..end].trim_ascii();
            let is = |name: &[u8]| range.eq_ignore_ascii_case(name);
            let streams = is(b"text/event-stream") || is(b"*/*");
            sse |= streams;
            acceptable |=
                streams || is(b"application/json") || is(b"application/*") || is(b"text/*");
        }
    }
    if any && !acceptable {
        return Err(error_response(
            406,
            None,
            errors::invalid_request(
                "Not acceptable: the answer is application/json or text/event-stream",
            ),
        ));
    }
    Ok(sse || !any)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

    use std::collections::VecDeque;
    use std::pin::Pin;
    use std::task::Context;

    use hyper::body::Frame;

    use super::*;

    #[test]
    fn one_pass_counts_the_guarded_lines() {
        let mut headers = HeaderMap::new();
        let lines = GuardLines::scan(&headers);
        assert_eq!(
            (lines.hosts, lines.origins, lines.transfer_encoding),
            (0, 0, false)
        );
        for (name, value) in [
            (HOST, "a"),
            (ORIGIN, "http://o1"),
            (HOST, "b"),
            (ORIGIN, "http://o2"),
            (TRANSFER_ENCODING, "chunked"),
        ] {
            headers.append(name, HeaderValue::from_static(value));
        }
        let lines = GuardLines::scan(&headers);
        assert_eq!(
            (lines.hosts, lines.origins, lines.transfer_encoding),
            (2, 2, true)
        );
        assert_eq!(lines.host.map(HeaderValue::as_bytes), Some(&b"a"[..]));
        assert_eq!(
            lines.origin.map(HeaderValue::as_bytes),
            Some(&b"http://o1"[..])
        );
    }

    /// A body that yields the given frames, one per poll.
    struct Frames(VecDeque<Result<Frame<Bytes>, BoxError>>);

    impl hyper::body::Body for Frames {
        type Data = Bytes;
        type Error = BoxError;
        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
            Poll::Ready(self.0.pop_front())
        }
    }

    fn data(chunks: &[&'static str]) -> Frames {
        Frames(
            chunks
                .iter()
                .map(|c| Ok(Frame::data(Bytes::from_static(c.as_bytes()))))
                .collect(),
        )
    }

    fn media(lines: &[(&'static str, &'static str)]) -> Result<bool, u16> {
        let mut headers = hyper::HeaderMap::new();
        for (name, value) in lines {
            headers.append(*name, hyper::header::HeaderValue::from_static(value));
        }
        let lines = crate::http::mcp_headers::PostLines::scan(&headers);
        check_media_types(lines.content_type, lines.accept())
            .map_err(|refused| refused.status().as_u16())
    }

    #[test]
    fn media_types_say_whether_the_client_takes_sse() {
        assert_eq!(media(&[]), Ok(true));
        assert_eq!(media(&[("accept", "application/json")]), Ok(false));
        assert_eq!(media(&[("accept", "text/*")]), Ok(false));
        assert_eq!(
            media(&[("accept", "application/json, text/event-stream")]),
            Ok(true)
        );
        assert_eq!(
            media(&[("accept", "application/json,text/event-stream")]),
            Ok(true)
        );
        assert_eq!(
            media(&[("accept", "application/json, text/plain")]),
            Ok(false)
        );
        assert_eq!(
            media(&[("accept", "Application/JSON;q=1, */*;q=0.1")]),
            Ok(true)
        );
        assert_eq!(
            media(&[
                ("accept", "application/json"),
                ("accept", "TEXT/EVENT-STREAM")
            ]),
            Ok(true)
        );
        assert_eq!(media(&[("accept", "image/png")]), Err(406));
        assert_eq!(
            media(&[
                ("content-type", "text/plain"),
                ("accept", "application/json")
            ]),
            Err(415)
        );
        assert_eq!(
            media(&[("content-type", "application/json; charset=utf-8")]),
            Ok(true)
        );
    }

    #[tokio::test]
    async fn one_chunk_is_kept_as_it_came() {
        let body = collect(data(&["{\"a\":1}"]), 64).await.ok().unwrap();
        assert_eq!(&body[..], b"{\"a\":1}");
    }

    #[tokio::test]
    async fn chunks_are_joined_in_order_and_trailers_skipped() {
        let mut frames = data(&["{\"a\"", "", ":", "1}"]);
        frames
            .0
            .insert(2, Ok(Frame::trailers(hyper::HeaderMap::new())));
        let body = collect(frames, 7).await.ok().unwrap();
        assert_eq!(&body[..], b"{\"a\":1}");
    }

    #[tokio::test]
    async fn a_body_past_the_limit_is_refused_in_any_chunk() {
        assert!(matches!(
            collect(data(&["12345678"]), 7).await,
            Err(Unread::TooLarge)
        ));
        assert!(matches!(
            collect(data(&["1234", "5678"]), 7).await,
            Err(Unread::TooLarge)
        ));
    }

    #[tokio::test]
    async fn a_broken_body_is_not_read_on() {
        let mut frames = data(&["{", "}"]);
        frames.0.insert(1, Err("reset".into()));
        assert!(matches!(collect(frames, 64).await, Err(Unread::Broken)));
    }
}
