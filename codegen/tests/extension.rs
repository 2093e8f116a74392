//! Extension schemas: a small core and an extension written the way zod
//! writes them (a `$schema` per definition, anyOf of consts, anyOf with
//! null, `{not: {}}`, `Result & (A | B)`), generated against the core.

#![allow(clippy::unwrap_used)] // a test may panic on broken fixtures

use mcp_era_codegen::manifest::Era;
use mcp_era_codegen::{EmitOptions, ExtensionTarget, generate_extension};
use serde_json::{Value, json};

fn core() -> Value {
    json!({"$defs": {
        "DiscoverRequest": {"type": "object", "properties": {"method": {"type": "string", "const": "server/discover"}}, "required": ["method"]},
        "Error": {"type": "object", "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}, "required": ["code", "message"]},
        "Result": {"type": "object", "properties": {"resultType": {"type": "string"}}, "required": ["resultType"], "additionalProperties": {}}
    }})
}

fn extension(core_defs: &Value) -> Value {
    let mut defs = core_defs["$defs"].as_object().unwrap().clone();
    let z = "https://json-schema.org/draft/2020-12/schema";
    let status =
        json!({"anyOf": [{"type": "string", "const": "on"}, {"type": "string", "const": "off"}]});
    let member = |state: &str, extra: Value| {
        let mut properties = json!({"id": {"type": "string"}, "state": {"type": "string", "const": state},
            "ttlMs": {"anyOf": [{"type": "integer", "minimum": -9_007_199_254_740_991_i64}, {"type": "null"}]}});
        properties
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"type": "object", "properties": properties, "required": ["id", "state", "ttlMs"]})
    };
    defs.insert(
        "Switch".into(),
        json!({"$schema": z, "type": "object",
        "properties": {"state": status, "id": {"type": "string"}}, "required": ["state", "id"]}),
    );
    defs.insert(
        "State".into(),
        json!({"$schema": z, "anyOf": status["anyOf"]}),
    );
    defs.insert("GetSwitchResult".into(), json!({"$schema": z, "allOf": [
        {"$ref": "#/$defs/Result"},
        {"anyOf": [member("on", json!({})), member("off", json!({"error": {"$ref": "#/$defs/Error"}}))]},
        {"type": "object", "properties": {"resultType": {"type": "string", "const": "complete"}}, "required": ["resultType"]}
    ]}));
    defs.insert(
        "SwitchCapability".into(),
        json!({"$schema": z, "type": "object",
        "additionalProperties": {"not": {}}}),
    );
    json!({"$defs": defs})
}

fn generate(ext: &Value, core: &Value) -> Result<String, mcp_era_codegen::Error> {
    let target = ExtensionTarget {
        identifier: "com.example/switch",
        core_version: "2026-07-28",
        core_schema: core,
        core_module: "::mcp_era_types::v2026_07_28",
    };
    generate_extension(ext, Era::Modern, &target, &EmitOptions::default())
}

#[test]
fn an_extension_imports_the_core_types_it_repeats() {
    let core = core();
    let out = generate(&extension(&core), &core).unwrap();
    // Only the core types the extension's own types name are imported.
    assert!(
        out.contains("use ::mcp_era_types::v2026_07_28::Error;"),
        "{out}"
    );
    assert!(!out.contains("pub struct Error"), "{out}");
    assert!(!out.contains("pub struct DiscoverRequest"), "{out}");
    assert!(out.contains("pub const EXTENSION: &str = \"com.example/switch\";"));
    // anyOf of consts: one enum, shared by the inline copy.
    assert!(out.contains("pub enum State"), "{out}");
    assert!(out.contains("pub state: State,"), "{out}");
    // anyOf with null: nullable.
    assert!(out.contains("pub ttl_ms: Option<i64>,"), "{out}");
    // `Result & (A | B)`: a union of merged objects named by their tag.
    assert!(
        out.contains("GetSwitchResultOn(GetSwitchResultOn)"),
        "{out}"
    );
    assert!(
        out.contains("GetSwitchResultOff(GetSwitchResultOff)"),
        "{out}"
    );
    assert!(out.contains("pub error: Option<Error>,"), "{out}");
    // `{not: {}}` closes the object.
    assert!(out.contains("pub type SwitchCapability"), "{out}");
    assert!(!out.contains("$schema"), "{out}");
}

#[test]
fn a_core_copy_that_differs_is_an_error() {
    let core = core();
    let mut ext = extension(&core);
    ext["$defs"]["Error"]["properties"]["code"] = json!({"type": "string"});
    let error = generate(&ext, &core).unwrap_err();
    assert!(
        error.0.contains("Error differs from Error of 2026-07-28"),
        "{error}"
    );
}

/// The forms MCP Apps' zod schema adds: a definition's own `$defs`, zod's
/// `additionalProperties: false` on every object, `T | undefined`, a key
/// that may never be present, and a union of objects told apart by keys.
#[test]
fn the_zod_forms_of_mcp_apps() {
    let core = core();
    let z = "https://json-schema.org/draft/2020-12/schema";
    let any = json!({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"},
        {"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {"$ref": "#/$defs/__schema0"}},
        {"type": "array", "items": {"$ref": "#/$defs/__schema0"}}]});
    let side = |key: &str| {
        json!({"anyOf": [
            {"type": "object", "properties": {key: {"type": "number"}}, "required": [key], "additionalProperties": false},
            {"type": "object", "properties": {format!("max_{key}"): {"anyOf": [{"type": "number"}, {}]}}, "additionalProperties": false}
        ]})
    };
    let ext = json!({"$defs": {
        "Frame": {"$schema": z, "type": "object", "additionalProperties": false,
            "$defs": {"__schema0": any, "size": {"type": "object", "properties": {"w": {"type": "number"}}}},
            "properties": {
                "data": {"type": "object", "additionalProperties": {"$ref": "#/$defs/__schema0"}},
                "size": {"$ref": "#/$defs/size"},
                "csp": {"not": {}},
                "dimensions": {"allOf": [side("height"), side("width")]}
            }}
    }});
    let out = generate(&ext, &core).unwrap();
    // `__schema0` admits any JSON value; `size` is a definition of its own.
    assert!(
        out.contains("pub data: Option<Map<String, Value>>,"),
        "{out}"
    );
    assert!(out.contains("pub struct FrameSize"), "{out}");
    assert!(out.contains("pub size: Option<FrameSize>,"), "{out}");
    // zod's `false` strips unknown keys: they are kept, not refused.
    assert!(out.contains("pub extra: Map<String, Value>,"), "{out}");
    assert!(!out.contains("pub csp"), "{out}");
    // `A | B` and `C | D`, intersected: four members named by their own keys.
    for member in [
        "HeightWidth",
        "HeightMaxWidth",
        "MaxHeightWidth",
        "MaxHeightMaxWidth",
    ] {
        assert!(
            out.contains(&format!("FrameDimensions{member}(FrameDimensions{member})")),
            "{member}: {out}"
        );
    }
    // `number | undefined` is a number.
    assert!(out.contains("pub max_height: Option<Number>,"), "{out}");
}
