#[derive(McpServer)]
#[mcp(
    name = "weather",
    version = "1.0.0",
    title = "Weather",
    description = "Forecasts",
    website = "https://example.com",
    icon(src = "https://example.com/i.svg", mime_type = "image/svg+xml", sizes = ["any"], theme = "light"),
    instructions = "Ask for the forecast.",
    versions(modern = ["2026-07-28"], legacy = ["2025-11-25"]),
    tools(list_changed),
    resources(subscribe, list_changed),
    prompts,
    completions,
    logging,
    experimental("fancy" = { "level": -2, "ratio": 0.5, "tags": ["a", null, true] }),
    extension("io.modelcontextprotocol/tasks" = { "list": {} }, "com.example/ui"),
    extension("com.example/computed" = settings::computed),
    discover(ttl_ms = 0, scope = "private"),
    crate = "my_runtime",
)]
struct Weather<T: Clone>
where
    T: Send,
{
    inner: T,
}
