use mcp_server::McpServer;

#[derive(McpServer)]
#[mcp(versions(modern = [2026]))]
struct Server;

fn main() {}
