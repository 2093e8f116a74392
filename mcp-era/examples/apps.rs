//! An MCP App (`io.modelcontextprotocol/ui`): a counter. `show_counter`
//! answers with structured content and a sentence; a host with MCP Apps
//! renders the result in the `ui://counter/app` view (`apps/app.html`),
//! whose button calls `increment`, a tool only the App may use. Hosts
//! without Apps show the sentence and never list `increment`. stdio or
//! HTTP, modern and legacy clients.
//!
//!     cargo run -p mcp-era --example apps                        # stdio
//!     cargo run -p mcp-era --example apps -- http 127.0.0.1:8080
use std::sync::Mutex;

use mcp_era::prelude::*;
use mcp_era::server::JsonWithText;
use serde::Serialize;

#[derive(McpServer, Default)]
#[mcp(
    name = "counter-app",
    version = "1.0.0",
    extension("io.modelcontextprotocol/ui")
)]
struct CounterApp {
    counter: Mutex<Count>,
}

/// The counter and how often it changed.
#[derive(Clone, Copy, Default, Serialize, JsonSchema)]
struct Count {
    count: i64,
    changes: u64,
}

impl Count {
    /// The result: the count for the App, a sentence for everyone else.
    fn answer(self) -> JsonWithText<Count> {
        let text = format!(
            "The counter is at {} (changed {} times).",
            self.count, self.changes
        );
        Json(self).with_text(text)
    }
}

#[router]
impl CounterApp {
    /// Shows the shared counter; hosts with MCP Apps show it in an App with
    /// a button that adds one.
    #[tool(read_only, ui = "ui://counter/app")]
    fn show_counter(&self) -> JsonWithText<Count> {
        self.counter().answer()
    }

    /// Adds `by` (default 1) to the counter. Called by the counter App.
    #[tool(ui = "ui://counter/app", visibility = ["app"])]
    fn increment(
        &self,
        #[arg(description = "How much to add (may be negative)")] by: Option<i64>,
    ) -> Result<JsonWithText<Count>, String> {
        let mut counter = self.counter.lock().unwrap_or_else(|e| e.into_inner());
        let by = by.unwrap_or(1);
        counter.count = counter
            .count
            .checked_add(by)
            .ok_or_else(|| format!("adding {by} would overflow the counter"))?;
        counter.changes += 1;
        Ok(counter.answer())
    }

    /// The counter App: shows the count, adds one on a click.
    #[resource(ui = "ui://counter/app", name = "counter_app", prefers_border = true)]
    fn app(&self) -> &'static str {
        include_str!("apps/app.html")
    }
}

impl CounterApp {
    fn counter(&self) -> Count {
        *self.counter.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn main() -> std::process::ExitCode {
    serve_from_args(CounterApp::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_era::client::{ByEra, Error};
    use mcp_era::testing::{TestClient, check_server};
    use mcp_era::types::ext::apps;
    use serde_json::{Value, json};

    fn declare_apps(options: &mut mcp_era::client::ClientOptions) {
        options.declare_apps();
    }

    async fn listed(client: &TestClient<CounterApp>) -> Result<Vec<Value>, Error> {
        let all = client.client().list_all("tools/list", "tools").await?;
        Ok(all["tools"].as_array().cloned().unwrap_or_default())
    }

    fn names(tools: &[Value]) -> Vec<&str> {
        tools.iter().filter_map(|t| t["name"].as_str()).collect()
    }

    #[tokio::test]
    async fn a_host_with_apps_lists_the_app_only_tool_and_reads_the_app() -> Result<(), Error> {
        let client = TestClient::builder(CounterApp::default())
            .options(declare_apps)
            .connect()
            .await?;
        let tools = listed(&client).await?;
        assert_eq!(names(&tools), ["show_counter", "increment"]);
        assert_eq!(
            tools[0]["_meta"],
            json!({"ui": {"resourceUri": "ui://counter/app"}, "ui/resourceUri": "ui://counter/app"})
        );
        assert_eq!(tools[1]["_meta"]["ui"]["visibility"], json!(["app"]));
        let app = client.client().read_app("ui://counter/app").await?;
        assert_eq!(app.mime_type, apps::MIME_TYPE);
        assert_eq!(app.ui.and_then(|ui| ui.prefers_border), Some(true));
        for needed in [r#"id="result""#, r#"id="call""#, "ui/initialize"] {
            assert!(app.html.contains(needed), "{needed}");
        }
        // The App's button: the app-only tool answers with the new count.
        let ByEra::Modern(added) = client.call_tool("increment", json!({"by": 2})).await? else {
            panic!("a modern answer");
        };
        let added = serde_json::to_value(added).expect("JSON");
        assert_eq!(
            added["structuredContent"],
            json!({"count": 2, "changes": 1})
        );
        Ok(())
    }

    #[tokio::test]
    async fn a_client_without_apps_reads_text_and_never_sees_the_app_only_tool() -> Result<(), Error>
    {
        for client in [
            TestClient::new(CounterApp::default()).await?,
            TestClient::legacy(CounterApp::default()).await?,
        ] {
            assert_eq!(names(&listed(&client).await?), ["show_counter"]);
            let text = client.call_tool_text("show_counter", json!({})).await?;
            assert_eq!(text, "The counter is at 0 (changed 0 times).");
        }
        Ok(())
    }

    #[tokio::test]
    async fn a_legacy_session_that_declared_apps_sees_the_app_only_tool() -> Result<(), Error> {
        let client = TestClient::builder(CounterApp::default())
            .legacy()
            .options(declare_apps)
            .connect()
            .await?;
        assert_eq!(
            names(&listed(&client).await?),
            ["show_counter", "increment"]
        );
        let text = client.call_tool_text("increment", json!({})).await?;
        assert_eq!(text, "The counter is at 1 (changed 1 times).");
        Ok(())
    }

    /// Over real Streamable HTTP, in both eras: a client that declared the
    /// extension sees and calls the app-only tool and reads the App; one
    /// that did not sees only the model's tool.
    #[tokio::test]
    async fn over_http_in_both_eras() -> Result<(), Error> {
        use mcp_era::client::{Client, ClientOptions, EraMode};
        use mcp_era::server::http::{HttpConfig, McpService};

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let mcp = McpService::new(CounterApp::default(), HttpConfig::new(addr))?;
        let app = axum::Router::new().nest_service("/mcp", mcp);
        tokio::spawn(async move { axum::serve(listener, app).await });
        let url = format!("http://{addr}/mcp");
        for era in [EraMode::Modern, EraMode::Legacy] {
            let mut options = ClientOptions {
                era,
                ..ClientOptions::default()
            };
            let plain = Client::connect_http(&url, options.clone()).await?;
            let tools = plain.list_all("tools/list", "tools").await?;
            assert_eq!(
                names(tools["tools"].as_array().expect("tools")),
                ["show_counter"]
            );
            options.declare_apps();
            let host = Client::connect_http(&url, options).await?;
            let tools = host.list_all("tools/list", "tools").await?;
            let tools = tools["tools"].as_array().expect("tools");
            assert_eq!(names(tools), ["show_counter", "increment"], "{era:?}");
            let link = mcp_era::client::apps::tool_ui(tools[1]["_meta"].as_object())?;
            let link = link.expect("a link");
            assert!(link.app_only());
            let app = host
                .read_app(link.resource_uri.as_deref().expect("uri"))
                .await?;
            assert!(app.html.starts_with("<!DOCTYPE html>"));
            let added = host.call_tool("increment", serde_json::Map::new()).await?;
            let added = match added {
                ByEra::Modern(r) => serde_json::to_value(r),
                ByEra::Legacy(r) => serde_json::to_value(r),
            }
            .expect("JSON");
            assert_eq!(added["isError"], Value::Null, "{added}");
        }
        Ok(())
    }

    #[tokio::test]
    async fn follows_the_protocol_rules() {
        check_server(CounterApp::default()).await.assert_ok();
    }

    #[tokio::test]
    async fn the_catalogue_is_unchanged() -> Result<(), Error> {
        let client = TestClient::new(CounterApp::default()).await?;
        client
            .assert_catalogue_snapshot("tests/snapshots/apps.json")
            .await;
        Ok(())
    }
}
