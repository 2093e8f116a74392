use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(crate = "not a path")]
struct Server;

fn main() {}
