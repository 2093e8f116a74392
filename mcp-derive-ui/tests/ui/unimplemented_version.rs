use mcp_era_server::McpServer;

// 2025-06-18 is a known legacy version, but the runtime implements only
// 2025-11-25 of the legacy era.
#[derive(McpServer)]
#[mcp(versions(legacy = ["2025-11-25", "2025-06-18", "2024-11-05"]))]
struct Server;

fn main() {}
