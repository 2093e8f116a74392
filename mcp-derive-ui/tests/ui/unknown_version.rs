use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(versions(modern = ["2026-01-01"]))]
struct Server;

fn main() {}
