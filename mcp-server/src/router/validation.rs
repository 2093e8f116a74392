//! Tool arguments checked against the `inputSchema` the tool advertises,
//! with a validator compiled once when the tool joins a catalogue; in
//! debug builds, `structuredContent` checked against the `outputSchema`.

use std::fmt::{self, Write as _};

use jsonschema::Validator;
use mcp_era_types::v2026_07_28::{Tool, ToolInputSchema};
#[cfg(test)]
use serde_json::Map;
use serde_json::Value;

use super::args::Arguments;

/// At most this many schema violations are named in one failed result.
pub const MAX_REPORTED_VIOLATIONS: usize = 5;

/// Each violation's message is cut to this many bytes: a message may quote
/// the offending value, which the client sized.
pub const MAX_VIOLATION_MESSAGE: usize = 200;

/// A tool's schemas, compiled.
#[derive(Debug)]
pub struct ToolSchemas {
    /// Checks every call's arguments.
    pub input: InputValidator,
    /// Debug builds only: a result's `structuredContent` that breaks the
    /// `outputSchema` is a server bug, logged (the answer is unchanged, so
    /// debug and release builds answer alike).
    #[cfg(debug_assertions)]
    output: Option<OutputValidator>,
}

impl ToolSchemas {
    /// Compiles `tool`'s schemas; either failing to compile refuses the
    /// tool, in every build (clients read the same schemas).
    pub fn compile(tool: &Tool, derived: bool) -> Result<Self, String> {
        let input = InputValidator::compile(&tool.input_schema, derived)?;
        let output = match &tool.output_schema {
            Some(schema) => {
                let schema = serde_json::to_value(schema).map_err(|e| e.to_string())?;
                Some(compile(&schema, "outputSchema")?)
            }
            None => None,
        };
        #[cfg(not(debug_assertions))]
        let _ = output;
        Ok(Self {
            input,
            #[cfg(debug_assertions)]
            output: output.map(OutputValidator),
        })
    }

    /// Debug builds: logs a complete, successful result whose
    /// `structuredContent` breaks the `outputSchema`.
    #[cfg(debug_assertions)]
    pub fn check_output(
        &self,
        tool: &str,
        outcome: &crate::wire::errors::HandlerResult<
            mcp_era_types::v2026_07_28::CallToolResultResponseResult,
        >,
    ) {
        use mcp_era_types::v2026_07_28::CallToolResultResponseResult;
        let (Some(output), Ok(CallToolResultResponseResult::CallToolResult(result))) =
            (&self.output, outcome)
        else {
            return;
        };
        if result.is_error == Some(true) {
            return;
        }
        let Some(structured) = &result.structured_content else {
            tracing::error!(
                tool,
                "the result has no structuredContent, which its outputSchema requires"
            );
            return;
        };
        if !output.0.is_valid(structured) {
            let violations = describe(&output.0, structured, "structuredContent");
            tracing::error!(tool, %violations, "the result breaks its outputSchema");
        }
    }
}

#[cfg(debug_assertions)]
struct OutputValidator(Validator);

#[cfg(debug_assertions)]
impl fmt::Debug for OutputValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputValidator").finish_non_exhaustive()
    }
}

/// A validator for the tool's `schema` (its `inputSchema` or
/// `outputSchema`, as `which` says), no remote references.
fn compile(schema: &Value, which: &str) -> Result<Validator, String> {
    jsonschema::options()
        .offline()
        .build(schema)
        .map_err(|e| match e.instance_path().as_str() {
            "" => format!("its {which} does not compile: {e}"),
            at => format!("its {which} does not compile: {e} (at `{at}`)"),
        })
}

/// A tool's compiled `inputSchema`.
pub struct InputValidator {
    validator: Validator,
    /// Derived schemas only: the root's `required` names. A top-level
    /// `null` for any other property reads as absent.
    nulls_absent_unless: Option<Vec<String>>,
    /// Whether no arguments at all fit the schema, found once: a call
    /// without arguments (a tool that takes none) is not checked again.
    admits_none: bool,
}

impl fmt::Debug for InputValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputValidator")
            .field("nulls_absent_unless", &self.nulls_absent_unless)
            .finish_non_exhaustive()
    }
}

impl InputValidator {
    /// Compiles `schema`. Without `$schema` it is read as JSON Schema
    /// 2020-12 (the MCP default, and the crate's); an explicit `$schema` of
    /// another draft is honoured. References resolve inside the schema
    /// only: a remote `$ref` or an unknown meta-schema is a compile error.
    ///
    /// `derived`: the schema was made from the handler's Rust types, which
    /// read a `null` optional argument as absent (`Option<T>`).
    pub fn compile(schema: &ToolInputSchema, derived: bool) -> Result<Self, String> {
        let schema = serde_json::to_value(schema).map_err(|e| e.to_string())?;
        let nulls_absent_unless = derived.then(|| {
            schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| {
                    names
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        });
        let validator = compile(&schema, "inputSchema")?;
        let admits_none = validator.is_valid(&Value::Object(Arguments::new()));
        Ok(Self {
            validator,
            nulls_absent_unless,
            admits_none,
        })
    }

    /// The arguments if they fit the schema, else the failed-result text.
    pub fn admit(&self, mut arguments: Arguments) -> Result<Arguments, String> {
        if arguments.is_empty() && self.admits_none {
            return Ok(arguments);
        }
        if let Some(required) = &self.nulls_absent_unless {
            // The advertised schema of an optional parameter offers `T`
            // alone; serde reads `null` as absent, and so does the check.
            arguments.retain(|name, value| !value.is_null() || required.contains(name));
        }
        let instance = Value::Object(arguments);
        if self.validator.is_valid(&instance) {
            // Always the object built above; matched, not unwrapped.
            return Ok(match instance {
                Value::Object(arguments) => arguments,
                _ => Arguments::new(),
            });
        }
        Err(describe(&self.validator, &instance, "arguments"))
    }
}

/// Each violation of `instance` (named `what`), one per line, bounded.
fn describe(validator: &Validator, instance: &Value, what: &str) -> String {
    let singular = what.strip_suffix('s').unwrap_or(what);
    let mut text = String::new();
    let mut count = 0usize;
    for error in validator.iter_errors(instance) {
        count += 1;
        if count > MAX_REPORTED_VIOLATIONS {
            continue;
        }
        if count > 1 {
            text.push('\n');
        }
        let path = error.instance_path().as_str();
        let keyword = error.kind().keyword();
        if path.is_empty() {
            let _ = write!(text, "Invalid {what} ({keyword}): ");
        } else {
            let _ = write!(text, "Invalid {singular} `{path}` ({keyword}): ");
        }
        let mut message = Bounded::new(MAX_VIOLATION_MESSAGE);
        let _ = write!(message, "{error}");
        text.push_str(&message.finish());
    }
    if count > MAX_REPORTED_VIOLATIONS {
        let _ = write!(
            text,
            "\n… and {} more violations of the schema",
            count - MAX_REPORTED_VIOLATIONS
        );
    }
    if count == 0 {
        // `is_valid` and `iter_errors` disagreeing would be a crate bug;
        // the call is refused all the same.
        let _ = write!(text, "Invalid {what}: they do not match the schema");
    }
    text
}

/// A string writer that keeps the first `limit` bytes (on a character
/// boundary) and notes that the rest was cut.
struct Bounded {
    text: String,
    limit: usize,
    cut: bool,
}

impl Bounded {
    fn new(limit: usize) -> Self {
        Self {
            text: String::new(),
            limit,
            cut: false,
        }
    }

    fn finish(mut self) -> String {
        if self.cut {
            self.text.push('…');
        }
        self.text
    }
}

impl fmt::Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.limit.saturating_sub(self.text.len());
        if s.len() <= room {
            self.text.push_str(s);
            return Ok(());
        }
        let mut end = room;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&s[..end]);
        self.cut = true;
        // Stops the formatting of the rest of the message.
        Err(fmt::Error)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema(value: Value) -> ToolInputSchema {
        serde_json::from_value(value).expect("an object schema")
    }

    fn arguments(value: Value) -> Arguments {
        match value {
            Value::Object(map) => map,
            _ => Arguments::new(),
        }
    }

    fn raw(value: Value) -> InputValidator {
        InputValidator::compile(&schema(value), false).expect("compiles")
    }

    #[test]
    fn refs_defs_enum_and_minimum_are_enforced() {
        let input = raw(json!({
            "type": "object",
            "$defs": { "count": { "type": "integer", "minimum": 1 } },
            "properties": {
                "count": { "$ref": "#/$defs/count" },
                "unit": { "enum": ["m", "s"] }
            },
            "required": ["count"]
        }));
        assert!(
            input
                .admit(arguments(json!({"count": 2, "unit": "m"})))
                .is_ok()
        );
        assert_eq!(
            input.admit(arguments(json!({"count": 0}))),
            Err("Invalid argument `/count` (minimum): 0 is less than the minimum of 1".to_owned())
        );
        let text = input
            .admit(arguments(json!({"count": 1, "unit": "kg"})))
            .expect_err("not in the enum");
        assert!(
            text.starts_with("Invalid argument `/unit` (enum): "),
            "{text}"
        );
        assert_eq!(
            input.admit(Arguments::new()),
            Err("Invalid arguments (required): \"count\" is a required property".to_owned())
        );
    }

    #[test]
    fn no_arguments_are_admitted_as_the_schema_says_once() {
        let none = raw(json!({"type": "object"}));
        assert_eq!(none.admit(Arguments::new()), Ok(Arguments::new()));
        let some = raw(json!({"type": "object", "minProperties": 1}));
        assert!(some.admit(Arguments::new()).is_err());
        assert!(some.admit(arguments(json!({"a": 1}))).is_ok());
    }

    #[test]
    fn without_dollar_schema_the_dialect_is_2020_12() {
        // `prefixItems` exists in 2020-12 only; draft 7 would ignore it.
        let properties =
            json!({ "pair": { "type": "array", "prefixItems": [{ "type": "string" }] } });
        let modern = raw(json!({ "type": "object", "properties": properties }));
        assert!(modern.admit(arguments(json!({"pair": [1]}))).is_err());
        let draft7 = raw(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": properties
        }));
        assert!(draft7.admit(arguments(json!({"pair": [1]}))).is_ok());
    }

    #[test]
    fn schemas_that_cannot_compile_are_refused() {
        for bad in [
            json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}),
            json!({"$schema": "https://example.com/my-dialect", "type": "object"}),
            json!({"type": "object", "properties": {"a": {"type": "text"}}}),
        ] {
            let error =
                InputValidator::compile(&schema(bad.clone()), false).expect_err("does not compile");
            assert!(
                error.starts_with("its inputSchema does not compile: "),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn reports_are_bounded() {
        let input = raw(json!({
            "type": "object",
            "additionalProperties": { "type": "integer" }
        }));
        let many: Map<String, Value> = (0..50)
            .map(|i| (format!("k{i}"), json!("x".repeat(10_000))))
            .collect();
        let text = input.admit(many).expect_err("fifty strings");
        assert_eq!(text.lines().count(), MAX_REPORTED_VIOLATIONS + 1, "{text}");
        assert!(
            text.ends_with("… and 45 more violations of the schema"),
            "{text}"
        );
        assert!(text.len() < 2_000, "{}", text.len());
    }

    #[test]
    fn derived_schemas_read_optional_nulls_as_absent() {
        let value = json!({
            "type": "object",
            "properties": { "name": { "type": "string" }, "region": { "type": "string" } },
            "required": ["name"]
        });
        let derived = InputValidator::compile(&schema(value.clone()), true).expect("compiles");
        let admitted = derived
            .admit(arguments(json!({"name": "Ann", "region": null})))
            .expect("null reads as absent");
        assert_eq!(Value::Object(admitted), json!({"name": "Ann"}));
        assert!(derived.admit(arguments(json!({"name": null}))).is_err());
        let hand_written = raw(value);
        assert!(
            hand_written
                .admit(arguments(json!({"name": "Ann", "region": null})))
                .is_err()
        );
    }

    #[test]
    fn output_schemas_compile_or_refuse_the_tool() {
        let mut tool = Tool::new(schema(json!({"type": "object"})), "out".to_owned());
        tool.output_schema = Some(
            serde_json::from_value(json!({"type": "object", "required": "sum"})).expect("object"),
        );
        let error = ToolSchemas::compile(&tool, true).expect_err("`required` is an array");
        assert!(
            error.starts_with("its outputSchema does not compile: "),
            "{error}"
        );
        tool.output_schema = Some(
            serde_json::from_value(json!({"type": "object", "required": ["sum"]})).expect("object"),
        );
        let schemas = ToolSchemas::compile(&tool, true).expect("compiles");
        // A mismatch is logged, never answered differently.
        #[cfg(debug_assertions)]
        schemas.check_output(
            "out",
            &Ok(mcp_era_types::v2026_07_28::CallToolResult::structured(json!({"total": 1})).into()),
        );
        let _ = schemas;
    }
}
