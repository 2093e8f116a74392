use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools(list_changed))]
struct Server;

fn main() {}
