//! Capabilities said once (what a `#[router]` serves is declared with no
//! `#[mcp(...)]` key) and completions in the router, through the real entry
//! point (`handle_value`) in both eras.

mod common;

use std::str::FromStr;

use mcp_era_server::mcp_era_types::v2026_07_28::{
    CallToolRequestParams, CallToolResultResponseResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, Tool, ToolInputSchema,
};
use mcp_era_server::protocol::MAX_COMPLETION_VALUES;
use mcp_era_server::transport::{LegacySession, MessageContext};
use mcp_era_server::{
    CompletionArguments, HandlerResult, McpServer, McpServerExt, RequestContext, ToolsHandler,
    errors, router,
};
use serde_json::{Value, json};

use common::block_on;

/// The whole response body of a modern stdio request.
fn ask<S: McpServer>(server: &S, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    block_on(server.handle_value(message, &MessageContext::stdio()))
        .json()
        .expect("a request gets a response")
}

#[track_caller]
fn result<S: McpServer>(server: &S, method: &str, params: Value) -> Value {
    let body = ask(server, method, params);
    body.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: expected a result, got {body}"))
}

#[track_caller]
fn error<S: McpServer>(server: &S, method: &str, params: Value) -> Value {
    let body = ask(server, method, params);
    body.get("error")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: expected an error, got {body}"))
}

fn capabilities<S: McpServer>(server: &S) -> Value {
    result(server, "server/discover", json!({}))["capabilities"].clone()
}

/// `completion/complete` of `argument` = `value` for `reference`.
fn complete<S: McpServer>(server: &S, reference: Value, argument: &str, value: &str) -> Value {
    let params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
    result(server, "completion/complete", params)["completion"].clone()
}

fn prompt(name: &str) -> Value {
    json!({"type": "ref/prompt", "name": name})
}

// ----- a routed-only server: no capability key ------------------------------

/// How a summary reads.
#[derive(Debug, Clone, Copy, serde::Deserialize, schemars::JsonSchema)]
enum Style {
    Bullets,
    Brief,
    Paragraph,
}

impl FromStr for Style {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "Bullets" => Ok(Self::Bullets),
            "Brief" => Ok(Self::Brief),
            "Paragraph" => Ok(Self::Paragraph),
            other => Err(format!("unknown style `{other}`")),
        }
    }
}

#[derive(McpServer)]
#[mcp(name = "atlas", version = "1.0.0", versions(legacy = ["2025-11-25"]))]
struct Atlas;

#[router]
impl Atlas {
    /// Pong.
    #[tool]
    fn ping(&self) -> String {
        "pong".into()
    }

    /// A city.
    #[resource(template = "city://{country}/{city}")]
    fn city(&self, country: String, #[arg(complete = Self::cities)] city: String) -> String {
        format!("{city}, {country}")
    }

    /// Summarises a topic.
    #[prompt]
    fn summarise(
        &self,
        #[arg(complete = Self::topics)] topic: String,
        style: Option<Style>,
        note: String,
    ) -> String {
        format!("{topic} {style:?} {note}")
    }

    /// Counts.
    #[prompt]
    fn count(&self, #[arg(complete = Self::numbers)] n: u32) -> String {
        n.to_string()
    }

    /// Topics, unfiltered: the runtime adds no filter of its own.
    fn topics(&self, _partial: &str) -> Vec<&'static str> {
        vec!["rust", "mcp", "ruby"]
    }

    async fn cities(
        &self,
        partial: &str,
        resolved: &CompletionArguments,
        _ctx: &RequestContext,
    ) -> HandlerResult<Vec<String>> {
        let cities: &[&str] = match resolved.get("country") {
            Some("fr") => &["Paris", "Lyon", "Lille"],
            Some("de") => &["Berlin", "Bonn"],
            _ => return Err(errors::invalid_params("name a known country first")),
        };
        Ok(cities
            .iter()
            .filter(|c| c.starts_with(partial))
            .map(|c| (*c).to_owned())
            .collect())
    }

    fn numbers(&self, partial: &str) -> impl Iterator<Item = String> {
        let partial = partial.to_owned();
        (0..150).map(move |n| format!("{partial}{n}"))
    }
}

#[test]
fn routed_capabilities_are_declared_without_keys() {
    assert_eq!(
        capabilities(&Atlas),
        json!({"tools": {}, "resources": {}, "prompts": {}, "completions": {}})
    );
    let legacy = serde_json::to_value(Atlas.declaration().legacy_capabilities()).expect("json");
    assert_eq!(
        legacy,
        json!({"tools": {}, "resources": {}, "prompts": {}, "completions": {}})
    );
    // And they are served.
    assert_eq!(
        result(
            &Atlas,
            "tools/call",
            json!({"name": "ping", "arguments": {}})
        )["content"][0]["text"],
        "pong"
    );
}

#[test]
fn completes_a_prompt_argument_as_the_method_answers() {
    assert_eq!(
        complete(&Atlas, prompt("summarise"), "topic", "ru"),
        json!({"values": ["rust", "mcp", "ruby"], "total": 3, "hasMore": false})
    );
}

#[test]
fn completes_a_string_enum_argument_from_its_values() {
    assert_eq!(
        complete(&Atlas, prompt("summarise"), "style", "B"),
        json!({"values": ["Bullets", "Brief"], "total": 2, "hasMore": false})
    );
    assert_eq!(
        complete(&Atlas, prompt("summarise"), "style", ""),
        json!({"values": ["Bullets", "Brief", "Paragraph"], "total": 3, "hasMore": false})
    );
    // A plain `String` argument has no completer: no values, no error.
    assert_eq!(
        complete(&Atlas, prompt("summarise"), "note", "x"),
        json!({"values": [], "total": 0, "hasMore": false})
    );
}

#[test]
fn completes_a_template_variable_with_the_resolved_arguments() {
    let template = json!({"type": "ref/resource", "uri": "city://{country}/{city}"});
    let params = json!({
        "ref": template,
        "argument": {"name": "city", "value": "L"},
        "context": {"arguments": {"country": "fr"}}
    });
    assert_eq!(
        result(&Atlas, "completion/complete", params)["completion"],
        json!({"values": ["Lyon", "Lille"], "total": 2, "hasMore": false})
    );
    // The completer's error is the answer.
    let params = json!({"ref": template, "argument": {"name": "city", "value": "L"}});
    assert_eq!(
        error(&Atlas, "completion/complete", params),
        json!({"code": -32602, "message": "name a known country first"})
    );
    // A variable without a completer answers no values.
    assert_eq!(
        complete(&Atlas, template, "country", "f"),
        json!({"values": [], "total": 0, "hasMore": false})
    );
}

#[test]
fn completions_are_capped_with_total_and_has_more() {
    let completion = complete(&Atlas, prompt("count"), "n", "");
    let values = completion["values"].as_array().expect("values");
    assert_eq!(values.len(), MAX_COMPLETION_VALUES);
    assert_eq!(values[0], "0");
    assert_eq!(values[99], "99");
    assert_eq!(completion["total"], 150);
    assert_eq!(completion["hasMore"], true);
}

#[test]
fn unknown_references_and_arguments_are_invalid_params() {
    let complete_error = |reference: Value, argument: &str| {
        let params = json!({"ref": reference, "argument": {"name": argument, "value": ""}});
        error(&Atlas, "completion/complete", params)
    };
    assert_eq!(
        complete_error(prompt("nope"), "x"),
        json!({"code": -32602, "message": "Unknown prompt: nope"})
    );
    assert_eq!(
        complete_error(json!({"type": "ref/resource", "uri": "city://{x}"}), "x"),
        json!({"code": -32602, "message": "Unknown resource template: city://{x}"})
    );
    assert_eq!(
        complete_error(prompt("summarise"), "mood"),
        json!({"code": -32602, "message": "Prompt `summarise` has no argument `mood`"})
    );
    assert_eq!(
        complete_error(
            json!({"type": "ref/resource", "uri": "city://{country}/{city}"}),
            "town"
        ),
        json!({"code": -32602, "message": "URI template `city://{country}/{city}` has no variable `town`"})
    );
}

#[test]
fn legacy_sessions_complete_too() {
    let ctx = MessageContext::stdio().with_legacy_session(LegacySession::new(
        "2025-11-25".to_owned(),
        json!({}),
        json!({"name": "c", "version": "1"}),
    ));
    let message = json!({"jsonrpc": "2.0", "id": 3, "method": "completion/complete", "params": {
        "ref": {"type": "ref/prompt", "name": "summarise"},
        "argument": {"name": "style", "value": "P"}
    }});
    let body = block_on(Atlas.handle_value(message, &ctx))
        .json()
        .expect("a response");
    assert_eq!(
        body["result"]["completion"],
        json!({"values": ["Paragraph"], "total": 1, "hasMore": false}),
        "{body}"
    );
}

// ----- settings on a routed capability -------------------------------------

#[derive(McpServer)]
#[mcp(
    name = "settled",
    version = "1",
    tools(list_changed),
    prompts(list_changed)
)]
struct Settled;

#[router]
impl Settled {
    #[tool]
    fn ping(&self) -> String {
        "pong".into()
    }

    #[resource(uri = "memo://one")]
    fn one(&self) -> String {
        "one".into()
    }

    /// A plain prompt: nothing to complete, so no `completions`.
    #[prompt]
    fn hello(&self, name: String) -> String {
        format!("Hello, {name}")
    }
}

#[test]
fn settings_apply_to_routed_capabilities() {
    assert_eq!(
        capabilities(&Settled),
        json!({"tools": {"listChanged": true}, "resources": {}, "prompts": {"listChanged": true}})
    );
    assert_eq!(
        error(
            &Settled,
            "completion/complete",
            json!({"ref": prompt("hello"), "argument": {"name": "name", "value": ""}})
        )["code"],
        -32601
    );
    assert_eq!(
        result(&Settled, "resources/read", json!({"uri": "memo://one"}))["contents"][0]["text"],
        "one"
    );
}

// ----- a hand-written handler, declared with its key ----------------------

#[derive(McpServer)]
#[mcp(name = "hand", version = "1", tools)]
struct Hand;

impl ToolsHandler for Hand {
    async fn list_tools(
        &self,
        _: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        let tool = Tool::new(ToolInputSchema::new(), "echo".to_owned());
        Ok(ListToolsResult::new(vec![tool], ctx.cache_hints()))
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        let text = ContentBlock::text(format!("echo {}", params.name));
        Ok(mcp_era_server::mcp_era_types::v2026_07_28::CallToolResult::new(vec![text]).into())
    }
}

#[test]
fn a_hand_written_handler_serves_its_declared_capability() {
    assert_eq!(capabilities(&Hand), json!({"tools": {}}));
    assert_eq!(
        result(&Hand, "tools/call", json!({"name": "x", "arguments": {}}))["content"][0]["text"],
        "echo x"
    );
    assert_eq!(
        error(&Hand, "prompts/list", json!({}))["code"],
        -32601,
        "an undeclared capability is not served"
    );
}

// ----- a hand-written handler found without its key -----------------------

/// Hand-written tools beside routed prompts, neither written in `#[mcp(...)]`.
#[derive(McpServer)]
#[mcp(name = "found", version = "1")]
struct Found;

#[router]
impl Found {
    #[prompt]
    fn hello(&self) -> String {
        "hello".into()
    }
}

impl ToolsHandler for Found {
    async fn list_tools(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        Hand.list_tools(params, ctx).await
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        Hand.call_tool(params, ctx).await
    }
}

/// A generic server type: its derive finds a handler whose bounds the type
/// carries.
#[derive(McpServer)]
#[mcp(name = "generic", version = "1")]
struct Generic<T: Send + Sync + 'static>(T);

impl<T: Send + Sync + 'static> ToolsHandler for Generic<T> {
    async fn list_tools(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        Hand.list_tools(params, ctx).await
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        Hand.call_tool(params, ctx).await
    }
}

#[test]
fn a_hand_written_handler_is_declared_and_served_without_its_key() {
    assert_eq!(capabilities(&Found), json!({"tools": {}, "prompts": {}}));
    assert_eq!(
        result(&Found, "tools/call", json!({"name": "y", "arguments": {}}))["content"][0]["text"],
        "echo y"
    );
    assert_eq!(
        result(&Found, "prompts/get", json!({"name": "hello"}))["messages"][0]["content"]["text"],
        "hello"
    );
    assert_eq!(error(&Found, "resources/list", json!({}))["code"], -32601);

    let generic = Generic(7_u8);
    assert_eq!(capabilities(&generic), json!({"tools": {}}));
    assert_eq!(
        result(&generic, "tools/list", json!({}))["tools"][0]["name"],
        "echo"
    );
}
