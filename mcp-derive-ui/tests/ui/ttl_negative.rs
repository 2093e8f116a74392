use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(discover(ttl_ms = -1))]
struct Server;

fn main() {}
