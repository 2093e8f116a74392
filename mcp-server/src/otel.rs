//! OpenTelemetry for MCP requests (feature `otel`): [`TraceLayer`], a
//! middleware layer that makes one span per request, parented by the W3C
//! trace context the client put in `_meta`, and records request metrics.
//!
//! # Tracing
//!
//! The spec reserves the `_meta` keys `traceparent` and `tracestate` for
//! the W3C Trace Context of a request. [`TraceLayer`] reads them (in both
//! eras) and starts a `SERVER` span whose parent is the client's span, so a
//! tool call shows up inside the client's trace. The span is current while
//! the handler runs: spans the handler starts are its children.
//!
//! Span name: `{method} {target}` (`tools/call add`, `prompts/get greet`),
//! else the method. Attributes, after the OpenTelemetry MCP semantic
//! conventions:
//!
//! | attribute | when |
//! |---|---|
//! | `mcp.method.name` | always |
//! | `jsonrpc.request.id` | always, as a string |
//! | `mcp.protocol.version` | always |
//! | `mcp.era` | always: `modern` or `legacy` (this crate's) |
//! | `gen_ai.tool.name`, `gen_ai.operation.name` = `execute_tool` | `tools/call` |
//! | `mcp.tool.is_error` | `tools/call` answered with a result: its `isError` (this crate's) |
//! | `gen_ai.prompt.name` | `prompts/get` |
//! | `mcp.resource.uri` | `resources/read` |
//! | `error.type`, `rpc.response.status_code` | a JSON-RPC error: its code; `error.type` is `tool_error` for a result with `isError`, `cancelled` for a request dropped before its answer |
//!
//! A failed request also gets the span status `Error` with the error's
//! message. Without a `traceparent` in `_meta`, the parent is the one the
//! HTTP request's own `traceparent`/`tracestate` headers name (what HTTP
//! client instrumentation sends), else the current context where the
//! request is served (usually none: a new trace).
//!
//! Every value the client chose (a tool or prompt name, a URI, the request
//! id, an error message that repeats them) is cut to 256 bytes on spans.
//!
//! Metrics (meter `mcp-era-server`), with the attributes `mcp.method.name`,
//! `mcp.protocol.version`, `mcp.era`, the tool or prompt name, and
//! `error.type` on failures. A metric keeps one series per distinct set of
//! attributes for the life of the process, so the name is one the server
//! answered with a result (a name of its catalogue), at most 128 bytes and
//! one of at most 1,000 such names; any other name (an unknown tool, a call
//! cancelled before any call of that tool was answered) is [`OTHER`]:
//!
//! - `mcp.server.operation.duration` (histogram, seconds): one per request;
//! - `mcp.server.requests` (counter): one per request;
//! - `mcp.server.errors` (counter): one per JSON-RPC error, tool result
//!   with `isError`, or cancelled request.
//!
//! The layer only uses the OpenTelemetry API: where spans and metrics go is
//! the application's choice, made by installing providers. With the SDK and
//! the OTLP exporter (`opentelemetry_sdk` and `opentelemetry-otlp` with
//! `http-proto` and `reqwest-blocking-client`, release 0.33):
//!
//! ```no_run
//! # use mcp_era_server::{McpServer, router};
//! # #[derive(McpServer, Default)]
//! # #[mcp(name = "calc", version = "1.0.0")]
//! # struct Calc;
//! # #[router]
//! # impl Calc {
//! #     /// Adds two numbers.
//! #     #[tool]
//! #     fn add(&self, a: i64, b: i64) -> String { (a + b).to_string() }
//! # }
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_era_server::McpServerExt;
//! use mcp_era_server::http::HttpConfig;
//! use mcp_era_server::otel::TraceLayer;
//! use opentelemetry_otlp::{MetricExporter, SpanExporter, WithExportConfig};
//! use opentelemetry_sdk::metrics::SdkMeterProvider;
//! use opentelemetry_sdk::trace::SdkTracerProvider;
//!
//! // Before any runtime starts: the blocking HTTP client runs on the
//! // SDK's export threads. The endpoint also comes from the usual
//! // OTEL_EXPORTER_OTLP_ENDPOINT variable when it is not set here.
//! let spans = SpanExporter::builder()
//!     .with_http()
//!     .with_endpoint("http://127.0.0.1:4318/v1/traces")
//!     .build()?;
//! let tracers = SdkTracerProvider::builder().with_batch_exporter(spans).build();
//! let metrics = MetricExporter::builder()
//!     .with_http()
//!     .with_endpoint("http://127.0.0.1:4318/v1/metrics")
//!     .build()?;
//! let meters = SdkMeterProvider::builder().with_periodic_exporter(metrics).build();
//!
//! let server = Calc.layer(TraceLayer::with_providers(&tracers, &meters));
//! mcp_era_server::http::run(server, HttpConfig::default())?;
//!
//! // After ctrl-c or SIGTERM: send what is still buffered.
//! tracers.shutdown()?;
//! meters.shutdown()?;
//! # Ok(())
//! # }
//! ```
//!
//! [`TraceLayer::new`] uses the global providers instead
//! (`opentelemetry::global::set_tracer_provider`, `set_meter_provider`), as
//! they are when the layer is made: install them first.
//!
//! On the client side, `mcp_era_client`'s feature `otel` writes the current
//! trace context (`opentelemetry::Context::current()`) into each request's
//! `_meta` as `traceparent`/`tracestate`: a client span around a call to
//! this server becomes the parent of the server's span.

use std::borrow::Cow;
use std::collections::HashSet;
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Poll};
use std::time::Instant;

use mcp_era_types::v2026_07_28::{RequestId, RequestMetaObject};
use opentelemetry::context::FutureExt as _;
use opentelemetry::global::{self, BoxedSpan, BoxedTracer};
use opentelemetry::metrics::{Counter, Histogram, Meter, MeterProvider};
use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind, Status, TraceContextExt as _, TraceFlags, TraceId, TraceState,
    Tracer as _, TracerProvider,
};
use opentelemetry::{Context, InstrumentationScope, KeyValue};
use tower::{Layer, Service};

use crate::middleware::{BoxError, BoxFuture, McpRequest, McpResponse, clipped, error_of};
use crate::model::context::Era;

/// The instrumentation scope of the layer's tracer and meter.
pub const SCOPE: &str = "mcp-era-server";

/// The `_meta` key of the W3C `traceparent`.
pub const TRACEPARENT: &str = "traceparent";
/// The `_meta` key of the W3C `tracestate`.
pub const TRACESTATE: &str = "tracestate";

/// The metrics' tool or prompt name when the name is not one the server
/// answered (OpenTelemetry's word for a value outside the known set).
pub const OTHER: &str = "_OTHER";

/// Longest client-chosen text put on a span.
const MAX_SPAN_TEXT: usize = 256;

/// Longest name the metrics carry (the spec's longest tool name).
const MAX_METRIC_NAME: usize = 128;

/// Most distinct tool and prompt names the metrics carry.
const MAX_METRIC_NAMES: usize = 1_000;

/// A span per request and request metrics: see the [module docs](self).
#[derive(Clone)]
pub struct TraceLayer {
    instruments: Arc<Instruments>,
}

impl std::fmt::Debug for TraceLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceLayer").finish_non_exhaustive()
    }
}

struct Instruments {
    tracer: BoxedTracer,
    duration: Histogram<f64>,
    requests: Counter<u64>,
    errors: Counter<u64>,
    names: MetricNames,
}

/// The tool and prompt names the metrics may carry: those the server has
/// answered with a result, so names of its catalogue, bounded in length
/// and number. A name the client made up never becomes a metric series.
#[derive(Default)]
struct MetricNames {
    tools: Mutex<HashSet<Box<str>>>,
    prompts: Mutex<HashSet<Box<str>>>,
}

impl MetricNames {
    /// The metric value of `name` (of a tool, or else a prompt), learning
    /// it when the server `answered` it with a result.
    fn value(&self, tool: bool, name: &str, answered: bool) -> String {
        let set = if tool { &self.tools } else { &self.prompts };
        let mut known = set.lock().unwrap_or_else(PoisonError::into_inner);
        if known.contains(name) {
            return name.to_owned();
        }
        if answered && name.len() <= MAX_METRIC_NAME && known.len() < MAX_METRIC_NAMES {
            known.insert(name.into());
            return name.to_owned();
        }
        OTHER.to_owned()
    }
}

fn scope() -> InstrumentationScope {
    InstrumentationScope::builder(SCOPE)
        .with_version(env!("CARGO_PKG_VERSION"))
        .build()
}

impl Default for TraceLayer {
    fn default() -> Self {
        Self::new()
    }
}

impl TraceLayer {
    /// The layer, with the global tracer and meter providers as they are
    /// now (OpenTelemetry's no-op ones if none were installed).
    pub fn new() -> Self {
        Self::with_parts(
            global::tracer_with_scope(scope()),
            &global::meter_with_scope(scope()),
        )
    }

    /// The layer, with these providers (an SDK's, or test ones).
    pub fn with_providers<T, M>(tracers: &T, meters: &M) -> Self
    where
        T: TracerProvider,
        T::Tracer: Send + Sync + 'static,
        <T::Tracer as opentelemetry::trace::Tracer>::Span: Send + Sync + 'static,
        M: MeterProvider,
    {
        let tracer = BoxedTracer::new(Box::new(tracers.tracer_with_scope(scope())));
        Self::with_parts(tracer, &meters.meter_with_scope(scope()))
    }

    fn with_parts(tracer: BoxedTracer, meter: &Meter) -> Self {
        let duration = meter
            .f64_histogram("mcp.server.operation.duration")
            .with_unit("s")
            .with_description("How long the server took to answer an MCP request")
            .build();
        let requests = meter
            .u64_counter("mcp.server.requests")
            .with_unit("{request}")
            .with_description("MCP requests served")
            .build();
        let errors = meter
            .u64_counter("mcp.server.errors")
            .with_unit("{error}")
            .with_description("MCP requests answered with a JSON-RPC error or a tool error")
            .build();
        Self {
            instruments: Arc::new(Instruments {
                tracer,
                duration,
                requests,
                errors,
                names: MetricNames::default(),
            }),
        }
    }
}

impl<S> Layer<S> for TraceLayer {
    type Service = Trace<S>;

    fn layer(&self, inner: S) -> Trace<S> {
        Trace {
            inner,
            instruments: Arc::clone(&self.instruments),
        }
    }
}

/// The service of [`TraceLayer`].
#[derive(Clone)]
pub struct Trace<S> {
    inner: S,
    instruments: Arc<Instruments>,
}

impl<S> std::fmt::Debug for Trace<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trace").finish_non_exhaustive()
    }
}

/// The parent a request names in `_meta` (`traceparent`, `tracestate`),
/// as a remote span context; `None` when `traceparent` is absent or not a
/// valid W3C value. An invalid `tracestate` is dropped, the parent kept.
pub fn remote_parent(meta: &RequestMetaObject) -> Option<SpanContext> {
    let traceparent = meta.extra.get(TRACEPARENT)?.as_str()?;
    let (trace_id, span_id, flags) = parse_traceparent(traceparent)?;
    let state = meta
        .extra
        .get(TRACESTATE)
        .and_then(|value| value.as_str())
        .and_then(|value| TraceState::from_str(value).ok())
        .unwrap_or_default();
    Some(SpanContext::new(trace_id, span_id, flags, true, state))
}

/// The parent named by the W3C `traceparent`/`tracestate` HTTP headers of
/// the request, for clients whose HTTP instrumentation propagates the
/// context in headers rather than in `_meta`.
pub fn http_parent(parts: &http::request::Parts) -> Option<SpanContext> {
    let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
    let (trace_id, span_id, flags) = parse_traceparent(header(TRACEPARENT)?)?;
    let state = header(TRACESTATE)
        .and_then(|value| TraceState::from_str(value).ok())
        .unwrap_or_default();
    Some(SpanContext::new(trace_id, span_id, flags, true, state))
}

/// W3C Trace Context `traceparent`: `version-traceid-spanid-flags`, all
/// lowercase hex; version `ff` and all-zero ids are invalid; a later
/// version may append fields, which are ignored.
fn parse_traceparent(value: &str) -> Option<(TraceId, SpanId, TraceFlags)> {
    let mut parts = value.trim().split('-');
    let version = parts.next()?;
    let (trace_id, span_id, flags) = (parts.next()?, parts.next()?, parts.next()?);
    let rest = parts.next();
    let lower_hex = |s: &str, len: usize| {
        s.len() == len
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    if !lower_hex(version, 2) || version == "ff" || (version == "00" && rest.is_some()) {
        return None;
    }
    if !lower_hex(trace_id, 32) || !lower_hex(span_id, 16) || !lower_hex(flags, 2) {
        return None;
    }
    let trace_id = TraceId::from_hex(trace_id).ok()?;
    let span_id = SpanId::from_hex(span_id).ok()?;
    if trace_id == TraceId::INVALID || span_id == SpanId::INVALID {
        return None;
    }
    // Only the sampled bit is defined; others are zeroed (W3C "other flags").
    let flags = u8::from_str_radix(flags, 16).ok()?;
    Some((
        trace_id,
        span_id,
        TraceFlags::new(flags) & TraceFlags::SAMPLED,
    ))
}

fn era_name(era: Era) -> &'static str {
    match era {
        Era::Modern => "modern",
        Era::Legacy => "legacy",
    }
}

fn id_string(id: &RequestId) -> String {
    match id {
        RequestId::String(s) => clipped(s, MAX_SPAN_TEXT),
        RequestId::Integer(n) => n.to_string(),
    }
}

/// What the span and the metrics need of a request, read before the
/// request moves into the inner service.
struct Described {
    span_name: Cow<'static, str>,
    span_attributes: Vec<KeyValue>,
    metric_attributes: Vec<KeyValue>,
    /// The tool or prompt named, for the metrics once the answer says
    /// whether the server knows it.
    named: Option<Named>,
    is_tool_call: bool,
}

/// The tool (or prompt) a request named.
struct Named {
    tool: bool,
    /// Cut to [`MAX_METRIC_NAME`] + 1 bytes: enough to tell it is too long.
    name: String,
}

impl Named {
    fn attribute(&self, names: &MetricNames, answered: bool) -> KeyValue {
        let key = if self.tool {
            "gen_ai.tool.name"
        } else {
            "gen_ai.prompt.name"
        };
        KeyValue::new(key, names.value(self.tool, &self.name, answered))
    }
}

fn describe(request: &McpRequest) -> Described {
    let method = request.method().to_owned();
    let common = [
        KeyValue::new("mcp.method.name", method.clone()),
        KeyValue::new(
            "mcp.protocol.version",
            request.protocol_version().to_owned(),
        ),
        KeyValue::new("mcp.era", era_name(request.era())),
    ];
    let mut span_attributes = common.to_vec();
    span_attributes.push(KeyValue::new("jsonrpc.request.id", id_string(request.id())));
    let metric_attributes = common.to_vec();
    let name = request.name();
    let mut span_name = Cow::Owned(method.clone());
    let mut named = None;
    match (method.as_str(), name) {
        ("tools/call" | "prompts/get", Some(name)) => {
            let tool = method == "tools/call";
            let shown = clipped(name, MAX_SPAN_TEXT);
            span_name = Cow::Owned(format!("{method} {shown}"));
            if tool {
                span_attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
                span_attributes.push(KeyValue::new("gen_ai.tool.name", shown));
            } else {
                span_attributes.push(KeyValue::new("gen_ai.prompt.name", shown));
            }
            named = Some(Named {
                tool,
                name: clipped(name, MAX_METRIC_NAME + 1),
            });
        }
        // URIs stay off the metrics: too many distinct values.
        ("resources/read", Some(uri)) => {
            span_attributes.push(KeyValue::new(
                "mcp.resource.uri",
                clipped(uri, MAX_SPAN_TEXT),
            ));
        }
        _ => {}
    }
    Described {
        span_name,
        span_attributes,
        metric_attributes,
        named,
        is_tool_call: method == "tools/call",
    }
}

impl<S> Service<McpRequest> for Trace<S>
where
    S: Service<McpRequest, Response = McpResponse>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let described = describe(&request);
        // The parent named in `_meta` wins, then the HTTP request's W3C
        // headers; else the caller's current context (an HTTP middleware's
        // span, say), often none.
        let current = Context::current();
        let remote = remote_parent(&request.context().meta)
            .or_else(|| request.context().http_request().and_then(http_parent));
        let parent = match remote {
            Some(remote) => current.with_remote_span_context(remote),
            None => current,
        };
        let instruments = Arc::clone(&self.instruments);
        let span: BoxedSpan = instruments.tracer.build_with_context(
            instruments
                .tracer
                .span_builder(described.span_name)
                .with_kind(SpanKind::Server)
                .with_attributes(described.span_attributes),
            &parent,
        );
        let cx = parent.with_span(span);
        let future = self.inner.call(request).with_context(cx.clone());
        let mut in_flight = InFlight {
            cx,
            instruments,
            attributes: described.metric_attributes,
            named: described.named,
            is_tool_call: described.is_tool_call,
            started: Instant::now(),
            done: false,
        };
        Box::pin(async move {
            let answer = future.await.map_err(Into::into);
            in_flight.finish(&answer);
            answer
        })
    }
}

/// How a request failed: `error.type`, the JSON-RPC code if any, the message.
type Failure = (String, Option<i64>, String);

/// A request between its span's start and its answer. Dropped unfinished
/// (the client cancelled, the connection closed), it still ends the span
/// and counts, as `error.type` `cancelled`.
struct InFlight {
    cx: Context,
    instruments: Arc<Instruments>,
    attributes: Vec<KeyValue>,
    named: Option<Named>,
    is_tool_call: bool,
    started: Instant,
    done: bool,
}

impl InFlight {
    fn finish(&mut self, answer: &Result<McpResponse, BoxError>) {
        let failure = match answer {
            Ok(Ok(reply)) => {
                let is_error = self.is_tool_call && reply.is_tool_error();
                if self.is_tool_call {
                    self.cx
                        .span()
                        .set_attribute(KeyValue::new("mcp.tool.is_error", is_error));
                }
                is_error.then(|| {
                    let message = "The tool's result has isError".to_owned();
                    ("tool_error".to_owned(), None, message)
                })
            }
            Ok(Err(error)) => Some((
                error.code.to_string(),
                Some(error.code),
                error.message.clone(),
            )),
            Err(error) => {
                let error = error_of(error);
                Some((error.code.to_string(), Some(error.code), error.message))
            }
        };
        self.record(failure, matches!(answer, Ok(Ok(_))));
    }

    /// Ends the span and counts the request; `answered`: with a result.
    fn record(&mut self, failure: Option<Failure>, answered: bool) {
        self.done = true;
        let span = self.cx.span();
        let mut attributes = std::mem::take(&mut self.attributes);
        if let Some(named) = &self.named {
            attributes.push(named.attribute(&self.instruments.names, answered));
        }
        if let Some((kind, code, message)) = failure {
            span.set_attribute(KeyValue::new("error.type", kind.clone()));
            if let Some(code) = code {
                span.set_attribute(KeyValue::new("rpc.response.status_code", code.to_string()));
            }
            // Error messages may repeat what the client sent.
            span.set_status(Status::error(clipped(&message, MAX_SPAN_TEXT)));
            attributes.push(KeyValue::new("error.type", kind));
            self.instruments.errors.add(1, &attributes);
        }
        self.instruments.requests.add(1, &attributes);
        self.instruments
            .duration
            .record(self.started.elapsed().as_secs_f64(), &attributes);
        span.end();
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if !self.done {
            let message = "The request ended before its answer".to_owned();
            self.record(Some(("cancelled".to_owned(), None, message)), false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent_parses_per_w3c() {
        let ok = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let (trace, span, flags) = parse_traceparent(ok).expect("valid traceparent");
        assert_eq!(trace.to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(span.to_string(), "00f067aa0ba902b7");
        assert!(flags.is_sampled());
        // Unknown flags are zeroed; a later version may carry more fields.
        let later = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-02-extra";
        let (_, _, flags) = parse_traceparent(later).expect("later version");
        assert!(!flags.is_sampled());
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ] {
            assert!(parse_traceparent(bad).is_none(), "{bad:?} accepted");
        }
    }
}
