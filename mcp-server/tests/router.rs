//! `#[mcp_era_server::router]` and `ToolRouter` behaviour: raw JSON in, whole
//! results (or the relevant fields) compared with the expected JSON.

mod common;

use std::sync::Arc;

use mcp_era_server::mcp_era_types::v2026_07_28::{
    CallToolRequestParams, CallToolResultResponseResult, ListToolsResult, PaginatedRequestParams,
    Tool, ToolInputSchema,
};
use mcp_era_server::transport::{HttpHeaders, LegacySession, MessageContext, Outcome};
use mcp_era_server::{
    HandlerResult, Json, McpServer, McpServerExt, RequestContext, ServerEvent, ServerEvents,
    ToolCall, ToolError, ToolRouter, ToolsHandler, errors, router,
};
use serde_json::{Value, json};

use common::{block_on, request};

fn ask_ctx<S: McpServer>(server: &S, message: Value, ctx: &MessageContext) -> Outcome {
    block_on(server.handle_value(message, ctx))
}

/// The whole response body of a modern stdio request.
fn ask<S: McpServer>(server: &S, method: &str, params: Value) -> Value {
    let outcome = ask_ctx(server, request(method, params), &MessageContext::stdio());
    outcome.json().expect("a request gets a response")
}

/// The `result` of a modern request, without the server-info `_meta`.
#[track_caller]
fn result<S: McpServer>(server: &S, method: &str, params: Value) -> Value {
    let body = ask(server, method, params);
    let mut result = body
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: expected a result, got {body}"));
    let object = result.as_object_mut().expect("results are objects");
    let meta = object.remove("_meta").expect("results carry _meta");
    assert!(
        meta.get("io.modelcontextprotocol/serverInfo").is_some(),
        "{meta}"
    );
    result
}

/// The `error` of a modern request.
#[track_caller]
fn error<S: McpServer>(server: &S, method: &str, params: Value) -> Value {
    let body = ask(server, method, params);
    assert_eq!(body["id"], 1, "{body}");
    body.get("error")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: expected an error, got {body}"))
}

fn text_result(text: &str, is_error: bool) -> Value {
    let mut result = json!({"resultType": "complete", "content": [{"type": "text", "text": text}]});
    if is_error {
        result["isError"] = json!(true);
    }
    result
}

const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

// ----- the notes server ------------------------------------------------------

#[derive(McpServer)]
#[mcp(
    name = "notes",
    version = "1.0.0",
    versions(legacy = ["2025-11-25"]),
    cache(ttl_ms = 60000, scope = "public")
)]
struct Notes;

/// A search query.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    /// What to look for.
    text: String,
    /// Note ids to restrict the search to.
    #[serde(default)]
    items: Vec<u32>,
}

/// What `search` finds.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Hits {
    /// The matching note ids.
    ids: Vec<u32>,
    /// The query, echoed.
    query: String,
}

#[router]
impl Notes {
    /// Adds two integers.
    #[tool(read_only, idempotent)]
    fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }

    /// Greets someone.
    ///
    /// Politely.
    #[tool(title = "Greeter", destructive = false)]
    fn greet(
        &self,
        #[arg(description = "Who to greet")] name: String,
        #[arg(header = "Region")] region: Option<String>,
    ) -> String {
        match region {
            Some(region) => format!("Hello, {name} from {region}!"),
            None => format!("Hello, {name}!"),
        }
    }

    /// Searches the notes.
    #[tool(read_only)]
    async fn search(
        &self,
        #[arguments] q: Query,
        ctx: &RequestContext,
    ) -> Result<Json<Hits>, String> {
        if q.text == "fail" {
            return Err(format!(
                "search failed (asked with {})",
                ctx.protocol_version()
            ));
        }
        Ok(Json(Hits {
            ids: q.items,
            query: q.text,
        }))
    }

    /// Divides `a` by `b`.
    #[tool(name = "math.divide")]
    async fn divide(&self, a: i64, b: i64) -> Result<String, ToolError> {
        if b == 0 {
            return Err(ToolError::Protocol(errors::invalid_params(
                "division by zero",
            )));
        }
        if a < 0 {
            return Err(ToolError::failed("negative dividends are not supported"));
        }
        Ok((a / b).to_string())
    }

    /// The protocol version of the request.
    #[tool]
    fn version(&self, ctx: &RequestContext) -> String {
        ctx.protocol_version().to_owned()
    }

    /// All the notes.
    #[resource(uri = "note://index", mime_type = "text/plain", title = "Index")]
    fn index(&self) -> String {
        "1, 42".to_owned()
    }

    /// One note.
    #[resource(template = "note://{id}", mime_type = "text/markdown")]
    fn note(&self, id: u32) -> Option<String> {
        (id == 1 || id == 42).then(|| format!("# Note {id}"))
    }

    /// Summarises a note.
    #[prompt]
    fn summarise(
        &self,
        #[arg(description = "The note id")] id: u32,
        #[arg(description = "The tone")] style: Option<String>,
    ) -> String {
        format!(
            "Summarise note {id} in a {} tone.",
            style.as_deref().unwrap_or("neutral")
        )
    }
}

// ----- tools -----------------------------------------------------------------

#[test]
fn tools_list_describes_every_tool() {
    let result = result(&Notes, "tools/list", json!({}));
    assert_eq!(
        result,
        json!({
            "resultType": "complete",
            "ttlMs": 60000,
            "cacheScope": "public",
            "tools": [
                {
                    "name": "add",
                    "description": "Adds two integers.",
                    "inputSchema": {
                        "$schema": DIALECT,
                        "type": "object",
                        "properties": {
                            "a": {"type": "integer", "format": "int64"},
                            "b": {"type": "integer", "format": "int64"}
                        },
                        "required": ["a", "b"]
                    },
                    "annotations": {"readOnlyHint": true, "idempotentHint": true}
                },
                {
                    "name": "greet",
                    "title": "Greeter",
                    "description": "Greets someone.\n\nPolitely.",
                    "inputSchema": {
                        "$schema": DIALECT,
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "description": "Who to greet"},
                            "region": {"type": "string", "x-mcp-header": "Region"}
                        },
                        "required": ["name"]
                    },
                    "annotations": {"destructiveHint": false}
                },
                {
                    "name": "search",
                    "description": "Searches the notes.",
                    "inputSchema": {
                        "$schema": DIALECT,
                        "description": "A search query.",
                        "type": "object",
                        "properties": {
                            "text": {"type": "string", "description": "What to look for."},
                            "items": {
                                "type": "array",
                                "description": "Note ids to restrict the search to.",
                                "items": {"type": "integer", "format": "uint32", "minimum": 0},
                                "default": []
                            }
                        },
                        "required": ["text"]
                    },
                    "outputSchema": {
                        "$schema": DIALECT,
                        "description": "What `search` finds.",
                        "type": "object",
                        "properties": {
                            "ids": {
                                "type": "array",
                                "description": "The matching note ids.",
                                "items": {"type": "integer", "format": "uint32", "minimum": 0}
                            },
                            "query": {"type": "string", "description": "The query, echoed."}
                        },
                        "required": ["ids", "query"]
                    },
                    "annotations": {"readOnlyHint": true}
                },
                {
                    "name": "math.divide",
                    "description": "Divides `a` by `b`.",
                    "inputSchema": {
                        "$schema": DIALECT,
                        "type": "object",
                        "properties": {
                            "a": {"type": "integer", "format": "int64"},
                            "b": {"type": "integer", "format": "int64"}
                        },
                        "required": ["a", "b"]
                    }
                },
                {
                    "name": "version",
                    "description": "The protocol version of the request.",
                    "inputSchema": {"$schema": DIALECT, "type": "object", "properties": {}}
                }
            ]
        })
    );
}

#[test]
fn tools_call_sync_method() {
    assert_eq!(
        result(
            &Notes,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 40}})
        ),
        text_result("42", false)
    );
}

#[test]
fn tools_call_optional_argument_absent_or_null() {
    for arguments in [
        json!({"name": "Ann"}),
        json!({"name": "Ann", "region": null}),
    ] {
        assert_eq!(
            result(
                &Notes,
                "tools/call",
                json!({"name": "greet", "arguments": arguments})
            ),
            text_result("Hello, Ann!", false)
        );
    }
    assert_eq!(
        result(
            &Notes,
            "tools/call",
            json!({"name": "greet", "arguments": {"name": "Ann", "region": "eu"}})
        ),
        text_result("Hello, Ann from eu!", false)
    );
}

#[test]
fn tools_call_without_arguments_object() {
    // No `arguments` at all reads as `{}`.
    assert_eq!(
        result(&Notes, "tools/call", json!({"name": "version"})),
        text_result("2026-07-28", false)
    );
}

#[test]
fn unknown_tool_is_invalid_params() {
    assert_eq!(
        error(
            &Notes,
            "tools/call",
            json!({"name": "nope", "arguments": {}})
        ),
        json!({"code": -32602, "message": "Unknown tool: nope"})
    );
}

#[test]
fn bad_argument_names_its_path() {
    assert_eq!(
        result(
            &Notes,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": "two"}})
        ),
        text_result(
            "Invalid argument `/b` (type): \"two\" is not of type \"integer\"",
            true
        )
    );
}

#[test]
fn missing_required_argument_is_a_failed_result() {
    assert_eq!(
        result(
            &Notes,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1}})
        ),
        text_result(
            "Invalid arguments (required): \"b\" is a required property",
            true
        )
    );
}

#[test]
fn arguments_struct_errors_name_nested_paths() {
    assert_eq!(
        result(
            &Notes,
            "tools/call",
            json!({"name": "search", "arguments": {"text": "x", "items": [1, "two"]}})
        ),
        text_result(
            "Invalid argument `/items/1` (type): \"two\" is not of type \"integer\"",
            true
        )
    );
    assert_eq!(
        result(
            &Notes,
            "tools/call",
            json!({"name": "search", "arguments": {"items": [1]}})
        ),
        text_result(
            "Invalid arguments (required): \"text\" is a required property",
            true
        )
    );
}

#[test]
fn structured_output_async_method_with_context() {
    let structured = json!({"ids": [1, 42], "query": "rust"});
    assert_eq!(
        result(
            &Notes,
            "tools/call",
            json!({"name": "search", "arguments": {"text": "rust", "items": [1, 42]}})
        ),
        json!({
            "resultType": "complete",
            "content": [{"type": "text", "text": structured.to_string()}],
            "structuredContent": structured
        })
    );
}

#[test]
fn tool_err_is_a_failed_result() {
    assert_eq!(
        result(
            &Notes,
            "tools/call",
            json!({"name": "search", "arguments": {"text": "fail"}})
        ),
        text_result("search failed (asked with 2026-07-28)", true)
    );
    assert_eq!(
        result(
            &Notes,
            "tools/call",
            json!({"name": "math.divide", "arguments": {"a": -4, "b": 2}})
        ),
        text_result("negative dividends are not supported", true)
    );
    assert_eq!(
        result(
            &Notes,
            "tools/call",
            json!({"name": "math.divide", "arguments": {"a": 84, "b": 2}})
        ),
        text_result("42", false)
    );
}

#[test]
fn tool_protocol_error_is_a_jsonrpc_error() {
    assert_eq!(
        error(
            &Notes,
            "tools/call",
            json!({"name": "math.divide", "arguments": {"a": 1, "b": 0}})
        ),
        json!({"code": -32602, "message": "division by zero"})
    );
}

// ----- resources -------------------------------------------------------------

#[test]
fn resources_list_and_templates_list() {
    assert_eq!(
        result(&Notes, "resources/list", json!({})),
        json!({
            "resultType": "complete",
            "ttlMs": 60000,
            "cacheScope": "public",
            "resources": [{
                "name": "index",
                "title": "Index",
                "uri": "note://index",
                "description": "All the notes.",
                "mimeType": "text/plain"
            }]
        })
    );
    assert_eq!(
        result(&Notes, "resources/templates/list", json!({})),
        json!({
            "resultType": "complete",
            "ttlMs": 60000,
            "cacheScope": "public",
            "resourceTemplates": [{
                "name": "note",
                "uriTemplate": "note://{id}",
                "description": "One note.",
                "mimeType": "text/markdown"
            }]
        })
    );
}

#[test]
fn resources_read_fixed_and_template() {
    assert_eq!(
        result(&Notes, "resources/read", json!({"uri": "note://index"})),
        json!({
            "resultType": "complete",
            "ttlMs": 60000,
            "cacheScope": "public",
            "contents": [{"uri": "note://index", "mimeType": "text/plain", "text": "1, 42"}]
        })
    );
    assert_eq!(
        result(&Notes, "resources/read", json!({"uri": "note://42"})),
        json!({
            "resultType": "complete",
            "ttlMs": 60000,
            "cacheScope": "public",
            "contents": [{"uri": "note://42", "mimeType": "text/markdown", "text": "# Note 42"}]
        })
    );
}

#[test]
fn missing_resources_modern() {
    // `None`, a variable that does not parse as `u32`, and no match at all.
    for uri in ["note://7", "note://abc", "other://1"] {
        assert_eq!(
            error(&Notes, "resources/read", json!({"uri": uri})),
            json!({
                "code": -32602,
                "message": format!("Resource not found: {uri}"),
                "data": {"uri": uri}
            }),
            "{uri}"
        );
    }
}

#[test]
fn missing_resource_legacy_is_32002() {
    let ctx = MessageContext::stdio().with_legacy_session(LegacySession::new(
        "2025-11-25".to_owned(),
        json!({}),
        json!({"name": "c", "version": "1"}),
    ));
    for uri in ["note://7", "note://abc"] {
        let message =
            json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": uri}});
        let outcome = ask_ctx(&Notes, message, &ctx);
        assert_eq!(
            outcome.json(),
            Some(json!({"jsonrpc": "2.0", "id": 5, "error": {
                "code": -32002,
                "message": format!("Resource not found: {uri}"),
                "data": {"uri": uri}
            }})),
            "{uri}"
        );
    }
    // A found resource in the same session reads normally.
    let message = json!({"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {"uri": "note://1"}});
    let body = ask_ctx(&Notes, message, &ctx).json().expect("a response");
    assert_eq!(
        body["result"]["contents"],
        json!([{"uri": "note://1", "mimeType": "text/markdown", "text": "# Note 1"}])
    );
}

// ----- prompts ---------------------------------------------------------------

#[test]
fn prompts_list_describes_arguments() {
    assert_eq!(
        result(&Notes, "prompts/list", json!({})),
        json!({
            "resultType": "complete",
            "ttlMs": 60000,
            "cacheScope": "public",
            "prompts": [{
                "name": "summarise",
                "description": "Summarises a note.",
                "arguments": [
                    {"name": "id", "description": "The note id", "required": true},
                    {"name": "style", "description": "The tone", "required": false}
                ]
            }]
        })
    );
}

#[test]
fn prompts_get() {
    assert_eq!(
        result(
            &Notes,
            "prompts/get",
            json!({"name": "summarise", "arguments": {"id": "42", "style": "cheerful"}})
        ),
        json!({
            "resultType": "complete",
            "description": "Summarises a note.",
            "messages": [{
                "role": "user",
                "content": {"type": "text", "text": "Summarise note 42 in a cheerful tone."}
            }]
        })
    );
}

#[test]
fn prompts_get_errors() {
    assert_eq!(
        error(
            &Notes,
            "prompts/get",
            json!({"name": "summarise", "arguments": {"style": "dry"}})
        ),
        json!({"code": -32602, "message": "Invalid argument `id`: missing required argument"})
    );
    assert_eq!(
        error(
            &Notes,
            "prompts/get",
            json!({"name": "summarise", "arguments": {"id": "x"}})
        ),
        json!({"code": -32602, "message": "Invalid argument `id`: invalid digit found in string"})
    );
    assert_eq!(
        error(&Notes, "prompts/get", json!({"name": "nope"})),
        json!({"code": -32602, "message": "Unknown prompt: nope"})
    );
}

// ----- pagination ------------------------------------------------------------

#[derive(McpServer)]
#[mcp(name = "many", version = "1.0.0")]
struct Many;

macro_rules! many_tools {
    ($($name:ident)*) => {
        #[router]
        impl Many {
            $(
                #[tool]
                fn $name(&self) -> String {
                    stringify!($name).to_owned()
                }
            )*
        }
    };
}

many_tools! {
    t000 t001 t002 t003 t004 t005 t006 t007 t008 t009 t010 t011
    t012 t013 t014 t015 t016 t017 t018 t019 t020 t021 t022 t023
    t024 t025 t026 t027 t028 t029 t030 t031 t032 t033 t034 t035
    t036 t037 t038 t039 t040 t041 t042 t043 t044 t045 t046 t047
    t048 t049 t050 t051 t052 t053 t054 t055 t056 t057 t058 t059
    t060 t061 t062 t063 t064 t065 t066 t067 t068 t069 t070 t071
    t072 t073 t074 t075 t076 t077 t078 t079 t080 t081 t082 t083
    t084 t085 t086 t087 t088 t089 t090 t091 t092 t093 t094 t095
    t096 t097 t098 t099 t100
}

fn names(result: &Value) -> Vec<String> {
    result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("a name").to_owned())
        .collect()
}

#[test]
fn tools_list_pages_of_100() {
    let first = result(&Many, "tools/list", json!({}));
    let expected: Vec<String> = (0..100).map(|i| format!("t{i:03}")).collect();
    assert_eq!(names(&first), expected);
    assert_eq!(first["nextCursor"], "100");
    // Default cache hints when `#[mcp]` declares none.
    assert_eq!(first["ttlMs"], 0);
    assert_eq!(first["cacheScope"], "private");

    let second = result(&Many, "tools/list", json!({"cursor": "100"}));
    assert_eq!(names(&second), ["t100"]);
    assert!(second.get("nextCursor").is_none(), "{second}");

    assert_eq!(
        result(&Many, "tools/call", json!({"name": "t100"})),
        text_result("t100", false)
    );
}

#[test]
fn bad_cursor_is_invalid_params() {
    for cursor in ["abc", "-1", "102"] {
        assert_eq!(
            error(&Many, "tools/list", json!({"cursor": cursor})),
            json!({"code": -32602, "message": format!("Invalid cursor: {cursor}")}),
            "{cursor}"
        );
    }
    // The same rule for prompts and resources.
    assert_eq!(
        error(&Notes, "prompts/list", json!({"cursor": "x"}))["code"],
        -32602
    );
    assert_eq!(
        error(&Notes, "resources/templates/list", json!({"cursor": "x"}))["code"],
        -32602
    );
}

// ----- HTTP: Mcp-Param headers from the static table -------------------------

/// Its tools are never listed, so the list counter stays at zero.
#[derive(McpServer)]
#[mcp(name = "regional", version = "1.0.0")]
struct Regional;

#[router]
impl Regional {
    #[tool]
    fn greet(&self, name: String, #[arg(header = "Region")] region: Option<String>) -> String {
        format!(
            "Hello, {name} from {}!",
            region.as_deref().unwrap_or("nowhere")
        )
    }

    /// A plain parameter of a struct type.
    #[tool]
    fn count(&self, filter: Query) -> String {
        format!("{} {}", filter.text, filter.items.len())
    }
}

#[test]
fn plain_struct_parameter_errors_name_nested_paths() {
    assert_eq!(
        result(
            &Regional,
            "tools/call",
            json!({"name": "count", "arguments": {"filter": {"text": "x", "items": [1, -2]}}})
        ),
        text_result(
            "Invalid argument `/filter/items/1` (minimum): -2 is less than the minimum of 0",
            true
        )
    );
    assert_eq!(
        result(
            &Regional,
            "tools/call",
            json!({"name": "count", "arguments": {"filter": {"text": "x", "items": [1, 2]}}})
        ),
        text_result("x 2", false)
    );
}

fn http_call(tool: &str, arguments: Value, params: Vec<(String, String)>) -> Outcome {
    let ctx = MessageContext::http_headers(HttpHeaders {
        protocol_version: Some("2026-07-28".into()),
        method: Some(Some("tools/call".into())),
        name: Some(tool.into()),
        params: params.into_iter().map(|(n, v)| (n, v.into())).collect(),
    });
    ask_ctx(
        &Regional,
        request("tools/call", json!({"name": tool, "arguments": arguments})),
        &ctx,
    )
}

#[test]
fn http_tools_call_checks_headers_without_listing() {
    let region = || vec![("region".to_owned(), "eu".to_owned())];
    let ok = http_call("greet", json!({"name": "Ann", "region": "eu"}), region());
    assert_eq!(ok.http_status, 200);
    let body = ok.json().expect("a response");
    assert_eq!(body["result"]["content"][0]["text"], "Hello, Ann from eu!");

    let mismatch = http_call("greet", json!({"name": "Ann", "region": "us"}), region());
    assert_eq!(mismatch.http_status, 400);
    assert_eq!(
        mismatch.json().expect("a response"),
        json!({"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32020,
            "message": "Mcp-Param-region header does not match argument region"
        }})
    );

    let missing = http_call("greet", json!({"name": "Ann", "region": "us"}), Vec::new());
    assert_eq!(
        missing.json().expect("a response")["error"],
        json!({"code": -32020, "message": "Missing Mcp-Param-region header for argument region"})
    );

    // An absent optional argument needs no header.
    let absent = http_call("greet", json!({"name": "Ann"}), Vec::new());
    assert_eq!(
        absent.json().expect("a response")["result"]["content"][0]["text"],
        "Hello, Ann from nowhere!"
    );

    use mcp_era_server::__private::RoutedTools;
    assert_eq!(Regional::tool_table().list_pages_served(), 0);
}

// ----- ToolRouter ------------------------------------------------------------

#[derive(McpServer)]
#[mcp(name = "dynamic", version = "1.0.0", tools(list_changed))]
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

    async fn list_tools_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<mcp_era_server::Reply> {
        self.tools.list_tools_reply(params, ctx).await
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        self.tools.call_tool(params, ctx).await
    }

    fn param_headers(&self, name: &str) -> Option<Vec<mcp_era_server::ParamHeader>> {
        self.tools.param_headers(name)
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

#[test]
fn tool_router_add_call_remove_and_announce() {
    let events = ServerEvents::new();
    let mut changes = events.subscribe();
    let server = Dynamic {
        tools: ToolRouter::new().with_events(events),
    };

    server
        .tools
        .add::<Pair, _, _, _>("sum", "Adds a and b.", |pair, _ctx| async move {
            Json(Sum {
                sum: pair.a + pair.b,
            })
        })
        .expect("a valid tool");
    assert_eq!(changes.try_recv(), Ok(ServerEvent::ToolsListChanged));

    let mut schema = ToolInputSchema::new();
    schema.extra.insert(
        "properties".into(),
        json!({"text": {"type": "string", "x-mcp-header": "Text"}}),
    );
    let mut echo = Tool::new(schema, "echo".to_owned());
    echo.description = Some("Echoes its arguments.".to_owned());
    server
        .tools
        .add_raw(echo, |call: ToolCall, ctx: RequestContext| async move {
            format!(
                "{} {}",
                ctx.protocol_version(),
                Value::Object(call.arguments)
            )
        })
        .expect("a valid raw tool");
    assert_eq!(changes.try_recv(), Ok(ServerEvent::ToolsListChanged));
    assert_eq!(server.tools.names(), ["sum", "echo"]);

    let listed = result(&server, "tools/list", json!({}));
    assert_eq!(
        listed["tools"][0],
        json!({
            "name": "sum",
            "description": "Adds a and b.",
            "inputSchema": {
                "$schema": DIALECT,
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "format": "int64"},
                    "b": {"type": "integer", "format": "int64"}
                },
                "required": ["a", "b"]
            },
            "outputSchema": {
                "$schema": DIALECT,
                "type": "object",
                "properties": {"sum": {"type": "integer", "format": "int64"}},
                "required": ["sum"]
            }
        })
    );
    assert_eq!(
        listed["tools"][1],
        json!({
            "name": "echo",
            "description": "Echoes its arguments.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string", "x-mcp-header": "Text"}}
            }
        })
    );
    assert_eq!(
        server.tools.param_headers("echo"),
        Some(vec![mcp_era_server::ParamHeader {
            argument: "text".to_owned(),
            header: "text".to_owned()
        }])
    );

    assert_eq!(
        result(
            &server,
            "tools/call",
            json!({"name": "sum", "arguments": {"a": 40, "b": 2}})
        ),
        json!({
            "resultType": "complete",
            "content": [{"type": "text", "text": "{\"sum\":42}"}],
            "structuredContent": {"sum": 42}
        })
    );
    assert_eq!(
        result(
            &server,
            "tools/call",
            json!({"name": "sum", "arguments": {"a": 40, "b": true}})
        ),
        text_result(
            "Invalid argument `/b` (type): true is not of type \"integer\"",
            true
        )
    );
    assert_eq!(
        result(
            &server,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}})
        ),
        text_result("2026-07-28 {\"text\":\"hi\"}", false)
    );

    assert!(server.tools.remove("sum"));
    assert_eq!(changes.try_recv(), Ok(ServerEvent::ToolsListChanged));
    assert!(!server.tools.remove("sum"), "already gone");
    assert!(changes.try_recv().is_err(), "no change, no event");
    assert_eq!(server.tools.names(), ["echo"]);
    // The page kept before the change is not sent again.
    let listed = result(&server, "tools/list", json!({}));
    assert_eq!(listed["tools"].as_array().map(Vec::len), Some(1));
    assert_eq!(listed["tools"][0]["name"], "echo");
    assert!(
        server
            .tools
            .set_visibility("echo", mcp_era_server::ToolVisibility::HIDDEN)
    );
    assert_eq!(result(&server, "tools/list", json!({}))["tools"], json!([]));
    assert_eq!(
        error(
            &server,
            "tools/call",
            json!({"name": "sum", "arguments": {"a": 1, "b": 2}})
        ),
        json!({"code": -32602, "message": "Unknown tool: sum"})
    );
}

#[test]
fn tool_router_rejects_bad_tools() {
    let events = ServerEvents::new();
    let mut changes = events.subscribe();
    let tools = ToolRouter::new().with_events(events);
    let error = tools
        .add::<Pair, _, _, _>("bad name", "", |pair, _ctx| async move {
            (pair.a + pair.b).to_string()
        })
        .expect_err("a space is not allowed in a tool name");
    assert_eq!(
        error,
        "tool name `bad name` must be 1 to 128 characters from A-Z a-z 0-9 _ - ."
    );

    // `x-mcp-header` on a non-primitive argument.
    let mut schema = ToolInputSchema::new();
    schema.extra.insert(
        "properties".into(),
        json!({"tags": {"type": "array", "x-mcp-header": "Tags"}}),
    );
    let error = tools
        .add_raw(
            Tool::new(schema, "tagged".to_owned()),
            |_: ToolCall, _: RequestContext| async { String::new() },
        )
        .expect_err("headers only on primitives");
    assert_eq!(
        error,
        "tool `tagged`: argument `tags`: `x-mcp-header` applies only to string, integer or boolean arguments"
    );
    // Nor on a number: the transport mirrors only strings, integers and booleans.
    let mut schema = ToolInputSchema::new();
    schema.extra.insert(
        "properties".into(),
        json!({"ratio": {"type": ["number", "null"], "x-mcp-header": "Ratio"}}),
    );
    let error = tools
        .add_raw(
            Tool::new(schema, "ratio".to_owned()),
            |_: ToolCall, _: RequestContext| async { String::new() },
        )
        .expect_err("no header on a number");
    assert!(
        error.contains("only to string, integer or boolean"),
        "{error}"
    );

    // A non-object argument type has no object schema.
    let error = tools
        .add::<i64, _, _, _>("number", "", |n, _ctx| async move { n.to_string() })
        .expect_err("arguments are an object");
    assert!(error.contains("is not an object schema"), "{error}");

    assert!(tools.names().is_empty());
    assert!(changes.try_recv().is_err(), "nothing was added");
}

// ---- a catalogue that only the runtime can find wrong ----

/// Either a number or a word: its schema is `anyOf`, not an object.
#[derive(serde::Deserialize, mcp_era_server::schemars::JsonSchema)]
#[schemars(crate = "mcp_era_server::schemars")]
#[serde(untagged)]
#[allow(dead_code)]
enum NumberOrWord {
    Number(i64),
    Word(String),
}

#[derive(McpServer)]
#[mcp(name = "broken", version = "1.0.0")]
struct Broken;

#[router]
impl Broken {
    #[tool]
    fn guess(&self, #[arguments] guess: NumberOrWord) -> String {
        let _ = guess;
        String::new()
    }
}

#[test]
fn transports_refuse_a_catalogue_with_problems() {
    let problems = Broken.catalogue_problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("tool method `guess`"), "{problems:?}");
    assert!(problems[0].contains("not an object schema"), "{problems:?}");
    let served = block_on(mcp_era_server::stdio::serve_with(
        Arc::new(Broken),
        &b""[..],
        tokio::io::sink(),
        mcp_era_server::stdio::StdioConfig::default(),
    ));
    let error = served.expect_err("refused");
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert!(error.to_string().contains("guess"), "{error}");
}

/// Scopes declared on the server, its capabilities and its tools are
/// carried without the `auth` feature, and change nothing on stdio.
#[derive(McpServer)]
#[mcp(name = "scoped", version = "1.0.0", scopes = ["mcp"], tools(scopes = ["tools"]), prompts(scopes = ["prompts"]))]
struct Scoped;

#[mcp_era_server::router]
impl Scoped {
    /// Reads.
    #[tool]
    fn read(&self) -> String {
        "read".into()
    }

    /// Writes.
    #[tool(scopes = ["files:write", "audit"])]
    fn write(&self) -> String {
        "written".into()
    }

    /// Greets.
    #[prompt]
    fn greet(&self) -> String {
        "hi".into()
    }
}

#[test]
fn declared_scopes_are_carried() {
    let declared = Scoped.declared_scopes();
    assert_eq!(declared.required, ["mcp"]);
    assert_eq!(
        declared.capabilities,
        [
            ("prompts".to_owned(), vec!["prompts".to_owned()]),
            ("tools".to_owned(), vec!["tools".to_owned()]),
        ]
        .into()
    );
    assert_eq!(
        declared.tools,
        [(
            "write".to_owned(),
            vec!["files:write".to_owned(), "audit".to_owned()]
        )]
        .into()
    );
    assert_eq!(
        declared.all(),
        ["mcp", "prompts", "tools", "files:write", "audit"]
    );
    assert_eq!(Scoped.declaration().required_scopes(), ["mcp"]);
    assert_eq!(
        result(&Scoped, "tools/call", json!({"name": "write"})),
        text_result("written", false)
    );
}

// ----- arguments checked against the advertised inputSchema ------------------

/// A raw tool's schema: a `$ref` into `$defs`, an `enum` and a `minimum`.
fn measured_tool() -> Tool {
    let schema: ToolInputSchema = serde_json::from_value(json!({
        "type": "object",
        "$defs": { "positive": { "type": "integer", "minimum": 1 } },
        "properties": {
            "count": { "$ref": "#/$defs/positive" },
            "unit": { "enum": ["m", "s"] }
        },
        "required": ["count"],
        "additionalProperties": false
    }))
    .expect("an object schema");
    Tool::new(schema, "measure".to_owned())
}

#[test]
fn raw_tool_arguments_are_checked_before_the_handler_runs() {
    let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let server = Dynamic {
        tools: ToolRouter::new(),
    };
    let counter = Arc::clone(&runs);
    server
        .tools
        .add_raw(measured_tool(), move |call: ToolCall, _: RequestContext| {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            async move { Value::Object(call.arguments).to_string() }
        })
        .expect("a valid raw tool");
    let call = |arguments: Value| {
        result(
            &server,
            "tools/call",
            json!({"name": "measure", "arguments": arguments}),
        )
    };
    assert_eq!(
        call(json!({"count": 3, "unit": "m"})),
        text_result(r#"{"count":3,"unit":"m"}"#, false)
    );
    assert_eq!(
        call(json!({"count": 0})),
        text_result(
            "Invalid argument `/count` (minimum): 0 is less than the minimum of 1",
            true
        )
    );
    assert_eq!(
        call(json!({"count": 2, "unit": "kg"})),
        text_result(
            r#"Invalid argument `/unit` (enum): "kg" is not one of "m" or "s""#,
            true
        )
    );
    // Every violation is named, one per line.
    assert_eq!(
        call(json!({"count": "3", "extra": 1})),
        text_result(
            "Invalid argument `/count` (type): \"3\" is not of type \"integer\"\n\
             Invalid arguments (additionalProperties): Additional properties are not allowed ('extra' was unexpected)",
            true
        )
    );
    // No `arguments` reads as `{}`, which lacks `count`.
    assert_eq!(
        result(&server, "tools/call", json!({"name": "measure"})),
        text_result(
            "Invalid arguments (required): \"count\" is a required property",
            true
        )
    );
    assert_eq!(runs.load(std::sync::atomic::Ordering::Relaxed), 1);
}

#[test]
fn add_raw_refuses_a_schema_that_does_not_compile() {
    let events = ServerEvents::new();
    let mut changes = events.subscribe();
    let tools = ToolRouter::new().with_events(events);
    let remote: ToolInputSchema = serde_json::from_value(json!({
        "type": "object",
        "properties": { "a": { "$ref": "https://example.com/a.json" } }
    }))
    .expect("an object schema");
    let error = tools
        .add_raw(
            Tool::new(remote, "remote".to_owned()),
            |_: ToolCall, _: RequestContext| async { String::new() },
        )
        .expect_err("no remote references");
    assert!(
        error.starts_with("tool `remote`: its inputSchema does not compile: "),
        "{error}"
    );
    assert!(error.contains("https://example.com/a.json"), "{error}");
    let invalid: ToolInputSchema = serde_json::from_value(json!({
        "type": "object",
        "properties": { "a": { "minimum": "one" } }
    }))
    .expect("an object schema");
    let error = tools
        .add_raw(
            Tool::new(invalid, "invalid".to_owned()),
            |_: ToolCall, _: RequestContext| async { String::new() },
        )
        .expect_err("not a valid schema");
    assert!(error.contains("(at `/properties/a/minimum`)"), "{error}");
    assert!(tools.names().is_empty());
    assert!(changes.try_recv().is_err(), "nothing was added");
}

/// Bounds only the schema states: serde reads any `u32` and any string.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pick {
    #[schemars(range(min = 1, max = 10))]
    count: u32,
    #[schemars(length(max = 3))]
    code: String,
}

#[derive(McpServer)]
#[mcp(name = "bounded", version = "1.0.0")]
struct Bounded;

#[router]
impl Bounded {
    #[tool]
    fn pick(&self, #[arguments] pick: Pick) -> String {
        format!("{} {}", pick.count, pick.code)
    }
}

#[test]
fn derived_schema_bounds_serde_does_not_check_are_enforced() {
    let listed = result(&Bounded, "tools/list", json!({}));
    assert_eq!(
        listed["tools"][0]["inputSchema"]["properties"]["count"]["maximum"],
        10
    );
    let call = |arguments: Value| {
        result(
            &Bounded,
            "tools/call",
            json!({"name": "pick", "arguments": arguments}),
        )
    };
    assert_eq!(
        call(json!({"count": 3, "code": "abc"})),
        text_result("3 abc", false)
    );
    assert_eq!(
        call(json!({"count": 50, "code": "abc"})),
        text_result(
            "Invalid argument `/count` (maximum): 50 is greater than the maximum of 10",
            true
        )
    );
    assert_eq!(
        call(json!({"count": 3, "code": "abcd"})),
        text_result(
            "Invalid argument `/code` (maxLength): \"abcd\" is longer than 3 characters",
            true
        )
    );
}
