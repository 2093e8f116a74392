//! Feature `otel`: the client puts the current OpenTelemetry span's W3C
//! context into `_meta` on the wire, as a fake Streamable HTTP server on a
//! local port receives it.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod common;

use std::str::FromStr as _;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use mcp_era_client::{Client, ClientOptions, Era};
use opentelemetry::context::FutureExt as _;
use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState,
};
use serde_json::{Map, json};

fn modern_http() -> HttpHandler {
    Arc::new(move |req| {
        let body = &req.body;
        let result = match body["method"].as_str().unwrap_or("") {
            "server/discover" => discover_result(&["2026-07-28"], 0, "public"),
            "tools/call" => {
                json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}]})
            }
            _ => {
                return HttpResponse::json(
                    404,
                    &json!({"jsonrpc":"2.0","id":body["id"],"error":{"code":-32601,"message":"Method not found"}}),
                );
            }
        };
        HttpResponse::json(
            200,
            &json!({"jsonrpc":"2.0","id":body["id"],"result":result}),
        )
    })
}

#[tokio::test]
async fn requests_carry_the_current_trace_context_in_meta() {
    let (url, log) = http_server(modern_http()).await;
    let opts = ClientOptions {
        probe_timeout: Duration::from_secs(5),
        request_timeout: Duration::from_secs(5),
        ..Default::default()
    };
    // Outside a span: nothing is added.
    let client = Client::connect_http(&url, opts).await.unwrap();
    assert_eq!(client.era(), Era::Modern);

    let parent = SpanContext::new(
        TraceId::from_hex("0af7651916cd43dd8448eb211c80319c").unwrap(),
        SpanId::from_hex("b7ad6b7169203331").unwrap(),
        TraceFlags::SAMPLED,
        true,
        TraceState::from_str("rojo=00f067aa0ba902b7").unwrap(),
    );
    let cx = opentelemetry::Context::new().with_remote_span_context(parent);
    client
        .call_tool("echo", Map::new())
        .with_context(cx)
        .await
        .unwrap();

    let log = log.lock().unwrap();
    let discover = &log[0].body;
    assert_eq!(discover["method"], "server/discover");
    assert!(
        discover["params"]["_meta"].get("traceparent").is_none(),
        "{discover}"
    );
    let call = &log.last().unwrap().body;
    assert_eq!(call["method"], "tools/call");
    let meta = &call["params"]["_meta"];
    assert_eq!(
        meta["traceparent"],
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    );
    assert_eq!(meta["tracestate"], "rojo=00f067aa0ba902b7");
    // The client's own keys are still there.
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
}
