use mcp_era_server::mcp_era_types::v2026_07_28::{
    CallToolRequestParams, CallToolResultResponseResult, ListToolsResult, PaginatedRequestParams,
};
use mcp_era_server::{HandlerResult, McpServer, RequestContext, ToolsHandler, errors, router};

// Tools served twice: by the router and by a hand-written handler.
#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools)]
struct Server;

#[router]
impl Server {
    #[tool]
    fn ping(&self) -> String {
        "pong".into()
    }
}

impl ToolsHandler for Server {
    async fn list_tools(
        &self,
        _: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        Ok(ListToolsResult::new(Vec::new(), ctx.cache_hints()))
    }

    async fn call_tool(
        &self,
        _: CallToolRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        Err(errors::invalid_params("no tools"))
    }
}

fn main() {}
