use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(cache(ttl_ms = -1, scope = "shared", ttl = 5))]
struct Server;

fn main() {}
