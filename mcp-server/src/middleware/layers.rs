//! The layers tower lacks: a rate limit per caller, a log line per request
//! with its timing, and a limit on the size of results.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tower::{BoxError, Layer, Service};

use crate::middleware::request::{BoxFuture, McpRequest, McpResponse, clipped, error_of};
use crate::wire::errors;

/// The longest tool name, prompt name or URI a log line carries.
const MAX_LOGGED_NAME: usize = 256;

/// A token bucket per caller: `requests` requests per `per`, in bursts of
/// up to `requests`. A caller over its rate gets
/// [`codes::RATE_LIMITED`](crate::errors::codes::RATE_LIMITED) with
/// `data.retryAfterMs`; other callers are unaffected. The caller is the
/// [`McpRequest::principal`]; an anonymous HTTP caller is its IP address
/// ([`McpRequest::peer_addr`]), so one anonymous client cannot spend
/// another's budget; stdio (one client) has one bucket. Over HTTP the
/// refusal is a 200 with a `Retry-After` header: the TypeScript SDK turns
/// a 429 into a transport failure and loses the JSON-RPC error.
///
/// Unlike tower's `RateLimitLayer`, which delays and counts per service
/// clone, the buckets are shared by every request the layer serves.
#[derive(Debug, Clone)]
pub struct RateLimitLayer {
    buckets: Arc<Buckets>,
}

#[derive(Debug)]
struct Buckets {
    capacity: f64,
    /// How long one token takes to come back.
    refill: Duration,
    by_caller: Mutex<HashMap<Caller, Bucket>>,
}

/// Whose bucket a request takes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Caller {
    Principal(String),
    /// An anonymous HTTP caller.
    Address(IpAddr),
    /// stdio, or a mounted service told no address.
    Unknown,
}

impl Caller {
    fn of(request: &McpRequest) -> Self {
        match (request.principal(), request.peer_addr()) {
            (Some(principal), _) => Self::Principal(principal.to_owned()),
            (None, Some(addr)) => Self::Address(addr.ip()),
            (None, None) => Self::Unknown,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Past this many callers, full buckets are forgotten (they hold nothing a
/// new bucket would not).
const FORGET_ABOVE: usize = 4096;

impl RateLimitLayer {
    /// `requests` requests per `per` for each caller (at least one).
    pub fn per_principal(requests: u32, per: Duration) -> Self {
        let requests = requests.max(1);
        Self {
            buckets: Arc::new(Buckets {
                capacity: f64::from(requests),
                refill: per / requests,
                by_caller: Mutex::new(HashMap::new()),
            }),
        }
    }
}

impl Buckets {
    /// Takes a token for `caller`, or says how long until one is back.
    fn take(&self, caller: Caller, now: Instant) -> Result<(), Duration> {
        let mut by_caller = self
            .by_caller
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if by_caller.len() > FORGET_ABOVE {
            by_caller.retain(|_, bucket| self.level(*bucket, now) < self.capacity);
        }
        let bucket = by_caller.entry(caller).or_insert(Bucket {
            tokens: self.capacity,
            at: now,
        });
        let tokens = self.level(*bucket, now);
        if tokens >= 1.0 {
            *bucket = Bucket {
                tokens: tokens - 1.0,
                at: now,
            };
            Ok(())
        } else {
            *bucket = Bucket { tokens, at: now };
            Err(self.refill.mul_f64(1.0 - tokens))
        }
    }

    fn level(&self, bucket: Bucket, now: Instant) -> f64 {
        let refilled = if self.refill.is_zero() {
            self.capacity
        } else {
            now.duration_since(bucket.at).as_secs_f64() / self.refill.as_secs_f64()
        };
        (bucket.tokens + refilled).min(self.capacity)
    }
}

impl<S> Layer<S> for RateLimitLayer {
    type Service = RateLimit<S>;

    fn layer(&self, inner: S) -> RateLimit<S> {
        RateLimit {
            inner,
            buckets: Arc::clone(&self.buckets),
        }
    }
}

/// The service of [`RateLimitLayer`].
#[derive(Debug, Clone)]
pub struct RateLimit<S> {
    inner: S,
    buckets: Arc<Buckets>,
}

impl<S> Service<McpRequest> for RateLimit<S>
where
    S: Service<McpRequest, Response = McpResponse>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        match self.buckets.take(Caller::of(&request), Instant::now()) {
            Ok(()) => {
                let future = self.inner.call(request);
                Box::pin(async move { future.await.map_err(Into::into) })
            }
            Err(wait) => Box::pin(std::future::ready(Ok(Err(errors::rate_limited(wait))))),
        }
    }
}

/// One `tracing` event per request when it ends, on the target
/// `mcp_era_server::requests` at `INFO`: method, name, caller, version,
/// era, how long it took, and how it ended (`ok`, `tool_error` for a tool
/// result with `isError`, or the JSON-RPC error code).
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestLogLayer {
    _private: (),
}

impl RequestLogLayer {
    /// The layer.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<S> Layer<S> for RequestLogLayer {
    type Service = RequestLog<S>;

    fn layer(&self, inner: S) -> RequestLog<S> {
        RequestLog { inner }
    }
}

/// The service of [`RequestLogLayer`].
#[derive(Debug, Clone)]
pub struct RequestLog<S> {
    inner: S,
}

impl<S> Service<McpRequest> for RequestLog<S>
where
    S: Service<McpRequest, Response = McpResponse>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let method = request.method().to_owned();
        // The name is the client's: a log line must not grow with it.
        let name = request.name().map(|name| clipped(name, MAX_LOGGED_NAME));
        let principal = request.principal().map(str::to_owned);
        let version = request.protocol_version().to_owned();
        let era = request.era();
        let started = Instant::now();
        let future = self.inner.call(request);
        Box::pin(async move {
            let answer = future.await.map_err(Into::into);
            let outcome = match &answer {
                Ok(Ok(reply)) if reply.is_tool_error() => "tool_error".to_owned(),
                Ok(Ok(_)) => "ok".to_owned(),
                Ok(Err(error)) => error.code.to_string(),
                Err(error) => error_of(error).code.to_string(),
            };
            tracing::info!(
                target: "mcp_era_server::requests",
                method,
                name = name.as_deref(),
                principal = principal.as_deref(),
                version,
                era = ?era,
                duration_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
                outcome,
                "MCP request"
            );
            answer
        })
    }
}

/// Refuses results larger than `limit` bytes with
/// [`codes::RESULT_TOO_LARGE`](crate::errors::codes::RESULT_TOO_LARGE), so
/// that a tool returning a huge document cannot flood a client's context.
#[derive(Debug, Clone, Copy)]
pub struct ResultLimitLayer {
    limit: usize,
}

impl ResultLimitLayer {
    /// Results of at most `limit` bytes (the `result` object as sent).
    pub fn new(limit: usize) -> Self {
        Self { limit }
    }
}

impl<S> Layer<S> for ResultLimitLayer {
    type Service = ResultLimit<S>;

    fn layer(&self, inner: S) -> ResultLimit<S> {
        ResultLimit {
            inner,
            limit: self.limit,
        }
    }
}

/// The service of [`ResultLimitLayer`].
#[derive(Debug, Clone)]
pub struct ResultLimit<S> {
    inner: S,
    limit: usize,
}

impl<S> Service<McpRequest> for ResultLimit<S>
where
    S: Service<McpRequest, Response = McpResponse>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let limit = self.limit;
        let future = self.inner.call(request);
        Box::pin(async move {
            let answer = future.await.map_err(Into::into)?;
            Ok(answer.and_then(|reply| {
                let size = reply.as_bytes().len();
                if size > limit {
                    Err(errors::result_too_large(size, limit))
                } else {
                    Ok(reply)
                }
            }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_refuses_past_its_burst_and_refills_with_time() {
        let layer = RateLimitLayer::per_principal(2, Duration::from_secs(1));
        let buckets = &layer.buckets;
        let alice = || Caller::Principal("alice".into());
        let start = Instant::now();
        assert!(buckets.take(alice(), start).is_ok());
        assert!(buckets.take(alice(), start).is_ok());
        let wait = buckets.take(alice(), start).unwrap_err();
        assert_eq!(wait, Duration::from_millis(500));
        // Another caller has its own bucket.
        assert!(buckets.take(Caller::Principal("bob".into()), start).is_ok());
        // Half a second later one token is back.
        let later = start + Duration::from_millis(500);
        assert!(buckets.take(alice(), later).is_ok());
        assert!(buckets.take(alice(), later).is_err());
    }
}
