//! JSON-RPC error objects the runtime emits, and constructors for handlers.
//!
//! Handlers return [`ErrorObject`] (the schema's `Error`, from `mcp-types`).
//! The constructors here use the codes of `mcp_types::v2026_07_28::error_codes`
//! and one short sentence as the message (digest §5).

use mcp_types::v2026_07_28::{Error, error_codes};
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
/// The HTTP status of an error (digest §5, §6 item 10).
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
