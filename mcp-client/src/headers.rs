//! The Streamable HTTP request headers a modern request carries. The header
//! rules themselves (names, `Mcp-Name` sources, the Base64 sentinel) live in
//! `mcp_era_types::headers`, shared with the server.
//!
//! Every POST carries `MCP-Protocol-Version` (equal to the `_meta` version)
//! and `Mcp-Method` (equal to the body's `method`); `tools/call` and
//! `prompts/get` add `Mcp-Name` = `params.name`, `resources/read` adds
//! `Mcp-Name` = `params.uri`. A value that is not plain printable ASCII (or
//! has surrounding whitespace) travels as `=?base64?{UTF-8 in Base64}?=`.
//!
//! A `tools/call` also mirrors each argument whose input-schema property
//! carries `"x-mcp-header": "{Name}"` into `Mcp-Param-{Name}` (strings as
//! above, integers in decimal, booleans as `true`/`false`; a null or absent
//! argument sends no header). [`tool_param_headers`] reads and checks a
//! tool's annotations; a tool with an invalid one is dropped from
//! `tools/list` results by the client, with a warning.
//!
//! ```
//! use mcp_era_client::headers::{param_headers, tool_param_headers};
//! use serde_json::json;
//!
//! let tool = json!({"name": "deploy", "inputSchema": {"type": "object", "properties": {
//!     "region": {"type": "string", "x-mcp-header": "Region"},
//!     "note": {"type": "string"}}}});
//! let annotations = tool_param_headers(&tool).expect("valid annotations");
//! let args = json!({"region": "Zürich", "note": "not mirrored"});
//! let headers = param_headers(&annotations, args.as_object().expect("object"));
//! assert_eq!(headers, [("mcp-param-region".to_owned(), "=?base64?WsO8cmljaA==?=".to_owned())]);
//! ```

use serde_json::{Map, Value};

pub use mcp_era_types::headers::{
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

/// A tool's annotated arguments: `(argument name, header name as written)`.
pub type ParamHeaders = Vec<(String, String)>;

/// RFC 9110 `tchar`: what a header name may contain.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Reads the `x-mcp-header` annotations of a tool definition. `Err` names
/// the first rule broken: an empty name, a character outside the header
/// token set, a non-primitive property (only `string`, `integer` and
/// `boolean` may be mirrored), or a name used twice (case-insensitively).
pub fn tool_param_headers(tool: &Value) -> Result<ParamHeaders, String> {
    let mut out = ParamHeaders::new();
    let Some(properties) = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
    else {
        return Ok(out);
    };
    for (arg, schema) in properties {
        let Some(annotation) = schema.get("x-mcp-header") else {
            continue;
        };
        let Some(name) = annotation.as_str() else {
            return Err(format!("`{arg}`: x-mcp-header is not a string"));
        };
        if name.is_empty() {
            return Err(format!("`{arg}`: x-mcp-header is empty"));
        }
        if !name.chars().all(is_tchar) {
            return Err(format!(
                "`{arg}`: x-mcp-header `{name}` is not a valid header name"
            ));
        }
        if !mcp_era_types::headers::mirrorable_type(schema) {
            return Err(format!(
                "`{arg}`: x-mcp-header on a property of type {}; only string, integer and boolean may be mirrored",
                schema.get("type").unwrap_or(&Value::Null)
            ));
        }
        if out.iter().any(|(_, n)| n.eq_ignore_ascii_case(name)) {
            return Err(format!("x-mcp-header `{name}` is used twice"));
        }
        out.push((arg.clone(), name.to_owned()));
    }
    Ok(out)
}

/// The `Mcp-Param-*` headers for a call with `arguments`: `(lower-case
/// header name, encoded value)`, nulls and absent arguments left out.
pub fn param_headers(
    annotations: &ParamHeaders,
    arguments: &Map<String, Value>,
) -> Vec<(String, String)> {
    annotations
        .iter()
        .filter_map(|(arg, name)| {
            let value = match arguments.get(arg)? {
                Value::String(s) => encode_value(s),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => n.to_string(),
                _ => return None,
            };
            Some((
                format!(
                    "{}{}",
                    mcp_era_types::headers::MCP_PARAM_PREFIX,
                    name.to_ascii_lowercase()
                ),
                value,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn annotations_are_checked() {
        let tool = |props: Value| json!({"name": "t", "inputSchema": {"type": "object", "properties": props}});
        assert_eq!(
            tool_param_headers(&tool(
                json!({"r": {"type": "string", "x-mcp-header": "Region"}, "q": {"type": "string"}})
            )),
            Ok(vec![("r".to_owned(), "Region".to_owned())])
        );
        // An optional argument: its null sends no header.
        assert_eq!(
            tool_param_headers(&tool(
                json!({"o": {"type": ["string", "null"], "x-mcp-header": "Opt"}})
            )),
            Ok(vec![("o".to_owned(), "Opt".to_owned())])
        );
        for bad in [
            json!({"v": {"type": "string", "x-mcp-header": ""}}),
            json!({"v": {"type": "object", "x-mcp-header": "D"}}),
            json!({"v": {"type": "number", "x-mcp-header": "D"}}),
            json!({"v": {"type": "null", "x-mcp-header": "D"}}),
            json!({"v": {"type": ["number", "null"], "x-mcp-header": "D"}}),
            json!({"v": {"type": ["null"], "x-mcp-header": "D"}}),
            json!({"v": {"type": "string", "x-mcp-header": "A B"}}),
            json!({"v": {"type": "string", "x-mcp-header": "A:B"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Régión"}}),
            json!({"v": {"type": "string", "x-mcp-header": "A\u{1}"}}),
            json!({"a": {"type": "string", "x-mcp-header": "My"}, "b": {"type": "string", "x-mcp-header": "my"}}),
        ] {
            assert!(tool_param_headers(&tool(bad.clone())).is_err(), "{bad}");
        }
    }

    #[test]
    fn values_are_encoded_and_nulls_omitted() {
        let ann = vec![
            ("r".to_owned(), "Region".to_owned()),
            ("p".to_owned(), "Priority".to_owned()),
            ("v".to_owned(), "Verbose".to_owned()),
            ("n".to_owned(), "NonAscii".to_owned()),
            ("z".to_owned(), "Nothing".to_owned()),
        ];
        let args = json!({"r": "us-west1", "p": 42, "v": null, "n": " padded "});
        let Value::Object(args) = args else { panic!() };
        assert_eq!(
            param_headers(&ann, &args),
            vec![
                ("mcp-param-region".to_owned(), "us-west1".to_owned()),
                ("mcp-param-priority".to_owned(), "42".to_owned()),
                (
                    "mcp-param-nonascii".to_owned(),
                    "=?base64?IHBhZGRlZCA=?=".to_owned()
                ),
            ]
        );
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
