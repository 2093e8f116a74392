use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(extension("tasks" = { "list": {} }))]
struct Server;

fn main() {}
