//! The MCP request headers, read in one place: each must come as at most
//! one header line, so the header/body rule holds for every line sent.
//!
//! A second line of `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or of
//! one `Mcp-Param-{Name}` is refused with `-32020`, even when it repeats
//! the first value: which line a proxy or handler would read is not
//! defined, and rmcp refuses them too. A repeated `Mcp-Session-Id` is an
//! error the caller reports as `-32600` (a modern request ignores it). A
//! comma in a value is part of that one value, not a second line.

use hyper::header::{ACCEPT, HeaderMap, HeaderValue};
use mcp_era_types::headers::{
    MCP_METHOD, MCP_NAME, MCP_PARAM_PREFIX, MCP_PROTOCOL_VERSION, MCP_SESSION_ID,
};

use crate::model::context::{HeaderText, HttpHeaders};
use crate::wire::errors::{self, ErrorObject};

fn single(headers: &HeaderMap, name: &str) -> Result<Option<HeaderText>, String> {
    let mut lines = headers.get_all(name).iter();
    let Some(value) = lines.next() else {
        return Ok(None);
    };
    if lines.next().is_some() {
        return Err(format!("The {name} header is sent more than once"));
    }
    value_of(name, value, HeaderText::from_line).map(Some)
}

/// How a line becomes text: [`HeaderText::from_line`], or a constructor
/// that keeps the protocol's own names as they are.
type TextOf = fn(&HeaderValue) -> Option<HeaderText>;

fn value_of(name: &str, value: &HeaderValue, text: TextOf) -> Result<HeaderText, String> {
    text(value).ok_or_else(|| format!("The {name} header has invalid characters"))
}

/// One MCP header's lines, as one pass over the request's meets them.
#[derive(Clone, Copy)]
enum Lines<'a> {
    None,
    One(&'a HeaderValue),
    Many,
}

impl<'a> Lines<'a> {
    fn add(&mut self, value: &'a HeaderValue) {
        *self = match self {
            Self::None => Self::One(value),
            _ => Self::Many,
        };
    }

    fn read(self, name: &str, text: TextOf) -> Result<Option<HeaderText>, String> {
        match self {
            Self::None => Ok(None),
            Self::One(value) => value_of(name, value, text).map(Some),
            Self::Many => Err(format!("The {name} header is sent more than once")),
        }
    }

    /// As [`read`](Self::read), as an owned string (a session id, kept).
    fn read_owned(self, name: &str) -> Result<Option<String>, String> {
        self.read(name, HeaderText::from_line)
            .map(|text| text.map(|text| text.as_str().to_owned()))
    }
}

/// `Mcp-Session-Id`, or why it cannot be read.
pub(super) type SessionId = Result<Option<String>, String>;

/// A POST's header lines, met in one pass (a lookup per name would hash
/// each again): the MCP headers, and the media-type lines the guards read
/// before the body.
pub(super) struct PostLines<'a> {
    headers: &'a HeaderMap,
    protocol_version: Lines<'a>,
    method: Lines<'a>,
    name: Lines<'a>,
    session_id: Lines<'a>,
    any_param: bool,
    /// The first `Content-Type` line (as `HeaderMap::get` gives it).
    pub(super) content_type: Option<&'a HeaderValue>,
    accept: Lines<'a>,
}

impl<'a> PostLines<'a> {
    pub(super) fn scan(headers: &'a HeaderMap) -> Self {
        let mut lines = Self {
            headers,
            protocol_version: Lines::None,
            method: Lines::None,
            name: Lines::None,
            session_id: Lines::None,
            any_param: false,
            content_type: None,
            accept: Lines::None,
        };
        for (header, value) in headers {
            match header.as_str() {
                MCP_PROTOCOL_VERSION => lines.protocol_version.add(value),
                MCP_METHOD => lines.method.add(value),
                MCP_NAME => lines.name.add(value),
                MCP_SESSION_ID => lines.session_id.add(value),
                "content-type" => {
                    lines.content_type.get_or_insert(value);
                }
                "accept" => lines.accept.add(value),
                other => lines.any_param |= other.starts_with(MCP_PARAM_PREFIX),
            }
        }
        lines
    }

    /// Every `Accept` line.
    pub(super) fn accept(&self) -> impl Iterator<Item = &'a HeaderValue> + use<'a> {
        let (one, all) = match self.accept {
            Lines::None => (None, None),
            Lines::One(value) => (Some(value), None),
            Lines::Many => (None, Some(self.headers.get_all(ACCEPT).iter())),
        };
        one.into_iter().chain(all.into_iter().flatten())
    }

    /// The MCP headers and the session id.
    pub(super) fn mcp(&self) -> Result<(HttpHeaders, SessionId), ErrorObject> {
        self.mcp_lines().map_err(errors::header_mismatch)
    }

    fn mcp_lines(&self) -> Result<(HttpHeaders, SessionId), String> {
        let protocol_version = self
            .protocol_version
            .read(MCP_PROTOCOL_VERSION, HeaderText::version_line)?;
        let method = self.method.read(MCP_METHOD, HeaderText::method_line)?;
        let name = self.name.read(MCP_NAME, HeaderText::from_line)?;
        let mut params = Vec::new();
        if self.any_param {
            // `keys` yields each name once, whatever its number of lines.
            for header_name in self.headers.keys() {
                let header_name = header_name.as_str();
                let Some(suffix) = header_name.strip_prefix(MCP_PARAM_PREFIX) else {
                    continue;
                };
                if let Some(value) = single(self.headers, header_name)? {
                    params.push((suffix.to_owned(), value));
                }
            }
        }
        let headers = HttpHeaders {
            protocol_version,
            method: Some(method),
            name,
            params,
        };
        Ok((headers, self.session_id.read_owned(MCP_SESSION_ID)))
    }
}

/// The MCP headers and the session id, in one pass over the request's
/// lines.
#[cfg(test)]
fn read(headers: &HeaderMap) -> Result<(HttpHeaders, SessionId), ErrorObject> {
    PostLines::scan(headers).mcp()
}

/// `Mcp-Session-Id` alone (a GET or DELETE).
pub(super) fn session_id(headers: &HeaderMap) -> SessionId {
    let mut lines = Lines::None;
    for (header, value) in headers {
        if header.as_str() == MCP_SESSION_ID {
            lines.add(value);
        }
    }
    lines.read_owned(MCP_SESSION_ID)
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
            ("mcp-session-id", "s1"),
        ]))
        .unwrap();
        let (read, session) = read;
        assert_eq!(session, Ok(Some("s1".into())));
        assert_eq!(read.protocol_version.as_deref(), Some("2026-07-28"));
        assert_eq!(read.name.as_deref(), Some("a, b"));
        assert_eq!(read.params, vec![("region".to_owned(), "eu".into())]);
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
        // Read with the MCP headers: a repeated session id is the caller's
        // to report (a modern request ignores it), not a -32020.
        assert!(read(&twice).unwrap().1.is_err());
        assert_eq!(
            session_id(&headers(&[("mcp-session-id", "a")])),
            Ok(Some("a".into()))
        );
    }
}
