use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(logging(list_changed))]
struct Server;

fn main() {}
