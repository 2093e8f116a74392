//! Every answer of the fixture, and every official example answer, checked
//! against the official JSON schema of its era (`$MCP_SCHEMA_DIR/<rev>/schema.json`,
//! a relative `MCP_SCHEMA_DIR` taken from the workspace root as CI sets it).
//!
//! The fixture is driven over stdio through each method it serves, once
//! with modern requests and once in a 2025-11-25 session, answering its
//! input requests (MRTR retries, or real server→client requests in the
//! legacy session). The official 2026-07-28 examples go through the
//! server-side types; those with a 2025-11-25 counterpart then also go
//! through `legacy_result`, the step that serves them to legacy sessions.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcp_era_server::stdio::StdioConfig;
use mcp_era_server::transport::legacy_result;
use mcp_era_types::v2026_07_28::roundtrip_named;
use mcp_everything::Everything;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

mod common;

use common::GUARD;

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

fn schema_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("MCP_SCHEMA_DIR")?);
    Some(if dir.is_relative() {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir)
    } else {
        dir
    })
}

/// One era's schema document and the validators compiled from it.
struct EraSchema {
    revision: &'static str,
    root: Value,
    validators: HashMap<String, jsonschema::Validator>,
    checked: usize,
    failures: Vec<String>,
}

impl EraSchema {
    fn load(dir: &Path, revision: &'static str) -> Self {
        let text = std::fs::read_to_string(dir.join(revision).join("schema.json")).unwrap();
        Self {
            revision,
            root: serde_json::from_str(&text).unwrap(),
            validators: HashMap::new(),
            checked: 0,
            failures: Vec::new(),
        }
    }

    /// Checks `instance` against `schema`, a fragment evaluated as the
    /// root of the era's document (so that its `$ref`s reach `$defs`).
    fn check(&mut self, label: &str, schema: &Value, instance: &Value) {
        let root = &self.root;
        let validator = self
            .validators
            .entry(schema.to_string())
            .or_insert_with(|| {
                let mut document = root.clone();
                for (key, value) in schema.as_object().unwrap() {
                    document[key] = value.clone();
                }
                jsonschema::validator_for(&document).unwrap()
            });
        self.checked += 1;
        let errors: Vec<String> = validator
            .iter_errors(instance)
            .map(|e| format!("{e} (at {})", e.instance_path()))
            .collect();
        if !errors.is_empty() {
            self.failures.push(format!(
                "{} {label}: {}\n    {instance}",
                self.revision,
                errors.join("; ")
            ));
        }
    }
}

fn def(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

/// A 2025-11-25 success response whose result is a `result_def`.
fn legacy_response(result_def: &str) -> Value {
    json!({
        "allOf": [def("JSONRPCResultResponse")],
        "properties": { "result": def(result_def) },
    })
}

/// The schema of the answer to `method` in `revision`.
fn answer_schema(revision: &str, method: &str, answer: &Value) -> Value {
    if answer.get("error").is_some() {
        return def("JSONRPCErrorResponse");
    }
    if revision == MODERN {
        return def(match method {
            "server/discover" => "DiscoverResultResponse",
            "tools/list" => "ListToolsResultResponse",
            "tools/call" => "CallToolResultResponse",
            "resources/list" => "ListResourcesResultResponse",
            "resources/templates/list" => "ListResourceTemplatesResultResponse",
            "resources/read" => "ReadResourceResultResponse",
            "prompts/list" => "ListPromptsResultResponse",
            "prompts/get" => "GetPromptResultResponse",
            "completion/complete" => "CompleteResultResponse",
            other => panic!("no modern answer schema for {other}"),
        });
    }
    legacy_response(match method {
        "initialize" => "InitializeResult",
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
            "EmptyResult"
        }
        other => legacy_result_def(other).unwrap_or_else(|| panic!("no legacy schema for {other}")),
    })
}

/// The 2025-11-25 result type of a method both eras serve.
fn legacy_result_def(method: &str) -> Option<&'static str> {
    Some(match method {
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "completion/complete" => "CompleteResult",
        _ => return None,
    })
}

// ------------------------------------------------------ the fixture ----

const CAPABILITIES: &str = r#"{"sampling": {}, "elicitation": {}, "roots": {}}"#;

/// A value of the type `schema` asks for (elicitation fields).
fn sample_value(schema: &Value) -> Value {
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    if let Some(first) = schema.pointer("/oneOf/0/const") {
        return first.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => {
            let items = &schema["items"];
            let item = items
                .pointer("/anyOf/0/const")
                .cloned()
                .unwrap_or_else(|| sample_value(items));
            json!([item])
        }
        Some("integer") => json!(7),
        Some("number") => json!(1.5),
        Some("boolean") => json!(true),
        _ => json!("yes"),
    }
}

/// The client's answer to one input request (modern) or server→client
/// request (legacy).
fn answer_input(method: &str, params: &Value) -> Value {
    match method {
        "sampling/createMessage" => json!({
            "role": "assistant",
            "content": { "type": "text", "text": "Hello from the model" },
            "model": "test-model",
            "stopReason": "endTurn",
        }),
        "elicitation/create" => {
            let mut content = Map::new();
            if let Some(properties) = params
                .pointer("/requestedSchema/properties")
                .and_then(Value::as_object)
            {
                for (name, schema) in properties {
                    content.insert(name.clone(), sample_value(schema));
                }
            }
            json!({ "action": "accept", "content": content })
        }
        "roots/list" => json!({ "roots": [{ "uri": "file:///tmp/project", "name": "project" }] }),
        other => panic!("unexpected input request {other}"),
    }
}

/// Valid arguments of the fixture's tools that take any.
fn tool_arguments(name: &str) -> Value {
    match name {
        "json_schema_2020_12_tool" => {
            json!({ "name": "Ada", "contactMethod": "email", "email": "ada@example.com" })
        }
        "test_sampling" => json!({ "prompt": "Say hello" }),
        "test_elicitation" => json!({ "message": "Your answer?" }),
        "test_custom_header" => json!({ "region": "eu-west" }),
        "greet" => json!({ "name": "Ada" }),
        "slow_compute" => json!({ "seconds": 0, "label": "x" }),
        "confirm_delete" => json!({ "filename": "notes.txt" }),
        _ => json!({}),
    }
}

fn prompt_arguments(name: &str) -> Value {
    match name {
        "test_prompt_with_arguments" => json!({ "arg1": "a", "arg2": "b" }),
        "test_prompt_with_embedded_resource" => json!({ "resourceUri": "test://static-text" }),
        _ => json!({}),
    }
}

/// A client of the fixture over an in-memory stdio pair, checking every
/// message the server sends against the schema of `era`.
struct Client {
    era: EraSchema,
    input: WriteHalf<DuplexStream>,
    output: tokio::io::Lines<BufReader<ReadHalf<DuplexStream>>>,
    next_id: i64,
}

impl Client {
    fn start(era: EraSchema) -> Self {
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let (client_read, client_write) = tokio::io::split(client);
        tokio::spawn(mcp_era_server::stdio::serve_with(
            Arc::new(Everything::new()),
            server_read,
            server_write,
            StdioConfig::default(),
        ));
        Self {
            era,
            input: client_write,
            output: BufReader::new(client_read).lines(),
            next_id: 1,
        }
    }

    fn modern(&self) -> bool {
        self.era.revision == MODERN
    }

    async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.input.write_all(line.as_bytes()).await.unwrap();
    }

    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(GUARD, self.output.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// Sends a request and returns its answer, checked. Notifications on
    /// the way are checked; server→client requests are checked and
    /// answered.
    async fn request(&mut self, method: &str, mut params: Value) -> Value {
        if self.modern() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": serde_json::from_str::<Value>(CAPABILITIES).unwrap(),
                "io.modelcontextprotocol/logLevel": "debug",
                "progressToken": format!("progress-{}", self.next_id),
            });
        } else if method != "initialize" {
            params["_meta"] = json!({ "progressToken": format!("progress-{}", self.next_id) });
        }
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
        loop {
            let message = self.read().await;
            if message.get("method").is_none() && message["id"] == id {
                let label = format!("{method} {}", params.get("name").unwrap_or(&params["uri"]));
                let schema = answer_schema(self.era.revision, method, &message);
                self.era.check(&label, &schema, &message);
                return message;
            }
            self.server_message(message).await;
        }
    }

    async fn server_message(&mut self, message: Value) {
        let method = message["method"].as_str().unwrap().to_owned();
        if message.get("id").is_none() {
            self.era
                .check(&method, &def("ServerNotification"), &message);
            return;
        }
        assert!(!self.modern(), "a modern server sent a request: {message}");
        self.era.check(&method, &def("ServerRequest"), &message);
        let result = answer_input(&method, &message["params"]);
        self.send(&json!({ "jsonrpc": "2.0", "id": message["id"], "result": result }))
            .await;
    }

    /// A request whose `input_required` answers (modern) are retried
    /// with the inputs until it completes.
    async fn request_to_completion(&mut self, method: &str, params: Value) -> Value {
        let mut retry = params.clone();
        for _ in 0..8 {
            let answer = self.request(method, retry.clone()).await;
            if answer.pointer("/result/resultType") != Some(&json!("input_required")) {
                return answer;
            }
            let mut responses = Map::new();
            for (key, input) in answer["result"]["inputRequests"].as_object().unwrap() {
                let reply = answer_input(input["method"].as_str().unwrap(), &input["params"]);
                responses.insert(key.clone(), reply);
            }
            retry = params.clone();
            retry["inputResponses"] = Value::Object(responses);
            if let Some(state) = answer["result"].get("requestState") {
                retry["requestState"] = state.clone();
            }
        }
        panic!("{method} {params} never completed");
    }

    /// Closes stdin and checks whatever the server still sends.
    async fn finish(mut self) -> EraSchema {
        self.input.shutdown().await.unwrap();
        while let Some(line) = tokio::time::timeout(GUARD, self.output.next_line())
            .await
            .unwrap()
            .unwrap()
        {
            let message: Value = serde_json::from_str(&line).unwrap();
            self.era
                .check("after EOF", &def("JSONRPCMessage"), &message);
        }
        self.era
    }
}

/// Drives every method the fixture serves in `client`'s era.
async fn drive(client: &mut Client) -> Value {
    if client.modern() {
        client.request("server/discover", json!({})).await;
        let ping = client.request("ping", json!({})).await;
        assert_eq!(ping["error"]["code"], -32601);
    } else {
        let init = client
            .request(
                "initialize",
                json!({
                    "protocolVersion": LEGACY,
                    "capabilities": serde_json::from_str::<Value>(CAPABILITIES).unwrap(),
                    "clientInfo": { "name": "schema-test", "version": "1" },
                }),
            )
            .await;
        assert_eq!(init["result"]["protocolVersion"], LEGACY);
        client
            .send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
        client.request("ping", json!({})).await;
        client
            .request("logging/setLevel", json!({ "level": "debug" }))
            .await;
        for method in ["resources/subscribe", "resources/unsubscribe"] {
            client
                .request(method, json!({ "uri": "test://watched-resource" }))
                .await;
        }
    }

    let tools = client.request("tools/list", json!({})).await;
    let names: Vec<String> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .chain([
            "test_trigger_tool_change".into(),
            "test_trigger_prompt_change".into(),
        ])
        .collect();
    for name in &names {
        let arguments = tool_arguments(name);
        client
            .request_to_completion(
                "tools/call",
                json!({ "name": name, "arguments": arguments }),
            )
            .await;
    }
    client
        .request(
            "tools/call",
            json!({ "name": "list_notes", "arguments": { "title": "Shop" } }),
        )
        .await;
    client
        .request("tools/call", json!({ "name": "no_such_tool" }))
        .await;

    let resources = client.request("resources/list", json!({})).await;
    let mut uris: Vec<String> = resources["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_owned())
        .collect();
    client.request("resources/templates/list", json!({})).await;
    uris.extend([
        "test://template/42/data".into(),
        "test://no-such-resource".into(),
    ]);
    for uri in &uris {
        client
            .request_to_completion("resources/read", json!({ "uri": uri }))
            .await;
    }

    let prompts = client.request("prompts/list", json!({})).await;
    for prompt in prompts["result"]["prompts"].as_array().unwrap().clone() {
        let name = prompt["name"].as_str().unwrap();
        client
            .request_to_completion(
                "prompts/get",
                json!({ "name": name, "arguments": prompt_arguments(name) }),
            )
            .await;
    }

    client
        .request(
            "completion/complete",
            json!({
                "ref": { "type": "ref/prompt", "name": "test_prompt_with_arguments" },
                "argument": { "name": "arg1", "value": "te" },
            }),
        )
        .await;
    tools
}

#[tokio::test]
async fn every_fixture_answer_fits_its_era_schema() {
    let Some(dir) = schema_dir() else {
        println!("MCP_SCHEMA_DIR is not set: the era schema tests did NOT run");
        return;
    };
    let mut failures = Vec::new();
    for revision in [MODERN, LEGACY] {
        let mut client = Client::start(EraSchema::load(&dir, revision));
        let tools = drive(&mut client).await;
        // The list-shaped tool is there, so the legacy rule is exercised.
        assert!(
            tools["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["name"] == "list_notes"),
            "{tools}"
        );
        let era = client.finish().await;
        println!("{revision}: {} fixture messages checked", era.checked);
        failures.extend(era.failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------- the official examples ----

/// The one example that breaks a MUST of its own schema (no caching hints
/// on `resources/read`); `mcp-types/tests/official_examples.rs` checks it
/// is rejected.
const LACKS_CACHE_HINTS: (&str, &str) = (
    "ReadResourceResultResponse",
    "read-resource-result-response.json",
);

/// The method a modern result type answers, for those 2025-11-25 shares.
fn method_of_result(type_name: &str) -> Option<&'static str> {
    Some(match type_name {
        "ListToolsResult" => "tools/list",
        "CallToolResult" => "tools/call",
        "ListResourcesResult" => "resources/list",
        "ListResourceTemplatesResult" => "resources/templates/list",
        "ReadResourceResult" => "resources/read",
        "ListPromptsResult" => "prompts/list",
        "GetPromptResult" => "prompts/get",
        "CompleteResult" => "completion/complete",
        _ => return None,
    })
}

/// How a served example reaches a 2025-11-25 client: the method whose
/// result carries it, that result, and where in it the example sits
/// (`""`: it is the result).
fn legacy_carrier(type_name: &str, example: &Value) -> Option<(&'static str, Value, &'static str)> {
    let complete = |key: &str, item: &Value| json!({ "resultType": "complete", "ttlMs": 0, "cacheScope": "private", key: [item] });
    Some(match type_name {
        "Tool" => ("tools/list", complete("tools", example), "/tools/0"),
        "Resource" => (
            "resources/list",
            complete("resources", example),
            "/resources/0",
        ),
        "TextResourceContents" | "BlobResourceContents" => (
            "resources/read",
            complete("contents", example),
            "/contents/0",
        ),
        "TextContent" | "ImageContent" | "AudioContent" | "ResourceLink" | "EmbeddedResource" => {
            ("tools/call", complete("content", example), "/content/0")
        }
        other => (method_of_result(other)?, example.clone(), ""),
    })
}

/// Error objects a legacy session may receive as they are.
const ERRORS: &[&str] = &[
    "ParseError",
    "InvalidParamsError",
    "MethodNotFoundError",
    "InternalError",
    "MissingRequiredClientCapabilityError",
];

/// The entries of `dir`, in name order.
fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    entries
}

#[test]
fn official_example_answers_fit_both_eras() {
    let Some(dir) = schema_dir() else {
        println!("MCP_SCHEMA_DIR is not set: the era schema tests did NOT run");
        return;
    };
    let mut modern = EraSchema::load(&dir, MODERN);
    let mut legacy = EraSchema::load(&dir, LEGACY);
    let examples = dir.join(MODERN).join("examples");
    for type_dir in sorted_entries(&examples) {
        let type_name = type_dir.file_name().unwrap().to_string_lossy().into_owned();
        for file in sorted_entries(&type_dir) {
            let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
            if (type_name.as_str(), file_name.as_str()) == LACKS_CACHE_HINTS {
                continue;
            }
            let label = format!("{type_name}/{file_name}");
            let example: Value =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            // What the server-side type writes for it.
            let served = roundtrip_named(&type_name, example).unwrap();
            modern.check(&label, &def(&type_name), &served);

            if ERRORS.contains(&type_name.as_str()) {
                let whole = if served.get("error").is_some() {
                    "JSONRPCErrorResponse"
                } else {
                    "Error"
                };
                legacy.check(&label, &def(whole), &served);
            } else if let Some(result_type) = type_name.strip_suffix("Response")
                && let Some(method) = method_of_result(result_type)
            {
                let mut response = served.clone();
                response["result"] = legacy_result(method, served["result"].clone());
                legacy.check(&label, &legacy_response(result_type), &response);
            } else if let Some((method, result, pointer)) = legacy_carrier(&type_name, &served) {
                let adapted = legacy_result(method, result);
                let instance = adapted.pointer(pointer).unwrap();
                legacy.check(&label, &def(&type_name), instance);
            }
        }
    }
    println!(
        "official examples checked: {} against {MODERN}, {} against {LEGACY}",
        modern.checked, legacy.checked
    );
    let failures: Vec<String> = modern.failures.into_iter().chain(legacy.failures).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
