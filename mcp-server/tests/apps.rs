//! MCP Apps (`io.modelcontextprotocol/ui`) at run time: app-only tools by
//! client capabilities (modern per request, legacy per session), for
//! `#[router]` and `ToolRouter` tools alike, and the start-up checks of
//! `_meta.ui` written by hand.

mod common;

use mcp_era_server::mcp_era_types::v2026_07_28::{
    CallToolRequestParams, CallToolResultResponseResult, ListToolsResult, PaginatedRequestParams,
    Tool, ToolInputSchema,
};
use mcp_era_server::transport::{LegacySession, MessageContext};
use mcp_era_server::{
    HandlerResult, McpServer, McpServerExt, RequestContext, ToolCall, ToolRouter, ToolsHandler,
    router,
};
use serde_json::{Value, json};

use common::block_on;

/// The body of a modern request declaring `capabilities`.
fn ask<S: McpServer>(server: &S, method: &str, params: Value, capabilities: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let outcome = block_on(server.handle_value(message, &MessageContext::stdio()));
    outcome.json().expect("a response")
}

fn listed(body: &Value) -> Vec<String> {
    body["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("a tool list: {body}"))
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

fn apps() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
}

#[derive(McpServer)]
#[mcp(
    name = "apps",
    version = "1.0.0",
    extension("io.modelcontextprotocol/ui")
)]
struct Routed;

#[router]
impl Routed {
    /// For the model.
    #[tool(ui = "ui://t/app")]
    fn shown(&self) -> String {
        "shown".into()
    }

    /// For the App.
    #[tool(ui = "ui://t/app", visibility = ["app"])]
    fn app_only(&self) -> String {
        "app".into()
    }

    /// The App.
    #[resource(ui = "ui://t/app", csp(connect_domains = ["https://api.example.com"]))]
    fn app(&self) -> String {
        "<!DOCTYPE html><html></html>".into()
    }
}

#[test]
fn app_only_tools_are_listed_to_clients_that_render_apps() {
    let none = ask(&Routed, "tools/list", json!({}), json!({}));
    assert_eq!(listed(&none), ["shown"]);
    let with = ask(&Routed, "tools/list", json!({}), apps());
    assert_eq!(listed(&with), ["shown", "app_only"]);
    // Declared, but for another content type only: no HTML Apps.
    let other =
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/uri-list"]}}});
    assert_eq!(
        listed(&ask(&Routed, "tools/list", json!({}), other)),
        ["shown"]
    );
    // Malformed settings do not break the listing, and render nothing:
    // app-only tools stay hidden (fail closed).
    for odd in [json!(7), json!("text/plain"), json!([1, 2]), json!(null)] {
        let odd = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": odd}}});
        assert_eq!(
            listed(&ask(&Routed, "tools/list", json!({}), odd)),
            ["shown"]
        );
    }
    // A call by name is served, like a hidden tool's.
    let called = ask(
        &Routed,
        "tools/call",
        json!({"name": "app_only"}),
        json!({}),
    );
    assert_eq!(called["result"]["content"][0]["text"], "app");
}

#[test]
fn the_app_is_read_with_its_mime_type_and_meta() {
    let read = ask(
        &Routed,
        "resources/read",
        json!({"uri": "ui://t/app"}),
        json!({}),
    );
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(
        contents["_meta"],
        json!({"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}})
    );
    let list = ask(&Routed, "resources/list", json!({}), json!({}));
    assert_eq!(list["result"]["resources"][0]["_meta"], contents["_meta"]);
}

#[test]
fn a_legacy_session_lists_by_its_initialize_capabilities() {
    for (capabilities, expected) in [(json!({}), 1), (apps(), 2)] {
        let session = LegacySession::new("2025-11-25".into(), capabilities, json!({}));
        let ctx = MessageContext::stdio().with_legacy_session(session);
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let body = block_on(Routed.handle_value(message, &ctx))
            .json()
            .expect("a response");
        assert_eq!(listed(&body).len(), expected, "{body}");
    }
}

#[derive(McpServer)]
#[mcp(name = "dynamic", version = "1.0.0", tools)]
struct Dynamic {
    tools: ToolRouter,
}

impl ToolsHandler for Dynamic {
    async fn list_tools(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        self.tools.list_tools(params, ctx).await
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        self.tools.call_tool(params, ctx).await
    }
}

fn tool(name: &str, meta: Value) -> Tool {
    let mut tool = Tool::new(ToolInputSchema::new(), name.to_owned());
    tool.meta = meta.as_object().cloned();
    tool
}

fn add(router: &ToolRouter, tool: Tool) -> Result<(), String> {
    router.add_raw(tool, |_call: ToolCall, _ctx| async { "ok".to_owned() })
}

#[test]
fn tool_router_tools_follow_their_meta_and_bad_meta_is_refused() {
    let server = Dynamic {
        tools: ToolRouter::new(),
    };
    add(&server.tools, tool("plain", json!({}))).expect("added");
    // The flat key alone links the tool; `visibility` makes it app-only.
    let app_only = json!({"ui/resourceUri": "ui://d/app", "ui": {"visibility": ["app"]}});
    add(&server.tools, tool("button", app_only)).expect("added");
    assert_eq!(
        listed(&ask(&server, "tools/list", json!({}), json!({}))),
        ["plain"]
    );
    assert_eq!(
        listed(&ask(&server, "tools/list", json!({}), apps())),
        ["plain", "button"]
    );

    let bad = [
        (
            json!({"ui": {"resourceUri": "https://d/app"}}),
            "must start with `ui://`",
        ),
        (json!({"ui": {"visibility": ["agent"]}}), "_meta.ui"),
        (json!({"ui": {"visibility": []}}), "is empty"),
        (json!({"ui": "ui://d/app"}), "_meta.ui"),
    ];
    for (meta, why) in bad {
        let refused = add(&server.tools, tool("bad", meta.clone())).expect_err("refused");
        assert!(
            refused.contains("tool `bad`") && refused.contains(why),
            "{meta}: {refused}"
        );
    }
    assert_eq!(server.tools.names(), ["plain", "button"]);
}

#[derive(McpServer)]
#[mcp(name = "bad", version = "1.0.0")]
struct BadMeta;

#[router]
impl BadMeta {
    /// `_meta.ui` by hand, pointing at a web page.
    #[tool(meta = {"ui": {"resourceUri": "https://example.com/app"}})]
    fn linked(&self) -> String {
        String::new()
    }

    /// An App MIME type on a resource that is not `ui://`.
    #[resource(
        uri = "https://example.com/app",
        mime_type = "text/html;profile=mcp-app"
    )]
    fn page(&self) -> String {
        String::new()
    }
}

#[test]
fn hand_written_ui_meta_is_a_problem_at_start() {
    let problems = BadMeta.catalogue_problems().join("\n");
    assert!(
        problems.contains("tool method `linked`: tool `linked`: _meta.ui.resourceUri"),
        "{problems}"
    );
    assert!(
        problems
            .contains("resource method `page`: `https://example.com/app` is not a UI resource URI"),
        "{problems}"
    );
}
