//! Property tests: generated types round-trip. Values built by proptest
//! strategies (`RequestId`, `ContentBlock`, `Tool`, `CallToolResult`, the
//! `ClientRequest` variants) and the official examples with arbitrary ids,
//! texts, arguments and `_meta` entries go JSON → type → JSON text → type
//! and must come back equal, as the same JSON.
//!
//! The examples are read from `$MCP_SCHEMA_DIR/2026-07-28/examples` (a
//! relative path is taken from the workspace root); without it that one
//! property prints that it did not run.

#![allow(clippy::unwrap_used)] // tests

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use mcp_era_types::json::WriteJson;
use mcp_era_types::v2025_11_25 as legacy;
use mcp_era_types::v2026_07_28::{
    self as modern, CallToolResult, ClientRequest, ContentBlock, RequestId, Tool,
};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// Reads `value` as `T`, then T → JSON text → T: equal, and written back
/// as exactly `value`, by serde and by `WriteJson` alike.
fn round_trip<T>(value: &Value) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug + WriteJson,
{
    let typed: T = serde_json::from_value(value.clone())
        .map_err(|e| TestCaseError::fail(format!("{value} does not read: {e}")))?;
    let text = serde_json::to_string(&typed).unwrap();
    let written = mcp_era_types::json::to_vec(&typed).unwrap();
    prop_assert_eq!(String::from_utf8(written).unwrap(), text.clone());
    let again: T = serde_json::from_str(&text).unwrap();
    prop_assert_eq!(&typed, &again);
    let written: Value = serde_json::from_str(&text).unwrap();
    prop_assert_eq!(&written, value);
    Ok(())
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "[a-z_/:.]{1,12}"]
}

/// Arbitrary JSON: every kind of leaf, nested arrays and objects.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(text(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map(text(), json(), 0..4).prop_map(|m| m.into_iter().collect())
}

fn request_id() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::from)
    ]
}

/// Inserts each `Some` entry into `object`.
fn with(mut object: Value, entries: Vec<(&str, Option<Value>)>) -> Value {
    for (key, value) in entries {
        if let Some(value) = value {
            object[key] = value;
        }
    }
    object
}

fn annotations() -> impl Strategy<Value = Option<Value>> {
    prop::option::of(
        (
            prop::sample::subsequence(vec!["user", "assistant"], 0..=2),
            prop::option::of(0.0..=1.0f64),
            prop::option::of(text()),
        )
            .prop_map(|(audience, priority, modified)| {
                with(
                    json!({ "audience": audience }),
                    vec![
                        ("priority", priority.map(Value::from)),
                        ("lastModified", modified.map(Value::from)),
                    ],
                )
            }),
    )
}

fn meta() -> impl Strategy<Value = Option<Value>> {
    prop::option::of(object().prop_map(Value::Object))
}

fn content_block() -> impl Strategy<Value = Value> {
    let text_content = (text(), annotations(), meta()).prop_map(|(text, annotations, meta)| {
        with(
            json!({ "type": "text", "text": text }),
            vec![("annotations", annotations), ("_meta", meta)],
        )
    });
    let media = (
        prop_oneof![Just("image"), Just("audio")],
        "[A-Za-z0-9+/]{0,16}",
        text(),
        annotations(),
    )
        .prop_map(|(kind, data, mime, annotations)| {
            with(
                json!({ "type": kind, "data": data, "mimeType": mime }),
                vec![("annotations", annotations)],
            )
        });
    let link = (
        text(),
        text(),
        prop::option::of(text()),
        prop::option::of(any::<u32>()),
    )
        .prop_map(|(uri, name, description, size)| {
            with(
                json!({ "type": "resource_link", "uri": uri, "name": name }),
                vec![
                    ("description", description.map(Value::from)),
                    ("size", size.map(Value::from)),
                ],
            )
        });
    let embedded = (text(), text(), any::<bool>(), prop::option::of(text())).prop_map(
        |(uri, body, is_text, mime)| {
            let key = if is_text { "text" } else { "blob" };
            let resource = with(
                json!({ "uri": uri, key: body }),
                vec![("mimeType", mime.map(Value::from))],
            );
            json!({ "type": "resource", "resource": resource })
        },
    );
    prop_oneof![text_content, media, link, embedded]
}

fn tool() -> impl Strategy<Value = Value> {
    (
        text(),
        prop::option::of(text()),
        prop::option::of(text()),
        object(),
        prop::option::of(Just(json!({ "type": "object" }))),
        prop::option::of((any::<bool>(), any::<bool>())),
    )
        .prop_map(|(name, title, description, properties, output, hints)| {
            with(
                json!({
                    "name": name,
                    "inputSchema": { "type": "object", "properties": properties },
                }),
                vec![
                    ("title", title.map(Value::from)),
                    ("description", description.map(Value::from)),
                    ("outputSchema", output),
                    (
                        "annotations",
                        hints.map(|(read_only, destructive)| {
                            json!({ "readOnlyHint": read_only, "destructiveHint": destructive })
                        }),
                    ),
                ],
            )
        })
}

fn call_tool_result() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(content_block(), 0..4),
        prop::option::of(any::<bool>()),
        prop::option::of(json()),
        meta(),
    )
        .prop_map(|(content, is_error, structured, meta)| {
            with(
                json!({ "resultType": "complete", "content": content }),
                vec![
                    ("isError", is_error.map(Value::from)),
                    ("structuredContent", structured),
                    ("_meta", meta),
                ],
            )
        })
}

/// A modern request of one of the client's methods, with its required
/// params and arbitrary optional ones.
fn client_request() -> impl Strategy<Value = Value> {
    let params = prop_oneof![
        Just(("server/discover", json!({}))),
        prop::option::of(text()).prop_map(|cursor| {
            let params = with(json!({}), vec![("cursor", cursor.map(Value::from))]);
            ("tools/list", params)
        }),
        (text(), prop::option::of(object())).prop_map(|(name, arguments)| {
            let arguments = arguments.map(Value::Object);
            (
                "tools/call",
                with(json!({ "name": name }), vec![("arguments", arguments)]),
            )
        }),
        text().prop_map(|uri| ("resources/read", json!({ "uri": uri }))),
        Just(("resources/list", json!({}))),
        Just(("resources/templates/list", json!({}))),
        Just(("prompts/list", json!({}))),
        (text(), prop::collection::btree_map(text(), text(), 0..3)).prop_map(
            |(name, arguments)| {
                (
                    "prompts/get",
                    json!({ "name": name, "arguments": arguments }),
                )
            }
        ),
        (text(), text(), text()).prop_map(|(name, argument, value)| {
            let params = json!({
                "ref": { "type": "ref/prompt", "name": name },
                "argument": { "name": argument, "value": value },
            });
            ("completion/complete", params)
        }),
    ];
    (request_id(), params, text(), object()).prop_map(|(id, (method, params), version, extra)| {
        let mut params = params;
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        for (key, value) in extra {
            // Keys the request `_meta` types give a meaning to stay typed.
            if !key.starts_with("io.modelcontextprotocol/") && key != "progressToken" {
                meta[key] = value;
            }
        }
        params["_meta"] = meta;
        json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn request_ids_round_trip(id in request_id()) {
        round_trip::<RequestId>(&id)?;
        round_trip::<legacy::RequestId>(&id)?;
        prop_assert_eq!(RequestId::from_json(&id).unwrap(), serde_json::from_value(id).unwrap());
    }

    #[test]
    fn content_blocks_round_trip(block in content_block()) {
        round_trip::<ContentBlock>(&block)?;
        round_trip::<legacy::ContentBlock>(&block)?;
        prop_assert_eq!(ContentBlock::from_json(&block).unwrap(), serde_json::from_value(block).unwrap());
    }

    #[test]
    fn tools_round_trip(tool in tool()) {
        round_trip::<Tool>(&tool)?;
    }

    #[test]
    fn call_tool_results_round_trip(result in call_tool_result()) {
        round_trip::<CallToolResult>(&result)?;
        round_trip::<modern::CallToolResultResponseResult>(&result)?;
    }

    #[test]
    fn client_requests_round_trip(request in client_request()) {
        round_trip::<ClientRequest>(&request)?;
        let typed = ClientRequest::from_json(&request).unwrap();
        prop_assert_eq!(typed.method(), request["method"].as_str().unwrap());
        round_trip::<modern::JSONRPCMessage>(&request)?;
    }

    #[test]
    fn official_examples_with_arbitrary_parts_round_trip(
        pick in any::<prop::sample::Index>(),
        id in request_id(),
        text in text(),
        arguments in object(),
        extra in json(),
    ) {
        let Some(examples) = examples() else { return Ok(()) };
        let (type_name, example) = &examples[pick.index(examples.len())];
        let mut value = example.clone();
        if value.get("jsonrpc").is_some() && value.get("id").is_some() {
            value["id"] = id;
        }
        vary(&mut value, &text, &arguments, &extra);
        let written = modern::roundtrip_named(type_name, value.clone())
            .map_err(|e| TestCaseError::fail(format!("{type_name}: {e}\n{value}")))?;
        prop_assert_eq!(written, value, "{}", type_name);
    }
}

/// Replaces every `text` string, `arguments` object and `structuredContent`
/// and adds an extra `_meta` entry, all through the tree.
fn vary(value: &mut Value, text: &str, arguments: &Map<String, Value>, extra: &Value) {
    match value {
        Value::Object(object) => {
            for (key, member) in object.iter_mut() {
                match (key.as_str(), &mut *member) {
                    ("text", Value::String(s)) => *s = text.to_owned(),
                    ("arguments", Value::Object(a)) if a.values().any(|v| !v.is_string()) => {
                        *a = arguments.clone();
                    }
                    ("structuredContent", _) => *member = extra.clone(),
                    ("_meta", Value::Object(meta)) => {
                        meta.insert("com.example/fuzz".into(), extra.clone());
                    }
                    _ => vary(member, text, arguments, extra),
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| vary(v, text, arguments, extra)),
        _ => {}
    }
}

/// The official 2026-07-28 examples that round-trip unchanged, as (type
/// name, value); `None` without `MCP_SCHEMA_DIR`.
fn examples() -> Option<&'static [(String, Value)]> {
    static EXAMPLES: std::sync::OnceLock<Option<Vec<(String, Value)>>> = std::sync::OnceLock::new();
    EXAMPLES
        .get_or_init(|| {
            let Some(dir) = std::env::var_os("MCP_SCHEMA_DIR").map(PathBuf::from) else {
                println!("MCP_SCHEMA_DIR is not set: the official-example property did NOT run");
                return None;
            };
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
            let mut out = Vec::new();
            for type_dir in std::fs::read_dir(dir.join("2026-07-28/examples")).unwrap() {
                let type_dir = type_dir.unwrap().path();
                let type_name = type_dir.file_name().unwrap().to_string_lossy().into_owned();
                for file in std::fs::read_dir(&type_dir).unwrap() {
                    let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
                    let value: Value = serde_json::from_str(&text).unwrap();
                    if modern::roundtrip_named(&type_name, value.clone()).ok()
                        == Some(value.clone())
                    {
                        out.push((type_name.clone(), value));
                    }
                }
            }
            out.sort_by(|a, b| a.0.cmp(&b.0));
            assert!(out.len() > 100, "only {} examples round-trip", out.len());
            Some(out)
        })
        .as_deref()
}

/// Found by the `union_from_json` fuzz target: serde_json's default float
/// parser may land one ULP off, so `922337203685.775809` read, written
/// (`922337203685.7758`) and read again changed value. The workspace turns
/// on `float_roundtrip`.
#[test]
fn floats_survive_a_text_round_trip() {
    let text = r#"{"content":"2.0","id":922337203685.775809,"mathod":"tools/list"}"#;
    let first = legacy::ClientResult::from_json(&serde_json::from_str(text).unwrap()).unwrap();
    let written = serde_json::to_string(&first).unwrap();
    let second = legacy::ClientResult::from_json(&serde_json::from_str(&written).unwrap()).unwrap();
    assert_eq!(first, second, "{written}");
    let number: f64 = serde_json::from_str("922337203685.775809").unwrap();
    assert_eq!(number, 922_337_203_685.775_8);
}
