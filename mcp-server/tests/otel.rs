//! `otel::TraceLayer` (feature `otel`) against the SDK's in-memory
//! exporters: requests go through the real dispatcher, and the exported
//! spans and metrics are read back: the parent from `_meta.traceparent`,
//! the attributes, the handler running inside the span, the metrics.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use mcp_era_server::mcp_era_types::v2026_07_28::CallToolResult;
use mcp_era_server::otel::TraceLayer;
use mcp_era_server::transport::MessageContext;
use mcp_era_server::{McpServer, McpServerExt, router};
use opentelemetry::trace::{SpanId, SpanKind, Status, TraceContextExt as _};
use opentelemetry::{KeyValue, Value as OtelValue};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};

#[derive(McpServer, Default)]
#[mcp(name = "traced", version = "1.0.0")]
struct Traced;

#[router]
impl Traced {
    /// Adds two numbers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }

    /// The id of the span current while the handler runs.
    #[tool]
    fn current_span(&self) -> String {
        opentelemetry::Context::current()
            .span()
            .span_context()
            .span_id()
            .to_string()
    }

    /// Never answers.
    #[tool]
    async fn stall(&self) -> String {
        std::future::pending::<()>().await;
        String::new()
    }

    /// A tool that fails (`isError`).
    #[tool]
    fn broken(&self) -> CallToolResult {
        CallToolResult::error("broken on purpose")
    }
}

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

fn call(id: i64, tool: &str, arguments: Value, trace: Option<(&str, &str)>) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let Some((traceparent, tracestate)) = trace {
        meta["traceparent"] = json!(traceparent);
        meta["tracestate"] = json!(tracestate);
    }
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": meta},
    })
}

struct Telemetry {
    spans: InMemorySpanExporter,
    tracers: SdkTracerProvider,
    metrics: InMemoryMetricExporter,
    meters: SdkMeterProvider,
}

fn telemetry() -> Telemetry {
    let spans = InMemorySpanExporter::default();
    let tracers = SdkTracerProvider::builder()
        .with_simple_exporter(spans.clone())
        .build();
    let metrics = InMemoryMetricExporter::default();
    let meters = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics.clone()).build())
        .build();
    Telemetry {
        spans,
        tracers,
        metrics,
        meters,
    }
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

#[track_caller]
fn has(span: &SpanData, key: &str, value: impl Into<OtelValue>) {
    assert_eq!(
        attribute(span, key),
        Some(&value.into()),
        "{key} on {span:?}"
    );
}

fn span_named<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    spans
        .iter()
        .find(|span| span.name == name)
        .unwrap_or_else(|| panic!("no span {name:?} in {spans:?}"))
}

#[tokio::test]
async fn the_span_is_a_child_of_the_meta_traceparent() {
    let t = telemetry();
    let server = Traced.layer(TraceLayer::with_providers(&t.tracers, &t.meters));
    let ctx = MessageContext::stdio();

    let traceparent = format!("00-{TRACE_ID}-{PARENT_ID}-01");
    let outcome = server
        .handle_value(
            call(
                7,
                "add",
                json!({"a": 2, "b": 3}),
                Some((&traceparent, "vendor=v1")),
            ),
            &ctx,
        )
        .await;
    let body = outcome.json().unwrap();
    assert_eq!(body["result"]["content"][0]["text"], json!("5"), "{body}");

    let spans = t.spans.get_finished_spans().unwrap();
    let span = span_named(&spans, "tools/call add");
    assert_eq!(span.span_context.trace_id().to_string(), TRACE_ID);
    assert_eq!(span.parent_span_id.to_string(), PARENT_ID);
    assert!(span.parent_span_is_remote);
    assert_eq!(span.span_context.trace_state().get("vendor"), Some("v1"));
    assert_eq!(span.span_kind, SpanKind::Server);
    assert_eq!(span.status, Status::Unset);
    has(span, "mcp.method.name", "tools/call");
    has(span, "gen_ai.tool.name", "add");
    has(span, "gen_ai.operation.name", "execute_tool");
    has(span, "mcp.protocol.version", "2026-07-28");
    has(span, "mcp.era", "modern");
    has(span, "jsonrpc.request.id", "7");
    has(span, "mcp.tool.is_error", false);
    assert_eq!(attribute(span, "error.type"), None);
}

#[tokio::test]
async fn over_http_the_w3c_headers_name_the_parent_when_meta_does_not() {
    let t = telemetry();
    let server = Traced.layer(TraceLayer::with_providers(&t.tracers, &t.meters));
    let header_parent = "b7ad6b7169203331";
    let request = http::Request::post("/mcp")
        .header("traceparent", format!("00-{TRACE_ID}-{header_parent}-01"))
        .header("tracestate", "vendor=header")
        .body(())
        .unwrap();
    let ctx =
        MessageContext::stdio().with_http_request(std::sync::Arc::new(request.into_parts().0));

    let plain = call(1, "add", json!({"a": 1, "b": 1}), None);
    server.handle_value(plain, &ctx).await;
    // `_meta` wins over the headers.
    let traceparent = format!("00-{TRACE_ID}-{PARENT_ID}-01");
    let in_meta = call(
        2,
        "current_span",
        json!({}),
        Some((&traceparent, "vendor=meta")),
    );
    server.handle_value(in_meta, &ctx).await;

    let spans = t.spans.get_finished_spans().unwrap();
    let from_headers = span_named(&spans, "tools/call add");
    assert_eq!(from_headers.span_context.trace_id().to_string(), TRACE_ID);
    assert_eq!(from_headers.parent_span_id.to_string(), header_parent);
    assert_eq!(
        from_headers.span_context.trace_state().get("vendor"),
        Some("header")
    );
    let from_meta = span_named(&spans, "tools/call current_span");
    assert_eq!(from_meta.parent_span_id.to_string(), PARENT_ID);
    assert_eq!(
        from_meta.span_context.trace_state().get("vendor"),
        Some("meta")
    );
}

#[tokio::test]
async fn without_a_traceparent_the_span_is_a_root_and_current_in_the_handler() {
    let t = telemetry();
    let server = Traced.layer(TraceLayer::with_providers(&t.tracers, &t.meters));
    let ctx = MessageContext::stdio();

    // A malformed traceparent is no parent either.
    let bad = Some(("00-XYZ-00f067aa0ba902b7-01", ""));
    let body = server
        .handle_value(call(1, "current_span", json!({}), bad), &ctx)
        .await
        .json()
        .unwrap();
    let seen = body["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();

    let spans = t.spans.get_finished_spans().unwrap();
    let span = span_named(&spans, "tools/call current_span");
    assert_eq!(span.parent_span_id, SpanId::INVALID);
    assert_ne!(span.span_context.trace_id().to_string(), TRACE_ID);
    // The handler ran with the request's span as the current one.
    assert_eq!(seen, span.span_context.span_id().to_string());
}

#[tokio::test]
async fn failures_mark_the_span_and_the_metrics() {
    let t = telemetry();
    let server = Traced.layer(TraceLayer::with_providers(&t.tracers, &t.meters));
    let ctx = MessageContext::stdio();

    for (id, tool, arguments) in [
        (1, "add", json!({"a": 1, "b": 1})),
        (2, "broken", json!({})),
        (3, "no_such_tool", json!({})),
    ] {
        server
            .handle_value(call(id, tool, arguments, None), &ctx)
            .await;
    }

    let spans = t.spans.get_finished_spans().unwrap();
    let broken = span_named(&spans, "tools/call broken");
    has(broken, "mcp.tool.is_error", true);
    has(broken, "error.type", "tool_error");
    assert!(matches!(broken.status, Status::Error { .. }), "{broken:?}");

    let unknown = span_named(&spans, "tools/call no_such_tool");
    has(unknown, "error.type", "-32602");
    has(unknown, "rpc.response.status_code", "-32602");
    assert!(
        matches!(unknown.status, Status::Error { .. }),
        "{unknown:?}"
    );

    t.meters.force_flush().unwrap();
    let exported = t.metrics.get_finished_metrics().unwrap();
    let metrics: Vec<_> = exported
        .iter()
        .flat_map(|resource| resource.scope_metrics())
        .filter(|scope| scope.scope().name() == "mcp-era-server")
        .flat_map(|scope| scope.metrics())
        .collect();
    let find = |name: &str| {
        metrics
            .iter()
            .rev()
            .find(|metric| metric.name() == name)
            .unwrap_or_else(|| panic!("no metric {name}"))
    };
    let sum = |name: &str, error: Option<&str>| -> u64 {
        let AggregatedMetrics::U64(MetricData::Sum(sum)) = find(name).data() else {
            panic!("{name} is not a u64 sum");
        };
        sum.data_points()
            .filter(|point| {
                let error_type = point
                    .attributes()
                    .find(|kv| kv.key.as_str() == "error.type")
                    .map(|kv| kv.value.to_string());
                error.is_none_or(|e| error_type.as_deref() == Some(e))
            })
            .map(|point| point.value())
            .sum()
    };
    assert_eq!(sum("mcp.server.requests", None), 3);
    assert_eq!(sum("mcp.server.errors", None), 2);
    assert_eq!(sum("mcp.server.errors", Some("tool_error")), 1);
    assert_eq!(sum("mcp.server.errors", Some("-32602")), 1);

    let AggregatedMetrics::F64(MetricData::Histogram(duration)) =
        find("mcp.server.operation.duration").data()
    else {
        panic!("the duration is not a histogram");
    };
    let count: u64 = duration.data_points().map(|point| point.count()).sum();
    assert_eq!(count, 3);
    let add_point = duration
        .data_points()
        .find(|point| {
            point
                .attributes()
                .any(|kv| *kv == KeyValue::new("gen_ai.tool.name", "add"))
        })
        .expect("a data point for add");
    assert!(
        add_point
            .attributes()
            .any(|kv| *kv == KeyValue::new("mcp.method.name", "tools/call"))
    );
}

#[tokio::test]
async fn a_request_dropped_before_its_answer_still_ends_its_span() {
    let t = telemetry();
    let server = Traced.layer(TraceLayer::with_providers(&t.tracers, &t.meters));
    let ctx = MessageContext::stdio();

    let call = server.handle_value(call(1, "stall", json!({}), None), &ctx);
    let gave_up = tokio::time::timeout(std::time::Duration::from_millis(50), call).await;
    assert!(gave_up.is_err(), "stall answered");

    let spans = t.spans.get_finished_spans().unwrap();
    let span = span_named(&spans, "tools/call stall");
    has(span, "error.type", "cancelled");
    assert!(matches!(span.status, Status::Error { .. }), "{span:?}");
}

#[tokio::test]
async fn client_chosen_names_never_become_metric_series_and_are_cut_on_spans() {
    let t = telemetry();
    let server = Traced.layer(TraceLayer::with_providers(&t.tracers, &t.meters));
    let ctx = MessageContext::stdio();

    // Unknown tools with huge names, as a legacy session (no `Mcp-Name`
    // header to cap them) could send; then one known tool.
    for id in 0..5 {
        let name = format!("{id}{}", "x".repeat(100_000));
        server
            .handle_value(call(id, &name, json!({}), None), &ctx)
            .await;
    }
    server
        .handle_value(call(9, "add", json!({"a": 1, "b": 2}), None), &ctx)
        .await;

    let spans = t.spans.get_finished_spans().unwrap();
    assert_eq!(spans.len(), 6);
    for span in &spans {
        assert!(
            span.name.len() <= 300,
            "span name of {} bytes",
            span.name.len()
        );
        for kv in &span.attributes {
            let len = kv.value.as_str().len();
            assert!(len <= 300, "{} of {len} bytes", kv.key);
        }
        if let Status::Error { description } = &span.status {
            assert!(
                description.len() <= 300,
                "status of {} bytes",
                description.len()
            );
        }
    }

    t.meters.force_flush().unwrap();
    let exported = t.metrics.get_finished_metrics().unwrap();
    let mut names = std::collections::BTreeSet::new();
    for metric in exported
        .iter()
        .flat_map(|resource| resource.scope_metrics())
        .flat_map(|scope| scope.metrics())
    {
        let AggregatedMetrics::U64(MetricData::Sum(sum)) = metric.data() else {
            continue;
        };
        for point in sum.data_points() {
            for kv in point.attributes() {
                if kv.key.as_str() == "gen_ai.tool.name" {
                    names.insert(kv.value.to_string());
                }
            }
        }
    }
    let expected: std::collections::BTreeSet<String> =
        ["_OTHER".to_owned(), "add".to_owned()].into();
    assert_eq!(names, expected);
}
