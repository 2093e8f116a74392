//! Our own fixtures (`tests/fixtures/*.json`): values that must round-trip
//! unchanged with known union choices, and values that must be rejected with
//! a message naming the problem; plus typed checks of the generated API.

#![allow(clippy::unwrap_used)] // a test may panic on broken fixtures

use std::collections::BTreeMap;

use mcp_era_types::ext::tasks;
use mcp_era_types::inspect::Walk;
use mcp_era_types::{NamedError, NamedTypeFn, v2025_11_25 as legacy, v2026_07_28 as modern};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Deserialize)]
struct Fixtures {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    revision: String,
    #[serde(rename = "type")]
    type_name: String,
    #[serde(default)]
    value: Value,
    raw: Option<String>,
    variants: Option<BTreeMap<String, String>>,
    error: Option<String>,
}

fn load(file: &str) -> Vec<Case> {
    let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str::<Fixtures>(&text).unwrap().cases
}

/// Parses raw JSON text as the named type (keeps duplicate keys visible,
/// which a `serde_json::Value` would silently merge).
struct ParseText<'a>(&'a str);

impl NamedTypeFn for ParseText<'_> {
    type Output = Result<(), String>;
    fn call<T>(self, _: &'static str) -> Self::Output
    where
        T: Serialize + DeserializeOwned + Walk,
    {
        serde_json::from_str::<T>(self.0)
            .map(drop)
            .map_err(|e| e.to_string())
    }
}

fn roundtrip(case: &Case) -> Result<Value, NamedError> {
    match case.revision.as_str() {
        "2026-07-28" => modern::roundtrip_named(&case.type_name, case.value.clone()),
        "2025-11-25" => legacy::roundtrip_named(&case.type_name, case.value.clone()),
        "ext/tasks" => tasks::roundtrip_named(&case.type_name, case.value.clone()),
        other => panic!("{}: unknown revision {other}", case.name),
    }
}

fn choices(case: &Case) -> BTreeMap<String, String> {
    let list = match case.revision.as_str() {
        "2026-07-28" => modern::union_choices_named(&case.type_name, case.value.clone()),
        "ext/tasks" => tasks::union_choices_named(&case.type_name, case.value.clone()),
        _ => legacy::union_choices_named(&case.type_name, case.value.clone()),
    }
    .unwrap();
    list.into_iter()
        .map(|c| (c.path, format!("{}::{}", c.union, c.variant)))
        .collect()
}

#[test]
fn fixtures_round_trip_with_the_expected_variants() {
    let cases = load("roundtrip.json");
    assert!(cases.len() >= 20);
    for case in &cases {
        let back = roundtrip(case).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(back, case.value, "{}", case.name);
        // Compare as JSON text too: 50 and 50.0 are equal Values only if
        // their Number kinds agree, which is exactly what must not change.
        assert_eq!(back.to_string(), case.value.to_string(), "{}", case.name);
        if let Some(expected) = &case.variants {
            assert_eq!(&choices(case), expected, "{}", case.name);
        }
    }
}

#[test]
fn fixtures_are_rejected_with_a_clear_message() {
    let cases = load("rejected.json");
    assert!(cases.len() >= 15);
    for case in &cases {
        let expected = case.error.as_deref().unwrap();
        let message = match &case.raw {
            Some(raw) => {
                let parse = ParseText(raw);
                let result = match case.revision.as_str() {
                    "2026-07-28" => modern::with_named_type(&case.type_name, parse),
                    "ext/tasks" => tasks::with_named_type(&case.type_name, parse),
                    _ => legacy::with_named_type(&case.type_name, parse),
                };
                result.unwrap().expect_err(&case.name)
            }
            None => roundtrip(case).expect_err(&case.name).to_string(),
        };
        assert!(
            message.contains(expected),
            "{}: message {message:?} lacks {expected:?}",
            case.name
        );
    }
}

#[test]
fn consts_are_written_even_though_they_are_not_stored() {
    let meta = modern::RequestMetaObject::new(modern::ClientCapabilities::default(), "2026-07-28");
    let request = modern::DiscoverRequest::new(
        modern::RequestId::String("1".into()),
        modern::RequestParams::new(meta),
    );
    assert_eq!(
        serde_json::to_value(&request).unwrap(),
        json!({
            "jsonrpc": "2.0", "id": "1", "method": "server/discover",
            "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }}
        })
    );
    assert_eq!(
        modern::DiscoverRequest::METHOD,
        modern::methods::SERVER_DISCOVER
    );
    assert_eq!(
        modern::UnsupportedProtocolVersionErrorError::CODE,
        modern::error_codes::UNSUPPORTED_PROTOCOL_VERSION_ERROR
    );
}

#[test]
fn complete_results_accept_a_missing_result_type_and_always_write_it() {
    let response: modern::CallToolResultResponse = serde_json::from_value(json!({
        "jsonrpc": "2.0", "id": 1, "result": {"content": []}
    }))
    .unwrap();
    assert_eq!(response.result.variant_name(), "CallToolResult");
    assert_eq!(
        serde_json::to_value(&response.result).unwrap(),
        json!({"resultType": "complete", "content": []})
    );
}

#[test]
fn meta_fields_have_readable_names_and_keep_the_rest() {
    let meta: modern::RequestMetaObject = serde_json::from_value(json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "progressToken": "p",
        "com.example/trace": 1
    }))
    .unwrap();
    assert_eq!(meta.protocol_version, "2026-07-28");
    assert!(meta.client_capabilities.elicitation.is_some());
    assert_eq!(
        meta.progress_token,
        Some(modern::ProgressToken::String("p".into()))
    );
    assert_eq!(meta.extra.get("com.example/trace"), Some(&json!(1)));
    assert_eq!(
        modern::meta_keys::PROTOCOL_VERSION,
        "io.modelcontextprotocol/protocolVersion"
    );
}

#[test]
fn shared_properties_round_trip_and_refuse_a_repeated_key() {
    let text = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}"#;
    let meta: modern::RequestMetaObject = serde_json::from_str(text).unwrap();
    assert!(meta.client_capabilities.roots.is_some());
    assert_eq!(
        meta.client_info.as_deref().map(|i| i.name.as_str()),
        Some("c")
    );
    // A copy shares them.
    let copy = meta.clone();
    assert!(std::sync::Arc::ptr_eq(
        &meta.client_capabilities,
        &copy.client_capabilities
    ));
    let value = serde_json::to_value(&meta).unwrap();
    assert_eq!(value, serde_json::from_str::<Value>(text).unwrap());
    let twice = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientCapabilities":{}}"#;
    let error = serde_json::from_str::<modern::RequestMetaObject>(twice).unwrap_err();
    assert!(error.to_string().contains("duplicate field"), "{error}");
}

#[test]
fn one_cache_scope_type_serves_every_cacheable_result() {
    fn scope(s: modern::CacheScope) -> modern::CacheScope {
        s
    }
    let discover: modern::DiscoverResult = serde_json::from_value(json!({
        "resultType": "complete", "supportedVersions": [], "capabilities": {},
        "ttlMs": 5, "cacheScope": "private"
    }))
    .unwrap();
    let tools = modern::ListToolsResult::new(
        vec![],
        modern::CacheHints::new(5, scope(discover.cache_scope)),
    );
    assert_eq!(tools.cache_scope, modern::CacheScope::Private);
    assert_eq!(tools.cache_scope.to_string(), "private");
}

#[test]
fn extra_keys_cannot_shadow_properties() {
    let mut implementation = modern::Implementation::builder()
        .name("n")
        .version("1")
        .build();
    implementation.extra.insert("name".into(), json!("other"));
    let error = serde_json::to_value(&implementation).unwrap_err();
    assert!(
        error.to_string().contains("duplicates a schema property"),
        "{error}"
    );
}

#[test]
fn unknown_type_names_are_reported() {
    let error = modern::roundtrip_named("InitializeResult", json!({})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "2026-07-28 has no type named `InitializeResult`"
    );
}

#[test]
fn errors_name_the_path() {
    let error = modern::roundtrip_named(
        "DiscoverResult",
        json!({"resultType": "complete", "supportedVersions": [], "ttlMs": 0,
               "cacheScope": "public", "capabilities": {"tools": {"listChanged": "yes"}}}),
    )
    .unwrap_err();
    let NamedError::Deserialize {
        type_name,
        path,
        message,
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(*type_name, "DiscoverResult");
    assert_eq!(path, "capabilities.tools.listChanged");
    assert!(message.contains("expected a boolean"), "{message}");
}
