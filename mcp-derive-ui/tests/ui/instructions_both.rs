use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(instructions = "a", instructions_file = "b.md")]
struct Server;

fn main() {}
