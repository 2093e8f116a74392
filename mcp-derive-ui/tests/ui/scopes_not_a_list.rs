use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(scopes = "mcp", prompts(scopes("prompts")))]
struct Server;

fn main() {}
