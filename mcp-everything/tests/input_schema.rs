//! `tools/call` arguments are checked against the advertised `inputSchema`
//! over real HTTP, in both eras: a violation is a result with
//! `isError: true` naming the path and the keyword, never a handler run.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::sync::Arc;

use mcp_era_server::http::HttpConfig;
use mcp_everything::Everything;
use serde_json::{Value, json};
use tokio::net::TcpListener;

mod common;

use common::{http, open_legacy_session, post, request};

async fn start_http() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(mcp_era_server::http::serve_listener(
        Arc::new(Everything::new()),
        listener,
        HttpConfig::new(addr),
    ));
    format!("127.0.0.1:{}", addr.port())
}

/// The `result` of a modern `tools/call` of `name`.
async fn call(addr: &str, name: &str, arguments: Value) -> Value {
    let reply = post(
        addr,
        &request(
            1,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        ),
        &[],
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()["result"].clone()
}

fn failure_text(result: &Value) -> &str {
    assert_eq!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn hand_written_schema_is_enforced() {
    let addr = start_http().await;
    let valid = call(
        &addr,
        "json_schema_2020_12_tool",
        json!({"name": "Ann", "contactMethod": "email", "email": "ann@example.com"}),
    )
    .await;
    assert_eq!(valid["isError"], Value::Null, "{valid}");
    assert_eq!(
        valid["content"][0]["text"],
        "JSON Schema 2020-12 tool called with: \
         {\"contactMethod\":\"email\",\"email\":\"ann@example.com\",\"name\":\"Ann\"}"
    );

    // `additionalProperties: false`.
    let extra = call(
        &addr,
        "json_schema_2020_12_tool",
        json!({"email": "ann@example.com", "nickname": "A"}),
    )
    .await;
    assert_eq!(
        failure_text(&extra),
        "Invalid arguments (additionalProperties): \
         Additional properties are not allowed ('nickname' was unexpected)"
    );
    assert_eq!(extra["resultType"], "complete");

    // A number for a string property.
    let number = call(&addr, "json_schema_2020_12_tool", json!({"email": 5})).await;
    assert_eq!(
        failure_text(&number),
        "Invalid argument `/email` (type): 5 is not of type \"string\""
    );

    // Through a `$ref` into `$defs`, and `if`/`then`/`else`.
    let nested = call(
        &addr,
        "json_schema_2020_12_tool",
        json!({"contactMethod": "phone", "email": "a@b", "address": {"city": 7}}),
    )
    .await;
    let text = failure_text(&nested);
    assert!(
        text.contains("Invalid argument `/address/city` (type): 7 is not of type \"string\""),
        "{text}"
    );
    assert!(
        text.contains("Invalid arguments (required): \"phone\" is a required property"),
        "{text}"
    );
}

#[tokio::test]
async fn derived_schema_is_enforced_and_optional_null_is_absent() {
    let addr = start_http().await;
    let number = call(&addr, "greet", json!({"name": 5})).await;
    assert_eq!(
        failure_text(&number),
        "Invalid argument `/name` (type): 5 is not of type \"string\""
    );
    let missing = call(&addr, "greet", json!({})).await;
    assert_eq!(
        failure_text(&missing),
        "Invalid arguments (required): \"name\" is a required property"
    );
    // `Option<String>`: advertised as `string`, and `null` reads as absent.
    let header_less = post(
        &addr,
        &request(
            2,
            "tools/call",
            json!({"name": "test_custom_header", "arguments": {"region": null}}),
        ),
        &[],
    )
    .await;
    assert_eq!(
        header_less.json()["result"]["content"][0]["text"],
        "Region: ",
        "{}",
        header_less.body
    );
}

#[tokio::test]
async fn legacy_sessions_are_checked_too() {
    let addr = start_http().await;
    let session = open_legacy_session(&addr).await;
    let with_session = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let call = |id: i64, arguments: Value| {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
            "params":{"name":"json_schema_2020_12_tool","arguments":arguments}})
        .to_string()
    };
    let bad = http(
        &addr,
        "POST",
        &with_session,
        &call(2, json!({"email": "a@b", "extra": true})),
    )
    .await;
    assert_eq!(bad.status, 200, "{}", bad.body);
    let result = &bad.json()["result"];
    assert_eq!(
        failure_text(result),
        "Invalid arguments (additionalProperties): \
         Additional properties are not allowed ('extra' was unexpected)"
    );
    let good = http(
        &addr,
        "POST",
        &with_session,
        &call(3, json!({"email": "a@b"})),
    )
    .await;
    let result = &good.json()["result"];
    assert_eq!(result["isError"], Value::Null, "{result}");
}
