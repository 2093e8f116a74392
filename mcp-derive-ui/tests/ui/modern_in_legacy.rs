use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(versions(legacy = ["2026-07-28"]))]
struct Server;

fn main() {}
