//! A server written against the facade alone: the macros reach the runtime
//! through `mcp_era::server`, schemars' derive through the prelude, and
//! the test client through `mcp_era::testing`.

use mcp_era::client::Error;
use mcp_era::prelude::*;
use mcp_era::testing::{TestClient, check_server};

/// A city and how many days ahead.
#[derive(serde::Deserialize, JsonSchema)]
struct Query {
    city: String,
    days: u8,
}

#[derive(McpServer)]
#[mcp(name = "weather", version = "1.0.0", tools)]
struct Weather;

#[router]
impl Weather {
    /// A forecast.
    #[tool(read_only)]
    fn forecast(&self, #[arguments] query: Query) -> Json<Vec<String>> {
        Json(vec![format!(
            "{}: sunny for {} days",
            query.city, query.days
        )])
    }
}

#[tokio::test]
async fn a_server_built_through_the_facade_answers() -> Result<(), Error> {
    let client = TestClient::new(Weather).await?;
    let args = serde_json::json!({"city": "Oslo", "days": 2});
    let result = serde_json::to_value(client.call_tool("forecast", args).await?).expect("JSON");
    assert_eq!(
        result["structuredContent"][0], "Oslo: sunny for 2 days",
        "{result}"
    );
    Ok(())
}

#[tokio::test]
async fn a_server_built_through_the_facade_follows_the_rules() {
    check_server(Weather).await.assert_ok();
}
