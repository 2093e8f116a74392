use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(versions(modern = ["2026-07-28", "2025-11-25"]))]
struct Server;

fn main() {}
