use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(name = "a", version = "1", name = "b")]
struct Server;

fn main() {}
