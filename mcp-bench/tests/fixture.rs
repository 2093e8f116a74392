//! The benchmark fixture answers what the benchmarks assume it answers, so
//! the numbers measure real work, not an error path.

use mcp_bench::{BenchServer, DISCOVER, RouterServer, TOOLS_CALL, block_on};
use mcp_era_server::{McpServerExt, MessageContext};
use serde_json::json;

#[test]
fn discover_and_tools_call_succeed() {
    let ctx = MessageContext::stdio();
    let discover = block_on(BenchServer.handle_message(DISCOVER, &ctx));
    assert_eq!(discover.http_status, 200);
    let body = discover.json().unwrap_or_default();
    assert_eq!(body["result"]["supportedVersions"], json!(["2026-07-28"]));

    let call = block_on(BenchServer.handle_message(TOOLS_CALL, &ctx));
    assert_eq!(call.http_status, 200);
    let body = call.json().unwrap_or_default();
    assert_eq!(
        body["result"]["content"][0]["text"],
        json!("The quick brown fox jumps over the lazy dog")
    );
    assert_eq!(body["id"], json!("call-7"));
}

#[test]
fn the_router_server_echoes_too() {
    let ctx = MessageContext::stdio();
    let call = block_on(RouterServer.handle_message(TOOLS_CALL, &ctx));
    let body = call.json().unwrap_or_default();
    assert_eq!(
        body["result"]["content"][0]["text"],
        json!("The quick brown fox jumps over the lazy dog")
    );
}
