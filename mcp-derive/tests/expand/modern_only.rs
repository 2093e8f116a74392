#[derive(McpServer)]
#[mcp(name = "modern", version = "1.0.0", versions(legacy = []))]
struct ModernOnly;
