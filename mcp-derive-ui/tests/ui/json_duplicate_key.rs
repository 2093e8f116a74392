use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(extension("com.example/x" = { "a": 1, "a": 2 }))]
struct Server;

fn main() {}
