//! A JSON scanner for the fast paths of the parse: it walks a message's
//! text token by token, hands out strings without escapes as borrowed
//! slices and has serde_json read any other value where it stands.
//!
//! It checks only what it reads itself; every other value is read by
//! serde_json, which checks it. A value skipped unread (`raw`) is read
//! later. Anything it is unsure of gives `None`, and the caller falls
//! back to the full parse.

use serde::Deserialize;

use mcp_era_types::json::first_escape;

/// How deep a value may nest: serde_json refuses past 128 levels counted
/// from the message's top, and a value sits a few levels down.
const MAX_RAW_DEPTH: usize = 100;

/// A position in a JSON text.
pub(crate) struct Scanner<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self { text, at: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte after whitespace, not taken.
    pub(crate) fn peek(&mut self) -> Option<u8> {
        let bytes = self.bytes();
        while let Some(&byte) = bytes.get(self.at) {
            if !matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(byte);
            }
            self.at += 1;
        }
        None
    }

    /// Takes `byte`, after whitespace.
    pub(crate) fn eat(&mut self, byte: u8) -> Option<()> {
        // Compact JSON has no whitespace: the byte is most often right here.
        if self.bytes().get(self.at) != Some(&byte) && self.peek()? != byte {
            return None;
        }
        self.at += 1;
        Some(())
    }

    /// Nothing but whitespace is left.
    pub(crate) fn end(mut self) -> Option<()> {
        self.peek().is_none().then_some(())
    }

    /// Reads an object, handing each member's key to `member`, which
    /// reads the value; `None` when the object is malformed or `member`
    /// refuses.
    pub(crate) fn members(
        &mut self,
        mut member: impl FnMut(Key<'a>, &mut Self) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            let key = self.key()?;
            member(key, self)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A member's key and its `:`.
    fn key(&mut self) -> Option<Key<'a>> {
        self.eat(b'"')?;
        let start = self.at;
        let len = find_quote(self.bytes().get(start..)?)?;
        self.at = start + len + 1;
        let key = Key(self.text.get(start..start + len)?);
        self.eat(b':')?;
        Some(key)
    }

    /// A string without escapes, borrowed from the text.
    pub(crate) fn plain_str(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.at;
        let len = first_escape(self.bytes().get(start..)?)?;
        if self.bytes().get(start + len) != Some(&b'"') {
            return None;
        }
        self.at = start + len + 1;
        // A quote is never inside a UTF-8 sequence: the slice is whole.
        self.text.get(start..start + len)
    }

    /// A string, its escapes (if any) decoded by serde_json.
    pub(crate) fn string(&mut self) -> Option<String> {
        let start = self.at;
        if let Some(plain) = self.plain_str() {
            return Some(plain.to_owned());
        }
        self.at = start;
        self.value()
    }

    /// An integer of at most 18 digits (an `i64` whatever they are), as
    /// serde_json reads it; `-0`, which it reads as a float, is refused.
    pub(crate) fn integer(&mut self) -> Option<i64> {
        self.peek()?;
        let bytes = self.bytes();
        let negative = bytes.get(self.at) == Some(&b'-');
        let start = self.at + usize::from(negative);
        let mut end = start;
        let mut magnitude = 0_i64;
        while let Some(digit) = bytes.get(end).filter(|byte| byte.is_ascii_digit()) {
            if end - start == 18 {
                return None;
            }
            magnitude = magnitude * 10 + i64::from(digit - b'0');
            end += 1;
        }
        let digits = end - start;
        let leading_zero = bytes.get(start) == Some(&b'0');
        if digits == 0 || (leading_zero && (digits > 1 || negative)) {
            return None;
        }
        if matches!(bytes.get(end), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.at = end;
        Some(if negative { -magnitude } else { magnitude })
    }

    /// The next value, read by serde_json where it stands.
    pub(crate) fn value<T: Deserialize<'a>>(&mut self) -> Option<T> {
        let start = self.at;
        let rest = self.text.get(start..)?;
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<T>();
        let value = values.next()?.ok()?;
        let end = start + values.byte_offset();
        // serde_json counts its nesting limit from where it starts reading,
        // the full parse from the message's top: a value that could nest
        // near the limit (two bytes a level) is measured.
        if end - start > 2 * MAX_RAW_DEPTH {
            let mut measured = Scanner::new(self.text.get(..end)?);
            measured.at = start;
            if measured.raw()?.len() != end - start {
                return None;
            }
        }
        self.at = end;
        Some(value)
    }

    /// An empty object (`{}`), taken if it is next.
    pub(crate) fn empty_object(&mut self) -> bool {
        let found = self.peek() == Some(b'{') && self.bytes().get(self.at + 1) == Some(&b'}');
        if found {
            self.at += 2;
        }
        found
    }

    /// The text of the next value, skipped over without being checked.
    pub(crate) fn raw(&mut self) -> Option<&'a str> {
        let first = self.peek()?;
        let start = self.at;
        match first {
            b'"' => self.skip_string()?,
            b'{' | b'[' => self.skip_nested()?,
            _ => self.skip_scalar()?,
        }
        self.text.get(start..self.at)
    }

    /// Past a string, from its opening quote.
    fn skip_string(&mut self) -> Option<()> {
        self.at += 1;
        loop {
            let rest = self.bytes().get(self.at..)?;
            let found = first_escape(rest)?;
            match rest.get(found)? {
                b'"' => {
                    self.at += found + 1;
                    return Some(());
                }
                // The escaped byte is never the string's end.
                b'\\' => self.at += found + 2,
                // A raw control character: not JSON.
                _ => return None,
            }
        }
    }

    /// Past an object or an array, from its opening bracket.
    fn skip_nested(&mut self) -> Option<()> {
        let mut depth = 0_usize;
        loop {
            match *self.bytes().get(self.at)? {
                b'"' => {
                    self.skip_string()?;
                    continue;
                }
                b'{' | b'[' => {
                    depth += 1;
                    if depth > MAX_RAW_DEPTH {
                        return None;
                    }
                }
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.at += 1;
                        return Some(());
                    }
                }
                _ => {}
            }
            self.at += 1;
        }
    }

    /// Past a number or a literal: up to the next delimiter.
    fn skip_scalar(&mut self) -> Option<()> {
        let start = self.at;
        while let Some(byte) = self.bytes().get(self.at) {
            if matches!(
                byte,
                b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r'
            ) {
                break;
            }
            self.at += 1;
        }
        (self.at > start).then_some(())
    }
}

/// The first `"` of `bytes`, found eight bytes at a time (keys are short:
/// a call to `memchr` costs more than the search).
fn find_quote(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let mut from = 0;
    while let Some(word) = bytes.get(from..).and_then(<[u8]>::first_chunk::<8>) {
        let zero_if_quote = u64::from_le_bytes(*word) ^ (ONES * u64::from(b'"'));
        // The lowest flag is exact: a borrow runs only upward from a quote.
        let flags = zero_if_quote.wrapping_sub(ONES) & !zero_if_quote & HIGHS;
        if flags != 0 {
            return Some(from + flags.trailing_zeros() as usize / 8);
        }
        from += 8;
    }
    let tail = bytes.get(from..)?.iter().position(|&byte| byte == b'"')?;
    Some(from + tail)
}

/// A key's text up to the first quote, not yet checked for escapes.
/// Compared with a schema's key (none needs escaping), it is that key
/// only if it is written plain; any other key is [`checked`](Self::checked)
/// before use.
#[derive(Clone, Copy)]
pub(crate) struct Key<'a>(&'a str);

impl<'a> Key<'a> {
    /// The text to compare with keys that need no escaping.
    pub(crate) fn unchecked(self) -> &'a str {
        self.0
    }

    /// The key, when it has no escape (nor a control character).
    pub(crate) fn checked(self) -> Option<&'a str> {
        first_escape(self.0.as_bytes()).is_none().then_some(self.0)
    }
}

/// Fills an empty slot with what `read` gives; a slot already filled (a
/// repeated key) or a failed read gives `None`.
pub(crate) fn fill<T>(slot: &mut Option<T>, read: impl FnOnce() -> Option<T>) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(read()?);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn raw_values_end_where_serde_json_ends_them() {
        for (text, raw) in [
            (r#" "a\"b" , 1"#, r#""a\"b""#),
            (r#"{"a":[1,{"b":"}"}]} ,"#, r#"{"a":[1,{"b":"}"}]}"#),
            ("-12.5e3}", "-12.5e3"),
            ("true]", "true"),
            (r#"[["\\"]]"#, r#"[["\\"]]"#),
        ] {
            let mut scan = Scanner::new(text);
            assert_eq!(scan.raw(), Some(raw), "{text}");
            serde_json::from_str::<Value>(raw).expect("the raw text is the value");
        }
        for text in ["", " ", "}", r#""open"#, "[1, 2", "\"a\u{1}\""] {
            assert_eq!(Scanner::new(text).raw(), None, "{text:?}");
        }
    }

    #[test]
    fn the_first_quote_is_found_at_any_offset() {
        for len in 0..40 {
            for at in 0..len {
                let mut bytes = vec![b'a'; len];
                bytes[at] = b'"';
                if at + 1 < len {
                    bytes[at + 1] = b'"';
                }
                bytes
                    .iter_mut()
                    .skip(at + 2)
                    .for_each(|byte| *byte = 0x22 ^ 0x80);
                assert_eq!(find_quote(&bytes), Some(at), "{len} {at}");
            }
            assert_eq!(find_quote(&vec![0xA2; len]), None);
        }
    }

    #[test]
    fn integers_are_read_as_serde_json_reads_them_or_refused() {
        for (text, n) in [
            ("0", 0),
            ("-7", -7),
            ("123456789012345678", 123_456_789_012_345_678),
        ] {
            assert_eq!(Scanner::new(text).integer(), Some(n), "{text}");
            assert_eq!(serde_json::from_str::<i64>(text).ok(), Some(n));
        }
        for text in ["-0", "01", "1.0", "1e3", "-", "1234567890123456789", "x"] {
            assert_eq!(Scanner::new(text).integer(), None, "{text}");
        }
    }

    #[test]
    fn keys_need_their_commas_and_colons() {
        fn keys(text: &str) -> Option<Vec<&str>> {
            let mut scan = Scanner::new(text);
            let mut keys = Vec::new();
            scan.members(|key, scan| {
                keys.push(key.checked()?);
                scan.raw().map(drop)
            })?;
            scan.end()?;
            Some(keys)
        }
        assert_eq!(keys(r#" { "a" : 1 , "b":{} } "#), Some(vec!["a", "b"]));
        assert_eq!(keys("{}"), Some(vec![]));
        for text in [
            r#"{"a":1,}"#,
            r#"{,"a":1}"#,
            r#"{"a":1 "b":2}"#,
            r#"{"a" 1}"#,
            r#"{"\u0061":1}"#,
            r#"{"a":1} x"#,
        ] {
            assert_eq!(keys(text), None, "{text}");
        }
    }
}
