//! Tool input schemas from Rust types (feature `schemars`).
#![cfg(feature = "schemars")]
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use serde_json::json;

#[derive(schemars::JsonSchema)]
#[allow(dead_code, reason = "only the schema is used")]
struct Add {
    /// The first term.
    a: f64,
    b: Option<i64>,
}

#[test]
fn input_schema_from_a_type() {
    let schema = mcp_server::schema::input_schema::<Add>().unwrap();
    let value = serde_json::to_value(schema).unwrap();
    assert_eq!(value["type"], "object");
    assert_eq!(value["required"], json!(["a"]));
    assert_eq!(value["properties"]["a"]["description"], "The first term.");
    assert!(value.get("title").is_none());
}
