//! The text of one MCP header line, read without copying it.

use std::fmt;
use std::ops::{Deref, Range};

use http::HeaderValue;
use mcp_era_types::v2026_07_28::methods;
use mcp_era_types::versions::KNOWN_VERSIONS;

/// The client-to-server request methods a `Mcp-Method` line usually holds.
const REQUEST_METHODS: &[&str] = &[
    methods::TOOLS_CALL,
    methods::TOOLS_LIST,
    methods::RESOURCES_READ,
    methods::RESOURCES_LIST,
    methods::RESOURCES_TEMPLATES_LIST,
    methods::PROMPTS_GET,
    methods::PROMPTS_LIST,
    methods::SERVER_DISCOVER,
    methods::SUBSCRIPTIONS_LISTEN,
    methods::COMPLETION_COMPLETE,
];

/// The trimmed text of one header line: as the HTTP transport read it
/// (sharing the request's bytes: no allocation per header) or as a caller
/// built it from a string. Reads as a `&str` ([`Deref`], [`as_str`](Self::as_str)).
#[derive(Clone)]
pub struct HeaderText(Repr);

#[derive(Clone)]
enum Repr {
    /// A line whose value is visible ASCII (checked when read); `range`
    /// is its part without surrounding whitespace.
    Line(HeaderValue, Range<usize>),
    /// A line that holds one of the protocol's own names: read as it is,
    /// with no UTF-8 check each time.
    Known(&'static str),
    Owned(String),
}

impl HeaderText {
    /// The line's value trimmed of surrounding whitespace; `None` when it
    /// holds other than visible ASCII (RFC 9110 §5.5 allows more, which
    /// no MCP header may carry).
    pub fn from_line(value: &HeaderValue) -> Option<Self> {
        Self::from_line_among(value, &[])
    }

    /// As [`from_line`](Self::from_line), kept as one of `known` when it
    /// equals one: the protocol versions for `MCP-Protocol-Version`, the
    /// request methods for `Mcp-Method`, which the checks read again.
    fn from_line_among(value: &HeaderValue, known: &[&'static str]) -> Option<Self> {
        let text = value.to_str().ok()?;
        let trimmed = text.trim_ascii();
        if let Some(name) = known.iter().find(|name| **name == trimmed) {
            return Some(Self(Repr::Known(name)));
        }
        let start = text.len() - text.trim_ascii_start().len();
        Some(Self(Repr::Line(
            value.clone(),
            start..start + trimmed.len(),
        )))
    }

    /// A `MCP-Protocol-Version` line (see [`from_line_among`](Self::from_line_among)).
    pub(crate) fn version_line(value: &HeaderValue) -> Option<Self> {
        let found = KNOWN_VERSIONS
            .iter()
            .find(|known| value.as_bytes().trim_ascii() == known.version.as_bytes());
        match found {
            Some(known) => Some(Self(Repr::Known(known.version))),
            None => Self::from_line(value),
        }
    }

    /// A `Mcp-Method` line (see [`from_line_among`](Self::from_line_among)).
    pub(crate) fn method_line(value: &HeaderValue) -> Option<Self> {
        Self::from_line_among(value, REQUEST_METHODS)
    }

    /// The same text sharing no bytes with the request, for a value kept
    /// as long as a stream: a line's bytes would keep the connection's
    /// read buffer alive.
    pub(crate) fn detached(self) -> Self {
        match &self.0 {
            Repr::Line(..) => Self(Repr::Owned(self.as_str().to_owned())),
            Repr::Known(_) | Repr::Owned(_) => self,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Visible ASCII, checked in `from_line`: always UTF-8.
            Repr::Line(value, range) => value
                .as_bytes()
                .get(range.clone())
                .and_then(|bytes| std::str::from_utf8(bytes).ok())
                .unwrap_or_default(),
            Repr::Known(text) => text,
            Repr::Owned(text) => text,
        }
    }
}

impl Deref for HeaderText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for HeaderText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for HeaderText {
    fn from(text: String) -> Self {
        Self(Repr::Owned(text))
    }
}

impl From<&str> for HeaderText {
    fn from(text: &str) -> Self {
        Self(Repr::Owned(text.to_owned()))
    }
}

impl PartialEq for HeaderText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for HeaderText {}

impl PartialEq<str> for HeaderText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for HeaderText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Debug for HeaderText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for HeaderText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

    use super::*;

    #[test]
    fn a_line_reads_trimmed_and_equals_its_owned_form() {
        let line = HeaderText::from_line(&HeaderValue::from_static(" \t2026-07-28 ")).unwrap();
        assert_eq!(line.as_str(), "2026-07-28");
        assert_eq!(line, HeaderText::from("2026-07-28"));
        assert_eq!(format!("{line:?}"), "\"2026-07-28\"");
        let blank = HeaderText::from_line(&HeaderValue::from_static("   ")).unwrap();
        assert_eq!(blank.as_str(), "");
    }

    #[test]
    fn the_protocol_names_read_as_known_and_others_as_lines() {
        let version = HeaderText::version_line(&HeaderValue::from_static(" 2026-07-28")).unwrap();
        assert!(matches!(version.0, Repr::Known("2026-07-28")));
        let future = HeaderText::version_line(&HeaderValue::from_static("2099-01-01")).unwrap();
        assert!(matches!(future.0, Repr::Line(..)));
        assert_eq!(future, "2099-01-01");
        let method = HeaderText::method_line(&HeaderValue::from_static("tools/call ")).unwrap();
        assert!(matches!(method.0, Repr::Known("tools/call")));
        let other = HeaderText::method_line(&HeaderValue::from_static("Tools/Call")).unwrap();
        assert_eq!(other, "Tools/Call");
        assert!(
            HeaderText::method_line(&HeaderValue::from_bytes(b"tools/\xff").unwrap()).is_none()
        );
    }

    #[test]
    fn a_detached_line_keeps_its_text_and_no_bytes_of_the_request() {
        let line = HeaderText::from_line(&HeaderValue::from_static(" tool-a ")).unwrap();
        let detached = line.clone().detached();
        assert!(matches!(detached.0, Repr::Owned(_)));
        assert_eq!(detached, line);
        let known = HeaderText::method_line(&HeaderValue::from_static("tools/call")).unwrap();
        assert!(matches!(known.detached().0, Repr::Known("tools/call")));
    }

    #[test]
    fn a_line_that_is_not_visible_ascii_is_not_text() {
        let value = HeaderValue::from_bytes("café".as_bytes()).unwrap();
        assert!(HeaderText::from_line(&value).is_none());
    }
}
