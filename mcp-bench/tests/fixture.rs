//! The benchmark fixture answers what the benchmarks assume it answers, so
//! the numbers measure real work, not an error path.

use mcp_bench::{BenchServer, DISCOVER, RouterServer, TOOLS_CALL, block_on};
use mcp_era_server::McpServerExt;
use mcp_era_server::transport::MessageContext;
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

#[test]
fn catalogue_pages_list_every_tool_once_and_kept_pages_match_rendered_ones() {
    use mcp_bench::{CatalogueServer, RenderEachTime, catalogue, tools_list};
    let ctx = MessageContext::stdio();
    let kept = CatalogueServer {
        tools: catalogue(250),
    };
    let fresh = RenderEachTime {
        tools: catalogue(250),
    };
    let mut cursor: Option<String> = None;
    let mut names = Vec::new();
    loop {
        let request = tools_list(cursor.as_deref());
        let first = block_on(kept.handle_message(&request, &ctx));
        let again = block_on(kept.handle_message(&request, &ctx));
        let rendered = block_on(fresh.handle_message(&request, &ctx));
        assert_eq!(first.body, again.body, "a kept page is sent as it was");
        assert_eq!(
            first.json(),
            rendered.json(),
            "kept and rendered pages agree"
        );
        let body = first.json().unwrap_or_default();
        let tools = body["result"]["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        names.extend(
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap_or("").to_owned()),
        );
        match body["result"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    let expected: Vec<String> = (0..250).map(|at| format!("tool_{at}")).collect();
    assert_eq!(names, expected);
}
