use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(resources(subscrib, list_changed))]
struct Server;

fn main() {}
