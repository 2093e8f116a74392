#[derive(McpServer)]
#[mcp(versions(modern = ["2025-11-25"]), discover(ttl_ms = -1), nmae = "x")]
struct Broken;
