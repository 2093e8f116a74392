//! What a tool method may return ([`IntoToolResult`]: content, text,
//! structured [`Json`], `input_required`, a `Result` of these) and how its
//! errors answer ([`IntoToolError`], [`ToolError`]).

use std::fmt;

use mcp_era_types::v2026_07_28::{
    AudioContent, CallToolResult, CallToolResultResponseResult, ContentBlock, EmbeddedResource,
    ImageContent, InputRequiredResult, ResourceLink, TextContent, ToolOutputSchema,
};
use schemars::JsonSchema;
use serde::Serialize;

use super::args::{self, ArgumentError};
use crate::wire::errors::{self, ErrorObject, HandlerResult};

/// What `tools/call` answers: a complete result or an `input_required` one.
pub type ToolOutcome = HandlerResult<CallToolResultResponseResult>;

/// A value a tool method may return. An `Err` of a `Result` becomes a
/// tool result with `isError: true` (a tool failure is a result the model
/// can read) unless it is a [`ToolError::Protocol`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a tool",
    note = "return `String`, a content block, `Vec<ContentBlock>`, `CallToolResult`, `Json<T>` (structured output), `InputRequiredResult`, or a `Result` of one of these"
)]
pub trait IntoToolResult {
    /// Whether the answer may be `input_required`: when not, a call
    /// without `requestState` skips hashing its arguments for a seal.
    const CAN_REQUIRE_INPUT: bool = true;

    /// The `tools/call` answer.
    fn into_tool_result(self) -> ToolOutcome;

    /// The `outputSchema` this type declares: `Some` for structured output
    /// ([`Json`]), with an error text when no schema can be made.
    fn output_schema() -> Option<Result<ToolOutputSchema, String>> {
        None
    }
}

macro_rules! content_results {
    ($($ty:ty => $variant:ident),* $(,)?) => {$(
        impl IntoToolResult for $ty {
            const CAN_REQUIRE_INPUT: bool = false;

            fn into_tool_result(self) -> ToolOutcome {
                Ok(CallToolResult::new(vec![ContentBlock::$variant(self)]).into())
            }
        }
    )*};
}

content_results! {
    TextContent => TextContent,
    ImageContent => ImageContent,
    AudioContent => AudioContent,
    ResourceLink => ResourceLink,
    EmbeddedResource => EmbeddedResource,
}

impl IntoToolResult for String {
    const CAN_REQUIRE_INPUT: bool = false;

    fn into_tool_result(self) -> ToolOutcome {
        Ok(CallToolResult::text(self).into())
    }
}

impl IntoToolResult for &str {
    const CAN_REQUIRE_INPUT: bool = false;

    fn into_tool_result(self) -> ToolOutcome {
        Ok(CallToolResult::text(self.to_owned()).into())
    }
}

impl IntoToolResult for () {
    const CAN_REQUIRE_INPUT: bool = false;

    fn into_tool_result(self) -> ToolOutcome {
        Ok(CallToolResult::new(Vec::new()).into())
    }
}

impl IntoToolResult for ContentBlock {
    const CAN_REQUIRE_INPUT: bool = false;

    fn into_tool_result(self) -> ToolOutcome {
        Ok(CallToolResult::new(vec![self]).into())
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    const CAN_REQUIRE_INPUT: bool = false;

    fn into_tool_result(self) -> ToolOutcome {
        Ok(CallToolResult::new(self).into())
    }
}

impl IntoToolResult for CallToolResult {
    const CAN_REQUIRE_INPUT: bool = false;

    fn into_tool_result(self) -> ToolOutcome {
        Ok(self.into())
    }
}

impl IntoToolResult for InputRequiredResult {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(self.into())
    }
}

impl IntoToolResult for CallToolResultResponseResult {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(self)
    }
}

/// Structured output: `structuredContent` is `T` as JSON, a text block
/// carries the same JSON for clients that read only content, and the tool
/// declares `T`'s schema as its `outputSchema`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    const CAN_REQUIRE_INPUT: bool = false;

    fn into_tool_result(self) -> ToolOutcome {
        let value = serde_json::to_value(&self.0).map_err(|e| {
            errors::internal_error(format!(
                "the structured result could not be serialized: {e}"
            ))
        })?;
        Ok(CallToolResult::structured(value).into())
    }

    fn output_schema() -> Option<Result<ToolOutputSchema, String>> {
        Some(args::output_schema_of::<T>())
    }
}

impl<T> Json<T> {
    /// The same structured result with `text` as its content block instead
    /// of the JSON: what a client that shows no structured output (a host
    /// without MCP Apps, say) puts in front of the model and the user.
    pub fn with_text(self, text: impl Into<String>) -> JsonWithText<T> {
        JsonWithText {
            value: self.0,
            text: text.into(),
        }
    }
}

/// Structured output with a text block of its own (see [`Json::with_text`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JsonWithText<T> {
    /// The `structuredContent`.
    pub value: T,
    /// The text content block.
    pub text: String,
}

impl<T: Serialize + JsonSchema> IntoToolResult for JsonWithText<T> {
    const CAN_REQUIRE_INPUT: bool = false;

    fn into_tool_result(self) -> ToolOutcome {
        let value = serde_json::to_value(&self.value).map_err(|e| {
            errors::internal_error(format!(
                "the structured result could not be serialized: {e}"
            ))
        })?;
        Ok(CallToolResult::text(self.text)
            .with_structured_content(value)
            .into())
    }

    fn output_schema() -> Option<Result<ToolOutputSchema, String>> {
        Some(args::output_schema_of::<T>())
    }
}

/// The error of a tool that must answer with a JSON-RPC error rather than
/// a failed result, or with a failed result built by hand.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolError {
    /// A JSON-RPC error (`-32021` for a missing client capability, …).
    Protocol(ErrorObject),
    /// A tool result with `isError: true` (boxed: the error stays small).
    Failed(Box<CallToolResult>),
}

impl ToolError {
    /// A failed result whose text is `message`.
    pub fn failed(message: impl fmt::Display) -> Self {
        Self::Failed(Box::new(CallToolResult::error(message.to_string())))
    }
}

impl From<ErrorObject> for ToolError {
    fn from(error: ErrorObject) -> Self {
        Self::Protocol(error)
    }
}

/// The error type of a tool returning `Result<T, E>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error type of a tool",
    note = "an error that implements `Display` becomes a result with `isError: true`; for a JSON-RPC error return `mcp_era_server::ToolError` (`?` converts an `ErrorObject` into it)"
)]
pub trait IntoToolError {
    /// As [`IntoToolResult::CAN_REQUIRE_INPUT`].
    const CAN_REQUIRE_INPUT: bool = true;

    /// The `tools/call` answer for this error.
    fn into_tool_error(self) -> ToolOutcome;
}

impl<E: fmt::Display> IntoToolError for E {
    const CAN_REQUIRE_INPUT: bool = false;

    fn into_tool_error(self) -> ToolOutcome {
        Ok(CallToolResult::error(self.to_string()).into())
    }
}

impl IntoToolError for ToolError {
    const CAN_REQUIRE_INPUT: bool = false;

    fn into_tool_error(self) -> ToolOutcome {
        match self {
            Self::Protocol(error) => Err(error),
            Self::Failed(result) => Ok((*result).into()),
        }
    }
}

impl<T: IntoToolResult, E: IntoToolError> IntoToolResult for Result<T, E> {
    const CAN_REQUIRE_INPUT: bool = T::CAN_REQUIRE_INPUT || E::CAN_REQUIRE_INPUT;

    fn into_tool_result(self) -> ToolOutcome {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(error) => error.into_tool_error(),
        }
    }

    fn output_schema() -> Option<Result<ToolOutputSchema, String>> {
        T::output_schema()
    }
}

/// Arguments that do not fit the input schema: a failed result naming the
/// argument, so the model can correct its call (tools spec, "Error
/// Handling": input validation errors are tool execution errors).
pub fn argument_failure(error: ArgumentError) -> ToolOutcome {
    Ok(CallToolResult::error(error.to_string()).into())
}
