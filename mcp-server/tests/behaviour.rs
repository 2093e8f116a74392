//! Behaviour tests: raw JSON in, whole JSON responses (and HTTP statuses)
//! compared with the expected JSON, for the digest's edge cases that apply
//! without an HTTP transport, plus discover, initialize in both server
//! kinds, the version gate and capability routing.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

mod common;

use mcp_era_server::mcp_era_types::v2026_07_28::{
    CacheHints, CacheScope, CallToolRequestParams, CallToolResult, CallToolResultResponseResult,
    ContentBlock, ListToolsResult, PaginatedRequestParams, TextContent, Tool, ToolInputSchema,
};
use mcp_era_server::transport::{LegacySession, MessageContext, Outcome};
use mcp_era_server::{
    HandlerResult, McpServer, McpServerExt, RequestContext, ToolsHandler, errors,
};
use serde_json::{Value, json};

use common::{block_on, meta};

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn ask_ctx<S: McpServer>(server: &S, message: &str, ctx: &MessageContext) -> Outcome {
    block_on(server.handle_message(message.as_bytes(), ctx))
}

fn ask<S: McpServer>(server: &S, message: &str) -> Outcome {
    ask_ctx(server, message, &MessageContext::stdio())
}

fn ask_json<S: McpServer>(server: &S, message: Value) -> Outcome {
    block_on(server.handle_value(message, &MessageContext::stdio()))
}

#[track_caller]
fn expect(outcome: Outcome, status: u16, body: Value) {
    assert_eq!(outcome.json(), Some(body.clone()), "body");
    assert_eq!(outcome.http_status, status, "status for {body}");
}

fn server_info(name: &str, version: &str) -> Value {
    json!({ "name": name, "version": version })
}

// ----- servers ---------------------------------------------------------------

/// Modern-only (opted out of the legacy default), tools only.
#[derive(McpServer)]
#[mcp(
    name = "weather",
    version = "1.0.0",
    tools(list_changed),
    instructions = "Ask for the forecast.",
    versions(legacy = [])
)]
struct Weather;

impl ToolsHandler for Weather {
    async fn list_tools(
        &self,
        _params: PaginatedRequestParams,
        _ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        let tool = Tool::new(ToolInputSchema::new(), "forecast".to_owned());
        Ok(ListToolsResult::new(vec![tool], CacheHints::public(5_000)))
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        if params.name != "forecast" {
            return Err(errors::invalid_params(format!(
                "Unknown tool {}",
                params.name
            )));
        }
        let text = format!("sunny (asked with {})", ctx.protocol_version());
        Ok(CallToolResultResponseResult::CallToolResult(
            CallToolResult::new(vec![ContentBlock::TextContent(TextContent::new(text))]),
        ))
    }
}

/// Dual-era, every kind of declaration.
#[derive(McpServer)]
#[mcp(
    name = "dual",
    version = "2.1.0",
    title = "Dual Server",
    description = "Serves both eras",
    website = "https://example.com",
    icon(src = "https://example.com/icon.png", mime_type = "image/png", sizes = ["48x48"], theme = "dark"),
    versions(modern = ["2026-07-28"], legacy = ["2025-11-25"]),
    resources(subscribe, list_changed),
    logging,
    experimental("fancy" = { "level": 2, "on": true }),
    extension("io.modelcontextprotocol/tasks" = { "list": {}, "cancel": {} }, "com.example/ui"),
    extension("com.example/computed" = computed_settings),
    discover(ttl_ms = 1000, scope = "private"),
    instructions_file = "tests/instructions.txt",
)]
struct Dual;

fn computed_settings() -> mcp_era_server::mcp_era_types::v2026_07_28::JSONObject {
    let mut map = serde_json::Map::new();
    map.insert("computed".to_owned(), json!(true));
    map
}

impl mcp_era_server::ResourcesHandler for Dual {
    async fn list_resources(
        &self,
        _params: PaginatedRequestParams,
        _ctx: &RequestContext,
    ) -> HandlerResult<mcp_era_server::mcp_era_types::v2026_07_28::ListResourcesResult> {
        Ok(
            mcp_era_server::mcp_era_types::v2026_07_28::ListResourcesResult::new(
                Vec::new(),
                CacheHints::private(0),
            ),
        )
    }

    async fn read_resource(
        &self,
        params: mcp_era_server::mcp_era_types::v2026_07_28::ReadResourceRequestParams,
        _ctx: &RequestContext,
    ) -> HandlerResult<mcp_era_server::mcp_era_types::v2026_07_28::ReadResourceResultResponseResult>
    {
        Err(errors::invalid_params(format!(
            "Resource not found: {}",
            params.uri
        )))
    }
}

/// No capabilities at all.
#[derive(McpServer)]
#[mcp(name = "bare", version = "0.0.1")]
struct Bare;

/// Defaults only: name and version from Cargo.
#[derive(McpServer)]
struct Defaults;

// ----- discover ----------------------------------------------------------------

#[test]
fn discover_modern_only() {
    let outcome = ask(
        &Weather,
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{"_meta":{META}}}}}"#
        ),
    );
    expect(
        outcome,
        200,
        json!({"jsonrpc":"2.0","id":1,"result":{
            "resultType":"complete",
            "supportedVersions":["2026-07-28"],
            "capabilities":{"tools":{"listChanged":true}},
            "instructions":"Ask for the forecast.",
            "ttlMs":60000,
            "cacheScope":"public",
            "_meta":{"io.modelcontextprotocol/serverInfo":server_info("weather","1.0.0")}
        }}),
    );
}

#[test]
fn discover_dual_era_every_declaration() {
    let outcome = ask_json(
        &Dual,
        json!({"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":meta()}}),
    );
    expect(
        outcome,
        200,
        json!({"jsonrpc":"2.0","id":"d","result":{
            "resultType":"complete",
            "supportedVersions":["2026-07-28"],
            "capabilities":{
                "resources":{"subscribe":true,"listChanged":true},
                "logging":{},
                "experimental":{"fancy":{"level":2,"on":true}},
                "extensions":{
                    "io.modelcontextprotocol/tasks":{"list":{},"cancel":{}},
                    "com.example/ui":{},
                    "com.example/computed":{"computed":true}
                }
            },
            "instructions":"Use the dual server wisely.\n",
            "ttlMs":1000,
            "cacheScope":"private",
            "_meta":{"io.modelcontextprotocol/serverInfo":{
                "name":"dual","version":"2.1.0","title":"Dual Server",
                "description":"Serves both eras","websiteUrl":"https://example.com",
                "icons":[{"src":"https://example.com/icon.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}]
            }}
        }}),
    );
}

#[test]
fn discover_defaults_come_from_cargo_and_the_implemented_versions() {
    let declaration = Defaults.declaration();
    assert_eq!(declaration.server_info().name, env!("CARGO_PKG_NAME"));
    assert_eq!(declaration.server_info().version, env!("CARGO_PKG_VERSION"));
    // Defaults come from what the runtime implements, not from what has types.
    assert_eq!(
        declaration.advertised_versions(),
        mcp_era_server::protocol::IMPLEMENTED_MODERN_VERSIONS
    );
    // Dual-era by default: every implemented legacy version.
    assert_eq!(
        declaration.initialize_versions(),
        mcp_era_server::protocol::IMPLEMENTED_LEGACY_VERSIONS
    );
    assert!(declaration.is_dual_era());
    assert_eq!(
        declaration.discover_ttl_ms(),
        mcp_era_server::DEFAULT_DISCOVER_TTL_MS
    );
    assert_eq!(declaration.discover_cache_scope(), CacheScope::Public);
}

#[test]
fn discover_is_built_once() {
    let a: *const Value = Weather.declaration().discover_json();
    let b: *const Value = Weather.declaration().discover_json();
    assert!(std::ptr::eq(a, b));
    assert!(std::sync::Arc::ptr_eq(
        &Weather.declaration(),
        &Weather.declaration()
    ));
}

// ----- the three version lists ---------------------------------------------------

#[test]
fn three_version_lists() {
    let d = Dual.declaration();
    assert_eq!(d.advertised_versions(), ["2026-07-28"]);
    assert_eq!(d.accepted_versions(), ["2026-07-28"]);
    // Newest first, whatever the attribute order.
    assert_eq!(d.initialize_versions(), ["2025-11-25"]);
    assert_eq!(d.negotiate_initialize("2025-11-25"), Some("2025-11-25"));
    assert_eq!(d.negotiate_initialize("2026-07-28"), Some("2025-11-25"));
    // Known older legacy versions are not implemented, so never agreed to.
    for older in ["2025-06-18", "2025-03-26", "2024-11-05"] {
        assert_eq!(d.negotiate_initialize(older), Some("2025-11-25"));
    }
    assert_eq!(
        Weather.declaration().negotiate_initialize("2025-11-25"),
        None
    );
    assert!(d.is_dual_era());
    assert!(!Weather.declaration().is_dual_era());
}

// ----- envelope: parse, JSON-RPC, notifications -----------------------------------

#[test]
fn parse_error_has_no_id() {
    expect(
        ask(&Weather, "{not json"),
        400,
        json!({"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}),
    );
}

#[test]
fn batch_arrays_are_invalid_requests() {
    expect(
        ask(
            &Weather,
            r#"[{"jsonrpc":"2.0","id":1,"method":"server/discover"}]"#,
        ),
        400,
        json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Batch arrays are not supported"}}),
    );
}

#[test]
fn non_object_is_invalid_request() {
    expect(
        ask(&Weather, "42"),
        400,
        json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"A JSON-RPC message must be an object"}}),
    );
}

#[test]
fn bad_ids_are_invalid_requests_without_id() {
    for id in ["null", "1.5", "true", "{}", "[1]"] {
        expect(
            ask(
                &Weather,
                &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover"}}"#),
            ),
            400,
            json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"The id must be a string or an integer"}}),
        );
    }
}

#[test]
fn wrong_jsonrpc_and_missing_method_echo_the_id() {
    expect(
        ask(
            &Weather,
            r#"{"jsonrpc":"1.0","id":"x","method":"server/discover"}"#,
        ),
        400,
        json!({"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"jsonrpc must be \"2.0\""}}),
    );
    expect(
        ask(&Weather, r#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
        400,
        json!({"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"A request needs a string method"}}),
    );
}

#[test]
fn notifications_are_never_answered() {
    for server_message in [
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"unknown/notification","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999"}}}"#,
    ] {
        for outcome in [ask(&Weather, server_message), ask(&Dual, server_message)] {
            assert_eq!(outcome.body, None);
            assert_eq!(outcome.http_status, 202);
        }
    }
}

// ----- ids -----------------------------------------------------------------------

#[test]
fn ids_are_echoed_with_their_type() {
    for id in [json!("7"), json!(7), json!(""), json!(-1), json!("1")] {
        // An error…
        let outcome = ask_json(
            &Weather,
            json!({"jsonrpc":"2.0","id":id,"method":"tools/list"}),
        );
        assert_eq!(outcome.json().unwrap()["id"], id);
        // …and a result.
        let outcome = ask_json(
            &Weather,
            json!({"jsonrpc":"2.0","id":id,"method":"server/discover","params":{"_meta":meta()}}),
        );
        assert_eq!(outcome.json().unwrap()["id"], id);
    }
}

// ----- _meta checks (-32602) --------------------------------------------------------

fn invalid_params(id: Value, message: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"error":{"code":-32602,"message":message}})
}

#[test]
fn missing_or_malformed_meta_is_invalid_params() {
    let pv = "io.modelcontextprotocol/protocolVersion";
    let cc = "io.modelcontextprotocol/clientCapabilities";
    let cases = [
        (
            json!(null),
            "Missing params: every request carries params._meta",
        ),
        (json!([]), "params must be an object"),
        (json!({}), "Missing params._meta"),
        (json!({"_meta": []}), "params._meta must be an object"),
        (json!({"_meta": null}), "params._meta must be an object"),
        (
            json!({"_meta": {cc: {}}}),
            "Missing _meta[\"io.modelcontextprotocol/protocolVersion\"]",
        ),
        (
            json!({"_meta": {pv: 20260728, cc: {}}}),
            "_meta[\"io.modelcontextprotocol/protocolVersion\"] must be a string",
        ),
        (
            json!({"_meta": {pv: "2026-07-28"}}),
            "Missing _meta[\"io.modelcontextprotocol/clientCapabilities\"]",
        ),
        (
            json!({"_meta": {pv: "2026-07-28", cc: null}}),
            "_meta[\"io.modelcontextprotocol/clientCapabilities\"] must be an object",
        ),
        (
            json!({"_meta": {pv: "2026-07-28", cc: []}}),
            "_meta[\"io.modelcontextprotocol/clientCapabilities\"] must be an object",
        ),
    ];
    for (params, message) in cases {
        let mut request = json!({"jsonrpc":"2.0","id":"m","method":"server/discover"});
        if !params.is_null() {
            request["params"] = params;
        }
        for outcome in [
            ask_json(&Weather, request.clone()),
            ask_json(&Dual, request.clone()),
        ] {
            expect(outcome, 400, invalid_params(json!("m"), message));
        }
    }
}

#[test]
fn malformed_optional_meta_is_invalid_params() {
    let request = json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{},
        "io.modelcontextprotocol/logLevel":"loud"}}});
    let outcome = ask_json(&Weather, request);
    assert_eq!(outcome.http_status, 400);
    let body = outcome.json().unwrap();
    assert_eq!(body["error"]["code"], -32602);
    assert_eq!(body["id"], 1);
}

#[test]
fn tolerant_of_unknown_members_and_missing_client_info() {
    let request = json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"future":{"x":1}},
        "com.example/trace":"abc"}}});
    let outcome = ask_json(&Weather, request);
    assert_eq!(outcome.http_status, 200);
    assert_eq!(outcome.json().unwrap()["result"]["resultType"], "complete");
}

// ----- the version gate (-32022) ------------------------------------------------------

fn unsupported(id: Value, requested: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"error":{"code":-32022,"message":"Unsupported protocol version",
        "data":{"supported":["2026-07-28"],"requested":requested}}})
}

fn with_version(id: Value, method: &str, version: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":version,
        "io.modelcontextprotocol/clientCapabilities":{}}}})
}

#[test]
fn newer_or_unknown_versions_get_32022_with_discovers_list() {
    for version in ["2099-01-01", "v999.0.0", "2026-07-28 ", "2026-7-28", ""] {
        for outcome in [
            ask_json(
                &Weather,
                with_version(json!(5), "server/discover", json!(version)),
            ),
            ask_json(
                &Dual,
                with_version(json!(5), "server/discover", json!(version)),
            ),
        ] {
            expect(outcome, 400, unsupported(json!(5), version));
        }
    }
    // data.supported is exactly what discover advertises.
    let discover = ask_json(
        &Dual,
        with_version(json!(1), "server/discover", json!("2026-07-28")),
    );
    let advertised = discover.json().unwrap()["result"]["supportedVersions"].clone();
    let error = ask_json(
        &Dual,
        with_version(json!(1), "tools/list", json!("v999.0.0")),
    );
    assert_eq!(
        error.json().unwrap()["error"]["data"]["supported"],
        advertised
    );
}

#[test]
fn legacy_version_in_modern_envelope_gets_32022() {
    for outcome in [
        ask_json(
            &Weather,
            with_version(json!("L"), "server/discover", json!("2025-11-25")),
        ),
        ask_json(
            &Dual,
            with_version(json!("L"), "server/discover", json!("2025-11-25")),
        ),
    ] {
        expect(outcome, 400, unsupported(json!("L"), "2025-11-25"));
    }
}

// ----- methods and capabilities (-32601) -------------------------------------------------

fn not_found(id: Value, reason: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"error":{"code":-32601,"message":"Method not found","data":{"reason":reason}}})
}

#[test]
fn removed_methods_with_modern_meta_are_not_found() {
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    ] {
        for outcome in [
            ask_json(
                &Weather,
                with_version(json!(9), method, json!("2026-07-28")),
            ),
            ask_json(&Dual, with_version(json!(9), method, json!("2026-07-28"))),
        ] {
            expect(
                outcome,
                404,
                not_found(json!(9), &format!("{method} was removed in MCP 2026-07-28")),
            );
        }
    }
}

#[test]
fn modern_meta_wins_over_a_legacy_session() {
    let ctx = MessageContext::stdio().with_legacy_session(LegacySession::new(
        "2025-11-25".to_owned(),
        json!({}),
        json!({"name":"c","version":"1"}),
    ));
    let outcome =
        block_on(Dual.handle_value(with_version(json!(1), "ping", json!("2026-07-28")), &ctx));
    expect(
        outcome,
        404,
        not_found(json!(1), "ping was removed in MCP 2026-07-28"),
    );
}

#[test]
fn unknown_methods_are_not_found() {
    expect(
        ask_json(
            &Weather,
            with_version(json!(1), "unknown/method", json!("2026-07-28")),
        ),
        404,
        not_found(json!(1), "Unknown method unknown/method"),
    );
}

#[test]
fn undeclared_capabilities_are_not_found() {
    for (method, capability) in [
        ("tools/list", "tools"),
        ("tools/call", "tools"),
        ("resources/list", "resources"),
        ("resources/read", "resources"),
        ("resources/templates/list", "resources"),
        ("prompts/list", "prompts"),
        ("prompts/get", "prompts"),
        ("completion/complete", "completions"),
    ] {
        expect(
            ask_json(&Bare, with_version(json!(2), method, json!("2026-07-28"))),
            404,
            not_found(
                json!(2),
                &format!("The server does not declare the {capability} capability"),
            ),
        );
    }
    // Weather declares tools only.
    expect(
        ask_json(
            &Weather,
            with_version(json!(2), "prompts/list", json!("2026-07-28")),
        ),
        404,
        not_found(
            json!(2),
            "The server does not declare the prompts capability",
        ),
    );
}

// ----- routing, params, serverInfo -----------------------------------------------------------

#[test]
fn declared_tools_are_routed_with_server_info() {
    let outcome = ask_json(
        &Weather,
        with_version(json!("t"), "tools/list", json!("2026-07-28")),
    );
    expect(
        outcome,
        200,
        json!({"jsonrpc":"2.0","id":"t","result":{
            "resultType":"complete",
            "tools":[{"name":"forecast","inputSchema":{"type":"object"}}],
            "ttlMs":5000,
            "cacheScope":"public",
            "_meta":{"io.modelcontextprotocol/serverInfo":server_info("weather","1.0.0")}
        }}),
    );
    let mut call = with_version(json!(4), "tools/call", json!("2026-07-28"));
    call["params"]["name"] = json!("forecast");
    expect(
        ask_json(&Weather, call),
        200,
        json!({"jsonrpc":"2.0","id":4,"result":{
            "resultType":"complete",
            "content":[{"type":"text","text":"sunny (asked with 2026-07-28)"}],
            "_meta":{"io.modelcontextprotocol/serverInfo":server_info("weather","1.0.0")}
        }}),
    );
}

#[test]
fn handler_errors_pass_through() {
    let mut call = with_version(json!(4), "tools/call", json!("2026-07-28"));
    call["params"]["name"] = json!("nope");
    expect(
        ask_json(&Weather, call),
        400,
        invalid_params(json!(4), "Unknown tool nope"),
    );
    let mut read = with_version(json!(5), "resources/read", json!("2026-07-28"));
    read["params"]["uri"] = json!("file:///x");
    expect(
        ask_json(&Dual, read),
        400,
        invalid_params(json!(5), "Resource not found: file:///x"),
    );
}

#[test]
fn default_resource_templates_list() {
    let outcome = ask_json(
        &Dual,
        with_version(json!(1), "resources/templates/list", json!("2026-07-28")),
    );
    let body = outcome.json().unwrap();
    assert_eq!(
        body["result"],
        json!({"resultType":"complete","resourceTemplates":[],"ttlMs":0,"cacheScope":"public",
            "_meta":{"io.modelcontextprotocol/serverInfo":Dual.declaration().discover_json()["_meta"]["io.modelcontextprotocol/serverInfo"].clone()}})
    );
}

#[test]
fn bad_params_for_a_known_method_are_invalid_params() {
    // tools/call without `name`.
    let outcome = ask_json(
        &Weather,
        with_version(json!(6), "tools/call", json!("2026-07-28")),
    );
    assert_eq!(outcome.http_status, 400);
    let body = outcome.json().unwrap();
    assert_eq!(body["id"], 6);
    assert_eq!(body["error"]["code"], -32602);
}

// ----- check order (digest §6 item 14) -----------------------------------------------------------

#[test]
fn check_order() {
    // _meta before version: no version + unknown method → -32602.
    let request = json!({"jsonrpc":"2.0","id":1,"method":"unknown/method","params":{}});
    expect(
        ask_json(&Weather, request),
        400,
        invalid_params(json!(1), "Missing params._meta"),
    );
    // version before method: unsupported + unknown method → -32022.
    expect(
        ask_json(
            &Weather,
            with_version(json!(1), "unknown/method", json!("v9")),
        ),
        400,
        unsupported(json!(1), "v9"),
    );
    // version before capability: unsupported + undeclared → -32022.
    expect(
        ask_json(&Bare, with_version(json!(1), "tools/list", json!("v9"))),
        400,
        unsupported(json!(1), "v9"),
    );
    // method before params: undeclared + bad params → -32601.
    expect(
        ask_json(
            &Bare,
            with_version(json!(1), "tools/call", json!("2026-07-28")),
        ),
        404,
        not_found(json!(1), "The server does not declare the tools capability"),
    );
}

#[test]
fn http_header_order() {
    let http = |header: Option<&str>, body: Value| {
        block_on(Weather.handle_value(body, &MessageContext::http(header)))
    };
    // Header present, body version missing → -32602 (before the comparison).
    let no_version = json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{
        "io.modelcontextprotocol/clientCapabilities":{}}}});
    expect(
        http(Some("2026-07-28"), no_version),
        400,
        invalid_params(
            json!(1),
            "Missing _meta[\"io.modelcontextprotocol/protocolVersion\"]",
        ),
    );
    // Header differs from an unsupported body version → -32020, not -32022.
    expect(
        http(
            Some("2026-07-28"),
            with_version(json!(1), "server/discover", json!("v999.0.0")),
        ),
        400,
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"MCP-Protocol-Version header does not match the _meta protocol version"}}),
    );
    // Header missing on a modern request → -32020.
    expect(
        http(
            None,
            with_version(json!(1), "server/discover", json!("2026-07-28")),
        ),
        400,
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Missing MCP-Protocol-Version header"}}),
    );
    // Header equal to an unsupported body version → -32022.
    expect(
        http(
            Some("v9"),
            with_version(json!(1), "server/discover", json!("v9")),
        ),
        400,
        unsupported(json!(1), "v9"),
    );
    // All good.
    assert_eq!(
        http(
            Some("2026-07-28"),
            with_version(json!(1), "server/discover", json!("2026-07-28"))
        )
        .http_status,
        200
    );
}

// ----- initialize --------------------------------------------------------------------------------

fn initialize(id: Value, version: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion":version,"capabilities":{"roots":{"listChanged":true}},
        "clientInfo":{"name":"legacy-client","version":"0.9"}}})
}

fn initialize_result(id: Value, version: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"result":{
        "protocolVersion":version,
        "capabilities":{"resources":{"subscribe":true,"listChanged":true},"logging":{},
            "experimental":{"fancy":{"level":2,"on":true}}},
        "serverInfo":{"name":"dual","version":"2.1.0","title":"Dual Server",
            "description":"Serves both eras","websiteUrl":"https://example.com",
            "icons":[{"src":"https://example.com/icon.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}]},
        "instructions":"Use the dual server wisely.\n"
    }})
}

#[test]
fn legacy_initialize_echoes_a_declared_legacy_version() {
    let outcome = ask_json(&Dual, initialize(json!(0), "2025-11-25"));
    assert_eq!(
        outcome.new_legacy_session.as_deref(),
        Some(&LegacySession::new(
            "2025-11-25".to_owned(),
            json!({"roots":{"listChanged":true}}),
            json!({"name":"legacy-client","version":"0.9"})
        ))
    );
    expect(outcome, 200, initialize_result(json!(0), "2025-11-25"));
}

/// Version negotiation: an `initialize` asking for an older legacy revision
/// (known, not implemented) gets the server's own version, 2025-11-25; the
/// client then decides whether it can speak it.
#[test]
fn legacy_initialize_answers_older_legacy_versions_with_its_own() {
    for requested in ["2025-06-18", "2025-03-26", "2024-11-05"] {
        let outcome = ask_json(&Dual, initialize(json!(3), requested));
        let session = outcome.new_legacy_session.as_ref().unwrap();
        assert_eq!(session.protocol_version, "2025-11-25", "{requested}");
        expect(outcome, 200, initialize_result(json!(3), "2025-11-25"));
    }
}

/// 2025-03-26 allowed JSON-RPC batches; 2025-11-25 does not, and no session
/// ever runs 2025-03-26, so a batch is refused in a legacy session too.
#[test]
fn batch_arrays_are_refused_in_a_legacy_session() {
    let session = LegacySession::new(
        "2025-11-25".to_owned(),
        json!({}),
        json!({"name":"c","version":"1"}),
    );
    let ctx = MessageContext::stdio().with_legacy_session(session);
    expect(
        ask_ctx(
            &Dual,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            &ctx,
        ),
        400,
        json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Batch arrays are not supported"}}),
    );
}

#[test]
fn legacy_initialize_never_agrees_to_a_modern_or_unknown_version() {
    for requested in ["2026-07-28", "2099-01-01", "2024-11-05"] {
        let outcome = ask_json(&Dual, initialize(json!("i"), requested));
        assert_eq!(
            outcome
                .new_legacy_session
                .as_ref()
                .unwrap()
                .protocol_version,
            "2025-11-25"
        );
        expect(outcome, 200, initialize_result(json!("i"), "2025-11-25"));
    }
}

#[test]
fn legacy_initialize_with_bad_params() {
    let request = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}});
    let outcome = ask_json(&Dual, request);
    let body = outcome.json().unwrap();
    assert_eq!(body["error"]["code"], -32602);
    assert_eq!(body["id"], 1);
}

#[test]
fn modern_only_initialize_names_its_versions() {
    expect(
        ask_json(&Weather, initialize(json!(1), "2025-11-25")),
        404,
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32601,
            "message":"initialize is not supported; this server speaks MCP 2026-07-28",
            "data":{"supported":["2026-07-28"]}}}),
    );
    // Headerless HTTP initialize: the missing header is the error (-32020, 400).
    expect(
        block_on(Weather.handle_value(
            initialize(json!(1), "2025-11-25"),
            &MessageContext::http(None),
        )),
        400,
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32020,
            "message":"Missing MCP-Protocol-Version header; initialize is not supported, this server speaks MCP 2026-07-28",
            "data":{"supported":["2026-07-28"]}}}),
    );
}

#[test]
fn legacy_session_ping_and_requests_without_session() {
    let session = LegacySession::new(
        "2025-11-25".to_owned(),
        json!({}),
        json!({"name":"c","version":"1"}),
    );
    let ctx = MessageContext::stdio().with_legacy_session(session);
    let ping = json!({"jsonrpc":"2.0","id":8,"method":"ping"});
    expect(
        block_on(Dual.handle_value(ping.clone(), &ctx)),
        200,
        json!({"jsonrpc":"2.0","id":8,"result":{}}),
    );
    // Without a session and without _meta, it is a malformed modern request.
    expect(
        ask_json(&Dual, ping.clone()),
        400,
        invalid_params(
            json!(8),
            "Missing params: every request carries params._meta",
        ),
    );
    // A legacy header without a session: initialize first.
    expect(
        block_on(Dual.handle_value(ping, &MessageContext::http(Some("2025-11-25")))),
        400,
        json!({"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"No legacy session: send initialize first"}}),
    );
}
