//! The text of one MCP header line, read without copying it.

use std::fmt;
use std::ops::{Deref, Range};

use http::HeaderValue;

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
    Owned(String),
}

impl HeaderText {
    /// The line's value trimmed of surrounding whitespace; `None` when it
    /// holds other than visible ASCII (RFC 9110 §5.5 allows more, which
    /// no MCP header may carry).
    pub fn from_line(value: &HeaderValue) -> Option<Self> {
        let text = value.to_str().ok()?;
        let start = text.len() - text.trim_ascii_start().len();
        let end = text.trim_ascii_end().len().max(start);
        Some(Self(Repr::Line(value.clone(), start..end)))
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
    fn a_line_that_is_not_visible_ascii_is_not_text() {
        let value = HeaderValue::from_bytes("café".as_bytes()).unwrap();
        assert!(HeaderText::from_line(&value).is_none());
    }
}
