use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(experimental(""))]
struct Server;

fn main() {}
