use mcp_era_server::McpServer;

#[derive(McpServer)]
#[mcp(icon(mime_type = "image/png"))]
struct Server;

fn main() {}
