//! Arguments of tools and prompts: JSON Schemas (2020-12) from Rust types,
//! and parsing that names the argument path of every failure.

use std::fmt;

use mcp_era_types::v2026_07_28::{ToolInputSchema, ToolOutputSchema};
use schemars::JsonSchema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// A tool's arguments as sent: the `arguments` object of `tools/call`.
pub type Arguments = Map<String, Value>;

/// The dialect every generated schema names in `$schema`. 2026-07-28
/// reads a schema without `$schema` as 2020-12 too; writing it keeps the
/// meaning for legacy clients, whose default was never stated.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

fn generator() -> SchemaGenerator {
    let mut settings = SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    settings.into_generator()
}

/// An argument that failed to parse: the path inside the arguments object
/// (`a`, `address.city`, `items[2]`) and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentError {
    /// Where, from the top of the arguments object; empty for the object
    /// itself.
    pub path: String,
    /// What was wrong.
    pub reason: String,
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "Invalid arguments: {}", self.reason)
        } else {
            write!(f, "Invalid argument `{}`: {}", self.path, self.reason)
        }
    }
}

fn join(prefix: &str, inner: &serde_path_to_error::Path) -> String {
    let inner = inner.to_string();
    match (prefix.is_empty(), inner.as_str()) {
        (_, ".") => prefix.to_owned(),
        (true, _) => inner,
        (false, _) if inner.starts_with('[') => format!("{prefix}{inner}"),
        (false, _) => format!("{prefix}.{inner}"),
    }
}

fn deserialize_at<T: DeserializeOwned>(value: Value, prefix: &str) -> Result<T, ArgumentError> {
    serde_path_to_error::deserialize(value).map_err(|e| ArgumentError {
        path: join(prefix, e.path()),
        reason: e.into_inner().to_string(),
    })
}

/// Takes argument `name` out of `arguments` as a `T`. An absent argument
/// reads as `null`, so `Option<T>` parameters are optional and every other
/// type reports it missing.
pub fn take<T: DeserializeOwned>(
    arguments: &mut Arguments,
    name: &str,
) -> Result<T, ArgumentError> {
    match arguments.remove(name) {
        Some(value) => deserialize_at(value, name),
        None => T::deserialize(Value::Null).map_err(|_| ArgumentError {
            path: name.to_owned(),
            reason: "missing required argument".to_owned(),
        }),
    }
}

/// The whole arguments object as one `T` (a `#[arguments]` parameter).
pub fn whole<T: DeserializeOwned>(arguments: Arguments) -> Result<T, ArgumentError> {
    deserialize_at(Value::Object(arguments), "")
}

/// A prompt argument (always a string on the wire) parsed with `FromStr`;
/// absent arguments are `None`.
pub fn prompt_argument<T: std::str::FromStr>(
    arguments: &mut std::collections::BTreeMap<String, String>,
    name: &str,
) -> Result<Option<T>, ArgumentError>
where
    T::Err: fmt::Display,
{
    arguments
        .remove(name)
        .map(|raw| {
            raw.parse().map_err(|e: T::Err| ArgumentError {
                path: name.to_owned(),
                reason: e.to_string(),
            })
        })
        .transpose()
}

/// The error of a required prompt argument that was not sent.
pub fn missing(name: &str) -> ArgumentError {
    ArgumentError {
        path: name.to_owned(),
        reason: "missing required argument".to_owned(),
    }
}

fn root_object<T: JsonSchema + ?Sized>() -> Result<Map<String, Value>, String> {
    let schema = generator().into_root_schema_for::<T>();
    let Value::Object(mut object) = schema.to_value() else {
        return Err(format!(
            "the schema of `{}` is not an object schema",
            T::schema_name()
        ));
    };
    // The type name says nothing to a model; the tool's own description does.
    object.remove("title");
    object.insert("$schema".into(), json!(DIALECT));
    Ok(object)
}

/// The schema of `T` as a tool `inputSchema`. The root must be
/// `"type": "object"`: tool arguments are an object.
pub fn input_schema_of<T: JsonSchema + ?Sized>() -> Result<ToolInputSchema, String> {
    let object = root_object::<T>()?;
    if object.get("type") != Some(&json!("object")) {
        return Err(format!(
            "the schema of `{}` is not an object schema (tool arguments are a JSON object); \
             take plain parameters or a struct",
            T::schema_name()
        ));
    }
    serde_json::from_value(Value::Object(object)).map_err(|e| e.to_string())
}

/// The schema of `T` as a tool `outputSchema` (structured content).
pub fn output_schema_of<T: JsonSchema + ?Sized>() -> Result<ToolOutputSchema, String> {
    serde_json::from_value(Value::Object(root_object::<T>()?)).map_err(|e| e.to_string())
}

/// Drops the `null` alternative schemars writes for `Option<T>`: from a
/// type list (`["string", "null"]` → `"string"`) or an `anyOf` of two.
fn without_null(schema: &mut schemars::Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            object.insert("type".into(), only);
        }
        return;
    }
    let null = json!({ "type": "null" });
    if let Some(Value::Array(any_of)) = object.get("anyOf")
        && any_of.len() == 2
        && any_of.contains(&null)
        && let Some(Value::Object(other)) = any_of.iter().find(|s| **s != null).cloned()
    {
        object.remove("anyOf");
        for (key, value) in other {
            object.entry(key).or_insert(value);
        }
    }
}

/// Builds the input schema of a tool whose arguments are plain parameters.
pub struct InputSchemaBuilder {
    generator: SchemaGenerator,
    properties: Map<String, Value>,
    required: Vec<Value>,
}

impl Default for InputSchemaBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl InputSchemaBuilder {
    /// An object schema with no properties yet.
    pub fn new() -> Self {
        Self {
            generator: generator(),
            properties: Map::new(),
            required: Vec::new(),
        }
    }

    /// Adds property `name` of type `T`, with an optional description and
    /// `x-mcp-header` name.
    pub fn property<T: JsonSchema + ?Sized>(
        &mut self,
        name: &str,
        description: Option<&str>,
        required: bool,
        header: Option<&str>,
    ) -> &mut Self {
        let mut schema = self.generator.subschema_for::<T>();
        if !required {
            // An optional argument is one the client leaves out: `Option<T>`
            // reads `null` as absent, but the schema offers `T` alone (a
            // header-mirrored argument must keep a primitive type).
            without_null(&mut schema);
        }
        let object = schema.ensure_object();
        if let Some(description) = description {
            object.insert("description".into(), json!(description));
        }
        if let Some(header) = header {
            object.insert("x-mcp-header".into(), json!(header));
        }
        self.properties.insert(name.to_owned(), schema.to_value());
        if required {
            self.required.push(json!(name));
        }
        self
    }

    /// The finished `inputSchema`.
    pub fn build(mut self) -> Result<ToolInputSchema, String> {
        let mut object = Map::new();
        object.insert("$schema".into(), json!(DIALECT));
        object.insert("type".into(), json!("object"));
        object.insert("properties".into(), Value::Object(self.properties));
        if !self.required.is_empty() {
            object.insert("required".into(), Value::Array(self.required));
        }
        let definitions = self.generator.take_definitions(true);
        if !definitions.is_empty() {
            object.insert("$defs".into(), Value::Object(definitions));
        }
        serde_json::from_value(Value::Object(object)).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Point {
        x: i64,
        tags: Vec<String>,
    }

    #[test]
    fn paths_name_nested_failures() {
        let mut arguments: Arguments =
            serde_json::from_value(json!({"p": {"x": 1, "tags": ["a", 2]}})).expect("json");
        let error = take::<Point>(&mut arguments, "p").expect_err("a bad tag");
        assert_eq!(error.path, "p.tags[1]");
        let error = take::<i64>(&mut arguments, "p").expect_err("now missing");
        assert_eq!(
            error.to_string(),
            "Invalid argument `p`: missing required argument"
        );
        assert_eq!(take::<Option<i64>>(&mut arguments, "p"), Ok(None));
        let error = whole::<Point>(Map::new()).expect_err("missing fields");
        assert_eq!(error.path, "");
    }

    #[test]
    fn schemas_are_2020_12_objects() {
        let schema = input_schema_of::<Point>().expect("object");
        let value = serde_json::to_value(&schema).expect("json");
        assert_eq!(value["$schema"], DIALECT);
        assert_eq!(value["required"], json!(["x", "tags"]));
        assert!(input_schema_of::<i64>().is_err());
        let mut builder = InputSchemaBuilder::new();
        builder
            .property::<Point>("p", Some("a point"), true, None)
            .property::<Option<String>>("region", None, false, Some("Region"))
            .property::<Option<Point>>("origin", None, false, None);
        let value = serde_json::to_value(builder.build().expect("schema")).expect("json");
        assert_eq!(value["properties"]["p"]["$ref"], "#/$defs/Point");
        assert_eq!(value["properties"]["p"]["description"], "a point");
        assert_eq!(value["properties"]["region"]["x-mcp-header"], "Region");
        assert_eq!(value["properties"]["region"]["type"], "string");
        assert_eq!(value["required"], json!(["p"]));
        assert!(value["$defs"]["Point"].is_object());
        assert_eq!(
            value["properties"]["origin"],
            json!({ "$ref": "#/$defs/Point" })
        );
    }
}
