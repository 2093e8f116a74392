use mcp_era_server::McpServer;

// Every mistake is reported, and the fallback impl keeps `Server` an
// `McpServer`, so the use below adds no error of its own.
#[derive(McpServer)]
#[mcp(
    versions(modern = ["2025-11-25"], legacy = ["1999-01-01"]),
    extension("nope"),
    discover(ttl_ms = -5, scope = "everyone"),
    titel = "x",
)]
struct Server;

fn uses<S: McpServer>() {}

fn main() {
    uses::<Server>();
}
