use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(name = "a", titel = "A")]
struct Server;

fn main() {}
