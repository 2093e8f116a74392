//! `mcp-probe conformance URL`: the client side of the conformance suite.
//!
//! The suite runs `<command> <url>` with `MCP_CONFORMANCE_SCENARIO` set,
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` naming the wire version (a legacy
//! version forces `initialize`, a modern one forbids it; unset: auto) and,
//! for some scenarios, `MCP_CONFORMANCE_CONTEXT` (JSON). The client
//! declares elicitation (form and URL), sampling and roots and answers them
//! with [`Conformer`]. Then, by scenario:
//!
//! * `tools_call`: `tools/list`, then `add_numbers` with `{a: 5, b: 3}`;
//! * `http-standard-headers`: every tool, resource and prompt the server
//!   lists is called/read/got once, so each standard header is observed;
//! * `http-custom-headers`: the tool calls of the context (their annotated
//!   arguments mirrored into `Mcp-Param-*`);
//! * `http-invalid-tool-headers`: every tool that survives the
//!   `x-mcp-header` screening is called with placeholder arguments;
//! * `sep-2322-client-request-state`: the MRTR tools, an unrelated call and
//!   the tool without `resultType` (the client answers and retries);
//! * `json-schema-2020-12-preservation`: `json_schema_echo` with the
//!   input schema of `json_schema_2020_12_tool` exactly as listed;
//! * `elicitation-sep1034-client-defaults`, `sse-retry`: the scenario's
//!   one tool (the handler answers with defaults left to the client;
//!   the cut SSE stream is resumed);
//! * `auth/*`: OAuth with a [`HeadlessAuthorizer`] (the suite's
//!   authorization server redirects at once), the client ID metadata
//!   document URL the suite expects, and the pre-registered client of the
//!   context when it gives one; or the grant without a user the context
//!   calls for (`crate::grants::from_context`: client credentials with a
//!   secret or `private_key_pem`, workload identity from `valid_jwt`,
//!   enterprise-managed from `idp_id_token`); then `tools/list` and
//!   `test-tool`;
//! * `sep-2640-client-no-prefetch`: `skills/list`, building the host's
//!   registry from the entries alone (no skill is loaded, so no file read);
//! * `sep-2640-client-verify-{digest,size,frontmatter}`: `skills/list`, then
//!   each listed skill is loaded as a host loads one: `SKILL.md`, verified
//!   against the entry (size, digest, frontmatter), then each supporting
//!   file, each verified; content that fails stops the load before any
//!   further read, and the client exits with the verification error;
//! * anything else (including `request-metadata`): `tools/list`.

use std::sync::Arc;

use mcp_era_client::auth::{HeadlessAuthorizer, OAuthOptions};
use mcp_era_client::handler::{ClientHandler, HandlerError};
use mcp_era_client::mcp_era_types::v2026_07_28 as m;
use mcp_era_client::mcp_era_types::versions::LEGACY_VERSIONS;
use mcp_era_client::transport::BoxFuture;
use mcp_era_client::{Client, ClientOptions, EraMode};
use serde_json::{Map, Value, json};

use crate::Failure;
use crate::human::errln;

/// Answers every input request the suite's scenarios make.
struct Conformer;

impl ClientHandler for Conformer {
    fn elicit(
        &self,
        request: m::ElicitRequestParams,
    ) -> BoxFuture<'_, Result<m::ElicitResult, HandlerError>> {
        Box::pin(async move {
            let mut result = json!({"action": "accept"});
            if let m::ElicitRequestParams::ElicitRequestFormParams(form) = request {
                // Fields with a default are left out: the client fills them in.
                let schema = serde_json::to_value(&form.requested_schema).unwrap_or_default();
                let mut content = Map::new();
                for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                    if property.get("default").is_some() {
                        continue;
                    }
                    let value = match property["type"].as_str() {
                        Some("boolean") => json!(true),
                        Some("integer" | "number") => json!(1),
                        _ => json!("conformance"),
                    };
                    content.insert(name.clone(), value);
                }
                result["content"] = Value::Object(content);
            }
            serde_json::from_value(result).map_err(|e| HandlerError::new(-32603, e.to_string()))
        })
    }

    fn create_message(
        &self,
        _request: m::CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<m::CreateMessageResult, HandlerError>> {
        Box::pin(async {
            serde_json::from_value(json!({"role": "assistant", "model": "mcp-probe",
                "content": {"type": "text", "text": "Paris"}}))
            .map_err(|e| HandlerError::new(-32603, e.to_string()))
        })
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<m::ListRootsResult, HandlerError>> {
        Box::pin(async {
            serde_json::from_value(json!({"roots": [{"uri": "file:///tmp", "name": "tmp"}]}))
                .map_err(|e| HandlerError::new(-32603, e.to_string()))
        })
    }
}

/// The client ID metadata document URL the suite's `auth/basic-cimd` expects.
const CIMD_URL: &str = "https://conformance-test.local/client-metadata.json";

/// OAuth as the suite's authorization servers expect it.
fn oauth(scenario: &str, context: &Value) -> Result<OAuthOptions, Failure> {
    if let Some(grant) = crate::grants::from_context(scenario, context).map_err(crate::usage)? {
        return Ok(OAuthOptions::machine(grant));
    }
    let mut o = OAuthOptions::new(
        "http://localhost:3000/callback",
        Arc::new(HeadlessAuthorizer),
    );
    o.client_name = "mcp-probe".into();
    o.client_metadata_url = Some(CIMD_URL.into());
    o.client_id = context["client_id"].as_str().map(str::to_owned);
    o.client_secret = context["client_secret"].as_str().map(str::to_owned);
    Ok(o)
}

/// The options for the wire version the suite asked for.
fn options() -> ClientOptions {
    let mut opts = ClientOptions {
        client_info: m::Implementation::builder()
            .name("mcp-probe")
            .version(env!("CARGO_PKG_VERSION"))
            .build(),
        capabilities: serde_json::from_value(json!({
            "elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}
        }))
        .unwrap_or_default(),
        handler: Some(Arc::new(Conformer)),
        ..ClientOptions::default()
    };
    if let Ok(version) = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION") {
        if LEGACY_VERSIONS.contains(&version.as_str()) {
            opts.era = EraMode::Legacy;
            // The requested version first, then every known legacy one: the
            // suite's sse-retry server answers `initialize` with 2025-03-26.
            opts.legacy_versions = std::iter::once(version.clone())
                .chain(
                    LEGACY_VERSIONS
                        .iter()
                        .map(|v| (*v).to_owned())
                        .filter(|v| *v != version),
                )
                .collect();
        } else if opts.modern_versions.contains(&version) {
            opts.era = EraMode::Modern;
        }
    }
    opts
}

pub(crate) async fn run(url: &str) -> Result<u8, Failure> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let mut opts = options();
    if scenario.starts_with("auth/") {
        opts.oauth = Some(oauth(&scenario, &context)?);
    }
    let client = Client::connect_http(url, opts).await?;
    errln!(
        "mcp-probe: scenario `{scenario}`: {:?} era, version {}",
        client.era(),
        client.protocol_version()
    );
    let outcome = scenario_steps(&client, &scenario, &context).await;
    client.close().await;
    outcome.map(|()| 0)
}

async fn call(client: &Client, name: &str, arguments: Value) -> Result<Value, Failure> {
    let result = client
        .request("tools/call", json!({"name": name, "arguments": arguments}))
        .await?;
    errln!("mcp-probe: {name} -> {result}");
    Ok(result)
}

async fn scenario_steps(client: &Client, scenario: &str, context: &Value) -> Result<(), Failure> {
    let tools = client.request("tools/list", json!({})).await?;
    let tool_list = tools["tools"].as_array().cloned().unwrap_or_default();
    let tool_names = names(&tools, "tools", "name");
    let has = |name: &str| tool_names.iter().any(|n| n == name);
    match scenario {
        "tools_call" => {
            call(client, "add_numbers", json!({"a": 5, "b": 3})).await?;
        }
        "http-standard-headers" => {
            for name in &tool_names {
                call(client, name, json!({})).await?;
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
        "http-custom-headers" => {
            for c in context["toolCalls"].as_array().into_iter().flatten() {
                let name = c["name"].as_str().unwrap_or_default();
                call(client, name, c["arguments"].clone()).await?;
            }
        }
        "http-invalid-tool-headers" => {
            // Only the tools the screening kept are left to call.
            for tool in &tool_list {
                let name = tool["name"].as_str().unwrap_or_default();
                call(client, name, placeholder_arguments(tool)).await?;
            }
        }
        "sep-2322-client-request-state" => {
            call(client, "test_mrtr_echo_state", json!({})).await?;
            call(client, "test_mrtr_unrelated", json!({})).await?;
            call(client, "test_mrtr_no_state", json!({})).await?;
            call(client, "test_mrtr_no_result_type", json!({})).await?;
        }
        "json-schema-2020-12-preservation" => {
            let schema = tool_list
                .iter()
                .find(|t| t["name"] == "json_schema_2020_12_tool")
                .map(|t| t["inputSchema"].clone())
                .unwrap_or(Value::Null);
            call(client, "json_schema_echo", json!({"schema": schema})).await?;
        }
        "elicitation-sep1034-client-defaults" if has("test_client_elicitation_defaults") => {
            call(client, "test_client_elicitation_defaults", json!({})).await?;
        }
        "sse-retry" if has("test_reconnection") => {
            call(client, "test_reconnection", json!({})).await?;
        }
        "sep-2640-client-no-prefetch" => {
            let list = crate::skills::list(client).await?;
            errln!("mcp-probe: skills registry {list}");
        }
        s if s.starts_with("sep-2640-client-verify-") => {
            for entry in crate::skills::all_entries(client).await? {
                let read = crate::skills::load_all(client, &entry).await?;
                errln!(
                    "mcp-probe: loaded {} ({} verified)",
                    entry.uri,
                    crate::human::count(read as u64, "file")
                );
            }
        }
        s if s.starts_with("auth/") && has("test-tool") => {
            call(client, "test-tool", json!({})).await?;
        }
        _ => {}
    }
    Ok(())
}

/// Arguments for a tool's required properties: `"x"`, `1` or `true` by type.
fn placeholder_arguments(tool: &Value) -> Value {
    let schema = &tool["inputSchema"];
    let mut args = Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let Some(name) = name.as_str() else { continue };
        let value = match schema["properties"][name]["type"].as_str() {
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(true),
            _ => json!("x"),
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
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
