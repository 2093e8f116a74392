//! A server written against the facade alone: the macros reach the runtime
//! through `mcp_era::server`, schemars' and serde's derives through the
//! prelude (serde's with `crate = "mcp_era::serde"`), and the test client
//! through `mcp_era::testing`.

use mcp_era::client::Error;
use mcp_era::prelude::*;
use mcp_era::testing::{TestClient, check_server};

/// A city and how many days ahead.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_era::serde")]
struct Query {
    city: String,
    days: u8,
}

/// What the forecast says.
#[derive(Serialize, JsonSchema)]
#[serde(crate = "mcp_era::serde")]
struct Forecast {
    lines: Vec<String>,
}

#[derive(McpServer)]
#[mcp(name = "weather", version = "1.0.0", tools)]
struct Weather;

#[router]
impl Weather {
    /// A forecast.
    #[tool(read_only)]
    fn forecast(&self, #[arguments] query: Query) -> Json<Forecast> {
        Json(Forecast {
            lines: vec![format!("{}: sunny for {} days", query.city, query.days)],
        })
    }
}

#[tokio::test]
async fn a_server_built_through_the_facade_answers() -> Result<(), Error> {
    let client = TestClient::new(Weather).await?;
    let args = serde_json::json!({"city": "Oslo", "days": 2});
    let result = serde_json::to_value(client.call_tool("forecast", args).await?).expect("JSON");
    assert_eq!(
        result["structuredContent"]["lines"][0], "Oslo: sunny for 2 days",
        "{result}"
    );
    Ok(())
}

#[tokio::test]
async fn a_server_built_through_the_facade_follows_the_rules() {
    check_server(Weather).await.assert_ok();
}
