use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(discover(scope = "shared"))]
struct Server;

fn main() {}
