//! A generic server declaring every capability with a handler for each:
//! the expansion compiles warning-free (clippy `-D warnings` covers it) and
//! routes prompts and completions.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

mod common;

use mcp_era_server::mcp_era_types::v2026_07_28::{
    CacheHints, CallToolRequestParams, CallToolResult, CallToolResultResponseResult,
    CompleteRequestParams, CompleteResult, CompleteResultCompletion, GetPromptRequestParams,
    GetPromptResult, GetPromptResultResponseResult, ListPromptsResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, Prompt, ReadResourceRequestParams,
    ReadResourceResultResponseResult,
};
use mcp_era_server::transport::MessageContext;
use mcp_era_server::{
    CompletionsHandler, HandlerResult, McpServer, McpServerExt, PromptsHandler, RequestContext,
    ResourcesHandler, ToolsHandler, errors,
};
use serde_json::{Value, json};

use common::{block_on, request};

#[derive(McpServer)]
#[mcp(
    name = "kitchen",
    version = "3.0.0",
    tools,
    resources,
    prompts,
    completions,
    logging
)]
struct Kitchen<T: Send + Sync + AsRef<str>> {
    label: T,
}

impl<T: Send + Sync + AsRef<str>> ToolsHandler for Kitchen<T> {
    async fn list_tools(
        &self,
        _: PaginatedRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        Ok(ListToolsResult::new(Vec::new(), CacheHints::public(0)))
    }
    async fn call_tool(
        &self,
        _: CallToolRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        Ok(CallToolResultResponseResult::CallToolResult(
            CallToolResult::new(Vec::new()),
        ))
    }
}

impl<T: Send + Sync + AsRef<str>> ResourcesHandler for Kitchen<T> {
    async fn list_resources(
        &self,
        _: PaginatedRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<ListResourcesResult> {
        Ok(ListResourcesResult::new(
            Vec::new(),
            CacheHints::private(10),
        ))
    }
    async fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<ReadResourceResultResponseResult> {
        Err(errors::invalid_params(format!(
            "Resource not found: {}",
            params.uri
        )))
    }
}

impl<T: Send + Sync + AsRef<str>> PromptsHandler for Kitchen<T> {
    async fn list_prompts(
        &self,
        _: PaginatedRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<ListPromptsResult> {
        let prompt = Prompt::new(self.label.as_ref().to_owned());
        Ok(ListPromptsResult::new(
            vec![prompt],
            CacheHints::public(100),
        ))
    }
    async fn get_prompt(
        &self,
        _: GetPromptRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<GetPromptResultResponseResult> {
        Ok(GetPromptResultResponseResult::GetPromptResult(
            GetPromptResult::new(Vec::new()),
        ))
    }
}

impl<T: Send + Sync + AsRef<str>> CompletionsHandler for Kitchen<T> {
    async fn complete(
        &self,
        params: CompleteRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<CompleteResult> {
        if params.argument.value == "many" {
            let values = (0..150).map(|n| format!("v{n}")).collect();
            return Ok(CompleteResult::new(CompleteResultCompletion::new(values)));
        }
        let value = format!("{}!", params.argument.value);
        Ok(CompleteResult::new(CompleteResultCompletion::new(vec![
            value,
        ])))
    }
}

fn result(method: &str, params: Value) -> Value {
    let server = Kitchen {
        label: "greet".to_owned(),
    };
    let outcome = block_on(server.handle_value(request(method, params), &MessageContext::stdio()));
    assert_eq!(outcome.http_status, 200, "{:?}", outcome.json());
    let mut result = outcome.json().unwrap()["result"].take();
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name":"kitchen","version":"3.0.0"})
    );
    result.as_object_mut().unwrap().remove("_meta");
    result
}

#[test]
fn discover_lists_every_capability() {
    let declaration = Kitchen {
        label: String::new(),
    }
    .declaration();
    let caps = &declaration.discover_json()["capabilities"];
    assert_eq!(
        caps,
        &json!({"tools":{},"resources":{},"prompts":{},"completions":{},"logging":{}})
    );
}

#[test]
fn prompts_and_completions_are_routed() {
    assert_eq!(
        result("prompts/list", json!({})),
        json!({"resultType":"complete","prompts":[{"name":"greet"}],"ttlMs":100,"cacheScope":"public"})
    );
    assert_eq!(
        result("prompts/get", json!({"name":"greet"})),
        json!({"resultType":"complete","messages":[]})
    );
    assert_eq!(
        result(
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"a","value":"x"}})
        ),
        json!({"resultType":"complete","completion":{"values":["x!"]}})
    );
    assert_eq!(
        result("resources/list", json!({})),
        json!({"resultType":"complete","resources":[],"ttlMs":10,"cacheScope":"private"})
    );
}

#[test]
fn a_completion_past_the_schema_s_100_values_is_cut_and_says_so() {
    let answer = result(
        "completion/complete",
        json!({"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"a","value":"many"}}),
    );
    let completion = &answer["completion"];
    let values = completion["values"].as_array().unwrap();
    assert_eq!(
        values.len(),
        mcp_era_server::protocol::MAX_COMPLETION_VALUES
    );
    assert_eq!(values[99], "v99");
    assert_eq!(completion["hasMore"], true);
    assert_eq!(completion["total"], 150);
}

#[test]
fn legacy_capabilities_map_to_the_2025_shape() {
    let legacy = serde_json::to_value(
        Kitchen {
            label: String::new(),
        }
        .declaration()
        .legacy_capabilities(),
    )
    .unwrap();
    assert_eq!(
        legacy,
        json!({"tools":{},"resources":{},"prompts":{},"completions":{},"logging":{}})
    );
}
