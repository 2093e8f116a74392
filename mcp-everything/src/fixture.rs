//! The fixture server: every tool, resource and prompt the official
//! conformance suite calls (names and exact outputs from
//! `docs/conformance-fixture.md` §5–§6), served in both eras by the same
//! handlers.
//!
//! Server→client interaction is written once, MRTR style: a tool that needs
//! input returns `input_required`; a modern client answers with a retry,
//! and in a legacy session the runtime sends the input requests as real
//! requests and calls the tool again (see `mcp_server`'s legacy bridge).

use mcp_server::mcp_types::v2026_07_28::{
    CallToolRequestParams, CallToolResultResponseResult, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResultResponseResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, LoggingLevel,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResultResponseResult,
};
use mcp_server::{
    CompletionsHandler, HandlerResult, McpServer, PromptsHandler, RequestContext, ResourcesHandler,
    ToolsHandler, errors,
};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::time::Duration;

/// Base64 of a 1×1 PNG.
pub const IMG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// Base64 of a minimal WAV file.
pub const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The dual-era fixture server.
#[derive(McpServer)]
#[mcp(
    name = "mcp-everything",
    version = "0.1.0",
    title = "mcp-rs everything fixture",
    tools(list_changed),
    resources(subscribe, list_changed),
    prompts(list_changed),
    completions,
    logging,
    versions(legacy = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]),
    discover(ttl_ms = 0, scope = "private"),
    cache(ttl_ms = 300000, scope = "public")
)]
pub struct Everything {
    secret: [u8; 32],
}

impl Default for Everything {
    fn default() -> Self {
        Self::new()
    }
}

impl Everything {
    /// A fixture with a per-process random secret for signed
    /// `requestState`s.
    pub fn new() -> Self {
        use std::collections::hash_map::RandomState;
        use std::hash::{BuildHasher, Hasher};
        let state = RandomState::new();
        let mut secret = [0u8; 32];
        for (i, chunk) in secret.chunks_mut(8).enumerate() {
            let mut h = state.build_hasher();
            h.write_usize(i);
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
        Self { secret }
    }

    fn sign(&self, payload: &Value) -> String {
        let body = hex(payload.to_string().as_bytes());
        let mac = hmac_sha256(&self.secret, body.as_bytes());
        format!("{body}.{}", hex(&mac))
    }

    fn verify(&self, state: &str) -> Option<Value> {
        let (body, mac) = state.split_once('.')?;
        if hex(&hmac_sha256(&self.secret, body.as_bytes())) != mac {
            return None;
        }
        serde_json::from_slice(&unhex(body)?).ok()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

fn hmac_sha256(key: &[u8; 32], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(key);
    let inner_key: Vec<u8> = block.iter().map(|b| b ^ 0x36).collect();
    let outer_key: Vec<u8> = block.iter().map(|b| b ^ 0x5c).collect();
    let inner = Sha256::new()
        .chain_update(&inner_key)
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(&outer_key)
        .chain_update(inner)
        .finalize()
        .into()
}

fn typed<T: serde::de::DeserializeOwned>(value: Value) -> HandlerResult<T> {
    serde_json::from_value(value)
        .map_err(|e| errors::internal_error(format!("fixture built an invalid result: {e}")))
}

fn text(text: impl Into<String>) -> Value {
    json!({ "type": "text", "text": text.into() })
}

fn complete(content: Vec<Value>) -> HandlerResult<CallToolResultResponseResult> {
    typed(json!({ "resultType": "complete", "content": content }))
}

fn input_required(
    requests: Value,
    state: Option<String>,
) -> HandlerResult<CallToolResultResponseResult> {
    let mut result = json!({ "resultType": "input_required", "inputRequests": requests });
    if let (Some(state), Value::Object(o)) = (state, &mut result) {
        o.insert("requestState".into(), json!(state));
    }
    typed(result)
}

fn elicit(message: &str, property: &str, kind: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": { property: { "type": kind } },
                "required": [property],
            },
        },
    })
}

fn sample(prompt: &str, max_tokens: u32) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
            "maxTokens": max_tokens,
        },
    })
}

fn roots() -> Value {
    json!({ "method": "roots/list", "params": {} })
}

/// The tools of both eras, in listing order (`test_simple_text` first).
fn shared_tools() -> Vec<Value> {
    let empty = json!({ "type": "object", "properties": {} });
    let mut tools = vec![
        json!({"name":"test_simple_text","description":"Tests simple text content response","inputSchema":empty}),
        json!({"name":"test_image_content","description":"Tests image content response","inputSchema":empty}),
        json!({"name":"test_audio_content","description":"Tests audio content response","inputSchema":empty}),
        json!({"name":"test_embedded_resource","description":"Tests embedded resource content response","inputSchema":empty}),
        json!({"name":"test_multiple_content_types","description":"Tests response with multiple content types (text, image, resource)","inputSchema":empty}),
        json!({"name":"test_tool_with_logging","description":"Tests tool that emits log messages during execution","inputSchema":empty}),
        json!({"name":"test_tool_with_progress","description":"Tests tool that reports progress notifications","inputSchema":empty}),
        json!({"name":"test_error_handling","description":"Tests error response handling","inputSchema":empty}),
    ];
    tools.push(json!({
        "name": "json_schema_2020_12_tool",
        "description": "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
                }
            },
            "properties": {
                "name": { "type": "string" },
                "address": { "$ref": "#/$defs/address" },
                "contactMethod": { "type": "string", "enum": ["phone", "email"] },
                "phone": { "type": "string" },
                "email": { "type": "string" }
            },
            "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
            "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
            "then": { "required": ["phone"] },
            "else": { "required": ["email"] },
            "additionalProperties": false
        }
    }));
    tools
}

fn legacy_tools() -> Vec<Value> {
    let empty = json!({ "type": "object", "properties": {} });
    vec![
        json!({"name":"test_reconnection","description":"Tests SSE stream disconnection and client reconnection (SEP-1699)","inputSchema":empty}),
        json!({"name":"test_sampling","description":"Tests server-initiated sampling (LLM completion request)","inputSchema":{
            "type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}}),
        json!({"name":"test_elicitation","description":"Tests server-initiated elicitation (user input request)","inputSchema":{
            "type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}}),
        json!({"name":"test_elicitation_sep1034_defaults","description":"Tests elicitation with default values per SEP-1034","inputSchema":empty}),
        json!({"name":"test_elicitation_sep1330_enums","description":"Tests elicitation with enum schema improvements per SEP-1330","inputSchema":empty}),
    ]
}

fn modern_tools() -> Vec<Value> {
    let empty = json!({ "type": "object", "properties": {} });
    [
        ("test_missing_capability", "Test tool requiring sampling"),
        ("test_input_required_result_elicitation", "MRTR: returns InputRequiredResult with elicitation request"),
        ("test_input_required_result_sampling", "MRTR: returns InputRequiredResult with sampling request"),
        ("test_input_required_result_list_roots", "MRTR: returns InputRequiredResult with roots/list request"),
        ("test_input_required_result_request_state", "MRTR: returns InputRequiredResult with requestState"),
        ("test_input_required_result_multiple_inputs", "MRTR: returns InputRequiredResult with multiple input requests"),
        ("test_input_required_result_multi_round", "MRTR: multi-round InputRequiredResult workflow"),
        ("test_input_required_result_tampered_state", "MRTR: HMAC-signed requestState integrity test"),
        ("test_input_required_result_capabilities", "MRTR: respects client capabilities in inputRequests"),
        ("test_streaming_elicitation", "Diagnostic tool validating response progress streams"),
        ("test_logging_tool", "Diagnostic logging validator tool"),
    ]
    .into_iter()
    .map(|(name, description)| json!({ "name": name, "description": description, "inputSchema": empty }))
    .chain([json!({
        "name": "test_custom_header",
        "description": "Mirrors its region argument into the Mcp-Param-Region header (SEP-2243)",
        "inputSchema": {
            "type": "object",
            "properties": { "region": { "type": "string", "description": "A region name", "x-mcp-header": "Region" } }
        }
    })])
    .collect()
}

fn sep1034_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "User name", "default": "John Doe" },
            "age": { "type": "integer", "description": "User age", "default": 30 },
            "score": { "type": "number", "description": "User score", "default": 95.5 },
            "status": { "type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active" },
            "verified": { "type": "boolean", "description": "Verification status", "default": true }
        },
        "required": []
    })
}

fn sep1330_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": { "type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"] },
            "titledSingle": { "type": "string", "description": "Select one option with titles", "oneOf": [
                { "const": "value1", "title": "First Option" },
                { "const": "value2", "title": "Second Option" },
                { "const": "value3", "title": "Third Option" }
            ] },
            "legacyEnum": { "type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"] },
            "untitledMulti": { "type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
                "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
            "titledMulti": { "type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
                "items": { "anyOf": [
                    { "const": "value1", "title": "First Choice" },
                    { "const": "value2", "title": "Second Choice" },
                    { "const": "value3", "title": "Third Choice" }
                ] } }
        },
        "required": []
    })
}

fn elicit_with(message: &str, schema: Value) -> Value {
    json!({ "method": "elicitation/create", "params": { "message": message, "requestedSchema": schema } })
}

/// The answer to `key`, if the client sent one.
fn answer<'a>(responses: &'a Value, key: &str) -> Option<&'a Value> {
    responses.get(key).filter(|v| !v.is_null())
}

fn elicited<'a>(responses: &'a Value, key: &str, field: &str) -> Option<&'a Value> {
    answer(responses, key)?.get("content")?.get(field)
}

impl ToolsHandler for Everything {
    async fn list_tools(
        &self,
        _params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        let mut tools = shared_tools();
        if ctx.is_legacy() {
            tools.extend(legacy_tools());
        } else {
            tools.extend(modern_tools());
        }
        typed(
            json!({ "tools": tools, "ttlMs": ctx.cache_ttl_ms(), "cacheScope": ctx.cache_scope() }),
        )
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<CallToolResultResponseResult> {
        let args = Value::Object(params.arguments.clone().unwrap_or_default());
        let responses = serde_json::to_value(&params.input_responses).unwrap_or(Value::Null);
        let state = params.request_state.as_deref();
        let arg = |name: &str| {
            args.get(name)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        match params.name.as_str() {
            "test_simple_text" => {
                complete(vec![text("This is a simple text response for testing.")])
            }
            "test_image_content" => complete(vec![
                json!({"type":"image","data":IMG,"mimeType":"image/png"}),
            ]),
            "test_audio_content" => complete(vec![
                json!({"type":"audio","data":WAV,"mimeType":"audio/wav"}),
            ]),
            "test_embedded_resource" => complete(vec![json!({"type":"resource","resource":{
                "uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}})]),
            "test_multiple_content_types" => complete(vec![
                text("Multiple content types test:"),
                json!({"type":"image","data":IMG,"mimeType":"image/png"}),
                json!({"type":"resource","resource":{"uri":"test://mixed-content-resource","mimeType":"application/json",
                    "text": json!({"test":"data","value":123}).to_string()}}),
            ]),
            "test_tool_with_logging" => {
                ctx.log(LoggingLevel::Info, "Tool execution started");
                tokio::time::sleep(Duration::from_millis(50)).await;
                ctx.log(LoggingLevel::Info, "Tool processing data");
                tokio::time::sleep(Duration::from_millis(50)).await;
                ctx.log(LoggingLevel::Info, "Tool execution completed");
                complete(vec![text("Tool with logging executed successfully")])
            }
            "test_tool_with_progress" => {
                for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    ctx.progress(
                        step,
                        Some(100.0),
                        Some(&format!("Completed step {step} of 100")),
                    );
                }
                let token = match ctx.progress_token() {
                    Some(token) => serde_json::to_value(token)
                        .unwrap_or_default()
                        .to_string()
                        .trim_matches('"')
                        .to_owned(),
                    None => "0".to_owned(),
                };
                complete(vec![text(format!(
                    "Progress tool completed with token {token}"
                ))])
            }
            "test_error_handling" => typed(json!({"resultType":"complete","isError":true,
                "content":[text("This tool intentionally returns an error for testing")]})),
            "json_schema_2020_12_tool" => complete(vec![text(format!(
                "JSON Schema 2020-12 tool called with: {args}"
            ))]),
            "test_reconnection" => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                complete(vec![text(
                    "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.",
                )])
            }
            "test_sampling" => match answer(&responses, "sample") {
                Some(reply) => {
                    let reply_text = reply
                        .pointer("/content/text")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    complete(vec![text(format!("LLM response: {reply_text}"))])
                }
                None => input_required(json!({ "sample": sample(&arg("prompt"), 100) }), None),
            },
            "test_elicitation" => match answer(&responses, "response") {
                Some(reply) => complete(vec![text(format!(
                    "User response: action={}, content={}",
                    reply
                        .get("action")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    reply.get("content").cloned().unwrap_or_else(|| json!({}))
                ))]),
                None => input_required(
                    json!({ "response": elicit_with(&arg("message"), json!({
                        "type": "object",
                        "properties": { "response": { "type": "string", "description": "User's response" } },
                        "required": ["response"]
                    })) }),
                    None,
                ),
            },
            "test_elicitation_sep1034_defaults" | "test_elicitation_sep1330_enums" => {
                // Legacy only. Sent as a raw legacy request: the SEP-1330
                // titled multi-select does not survive the typed
                // `InputRequest` (mcp-types cannot tell it from the
                // untitled one).
                let (message, schema) = if params.name == "test_elicitation_sep1034_defaults" {
                    (
                        "Please review and update the form fields with defaults",
                        sep1034_schema(),
                    )
                } else {
                    (
                        "Please select options from the enum fields",
                        sep1330_schema(),
                    )
                };
                let reply = ctx
                    .legacy_request(
                        "elicitation/create",
                        json!({ "message": message, "requestedSchema": schema }),
                    )
                    .await?;
                complete(vec![text(format!(
                    "Elicitation completed: action={}, content={}",
                    reply
                        .get("action")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    reply.get("content").cloned().unwrap_or_else(|| json!({}))
                ))])
            }
            "test_missing_capability" => {
                ctx.require_client_capability("sampling")?;
                complete(vec![text("Success")])
            }
            "test_streaming_elicitation" => {
                ctx.progress(1.0, Some(1.0), Some("Streaming"));
                complete(vec![text("Streaming complete")])
            }
            "test_custom_header" => complete(vec![text(format!("Region: {}", arg("region")))]),
            "test_logging_tool" => {
                ctx.log(LoggingLevel::Info, "Diagnostic trace logging activated");
                complete(vec![text("Logging evaluated")])
            }
            "test_trigger_tool_change" => {
                if let Some(events) = ctx.events() {
                    events.tools_list_changed();
                }
                complete(vec![text("Mutation triggered")])
            }
            "test_trigger_prompt_change" => {
                if let Some(events) = ctx.events() {
                    events.prompts_list_changed();
                }
                complete(vec![text("Mutation triggered")])
            }
            "test_input_required_result_elicitation" => match answer(&responses, "user_name") {
                Some(reply) => {
                    if reply.get("action").is_none() {
                        return Err(errors::invalid_params(
                            "inputResponses.user_name must be an elicitation result",
                        ));
                    }
                    let name = elicited(&responses, "user_name", "name")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown");
                    complete(vec![text(format!("Hello, {name}!"))])
                }
                None => input_required(
                    json!({ "user_name": elicit("What is your name?", "name", "string") }),
                    None,
                ),
            },
            "test_input_required_result_sampling" => match answer(&responses, "sample_request") {
                Some(reply) => {
                    let reply_text = reply
                        .pointer("/content/text")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    complete(vec![text(format!("Sampling result: {reply_text}"))])
                }
                None => input_required(
                    json!({ "sample_request": sample("What is the capital of France?", 100) }),
                    None,
                ),
            },
            "test_input_required_result_list_roots" => match answer(&responses, "roots_request") {
                Some(reply) => {
                    let n = reply
                        .get("roots")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    complete(vec![text(format!("Found {n} root(s)"))])
                }
                None => input_required(json!({ "roots_request": roots() }), None),
            },
            "test_input_required_result_request_state" => {
                let valid = state
                    .and_then(|s| self.verify(s))
                    .is_some_and(|p| p["kind"] == "request-state");
                if valid && elicited(&responses, "confirm", "ok") == Some(&json!(true)) {
                    complete(vec![text("state-ok: requestState validated")])
                } else {
                    let state = self.sign(&json!({ "kind": "request-state" }));
                    input_required(
                        json!({ "confirm": elicit("Please confirm", "ok", "boolean") }),
                        Some(state),
                    )
                }
            }
            "test_input_required_result_multiple_inputs" => {
                let valid = state
                    .and_then(|s| self.verify(s))
                    .is_some_and(|p| p["kind"] == "multiple-inputs");
                let all = ["user_name", "greeting", "client_roots"]
                    .iter()
                    .all(|k| answer(&responses, k).is_some());
                if valid && all {
                    let name = elicited(&responses, "user_name", "name")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown");
                    let greeting = responses
                        .pointer("/greeting/content/text")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let n = responses
                        .pointer("/client_roots/roots")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    complete(vec![text(format!(
                        "Name: {name}; Greeting: {greeting}; Roots: {n}"
                    ))])
                } else {
                    input_required(
                        json!({
                            "user_name": elicit("What is your name?", "name", "string"),
                            "greeting": sample("Generate a greeting", 50),
                            "client_roots": roots(),
                        }),
                        Some(self.sign(&json!({ "kind": "multiple-inputs" }))),
                    )
                }
            }
            "test_input_required_result_multi_round" => {
                let payload = state.and_then(|s| self.verify(s));
                let round = payload
                    .as_ref()
                    .and_then(|p| p.get("round"))
                    .and_then(Value::as_u64);
                match (round, payload) {
                    (Some(1), _) if answer(&responses, "step1").is_some() => {
                        let name = elicited(&responses, "step1", "name")
                            .and_then(Value::as_str)
                            .unwrap_or("unknown");
                        input_required(
                            json!({ "step2": elicit("Step 2: What is your favorite color?", "color", "string") }),
                            Some(
                                self.sign(
                                    &json!({ "kind": "multi-round", "round": 2, "name": name }),
                                ),
                            ),
                        )
                    }
                    (Some(2), Some(payload)) if answer(&responses, "step2").is_some() => {
                        let name = payload
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("unknown");
                        let color = elicited(&responses, "step2", "color")
                            .and_then(Value::as_str)
                            .unwrap_or("unknown");
                        complete(vec![text(format!(
                            "Multi-round complete for {name} who likes {color}"
                        ))])
                    }
                    _ => input_required(
                        json!({ "step1": elicit("Step 1: What is your name?", "name", "string") }),
                        Some(self.sign(&json!({ "kind": "multi-round", "round": 1 }))),
                    ),
                }
            }
            "test_input_required_result_tampered_state" => match state {
                Some(state) => match self.verify(state) {
                    Some(p)
                        if p["kind"] == "tamper-test"
                            && answer(&responses, "confirm").is_some() =>
                    {
                        complete(vec![text("integrity-ok: state verified")])
                    }
                    Some(p) if p["kind"] == "tamper-test" => input_required(
                        json!({ "confirm": elicit("Please confirm", "ok", "boolean") }),
                        Some(state.to_owned()),
                    ),
                    _ => Err(errors::invalid_params(
                        "requestState integrity check failed",
                    )),
                },
                None => input_required(
                    json!({ "confirm": elicit("Please confirm", "ok", "boolean") }),
                    Some(self.sign(&json!({ "kind": "tamper-test" }))),
                ),
            },
            "test_input_required_result_capabilities" => {
                if let Some(received) = responses.as_object().filter(|r| !r.is_empty()) {
                    let keys: Vec<&str> = received.keys().map(String::as_str).collect();
                    return complete(vec![text(format!(
                        "capabilities-ok: received {}",
                        keys.join(",")
                    ))]);
                }
                let mut requests = Map::new();
                if ctx.has_client_capability("elicitation") {
                    requests.insert(
                        "elicit_input".into(),
                        elicit("Elicitation input", "value", "string"),
                    );
                }
                if ctx.has_client_capability("sampling") {
                    requests.insert("sample_input".into(), sample("Sample request", 50));
                }
                if requests.is_empty() {
                    complete(vec![text("No supported capabilities declared")])
                } else {
                    input_required(
                        Value::Object(requests),
                        Some(self.sign(&json!({ "kind": "capabilities" }))),
                    )
                }
            }
            other => Err(errors::invalid_params(format!("Unknown tool: {other}"))),
        }
    }
}

fn resources(modern: bool) -> Vec<Value> {
    let mut list = vec![
        json!({"uri":"test://static-text","name":"static-text","title":"Static Text Resource",
            "description":"A static text resource for testing","mimeType":"text/plain"}),
        json!({"uri":"test://static-binary","name":"static-binary","title":"Static Binary Resource",
            "description":"A static binary resource (image) for testing","mimeType":"image/png"}),
        json!({"uri":"test://watched-resource","name":"watched-resource","title":"Watched Resource",
            "description":"A resource that auto-updates every 3 seconds","mimeType":"text/plain"}),
    ];
    if modern {
        list.push(json!({"uri":"test://stateless-static-text","name":"Stateless Static Text",
            "description":"A static text resource served on the draft path","mimeType":"text/plain"}));
    }
    list
}

impl ResourcesHandler for Everything {
    async fn list_resources(
        &self,
        _params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourcesResult> {
        typed(
            json!({ "resources": resources(!ctx.is_legacy()), "ttlMs": ctx.cache_ttl_ms(), "cacheScope": ctx.cache_scope() }),
        )
    }

    async fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        _ctx: &RequestContext,
    ) -> HandlerResult<ReadResourceResultResponseResult> {
        let uri = params.uri.as_str();
        let item = match uri {
            "test://static-text" => {
                json!({"uri":uri,"mimeType":"text/plain","text":"This is the content of the static text resource."})
            }
            "test://static-binary" => json!({"uri":uri,"mimeType":"image/png","blob":IMG}),
            "test://watched-resource" => {
                json!({"uri":uri,"mimeType":"text/plain","text":"Watched resource content"})
            }
            "test://stateless-static-text" => {
                json!({"uri":uri,"mimeType":"text/plain","text":"Static text content from the stateless draft path."})
            }
            _ => match uri
                .strip_prefix("test://template/")
                .and_then(|r| r.strip_suffix("/data"))
            {
                Some(id) if !id.is_empty() && !id.contains('/') => {
                    json!({"uri":uri,"mimeType":"application/json",
                    "text": json!({"id":id,"templateTest":true,"data":format!("Data for ID: {id}")}).to_string()})
                }
                _ => return Err(errors::resource_not_found(uri)),
            },
        };
        typed(
            json!({ "resultType": "complete", "contents": [item], "ttlMs": 300_000, "cacheScope": "private" /* overrides the declared public default */ }),
        )
    }

    async fn list_resource_templates(
        &self,
        _params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourceTemplatesResult> {
        typed(json!({
            "resourceTemplates": [{"name":"template","uriTemplate":"test://template/{id}/data","title":"Resource Template",
                "description":"A resource template with parameter substitution","mimeType":"application/json"}],
            "ttlMs": ctx.cache_ttl_ms(), "cacheScope": ctx.cache_scope()
        }))
    }
}

impl PromptsHandler for Everything {
    async fn list_prompts(
        &self,
        _params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListPromptsResult> {
        let mut prompts = vec![
            json!({"name":"test_simple_prompt","title":"Simple Test Prompt","description":"A simple prompt without arguments"}),
            json!({"name":"test_prompt_with_arguments","title":"Prompt With Arguments","description":"A prompt with required arguments",
                "arguments":[{"name":"arg1","description":"First test argument","required":true},
                             {"name":"arg2","description":"Second test argument","required":true}]}),
            json!({"name":"test_prompt_with_embedded_resource","title":"Prompt With Embedded Resource",
                "description":"A prompt that includes an embedded resource",
                "arguments":[{"name":"resourceUri","description":"URI of the resource to embed","required":true}]}),
            json!({"name":"test_prompt_with_image","title":"Prompt With Image","description":"A prompt that includes image content"}),
        ];
        if !ctx.is_legacy() {
            prompts.push(json!({"name":"test_input_required_result_prompt","description":"MRTR: prompt that requires elicitation input"}));
        }
        typed(
            json!({ "prompts": prompts, "ttlMs": ctx.cache_ttl_ms(), "cacheScope": ctx.cache_scope() }),
        )
    }

    async fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        _ctx: &RequestContext,
    ) -> HandlerResult<GetPromptResultResponseResult> {
        let args = params.arguments.clone().unwrap_or_default();
        let arg = |name: &str| args.get(name).cloned().unwrap_or_default();
        let user = |content: Value| json!({ "role": "user", "content": content });
        let messages = match params.name.as_str() {
            "test_simple_prompt" => vec![user(text("This is a simple prompt for testing."))],
            "test_prompt_with_arguments" => vec![user(text(format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                arg("arg1"),
                arg("arg2")
            )))],
            "test_prompt_with_embedded_resource" => vec![
                user(
                    json!({"type":"resource","resource":{"uri":arg("resourceUri"),"mimeType":"text/plain",
                    "text":"Embedded resource content for testing."}}),
                ),
                user(text("Please process the embedded resource above.")),
            ],
            "test_prompt_with_image" => vec![
                user(json!({"type":"image","data":IMG,"mimeType":"image/png"})),
                user(text("Please analyze the image above.")),
            ],
            "test_input_required_result_prompt" => {
                let responses =
                    serde_json::to_value(&params.input_responses).unwrap_or(Value::Null);
                match elicited(&responses, "user_context", "context").and_then(Value::as_str) {
                    Some(context) => vec![user(text(format!("Prompt with context: {context}")))],
                    None => {
                        return typed(json!({
                            "resultType": "input_required",
                            "inputRequests": { "user_context": elicit("What context should the prompt use?", "context", "string") },
                        }));
                    }
                }
            }
            other => return Err(errors::invalid_params(format!("Unknown prompt: {other}"))),
        };
        typed(json!({ "resultType": "complete", "messages": messages }))
    }
}

impl CompletionsHandler for Everything {
    async fn complete(
        &self,
        params: CompleteRequestParams,
        _ctx: &RequestContext,
    ) -> HandlerResult<CompleteResult> {
        let prefix = params.argument.value.clone();
        let values: Vec<String> = ["test", "testValue1", "testValue2"]
            .iter()
            .filter(|v| v.starts_with(prefix.as_str()))
            .map(|v| (*v).to_owned())
            .collect();
        let total = values.len();
        typed(json!({ "completion": { "values": values, "total": total, "hasMore": false } }))
    }
}
