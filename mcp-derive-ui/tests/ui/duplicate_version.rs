use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(versions(legacy = ["2025-11-25", "2025-11-25"]))]
struct Server;

fn main() {}
