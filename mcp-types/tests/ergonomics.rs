//! The generated constructors, builders, `with_*` setters, cache hints,
//! prelude and the hand-written helpers: each produces the JSON a struct
//! literal (the only way before them) produces.

#![allow(clippy::unwrap_used)] // a test may panic

use mcp_era_types::v2026_07_28::prelude::*;
use serde_json::{Value, json};

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

// `Result` is still `std::result::Result` after the glob import.
fn parse(text: &str) -> Result<ResultObject, serde_json::Error> {
    serde_json::from_str(text)
}

#[test]
fn prelude_does_not_shadow_std_result() {
    let generic = parse(r#"{"resultType":"complete"}"#).unwrap();
    assert_eq!(to_json(&generic)["resultType"], "complete");
    let error: ErrorObject = serde_json::from_value(json!({"code": -1, "message": "m"})).unwrap();
    assert_eq!(error.code, -1);
}

#[test]
fn builder_round_trip_matches_struct_literal() {
    let built = Resource::builder()
        .name("readme")
        .uri("file:///README.md")
        .build()
        .with_mime_type("text/markdown")
        .with_size(12);
    let mut literal: Resource =
        serde_json::from_value(json!({"name": "readme", "uri": "file:///README.md"})).unwrap();
    literal.mime_type = Some("text/markdown".to_owned());
    literal.size = Some(12);
    assert_eq!(built, literal);
    let expected = json!({
        "name": "readme",
        "uri": "file:///README.md",
        "mimeType": "text/markdown",
        "size": 12,
    });
    assert_eq!(to_json(&built), expected);
    let back: Resource = serde_json::from_value(expected).unwrap();
    assert_eq!(back, built);
}

#[test]
fn setters_in_any_order() {
    let a = Implementation::builder().name("n").version("1").build();
    let b = Implementation::builder()
        .version(String::from("1"))
        .name("n")
        .build();
    assert_eq!(a, b);
    assert_eq!(to_json(&a), json!({"name": "n", "version": "1"}));
}

#[test]
fn positional_new_takes_into_string_and_hints() {
    let tool = Tool::new(ToolInputSchema::new(), "echo").with_description("Echoes.");
    let result = ListToolsResult::new(vec![tool], CacheHints::public(60_000)).with_next_cursor("c");
    assert_eq!(
        to_json(&result),
        json!({
            "cacheScope": "public",
            "nextCursor": "c",
            "resultType": "complete",
            "tools": [{"description": "Echoes.", "inputSchema": {"type": "object"}, "name": "echo"}],
            "ttlMs": 60_000,
        })
    );
    assert_eq!(
        result.cache_hints(),
        CacheHints::new(60_000, CacheScope::Public)
    );
    let none = ListPromptsResult::new(vec![], CacheHints::NONE);
    assert_eq!((none.ttl_ms, none.cache_scope), (0, CacheScope::Private));
}

#[test]
fn helpers_produce_spec_shapes() {
    assert_eq!(
        to_json(&CallToolResult::error("boom")),
        json!({"content": [{"type": "text", "text": "boom"}], "isError": true, "resultType": "complete"})
    );
    assert_eq!(
        to_json(&CallToolResult::structured(json!({"a": 1}))),
        json!({
            "content": [{"type": "text", "text": "{\"a\":1}"}],
            "structuredContent": {"a": 1},
            "resultType": "complete",
        })
    );
    let response: CallToolResultResponseResult = CallToolResult::text("hi").into();
    assert_eq!(response.result_type(), "complete");
    assert_eq!(
        to_json(&ContentBlock::image_from_base64("AAAA", "image/png")),
        json!({"type": "image", "data": "AAAA", "mimeType": "image/png"})
    );
    assert_eq!(
        to_json(&ContentBlock::audio_from_base64("UklG", "audio/wav")),
        json!({"type": "audio", "data": "UklG", "mimeType": "audio/wav"})
    );
    assert_eq!(
        ContentBlock::from("x"),
        ContentBlock::text(String::from("x"))
    );
    assert_eq!(
        to_json(&PromptMessage::user("q")),
        json!({"role": "user", "content": {"type": "text", "text": "q"}})
    );
    let prompt = GetPromptResult::from(vec![PromptMessage::assistant("a")]);
    assert_eq!(prompt.messages[0].role, Role::Assistant);
    assert_eq!(
        to_json(&TextResourceContents::from_uri_and_text(
            "file:///a",
            "body"
        )),
        json!({"uri": "file:///a", "text": "body"})
    );
    assert_eq!(
        to_json(
            &BlobResourceContents::from_uri_and_blob("file:///b", "AAAA").with_mime_type("x/y")
        ),
        json!({"uri": "file:///b", "blob": "AAAA", "mimeType": "x/y"})
    );
    assert_eq!(
        to_json(&ContentBlock::embedded(
            TextResourceContents::from_uri_and_text("u", "t")
        )),
        json!({"type": "resource", "resource": {"uri": "u", "text": "t"}})
    );
}

// Misuse of a builder does not compile: the UI tests are
// `mcp-derive-ui/tests/ui/types_*.rs`, checked in the derive's nested
// build rather than in one of their own.

// Every request's `_meta` holds capabilities and a client identity: shared,
// so that moving a request copies pointers and copying it clones none
// (codegen's `SHARED`), while the constructors and setters still take the
// plain values.
#[test]
fn request_meta_stores_the_large_parts_shared() {
    let client = Implementation::builder()
        .name("client")
        .version("1.0.0")
        .build();
    let meta = RequestMetaObject::new(ClientCapabilities::default(), "2026-07-28")
        .with_client_info(client.clone());
    assert_eq!(meta.client_info.as_deref(), Some(&client));
    assert!(meta.client_capabilities.extensions.is_none());
    let json = to_json(&meta);
    assert_eq!(
        json,
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "client", "version": "1.0.0"},
        })
    );
    assert_eq!(
        serde_json::from_value::<RequestMetaObject>(json).unwrap(),
        meta
    );
    let inline = std::mem::size_of::<ClientCapabilities>() + std::mem::size_of::<Implementation>();
    assert!(
        std::mem::size_of::<RequestMetaObject>() < inline,
        "RequestMetaObject is {} bytes: its capabilities and client info are not boxed",
        std::mem::size_of::<RequestMetaObject>()
    );
}
