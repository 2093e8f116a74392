use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(scopes = ["mcp"], tools(scopes = ["tools", "mcp", "tools"]))]
struct Server;

fn main() {}
