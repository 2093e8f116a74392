//! The Streamable HTTP request headers a modern request carries. The header
//! rules themselves (names, `Mcp-Name` sources, the Base64 sentinel) live in
//! `mcp_types::headers`, shared with the server.
//!
//! Every POST carries `MCP-Protocol-Version` (equal to the `_meta` version)
//! and `Mcp-Method` (equal to the body's `method`); `tools/call` and
//! `prompts/get` add `Mcp-Name` = `params.name`, `resources/read` adds
//! `Mcp-Name` = `params.uri`. A value that is not plain printable ASCII (or
//! has surrounding whitespace) travels as `=?base64?{UTF-8 in Base64}?=`.

use serde_json::Value;

pub use mcp_types::headers::{
    MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, MCP_SESSION_ID, encode_value, mcp_name,
    name_source, needs_base64,
};

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
