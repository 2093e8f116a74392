//! Fuzzes the `Mcp-Name`/`Mcp-Param-*` value encoding of
//! `mcp_types::headers`. Invariants: `decode_value` never panics, and
//! takes a value without the sentinel literally; `encode_value` gives a
//! plain printable-ASCII header value (no surrounding spaces) that
//! `decode_value` turns back into the original string; Base64 round-trips
//! arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_types::headers::{base64_encode, decode_value, encode_value, needs_base64};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(decoded) = decode_value(&text) {
        if !(text.starts_with("=?base64?") && text.ends_with("?=") && text.len() >= 11) {
            assert_eq!(decoded, text, "a plain value was not taken literally");
        }
    }
    let encoded = encode_value(&text);
    assert!(
        encoded.bytes().all(|b| (0x20..=0x7e).contains(&b)),
        "not a printable ASCII header value: {encoded:?}"
    );
    assert_eq!(encoded.trim(), encoded, "surrounding spaces: {encoded:?}");
    assert_eq!(encoded == *text, !needs_base64(&text));
    assert_eq!(
        decode_value(&encoded).as_deref(),
        Ok(&*text),
        "round trip of {text:?}"
    );
    let base64 = format!("=?base64?{}?=", base64_encode(data));
    match std::str::from_utf8(data) {
        Ok(original) => assert_eq!(decode_value(&base64).as_deref(), Ok(original)),
        Err(_) => assert!(decode_value(&base64).is_err(), "invalid UTF-8 decoded"),
    }
});
