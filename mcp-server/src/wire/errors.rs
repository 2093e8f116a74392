//! JSON-RPC error objects the runtime emits, and constructors for handlers.
//!
//! Handlers return [`ErrorObject`] (the schema's `Error`, from `mcp-types`).
//! The constructors here use the codes of `mcp_era_types::v2026_07_28::error_codes`
//! and one short sentence as the message.
//!
//! # Which error to return
//!
//! Two different answers, for two different failures:
//!
//! * **The tool failed** (the file is missing, the API said no): a
//!   *result* with `isError: true`, which the model reads and may act on.
//!   Return `Err(e)` from a tool returning `Result<T, E>` with any `E:
//!   Display` (`String`, an error type), or [`ToolError::failed`](crate::ToolError::failed), or a
//!   `CallToolResult::error(..)`. Arguments that break the input schema
//!   get one too, before the tool runs.
//! * **The request was bad** (an unknown resource, a bad `requestState`
//!   or input response, a client capability the call needs): a *JSON-RPC
//!   error* built here ([`invalid_params`], [`resource_not_found`],
//!   [`missing_client_capability`], ...). Prompts and resources return it
//!   as [`HandlerResult<T>`] (`Result<T, ErrorObject>`); a tool as
//!   [`ToolError::Protocol`](crate::ToolError::Protocol), which `?` makes from an `ErrorObject`, so
//!   `.map_err(|_| errors::invalid_params(..))?` needs no `.into()` (a
//!   bare `return Err(..)` does).
//!
//! | a handler returns | modern (2026-07-28) | legacy session (2025-11-25) |
//! |---|---|---|
//! | tool `Err(e)`, `E: Display`; [`ToolError::Failed`](crate::ToolError::Failed); `CallToolResult::error` | result, `isError: true` | the same result, without `resultType` |
//! | tool [`ToolError::Protocol`](crate::ToolError::Protocol); prompt or resource [`HandlerResult`] `Err` | JSON-RPC error; HTTP status from [`http_status_of`] (400 for `-32602`, `-32021`; 404 for `-32601`; 200 otherwise) | JSON-RPC error, HTTP 200; [`resource_not_found`] becomes `-32002` |
//!
//! [`ToolAnswer`](crate::ToolAnswer) and [`PromptAnswer`](crate::PromptAnswer)
//! name what a tool or prompt that may also answer `input_required`
//! returns.
//!
//! ```
//! use mcp_era_server::{McpServer, ToolError, errors, router};
//!
//! #[derive(McpServer)]
//! #[mcp(name = "files", version = "1.0.0", tools)]
//! struct Files;
//!
//! #[router]
//! impl Files {
//!     /// Line `n` (from 1) of a file under the working directory.
//!     #[tool]
//!     fn line(&self, path: String, n: u64) -> Result<String, ToolError> {
//!         // The request was bad: a JSON-RPC error (`?` converts it).
//!         let at = n.checked_sub(1).ok_or_else(|| errors::invalid_params("n counts from 1"))?;
//!         // The tool failed: a result with `isError: true`.
//!         let text = std::fs::read_to_string(&path).map_err(ToolError::failed)?;
//!         let line = text.lines().nth(usize::try_from(at).unwrap_or(usize::MAX));
//!         line.map(str::to_owned)
//!             .ok_or_else(|| ToolError::failed(format!("{path} has no line {n}")))
//!     }
//! }
//! # let bad = Files.line("a.txt".into(), 0).unwrap_err();
//! # assert!(matches!(bad, ToolError::Protocol(e) if e.code == -32602));
//! # let failed = Files.line("no/such/file".into(), 1).unwrap_err();
//! # assert!(matches!(failed, ToolError::Failed(_)));
//! ```

use mcp_era_types::v2026_07_28::{Error, error_codes};
use serde_json::{Value, json};

/// A JSON-RPC error object (`code`, `message`, optional `data`): the
/// schema's `Error` type.
pub type ErrorObject = Error;

/// What a handler returns: a typed result or a JSON-RPC error object.
pub type HandlerResult<T> = Result<T, ErrorObject>;

fn error(code: i64, message: impl Into<String>, data: Option<Value>) -> ErrorObject {
    let mut error = Error::new(code, message.into());
    error.data = data;
    error
}

/// `-32700` Parse error: the message is not valid JSON.
pub fn parse_error() -> ErrorObject {
    error(error_codes::PARSE_ERROR, "Parse error", None)
}

/// `-32600` Invalid Request, with the reason as the message.
pub fn invalid_request(reason: impl Into<String>) -> ErrorObject {
    error(error_codes::INVALID_REQUEST_ERROR, reason, None)
}

/// `-32601` Method not found, with `data.reason` explaining why.
pub fn method_not_found(reason: impl Into<String>) -> ErrorObject {
    error(
        error_codes::METHOD_NOT_FOUND_ERROR,
        "Method not found",
        Some(json!({ "reason": reason.into() })),
    )
}

/// `-32602` Invalid params, with the reason as the message (for example an
/// unknown tool, bad arguments, a resource that does not exist).
pub fn invalid_params(reason: impl Into<String>) -> ErrorObject {
    error(error_codes::INVALID_PARAMS_ERROR, reason, None)
}

/// `-32603` Internal error, with the reason as the message.
pub fn internal_error(reason: impl Into<String>) -> ErrorObject {
    error(error_codes::INTERNAL_ERROR, reason, None)
}

/// `-32020` Header mismatch: an HTTP header is missing, does not match the
/// body, or is malformed.
pub fn header_mismatch(reason: impl Into<String>) -> ErrorObject {
    error(error_codes::HEADER_MISMATCH_ERROR, reason, None)
}

/// `-32022` Unsupported protocol version, with the exact wire shape of the
/// spec: `data.supported` (what `server/discover` advertises) and
/// `data.requested` (the version exactly as sent).
pub fn unsupported_protocol_version(supported: &[&str], requested: &str) -> ErrorObject {
    error(
        error_codes::UNSUPPORTED_PROTOCOL_VERSION_ERROR,
        "Unsupported protocol version",
        Some(json!({ "supported": supported, "requested": requested })),
    )
}

/// `-32021` Missing required client capability: the request needs
/// `required` (a `ClientCapabilities`-shaped object such as
/// `{"sampling": {}}`), which it did not declare. HTTP 400.
pub fn missing_client_capability(required: Value) -> ErrorObject {
    error(
        error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY_ERROR,
        "Missing required client capability",
        Some(json!({ "requiredCapabilities": required })),
    )
}

/// A resource that does not exist: `-32602` with `data.uri` (2026-07-28).
/// In a legacy session the runtime turns it into the 2025-11-25 code
/// `-32002`.
pub fn resource_not_found(uri: impl Into<String>) -> ErrorObject {
    let uri = uri.into();
    error(
        error_codes::INVALID_PARAMS_ERROR,
        format!("Resource not found: {uri}"),
        Some(json!({ "uri": uri })),
    )
}

/// The legacy (2025-11-25) resource-not-found code.
pub const LEGACY_RESOURCE_NOT_FOUND: i64 = -32002;

/// Codes of the refusals the shipped middleware answers with
/// ([`crate::middleware`]). The spec asks application errors to stay outside
/// `-32768..=-32000`; the last three digits echo the HTTP status of the
/// same refusal. They are JSON-RPC errors with HTTP 200, as every
/// application error is.
pub mod codes {
    /// The caller exceeded its request rate; `data.retryAfterMs` says when
    /// to try again.
    pub const RATE_LIMITED: i64 = -31429;
    /// The request did not finish within the server's time limit.
    pub const TIMED_OUT: i64 = -31408;
    /// The server refused the request because it was at capacity.
    pub const OVERLOADED: i64 = -31503;
    /// The result was larger than the server sends; `data` has `size` and
    /// `limit` in bytes.
    pub const RESULT_TOO_LARGE: i64 = -31413;
}

/// [`codes::RATE_LIMITED`]: `data.retryAfterMs` is how long until the
/// caller's next request is accepted.
pub fn rate_limited(retry_after: std::time::Duration) -> ErrorObject {
    let ms = u64::try_from(retry_after.as_millis())
        .unwrap_or(u64::MAX)
        .max(1);
    error(
        codes::RATE_LIMITED,
        format!("Rate limit exceeded; retry in {ms} ms"),
        Some(json!({ "retryAfterMs": ms })),
    )
}

/// [`codes::TIMED_OUT`].
pub fn timed_out(reason: impl Into<String>) -> ErrorObject {
    error(codes::TIMED_OUT, reason, None)
}

/// [`codes::OVERLOADED`].
pub fn overloaded(reason: impl Into<String>) -> ErrorObject {
    error(codes::OVERLOADED, reason, None)
}

/// [`codes::RESULT_TOO_LARGE`], with the result's size and the limit in
/// bytes.
pub fn result_too_large(size: usize, limit: usize) -> ErrorObject {
    error(
        codes::RESULT_TOO_LARGE,
        format!("The result is {size} bytes; this server sends at most {limit}"),
        Some(json!({ "size": size, "limit": limit })),
    )
}
/// The HTTP status of an error (the spec's error table and the Streamable
/// HTTP status rules).
pub fn http_status_of(error: &ErrorObject) -> u16 {
    match error.code {
        error_codes::METHOD_NOT_FOUND_ERROR => 404,
        error_codes::PARSE_ERROR
        | error_codes::INVALID_REQUEST_ERROR
        | error_codes::INVALID_PARAMS_ERROR
        | error_codes::HEADER_MISMATCH_ERROR
        | error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY_ERROR
        | error_codes::UNSUPPORTED_PROTOCOL_VERSION_ERROR => 400,
        _ => 200,
    }
}
