//! The fixture server: every tool, resource and prompt the official
//! conformance suite calls (names and exact outputs from
//! `docs/conformance-fixture.md` §5–§6), served in both eras by one
//! `#[mcp_era_server::router]` catalogue (the same lists in both eras).
//!
//! Server→client interaction is written once, MRTR style: a tool that needs
//! input returns `input_required`; a modern client answers with a retry,
//! and in a legacy session the runtime sends the input requests as real
//! requests and calls the tool again (see `mcp_era_server`'s legacy bridge).

use std::borrow::Cow;
use std::time::Duration;

use mcp_era_server::mcp_era_types::v2026_07_28::prelude::*;
use mcp_era_server::schemars::{self, JsonSchema, Schema, SchemaGenerator, json_schema};
use mcp_era_server::{
    Arguments, Elicitation, InputRequired, Json, McpServer, PromptAnswer, RequestContext,
    ResourceRequest, RetryInput, ToolAnswer, ToolError, errors, input, router,
};
use serde_json::{Map, Value, json};

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
    logging,
    extension("io.modelcontextprotocol/tasks"),
    extension("io.modelcontextprotocol/skills" = { "directoryRead": true }),
    versions(legacy = ["2025-11-25"]),
    discover(ttl_ms = 0, scope = "private"),
    cache(ttl_ms = 300000, scope = "public")
)]
pub struct Everything {
    // Built by `new`, which installs the skills.
    _new: (),
}

impl Default for Everything {
    fn default() -> Self {
        Self::new()
    }
}

impl Everything {
    /// The fixture, serving the embedded skills ([`crate::skills`]). Its
    /// `requestState`s are plain JSON: the runtime seals them (see
    /// `mcp_era_server::request_state`).
    pub fn new() -> Self {
        // The embedded files are checked by the tests; a failure here is a
        // build of broken skills, served without them rather than not at all.
        let server = Self { _new: () };
        if let Err(error) = crate::skills::install(server.declaration().skills()) {
            tracing::error!(%error, "embedded skills not served");
        }
        server
    }
}

/// The retry's `requestState` if it is one of ours of `kind`. The runtime
/// opened it, so it is what an earlier round of this call wrote.
fn state_of(retry: &RetryInput, kind: &str) -> Option<Value> {
    let payload: Value = serde_json::from_str(retry.state.as_deref()?).ok()?;
    (payload["kind"] == kind).then_some(payload)
}

/// A complete result with one text block.
fn done(text: impl Into<String>) -> ToolAnswer {
    Ok(CallToolResult::text(text).into())
}

/// The answer to an elicitation of one string `name`.
#[derive(serde::Deserialize, JsonSchema)]
struct Name {
    #[schemars(required)]
    name: Option<String>,
}

/// The answer to `Please confirm`.
#[derive(serde::Deserialize, JsonSchema)]
struct Confirm {
    #[schemars(required)]
    ok: Option<bool>,
}

/// The answer to `test_elicitation`.
#[derive(serde::Deserialize, JsonSchema)]
struct Response {
    /// User's response
    #[allow(dead_code, reason = "asked for; the reply is echoed whole")]
    response: String,
}

/// The answer to the multi-round tool's second question.
#[derive(serde::Deserialize, JsonSchema)]
struct Color {
    #[schemars(required)]
    color: Option<String>,
}

/// The answer to the capabilities tool's elicitation.
#[derive(serde::Deserialize, JsonSchema)]
struct Input {
    #[allow(dead_code, reason = "asked for; only the key is reported")]
    value: String,
}

/// The answer to the prompt's elicitation.
#[derive(serde::Deserialize, JsonSchema)]
struct UserContext {
    #[schemars(required)]
    context: Option<String>,
}

/// The answer to `confirm_delete`.
#[derive(serde::Deserialize, JsonSchema)]
struct ConfirmDelete {
    #[schemars(required)]
    confirm: Option<bool>,
}

/// The name in the answer to `key`: `unknown` when missing, declined or
/// cancelled.
fn name_in(retry: &RetryInput, key: &str) -> Result<String, ToolError> {
    let name = retry.elicited::<Name>(key)?.and_then(Elicitation::accepted);
    Ok(name
        .and_then(|n| n.name)
        .unwrap_or_else(|| "unknown".into()))
}

/// `action=…, content=…` of an elicitation answer read as JSON.
fn elicited_summary(answer: Elicitation<Map<String, Value>>) -> String {
    let (action, content) = match answer {
        Elicitation::Accepted(content) => ("accept", content),
        Elicitation::Declined => ("decline", Map::new()),
        Elicitation::Cancelled => ("cancel", Map::new()),
    };
    format!("action={action}, content={}", Value::Object(content))
}

/// `action=…, content=…` of a raw legacy elicitation reply.
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
            ctx.progress(step)
                .total(100.0)
                .message(format!("Completed step {step} of 100"));
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
    async fn test_reconnection(&self, ctx: &RequestContext) -> &'static str {
        // In a 2025-11-25 session the POST stream closes now (after its
        // priming event and `retry: 500`) and the result goes to the GET
        // that resumes it; elsewhere this does nothing.
        ctx.close_sse_stream(Duration::from_millis(500));
        tokio::time::sleep(Duration::from_millis(100)).await;
        "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."
    }

    /// Tests server-initiated sampling (LLM completion request)
    #[tool]
    fn test_sampling(
        &self,
        #[arg(description = "The prompt to send to the LLM")] prompt: String,
        retry: &RetryInput,
    ) -> ToolAnswer {
        match retry.sampled_text("sample")? {
            Some(text) => done(format!("LLM response: {text}")),
            None => InputRequired::new()
                .request("sample", input::sample(prompt, 100))
                .into(),
        }
    }

    /// Tests server-initiated elicitation (user input request)
    #[tool]
    fn test_elicitation(
        &self,
        #[arg(description = "The message to show the user")] message: String,
        retry: &RetryInput,
    ) -> ToolAnswer {
        match retry.elicited("response")? {
            Some(answer) => done(format!("User response: {}", elicited_summary(answer))),
            None => InputRequired::new()
                .request("response", input::elicit::<Response>(message)?)
                .into(),
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
    fn test_input_required_result_elicitation(&self, retry: &RetryInput) -> ToolAnswer {
        if retry.response("user_name").is_some() {
            return done(format!("Hello, {}!", name_in(retry, "user_name")?));
        }
        InputRequired::new()
            .request("user_name", input::elicit::<Name>("What is your name?")?)
            .into()
    }

    /// MRTR: returns InputRequiredResult with sampling request
    #[tool]
    fn test_input_required_result_sampling(&self, retry: &RetryInput) -> ToolAnswer {
        match retry.sampled_text("sample_request")? {
            Some(text) => done(format!("Sampling result: {text}")),
            None => InputRequired::new()
                .request(
                    "sample_request",
                    input::sample("What is the capital of France?", 100),
                )
                .into(),
        }
    }

    /// MRTR: returns InputRequiredResult with roots/list request
    #[tool]
    fn test_input_required_result_list_roots(&self, retry: &RetryInput) -> ToolAnswer {
        match retry.roots("roots_request")? {
            Some(roots) => done(format!("Found {} root(s)", roots.len())),
            None => InputRequired::new()
                .request("roots_request", input::roots())
                .into(),
        }
    }

    /// MRTR: returns InputRequiredResult with requestState
    #[tool]
    fn test_input_required_result_request_state(&self, retry: &RetryInput) -> ToolAnswer {
        let valid = state_of(retry, "request-state").is_some();
        let confirmed = retry
            .elicited::<Confirm>("confirm")?
            .and_then(Elicitation::accepted);
        if valid && confirmed.and_then(|c| c.ok) == Some(true) {
            done("state-ok: requestState validated")
        } else {
            InputRequired::new()
                .request("confirm", input::elicit::<Confirm>("Please confirm")?)
                .state(json!({ "kind": "request-state" }).to_string())
                .into()
        }
    }

    /// MRTR: returns InputRequiredResult with multiple input requests
    #[tool]
    fn test_input_required_result_multiple_inputs(&self, retry: &RetryInput) -> ToolAnswer {
        let valid = state_of(retry, "multiple-inputs").is_some();
        let greeting = retry.sampled_text("greeting")?;
        let roots = retry.roots("client_roots")?;
        let (Some(greeting), Some(roots), true) = (
            greeting,
            roots,
            valid && retry.response("user_name").is_some(),
        ) else {
            return InputRequired::new()
                .request("user_name", input::elicit::<Name>("What is your name?")?)
                .request("greeting", input::sample("Generate a greeting", 50))
                .request("client_roots", input::roots())
                .state(json!({ "kind": "multiple-inputs" }).to_string())
                .into();
        };
        let name = name_in(retry, "user_name")?;
        done(format!(
            "Name: {name}; Greeting: {greeting}; Roots: {}",
            roots.len()
        ))
    }

    /// MRTR: multi-round InputRequiredResult workflow
    #[tool]
    fn test_input_required_result_multi_round(&self, retry: &RetryInput) -> ToolAnswer {
        let payload = state_of(retry, "multi-round");
        let round = payload
            .as_ref()
            .and_then(|p| p.get("round"))
            .and_then(Value::as_u64);
        match (round, payload) {
            (Some(1), _) if retry.response("step1").is_some() => {
                let name = name_in(retry, "step1")?;
                let question = "Step 2: What is your favorite color?";
                InputRequired::new()
                    .request("step2", input::elicit::<Color>(question)?)
                    .state(json!({ "kind": "multi-round", "round": 2, "name": name }).to_string())
                    .into()
            }
            (Some(2), Some(payload)) if retry.response("step2").is_some() => {
                let name = payload
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown");
                let color = retry
                    .elicited::<Color>("step2")?
                    .and_then(Elicitation::accepted);
                let color = color.and_then(|c| c.color);
                let color = color.as_deref().unwrap_or("unknown");
                done(format!("Multi-round complete for {name} who likes {color}"))
            }
            _ => InputRequired::new()
                .request(
                    "step1",
                    input::elicit::<Name>("Step 1: What is your name?")?,
                )
                .state(json!({ "kind": "multi-round", "round": 1 }).to_string())
                .into(),
        }
    }

    /// MRTR: HMAC-signed requestState integrity test
    #[tool]
    fn test_input_required_result_tampered_state(&self, retry: &RetryInput) -> ToolAnswer {
        let confirm = || {
            input::elicit::<Confirm>("Please confirm")
                .map(|c| InputRequired::new().request("confirm", c))
        };
        let Some(state) = &retry.state else {
            return confirm()?
                .state(json!({ "kind": "tamper-test" }).to_string())
                .into();
        };
        if state_of(retry, "tamper-test").is_none() {
            return Err(errors::invalid_params("requestState integrity check failed").into());
        }
        if retry.response("confirm").is_some() {
            done("integrity-ok: state verified")
        } else {
            confirm()?.state(state.clone()).into()
        }
    }

    /// MRTR: respects client capabilities in inputRequests
    #[tool]
    fn test_input_required_result_capabilities(
        &self,
        retry: &RetryInput,
        ctx: &RequestContext,
    ) -> ToolAnswer {
        if !retry.responses.is_empty() {
            let keys: Vec<&str> = retry.responses.keys().map(String::as_str).collect();
            return done(format!("capabilities-ok: received {}", keys.join(",")));
        }
        let mut requests = InputRequired::new();
        if ctx.has_client_capability("elicitation") {
            requests =
                requests.request("elicit_input", input::elicit::<Input>("Elicitation input")?);
        }
        if ctx.has_client_capability("sampling") {
            requests = requests.request("sample_input", input::sample("Sample request", 50));
        }
        if requests.is_empty() {
            done("No supported capabilities declared")
        } else {
            requests
                .state(json!({ "kind": "capabilities" }).to_string())
                .into()
        }
    }

    /// Diagnostic tool validating response progress streams
    #[tool]
    fn test_streaming_elicitation(&self, ctx: &RequestContext) -> &'static str {
        ctx.progress(1.0).total(1.0).message("Streaming");
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
        ctx.events().tools_list_changed();
        "Mutation triggered"
    }

    /// Announces `notifications/prompts/list_changed` to listening clients
    #[tool]
    fn test_trigger_prompt_change(&self, ctx: &RequestContext) -> &'static str {
        ctx.events().prompts_list_changed();
        "Mutation triggered"
    }

    /// Announces `notifications/resources/updated` for a URI (default test://watched-resource) to its subscribers
    #[tool]
    fn test_trigger_resource_update(
        &self,
        #[arg(description = "The resource that changed (default test://watched-resource)")]
        uri: Option<String>,
        ctx: &RequestContext,
    ) -> String {
        let uri = uri.unwrap_or_else(|| "test://watched-resource".to_owned());
        ctx.events().resource_updated(uri.clone());
        format!("Update of {uri} announced")
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
    ) -> ToolAnswer {
        ctx.continue_as_task().await;
        match retry.elicited::<ConfirmDelete>("confirm")? {
            Some(answer) => {
                let accepted = answer.accepted().and_then(|a| a.confirm) == Some(true);
                done(if accepted {
                    format!("Deleted {filename}")
                } else {
                    format!("Kept {filename}")
                })
            }
            None => InputRequired::new()
                .request(
                    "confirm",
                    input::elicit::<ConfirmDelete>(format!("Delete {filename}?"))?,
                )
                .into(),
        }
    }

    /// Asks two questions at once (keys `input-a`, `input-b`; a task when allowed)
    #[tool(task = "optional")]
    async fn multi_input(&self, retry: &RetryInput, ctx: &RequestContext) -> ToolAnswer {
        ctx.continue_as_task().await;
        if let (Some(a), Some(b)) = (retry.elicited("input-a")?, retry.elicited("input-b")?) {
            let (a, b) = (elicited_summary(a), elicited_summary(b));
            return done(format!("input-a: {a}; input-b: {b}"));
        }
        InputRequired::new()
            .request("input-a", input::elicit::<Name>("First input")?)
            .request("input-b", input::elicit::<Name>("Second input")?)
            .into()
    }

    /// MRTR for `user_name`, then a task that greets (task required)
    #[tool(task = "required")]
    async fn test_tool_with_task(&self, retry: &RetryInput, ctx: &RequestContext) -> ToolAnswer {
        let answer = retry.elicited::<Name>("user_name")?;
        let Some(name) = answer.and_then(Elicitation::accepted).and_then(|n| n.name) else {
            ctx.require_client_capability("elicitation")?;
            return InputRequired::new()
                .request("user_name", input::elicit::<Name>("What is your name?")?)
                .into();
        };
        let greeting = format!("Hello, {name}! (async)");
        ctx.continue_as_task().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        done(greeting)
    }

    // ---- structured output whose root is not an object (a 2025-11-25
    // session gets the text block only; see `mcp_era_server::transport::legacy_result`) -

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
        #[arg(description = "First test argument", complete = Self::test_values)] arg1: String,
        #[arg(description = "Second test argument", complete = Self::test_values)] arg2: String,
    ) -> String {
        format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
    }

    /// Completes the arguments of `test_prompt_with_arguments` (the suite
    /// asks for `arg1` starting with `test`).
    fn test_values(&self, partial: &str) -> Vec<&'static str> {
        ["test", "testValue1", "testValue2"]
            .into_iter()
            .filter(|value| value.starts_with(partial))
            .collect()
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
    fn test_input_required_result_prompt(&self, retry: &RetryInput) -> PromptAnswer {
        let answer = retry.elicited::<UserContext>("user_context")?;
        match answer
            .and_then(Elicitation::accepted)
            .and_then(|c| c.context)
        {
            Some(context) => Ok(GetPromptResult::new(vec![PromptMessage::user(format!(
                "Prompt with context: {context}"
            ))])
            .into()),
            None => {
                let question = "What context should the prompt use?";
                InputRequired::new()
                    .request("user_context", input::elicit::<UserContext>(question)?)
                    .into()
            }
        }
    }
}

/// Sends one legacy `elicitation/create` with `schema` and reports the
/// reply. Sent raw, in legacy sessions only (no 2026 scenario calls these
/// two tools): SEP-1330's `enumNames` is a deprecated shape no Rust type
/// derives, and a reply to SEP-1034's `number` field with a fraction is
/// no `ElicitResult` content in either schema, so a typed retry (what
/// `mcp_era_server::input` and the legacy bridge make) would refuse it where
/// the suite expects the reply echoed.
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
