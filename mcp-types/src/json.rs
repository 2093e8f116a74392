//! Generated types written as JSON straight into a `Vec<u8>`: the bytes
//! `serde_json::to_vec` writes, with a schema's keys written as prepared
//! text and strings checked for escapes eight bytes at a time. Results are
//! what the runtime writes most; through serde, each of their keys and
//! strings is escaped byte by byte behind a generic serializer.
//!
//! Every generated struct and union implements [`WriteJson`]; a value of
//! any other type inside one (a string enum, `serde_json::Value` keys
//! aside) is written by serde_json itself, so that floats, say, keep its
//! digits.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde::ser::Error as _;
use serde_json::{Error, Map, Value};

/// A value written as compact JSON, byte for byte as `serde_json` writes
/// its `Serialize` form.
pub trait WriteJson {
    /// Appends this value's JSON to `out`; on an error, `out` may hold part
    /// of it.
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error>;
}

/// `value` as compact JSON.
pub fn to_vec<T: WriteJson + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(128);
    value.write_json(&mut out)?;
    Ok(out)
}

impl WriteJson for str {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        write_str(out, self);
        Ok(())
    }
}

impl WriteJson for String {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        write_str(out, self);
        Ok(())
    }
}

impl WriteJson for bool {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        out.extend_from_slice(if *self { b"true" } else { b"false" });
        Ok(())
    }
}

macro_rules! integers {
    ($($ty:ty),*) => {$(
        impl WriteJson for $ty {
            fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
                out.extend_from_slice(itoa::Buffer::new().format(*self).as_bytes());
                Ok(())
            }
        }
    )*};
}

integers!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

impl WriteJson for f64 {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        write_serde(out, self)
    }
}

impl WriteJson for Value {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        match self {
            Value::Null => out.extend_from_slice(b"null"),
            Value::Bool(value) => value.write_json(out)?,
            // serde_json's own digits: with its `arbitrary_precision`
            // feature (a dependency may turn it on), a number is its text.
            Value::Number(number) => write_serde(out, number)?,
            Value::String(value) => write_str(out, value),
            Value::Array(items) => items.write_json(out)?,
            Value::Object(map) => map.write_json(out)?,
        }
        Ok(())
    }
}

impl WriteJson for Map<String, Value> {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        write_entries(out, self)
    }
}

impl<T: WriteJson> WriteJson for BTreeMap<String, T> {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        write_entries(out, self)
    }
}

fn write_entries<'a, T: WriteJson + 'a>(
    out: &mut Vec<u8>,
    entries: impl IntoIterator<Item = (&'a String, &'a T)>,
) -> Result<(), Error> {
    out.push(b'{');
    let mut first = true;
    for (key, value) in entries {
        escaped_member(out, &mut first, key);
        value.write_json(out)?;
    }
    out.push(b'}');
    Ok(())
}

impl<T: WriteJson> WriteJson for [T] {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        out.push(b'[');
        for (at, item) in self.iter().enumerate() {
            if at > 0 {
                out.push(b',');
            }
            item.write_json(out)?;
        }
        out.push(b']');
        Ok(())
    }
}

impl<T: WriteJson> WriteJson for Vec<T> {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        self.as_slice().write_json(out)
    }
}

impl<T: WriteJson> WriteJson for Option<T> {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        match self {
            Some(value) => value.write_json(out),
            None => {
                out.extend_from_slice(b"null");
                Ok(())
            }
        }
    }
}

impl<T: WriteJson + ?Sized> WriteJson for Box<T> {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        (**self).write_json(out)
    }
}

impl<T: WriteJson + ?Sized> WriteJson for Arc<T> {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        (**self).write_json(out)
    }
}

impl<T: WriteJson + ?Sized> WriteJson for &T {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        (**self).write_json(out)
    }
}

impl WriteJson for crate::runtime::Const {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        match self {
            Self::Str(text) => write_str(out, text),
            Self::Int(value) => value.write_json(out)?,
        }
        Ok(())
    }
}

/// `value` written by serde_json, for types without [`WriteJson`].
pub fn write_serde<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<(), Error> {
    serde_json::to_writer(out, value)
}

/// Writes a value of a type chosen where the code is generated: through
/// [`WriteJson`] when the type has it, else through serde. Call as
/// `(&Probe(&value)).emit(out)` with [`ViaWriteJson`] and [`ViaSerde`] in
/// scope (method lookup prefers the first, which needs one borrow less).
#[doc(hidden)]
pub struct Probe<'a, T: ?Sized>(pub &'a T);

/// The preferred way of [`Probe`].
#[doc(hidden)]
pub trait ViaWriteJson {
    /// Writes the probed value.
    fn emit(&self, out: &mut Vec<u8>) -> Result<(), Error>;
}

impl<T: WriteJson + ?Sized> ViaWriteJson for Probe<'_, T> {
    fn emit(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        self.0.write_json(out)
    }
}

/// The fallback of [`Probe`].
#[doc(hidden)]
pub trait ViaSerde {
    /// Writes the probed value.
    fn emit(&self, out: &mut Vec<u8>) -> Result<(), Error>;
}

impl<T: Serialize + ?Sized> ViaSerde for &Probe<'_, T> {
    fn emit(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        write_serde(out, self.0)
    }
}

/// Starts a member of an object: the comma after an earlier member, then
/// `key`, which is `"name":` already written out.
#[doc(hidden)]
pub fn member(out: &mut Vec<u8>, first: &mut bool, key: &str) {
    separate(out, first);
    out.extend_from_slice(key.as_bytes());
}

/// Starts a member whose key is escaped here.
fn escaped_member(out: &mut Vec<u8>, first: &mut bool, key: &str) {
    separate(out, first);
    write_str(out, key);
    out.push(b':');
}

/// The comma before every member but the first.
fn separate(out: &mut Vec<u8>, first: &mut bool) {
    if !std::mem::take(first) {
        out.push(b',');
    }
}

/// A generated object's extra keys, refused where they repeat a schema
/// property (as its `Serialize` impl refuses them); `write` writes a
/// value (a probe, where the value type is known).
#[doc(hidden)]
pub fn write_extra<'a, V: 'a>(
    out: &mut Vec<u8>,
    first: &mut bool,
    extra: impl IntoIterator<Item = (&'a String, &'a V)>,
    type_name: &str,
    known: &[&str],
    write: impl Fn(&mut Vec<u8>, &V) -> Result<(), Error>,
) -> Result<(), Error> {
    for (key, value) in extra {
        if known.contains(&key.as_str()) {
            return Err(Error::custom(format_args!(
                "{type_name}: key `{key}` in `extra` duplicates a schema property"
            )));
        }
        escaped_member(out, first, key);
        write(out, value)?;
    }
    Ok(())
}

/// Whether `key` is written the same with or without escaping: the
/// generated code writes schema keys as prepared text, checked by this at
/// compile time.
#[doc(hidden)]
pub const fn plain_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if must_escape(bytes[at]) {
            return false;
        }
        at += 1;
    }
    true
}

const fn must_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

const ONES: u64 = u64::from_le_bytes([1; 8]);
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// A flag in the high bit of each of the eight bytes of `word` that is a
/// control character, `"` or `\`. The lowest flag is exact (a borrow only
/// runs upward from a flagged byte), so it tells where the first one is.
fn escape_flags(word: u64) -> u64 {
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    // `x - 1` borrows into the high bit of a byte that was zero (or below
    // 0x20 for the first term); `!word` drops bytes of 0x80 and above.
    (word.wrapping_sub(ONES * 0x20) | quote.wrapping_sub(ONES) | backslash.wrapping_sub(ONES))
        & !word
        & HIGHS
}

/// The first byte of `bytes` that a JSON string must escape (a control
/// character, `"` or `\`): a reader finds where a string's text ends, or
/// its first escape, with it.
pub fn first_escape(bytes: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(word) = bytes.get(from..).and_then(<[u8]>::first_chunk::<8>) {
        let flags = escape_flags(u64::from_le_bytes(*word));
        if flags != 0 {
            return Some(from + flags.trailing_zeros() as usize / 8);
        }
        from += 8;
    }
    match bytes.last_chunk::<8>() {
        // Fewer than eight left after at least eight: the last eight again,
        // the clean ones before `from` among them.
        Some(word) if from < bytes.len() => {
            let flags = escape_flags(u64::from_le_bytes(*word));
            (flags != 0).then(|| bytes.len() - 8 + flags.trailing_zeros() as usize / 8)
        }
        Some(_) => None,
        None => bytes.iter().position(|&byte| must_escape(byte)),
    }
}

/// `value` as a JSON string, escaped as serde_json escapes it.
pub fn write_str(out: &mut Vec<u8>, value: &str) {
    let mut rest = value.as_bytes();
    out.reserve(rest.len() + 2);
    out.push(b'"');
    while let Some(at) = first_escape(rest) {
        out.extend_from_slice(&rest[..at]);
        write_escape(out, rest[at]);
        rest = &rest[at + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

fn write_escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn same_as_serde_json<T: WriteJson + Serialize + ?Sized>(value: &T) {
        let ours = to_vec(value).map_err(|e| e.to_string());
        let theirs = serde_json::to_vec(value).map_err(|e| e.to_string());
        match (&ours, &theirs) {
            (Ok(ours), Ok(theirs)) => assert_eq!(
                String::from_utf8_lossy(ours),
                String::from_utf8_lossy(theirs)
            ),
            _ => panic!("ours {ours:?}, serde_json {theirs:?}"),
        }
    }

    #[test]
    fn every_byte_is_escaped_as_serde_json_escapes_it() {
        let all: String = (0u8..0x80).map(char::from).collect();
        same_as_serde_json(&all);
        for escape in ['"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', 'é', '😀'] {
            for at in 0..20 {
                let text: String = (0..20)
                    .map(|i| if i == at { escape } else { 'a' })
                    .collect();
                same_as_serde_json(&text);
            }
        }
        same_as_serde_json("");
        same_as_serde_json("\u{0}\u{8}\u{c}\r\t");
        // A byte just above a limit after one below it (a borrow runs into
        // it), at every offset of the last word, read again.
        for len in 0..12 {
            for first in 0u8..0x80 {
                for next in [b' ', b'!', b'"', b'#', b'\\', b']', 0xc3] {
                    let mut bytes = vec![b'x'; len];
                    bytes.push(first);
                    if next == 0xc3 {
                        bytes.extend_from_slice("é".as_bytes());
                    } else {
                        bytes.push(next);
                    }
                    same_as_serde_json(std::str::from_utf8(&bytes).expect("UTF-8"));
                }
            }
        }
    }

    #[test]
    fn values_and_containers_match() {
        same_as_serde_json(&json!({
            "a": [1, -2, 3.5, 1e300, -0.0, u64::MAX, i64::MIN],
            "b": {"nested": [null, true, false, {}], "": []},
            "é\"k": "v\u{1}",
        }));
        same_as_serde_json(&vec![Some(1u32), None]);
        same_as_serde_json(&BTreeMap::from([("k".to_owned(), Arc::new(f64::NAN))]));
        same_as_serde_json(&Box::new(i8::MIN));
    }

    #[test]
    #[allow(
        clippy::needless_borrow,
        reason = "the borrow is what picks `WriteJson`"
    )]
    fn the_probe_takes_write_json_else_serde() {
        #[derive(Serialize)]
        struct SerdeOnly {
            x: f32,
        }
        use super::{ViaSerde as _, ViaWriteJson as _};
        let mut out = Vec::new();
        (&Probe(&SerdeOnly { x: 0.5 }))
            .emit(&mut out)
            .expect("writes");
        out.push(b' ');
        (&Probe(&json!(["a"]))).emit(&mut out).expect("writes");
        assert_eq!(out, br#"{"x":0.5} ["a"]"#);
    }

    #[test]
    fn keys_that_need_escaping_are_not_plain() {
        assert!(plain_key("io.modelcontextprotocol/serverInfo"));
        assert!(!plain_key("a\"b"));
        assert!(!plain_key("a\\b"));
        assert!(!plain_key("a\nb"));
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let text = || {
            proptest::string::string_regex("[\\x00-\\x7f\u{80}-\u{10ffff}]{0,24}")
                .expect("a valid pattern")
        };
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            text().prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 64, 8, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::from),
                proptest::collection::btree_map(text(), inner, 0..8)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_json_value_is_written_as_serde_json_writes_it(value in any_json()) {
            prop_assert_eq!(to_vec(&value).ok(), serde_json::to_vec(&value).ok());
        }
    }
}
