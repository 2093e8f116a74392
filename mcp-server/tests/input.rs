//! Typed input requests (`mcp_era_server::input`, `InputRequired`, the
//! `RetryInput` readers) and the context's builders: what the
//! constructors write (checked against the official schemas when
//! `MCP_SCHEMA_DIR` is set, and through the generated types always), an
//! MRTR tool in a modern round trip and in a 2025-11-25 session, progress
//! reports, and `ctx.extension` through a mounted `McpService`.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mcp_era_server::mcp_era_types::v2026_07_28::{
    CallToolResult, InputRequest, InputRequiredResult, InputResponses, ModelPreferences, RequestId,
    RequestMetaObject,
};
use mcp_era_server::schemars::{self, JsonSchema};
use mcp_era_server::stdio::StdioConfig;
use mcp_era_server::{
    Elicitation, InputRequired, McpServer, RequestContext, RetryInput, ToolAnswer, input, router,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

const GUARD: Duration = Duration::from_secs(20);

// ---- the constructors ------------------------------------------------

/// A flat form with every kind of property the spec allows.
#[derive(serde::Deserialize, JsonSchema, Debug, PartialEq)]
struct Profile {
    /// Your name
    name: String,
    /// How old you are
    #[schemars(range(min = 1, max = 150))]
    age: u32,
    /// Where to write
    #[schemars(email, length(max = 64))]
    email: Option<String>,
    #[serde(default = "yes")]
    #[schemars(default = "yes")]
    newsletter: bool,
    plan: Plan,
    colors: Vec<Color>,
    #[schemars(length(min = 1))]
    extras: Vec<Plan>,
}

fn yes() -> bool {
    true
}

/// A plan.
#[derive(serde::Deserialize, JsonSchema, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Plan {
    /// The free plan
    Free,
    /// The paid plan
    Pro,
}

#[derive(serde::Deserialize, JsonSchema, Debug, PartialEq)]
enum Color {
    Red,
    Green,
}

#[test]
fn a_form_is_the_flat_schema_of_its_type() {
    let request = input::elicit::<Profile>("Tell me about you").unwrap();
    let json = serde_json::to_value(&request).unwrap();
    assert_eq!(
        json,
        json!({
            "method": "elicitation/create",
            "params": {
                "message": "Tell me about you",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": { "type": "string", "description": "Your name" },
                        "age": { "type": "integer", "description": "How old you are", "minimum": 1, "maximum": 150 },
                        "email": { "type": "string", "description": "Where to write", "format": "email", "maxLength": 64 },
                        "newsletter": { "type": "boolean", "default": true },
                        "plan": { "type": "string", "description": "A plan.", "oneOf": [
                            { "const": "free", "title": "The free plan" },
                            { "const": "pro", "title": "The paid plan" },
                        ] },
                        "colors": { "type": "array", "items": { "type": "string", "enum": ["Red", "Green"] } },
                        "extras": { "type": "array", "minItems": 1, "items": { "anyOf": [
                            { "const": "free", "title": "The free plan" },
                            { "const": "pro", "title": "The paid plan" },
                        ] } },
                    },
                    "required": ["name", "age", "plan", "colors", "extras"],
                },
            },
        })
    );
    // Through the schema's types and back, unchanged.
    let typed: InputRequest = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(typed, request);
    assert_eq!(serde_json::to_value(&typed).unwrap(), json);
}

#[derive(JsonSchema)]
#[allow(dead_code, reason = "only the schema is read")]
struct Nested {
    inner: Plan2,
}

#[derive(JsonSchema)]
#[allow(dead_code, reason = "only the schema is read")]
struct Plan2 {
    level: u8,
}

#[derive(JsonSchema)]
#[allow(dead_code, reason = "only the schema is read")]
struct Tags {
    tags: Vec<String>,
}

#[derive(JsonSchema)]
#[allow(dead_code, reason = "only the schema is read")]
enum Shape {
    Circle { radius: f64 },
}

#[derive(JsonSchema)]
#[allow(dead_code, reason = "only the schema is read")]
struct WithShape {
    shape: Shape,
}

#[test]
fn what_a_form_cannot_ask_is_refused_naming_the_property() {
    let refused = |error: mcp_era_server::ErrorObject| {
        assert_eq!(error.code, -32603);
        error.message
    };
    let message = refused(input::elicit::<Nested>("?").unwrap_err());
    assert!(
        message.starts_with("Nested cannot be asked in an elicitation form: property `inner`"),
        "{message}"
    );
    let message = refused(input::elicit::<Tags>("?").unwrap_err());
    assert!(
        message.contains("property `tags`: a list must be of string enum values"),
        "{message}"
    );
    let message = refused(input::elicit::<WithShape>("?").unwrap_err());
    assert!(message.contains("property `shape`"), "{message}");
    let message = refused(input::elicit::<String>("?").unwrap_err());
    assert!(
        message.contains("an object with properties (a struct)"),
        "{message}"
    );
}

#[test]
fn url_sampling_and_roots_requests() {
    let url = input::elicit_url("Sign in", "https://example.com/login").unwrap();
    assert_eq!(
        serde_json::to_value(&url).unwrap(),
        json!({ "method": "elicitation/create",
                "params": { "mode": "url", "message": "Sign in", "url": "https://example.com/login" } })
    );
    for bad in ["example.com/login", "https://a b", "1http://x", ""] {
        assert_eq!(
            input::elicit_url("Sign in", bad).unwrap_err().code,
            -32603,
            "{bad}"
        );
    }

    let sample: InputRequest = input::sample("Hello?", 50)
        .system_prompt("Be brief")
        .model_preferences(ModelPreferences::new().with_speed_priority(serde_json::Number::from(1)))
        .into();
    assert_eq!(
        serde_json::to_value(&sample).unwrap(),
        json!({ "method": "sampling/createMessage", "params": {
            "messages": [{ "role": "user", "content": { "type": "text", "text": "Hello?" } }],
            "maxTokens": 50,
            "systemPrompt": "Be brief",
            "modelPreferences": { "speedPriority": 1 },
        } })
    );
    assert_eq!(
        serde_json::to_value(input::roots()).unwrap(),
        json!({ "method": "roots/list", "params": {} })
    );

    let result = InputRequired::new()
        .request("url", url.clone())
        .request("sample", sample.clone())
        .request("roots", input::roots())
        .state("s1");
    let typed = InputRequiredResult::from(result.clone());
    let json = serde_json::to_value(&typed).unwrap();
    assert_eq!(json["resultType"], "input_required");
    assert_eq!(json["requestState"], "s1");
    assert_eq!(
        json["inputRequests"]["url"],
        serde_json::to_value(&url).unwrap()
    );
    let back: InputRequiredResult = serde_json::from_value(json).unwrap();
    assert_eq!(back, typed);

    // State alone (the schema wants one of the two).
    let only_state =
        serde_json::to_value(InputRequiredResult::from(InputRequired::new().state("s"))).unwrap();
    assert_eq!(
        only_state,
        json!({ "resultType": "input_required", "requestState": "s" })
    );
}

fn schema_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("MCP_SCHEMA_DIR")?);
    Some(if dir.is_relative() {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir)
    } else {
        dir
    })
}

/// Checks `instance` against `$defs/<def>` of the official `revision`.
fn check_official(dir: &Path, revision: &str, def: &str, instance: &Value) {
    let text = std::fs::read_to_string(dir.join(revision).join("schema.json")).unwrap();
    let mut document: Value = serde_json::from_str(&text).unwrap();
    document["$ref"] = json!(format!("#/$defs/{def}"));
    let validator = jsonschema::validator_for(&document).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{revision} {def}: {errors:?}\n{instance}"
    );
}

#[test]
fn the_constructors_fit_the_official_schema() {
    let Some(dir) = schema_dir() else {
        println!("MCP_SCHEMA_DIR is not set: the official schema checks did NOT run");
        return;
    };
    let requests: Vec<InputRequest> = vec![
        input::elicit::<Profile>("Tell me about you").unwrap(),
        input::elicit_url("Sign in", "https://example.com/login").unwrap(),
        input::sample("Hello?", 50).system_prompt("Be brief").into(),
        input::roots(),
    ];
    let mut all = InputRequired::new().state("opaque");
    for (at, request) in requests.into_iter().enumerate() {
        let json = serde_json::to_value(&request).unwrap();
        check_official(&dir, "2026-07-28", "InputRequest", &json);
        all = all.request(format!("k{at}"), request);
    }
    let result = serde_json::to_value(InputRequiredResult::from(all)).unwrap();
    check_official(&dir, "2026-07-28", "InputRequiredResult", &result);
}

// ---- reading the answers ---------------------------------------------

fn retry(responses: Value) -> RetryInput {
    let responses: InputResponses = serde_json::from_value(responses).unwrap();
    RetryInput::new(Some(responses), None)
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Who {
    name: String,
}

#[test]
fn answers_read_as_types() {
    let answers = retry(json!({
        "yes": { "action": "accept", "content": { "name": "Ada" } },
        "no": { "action": "decline" },
        "later": { "action": "cancel" },
        "url": { "action": "accept" },
        "bad": { "action": "accept", "content": { "name": 7 } },
        "llm": { "role": "assistant", "content": { "type": "text", "text": "Hi" }, "model": "m" },
        "llm2": { "role": "assistant", "content": [{ "type": "text", "text": "a" }, { "type": "text", "text": "b" }], "model": "m" },
        "pic": { "role": "assistant", "content": { "type": "image", "data": "AA==", "mimeType": "image/png" }, "model": "m" },
        "dirs": { "roots": [{ "uri": "file:///a" }, { "uri": "file:///b", "name": "b" }] },
    }));
    assert_eq!(
        answers.elicited::<Who>("yes").unwrap(),
        Some(Elicitation::Accepted(Who { name: "Ada".into() }))
    );
    assert_eq!(
        answers.elicited::<Who>("no").unwrap(),
        Some(Elicitation::Declined)
    );
    assert_eq!(
        answers.elicited::<Who>("later").unwrap(),
        Some(Elicitation::Cancelled)
    );
    assert_eq!(answers.elicited::<Who>("missing").unwrap(), None);
    assert_eq!(
        answers.elicited::<()>("url").unwrap(),
        Some(Elicitation::Accepted(()))
    );
    let error = answers.elicited::<Who>("bad").unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(
        error
            .message
            .starts_with("inputResponses.bad: the content does not fit"),
        "{}",
        error.message
    );
    let error = answers.elicited::<Who>("llm").unwrap_err();
    assert_eq!(
        (error.code, error.message.as_str()),
        (-32602, "inputResponses.llm must be an elicitation result")
    );

    assert_eq!(answers.sampled_text("llm").unwrap().as_deref(), Some("Hi"));
    assert_eq!(answers.sampled_text("llm2").unwrap().as_deref(), Some("ab"));
    assert_eq!(
        answers.sampled_text("pic").unwrap_err().message,
        "inputResponses.pic holds no text"
    );
    assert_eq!(answers.sampled_text("yes").unwrap_err().code, -32602);
    assert_eq!(answers.sampled_text("missing").unwrap(), None);

    let roots = answers.roots("dirs").unwrap().unwrap();
    assert_eq!(roots.len(), 2);
    assert_eq!(roots[1].name.as_deref(), Some("b"));
    assert_eq!(
        answers.roots("llm").unwrap_err().message,
        "inputResponses.llm must be a roots/list result"
    );
}

// ---- one MRTR tool, both eras ----------------------------------------

#[derive(serde::Deserialize, JsonSchema)]
struct Signup {
    /// Your name
    name: String,
    plan: Plan,
}

#[derive(McpServer)]
#[mcp(name = "typed-input", version = "1.0.0", tools, versions(legacy = ["2025-11-25"]))]
struct Typed;

#[router]
impl Typed {
    /// Signs up after a form, a sign-in page, a model's greeting and the roots
    #[tool]
    fn sign_up(&self, retry: &RetryInput) -> ToolAnswer {
        let form = retry.elicited::<Signup>("form")?;
        let login = retry.elicited::<()>("login")?;
        let greeting = retry.sampled_text("greeting")?;
        let roots = retry.roots("roots")?;
        let (Some(form), Some(login), Some(greeting), Some(roots)) = (form, login, greeting, roots)
        else {
            return InputRequired::new()
                .request("form", input::elicit::<Signup>("Sign up")?)
                .request(
                    "login",
                    input::elicit_url("Sign in", "https://example.com/login")?,
                )
                .request("greeting", input::sample("Greet a new user", 20))
                .request("roots", input::roots())
                .state("round-1")
                .into();
        };
        if retry.state.as_deref() != Some("round-1") {
            return Err(mcp_era_server::errors::invalid_params("bad requestState").into());
        }
        let text = match (form, login) {
            (Elicitation::Accepted(Signup { name, plan }), Elicitation::Accepted(())) => {
                format!("{name} on {plan:?}; {greeting}; {} root(s)", roots.len())
            }
            _ => "not signed up".to_owned(),
        };
        Ok(CallToolResult::text(text).into())
    }

    /// Reports progress three ways
    #[tool]
    fn steps(&self, ctx: &RequestContext) -> &'static str {
        ctx.progress(1.0);
        ctx.progress(2.0).total(4.0).message("half");
        ctx.progress(2.5).message(String::from("more")).send();
        ctx.events().tools_list_changed();
        "done"
    }

    /// Reads a middleware value
    #[tool]
    fn tenant(&self, ctx: &RequestContext) -> String {
        format!("{:?}", ctx.extension::<Tenant>().map(|t| t.0))
    }
}

#[derive(Clone)]
struct Tenant(&'static str);

/// The client's answer to one input request of `sign_up` (a URL-mode
/// elicitation has no content).
fn answer(method: &str, params: &Value) -> Value {
    match method {
        "elicitation/create" if params["mode"] == "url" => json!({ "action": "accept" }),
        "elicitation/create" => {
            json!({ "action": "accept", "content": { "name": "Ada", "plan": "pro" } })
        }
        "sampling/createMessage" => {
            json!({ "role": "assistant", "content": { "type": "text", "text": "Welcome!" }, "model": "m" })
        }
        "roots/list" => json!({ "roots": [{ "uri": "file:///home/ada" }] }),
        other => panic!("unexpected {other}"),
    }
}

struct Client {
    input: WriteHalf<DuplexStream>,
    output: tokio::io::Lines<BufReader<ReadHalf<DuplexStream>>>,
}

impl Client {
    fn start() -> Self {
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let (client_read, client_write) = tokio::io::split(client);
        tokio::spawn(mcp_era_server::stdio::serve_with(
            Arc::new(Typed),
            server_read,
            server_write,
            StdioConfig::default(),
        ));
        Self {
            input: client_write,
            output: BufReader::new(client_read).lines(),
        }
    }

    async fn send(&mut self, message: Value) {
        self.input
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(GUARD, self.output.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        serde_json::from_str(&line).unwrap()
    }
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": {}, "sampling": {}, "roots": {} },
        "progressToken": "tok",
    })
}

#[tokio::test]
async fn an_mrtr_tool_in_a_modern_round_trip() {
    let mut client = Client::start();
    let call = |id: i64, extra: Value| {
        let mut params = json!({ "name": "sign_up", "arguments": {}, "_meta": modern_meta() });
        for (key, value) in extra.as_object().unwrap() {
            params[key] = value.clone();
        }
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
    };
    client.send(call(1, json!({}))).await;
    let first = client.read().await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    // Sealed on the wire; the handler reads "round-1" back.
    let state = result["requestState"].as_str().unwrap().to_owned();
    assert!(
        state.starts_with("v1.") && !state.contains("round-1"),
        "{state}"
    );
    let requests = result["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 4);
    assert_eq!(requests["login"]["params"]["mode"], "url");
    assert!(
        requests["login"]["params"].get("elicitationId").is_none(),
        "2026-07-28 has none"
    );
    if let Some(dir) = schema_dir() {
        check_official(&dir, "2026-07-28", "InputRequiredResult", result);
    }
    let responses: serde_json::Map<String, Value> = requests
        .iter()
        .map(|(key, request)| {
            (
                key.clone(),
                answer(request["method"].as_str().unwrap(), &request["params"]),
            )
        })
        .collect();
    let retry = json!({ "inputResponses": responses, "requestState": state });
    client.send(call(2, retry)).await;
    let second = client.read().await;
    assert_eq!(second["result"]["resultType"], "complete", "{second}");
    assert_eq!(
        second["result"]["content"][0]["text"],
        "Ada on Pro; Welcome!; 1 root(s)"
    );

    // A declined form reads as such; a form answer of the wrong shape is -32602.
    let mut declined = responses.clone();
    declined.insert("form".into(), json!({ "action": "decline" }));
    client
        .send(call(
            3,
            json!({ "inputResponses": declined, "requestState": state }),
        ))
        .await;
    assert_eq!(
        client.read().await["result"]["content"][0]["text"],
        "not signed up"
    );
    let mut wrong = responses;
    wrong.insert(
        "form".into(),
        json!({ "action": "accept", "content": { "name": "Ada", "plan": "gold" } }),
    );
    client
        .send(call(
            4,
            json!({ "inputResponses": wrong, "requestState": state }),
        ))
        .await;
    let error = client.read().await;
    assert_eq!(error["error"]["code"], -32602, "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("inputResponses.form: ")
    );
}

#[tokio::test]
async fn the_same_tool_in_a_legacy_session() {
    let mut client = Client::start();
    client
        .send(json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": { "elicitation": { "form": {}, "url": {} }, "sampling": {}, "roots": {} },
            "clientInfo": { "name": "old", "version": "1" } } }))
        .await;
    assert_eq!(
        client.read().await["result"]["protocolVersion"],
        "2025-11-25"
    );
    client
        .send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
        .await;
    client
        .send(json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": { "name": "sign_up", "arguments": {} } }))
        .await;
    let mut asked = Vec::new();
    let done = loop {
        let message = client.read().await;
        if message["id"] == 2 && message.get("method").is_none() {
            break message;
        }
        let method = message["method"].as_str().unwrap().to_owned();
        if let Some(dir) = schema_dir() {
            check_official(&dir, "2025-11-25", "ServerRequest", &message);
        }
        if message["params"]["mode"] == "url" {
            assert_eq!(
                message["params"]["elicitationId"].as_str().unwrap().len(),
                32
            );
        }
        asked.push(method.clone());
        client
            .send(json!({ "jsonrpc": "2.0", "id": message["id"], "result": answer(&method, &message["params"]) }))
            .await;
    };
    asked.sort();
    assert_eq!(
        asked,
        [
            "elicitation/create",
            "elicitation/create",
            "roots/list",
            "sampling/createMessage"
        ]
    );
    assert_eq!(
        done["result"]["content"][0]["text"], "Ada on Pro; Welcome!; 1 root(s)",
        "{done}"
    );
    assert!(done["result"].get("resultType").is_none());
}

// ---- the context -------------------------------------------------------

#[tokio::test]
async fn progress_reports_are_sent_when_dropped() {
    let mut client = Client::start();
    let call = |id: i64, meta: Value| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": "steps", "arguments": {}, "_meta": meta } })
    };
    client.send(call(1, modern_meta())).await;
    let mut notes = Vec::new();
    loop {
        let message = client.read().await;
        if message["id"] == 1 {
            assert_eq!(message["result"]["content"][0]["text"], "done");
            break;
        }
        notes.push(message["params"].clone());
    }
    assert_eq!(
        notes,
        [
            json!({ "progressToken": "tok", "progress": 1 }),
            json!({ "progressToken": "tok", "progress": 2, "total": 4, "message": "half" }),
            json!({ "progressToken": "tok", "progress": 2.5, "message": "more" }),
        ]
    );
    // Without a progressToken nothing is sent: the result comes first.
    let mut meta = modern_meta();
    meta.as_object_mut().unwrap().remove("progressToken");
    client.send(call(2, meta)).await;
    assert_eq!(client.read().await["id"], 2);
}

#[test]
fn a_context_without_a_transport_has_a_hub_and_no_extensions() {
    let meta: RequestMetaObject = serde_json::from_value(modern_meta()).unwrap();
    let ctx = RequestContext::new(RequestId::from(1), meta);
    // A hub no transport follows: publishing works, only a subscriber of
    // its own hears it.
    let mut events = ctx.events().subscribe();
    ctx.events().tools_list_changed();
    assert!(events.try_recv().is_ok());
    assert!(ctx.extension::<Tenant>().is_none());
}

#[tokio::test]
async fn extensions_reach_the_handler_through_a_mounted_service() {
    use axum::Router;
    use axum::extract::Request;
    use axum::middleware::{self, Next};
    use axum::response::Response;
    use mcp_era_server::http::{HttpConfig, McpService};
    use tokio::io::AsyncReadExt;
    use tokio::net::{TcpListener, TcpStream};

    async fn tenant(mut request: Request, next: Next) -> Response {
        request.extensions_mut().insert(Tenant("acme"));
        next.run(request).await
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let mcp = McpService::new(Typed, HttpConfig::new(addr)).unwrap();
    let app = Router::new()
        .nest_service("/mcp", mcp)
        .layer(middleware::from_fn(tenant));
    tokio::spawn(async move { axum::serve(listener, app).await });

    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": { "name": "tenant", "arguments": {}, "_meta": modern_meta() } })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: tenant\r\nConnection: close\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = String::new();
    tokio::time::timeout(GUARD, stream.read_to_string(&mut raw))
        .await
        .unwrap()
        .unwrap();
    assert!(raw.contains(r#"Some(\"acme\")"#), "{raw}");

    // Over stdio there is no HTTP request: None.
    let mut client = Client::start();
    client
        .send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": { "name": "tenant", "arguments": {}, "_meta": modern_meta() } }))
        .await;
    assert_eq!(client.read().await["result"]["content"][0]["text"], "None");
}
