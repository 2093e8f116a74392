//! Fuzzes the `Mcp-Name`/`Mcp-Param-*` value encoding of
//! `mcp_era_types::headers`. Invariants: `decode_value` never panics, and
//! takes a value without the sentinel literally; `encode_value` gives a
//! plain printable-ASCII header value (no surrounding spaces) that
//! `decode_value` turns back into the original string; Base64 round-trips
//! arbitrary bytes.
//!
//! The same input, read as a request head, goes to the HTTP transport
//! (`McpService`, a modern `tools/call` body): a flags byte (bit 0 an
//! absolute-form target, bit 1 whose authority is not allowed), then
//! header lines separated by 0xFF, each a byte picking the name from
//! [`NAMES`] and the value. Invariants: no panic; a `Transfer-Encoding`
//! other than one `chunked` gets 501; else a `Host` not sent exactly once
//! gets 400; a target naming a disallowed host is never served; a
//! repeated MCP header line is never served; every error body is JSON-RPC.
#![no_main]

use std::sync::OnceLock;

use http_body_util::BodyExt;
use libfuzzer_sys::fuzz_target;
use mcp_everything::Everything;
use mcp_fuzz::{block_on, check_message, server};
use mcp_era_server::http::{HttpConfig, McpService};
use mcp_era_types::headers::{base64_encode, decode_value, encode_value, needs_base64};
use tower_service::Service;

/// The header names a request head is made of; the MCP ones of the
/// header/body rule first.
const NAMES: [&str; 10] = [
    "MCP-Protocol-Version",
    "Mcp-Method",
    "Mcp-Name",
    "Mcp-Param-Region",
    "Host",
    "Transfer-Encoding",
    "Mcp-Session-Id",
    "Origin",
    "Content-Type",
    "Accept",
];
const MCP_RULE_HEADERS: usize = 4;
const HOST: usize = 4;
const TRANSFER_ENCODING: usize = 5;

const ABSOLUTE_FORM: u8 = 1;
const OTHER_AUTHORITY: u8 = 2;

fn service() -> McpService<Everything> {
    static SERVICE: OnceLock<McpService<Everything>> = OnceLock::new();
    SERVICE
        .get_or_init(|| {
            let config = HttpConfig::new(([127, 0, 0, 1], 0).into());
            McpService::from_arc(server(), config).expect("the fixture's catalogue is valid")
        })
        .clone()
}

/// Whether the `Transfer-Encoding` lines say exactly one `chunked`.
fn only_chunked(lines: &[&[u8]]) -> bool {
    let text: Vec<String> = lines
        .iter()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect();
    let codings: Vec<&str> = text
        .iter()
        .flat_map(|l| l.split(','))
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    matches!(codings.as_slice(), [c] if c.eq_ignore_ascii_case("chunked"))
}

fn request_head(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let authority = if flags & OTHER_AUTHORITY == 0 {
        "localhost"
    } else {
        "other.example"
    };
    let target = if flags & ABSOLUTE_FORM == 0 {
        "/mcp".to_owned()
    } else {
        format!("http://{authority}/mcp")
    };
    let mut builder = http::Request::post(target);
    let mut counts = [0usize; NAMES.len()];
    let mut codings: Vec<&[u8]> = Vec::new();
    for line in rest.split(|b| *b == 0xFF) {
        let Some((&pick, value)) = line.split_first() else {
            continue;
        };
        let index = usize::from(pick) % NAMES.len();
        // What hyper would not have parsed as a field value.
        let Ok(value) = http::HeaderValue::from_bytes(value) else {
            continue;
        };
        counts[index] += 1;
        if index == TRANSFER_ENCODING {
            codings.push(line.get(1..).unwrap_or_default());
        }
        builder = builder.header(NAMES[index], value);
    }
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_custom_header","arguments":{"region":"eu"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let Ok(request) = builder.body(body.to_owned()) else {
        return;
    };
    let answered = block_on(async {
        let response = service().call(request).await.unwrap_or_else(|e| match e {});
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.map(|b| b.to_bytes());
        (status, body)
    });
    let Some((status, Ok(body))) = answered else {
        panic!("no answer, or an unreadable one, for {data:?}");
    };
    let served = (200..300).contains(&status);
    if !codings.is_empty() && !only_chunked(&codings) {
        assert_eq!(status, 501, "transfer codings {codings:?}");
    } else if counts[HOST] != 1 {
        assert_eq!(status, 400, "{} Host lines", counts[HOST]);
    }
    if flags & (ABSOLUTE_FORM | OTHER_AUTHORITY) == ABSOLUTE_FORM | OTHER_AUTHORITY {
        assert!(!served, "a target naming another host was served: {status}");
    }
    if counts[..MCP_RULE_HEADERS].iter().any(|n| *n > 1) {
        assert!(!served, "a repeated MCP header line was served: {counts:?}");
    }
    if status >= 400 && !body.is_empty() {
        check_message(&body, false);
    }
}

fuzz_target!(|data: &[u8]| {
    request_head(data);
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
