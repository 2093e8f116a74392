use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(extension("com.example/x" = 5))]
struct Server;

fn main() {}
