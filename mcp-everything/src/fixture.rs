//! The fixture server: every tool, resource and prompt the official
//! conformance suite calls (names and exact outputs from
//! `docs/conformance-fixture.md` §5–§6), served in both eras by one
//! `#[mcp_server::router]` catalogue (the same lists in both eras).
//!
//! Server→client interaction is written once, MRTR style: a tool that needs
//! input returns `input_required`; a modern client answers with a retry,
//! and in a legacy session the runtime sends the input requests as real
//! requests and calls the tool again (see `mcp_server`'s legacy bridge).

use std::borrow::Cow;
use std::time::Duration;

use mcp_server::mcp_types::v2026_07_28::prelude::*;
use mcp_server::schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use mcp_server::{
    Arguments, CompletionsHandler, HandlerResult, Json, McpServer, RequestContext, ResourceRequest,
    RetryInput, ToolError, errors, router,
};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

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
    extension("io.modelcontextprotocol/tasks"),
    versions(legacy = ["2025-11-25"]),
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

    /// The payload of the retry's `requestState` if this server signed it
    /// and its `kind` is `kind`.
    fn state_of(&self, retry: &RetryInput, kind: &str) -> Option<Value> {
        let payload = self.verify(retry.state.as_deref()?)?;
        (payload["kind"] == kind).then_some(payload)
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

/// What a tool that may ask for input, or fail with a JSON-RPC error,
/// answers.
type Answer = Result<CallToolResultResponseResult, ToolError>;

/// A complete result with one text block.
fn done(text: impl Into<String>) -> Answer {
    Ok(CallToolResult::text(text).into())
}

/// An `input_required` result asking `requests` (built as JSON), with an
/// optional `requestState`.
fn ask(requests: Value, state: Option<String>) -> Answer {
    let requests: InputRequests = serde_json::from_value(requests).map_err(|e| {
        errors::internal_error(format!("fixture built invalid input requests: {e}"))
    })?;
    let mut result = InputRequiredResult::new().with_input_requests(requests);
    result.request_state = state;
    Ok(result.into())
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

/// A retry's answers as JSON, for reading nested fields.
fn responses(retry: &RetryInput) -> Value {
    serde_json::to_value(&retry.responses).unwrap_or(Value::Null)
}

/// The answer to `key`, if the client sent one.
fn answer<'a>(responses: &'a Value, key: &str) -> Option<&'a Value> {
    responses.get(key).filter(|v| !v.is_null())
}

fn elicited<'a>(responses: &'a Value, key: &str, field: &str) -> Option<&'a Value> {
    answer(responses, key)?.get("content")?.get(field)
}

/// `action=…, content=…` of an elicitation reply.
fn elicitation_summary(reply: &Value) -> String {
    format!(
        "action={}, content={}",
        reply
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or_default(),
        reply.get("content").cloned().unwrap_or_else(|| json!({}))
    )
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

/// The arguments of `json_schema_2020_12_tool`: any object, echoed back.
/// Its schema exercises JSON Schema 2020-12 keywords (`$defs`, `$anchor`,
/// `if`/`then`/`else`) that no derived schema produces, so it is written
/// out as the suite expects it (SEP-1613).
#[derive(serde::Deserialize)]
#[serde(transparent)]
struct Sep1613Arguments(Arguments);

impl JsonSchema for Sep1613Arguments {
    fn schema_name() -> Cow<'static, str> {
        "Sep1613Arguments".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
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
        })
    }
}

/// A note: a title and its text
#[derive(serde::Serialize, JsonSchema)]
#[schemars(crate = "mcp_server::schemars")]
struct Note {
    /// The note's title
    title: String,
    /// The note's text
    body: String,
}

const NOTES: [(&str, &str); 2] = [
    ("Shopping", "Milk, bread and tea"),
    ("Meeting", "Thursday at 10:00"),
];

#[router]
impl Everything {
    // ---- tools (`test_simple_text` first: http-header-validation calls
    // `tools[0]` with `{}`) ------------------------------------------------

    /// Tests simple text content response
    #[tool]
    fn test_simple_text(&self) -> &'static str {
        "This is a simple text response for testing."
    }

    /// Tests image content response
    #[tool]
    fn test_image_content(&self) -> ContentBlock {
        ContentBlock::image_from_base64(IMG, "image/png")
    }

    /// Tests audio content response
    #[tool]
    fn test_audio_content(&self) -> ContentBlock {
        ContentBlock::audio_from_base64(WAV, "audio/wav")
    }

    /// Tests embedded resource content response
    #[tool]
    fn test_embedded_resource(&self) -> ContentBlock {
        ContentBlock::embedded(
            TextResourceContents::from_uri_and_text(
                "test://embedded-resource",
                "This is an embedded resource content.",
            )
            .with_mime_type("text/plain"),
        )
    }

    /// Tests response with multiple content types (text, image, resource)
    #[tool]
    fn test_multiple_content_types(&self) -> Vec<ContentBlock> {
        vec![
            ContentBlock::text("Multiple content types test:"),
            ContentBlock::image_from_base64(IMG, "image/png"),
            ContentBlock::embedded(
                TextResourceContents::from_uri_and_text(
                    "test://mixed-content-resource",
                    json!({"test":"data","value":123}).to_string(),
                )
                .with_mime_type("application/json"),
            ),
        ]
    }

    /// Tests tool that emits log messages during execution
    #[tool]
    async fn test_tool_with_logging(&self, ctx: &RequestContext) -> &'static str {
        ctx.log(LoggingLevel::Info, "Tool execution started");
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.log(LoggingLevel::Info, "Tool processing data");
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.log(LoggingLevel::Info, "Tool execution completed");
        "Tool with logging executed successfully"
    }

    /// Tests tool that reports progress notifications
    #[tool]
    async fn test_tool_with_progress(&self, ctx: &RequestContext) -> String {
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
        format!("Progress tool completed with token {token}")
    }

    /// Tests error response handling
    #[tool]
    fn test_error_handling(&self) -> CallToolResult {
        CallToolResult::error("This tool intentionally returns an error for testing")
    }

    /// Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)
    #[tool]
    fn json_schema_2020_12_tool(&self, #[arguments] args: Sep1613Arguments) -> String {
        format!(
            "JSON Schema 2020-12 tool called with: {}",
            Value::Object(args.0)
        )
    }

    /// Tests SSE stream disconnection and client reconnection (SEP-1699)
    #[tool]
    async fn test_reconnection(&self) -> &'static str {
        tokio::time::sleep(Duration::from_millis(100)).await;
        "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."
    }

    /// Tests server-initiated sampling (LLM completion request)
    #[tool]
    fn test_sampling(
        &self,
        #[arg(description = "The prompt to send to the LLM")] prompt: String,
        retry: &RetryInput,
    ) -> Answer {
        match answer(&responses(retry), "sample") {
            Some(reply) => done(format!(
                "LLM response: {}",
                reply
                    .pointer("/content/text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            )),
            None => ask(json!({ "sample": sample(&prompt, 100) }), None),
        }
    }

    /// Tests server-initiated elicitation (user input request)
    #[tool]
    fn test_elicitation(
        &self,
        #[arg(description = "The message to show the user")] message: String,
        retry: &RetryInput,
    ) -> Answer {
        match answer(&responses(retry), "response") {
            Some(reply) => done(format!("User response: {}", elicitation_summary(reply))),
            None => ask(
                json!({ "response": { "method": "elicitation/create", "params": {
                    "message": message,
                    "requestedSchema": {
                        "type": "object",
                        "properties": { "response": { "type": "string", "description": "User's response" } },
                        "required": ["response"]
                    },
                } } }),
                None,
            ),
        }
    }

    /// Tests elicitation with default values per SEP-1034
    #[tool]
    async fn test_elicitation_sep1034_defaults(
        &self,
        ctx: &RequestContext,
    ) -> Result<String, ToolError> {
        legacy_elicitation(
            ctx,
            "Please review and update the form fields with defaults",
            sep1034_schema(),
        )
        .await
    }

    /// Tests elicitation with enum schema improvements per SEP-1330
    #[tool]
    async fn test_elicitation_sep1330_enums(
        &self,
        ctx: &RequestContext,
    ) -> Result<String, ToolError> {
        legacy_elicitation(
            ctx,
            "Please select options from the enum fields",
            sep1330_schema(),
        )
        .await
    }

    /// Test tool requiring sampling
    #[tool]
    fn test_missing_capability(&self, ctx: &RequestContext) -> Result<&'static str, ToolError> {
        ctx.require_client_capability("sampling")?;
        Ok("Success")
    }

    /// MRTR: returns InputRequiredResult with elicitation request
    #[tool]
    fn test_input_required_result_elicitation(&self, retry: &RetryInput) -> Answer {
        let responses = responses(retry);
        match answer(&responses, "user_name") {
            Some(reply) if reply.get("action").is_none() => Err(errors::invalid_params(
                "inputResponses.user_name must be an elicitation result",
            )
            .into()),
            Some(_) => done(format!(
                "Hello, {}!",
                elicited(&responses, "user_name", "name")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown")
            )),
            None => ask(
                json!({ "user_name": elicit("What is your name?", "name", "string") }),
                None,
            ),
        }
    }

    /// MRTR: returns InputRequiredResult with sampling request
    #[tool]
    fn test_input_required_result_sampling(&self, retry: &RetryInput) -> Answer {
        match answer(&responses(retry), "sample_request") {
            Some(reply) => done(format!(
                "Sampling result: {}",
                reply
                    .pointer("/content/text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            )),
            None => ask(
                json!({ "sample_request": sample("What is the capital of France?", 100) }),
                None,
            ),
        }
    }

    /// MRTR: returns InputRequiredResult with roots/list request
    #[tool]
    fn test_input_required_result_list_roots(&self, retry: &RetryInput) -> Answer {
        match answer(&responses(retry), "roots_request") {
            Some(reply) => {
                let n = reply
                    .get("roots")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                done(format!("Found {n} root(s)"))
            }
            None => ask(json!({ "roots_request": roots() }), None),
        }
    }

    /// MRTR: returns InputRequiredResult with requestState
    #[tool]
    fn test_input_required_result_request_state(&self, retry: &RetryInput) -> Answer {
        let valid = self.state_of(retry, "request-state").is_some();
        if valid && elicited(&responses(retry), "confirm", "ok") == Some(&json!(true)) {
            done("state-ok: requestState validated")
        } else {
            ask(
                json!({ "confirm": elicit("Please confirm", "ok", "boolean") }),
                Some(self.sign(&json!({ "kind": "request-state" }))),
            )
        }
    }

    /// MRTR: returns InputRequiredResult with multiple input requests
    #[tool]
    fn test_input_required_result_multiple_inputs(&self, retry: &RetryInput) -> Answer {
        let responses = responses(retry);
        let valid = self.state_of(retry, "multiple-inputs").is_some();
        let all = ["user_name", "greeting", "client_roots"]
            .iter()
            .all(|k| answer(&responses, k).is_some());
        if !(valid && all) {
            return ask(
                json!({
                    "user_name": elicit("What is your name?", "name", "string"),
                    "greeting": sample("Generate a greeting", 50),
                    "client_roots": roots(),
                }),
                Some(self.sign(&json!({ "kind": "multiple-inputs" }))),
            );
        }
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
        done(format!("Name: {name}; Greeting: {greeting}; Roots: {n}"))
    }

    /// MRTR: multi-round InputRequiredResult workflow
    #[tool]
    fn test_input_required_result_multi_round(&self, retry: &RetryInput) -> Answer {
        let responses = responses(retry);
        let payload = self.state_of(retry, "multi-round");
        let round = payload
            .as_ref()
            .and_then(|p| p.get("round"))
            .and_then(Value::as_u64);
        match (round, payload) {
            (Some(1), _) if answer(&responses, "step1").is_some() => {
                let name = elicited(&responses, "step1", "name")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown");
                ask(
                    json!({ "step2": elicit("Step 2: What is your favorite color?", "color", "string") }),
                    Some(self.sign(&json!({ "kind": "multi-round", "round": 2, "name": name }))),
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
                done(format!("Multi-round complete for {name} who likes {color}"))
            }
            _ => ask(
                json!({ "step1": elicit("Step 1: What is your name?", "name", "string") }),
                Some(self.sign(&json!({ "kind": "multi-round", "round": 1 }))),
            ),
        }
    }

    /// MRTR: HMAC-signed requestState integrity test
    #[tool]
    fn test_input_required_result_tampered_state(&self, retry: &RetryInput) -> Answer {
        let confirm = || json!({ "confirm": elicit("Please confirm", "ok", "boolean") });
        let Some(state) = &retry.state else {
            return ask(
                confirm(),
                Some(self.sign(&json!({ "kind": "tamper-test" }))),
            );
        };
        if self.state_of(retry, "tamper-test").is_none() {
            return Err(errors::invalid_params("requestState integrity check failed").into());
        }
        if retry.response("confirm").is_some() {
            done("integrity-ok: state verified")
        } else {
            ask(confirm(), Some(state.clone()))
        }
    }

    /// MRTR: respects client capabilities in inputRequests
    #[tool]
    fn test_input_required_result_capabilities(
        &self,
        retry: &RetryInput,
        ctx: &RequestContext,
    ) -> Answer {
        if !retry.responses.is_empty() {
            let keys: Vec<&str> = retry.responses.keys().map(String::as_str).collect();
            return done(format!("capabilities-ok: received {}", keys.join(",")));
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
            done("No supported capabilities declared")
        } else {
            ask(
                Value::Object(requests),
                Some(self.sign(&json!({ "kind": "capabilities" }))),
            )
        }
    }

    /// Diagnostic tool validating response progress streams
    #[tool]
    fn test_streaming_elicitation(&self, ctx: &RequestContext) -> &'static str {
        ctx.progress(1.0, Some(1.0), Some("Streaming"));
        "Streaming complete"
    }

    /// Diagnostic logging validator tool
    #[tool]
    fn test_logging_tool(&self, ctx: &RequestContext) -> &'static str {
        ctx.log(LoggingLevel::Info, "Diagnostic trace logging activated");
        "Logging evaluated"
    }

    /// Mirrors its region argument into the Mcp-Param-Region header (SEP-2243)
    #[tool]
    fn test_custom_header(
        &self,
        #[arg(description = "A region name", header = "Region")] region: Option<String>,
    ) -> String {
        format!("Region: {}", region.unwrap_or_default())
    }

    /// Announces `notifications/tools/list_changed` to listening clients
    #[tool]
    fn test_trigger_tool_change(&self, ctx: &RequestContext) -> &'static str {
        if let Some(events) = ctx.events() {
            events.tools_list_changed();
        }
        "Mutation triggered"
    }

    /// Announces `notifications/prompts/list_changed` to listening clients
    #[tool]
    fn test_trigger_prompt_change(&self, ctx: &RequestContext) -> &'static str {
        if let Some(events) = ctx.events() {
            events.prompts_list_changed();
        }
        "Mutation triggered"
    }

    // ---- tasks extension (the `tasks-*` scenarios) ------------------------

    /// Greets by name (synchronous, never a task)
    #[tool]
    fn greet(&self, #[arg(description = "Who to greet")] name: String) -> String {
        format!("Hello, {name}!")
    }

    /// Sleeps `seconds`, then reports; a task when the client allows it
    #[tool(task = "optional")]
    async fn slow_compute(
        &self,
        #[arg(description = "How long to work, in seconds")] seconds: f64,
        #[arg(description = "A label echoed in the result")] label: Option<String>,
    ) -> Result<String, ToolError> {
        let millis = (seconds.clamp(0.0, 3600.0) * 1000.0).round();
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "clamped to 0..=3 600 000"
        )]
        let millis = millis as u64;
        if millis > 0 {
            tokio::time::sleep(Duration::from_millis(millis)).await;
        }
        let label = label.unwrap_or_default();
        Ok(format!("Computed {label} in {seconds} s"))
    }

    /// Fails with a tool error after about a second (a task, required)
    #[tool(task = "required")]
    async fn failing_job(&self) -> CallToolResult {
        tokio::time::sleep(Duration::from_secs(1)).await;
        CallToolResult::error("The job failed: the input could not be processed")
    }

    /// Ends in a JSON-RPC error after about 200 ms (a task when allowed)
    #[tool(task = "optional")]
    async fn protocol_error_job(&self) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_millis(200)).await;
        Err(errors::internal_error("The job hit an internal error").into())
    }

    /// Asks for confirmation (key `confirm`) before deleting a file (a task when allowed)
    #[tool(task = "optional")]
    async fn confirm_delete(
        &self,
        #[arg(description = "The file to delete")] filename: String,
        retry: &RetryInput,
        ctx: &RequestContext,
    ) -> Answer {
        ctx.continue_as_task().await;
        let responses = responses(retry);
        match answer(&responses, "confirm") {
            Some(reply) => {
                let accepted = reply.get("action").and_then(Value::as_str) == Some("accept")
                    && elicited(&responses, "confirm", "confirm") == Some(&json!(true));
                done(if accepted {
                    format!("Deleted {filename}")
                } else {
                    format!("Kept {filename}")
                })
            }
            None => ask(
                json!({ "confirm": elicit(&format!("Delete {filename}?"), "confirm", "boolean") }),
                None,
            ),
        }
    }

    /// Asks two questions at once (keys `input-a`, `input-b`; a task when allowed)
    #[tool(task = "optional")]
    async fn multi_input(&self, retry: &RetryInput, ctx: &RequestContext) -> Answer {
        ctx.continue_as_task().await;
        let responses = responses(retry);
        let keys = ["input-a", "input-b"];
        if keys.iter().all(|k| answer(&responses, k).is_some()) {
            let text = keys
                .iter()
                .map(|k| {
                    let reply = answer(&responses, k).cloned().unwrap_or_default();
                    format!("{k}: {}", elicitation_summary(&reply))
                })
                .collect::<Vec<_>>()
                .join("; ");
            return done(text);
        }
        ask(
            json!({
                "input-a": elicit("First input", "name", "string"),
                "input-b": elicit("Second input", "name", "string"),
            }),
            None,
        )
    }

    /// MRTR for `user_name`, then a task that greets (task required)
    #[tool(task = "required")]
    async fn test_tool_with_task(&self, retry: &RetryInput, ctx: &RequestContext) -> Answer {
        let responses = responses(retry);
        let Some(name) = elicited(&responses, "user_name", "name").and_then(Value::as_str) else {
            ctx.require_client_capability("elicitation")?;
            return ask(
                json!({ "user_name": elicit("What is your name?", "name", "string") }),
                None,
            );
        };
        let greeting = format!("Hello, {name}! (async)");
        ctx.continue_as_task().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        done(greeting)
    }

    // ---- structured output whose root is not an object (a 2025-11-25
    // session gets the text block only; see `mcp_server::legacy_result`) -

    /// Lists notes as structured output: a JSON array of {title, body}
    #[tool]
    fn list_notes(
        &self,
        #[arg(description = "Only notes whose title contains this text")] title: Option<String>,
    ) -> Json<Vec<Note>> {
        let wanted = title.unwrap_or_default();
        Json(
            NOTES
                .iter()
                .filter(|(title, _)| title.contains(wanted.as_str()))
                .map(|(title, body)| Note {
                    title: (*title).to_owned(),
                    body: (*body).to_owned(),
                })
                .collect(),
        )
    }

    // ---- OAuth (interop/server-peers.sh: per-tool step-up; without
    // --oauth-* the scope is declared but nothing checks it) ---------------

    /// Needs scope mcp:write besides the server-wide ones (OAuth step-up test)
    #[tool(scopes = ["mcp:write"])]
    fn test_scoped_write(&self) -> &'static str {
        "Scoped write done"
    }

    // ---- resources (the first listed is read by the `caching` scenario;
    // reads are `private`, overriding the declared `public` default) ------

    /// A static text resource for testing
    #[resource(
        uri = "test://static-text",
        name = "static-text",
        title = "Static Text Resource",
        mime_type = "text/plain",
        cache(ttl_ms = 300000, scope = "private")
    )]
    fn static_text(&self) -> String {
        "This is the content of the static text resource.".into()
    }

    /// A static binary resource (image) for testing
    #[resource(
        uri = "test://static-binary",
        name = "static-binary",
        title = "Static Binary Resource",
        mime_type = "image/png",
        cache(ttl_ms = 300000, scope = "private")
    )]
    fn static_binary(&self, request: &ResourceRequest) -> BlobResourceContents {
        BlobResourceContents::from_uri_and_blob(request.uri.clone(), IMG)
            .with_mime_type("image/png")
    }

    /// A resource that auto-updates every 3 seconds
    #[resource(
        uri = "test://watched-resource",
        name = "watched-resource",
        title = "Watched Resource",
        mime_type = "text/plain",
        cache(ttl_ms = 300000, scope = "private")
    )]
    fn watched_resource(&self) -> String {
        "Watched resource content".into()
    }

    /// A static text resource served on the draft path
    #[resource(
        uri = "test://stateless-static-text",
        name = "Stateless Static Text",
        mime_type = "text/plain",
        cache(ttl_ms = 300000, scope = "private")
    )]
    fn stateless_static_text(&self) -> String {
        "Static text content from the stateless draft path.".into()
    }

    /// A resource template with parameter substitution
    #[resource(
        template = "test://template/{id}/data",
        name = "template",
        title = "Resource Template",
        mime_type = "application/json",
        cache(ttl_ms = 300000, scope = "private")
    )]
    fn template(&self, id: String) -> String {
        json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
    }

    // ---- prompts ---------------------------------------------------------

    /// A simple prompt without arguments
    #[prompt(title = "Simple Test Prompt")]
    fn test_simple_prompt(&self) -> PromptMessage {
        PromptMessage::user("This is a simple prompt for testing.")
    }

    /// A prompt with required arguments
    #[prompt(title = "Prompt With Arguments")]
    fn test_prompt_with_arguments(
        &self,
        #[arg(description = "First test argument")] arg1: String,
        #[arg(description = "Second test argument")] arg2: String,
    ) -> String {
        format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
    }

    /// A prompt that includes an embedded resource
    #[prompt(title = "Prompt With Embedded Resource")]
    fn test_prompt_with_embedded_resource(
        &self,
        #[arg(name = "resourceUri", description = "URI of the resource to embed")]
        resource_uri: String,
    ) -> Vec<PromptMessage> {
        let embedded = TextResourceContents::from_uri_and_text(
            resource_uri,
            "Embedded resource content for testing.",
        )
        .with_mime_type("text/plain");
        vec![
            PromptMessage::user(ContentBlock::embedded(embedded)),
            PromptMessage::user("Please process the embedded resource above."),
        ]
    }

    /// A prompt that includes image content
    #[prompt(title = "Prompt With Image")]
    fn test_prompt_with_image(&self) -> Vec<PromptMessage> {
        vec![
            PromptMessage::user(ContentBlock::image_from_base64(IMG, "image/png")),
            PromptMessage::user("Please analyze the image above."),
        ]
    }

    /// MRTR: prompt that requires elicitation input
    #[prompt]
    fn test_input_required_result_prompt(
        &self,
        retry: &RetryInput,
    ) -> HandlerResult<GetPromptResultResponseResult> {
        let responses = responses(retry);
        match elicited(&responses, "user_context", "context").and_then(Value::as_str) {
            Some(context) => Ok(GetPromptResult::new(vec![PromptMessage::user(format!(
                "Prompt with context: {context}"
            ))])
            .into()),
            None => {
                let requests = json!({ "user_context": elicit("What context should the prompt use?", "context", "string") });
                let requests: InputRequests = serde_json::from_value(requests).map_err(|e| {
                    errors::internal_error(format!("fixture built invalid input requests: {e}"))
                })?;
                Ok(InputRequiredResult::new()
                    .with_input_requests(requests)
                    .into())
            }
        }
    }
}

/// Sends one legacy `elicitation/create` with `schema` and reports the
/// reply. Sent raw: the SEP-1330 titled multi-select does not survive the
/// typed `InputRequest` (mcp-types cannot tell it from the untitled one),
/// so these two tools work in legacy sessions only.
async fn legacy_elicitation(
    ctx: &RequestContext,
    message: &str,
    schema: Value,
) -> Result<String, ToolError> {
    let reply = ctx
        .legacy_request(
            "elicitation/create",
            json!({ "message": message, "requestedSchema": schema }),
        )
        .await?;
    Ok(format!(
        "Elicitation completed: {}",
        elicitation_summary(&reply)
    ))
}

impl CompletionsHandler for Everything {
    async fn complete(
        &self,
        params: CompleteRequestParams,
        _ctx: &RequestContext,
    ) -> HandlerResult<CompleteResult> {
        let prefix = params.argument.value.as_str();
        let values: Vec<String> = ["test", "testValue1", "testValue2"]
            .iter()
            .filter(|v| v.starts_with(prefix))
            .map(|v| (*v).to_owned())
            .collect();
        let total = values.len();
        serde_json::from_value(
            json!({ "completion": { "values": values, "total": total, "hasMore": false } }),
        )
        .map_err(|e| errors::internal_error(format!("fixture built an invalid result: {e}")))
    }
}
