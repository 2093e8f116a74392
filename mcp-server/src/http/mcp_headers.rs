//! The MCP request headers, read in one place: each must come as at most
//! one header line, so the header/body rule holds for every line sent.
//!
//! A second line of `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or of
//! one `Mcp-Param-{Name}` is refused with `-32020`, even when it repeats
//! the first value: which line a proxy or handler would read is not
//! defined, and rmcp refuses them too. A repeated `Mcp-Session-Id` is an
//! error the caller reports as `-32600` (a modern request ignores it). A
//! comma in a value is part of that one value, not a second line.

use hyper::header::{HeaderMap, HeaderName};
use mcp_era_types::headers::{
    MCP_METHOD, MCP_NAME, MCP_PARAM_PREFIX, MCP_PROTOCOL_VERSION, MCP_SESSION_ID,
};

use crate::model::context::HttpHeaders;
use crate::wire::errors::{self, ErrorObject};

// Parsed once: a lookup by `&str` would parse and validate the name again.
const PROTOCOL_VERSION_HEADER: HeaderName = HeaderName::from_static(MCP_PROTOCOL_VERSION);
const METHOD_HEADER: HeaderName = HeaderName::from_static(MCP_METHOD);
const NAME_HEADER: HeaderName = HeaderName::from_static(MCP_NAME);
const SESSION_ID_HEADER: HeaderName = HeaderName::from_static(MCP_SESSION_ID);

/// The one line of header `name`, trimmed; `Err` (the reason) when it
/// comes more than once or has bytes outside visible ASCII and spaces.
fn single(headers: &HeaderMap, name: &HeaderName) -> Result<Option<String>, String> {
    let mut lines = headers.get_all(name).iter();
    let Some(value) = lines.next() else {
        return Ok(None);
    };
    if lines.next().is_some() {
        return Err(format!("The {name} header is sent more than once"));
    }
    value
        .to_str()
        .map(|v| Some(v.trim().to_owned()))
        .map_err(|_| format!("The {name} header has invalid characters"))
}

/// The headers of the header/body rule; a repeated or unreadable one is
/// `-32020`.
pub(super) fn read(headers: &HeaderMap) -> Result<HttpHeaders, ErrorObject> {
    let protocol_version = single(headers, &PROTOCOL_VERSION_HEADER);
    let method = single(headers, &METHOD_HEADER);
    let name = single(headers, &NAME_HEADER);
    let (protocol_version, method, name) = match (protocol_version, method, name) {
        (Ok(version), Ok(method), Ok(name)) => (version, method, name),
        (Err(reason), _, _) | (_, Err(reason), _) | (_, _, Err(reason)) => {
            return Err(errors::header_mismatch(reason));
        }
    };
    let mut params = Vec::new();
    // `keys` yields each name once, whatever its number of lines.
    for header_name in headers.keys() {
        let Some(suffix) = header_name.as_str().strip_prefix(MCP_PARAM_PREFIX) else {
            continue;
        };
        match single(headers, header_name) {
            Ok(Some(value)) => params.push((suffix.to_owned(), value)),
            Ok(None) => {}
            Err(reason) => return Err(errors::header_mismatch(reason)),
        }
    }
    Ok(HttpHeaders {
        protocol_version,
        method: Some(method),
        name,
        params,
    })
}

/// The `Mcp-Session-Id` header; `Err` (the reason) when repeated or
/// unreadable.
pub(super) fn session_id(headers: &HeaderMap) -> Result<Option<String>, String> {
    single(headers, &SESSION_ID_HEADER)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

    use super::*;
    use hyper::header::HeaderValue;

    fn headers(lines: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in lines {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn one_line_each_is_read_trimmed() {
        let read = read(&headers(&[
            ("mcp-protocol-version", " 2026-07-28 "),
            ("mcp-method", "tools/call"),
            ("mcp-name", "a, b"),
            ("mcp-param-region", "eu"),
        ]))
        .unwrap();
        assert_eq!(read.protocol_version.as_deref(), Some("2026-07-28"));
        assert_eq!(read.name.as_deref(), Some("a, b"));
        assert_eq!(read.params, vec![("region".to_owned(), "eu".to_owned())]);
    }

    #[test]
    fn a_second_line_is_refused_even_with_the_same_value() {
        for name in [
            "mcp-protocol-version",
            "mcp-method",
            "mcp-name",
            "mcp-param-x",
        ] {
            let error = read(&headers(&[(name, "v"), (name, "v")])).unwrap_err();
            assert_eq!(error.code, -32020, "{name}");
        }
        let twice = headers(&[("mcp-session-id", "a"), ("mcp-session-id", "a")]);
        assert!(session_id(&twice).is_err());
        assert_eq!(
            session_id(&headers(&[("mcp-session-id", "a")])),
            Ok(Some("a".into()))
        );
    }
}
