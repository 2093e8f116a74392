//! The rule check against deliberately broken servers: each must fail,
//! naming the rules it breaks, and only those.
//!
//! What can be broken is what the public API lets a server author write:
//! hand-written handlers (`ToolsHandler`, `ResourcesHandler`) and a
//! hand-made declaration in a hand-written `McpServer` impl. The rest the
//! derive and the runtime make impossible to break: the envelope, `_meta`,
//! version and header checks, notifications, removed methods and
//! `server/discover` are the runtime's (only a hand-made declaration can
//! change what they answer); `#[router]` tools get valid names, object
//! schemas and valid `x-mcp-header`s or the transports refuse to start;
//! a `#[resource]` returning `None` is always the right not-found code;
//! and the typed results require `resultType`, `ttlMs` and `cacheScope`.

use std::sync::{Arc, OnceLock};

use mcp_era_server::mcp_era_types::v2026_07_28::*;
use mcp_era_server::{
    HandlerResult, McpServer, PromptsHandler, RequestContext, ResourcesHandler, ServerDeclaration,
    ToolsHandler, errors,
};
use mcp_era_testing::check::rules;
use mcp_era_testing::{Report, check_server};
use serde_json::json;

fn assert_breaks_exactly(report: &Report, expected: &[&str]) {
    let mut broken = report.broken_ids();
    broken.sort_unstable();
    let mut expected = expected.to_vec();
    expected.sort_unstable();
    assert_eq!(broken, expected, "{report}");
}

/// A list of one page refuses every cursor (the pagination rule), so that
/// each broken server below breaks only what its test names.
fn one_page(params: &PaginatedRequestParams) -> HandlerResult<()> {
    match &params.cursor {
        Some(cursor) => Err(errors::invalid_params(format!("bad cursor {cursor}"))),
        None => Ok(()),
    }
}

/// Answers a missing resource with a plain `invalid_params`: right in
/// the modern era, but a legacy session then gets -32602, not -32002.
#[derive(McpServer)]
#[mcp(name = "legacy-not-found", version = "1.0.0", resources)]
struct PlainInvalidParams;

impl ResourcesHandler for PlainInvalidParams {
    async fn list_resources(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourcesResult> {
        one_page(&params)?;
        Ok(ListResourcesResult::new(Vec::new(), ctx.cache_hints()))
    }

    async fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<ReadResourceResultResponseResult> {
        Err(errors::invalid_params(format!(
            "no resource {}",
            params.uri
        )))
    }
}

#[tokio::test]
async fn a_plain_invalid_params_for_a_missing_resource_breaks_the_legacy_rule() {
    let report = check_server(PlainInvalidParams).await;
    assert_breaks_exactly(&report, &["legacy-resource-not-found"]);
    let text = report.to_string();
    assert!(
        text.contains("§8.9"),
        "the report names the section: {text}"
    );
    assert!(text.contains("expected error -32002"), "{text}");
}

/// Answers a missing resource with 2025's -32002 in the modern era too.
#[derive(McpServer)]
#[mcp(name = "old-not-found", version = "1.0.0", resources)]
struct OldCode;

impl ResourcesHandler for OldCode {
    async fn list_resources(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourcesResult> {
        one_page(&params)?;
        Ok(ListResourcesResult::new(Vec::new(), ctx.cache_hints()))
    }

    async fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<ReadResourceResultResponseResult> {
        let mut error = errors::resource_not_found(params.uri);
        error.code = -32002;
        Err(error)
    }
}

#[tokio::test]
async fn the_old_resource_not_found_code_breaks_the_modern_rule() {
    let report = check_server(OldCode).await;
    assert!(report.breaks(&rules::RESOURCE_NOT_FOUND), "{report}");
    assert!(
        !report.breaks(&rules::LEGACY_RESOURCE_NOT_FOUND),
        "{report}"
    );
}

/// A hand-written tools handler with everything a router would refuse:
/// a bad name, a duplicate, schemas that are not object schemas, a bad
/// `x-mcp-header`, a cursor that never ends and is never refused, a
/// `cacheScope` that changes between pages, and an unknown tool answered
/// as a failed call instead of -32602.
#[derive(McpServer)]
#[mcp(name = "sloppy-tools", version = "1.0.0", tools)]
struct SloppyTools;

fn schema(extra: serde_json::Value) -> ToolInputSchema {
    let mut schema = ToolInputSchema::new();
    if let serde_json::Value::Object(map) = extra {
        schema.extra = map;
    }
    schema
}

impl ToolsHandler for SloppyTools {
    async fn list_tools(
        &self,
        params: PaginatedRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        let tools = vec![
            Tool::new(schema(json!({})), "has space"),
            Tool::new(schema(json!({})), "twice"),
            Tool::new(schema(json!({})), "twice"),
            Tool::new(schema(json!({"properties": "none"})), "bad_properties"),
            Tool::new(
                schema(
                    json!({"properties": {"where": {"type": "object", "x-mcp-header": "Where"}}}),
                ),
                "bad_header",
            ),
        ];
        let scope = if params.cursor.is_some() {
            CacheHints::public(0)
        } else {
            CacheHints::private(0)
        };
        Ok(ListToolsResult::new(tools, scope).with_next_cursor("again"))
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        Ok(CallToolResult::error(format!("no tool {}", params.name)).into())
    }
}

#[tokio::test]
async fn a_sloppy_tools_handler_breaks_the_tool_rules() {
    let report = check_server(SloppyTools).await;
    assert_breaks_exactly(
        &report,
        &[
            "tool-names",
            "tool-schemas",
            "x-mcp-header",
            "pagination",
            "unknown-tool-or-prompt",
        ],
    );
    let text = report.to_string();
    for needle in [
        "tool name `has space`",
        "`twice` is listed twice",
        "bad_properties",
        "x-mcp-header on a property of type \"object\"",
        "repeats",
        "cacheScope",
        "invalid cursor",
    ] {
        assert!(text.contains(needle), "`{needle}` missing from {text}");
    }
}

/// A hand-made declaration: `tools` declared with no handler behind it,
/// and a legacy version among the modern ones. The derive refuses that at
/// compile time and `ServerDeclaration::with_versions` at run time, so the
/// lie goes through the derive's own unchecked door.
struct Lying;

impl McpServer for Lying {
    fn declaration(&self) -> Arc<ServerDeclaration> {
        static DECLARATION: OnceLock<Arc<ServerDeclaration>> = OnceLock::new();
        Arc::clone(DECLARATION.get_or_init(|| {
            let info = Implementation::builder()
                .name("lying")
                .version("1.0.0")
                .build();
            let declaration = mcp_era_server::__private::checked_declaration(
                info,
                &["2026-07-28", "2025-11-25"],
                &[],
            );
            Arc::new(declaration.with_capabilities(
                ServerCapabilities::new().with_tools(ServerCapabilitiesTools::new()),
            ))
        }))
    }
}

#[tokio::test]
async fn a_hand_made_declaration_that_lies_is_caught() {
    let info = Implementation::builder().name("lying").version("1").build();
    let refused = ServerDeclaration::new(info).with_versions(["2026-07-28", "2025-11-25"], [""; 0]);
    assert!(
        refused.is_err(),
        "the public builder takes no legacy version among modern ones"
    );
    let report = check_server(Lying).await;
    assert_breaks_exactly(
        &report,
        &["capabilities-truthful", "legacy-version-in-modern-meta"],
    );
}

/// The same rules pass on a well-behaved hand-written handler, so the
/// failures above come from the breakage and not from hand-writing.
#[derive(McpServer)]
#[mcp(name = "tidy-tools", version = "1.0.0", tools)]
struct TidyTools;

impl ToolsHandler for TidyTools {
    async fn list_tools(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        let page = match params.cursor.as_deref() {
            None => 1,
            Some("2") => 2,
            Some(other) => return Err(errors::invalid_params(format!("bad cursor {other}"))),
        };
        let tool = Tool::new(schema(json!({"properties": {}})), format!("tool_{page}"));
        let result = ListToolsResult::new(vec![tool], ctx.cache_hints());
        Ok(if page == 1 {
            result.with_next_cursor("2")
        } else {
            result
        })
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        Err(errors::invalid_params(format!("no tool {}", params.name)))
    }
}

#[tokio::test]
async fn a_tidy_hand_written_handler_passes() {
    let report = check_server(TidyTools).await;
    report.assert_ok();
    for rule in [rules::PAGINATION, rules::TOOL_NAMES, rules::HTTP_HEADERS] {
        assert!(report.checked().contains(&rule), "{rule:?} not checked");
    }
}

#[tokio::test]
async fn assert_ok_panics_with_the_full_report() {
    let report = check_server(SloppyTools).await;
    let panic = std::panic::catch_unwind(|| report.assert_ok()).expect_err("it fails");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.starts_with("MCP rule check of `sloppy-tools 1.0.0`"),
        "{message}"
    );
    assert!(
        message.contains("[tools.mdx (tool names)] tool-names"),
        "{message}"
    );
}

/// Answers an unknown prompt with an internal error instead of -32602.
#[derive(McpServer)]
#[mcp(name = "sloppy-prompts", version = "1.0.0", prompts)]
struct SloppyPrompts;

impl PromptsHandler for SloppyPrompts {
    async fn list_prompts(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListPromptsResult> {
        one_page(&params)?;
        Ok(ListPromptsResult::new(
            vec![Prompt::new("only")],
            ctx.cache_hints(),
        ))
    }

    async fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<GetPromptResultResponseResult> {
        Err(errors::internal_error(format!("no prompt {}", params.name)))
    }
}

#[tokio::test]
async fn an_unknown_prompt_must_be_invalid_params() {
    let report = check_server(SloppyPrompts).await;
    assert_breaks_exactly(&report, &["unknown-tool-or-prompt"]);
    assert!(
        report
            .to_string()
            .contains("prompts/get of an unknown prompt"),
        "{report}"
    );
}

/// A non-object input schema cannot be sent: `ToolInputSchema`'s `type`
/// is the constant "object", and an `extra` key shadowing it fails to
/// serialize, so `tools/list` answers -32603. The check reports the list
/// that does not work.
#[derive(McpServer)]
#[mcp(name = "string-schema", version = "1.0.0", tools)]
struct StringSchema;

impl ToolsHandler for StringSchema {
    async fn list_tools(
        &self,
        _: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        let tool = Tool::new(schema(json!({"type": "string"})), "stringly");
        Ok(ListToolsResult::new(vec![tool], ctx.cache_hints()))
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        _: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        Err(errors::invalid_params(format!("no tool {}", params.name)))
    }
}

#[tokio::test]
async fn a_non_object_input_schema_makes_the_list_fail() {
    let report = check_server(StringSchema).await;
    assert_breaks_exactly(&report, &["capabilities-truthful"]);
    assert!(report.to_string().contains("-32603"), "{report}");
}
