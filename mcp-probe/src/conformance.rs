//! `mcp-probe conformance URL`: the client side of the conformance suite.
//!
//! The suite runs `<command> <url>` with `MCP_CONFORMANCE_SCENARIO` set. Every
//! scenario gets an auto-era connection (so `server/discover`, a `-32022`
//! retry, `_meta` and the HTTP headers are all exercised), then:
//!
//! * `tools_call`: `tools/list`, then `add_numbers` with `{a: 5, b: 3}`;
//! * `http-standard-headers`: every tool, resource and prompt the server
//!   lists is called/read/got once, so each standard header is observed;
//! * anything else (including `request-metadata`): `tools/list`.

use mcp_client::{Client, ClientOptions};
use serde_json::{Value, json};

use crate::Failure;

pub(crate) async fn run(url: &str) -> Result<u8, Failure> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let opts = ClientOptions {
        client_info: mcp_client::mcp_types::v2026_07_28::Implementation::builder()
            .name("mcp-probe")
            .version(env!("CARGO_PKG_VERSION"))
            .build(),
        ..ClientOptions::default()
    };
    let client = Client::connect_http(url, opts).await?;
    eprintln!(
        "mcp-probe: scenario `{scenario}`: {:?} era, version {}",
        client.era(),
        client.protocol_version()
    );
    let tools = client.request("tools/list", json!({})).await?;
    let tool_names = names(&tools, "tools", "name");
    match scenario.as_str() {
        "tools_call" => {
            let args = json!({"a": 5, "b": 3});
            let result = client
                .request(
                    "tools/call",
                    json!({"name": "add_numbers", "arguments": args}),
                )
                .await?;
            eprintln!("mcp-probe: add_numbers -> {result}");
        }
        "http-standard-headers" => {
            for name in tool_names {
                client
                    .request("tools/call", json!({"name": name, "arguments": {}}))
                    .await?;
            }
            let resources = client.request("resources/list", json!({})).await?;
            for uri in names(&resources, "resources", "uri") {
                client
                    .request("resources/read", json!({"uri": uri}))
                    .await?;
            }
            let prompts = client.request("prompts/list", json!({})).await?;
            for name in names(&prompts, "prompts", "name") {
                client.request("prompts/get", json!({"name": name})).await?;
            }
        }
        _ => {}
    }
    Ok(0)
}

fn names(result: &Value, list: &str, key: &str) -> Vec<String> {
    result[list]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i[key].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
