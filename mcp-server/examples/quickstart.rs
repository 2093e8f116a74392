//! Two typed tools, both eras, over stdio or HTTP:
//! `cargo run -p mcp-era-server --example quickstart [-- http localhost:8080]`.
#[derive(mcp_era_server::McpServer)]
#[mcp(name = "quickstart", version = "1.0.0")]
struct Quickstart;

#[mcp_era_server::router]
impl Quickstart {
    /// Greets someone by name.
    #[tool(read_only)]
    fn greet(&self, name: String) -> String {
        format!("Hello, {name}!")
    }

    /// Adds two integers.
    #[tool(read_only, idempotent)]
    fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }
}

fn main() -> std::process::ExitCode {
    mcp_era_server::serve_from_args(Quickstart)
}
