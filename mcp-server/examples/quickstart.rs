//! One tool, both eras, over stdio: `cargo run -p mcp-server --example quickstart`.
use mcp_server::mcp_types::v2026_07_28::*;
use mcp_server::{HandlerResult as R, McpServer, RequestContext as Ctx, ToolsHandler, errors};

#[derive(McpServer)]
#[mcp(name = "quickstart", version = "1.0.0", tools, versions(legacy = ["2025-11-25"]))]
struct Quickstart;
type Params = PaginatedRequestParams;
type Call = CallToolRequestParams;

impl ToolsHandler for Quickstart {
    async fn list_tools(&self, _: Params, _: &Ctx) -> R<ListToolsResult> {
        let greet = Tool::new(ToolInputSchema::new(), "greet");
        Ok(ListToolsResult::new(vec![greet], CacheHints::public(60)))
    }
    async fn call_tool(&self, p: Call, _: &Ctx) -> R<CallToolResultResponseResult> {
        let args = p.arguments.unwrap_or_default();
        let who = args.get("name").and_then(|n| n.as_str()).unwrap_or("world");
        let text = TextContent::new(format!("Hello, {who}!"));
        match p.name.as_str() {
            "greet" => Ok(CallToolResult::new(vec![ContentBlock::TextContent(text)]).into()),
            other => Err(errors::invalid_params(format!("Unknown tool {other}"))),
        }
    }
}

fn main() -> std::io::Result<()> {
    mcp_server::stdio::run(Quickstart)
}
