#[derive(McpServer)]
struct Minimal;
