//! Fuzzes `mcp_era_server::transport::handle_message` on the `mcp-everything` fixture.
//!
//! Input: a flags byte, then the message, then (after a 0xFF byte, which
//! valid UTF-8 never holds) header values separated by 0xFF:
//! `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, then `Mcp-Param-*`
//! name/value pairs. Invariants: no panic; every answer is a JSON-RPC
//! object with `jsonrpc: "2.0"`; a request with a valid id (string,
//! `i64` integer, `-0` as 0) is answered with exactly that id; an invalid or
//! unreadable id is never echoed; only `subscriptions/listen` may stay
//! unanswered; a legacy session's results keep to what 2025-11-25 allows
//! where it is narrower (object `structuredContent` and `outputSchema`);
//! the scanned read of a modern request is the generated types' own read.
#![no_main]

use std::sync::{Arc, Mutex};

use libfuzzer_sys::fuzz_target;
use mcp_era_server::ServerEvents;
use mcp_era_server::mcp_era_types::headers;
use mcp_era_server::transport::{
    HeaderText, HttpHeaders, LegacySession, MessageContext, handle_message,
};
use mcp_fuzz::{block_on, check_message, echoed_id, server};
use serde_json::{Value, json};

const HTTP: u8 = 1;
const DERIVE_HEADERS: u8 = 2;
const NO_METHOD_CHECK: u8 = 4;
const LEGACY_SESSION: u8 = 8;
const CLIENT_CAPABILITIES: u8 = 16;
const EVENTS: u8 = 32;
const NO_SERVER_INFO: u8 = 64;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut parts = rest.split(|b| *b == 0xFF);
    let message = parts.next().unwrap_or_default();
    let tail: Vec<String> = parts
        .map(|part| String::from_utf8_lossy(part).trim().to_owned())
        .collect();
    let parsed: Option<Value> = serde_json::from_slice(message).ok();
    mcp_era_server::__private::check_scanned_read(message);

    let mut ctx = if flags & HTTP == 0 {
        MessageContext::stdio()
    } else {
        MessageContext::http_headers(http_headers(flags, parsed.as_ref(), &tail))
    };
    if flags & LEGACY_SESSION != 0 {
        let capabilities = if flags & CLIENT_CAPABILITIES != 0 {
            json!({ "sampling": {}, "elicitation": {}, "roots": {} })
        } else {
            json!({})
        };
        ctx = ctx.with_legacy_session(LegacySession::new(
            "2025-11-25".into(),
            capabilities,
            json!({ "name": "fuzz", "version": "0" }),
        ));
    }
    if flags & EVENTS != 0 {
        ctx = ctx.with_events(ServerEvents::new());
    }
    let sent = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&sent);
    ctx = ctx
        .with_sink(move |message| sink.lock().expect("sink").push(message))
        .with_server_info_in_results(flags & NO_SERVER_INFO == 0);

    let server = server();
    let outcome = block_on(handle_message(&*server, message, &ctx));

    for message in sent.lock().expect("sink").iter() {
        let bytes = serde_json::to_vec(message).expect("a Value serializes");
        check_message(&bytes, true);
    }
    let object = parsed.as_ref().and_then(Value::as_object);
    let Some(outcome) = outcome else {
        let method = object.and_then(|o| o.get("method")).and_then(Value::as_str);
        assert_eq!(
            method,
            Some("subscriptions/listen"),
            "no answer, and not a listen request"
        );
        return;
    };
    let answer = outcome
        .body
        .as_deref()
        .map(|body| check_message(body, false));
    // A legacy answer: in a session, and without the `resultType` every
    // modern result has (a modern request there is served modern).
    if flags & LEGACY_SESSION != 0
        && let Some(result) = answer.as_ref().and_then(|a| a.get("result"))
        && result.get("resultType").is_none()
    {
        check_legacy_result(result);
    }
    let answer_id = answer
        .as_ref()
        .and_then(|a| a.get("id"))
        .filter(|id| !id.is_null());
    match object.and_then(|o| o.get("id")) {
        Some(id) => match echoed_id(message, id) {
            Some(expected) => assert_eq!(
                answer_id,
                Some(&expected),
                "the id is not echoed exactly: {answer:?}"
            ),
            None => assert_eq!(answer_id, None, "the invalid id {id} was echoed"),
        },
        None => assert_eq!(answer_id, None, "an id out of nowhere: {answer:?}"),
    }
});

/// The headers: each one from the tail when it is there, else (with
/// `DERIVE_HEADERS`) the value a correct client would send, else absent.
fn http_headers(flags: u8, message: Option<&Value>, tail: &[String]) -> HttpHeaders {
    let derive = flags & DERIVE_HEADERS != 0;
    let derived = |pointer: &str| {
        message
            .filter(|_| derive)
            .and_then(|m| m.pointer(pointer))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let method_name = message
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let name = message
        .filter(|_| derive)
        .and_then(|m| m.get("params"))
        .and_then(|params| headers::mcp_name(method_name, params))
        .map(headers::encode_value);
    let mut params = Vec::new();
    if derive
        && let Some(arguments) = message
            .and_then(|m| m.pointer("/params/arguments"))
            .and_then(Value::as_object)
    {
        for (key, value) in arguments {
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Number(_) | Value::Bool(_) => value.to_string(),
                _ => continue,
            };
            params.push((key.to_ascii_lowercase(), headers::encode_value(&text)));
        }
    }
    for pair in tail.get(3..).unwrap_or_default().chunks(2) {
        if let [name, value] = pair {
            params.push((name.to_ascii_lowercase(), value.clone()));
        }
    }
    let method = tail.get(1).cloned().or_else(|| derived("/method"));
    HttpHeaders {
        protocol_version: tail
            .first()
            .cloned()
            .or_else(|| derived("/params/_meta/io.modelcontextprotocol~1protocolVersion"))
            .map(HeaderText::from),
        method: (flags & NO_METHOD_CHECK == 0).then_some(method.map(HeaderText::from)),
        name: tail.get(2).cloned().or(name).map(HeaderText::from),
        params: params.into_iter().map(|(n, v)| (n, v.into())).collect(),
    }
}

/// The 2025-11-25 schema's narrower result shapes: `structuredContent`
/// and each tool's `outputSchema` are objects, the latter `"type": "object"`.
fn check_legacy_result(result: &Value) {
    if let Some(structured) = result.get("structuredContent") {
        assert!(structured.is_object(), "legacy structuredContent: {result}");
    }
    let tools = result.get("tools").and_then(Value::as_array);
    for tool in tools.into_iter().flatten() {
        if let Some(schema) = tool.get("outputSchema") {
            assert_eq!(schema["type"], "object", "legacy outputSchema: {tool}");
        }
    }
}
