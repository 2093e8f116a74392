//! Fixtures for the benchmarks in `benches/`: a small derived server and the
//! messages it is asked, so that every benchmark measures the same bytes.

#![deny(missing_docs)]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use mcp_era_server::mcp_era_types::v2026_07_28::{
    CacheHints, CallToolRequestParams, CallToolResult, CallToolResultResponseResult, ContentBlock,
    ListToolsResult, PaginatedRequestParams, TextContent, Tool, ToolInputSchema,
};
use mcp_era_server::{
    HandlerResult, McpServer, ParamHeader, Reply, RequestContext, ToolRouter, ToolsHandler, errors,
};

/// A modern server with one tool, `echo`, that returns its `text` argument.
#[derive(McpServer)]
#[mcp(
    name = "bench",
    version = "1.0.0",
    tools,
    instructions = "Benchmark fixture."
)]
pub struct BenchServer;

impl ToolsHandler for BenchServer {
    async fn list_tools(
        &self,
        _: PaginatedRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        let tool = Tool::new(ToolInputSchema::new(), "echo");
        Ok(ListToolsResult::new(vec![tool], CacheHints::public(60_000)))
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        let text = params
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(|t| t.as_str())
            .ok_or_else(|| errors::invalid_params("echo needs a string `text`"))?;
        let content = ContentBlock::TextContent(TextContent::new(text.to_owned()));
        Ok(CallToolResult::new(vec![content]).into())
    }
}

/// The same tool through `#[router]`, the way most servers declare tools:
/// typed arguments, a `String` result.
#[derive(McpServer)]
#[mcp(name = "bench-router", version = "1.0.0")]
pub struct RouterServer;

#[mcp_era_server::router]
impl RouterServer {
    /// Returns its `text` argument.
    #[tool]
    fn echo(&self, text: String) -> String {
        text
    }
}

/// A catalogue of `tools` tools (`tool_0`, `tool_1`, …, each with a
/// description and a one-property input schema), as a [`ToolRouter`] holds it.
pub fn catalogue(tools: usize) -> ToolRouter {
    let router = ToolRouter::new();
    for at in 0..tools {
        let mut schema = ToolInputSchema::new();
        schema.extra.insert(
            "properties".into(),
            serde_json::json!({"text": {"type": "string", "description": "What to echo"}}),
        );
        let mut tool = Tool::new(schema, format!("tool_{at}"));
        tool.description = Some(format!("Tool number {at} of the benchmark catalogue."));
        let added = router.add_raw(tool, |_, _| async { "ok" });
        assert!(added.is_ok(), "{added:?}");
    }
    router
}

/// A server listing a [`catalogue`] from pages rendered once per
/// catalogue version (it delegates `list_tools_reply` to the router).
#[derive(McpServer)]
#[mcp(name = "bench-catalogue", version = "1.0.0", tools)]
pub struct CatalogueServer {
    /// The tools.
    pub tools: ToolRouter,
}

impl ToolsHandler for CatalogueServer {
    async fn list_tools(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        self.tools.list_tools(params, ctx).await
    }

    async fn list_tools_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        self.tools.list_tools_reply(params, ctx).await
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        self.tools.call_tool(params, ctx).await
    }

    fn param_headers(&self, name: &str) -> Option<Vec<ParamHeader>> {
        self.tools.param_headers(name)
    }
}

/// The same catalogue listed the way a handler without kept pages lists
/// it: each page built and serialized per request (the default
/// `list_tools_reply`).
#[derive(McpServer)]
#[mcp(name = "bench-catalogue", version = "1.0.0", tools)]
pub struct RenderEachTime {
    /// The tools.
    pub tools: ToolRouter,
}

impl ToolsHandler for RenderEachTime {
    async fn list_tools(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        self.tools.list_tools(params, ctx).await
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        self.tools.call_tool(params, ctx).await
    }
}

/// A `tools/list` request for the page at `cursor` (the first without one).
pub fn tools_list(cursor: Option<&str>) -> Vec<u8> {
    let cursor = cursor.map_or(String::new(), |c| format!(r#","cursor":"{c}""#));
    format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"bench-client","version":"1.0.0"}}}}{cursor}}}}}"#
    )
    .into_bytes()
}

/// A `server/discover` request as a client sends it.
pub const DISCOVER: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.0.0"}}}}"#;

/// A `tools/call` request as a client sends it.
pub const TOOLS_CALL: &[u8] = br#"{"jsonrpc":"2.0","id":"call-7","method":"tools/call","params":{"name":"echo","arguments":{"text":"The quick brown fox jumps over the lazy dog"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.0.0"}}}}"#;

/// Polls a future that never waits (the fixture's handlers do no I/O).
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
}
