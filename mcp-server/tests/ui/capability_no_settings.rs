use mcp_server::McpServer;

#[derive(McpServer)]
#[mcp(completions(list_changed))]
struct Server;

fn main() {}
