//! The Streamable HTTP request headers of 2026-07-28: which ones a request
//! carries and how their values are encoded.
//!
//! Every POST carries `MCP-Protocol-Version` (equal to the `_meta` version)
//! and `Mcp-Method` (equal to the body's `method`); `tools/call` and
//! `prompts/get` add `Mcp-Name` = `params.name`, `resources/read` adds
//! `Mcp-Name` = `params.uri`. A value that is not plain printable ASCII (or
//! has surrounding whitespace) travels as `=?base64?{UTF-8 in Base64}?=`.

use mcp_types::v2026_07_28::methods;
use serde_json::Value;

/// `MCP-Protocol-Version`, lower-cased (header names compare case-insensitively).
pub const MCP_PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method`.
pub const MCP_METHOD: &str = "mcp-method";
/// `Mcp-Name`.
pub const MCP_NAME: &str = "mcp-name";
/// `Mcp-Session-Id` (legacy sessions only).
pub const MCP_SESSION_ID: &str = "mcp-session-id";

/// The `params` member that `Mcp-Name` mirrors for `method`, if any.
pub fn name_source(method: &str) -> Option<&'static str> {
    match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        _ => None,
    }
}

/// The raw (unencoded) `Mcp-Name` value for a request, if it needs one.
pub fn mcp_name<'a>(method: &str, params: &'a Value) -> Option<&'a str> {
    let key = name_source(method)?;
    params.get(key)?.as_str()
}

/// Whether `value` cannot travel as a plain header value: it holds a
/// character outside printable ASCII (0x20–0x7E), has leading or trailing
/// whitespace, or already looks like the Base64 sentinel (so a literal value
/// is never mistaken for an encoded one).
pub fn needs_base64(value: &str) -> bool {
    value.chars().any(|c| !(' '..='~').contains(&c))
        || value.starts_with(' ')
        || value.ends_with(' ')
        || (value.starts_with("=?base64?") && value.ends_with("?="))
}

/// Encodes a header value: unchanged when it is safe, otherwise
/// `=?base64?…?=` around the Base64 of its UTF-8 bytes.
pub fn encode_value(value: &str) -> String {
    if needs_base64(value) {
        format!("=?base64?{}?=", base64(value.as_bytes()))
    } else {
        value.to_owned()
    }
}

/// The standard headers for a modern request: `(lower-case name, value)`.
pub fn standard_headers(
    protocol_version: &str,
    method: &str,
    params: &Value,
) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        (MCP_PROTOCOL_VERSION, encode_value(protocol_version)),
        (MCP_METHOD, encode_value(method)),
    ];
    if let Some(name) = mcp_name(method, params) {
        headers.push((MCP_NAME, encode_value(name)));
    }
    headers
}

/// Standard Base64 (RFC 4648 §4, with padding).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected, "{input:?}");
        }
    }

    #[test]
    fn plain_ascii_is_sent_as_is() {
        assert_eq!(encode_value("my-hyphenated-tool"), "my-hyphenated-tool");
        assert_eq!(
            encode_value("https://example.com/r?id=123"),
            "https://example.com/r?id=123"
        );
        assert_eq!(encode_value("file:///a%20b.txt"), "file:///a%20b.txt");
        assert_eq!(encode_value("inner space"), "inner space");
    }

    #[test]
    fn unsafe_values_use_the_base64_sentinel() {
        // "日本" in UTF-8 is e6 97 a5 e6 9c ac.
        assert_eq!(encode_value("日本"), "=?base64?5pel5pys?=");
        assert_eq!(encode_value(" lead"), "=?base64?IGxlYWQ=?=");
        assert_eq!(encode_value("trail "), "=?base64?dHJhaWwg?=");
        assert_eq!(encode_value("tab\there"), "=?base64?dGFiCWhlcmU=?=");
        assert_eq!(encode_value("nl\n"), "=?base64?bmwK?=");
        assert_eq!(encode_value("del\u{7f}"), "=?base64?ZGVsfw==?=");
        // A literal value that looks encoded is encoded, so it round-trips.
        assert_eq!(
            encode_value("=?base64?SGk=?="),
            "=?base64?PT9iYXNlNjQ/U0drPT89?="
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

    #[test]
    fn standard_headers_for_a_tool_call() {
        let h = standard_headers("2026-07-28", "tools/call", &json!({"name": "café"}));
        assert_eq!(
            h,
            vec![
                (MCP_PROTOCOL_VERSION, "2026-07-28".to_owned()),
                (MCP_METHOD, "tools/call".to_owned()),
                (MCP_NAME, "=?base64?Y2Fmw6k=?=".to_owned()),
            ]
        );
        let h = standard_headers("2026-07-28", "tools/list", &json!({}));
        assert_eq!(h.len(), 2);
    }
}
