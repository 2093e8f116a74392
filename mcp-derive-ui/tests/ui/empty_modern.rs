use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(versions(modern = []))]
struct Server;

fn main() {}
