use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(icon(src = "https://example.com/i.png", theme = "blue"))]
struct Server;

fn main() {}
