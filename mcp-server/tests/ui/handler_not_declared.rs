use mcp_era_server::mcp_era_types::v2026_07_28::{
    ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResultResponseResult,
};
use mcp_era_server::{HandlerResult, McpServer, RequestContext, ResourcesHandler, errors};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools)]
struct Server;

#[mcp_era_server::router]
impl Server {
    #[tool]
    fn ping(&self) -> String {
        "pong".into()
    }
}

// A hand-written handler of a capability `#[mcp(...)]` does not declare.
impl ResourcesHandler for Server {
    async fn list_resources(
        &self,
        _: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourcesResult> {
        Ok(ListResourcesResult::new(Vec::new(), ctx.cache_hints()))
    }

    async fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<ReadResourceResultResponseResult> {
        Err(errors::resource_not_found(params.uri))
    }
}

fn main() {}
