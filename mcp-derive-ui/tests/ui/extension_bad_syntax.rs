use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(extension("io..modelcontextprotocol/tasks"))]
struct Server;

fn main() {}
