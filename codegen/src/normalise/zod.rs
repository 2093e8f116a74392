//! The fix-ups for schemas written by zod (extension schemas): its forms
//! of the core schema's shapes, and the `$defs` of a definition of its own.
//! Their reasons are in [`FIXUPS`](super::FIXUPS) (`nested-defs`,
//! `zod-forms`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::markers::NULLABLE_KEY;
use crate::error::{Error, Result};
use crate::naming::upper_camel;

pub(super) fn nested_defs(defs: &mut BTreeMap<String, Value>) -> Result<()> {
    let parents: Vec<String> = defs
        .iter()
        .filter(|(_, def)| def.get("$defs").is_some())
        .map(|(name, _)| name.clone())
        .collect();
    for parent in parents {
        let Some(def) = defs.get_mut(&parent) else {
            continue;
        };
        let Some(Value::Object(nested)) = def.as_object_mut().and_then(|d| d.remove("$defs"))
        else {
            return Err(Error::new(format!("{parent}: `$defs` is not an object")));
        };
        let mut replacements = BTreeMap::new();
        let mut hoisted = Vec::new();
        for (name, schema) in nested {
            let reference = format!("#/$defs/{name}");
            if admits_any_json(&schema, &reference) {
                replacements.insert(reference, json!({}));
            } else {
                let top = format!("{parent}{}", upper_camel(&name));
                // Written by the same hand as its parent (see `zod-forms`).
                let mut schema = schema;
                if let (Some(mark), Some(obj)) = (def.get("$schema"), schema.as_object_mut()) {
                    obj.entry("$schema").or_insert_with(|| mark.clone());
                }
                replacements.insert(reference, json!({ "$ref": format!("#/$defs/{top}") }));
                hoisted.push((top, schema));
            }
        }
        replace_refs(def, &replacements);
        for (top, mut schema) in hoisted {
            replace_refs(&mut schema, &replacements);
            if defs.insert(top.clone(), schema).is_some() {
                return Err(Error::new(format!(
                    "{parent}: its nested definition would be named {top}, which exists"
                )));
            }
        }
    }
    Ok(())
}

/// Whether `schema` is the union of every JSON kind, its containers holding
/// `self_ref` (itself) or anything.
fn admits_any_json(schema: &Value, self_ref: &str) -> bool {
    let Some(members) = schema.get("anyOf").and_then(Value::as_array) else {
        return false;
    };
    let open = |inner: Option<&Value>| {
        inner.is_none_or(|v| {
            v == &json!({}) || v.get("$ref").and_then(Value::as_str) == Some(self_ref)
        })
    };
    let mut kinds = BTreeSet::new();
    for member in members {
        let Some(kind) = member.get("type").and_then(Value::as_str) else {
            return false;
        };
        let constrained = [
            "properties",
            "enum",
            "const",
            "required",
            "pattern",
            "minimum",
        ]
        .iter()
        .any(|key| member.get(key).is_some());
        if constrained || !open(member.get("additionalProperties")) || !open(member.get("items")) {
            return false;
        }
        kinds.insert(if kind == "integer" { "number" } else { kind });
    }
    kinds == BTreeSet::from(["string", "number", "boolean", "null", "object", "array"])
}

/// Replaces each `{"$ref": R}` (keeping its siblings, such as a description)
/// whose R is a key of `replacements`.
fn replace_refs(value: &mut Value, replacements: &BTreeMap<String, Value>) {
    match value {
        Value::Object(obj) => {
            let target = obj
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| replacements.get(r));
            if let Some(Value::Object(with)) = target.cloned() {
                obj.remove("$ref");
                obj.extend(with);
            }
            obj.values_mut().for_each(|v| replace_refs(v, replacements));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| replace_refs(v, replacements)),
        _ => {}
    }
}

pub(super) fn zod_forms(schema: &mut Value, by_zod: bool) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    match obj.get("additionalProperties") {
        // zod's output mode writes `false` on every `z.object()`, which
        // strips unknown keys rather than rejecting them: the object is open.
        Some(Value::Bool(false)) if by_zod => {
            obj.remove("additionalProperties");
        }
        Some(v) if v == &json!({ "not": {} }) => {
            obj.insert("additionalProperties".into(), Value::Bool(false));
        }
        _ => {}
    }
    // A property that may never be present (`{not: {}}`) is no field.
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        props.retain(|_, p| p != &json!({ "not": {} }));
    }
    let Some(Value::Array(members)) = obj.get("anyOf").cloned() else {
        return;
    };
    let consts: Option<Vec<Value>> = members
        .iter()
        .map(|m| {
            let is_string = m.get("type").and_then(Value::as_str) == Some("string");
            m.get("const")
                .filter(|c| is_string && c.is_string())
                .cloned()
        })
        .collect();
    if let Some(values) = consts.filter(|v| !v.is_empty()) {
        obj.remove("anyOf");
        obj.insert("type".into(), json!("string"));
        obj.insert("enum".into(), Value::Array(values));
        return;
    }
    let undefined = json!({});
    if members.len() == 2 && members.contains(&undefined) {
        let Some(Value::Object(other)) = members.into_iter().find(|m| m != &undefined) else {
            return;
        };
        obj.remove("anyOf");
        for (key, value) in other {
            obj.entry(key).or_insert(value);
        }
        return;
    }
    let null = json!({ "type": "null" });
    if members.len() == 2 && members.contains(&null) {
        let Some(Value::Object(other)) = members.into_iter().find(|m| m != &null) else {
            return;
        };
        obj.remove("anyOf");
        for (key, value) in other {
            obj.entry(key).or_insert(value);
        }
        obj.insert(NULLABLE_KEY.into(), json!(true));
    }
}
