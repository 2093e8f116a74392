use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(extension("com.example/x"), extension("com.example/x" = {}))]
struct Server;

fn main() {}
