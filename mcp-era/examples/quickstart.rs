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

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_era::client::Error;
    use mcp_era::testing::{TestClient, check_server};
    use serde_json::json;

    #[tokio::test]
    async fn adds_for_modern_and_legacy_clients() -> Result<(), Error> {
        let modern = TestClient::new(Quickstart).await?;
        assert_eq!(
            modern
                .call_tool_text("add", json!({"a": 2, "b": 3}))
                .await?,
            "5"
        );
        let legacy = TestClient::legacy(Quickstart).await?;
        assert_eq!(
            legacy
                .call_tool_text("add", json!({"a": -2, "b": 3}))
                .await?,
            "1"
        );
        Ok(())
    }

    #[tokio::test]
    async fn follows_the_protocol_rules() {
        check_server(Quickstart).await.assert_ok();
    }

    #[tokio::test]
    async fn the_catalogue_is_unchanged() -> Result<(), Error> {
        let client = TestClient::new(Quickstart).await?;
        client
            .assert_catalogue_snapshot("tests/snapshots/quickstart.json")
            .await;
        Ok(())
    }
}
