use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(versions(modern = [2026]))]
struct Server;

fn main() {}
