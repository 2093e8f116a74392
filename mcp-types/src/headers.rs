//! The Streamable HTTP `Mcp-*` request headers of 2026-07-28, shared by
//! clients (which write them) and servers (which check them).
//!
//! Every POST carries `MCP-Protocol-Version` (equal to the `_meta` version)
//! and `Mcp-Method` (equal to the body's `method`); `tools/call` and
//! `prompts/get` add `Mcp-Name` = `params.name`, `resources/read` adds
//! `Mcp-Name` = `params.uri`, and the tasks extension's `tasks/get`,
//! `tasks/update` and `tasks/cancel` add `Mcp-Name` = `params.taskId`. A
//! value that is not plain printable ASCII (or has surrounding whitespace)
//! travels as `=?base64?{UTF-8 in Base64}?=`; `Mcp-Param-*` values use the
//! same encoding.

use std::borrow::Cow;

use serde_json::Value;

use crate::v2026_07_28::methods;

/// `MCP-Protocol-Version`, lower-cased (header names compare case-insensitively).
pub const MCP_PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method`.
pub const MCP_METHOD: &str = "mcp-method";
/// `Mcp-Name`.
pub const MCP_NAME: &str = "mcp-name";
/// `Mcp-Session-Id` (legacy sessions only).
pub const MCP_SESSION_ID: &str = "mcp-session-id";
/// The prefix of the `Mcp-Param-{Name}` headers a tool's `x-mcp-header` asks for.
pub const MCP_PARAM_PREFIX: &str = "mcp-param-";

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// Whether a property schema's `type` may carry `x-mcp-header`: `string`,
/// `integer` or `boolean` (the transport's rule; `number` may not), or a
/// list of them with `null` (an optional argument, whose null value sends
/// no header). Clients leave out tools that break it; servers refuse to
/// serve them.
pub fn mirrorable_type(property: &Value) -> bool {
    let allowed = |t: &Value| matches!(t.as_str(), Some("string" | "integer" | "boolean"));
    match property.get("type") {
        Some(Value::Array(types)) => {
            types.iter().any(allowed) && types.iter().all(|t| allowed(t) || t == "null")
        }
        Some(t) => allowed(t),
        None => false,
    }
}

/// The `params` member that `Mcp-Name` mirrors for `method`, if any.
pub fn name_source(method: &str) -> Option<&'static str> {
    match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        // The tasks extension (`io.modelcontextprotocol/tasks`, "Streamable
        // HTTP: Routing Headers"): routes a task's requests to its holder.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// The raw (unencoded) `Mcp-Name` value of a request, if it has one.
pub fn mcp_name<'a>(method: &str, params: &'a Value) -> Option<&'a str> {
    params.get(name_source(method)?)?.as_str()
}

/// Whether `value` cannot travel as a plain header value: it holds a
/// character outside printable ASCII (0x20–0x7E), has leading or trailing
/// whitespace, or already looks like the Base64 sentinel (so a literal value
/// is never mistaken for an encoded one).
pub fn needs_base64(value: &str) -> bool {
    value.chars().any(|c| !(' '..='~').contains(&c))
        || value.starts_with(' ')
        || value.ends_with(' ')
        || (value.starts_with(SENTINEL_START) && value.ends_with(SENTINEL_END))
}

/// Encodes a header value: unchanged when it is safe, otherwise
/// `=?base64?…?=` around the Base64 of its UTF-8 bytes.
pub fn encode_value(value: &str) -> String {
    if needs_base64(value) {
        format!(
            "{SENTINEL_START}{}{SENTINEL_END}",
            base64_encode(value.as_bytes())
        )
    } else {
        value.to_owned()
    }
}

/// Decodes a header value: `=?base64?<data>?=` is strict standard Base64
/// (with padding) of UTF-8 text; any other value is taken literally. The
/// error says what is wrong (bad characters, bad padding, not UTF-8). A
/// literal value is borrowed, not copied.
pub fn decode_value(raw: &str) -> Result<Cow<'_, str>, String> {
    let Some(inner) = raw
        .strip_prefix(SENTINEL_START)
        .and_then(|rest| rest.strip_suffix(SENTINEL_END))
    else {
        return Ok(Cow::Borrowed(raw));
    };
    let bytes = base64_decode(inner)?;
    String::from_utf8(bytes)
        .map(Cow::Owned)
        .map_err(|_| "the base64 value is not UTF-8".to_owned())
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard Base64 with padding (RFC 4648 §4).
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Strict standard Base64: length a multiple of 4, `=` only as the final
/// one or two characters.
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return Err("base64 length is not a multiple of 4 (bad padding)".into());
    }
    let padding = bytes.iter().rev().take_while(|b| **b == b'=').count();
    if padding > 2 {
        return Err("too much base64 padding".into());
    }
    let body = &bytes[..bytes.len() - padding];
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &byte in body {
        let value = ALPHABET
            .iter()
            .position(|&a| a == byte)
            .ok_or_else(|| format!("invalid base64 character {:?}", byte as char))?;
        acc = (acc << 6) | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use serde_json::json;

    use super::*;

    const RFC4648: [(&str, &str); 7] = [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ];

    #[test]
    fn base64_matches_rfc4648_vectors_both_ways() {
        for (input, expected) in RFC4648 {
            assert_eq!(base64_encode(input.as_bytes()), expected, "{input:?}");
            assert_eq!(base64_decode(expected).unwrap(), input.as_bytes());
        }
    }

    #[test]
    fn plain_ascii_is_sent_as_is() {
        for value in [
            "my-hyphenated-tool",
            "https://example.com/r?id=123",
            "file:///a%20b.txt",
            "inner space",
        ] {
            assert_eq!(encode_value(value), value);
            assert_eq!(decode_value(value).unwrap(), value);
        }
    }

    #[test]
    fn unsafe_values_use_the_base64_sentinel_and_round_trip() {
        // "日本" in UTF-8 is e6 97 a5 e6 9c ac.
        for (value, encoded) in [
            ("日本", "=?base64?5pel5pys?="),
            (" lead", "=?base64?IGxlYWQ=?="),
            ("trail ", "=?base64?dHJhaWwg?="),
            ("tab\there", "=?base64?dGFiCWhlcmU=?="),
            ("nl\n", "=?base64?bmwK?="),
            ("del\u{7f}", "=?base64?ZGVsfw==?="),
            // A literal value that looks encoded is encoded, so it round-trips.
            ("=?base64?SGk=?=", "=?base64?PT9iYXNlNjQ/U0drPT89?="),
        ] {
            assert_eq!(encode_value(value), encoded, "{value:?}");
            assert_eq!(decode_value(encoded).unwrap(), value, "{encoded:?}");
        }
    }

    #[test]
    fn malformed_sentinels_are_errors() {
        assert!(
            decode_value("=?base64?SGVsbG8?=")
                .unwrap_err()
                .contains("padding")
        );
        assert!(
            decode_value("=?base64?SGVs!!!!?=")
                .unwrap_err()
                .contains("character")
        );
        assert!(
            decode_value("=?base64?/w==?=")
                .unwrap_err()
                .contains("UTF-8")
        );
        // Without the closing `?=` it is not the sentinel: taken literally.
        assert_eq!(
            decode_value("=?base64?SGVsbG8=").unwrap(),
            "=?base64?SGVsbG8="
        );
    }

    #[test]
    fn mcp_name_follows_the_method() {
        let p = json!({"name": "add", "uri": "test://x"});
        assert_eq!(mcp_name("tools/call", &p), Some("add"));
        assert_eq!(mcp_name("prompts/get", &p), Some("add"));
        assert_eq!(mcp_name("resources/read", &p), Some("test://x"));
        assert_eq!(mcp_name("tools/list", &p), None);
        assert_eq!(mcp_name("server/discover", &p), None);
    }
}
