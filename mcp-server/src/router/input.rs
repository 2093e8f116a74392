//! Typed input requests (multi round-trip requests): the constructors of
//! elicitation, sampling and `roots/list` requests, the [`InputRequired`]
//! answer that carries them, and the short names of what an MRTR tool or
//! prompt returns.
//!
//! A tool that needs input answers `input_required` with requests by key;
//! the client answers each and retries, and [`RetryInput`] reads the
//! answers back by the same keys. Legacy (2025-11-25) sessions get the
//! same requests as real server→client requests (the runtime's bridge), so
//! the tool is written once:
//!
//! ```
//! use mcp_era_server::schemars::{self, JsonSchema};
//! use mcp_era_server::{Elicitation, InputRequired, RetryInput, ToolAnswer, input};
//! use mcp_era_server::mcp_era_types::v2026_07_28::CallToolResult;
//!
//! #[derive(serde::Deserialize, JsonSchema)]
//! struct Name {
//!     /// Your name
//!     name: String,
//! }
//!
//! fn greet(retry: &RetryInput) -> ToolAnswer {
//!     match retry.elicited::<Name>("who")? {
//!         Some(Elicitation::Accepted(Name { name })) => {
//!             Ok(CallToolResult::text(format!("Hello, {name}!")).into())
//!         }
//!         Some(_) => Ok(CallToolResult::text("Hello, stranger!").into()),
//!         None => InputRequired::new()
//!             .request("who", input::elicit::<Name>("What is your name?")?)
//!             .into(),
//!     }
//! }
//! # let first = greet(&RetryInput::default()).unwrap();
//! # let json = serde_json::to_value(&first).unwrap();
//! # assert_eq!(json["inputRequests"]["who"]["params"]["requestedSchema"]["required"][0], "name");
//! ```

use std::collections::BTreeMap;

use mcp_era_types::v2026_07_28::{
    CallToolResultResponseResult, CreateMessageRequest, CreateMessageRequestParams, ElicitRequest,
    ElicitRequestFormParams, ElicitRequestFormParamsRequestedSchema, ElicitRequestURLParams,
    GetPromptResultResponseResult, InputRequest, InputRequests, InputRequiredResult,
    ListRootsRequest, ListRootsRequestParams, ModelPreferences, PrimitiveSchemaDefinition, Role,
    SamplingMessage, SamplingMessageContent, TextContent,
};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

#[cfg(doc)]
use super::RetryInput;
use super::prompts::{IntoPromptResult, PromptOutcome};
use super::tools::{IntoToolResult, ToolError, ToolOutcome};
use crate::wire::errors::{self, ErrorObject};

/// What a tool that may ask for input (or fail with a JSON-RPC error)
/// returns: a complete or `input_required` result, or a [`ToolError`].
/// `?` on a [`HandlerResult`](crate::HandlerResult) converts its error.
pub type ToolAnswer = Result<CallToolResultResponseResult, ToolError>;

/// What a prompt that may ask for input returns: a complete or
/// `input_required` result, or a JSON-RPC error.
pub type PromptAnswer = Result<GetPromptResultResponseResult, ErrorObject>;

/// An `input_required` answer: input requests by key, and an optional
/// `requestState` the client echoes back on its retry. Converts into a
/// [`ToolAnswer`] or a [`PromptAnswer`] with `.into()`, and may be
/// returned as it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InputRequired {
    requests: InputRequests,
    state: Option<String>,
}

impl InputRequired {
    /// No requests yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the request answered under `key`.
    #[must_use]
    pub fn request(mut self, key: impl Into<String>, request: impl Into<InputRequest>) -> Self {
        self.requests.insert(key.into(), request.into());
        self
    }

    /// Sets `requestState`, which comes back in
    /// [`RetryInput::state`](super::RetryInput::state) on the retry. The
    /// runtime seals it (encrypted, authenticated, bound to this call and
    /// caller, expiring; see [`crate::request_state`]), so plaintext is
    /// fine here.
    #[must_use]
    pub fn state(mut self, state: impl Into<String>) -> Self {
        self.state = Some(state.into());
        self
    }

    /// Whether no request was added.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// The result as the schema types it. Without requests, only
    /// `requestState` is written (the schema asks for one of the two).
    pub fn into_result(self) -> InputRequiredResult {
        let mut result = InputRequiredResult::new();
        if !self.requests.is_empty() {
            result.input_requests = Some(self.requests);
        }
        result.request_state = self.state;
        result
    }
}

impl From<InputRequired> for InputRequiredResult {
    fn from(value: InputRequired) -> Self {
        value.into_result()
    }
}

impl From<InputRequired> for ToolAnswer {
    fn from(value: InputRequired) -> Self {
        Ok(value.into_result().into())
    }
}

impl From<InputRequired> for PromptAnswer {
    fn from(value: InputRequired) -> Self {
        Ok(value.into_result().into())
    }
}

impl IntoToolResult for InputRequired {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(self.into_result().into())
    }
}

impl IntoPromptResult for InputRequired {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(self.into_result().into())
    }
}

/// A form-mode `elicitation/create` whose `requestedSchema` is `T`'s
/// schema, read back with [`RetryInput::elicited::<T>`](RetryInput::elicited).
///
/// The spec allows a flat object of primitive properties only: strings
/// (`title`, `description`, `default`, `minLength`, `maxLength`, and a
/// `format` of `date`, `date-time`, `email` or `uri`), numbers and
/// integers (`minimum`, `maximum`, `default`), booleans, single-choice
/// string enums (`enum`, or `oneOf` of `const`s with titles) and
/// multiple-choice ones (`Vec` of such an enum, with `minItems` /
/// `maxItems`). So `T`'s schema is flattened to that: `Option<X>` fields
/// are optional `X` properties (`#[schemars(required)]` keeps one
/// required), an enum option's title is its `title`, else its
/// description, and other keywords (a string `pattern`, an integer's
/// `format`, `uniqueItems`, the root's `title`) are left out, as
/// [`elicited`](RetryInput::elicited) checks the answer by deserializing
/// `T` anyway. A `T` that is not a struct, or a property of another kind
/// (a nested object, a list of anything but enum strings, a `$ref`), is
/// refused: `-32603` naming the type and the property.
pub fn elicit<T: JsonSchema>(message: impl Into<String>) -> Result<InputRequest, ErrorObject> {
    let schema = requested_schema::<T>().map_err(|reason| {
        errors::internal_error(format!(
            "{} cannot be asked in an elicitation form: {reason}",
            T::schema_name()
        ))
    })?;
    Ok(elicit_with(message, schema))
}

/// A form-mode `elicitation/create` with a schema written out.
pub fn elicit_with(
    message: impl Into<String>,
    schema: ElicitRequestFormParamsRequestedSchema,
) -> InputRequest {
    let params = ElicitRequestFormParams::new(message, schema);
    InputRequest::ElicitRequest(ElicitRequest::new(params.into()))
}

/// A URL-mode `elicitation/create`: the user completes the interaction at
/// `url` (a sign-in, a payment) outside the client; read the answer with
/// `retry.elicited::<()>(key)`. 2026-07-28 has no `elicitationId`; a
/// legacy (2025-11-25) session, whose schema requires one, gets a random
/// one from the runtime. `url` must be an absolute URI (`-32603`
/// otherwise).
pub fn elicit_url(
    message: impl Into<String>,
    url: impl Into<String>,
) -> Result<InputRequest, ErrorObject> {
    let url = url.into();
    if !absolute_uri(&url) {
        return Err(errors::internal_error(format!(
            "a URL elicitation needs an absolute URI, not `{url}`"
        )));
    }
    let params = ElicitRequestURLParams::builder()
        .message(message)
        .url(url)
        .build();
    Ok(InputRequest::ElicitRequest(ElicitRequest::new(
        params.into(),
    )))
}

/// Whether `text` is an absolute URI: a scheme (RFC 3986: a letter, then
/// letters, digits, `+`, `-`, `.`), a colon, and no whitespace.
fn absolute_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !text.chars().any(char::is_whitespace)
}

/// A `roots/list` request, read back with [`RetryInput::roots`].
pub fn roots() -> InputRequest {
    let mut request = ListRootsRequest::new();
    // `params: {}` rather than none: what clients of either era expect.
    request.params = Some(ListRootsRequestParams::new());
    InputRequest::ListRootsRequest(request)
}

/// A `sampling/createMessage` request: one user message with `prompt` as
/// text, at most `max_tokens` tokens; read back with
/// [`RetryInput::sampled_text`]. Options are set on the returned
/// [`Sampling`].
pub fn sample(prompt: impl Into<String>, max_tokens: u32) -> Sampling {
    let message = SamplingMessage::new(
        SamplingMessageContent::TextContent(TextContent::new(prompt.into())),
        Role::User,
    );
    Sampling(CreateMessageRequestParams::new(
        i64::from(max_tokens),
        vec![message],
    ))
}

/// A `sampling/createMessage` request being built ([`sample`]); becomes
/// an [`InputRequest`] with `.into()` (which [`InputRequired::request`]
/// does).
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling(pub CreateMessageRequestParams);

impl Sampling {
    /// The system prompt (the client may change or omit it).
    #[must_use]
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.0.system_prompt = Some(prompt.into());
        self
    }

    /// Which model the server would like (the client may ignore it).
    #[must_use]
    pub fn model_preferences(mut self, preferences: ModelPreferences) -> Self {
        self.0.model_preferences = Some(preferences);
        self
    }
}

impl From<Sampling> for InputRequest {
    fn from(value: Sampling) -> Self {
        InputRequest::CreateMessageRequest(CreateMessageRequest::new(value.0))
    }
}

/// `T`'s schema as the restricted `requestedSchema`, or why it cannot be.
fn requested_schema<T: JsonSchema>() -> Result<ElicitRequestFormParamsRequestedSchema, String> {
    let mut settings = SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    settings.inline_subschemas = true;
    let root = settings.into_generator().into_root_schema_for::<T>();
    let root = root.as_value();
    if root.get("type") != Some(&json!("object")) {
        return Err("the spec asks for an object with properties (a struct)".into());
    }
    if let Some(key) = ["allOf", "anyOf", "oneOf", "if", "$ref"]
        .into_iter()
        .find(|k| root.get(*k).is_some())
    {
        return Err(format!(
            "its schema uses `{key}`; the spec allows plain properties only"
        ));
    }
    let empty = Map::new();
    let properties = match root.get("properties") {
        Some(Value::Object(properties)) => properties,
        None => &empty,
        Some(_) => return Err("`properties` is not an object".into()),
    };
    let mut flat = BTreeMap::new();
    for (name, schema) in properties {
        let property =
            primitive(schema).map_err(|reason| format!("property `{name}`: {reason}"))?;
        // Through the schema's own types, and back: what they cannot tell
        // apart would reach the client in another shape.
        let typed = PrimitiveSchemaDefinition::from_json(&property)
            .map_err(|e| format!("property `{name}`: {e}"))?;
        if serde_json::to_value(&typed).ok().as_ref() != Some(&property) {
            return Err(format!(
                "property `{name}`: the schema types read {property} as another kind"
            ));
        }
        flat.insert(name.clone(), typed);
    }
    let required: Vec<String> = root
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|name| flat.contains_key(*name))
        .map(str::to_owned)
        .collect();
    Ok(ElicitRequestFormParamsRequestedSchema::new(flat).with_required(required))
}

/// One property's schema in the restricted form (see [`elicit`]).
fn primitive(schema: &Value) -> Result<Value, String> {
    let Value::Object(schema) = schema else {
        return Err("a boolean schema says nothing a form can ask".into());
    };
    let mut out = Map::new();
    for key in ["title", "description"] {
        if let Some(text @ Value::String(_)) = schema.get(key) {
            out.insert(key.into(), text.clone());
        }
    }
    let default = schema.get("default");
    let kind = single_type(schema.get("type"))?;
    let options = schema.get("oneOf").or_else(|| schema.get("anyOf"));
    match kind.as_deref() {
        Some("string") | None if schema.get("enum").is_some() || options.is_some() => {
            enum_choice(schema, &mut out)?;
            copy_if(&mut out, "default", default, Value::is_string);
            out.insert("type".into(), json!("string"));
        }
        Some("string") => {
            for key in ["minLength", "maxLength"] {
                copy_if(&mut out, key, schema.get(key), Value::is_u64);
            }
            let format = schema.get("format").and_then(Value::as_str);
            if let Some(format @ ("date" | "date-time" | "email" | "uri")) = format {
                out.insert("format".into(), json!(format));
            }
            copy_if(&mut out, "default", default, Value::is_string);
            out.insert("type".into(), json!("string"));
        }
        Some(kind @ ("integer" | "number")) => {
            for key in ["minimum", "maximum"] {
                copy_if(&mut out, key, schema.get(key), Value::is_number);
            }
            copy_if(&mut out, "default", default, Value::is_number);
            out.insert("type".into(), json!(kind));
        }
        Some("boolean") => {
            copy_if(&mut out, "default", default, Value::is_boolean);
            out.insert("type".into(), json!("boolean"));
        }
        Some("array") => {
            let items = schema
                .get("items")
                .and_then(Value::as_object)
                .ok_or("a list must be of string enum values (a `Vec` of a unit-variant enum)")?;
            let mut choice = Map::new();
            enum_choice(items, &mut choice).map_err(
                |_| "a list must be of string enum values (a `Vec` of a unit-variant enum)",
            )?;
            let items = match choice.remove("oneOf") {
                Some(options) => json!({ "anyOf": options }),
                None => json!({ "type": "string", "enum": choice.remove("enum") }),
            };
            out.insert("items".into(), items);
            for key in ["minItems", "maxItems"] {
                copy_if(&mut out, key, schema.get(key), Value::is_u64);
            }
            let strings = |d: &Value| d.as_array().is_some_and(|a| a.iter().all(Value::is_string));
            copy_if(&mut out, "default", default, strings);
            out.insert("type".into(), json!("array"));
        }
        Some(other) => {
            return Err(format!(
                "a form asks for strings, numbers, integers, booleans and string enums, not {other}"
            ));
        }
        None => {
            return Err(
                "no type (a `$ref`, or a union): a form asks for primitive properties".into(),
            );
        }
    }
    Ok(Value::Object(out))
}

/// The one type of a property: `["x", "null"]` (an `Option`) is `x`.
fn single_type(kind: Option<&Value>) -> Result<Option<String>, String> {
    match kind {
        None => Ok(None),
        Some(Value::String(kind)) => Ok(Some(kind.clone())),
        Some(Value::Array(kinds)) => {
            let named: Vec<&str> = kinds
                .iter()
                .filter_map(Value::as_str)
                .filter(|k| *k != "null")
                .collect();
            match named.as_slice() {
                [one] if named.len() + 1 >= kinds.len() => Ok(Some((*one).to_owned())),
                _ => Err(format!(
                    "a form property has one type, not {}",
                    Value::Array(kinds.clone())
                )),
            }
        }
        Some(other) => Err(format!("`type` must be a string, not {other}")),
    }
}

/// A string enum: `enum` values, or `oneOf`/`anyOf` options (each a
/// `const`, titled by its `title` or description) into `out`.
fn enum_choice(schema: &Map<String, Value>, out: &mut Map<String, Value>) -> Result<(), String> {
    if let Some(values) = schema.get("enum") {
        // An `Option` of an enum lists `null` among the values: absence.
        let strings: Option<Vec<&str>> = values.as_array().and_then(|v| {
            v.iter()
                .filter(|v| !v.is_null())
                .map(Value::as_str)
                .collect()
        });
        let Some(strings) = strings.filter(|s| !s.is_empty()) else {
            return Err(format!("enum values must be strings, not {values}"));
        };
        out.insert("enum".into(), json!(strings));
        return Ok(());
    }
    let options = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)
        .ok_or("an enum needs `enum` or `oneOf` options")?;
    let mut titled = Vec::new();
    for option in options {
        // An option without `const` (a nullable enum's `null`, a data
        // variant) is not a choice the form can offer.
        match option.get("const") {
            Some(Value::String(value)) => {
                let title = option
                    .get("title")
                    .or_else(|| option.get("description"))
                    .and_then(Value::as_str)
                    .unwrap_or(value);
                titled.push(json!({ "const": value, "title": title }));
            }
            Some(Value::Null) | None if option.get("type") == Some(&json!("null")) => {}
            _ => {
                return Err(format!(
                    "enum options must be string constants, not {option}"
                ));
            }
        }
    }
    if titled.is_empty() {
        return Err("an enum needs at least one option".into());
    }
    out.insert("oneOf".into(), Value::Array(titled));
    Ok(())
}

fn copy_if(
    out: &mut Map<String, Value>,
    key: &str,
    value: Option<&Value>,
    ok: impl Fn(&Value) -> bool,
) {
    if let Some(value) = value.filter(|v| ok(v)) {
        out.insert(key.into(), value.clone());
    }
}
