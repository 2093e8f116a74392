//! Servers defined at run time, without macros: `McpServer` implemented by
//! hand with a declaration per instance, held to the same rules and served
//! to the same clients as a derived server.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::sync::Arc;

use mcp_era_server::mcp_era_types::v2026_07_28::*;
use mcp_era_server::transport::MessageContext;
use mcp_era_server::{
    HandlerResult, McpServer, McpServerExt, Reply, RequestContext, ServerDeclaration, errors,
};
use mcp_era_testing::{TestClient, check_server};
use serde_json::{Value, json};

/// A server whose identity, versions and tools come from data (here a JSON
/// literal, in real life a file): two of them with different data live in
/// one process.
struct FromConfig {
    declaration: Arc<ServerDeclaration>,
    tools: Vec<Tool>,
}

impl FromConfig {
    fn new(config: Value) -> Self {
        let info = Implementation::builder()
            .name(config["name"].as_str().unwrap().to_owned())
            .version("1.0.0".to_owned())
            .build();
        let names = |key: &str| -> Vec<String> {
            config["versions"][key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect()
        };
        let declaration = ServerDeclaration::new(info)
            .with_versions(names("modern"), names("legacy"))
            .unwrap()
            .with_capabilities(ServerCapabilities::new().with_tools(ServerCapabilitiesTools::new()))
            .with_instructions(config["instructions"].as_str().unwrap());
        let tools = serde_json::from_value(config["tools"].clone()).unwrap();
        Self {
            declaration: Arc::new(declaration),
            tools,
        }
    }

    fn call(&self, params: &CallToolRequestParams) -> HandlerResult<CallToolResultResponseResult> {
        let tool = self
            .tools
            .iter()
            .find(|t| t.name == params.name)
            .ok_or_else(|| errors::invalid_params(format!("Unknown tool: {}", params.name)))?;
        let said = tool.description.as_deref().unwrap_or_default();
        Ok(CallToolResult::text(format!("{} says {said}", tool.name)).into())
    }
}

/// An extension method the runtime knows nothing about.
const ECHO: &str = "example/echo";

impl McpServer for FromConfig {
    fn declaration(&self) -> Arc<ServerDeclaration> {
        Arc::clone(&self.declaration)
    }

    fn serves_method(&self, method: &str) -> bool {
        method == ECHO
    }

    async fn handle_method(
        &self,
        method: &str,
        params: Option<Value>,
        ctx: &RequestContext,
    ) -> HandlerResult<Value> {
        let said = params.as_ref().and_then(|p| p.get("say")).cloned();
        let said = said.ok_or_else(|| errors::invalid_params("params.say is missing"))?;
        Ok(json!({"method": method, "said": said, "version": ctx.protocol_version()}))
    }

    async fn dispatch_capability(
        &self,
        request: ClientRequest,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        match request {
            ClientRequest::ListToolsRequest(list) => match list.params.cursor {
                Some(cursor) => Err(errors::invalid_params(format!("Invalid cursor {cursor}"))),
                None => ctx.reply(ListToolsResult::new(self.tools.clone(), ctx.cache_hints())),
            },
            ClientRequest::CallToolRequest(call) => ctx.reply(self.call(&call.params)?),
            other => Err(errors::method_not_found(format!(
                "{} is not served",
                other.method()
            ))),
        }
    }
}

fn config(name: &str, modern: &[&str], legacy: &[&str], tool: &str) -> Value {
    json!({
        "name": name,
        "instructions": format!("{name} from its config"),
        "versions": { "modern": modern, "legacy": legacy },
        "tools": [{
            "name": tool,
            "description": format!("hello from {name}"),
            "inputSchema": { "type": "object" },
        }],
    })
}

fn north() -> FromConfig {
    FromConfig::new(config("north", &["2026-07-28"], &["2025-11-25"], "greet"))
}

fn south() -> FromConfig {
    FromConfig::new(config("south", &["2026-07-28"], &[], "wave"))
}

fn discover(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}})
}

fn initialize(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
}

async fn ask<S: McpServer>(server: &S, message: Value) -> Value {
    let outcome = server.handle_value(message, &MessageContext::stdio()).await;
    outcome.json().unwrap()
}

#[tokio::test]
async fn two_servers_of_one_type_answer_with_their_own_declarations() {
    let (north, south) = (north(), south());
    let answer = ask(&north, discover(1)).await;
    let result = &answer["result"];
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "north"
    );
    assert_eq!(result["instructions"], "north from its config");
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    let answer = ask(&south, discover(2)).await;
    assert_eq!(
        answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "south"
    );
    assert_eq!(answer["result"]["instructions"], "south from its config");

    // North serves legacy clients too; south is modern-only.
    let answer = ask(&north, initialize(3)).await;
    assert_eq!(answer["result"]["serverInfo"]["name"], "north", "{answer}");
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(answer["result"]["instructions"], "north from its config");
    let answer = ask(&south, initialize(4)).await;
    assert!(answer["error"].is_object(), "{answer}");
    assert!(answer.get("result").is_none(), "{answer}");
}

fn echo(version: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {}});
    json!({"jsonrpc": "2.0", "id": 7, "method": ECHO, "params": params})
}

#[tokio::test]
async fn a_method_the_runtime_does_not_know_is_answered_behind_the_version_gate() {
    let server = north();
    let answer = ask(&server, echo("2026-07-28", json!({"say": "hi"}))).await;
    let result = &answer["result"];
    assert_eq!(result["said"], "hi", "{answer}");
    assert_eq!(result["method"], ECHO);
    assert_eq!(result["version"], "2026-07-28");
    assert_eq!(result["resultType"], "complete", "the runtime completes it");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "north"
    );
    // The gate still applies: an unsupported version is -32022.
    let answer = ask(&server, echo("2099-01-01", json!({"say": "hi"}))).await;
    assert_eq!(answer["error"]["code"], -32022, "{answer}");
    assert_eq!(answer["error"]["data"]["supported"], json!(["2026-07-28"]));
    // The handler's own error, and a method nobody serves.
    let answer = ask(&server, echo("2026-07-28", json!({}))).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let mut unknown = echo("2026-07-28", json!({"say": "hi"}));
    unknown["method"] = json!("example/other");
    let answer = ask(&server, unknown).await;
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    // The same through the HTTP entry point, headers checked as for any request.
    let client = TestClient::new(north()).await.unwrap();
    let headers = mcp_era_server::transport::HttpHeaders {
        protocol_version: Some("2026-07-28".into()),
        method: Some(Some(ECHO.into())),
        ..Default::default()
    };
    let answer = client
        .send_http(echo("2026-07-28", json!({"say": "over http"})), headers)
        .await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let body = answer.body.unwrap();
    assert_eq!(body["result"]["said"], "over http", "{body}");
}

#[tokio::test]
async fn a_legacy_session_reaches_a_method_the_runtime_does_not_know() {
    let session = mcp_era_server::transport::LegacySession::new(
        "2025-11-25".to_owned(),
        json!({}),
        json!({"name": "legacy", "version": "1"}),
    );
    let ctx = MessageContext::stdio().with_legacy_session(session);
    let call = |method: &str, params: Value| json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
    let server = north();
    let answer = server
        .handle_value(call(ECHO, json!({"say": "old"})), &ctx)
        .await
        .json()
        .unwrap();
    let result = &answer["result"];
    assert_eq!(result["said"], "old", "{answer}");
    assert_eq!(result["version"], "2025-11-25", "the session's version");
    assert!(
        result.get("resultType").is_none(),
        "legacy results carry no resultType"
    );
    assert!(result.get("_meta").is_none(), "{answer}");
    let answer = server
        .handle_value(call(ECHO, json!({})), &ctx)
        .await
        .json()
        .unwrap();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let answer = server
        .handle_value(call("example/other", json!({})), &ctx)
        .await
        .json()
        .unwrap();
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
}

#[tokio::test]
async fn a_hand_written_server_meets_the_rules_in_both_eras() {
    check_server(north()).await.assert_ok();
    check_server(south()).await.assert_ok();
}

#[tokio::test]
async fn clients_of_both_eras_call_a_hand_written_server() {
    let modern = TestClient::new(north()).await.unwrap();
    let text = modern.call_tool_text("greet", json!({})).await.unwrap();
    assert_eq!(text, "greet says hello from north");
    let legacy = TestClient::legacy(north()).await.unwrap();
    let text = legacy.call_tool_text("greet", json!({})).await.unwrap();
    assert_eq!(text, "greet says hello from north");
}

#[test]
fn a_declaration_serves_only_versions_the_runtime_implements() {
    let info = || {
        Implementation::builder()
            .name("x".to_owned())
            .version("1".to_owned())
            .build()
    };
    let refused = |modern: &[&str], legacy: &[&str]| {
        ServerDeclaration::new(info())
            .with_versions(modern, legacy)
            .unwrap_err()
            .to_string()
    };
    assert!(refused(&[], &[]).contains("at least one modern version"));
    assert!(refused(&["2025-11-25"], &[]).contains("legacy protocol version"));
    assert!(refused(&["2026-07-28"], &["2026-07-28"]).contains("modern protocol version"));
    assert!(refused(&["2026-07-28"], &["2025-06-18"]).contains("not implemented"));
    assert!(refused(&["2026-07-28", "2026-07-28"], &[]).contains("duplicate"));
    assert!(refused(&["2099-01-01"], &[]).contains("unknown MCP protocol version"));
    // The default serves every implemented version, in both eras.
    let default = ServerDeclaration::new(info());
    assert_eq!(
        default.advertised_versions(),
        mcp_era_server::protocol::IMPLEMENTED_MODERN_VERSIONS
    );
    assert_eq!(
        default.initialize_versions(),
        mcp_era_server::protocol::IMPLEMENTED_LEGACY_VERSIONS
    );
}

/// A server that replaces its declaration while it serves.
struct Swapping {
    current: std::sync::RwLock<Arc<ServerDeclaration>>,
}

impl McpServer for Swapping {
    fn declaration(&self) -> Arc<ServerDeclaration> {
        Arc::clone(&self.current.read().unwrap())
    }
}

fn declaration(instructions: &str) -> ServerDeclaration {
    let info = Implementation::builder()
        .name("swapping".to_owned())
        .version("1".to_owned())
        .build();
    ServerDeclaration::new(info).with_instructions(instructions)
}

#[tokio::test]
async fn a_replaced_declaration_is_discovered_and_keeps_the_servers_state() {
    let server = Swapping {
        current: std::sync::RwLock::new(Arc::new(declaration("first"))),
    };
    let answer = ask(&server, discover(1)).await;
    assert_eq!(answer["result"]["instructions"], "first");
    let keys = mcp_era_server::RequestStateKeys::new("k1", [3; 32]).unwrap();
    server.declaration().request_state().set_keys(keys);

    let next = declaration("second").with_state_of(&server.declaration());
    *server.current.write().unwrap() = Arc::new(next);
    let answer = ask(&server, discover(2)).await;
    assert_eq!(answer["result"]["instructions"], "second", "{answer}");
    let kept = server.declaration().request_state().keys().unwrap();
    assert_eq!(
        kept.current_key_id(),
        "k1",
        "sealing keys survive the change"
    );
    // Without it, a new declaration starts with state of its own.
    let fresh = declaration("third");
    assert_ne!(fresh.request_state().keys().unwrap().current_key_id(), "k1");
}

/// Tools that outlive the declarations that serve them.
struct Renamed {
    current: std::sync::RwLock<Arc<ServerDeclaration>>,
    tools: mcp_era_server::ToolRouter,
}

impl McpServer for Renamed {
    fn declaration(&self) -> Arc<ServerDeclaration> {
        Arc::clone(&self.current.read().unwrap())
    }

    async fn dispatch_capability(
        &self,
        request: ClientRequest,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        match request {
            ClientRequest::ListToolsRequest(list) => {
                self.tools.list_tools_reply(list.params, ctx).await
            }
            other => Err(errors::method_not_found(other.method().to_owned())),
        }
    }
}

fn named(name: &str) -> Arc<ServerDeclaration> {
    let info = Implementation::builder()
        .name(name.to_owned())
        .version("1".to_owned())
        .build();
    let tools = ServerCapabilities::new().with_tools(ServerCapabilitiesTools::new());
    Arc::new(ServerDeclaration::new(info).with_capabilities(tools))
}

#[tokio::test]
async fn kept_list_pages_carry_the_identity_of_the_declaration_that_serves_them() {
    let tools = mcp_era_server::ToolRouter::new();
    tools
        .add(
            "ping",
            "Answers pong",
            |_: serde_json::Map<String, Value>, _| async { "pong" },
        )
        .unwrap();
    let server = Renamed {
        current: std::sync::RwLock::new(named("first")),
        tools,
    };
    let list = || {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    };
    for name in ["first", "second", "third"] {
        *server.current.write().unwrap() = named(name);
        let answer = ask(&server, list()).await;
        let result = &answer["result"];
        assert_eq!(result["tools"][0]["name"], "ping", "{answer}");
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], name,
            "a page kept for an earlier declaration must not be served"
        );
    }
}

fn request_ctx() -> RequestContext {
    let meta = serde_json::from_str(META).unwrap();
    RequestContext::new(RequestId::String("1".into()), meta)
}

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {}}"#;

fn get(name: &str, arguments: Value) -> GetPromptRequestParams {
    let meta: Value = serde_json::from_str(META).unwrap();
    serde_json::from_value(json!({"name": name, "arguments": arguments, "_meta": meta})).unwrap()
}

#[tokio::test]
async fn prompts_come_and_go_at_run_time() {
    let events = mcp_era_server::ServerEvents::new();
    let mut heard = events.subscribe();
    let prompts = mcp_era_server::PromptRouter::new().with_events(events);
    let with_topic: Prompt = serde_json::from_value(json!({
        "name": "summarise", "description": "Summarises a topic",
        "arguments": [{"name": "topic", "required": true}]
    }))
    .unwrap();
    prompts.add(
        with_topic,
        |call: mcp_era_server::PromptCall, _| async move {
            format!("Summarise {}.", call.arguments["topic"])
        },
    );
    prompts.add(Prompt::new("plain"), |_, _| async { "Say hi." });
    assert_eq!(
        heard.try_recv().unwrap(),
        mcp_era_server::ServerEvent::PromptsListChanged
    );
    let ctx = request_ctx();
    let listed = |prompts: &mcp_era_server::PromptRouter| {
        let prompts = prompts.clone();
        let ctx = request_ctx();
        async move {
            let reply = prompts
                .list_prompts_reply(
                    serde_json::from_value(
                        json!({"_meta": serde_json::from_str::<Value>(META).unwrap()}),
                    )
                    .unwrap(),
                    &ctx,
                )
                .await
                .unwrap();
            let list = reply.to_value().unwrap();
            list["prompts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["name"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(listed(&prompts).await, ["summarise", "plain"]);

    let answer = prompts
        .get_prompt(get("summarise", json!({"topic": "tides"})), &ctx)
        .await
        .unwrap();
    let answer = serde_json::to_value(answer).unwrap();
    assert_eq!(answer["messages"][0]["content"]["text"], "Summarise tides.");
    assert_eq!(answer["description"], "Summarises a topic");
    let missing = prompts
        .get_prompt(get("summarise", json!({})), &ctx)
        .await
        .unwrap_err();
    assert_eq!(missing.code, -32602);
    assert!(missing.message.contains("topic"), "{}", missing.message);

    // Removed: unknown from then on, and the kept page is not served again.
    assert!(prompts.remove("summarise"));
    assert!(!prompts.remove("summarise"));
    assert_eq!(listed(&prompts).await, ["plain"]);
    let unknown = prompts
        .get_prompt(get("summarise", json!({"topic": "tides"})), &ctx)
        .await
        .unwrap_err();
    assert_eq!(unknown.code, -32602);
}

fn params<T: serde::de::DeserializeOwned>(mut value: Value) -> T {
    value["_meta"] = serde_json::from_str(META).unwrap();
    serde_json::from_value(value).unwrap()
}

#[tokio::test]
async fn resources_and_templates_come_and_go_at_run_time() {
    use mcp_era_server::{ResourceRequest, ResourceRouter, ServerEvent, ServerEvents};

    let events = ServerEvents::new();
    let mut heard = events.subscribe();
    let resources = ResourceRouter::new().with_events(events);
    let motd: Resource = serde_json::from_value(
        json!({"name": "motd", "uri": "config://motd", "mimeType": "text/plain"}),
    )
    .unwrap();
    resources
        .add(motd, |_, _| async { "Servers can be data." })
        .unwrap();
    let notes: ResourceTemplate =
        serde_json::from_value(json!({"name": "note", "uriTemplate": "notes://{id}"})).unwrap();
    resources
        .add_template(notes, |request: ResourceRequest, _| async move {
            let id: u32 = request.variable("id").ok()?;
            (id < 10).then(|| format!("note {id}"))
        })
        .unwrap();
    assert_eq!(heard.try_recv().unwrap(), ServerEvent::ResourcesListChanged);
    assert_eq!(heard.try_recv().unwrap(), ServerEvent::ResourcesListChanged);

    let ctx = request_ctx();
    let list = |resources: ResourceRouter| async move {
        let ctx = request_ctx();
        let page = resources.list_resources_reply(params(json!({})), &ctx);
        let page = page.await.unwrap().to_value().unwrap();
        let templates = resources.list_resource_templates_reply(params(json!({})), &ctx);
        let templates = templates.await.unwrap().to_value().unwrap();
        let uris = |list: &Value, key: &str, field: &str| -> Vec<String> {
            let items = list[key].as_array().unwrap();
            items
                .iter()
                .map(|i| i[field].as_str().unwrap().to_owned())
                .collect()
        };
        (
            uris(&page, "resources", "uri"),
            uris(&templates, "resourceTemplates", "uriTemplate"),
        )
    };
    assert_eq!(
        list(resources.clone()).await,
        (
            vec!["config://motd".to_owned()],
            vec!["notes://{id}".to_owned()]
        )
    );

    let read = |uri: &str| resources.read_resource(params(json!({"uri": uri})), &ctx);
    let fixed = serde_json::to_value(read("config://motd").await.unwrap()).unwrap();
    assert_eq!(fixed["contents"][0]["text"], "Servers can be data.");
    assert_eq!(fixed["contents"][0]["mimeType"], "text/plain");
    let templated = serde_json::to_value(read("notes://7").await.unwrap()).unwrap();
    assert_eq!(templated["contents"][0]["text"], "note 7");
    assert_eq!(templated["contents"][0]["uri"], "notes://7");
    for unknown in ["notes://12", "notes://x", "other://1"] {
        let error = read(unknown).await.unwrap_err();
        assert_eq!(error.code, -32602, "{unknown}");
        assert_eq!(error.data.unwrap()["uri"], unknown);
    }

    // Replaced in place, then removed: the kept pages are not served again.
    let motd: Resource =
        serde_json::from_value(json!({"name": "motd2", "uri": "config://motd"})).unwrap();
    resources.add(motd, |_, _| async { "Changed." }).unwrap();
    let fixed = serde_json::to_value(read("config://motd").await.unwrap()).unwrap();
    assert_eq!(fixed["contents"][0]["text"], "Changed.");
    assert!(resources.remove("config://motd"));
    assert!(!resources.remove("config://motd"));
    assert!(resources.remove_template("notes://{id}"));
    assert_eq!(list(resources.clone()).await, (vec![], vec![]));
    assert_eq!(read("notes://7").await.unwrap_err().code, -32602);

    // What cannot be served is refused, naming the problem.
    let bad: ResourceTemplate =
        serde_json::from_value(json!({"name": "bad", "uriTemplate": "notes://{id"})).unwrap();
    let refused = resources
        .add_template(bad, |_, _| async { "" })
        .unwrap_err();
    assert!(refused.contains("bad"), "{refused}");
    let app: Resource =
        serde_json::from_value(json!({"name": "app", "uri": "ui://app", "mimeType": "text/plain"}))
            .unwrap();
    let refused = resources.add(app, |_, _| async { "" }).unwrap_err();
    assert!(refused.contains("ui://app"), "{refused}");

    while heard.try_recv().is_ok() {}
    resources.updated("notes://7");
    assert_eq!(
        heard.try_recv().unwrap(),
        ServerEvent::ResourceUpdated("notes://7".into())
    );
}
