//! Every `McpUi*` definition of the MCP Apps schema against its generated
//! type: instances built from the schema (it has no `examples`) round-trip
//! unchanged, and instances the schema rejects are rejected.
//!
//! The schema is read from `$MCP_SCHEMA_DIR/ext/apps/schema.json` and each
//! instance is first checked with a JSON Schema validator, so a wrong
//! instance builder cannot make this test pass. Each definition is its own
//! schema document (zod writes its `$ref`s relative to it).
//!
//! Two deliberate differences, both where zod wrote more than the
//! TypeScript types say (`docs/extensions.md` has the list): the schema
//! says `additionalProperties: false` on every object while the types keep
//! unknown keys and write them back, like the TypeScript interfaces and the
//! core types; and it requires all 76 keys of `McpUiStyles`, whose
//! description says each is optional, while the type is a map.

#![allow(clippy::unwrap_used)] // a test may panic on broken fixtures

use std::path::{Path, PathBuf};

use mcp_era_types::ext::apps::roundtrip_named;
use serde_json::{Map, Value, json};

/// The definitions the schema has (npm `@modelcontextprotocol/ext-apps` 2.0.4).
const DEFINITION_COUNT: usize = 39;

/// Properties (at any depth) whose every non-empty value the schema
/// rejects: `containerDimensions` (host context) is an intersection of two
/// unions of zod objects, each closed by `additionalProperties: false`, so
/// only `{}` passes. The type follows the prose ("either width or
/// maxWidth, and either height or maxHeight"); instances leave it out.
const SCHEMA_REJECTS_ALL: &[&str] = &["containerDimensions"];

fn schema() -> Option<Value> {
    let Some(dir) = std::env::var_os("MCP_SCHEMA_DIR").map(PathBuf::from) else {
        println!("MCP_SCHEMA_DIR is not set: the MCP Apps schema tests did NOT run");
        return None;
    };
    let dir = if dir.is_relative() {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir)
    } else {
        dir
    };
    let text = std::fs::read_to_string(dir.join("ext/apps/schema.json")).unwrap();
    Some(serde_json::from_str(&text).unwrap())
}

/// How much of a schema an instance fills in.
#[derive(Clone, Copy, PartialEq)]
enum Fill {
    /// Required keys only, first union member, empty arrays.
    Minimal,
    /// Every key, one item per array and map, first union member.
    Full,
    /// Every key, last union member and last enum value.
    FullLast,
}

/// Builds an instance of `schema`, resolving `$ref`s in `root`.
fn instance(schema: &Value, root: &Value, fill: Fill, skip: &[&str], depth: usize) -> Value {
    assert!(depth < 40, "schema nests too deep: {schema}");
    let pick = |items: &[Value]| -> Value {
        match fill {
            Fill::FullLast => items.last().cloned().unwrap(),
            _ => items[0].clone(),
        }
    };
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let target = root.pointer(reference.trim_start_matches('#')).unwrap();
        return instance(target, root, fill, skip, depth + 1);
    }
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        return pick(values);
    }
    if let Some(Value::Array(members)) = schema.get("anyOf") {
        // Recursion ends at the first member of a recursive union.
        let member = if depth > 6 {
            members[0].clone()
        } else {
            pick(members)
        };
        return instance(&member, root, fill, skip, depth + 1);
    }
    if let Some(Value::Array(members)) = schema.get("allOf") {
        let mut merged = Map::new();
        for member in members {
            if let Value::Object(part) = instance(member, root, fill, skip, depth + 1) {
                merged.extend(part);
            }
        }
        return Value::Object(merged);
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds[0].as_str().unwrap(),
        _ => return json!("any"),
    };
    match kind {
        "object" => {
            let mut out = Map::new();
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let properties = schema.get("properties").and_then(Value::as_object);
            for (key, property) in properties.into_iter().flatten() {
                let wanted = fill != Fill::Minimal || required.contains(&key.as_str());
                let forbidden = property == &json!({ "not": {} });
                if wanted && !forbidden && !skip.contains(&key.as_str()) {
                    out.insert(key.clone(), instance(property, root, fill, skip, depth + 1));
                }
            }
            let values = schema.get("additionalProperties").filter(|v| v.is_object());
            // A record's keys (`McpUiStyles`): zod lists all as required.
            for key in required {
                if !out.contains_key(key) {
                    let value =
                        values.map_or(json!("any"), |v| instance(v, root, fill, skip, depth + 1));
                    out.insert(key.to_owned(), value);
                }
            }
            if let Some(values) = values.filter(|_| fill != Fill::Minimal) {
                let key = match schema.get("propertyNames") {
                    Some(names) => instance(names, root, fill, skip, depth + 1),
                    None => json!("key"),
                };
                let value = instance(values, root, fill, skip, depth + 1);
                out.insert(key.as_str().unwrap_or("key").to_owned(), value);
            }
            Value::Object(out)
        }
        "array" => match (fill, schema.get("items")) {
            (Fill::Minimal, _) | (_, None) => json!([]),
            (_, Some(items)) => json!([instance(items, root, fill, skip, depth + 1)]),
        },
        "string" => match schema.get("format").and_then(Value::as_str) {
            Some("date-time") => json!("2026-01-26T12:00:00Z"),
            _ => json!("text"),
        },
        "number" | "integer" => schema.get("minimum").cloned().unwrap_or(json!(1)),
        "boolean" => json!(true),
        "null" => Value::Null,
        other => panic!("no instance for type {other}"),
    }
}

/// A value of another JSON kind than `schema` admits, if its kind is fixed.
fn other_kind(schema: &Value) -> Option<Value> {
    match schema.get("type")?.as_str()? {
        "string" => Some(json!(12)),
        "number" | "integer" | "boolean" | "array" | "object" => Some(json!("text")),
        _ => None,
    }
}

#[test]
fn every_definition_round_trips_its_instances() {
    let Some(schema) = schema() else { return };
    let defs = schema["$defs"].as_object().unwrap();
    assert_eq!(
        defs.len(),
        DEFINITION_COUNT,
        "a new schema: review this test"
    );
    let mut checked = 0;
    for (name, def) in defs {
        let validator = jsonschema::validator_for(def).unwrap();
        for fill in [Fill::Minimal, Fill::Full, Fill::FullLast] {
            let value = instance(def, def, fill, SCHEMA_REJECTS_ALL, 0);
            let errors: Vec<String> = validator
                .iter_errors(&value)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(
                errors.is_empty(),
                "{name}: the built instance is not valid: {errors:?}"
            );
            let back = roundtrip_named(name, value.clone())
                .unwrap_or_else(|e| panic!("{name}: {value} was rejected: {e}"));
            assert_eq!(back, value, "{name}: not the same after a round trip");
            checked += 1;
        }
    }
    assert_eq!(checked, DEFINITION_COUNT * 3);
}

#[test]
fn what_the_schema_rejects_the_types_reject() {
    let Some(schema) = schema() else { return };
    let defs = schema["$defs"].as_object().unwrap();
    let mut rejected = 0;
    for (name, def) in defs {
        let validator = jsonschema::validator_for(def).unwrap();
        let full = instance(def, def, Fill::Full, SCHEMA_REJECTS_ALL, 0);
        let minimal = instance(def, def, Fill::Minimal, &[], 0);
        let mut bad = vec![
            ("another JSON kind".to_owned(), json!(["not", "this"])),
            ("an unknown value".to_owned(), json!("no-such-value")),
        ];
        let properties = def.get("properties").and_then(Value::as_object);
        for (key, property) in properties.into_iter().flatten() {
            if let Some(Value::Object(object)) = minimal.get(key).map(|_| &minimal) {
                let mut without = object.clone();
                without.remove(key);
                bad.push((format!("no required `{key}`"), Value::Object(without)));
            }
            let Value::Object(object) = &full else {
                continue;
            };
            if property.get("const").is_some() {
                let mut wrong = object.clone();
                wrong.insert(key.clone(), json!("ui/no-such-method"));
                bad.push((format!("another `{key}` const"), Value::Object(wrong)));
            }
            if let Some(value) = other_kind(property).filter(|_| object.contains_key(key)) {
                let mut wrong = object.clone();
                wrong.insert(key.clone(), value);
                bad.push((format!("`{key}` of another kind"), Value::Object(wrong)));
            }
        }
        for (what, value) in bad {
            if validator.is_valid(&value) {
                continue;
            }
            assert!(
                roundtrip_named(name, value.clone()).is_err(),
                "{name}: {what} ({value}) is invalid by the schema but accepted"
            );
            rejected += 1;
        }
    }
    // Every definition rejects at least another JSON kind.
    assert!(
        rejected > DEFINITION_COUNT * 2,
        "only {rejected} rejections checked"
    );
}

/// `containerDimensions` as its description has it, which the schema's
/// closed intersection rejects (see [`SCHEMA_REJECTS_ALL`]).
#[test]
fn container_dimensions_take_either_size_or_bound() {
    for dimensions in [
        json!({"height": 400, "width": 300}),
        json!({"height": 400, "maxWidth": 800}),
        json!({"maxHeight": 600, "width": 300}),
        json!({"maxHeight": 600, "maxWidth": 800}),
        json!({}),
    ] {
        let context = json!({"containerDimensions": dimensions, "theme": "dark"});
        let back = roundtrip_named("McpUiHostContext", context.clone()).unwrap();
        assert_eq!(back, context);
    }
    let wrong = json!({"containerDimensions": {"height": "tall"}});
    assert!(roundtrip_named("McpUiHostContext", wrong).is_err());
}
