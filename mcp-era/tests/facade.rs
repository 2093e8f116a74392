//! A server written against the facade alone: the macros reach the runtime
//! through `mcp_era::server`, schemars' derive through the prelude.

use mcp_era::prelude::*;
use mcp_era::server::{McpServerExt, MessageContext};

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
async fn a_server_built_through_the_facade_answers() {
    let answer = Weather
        .handle_value(
            serde_json::json!({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {
                    "name": "forecast",
                    "arguments": {"city": "Oslo", "days": 2},
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {}
                    }
                }
            }),
            &MessageContext::stdio(),
        )
        .await;
    let body: serde_json::Value =
        serde_json::from_slice(&answer.body.expect("a request is answered")).expect("JSON");
    assert_eq!(
        body["result"]["structuredContent"][0], "Oslo: sunny for 2 days",
        "{body}"
    );
}
