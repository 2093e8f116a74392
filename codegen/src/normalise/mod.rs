//! The normalisation pass: every schema fix-up applied before the IR is built,
//! each named in [`FIXUPS`] with its reason.
//!
//! Input is the upstream schema document; output is a map of `$defs` in which
//! every property, item and map-value schema is either a `$ref`, a primitive,
//! a `const`, an array or map of those, or `{}`. Everything richer (inline
//! objects, unions, enums) has been hoisted into a named definition.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::manifest::Era;
use crate::naming::upper_camel;

mod markers;
mod zod;

pub use markers::{ABSENT_ALLOWED_KEY, BUILTIN_KEY, NULLABLE_KEY};
use zod::{nested_defs, zod_forms};

/// A named schema fix-up and why it exists.
#[derive(Debug, Clone, Copy)]
pub struct Fixup {
    /// Short identifier, used in comments and docs.
    pub name: &'static str,
    /// Why the upstream schema needs it.
    pub reason: &'static str,
}

/// The fix-ups, in the order they run.
pub const FIXUPS: &[Fixup] = &[
    Fixup {
        name: "nested-defs",
        reason: "zod writes each definition as a schema document of its own, whose \
                 `$ref`s may point into its own `$defs` (Apps: `__schema0`, the recursive \
                 union of every JSON kind). A nested definition that admits any JSON value \
                 is `{}` (serde_json::Value); any other becomes a top-level definition \
                 named Parent + Name.",
    },
    Fixup {
        name: "json-builtins",
        reason: "JSONValue, JSONObject and JSONArray are the TypeScript approximation of \
                 arbitrary JSON (JSONValue even omits null and numbers); they map to \
                 serde_json::Value, serde_json::Map and Vec<serde_json::Value>.",
    },
    Fixup {
        name: "zod-forms",
        reason: "Extension schemas are written by zod, which spells some shapes differently \
                 from the core schema: a `$schema` key on every definition (dropped, so \
                 that an inline copy of a definition is recognised as that definition), \
                 an anyOf of string consts (an enum), an anyOf of one type and null \
                 (`type: [T, \"null\"]`), an anyOf of one type and `{}` (zod's \
                 `T | undefined`: the type, its key optional anyway), a property \
                 schema `{not: {}}` (the key is never there: no field), \
                 `additionalProperties: false` (written by zod's output mode on every \
                 object, whose parser strips unknown keys, not rejects them: kept open, \
                 like the TypeScript interfaces; a definition is zod's when it has \
                 `$schema`) and `additionalProperties: {not: {}}` \
                 (a strict object: `false`).",
    },
    Fixup {
        name: "merge-all-of",
        reason: "allOf is only used to refine a base object (an error with a fixed code, \
                 a result that is also a Task); merging the members gives one struct \
                 whose const fields are checked. A member that is a union (the tasks \
                 extension's `Result & DetailedTask`) is distributed: the allOf becomes \
                 an anyOf of one merged object per union member.",
    },
    Fixup {
        name: "split-type-lists",
        reason: "`type: [\"string\", \"integer\"]` is a union of primitives; as anyOf it is \
                 dispatched on the JSON kind like every other union. A `\"null\"` in the \
                 list makes the type nullable (`Option`) instead.",
    },
    Fixup {
        name: "flatten-any-of",
        reason: "A nested anyOf (ElicitResult content values) is one union; flattening \
                 gives one enum with a variant per JSON kind.",
    },
    Fixup {
        name: "result-type-consts",
        reason: "Modern results say in prose that resultType is \"complete\", or \
                 \"input_required\" for InputRequiredResult, and that an absent resultType \
                 means complete. Making those consts lets unions dispatch on resultType and \
                 guarantees servers always write it. The generic Result keeps a free string \
                 so extension result types stay representable.",
    },
    Fixup {
        name: "hoist-inline-types",
        reason: "Inline objects, unions and enums become named types: \
                 Parent + Property (+ Item / Value for array items and map values). \
                 Enums with the same values share one type, named after their property \
                 when it is the same everywhere (one CacheScope); objects and unions \
                 share a type only when identical under the same property name, named \
                 after the shortest candidate.",
    },
];

/// The normalised `$defs`, ready for the IR.
#[derive(Debug, Clone)]
pub struct Normalised {
    /// Definition name to normalised schema, upstream and hoisted alike.
    pub defs: BTreeMap<String, Value>,
    /// Names of the definitions created by `hoist-inline-types`.
    pub hoisted: BTreeSet<String>,
}

/// Runs every fix-up of [`FIXUPS`] on a schema document.
pub fn normalise(schema: &Value, era: Era) -> Result<Normalised> {
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .ok_or_else(|| Error::new("schema has no `$defs` object"))?;
    let mut defs: BTreeMap<String, Value> =
        defs.iter().map(|(k, v)| (k.clone(), v.clone())).collect();

    nested_defs(&mut defs)?;
    json_builtins(&mut defs);
    for schema in defs.values_mut() {
        // zod writes `$schema` on every definition; the core schema never.
        let by_zod = schema
            .as_object_mut()
            .and_then(|obj| obj.remove("$schema"))
            .is_some();
        for_each_schema_mut(schema, &mut |s| zod_forms(s, by_zod));
    }
    merge_all_of(&mut defs)?;
    for schema in defs.values_mut() {
        for_each_schema_mut(schema, &mut split_type_list);
        for_each_schema_mut(schema, &mut flatten_any_of);
    }
    if era == Era::Modern {
        result_type_consts(&mut defs);
    }
    let hoisted = hoist_inline_types(&mut defs)?;
    Ok(Normalised { defs, hoisted })
}

fn json_builtins(defs: &mut BTreeMap<String, Value>) {
    for (name, builtin) in [
        ("JSONValue", "value"),
        ("JSONObject", "object"),
        ("JSONArray", "array"),
    ] {
        if let Some(def) = defs.get_mut(name) {
            let mut replacement = Map::new();
            if let Some(doc) = def.get("description") {
                replacement.insert("description".into(), doc.clone());
            }
            replacement.insert(BUILTIN_KEY.into(), json!(builtin));
            *def = Value::Object(replacement);
        }
    }
}

fn merge_all_of(defs: &mut BTreeMap<String, Value>) -> Result<()> {
    let originals = defs.clone();
    let mut failure = None;
    for (name, schema) in defs.iter_mut() {
        for_each_schema_mut(schema, &mut |s| {
            if failure.is_some() {
                return;
            }
            if let Err(e) = merge_one(s, &originals) {
                failure = Some(Error::new(format!("{name}: {e}")));
            }
        });
    }
    failure.map_or(Ok(()), Err)
}

fn merge_one(schema: &mut Value, defs: &BTreeMap<String, Value>) -> Result<()> {
    let Some(obj) = schema.as_object_mut() else {
        return Ok(());
    };
    let Some(Value::Array(members)) = obj.remove("allOf") else {
        return Ok(());
    };
    let mut resolved = Vec::with_capacity(members.len());
    for member in &members {
        let mut member = resolve_ref(member, defs)?;
        // A member may itself be an allOf (nested refinement).
        merge_one(&mut member, defs)?;
        resolved.push(member);
    }
    // `A & (B | C)` is `(A & B) | (A & C)`.
    if let Some(i) = resolved.iter().position(|m| m.get("anyOf").is_some()) {
        let alternatives = resolved[i]
            .get("anyOf")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut union = Vec::with_capacity(alternatives.len());
        for alternative in alternatives {
            let mut parts = resolved.clone();
            parts[i] = resolve_ref(&alternative, defs)?;
            let mut merged = json!({ "allOf": parts });
            merge_one(&mut merged, defs)?;
            union.push(merged);
        }
        obj.insert("anyOf".into(), Value::Array(union));
        return Ok(());
    }
    let mut properties = Map::new();
    let mut required: Vec<Value> = Vec::new();
    let mut additional: Option<Value> = None;
    for member in resolved {
        if member.get("type").and_then(Value::as_str) != Some("object") {
            return Err(Error::new("allOf member is not an object schema"));
        }
        if let Some(props) = member.get("properties").and_then(Value::as_object) {
            for (key, prop) in props {
                properties.insert(key.clone(), prop.clone());
            }
        }
        for key in member
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !required.contains(key) {
                required.push(key.clone());
            }
        }
        match member.get("additionalProperties") {
            Some(Value::Bool(false)) => additional = Some(Value::Bool(false)),
            Some(other) if additional.is_none() => additional = Some(other.clone()),
            _ => {}
        }
    }
    obj.insert("type".into(), json!("object"));
    obj.insert("properties".into(), Value::Object(properties));
    obj.insert("required".into(), Value::Array(required));
    if let Some(additional) = additional {
        obj.insert("additionalProperties".into(), additional);
    }
    Ok(())
}

fn resolve_ref(schema: &Value, defs: &BTreeMap<String, Value>) -> Result<Value> {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = ref_name(reference)?;
            defs.get(name)
                .cloned()
                .ok_or_else(|| Error::new(format!("unresolved $ref {reference}")))
        }
        None => Ok(schema.clone()),
    }
}

/// The definition name of a local `$ref`.
pub fn ref_name(reference: &str) -> Result<&str> {
    reference
        .strip_prefix("#/$defs/")
        .ok_or_else(|| Error::new(format!("unsupported $ref {reference}")))
}

fn split_type_list(schema: &mut Value) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    let Some(Value::Array(mut types)) = obj.get("type").cloned() else {
        return;
    };
    let null = json!("null");
    if types.contains(&null) {
        types.retain(|t| t != &null);
        obj.insert(NULLABLE_KEY.into(), json!(true));
    }
    if let [single] = types.as_slice() {
        obj.insert("type".into(), single.clone());
        return;
    }
    obj.remove("type");
    let members = types.into_iter().map(|t| json!({ "type": t })).collect();
    obj.insert("anyOf".into(), Value::Array(members));
}

fn flatten_any_of(schema: &mut Value) {
    let Some(Value::Array(members)) = schema.get("anyOf").cloned() else {
        return;
    };
    let mut flat: Vec<Value> = Vec::new();
    for member in members {
        let nested = member
            .as_object()
            .filter(|m| m.keys().all(|k| k == "anyOf" || k == "description"))
            .and_then(|m| m.get("anyOf"))
            .and_then(Value::as_array)
            .cloned();
        for m in nested.unwrap_or_else(|| vec![member]) {
            if !flat.contains(&m) {
                flat.push(m);
            }
        }
    }
    if let Some(obj) = schema.as_object_mut() {
        obj.insert("anyOf".into(), Value::Array(flat));
    }
}

fn result_type_consts(defs: &mut BTreeMap<String, Value>) {
    for (name, def) in defs.iter_mut() {
        if name == "Result" {
            continue;
        }
        let input_required = name == "InputRequiredResult";
        // Nested too: the members of a distributed `Result & (A | B)`.
        for_each_schema_mut(def, &mut |schema| {
            let Some(prop) = schema.pointer_mut("/properties/resultType") else {
                return;
            };
            // An extension's own discriminator (`"task"`) stays a required const.
            if let Some(value) = prop.get("const")
                && value != "complete"
                && value != "input_required"
            {
                return;
            }
            let mut replacement = Map::new();
            if let Some(doc) = prop.get("description") {
                replacement.insert("description".into(), doc.clone());
            }
            replacement.insert("type".into(), json!("string"));
            if input_required {
                replacement.insert("const".into(), json!("input_required"));
            } else {
                replacement.insert("const".into(), json!("complete"));
                replacement.insert(ABSENT_ALLOWED_KEY.into(), json!(true));
            }
            *prop = Value::Object(replacement);
        });
    }
}

/// Where an inline schema was found: the parent type, its property and the
/// suffix for array items / map values below that property.
#[derive(Debug, Clone)]
struct Occurrence {
    parent: String,
    property: String,
    suffix: String,
}

impl Occurrence {
    fn candidate_name(&self) -> String {
        format!(
            "{}{}{}",
            self.parent,
            upper_camel(&self.property),
            self.suffix
        )
    }
}

struct Group {
    schema: Value,
    is_enum: bool,
    occurrences: Vec<Occurrence>,
}

fn hoist_inline_types(defs: &mut BTreeMap<String, Value>) -> Result<BTreeSet<String>> {
    let mut hoisted = BTreeSet::new();
    // Each round hoists one level; nested inline schemas surface in the new
    // definitions and are hoisted by the next round.
    loop {
        let mut groups: BTreeMap<String, Group> = BTreeMap::new();
        for (name, def) in defs.iter() {
            collect_inline(name, def, &mut groups);
        }
        if groups.is_empty() {
            return Ok(hoisted);
        }
        let existing: BTreeMap<String, String> = defs
            .iter()
            .map(|(name, def)| (canonical(def), name.clone()))
            .collect();
        let names = name_groups(&groups, defs, &existing)?;
        for (name, def) in defs.iter_mut() {
            replace_inline(name, def, &names)?;
        }
        for (key, group) in groups {
            let name = &names[&key];
            if !defs.contains_key(name) {
                defs.insert(name.clone(), group.schema);
                hoisted.insert(name.clone());
            }
        }
    }
}

fn needs_hoisting(schema: &Value) -> bool {
    let Some(obj) = schema.as_object() else {
        return false;
    };
    obj.contains_key("anyOf")
        || obj.contains_key("enum")
        || obj
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty())
}

/// Which inline schemas become one type: enums of the same values; objects
/// and unions of the same structure under the same property name (so that
/// `prompts` and `tools` capabilities, alike today, stay two types).
fn group_key(schema: &Value, occurrence: &Occurrence) -> String {
    if schema.get("enum").is_some() {
        canonical(schema)
    } else {
        format!(
            "{}{}#{}",
            occurrence.property,
            occurrence.suffix,
            canonical(schema)
        )
    }
}

/// Calls `f` on every inline position of a top-level definition that needs
/// hoisting: property schemas and, below them, array items and map values.
fn for_each_position(parent: &str, def: &mut Value, f: &mut impl FnMut(&mut Value, Occurrence)) {
    fn below(
        schema: &mut Value,
        occurrence: Occurrence,
        f: &mut impl FnMut(&mut Value, Occurrence),
    ) {
        if needs_hoisting(schema) {
            f(schema, occurrence);
            return;
        }
        if let Some(items) = schema.get_mut("items") {
            let mut o = occurrence.clone();
            o.suffix.push_str("Item");
            below(items, o, f);
        }
        if let Some(values) = schema
            .get_mut("additionalProperties")
            .filter(|v| v.is_object())
        {
            let mut o = occurrence;
            o.suffix.push_str("Value");
            below(values, o, f);
        }
    }
    let at = |property: &str, suffix: &str| Occurrence {
        parent: parent.to_owned(),
        property: property.to_owned(),
        suffix: suffix.to_owned(),
    };
    if let Some(props) = def.get_mut("properties").and_then(Value::as_object_mut) {
        for (key, prop) in props.iter_mut() {
            below(prop, at(key, ""), f);
        }
    }
    for (key, suffix) in [("items", "Item"), ("additionalProperties", "Value")] {
        if let Some(schema) = def.get_mut(key).filter(|v| v.is_object()) {
            below(schema, at("", suffix), f);
        }
    }
    if let Some(members) = def.get_mut("anyOf").and_then(Value::as_array_mut) {
        let tags = member_tags(members);
        for (i, member) in members.iter_mut().enumerate() {
            let suffix = tags.as_ref().map_or("Member", |t| t[i].as_str());
            below(member, at("", suffix), f);
        }
    }
}

/// Suffixes for two or more inline object members of one union, which
/// would all be `{Parent}Member`: the value of the first const property
/// that every member has with a different string (`status: "working"` →
/// `Working`), else `None`.
fn member_tags(members: &[Value]) -> Option<Vec<String>> {
    let inline = members.iter().filter(|m| needs_hoisting(m)).count();
    if inline < 2 || inline != members.len() {
        return None;
    }
    let first = members[0].get("properties")?.as_object()?;
    let by_const = first.keys().find_map(|key| {
        let values: Option<Vec<&str>> = members
            .iter()
            .map(|m| m.pointer(&format!("/properties/{key}/const"))?.as_str())
            .collect();
        let values = values?;
        let distinct: BTreeSet<&str> = values.iter().copied().collect();
        (distinct.len() == values.len()).then(|| values.iter().map(|v| upper_camel(v)).collect())
    });
    by_const.or_else(|| property_tags(members))
}

/// The other way to tell members apart: by the keys only some of them have
/// (`{uri, text}`, `{uri, blob}` → `Text`, `Blob`), when those differ for
/// every member.
fn property_tags(members: &[Value]) -> Option<Vec<String>> {
    let keys = |m: &Value| -> Vec<String> {
        let props = m.get("properties").and_then(Value::as_object);
        props
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect()
    };
    let shared: BTreeSet<String> = keys(&members[0])
        .into_iter()
        .filter(|k| members.iter().all(|m| keys(m).contains(k)))
        .collect();
    let tags: Vec<String> = members
        .iter()
        .map(|m| {
            let own = keys(m).into_iter().filter(|k| !shared.contains(k));
            own.map(|k| upper_camel(&k)).collect()
        })
        .collect();
    let distinct: BTreeSet<&String> = tags.iter().collect();
    (distinct.len() == tags.len() && tags.iter().all(|t| !t.is_empty())).then_some(tags)
}

fn collect_inline(parent: &str, def: &Value, groups: &mut BTreeMap<String, Group>) {
    let mut copy = def.clone();
    for_each_position(parent, &mut copy, &mut |schema, occurrence| {
        let group = groups
            .entry(group_key(schema, &occurrence))
            .or_insert_with(|| Group {
                schema: schema.clone(),
                is_enum: schema.get("enum").is_some(),
                occurrences: Vec::new(),
            });
        group.occurrences.push(occurrence);
    });
}

fn name_groups(
    groups: &BTreeMap<String, Group>,
    defs: &BTreeMap<String, Value>,
    existing: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>> {
    let mut names = BTreeMap::new();
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    for (key, group) in groups {
        if let Some(name) = existing.get(&canonical(&group.schema)) {
            names.insert(key.clone(), name.clone());
            continue;
        }
        let mut candidates: Vec<String> = group
            .occurrences
            .iter()
            .map(Occurrence::candidate_name)
            .collect();
        candidates.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        candidates.dedup();
        let first = &group.occurrences[0];
        let shared_property = group
            .occurrences
            .iter()
            .all(|o| o.property == first.property && o.suffix == first.suffix);
        let name = if group.is_enum && candidates.len() > 1 && shared_property {
            format!("{}{}", upper_camel(&first.property), first.suffix)
        } else {
            candidates[0].clone()
        };
        if defs.contains_key(&name) {
            return Err(Error::new(format!(
                "hoisted type name {name} (from {}.{}) collides with a schema definition; \
                 add a naming rule to normalise::name_groups",
                first.parent, first.property
            )));
        }
        if let Some(other) = taken.insert(name.clone(), key.clone())
            && &other != key
        {
            return Err(Error::new(format!(
                "two different inline schemas would both be named {name}"
            )));
        }
        names.insert(key.clone(), name);
    }
    Ok(names)
}

fn replace_inline(parent: &str, def: &mut Value, names: &BTreeMap<String, String>) -> Result<()> {
    let mut missing = None;
    for_each_position(parent, def, &mut |schema, occurrence| {
        let Some(name) = names.get(&group_key(schema, &occurrence)) else {
            missing = Some(occurrence.candidate_name());
            return;
        };
        let mut reference = Map::new();
        if let Some(doc) = schema.get("description") {
            reference.insert("description".into(), doc.clone());
        }
        reference.insert("$ref".into(), json!(format!("#/$defs/{name}")));
        *schema = Value::Object(reference);
    });
    match missing {
        Some(name) => Err(Error::new(format!(
            "{parent}: inline schema {name} was not named"
        ))),
        None => Ok(()),
    }
}

/// A schema's structure without its documentation, as a map key: two inline
/// schemas with the same key are the same type.
fn canonical(schema: &Value) -> String {
    let mut copy = schema.clone();
    for_each_schema_mut(&mut copy, &mut |s| {
        if let Some(obj) = s.as_object_mut() {
            obj.remove("description");
            // The same values in another order are the same enum.
            if let Some(Value::Array(values)) = obj.get_mut("enum") {
                values.sort_by_key(Value::to_string);
            }
        }
    });
    copy.to_string()
}

/// Calls `f` on `schema` and on every subschema below it, children first.
fn for_each_schema_mut(schema: &mut Value, f: &mut impl FnMut(&mut Value)) {
    if let Some(obj) = schema.as_object_mut() {
        if let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) {
            for prop in props.values_mut() {
                for_each_schema_mut(prop, f);
            }
        }
        for key in ["items", "additionalProperties"] {
            if let Some(sub) = obj.get_mut(key).filter(|v| v.is_object()) {
                for_each_schema_mut(sub, f);
            }
        }
        for key in ["anyOf", "allOf", "oneOf"] {
            if let Some(members) = obj.get_mut(key).and_then(Value::as_array_mut) {
                for member in members {
                    for_each_schema_mut(member, f);
                }
            }
        }
    }
    f(schema);
}
