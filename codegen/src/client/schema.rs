//! The pre-walk of a tool's schema before typify sees it: every subschema
//! that uses a keyword typify cannot express becomes "any value" (a
//! `serde_json::Value` field) with a warning naming its JSON pointer.
//!
//! Also: `$defs` becomes `definitions` (schemars 0.8 reads that), string
//! formats and patterns that would pull in `chrono`, `uuid` or `regress` are
//! dropped (the field stays a `String`), and `$ref`s must name a root
//! definition.

use serde_json::{Map, Value};

/// Keywords typify 0.8 does not translate (or translates into code that
/// needs crates a user may not have); a subschema using one is any value.
const UNSUPPORTED: &[&str] = &[
    "if",
    "then",
    "else",
    "not",
    "patternProperties",
    "propertyNames",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "prefixItems",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
];

/// Of those, the ones that only constrain: on an object with `properties`
/// they are dropped (the server still checks them) and the shape is typed.
const CONSTRAINTS: &[&str] = &[
    "if",
    "then",
    "else",
    "not",
    "propertyNames",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// String formats typify maps to types of other crates.
const FOREIGN_FORMATS: &[&str] = &["date", "date-time", "time", "uuid", "duration"];

/// What the walk found: a message for each replaced subschema.
pub struct Sanitised {
    /// The schema, ready for `schemars::schema::RootSchema`.
    pub schema: Value,
    /// Whether the root itself became any value.
    pub root_replaced: bool,
    /// (JSON pointer below the tool's schema, message).
    pub replaced: Vec<(String, String)>,
}

/// Sanitises `schema` (a tool's `inputSchema` or `outputSchema`).
pub fn sanitise(schema: &Value) -> Sanitised {
    let mut replaced = Vec::new();
    let mut root = match schema {
        Value::Object(map) => map.clone(),
        Value::Bool(true) => Map::new(),
        other => {
            replaced.push((
                String::new(),
                format!("the schema is {}, not an object", kind(other)),
            ));
            Map::new()
        }
    };
    let mut definitions = Map::new();
    for key in ["definitions", "$defs"] {
        if let Some(Value::Object(defs)) = root.remove(key) {
            for (name, def) in defs {
                definitions.insert(name, def);
            }
        }
    }
    let names: Vec<String> = definitions.keys().cloned().collect();
    let walker = Walker { names: &names };
    let mut root = Value::Object(root);
    walker.walk(&mut root, "", &mut replaced);
    for (name, def) in definitions.iter_mut() {
        let path = format!("/$defs/{}", escape(name));
        walker.walk(def, &path, &mut replaced);
    }
    if !definitions.is_empty()
        && let Value::Object(map) = &mut root
    {
        map.insert("definitions".into(), Value::Object(definitions));
    }
    // Nothing left to type: the caller aliases a `serde_json` type instead
    // of typify's newtype around `Value`.
    let root_replaced = root
        .as_object()
        .is_some_and(|m| m.keys().all(|k| k == "description" || k == "title"));
    Sanitised {
        schema: root,
        root_replaced,
        replaced,
    }
}

struct Walker<'a> {
    names: &'a [String],
}

impl Walker<'_> {
    fn walk(&self, schema: &mut Value, path: &str, replaced: &mut Vec<(String, String)>) {
        if matches!(schema, Value::Bool(true)) {
            return;
        }
        if !schema.is_object() {
            replaced.push((
                path.to_owned(),
                format!("a {} schema: any JSON value", kind(schema)),
            ));
            *schema = Value::Object(Map::new());
            return;
        }
        let Value::Object(map) = schema else {
            return;
        };
        // Names only, no meaning for the shape.
        map.remove("$anchor");
        map.remove("$dynamicAnchor");
        if map.contains_key("properties") {
            let dropped: Vec<&str> = CONSTRAINTS
                .iter()
                .copied()
                .filter(|k| map.remove(*k).is_some())
                .collect();
            if !dropped.is_empty() {
                replaced.push((
                    path.to_owned(),
                    format!(
                        "`{}` dropped: the shape is typed, the server checks the constraint",
                        dropped.join("`, `")
                    ),
                ));
            }
        }
        if let Some(reason) = self.unsupported(map) {
            replaced.push((path.to_owned(), format!("{reason}: any JSON value")));
            let mut any = Map::new();
            if let Some(d) = map.get("description").cloned() {
                any.insert("description".into(), d);
            }
            *map = any;
            return;
        }
        if let Some(Value::String(r)) = map.get_mut("$ref")
            && let Some(name) = r.strip_prefix("#/$defs/")
        {
            *r = format!("#/definitions/{name}");
        }
        if map
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(|f| FOREIGN_FORMATS.contains(&f))
        {
            map.remove("format");
        }
        map.remove("pattern");
        // typify panics on a default it cannot render; the server applies it anyway.
        map.remove("default");
        map.remove("$schema");
        map.remove("$id");
        for key in ["properties", "definitions"] {
            if let Some(Value::Object(props)) = map.get_mut(key) {
                for (name, sub) in props.iter_mut() {
                    self.walk(sub, &format!("{path}/{key}/{}", escape(name)), replaced);
                }
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(list)) = map.get_mut(key) {
                for (i, sub) in list.iter_mut().enumerate() {
                    self.walk(sub, &format!("{path}/{key}/{i}"), replaced);
                }
            }
        }
        match map.get_mut("items") {
            Some(Value::Array(list)) => {
                for (i, sub) in list.iter_mut().enumerate() {
                    self.walk(sub, &format!("{path}/items/{i}"), replaced);
                }
            }
            Some(items) => self.walk(items, &format!("{path}/items"), replaced),
            None => {}
        }
        // `false` is meaningful here (no other keys), so only objects walk.
        if let Some(extra @ Value::Object(_)) = map.get_mut("additionalProperties") {
            self.walk(extra, &format!("{path}/additionalProperties"), replaced);
        }
    }

    /// Why typify cannot take this subschema, if it cannot.
    fn unsupported(&self, map: &Map<String, Value>) -> Option<String> {
        if let Some(key) = UNSUPPORTED.iter().find(|k| map.contains_key(**k)) {
            return Some(format!("`{key}` is not supported"));
        }
        if let Some(Value::Object(_)) = map.get("$defs") {
            return Some("nested `$defs` are not supported".into());
        }
        match map.get("$ref") {
            None => None,
            Some(Value::String(r)) => {
                let name = r
                    .strip_prefix("#/$defs/")
                    .or_else(|| r.strip_prefix("#/definitions/"));
                match name {
                    Some(n) if self.names.iter().any(|d| *d == unescape(n)) && !n.contains('/') => {
                        None
                    }
                    _ => Some(format!("`$ref` {r:?} does not name a root definition")),
                }
            }
            Some(_) => Some("`$ref` is not a string".into()),
        }
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(true) => "`true`",
        Value::Bool(false) => "`false`",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// JSON pointer escaping (RFC 6901).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unsupported_subschemas_become_any_value() {
        let s = sanitise(&json!({
            "type": "object",
            "$defs": {"Unit": {"enum": ["c", "f"]}},
            "properties": {
                "unit": {"$ref": "#/$defs/Unit"},
                "odd": {"if": {"type": "string"}, "then": {}, "description": "d"},
                "lost": {"$ref": "#/$defs/Nope"},
                "when": {"type": "string", "format": "date-time", "pattern": "^x"}
            }
        }));
        let paths: Vec<&str> = s.replaced.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["/properties/lost", "/properties/odd"]);
        assert_eq!(s.schema["properties"]["odd"], json!({"description": "d"}));
        assert_eq!(s.schema["properties"]["unit"]["$ref"], "#/definitions/Unit");
        assert_eq!(s.schema["properties"]["when"], json!({"type": "string"}));
        assert!(s.schema["definitions"]["Unit"].is_object());
    }
}
