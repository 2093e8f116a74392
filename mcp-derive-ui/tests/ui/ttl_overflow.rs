use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(discover(ttl_ms = 9007199254740992))]
struct Server;

fn main() {}
