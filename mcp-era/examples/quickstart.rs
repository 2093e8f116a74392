//! A tool, modern and legacy clients, stdio or HTTP:
//! `cargo run -p mcp-era --example quickstart [-- http localhost:8080]`.
use mcp_era::prelude::*;

#[derive(McpServer)]
#[mcp(name = "quickstart", version = "1.0.0")]
struct Quickstart;

#[router]
impl Quickstart {
    /// Adds two integers.
    #[tool(read_only, idempotent)]
    fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }
}

fn main() -> std::process::ExitCode {
    serve_from_args(Quickstart)
}
