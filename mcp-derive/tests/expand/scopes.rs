#[derive(McpServer)]
#[mcp(
    name = "files",
    version = "1.0.0",
    scopes = ["mcp"],
    tools(list_changed, scopes = ["files:read"]),
    resources(scopes = ["files:read"]),
    prompts(scopes = []),
    completions(scopes = ["files:read", "complete"]),
)]
struct Files;
