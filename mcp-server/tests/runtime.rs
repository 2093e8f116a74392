//! Runtime additions of issue 4 through the entry point: declared cache
//! defaults, the legacy bridge's result shape, log gating.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::sync::{Arc, Mutex};

use mcp_era_server::mcp_era_types::v2026_07_28::*;
use mcp_era_server::transport::{LegacySession, MessageContext};
use mcp_era_server::{HandlerResult, McpServer, McpServerExt, RequestContext, ToolsHandler};
use serde_json::{Value, json};

#[derive(McpServer)]
#[mcp(name = "cached", version = "1.0.0", tools, logging, cache(ttl_ms = 1234, scope = "public"), versions(legacy = ["2025-11-25"]))]
struct Cached;

impl ToolsHandler for Cached {
    async fn list_tools(
        &self,
        _: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        let tool = Tool::new(ToolInputSchema::new(), "t");
        Ok(ListToolsResult::new(
            vec![tool],
            CacheHints::new(ctx.cache_ttl_ms(), ctx.cache_scope()),
        ))
    }
    async fn call_tool(
        &self,
        _: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        ctx.log(LoggingLevel::Debug, "debug line");
        ctx.log(LoggingLevel::Error, "error line");
        let text = TextContent::new("done");
        Ok(CallToolResult::new(vec![ContentBlock::TextContent(text)]).into())
    }
}

fn request(method: &str, meta_extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    for (k, v) in meta_extra.as_object().unwrap() {
        meta[k] = v.clone();
    }
    json!({"jsonrpc":"2.0","id":1,"method":method,"params":{"name":"t","_meta":meta}})
}

fn run<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

#[test]
fn declared_cache_defaults_reach_list_results() {
    let outcome =
        run(Cached.handle_value(request("tools/list", json!({})), &MessageContext::stdio()));
    let result = &outcome.json().unwrap()["result"];
    assert_eq!(
        (result["ttlMs"].clone(), result["cacheScope"].clone()),
        (json!(1234), json!("public"))
    );
}

fn collect() -> (Arc<Mutex<Vec<Value>>>, MessageContext) {
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let ctx = MessageContext::stdio().with_sink(move |m| sink.lock().unwrap().push(m));
    (seen, ctx)
}

#[test]
fn logs_only_when_asked_and_at_or_above_the_level() {
    let (seen, ctx) = collect();
    run(Cached.handle_value(request("tools/call", json!({})), &ctx));
    assert!(seen.lock().unwrap().is_empty());
    let (seen, ctx) = collect();
    let asked = request(
        "tools/call",
        json!({"io.modelcontextprotocol/logLevel": "warning"}),
    );
    run(Cached.handle_value(asked, &ctx));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0]["params"],
        json!({"level": "error", "data": "error line"})
    );
}

#[test]
fn legacy_results_lose_modern_fields() {
    let session = LegacySession::new(
        "2025-11-25".into(),
        json!({}),
        json!({"name":"c","version":"1"}),
    );
    let ctx = MessageContext::stdio().with_legacy_session(session);
    let listed =
        run(Cached.handle_value(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}), &ctx));
    assert_eq!(
        listed.json().unwrap(),
        json!({"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}})
    );
}

/// Where the 2025-11-25 schema is narrower than 2026-07-28: `outputSchema`
/// and `structuredContent` must be objects, and so must each `properties`
/// entry of a tool schema.
#[test]
fn legacy_results_fit_the_narrower_legacy_schema() {
    let listed = json!({
        "resultType": "complete", "ttlMs": 0, "cacheScope": "public",
        "tools": [
            { "name": "list", "inputSchema": { "type": "object", "properties": { "any": true, "none": false } },
              "outputSchema": { "type": "array", "items": { "type": "string" } } },
            { "name": "record", "inputSchema": { "type": "object" },
              "outputSchema": { "type": "object", "properties": { "extra": true } } },
        ],
    });
    assert_eq!(
        mcp_era_server::transport::legacy_result("tools/list", listed),
        json!({ "tools": [
            { "name": "list", "inputSchema": { "type": "object", "properties": { "any": {}, "none": { "not": {} } } } },
            { "name": "record", "inputSchema": { "type": "object" },
              "outputSchema": { "type": "object", "properties": { "extra": {} } } },
        ] })
    );
    let called = |structured: Value| {
        mcp_era_server::transport::legacy_result(
            "tools/call",
            json!({ "resultType": "complete", "content": [], "structuredContent": structured }),
        )
    };
    assert_eq!(called(json!(["a"])), json!({ "content": [] }));
    assert_eq!(called(json!(7)), json!({ "content": [] }));
    assert_eq!(
        called(json!({ "a": 1 })),
        json!({ "content": [], "structuredContent": { "a": 1 } })
    );
    // Only a tools/call result has structured content to adapt.
    assert_eq!(
        mcp_era_server::transport::legacy_result(
            "prompts/get",
            json!({ "messages": [], "structuredContent": [1] })
        ),
        json!({ "messages": [], "structuredContent": [1] })
    );
}
