//! Completions: the static table behind `#[arg(complete = ...)]` and the
//! values derived from string-enum argument types, answering
//! `completion/complete` for a router's prompts and URI templates.

use std::collections::{BTreeMap, HashMap};

use mcp_era_types::v2026_07_28::{
    CompleteRequestParams, CompleteRequestParamsRef, CompleteResult, CompleteResultCompletion,
};

use super::tools::BoxFuture;
use crate::model::context::RequestContext;
use crate::model::handlers::MAX_COMPLETION_VALUES;
use crate::wire::errors::{self, ErrorObject, HandlerResult};

/// The other arguments a client already resolved (`context.arguments`):
/// the prompt's other arguments or the template's other variables, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompletionArguments(BTreeMap<String, String>);

impl CompletionArguments {
    /// From `context.arguments`.
    pub fn new(arguments: BTreeMap<String, String>) -> Self {
        Self(arguments)
    }

    /// The value of argument `name`, if the client sent it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Every resolved argument, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// What a completer is asked: the partial value and the other resolved
/// arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompletionRequest {
    /// The partial value typed so far (`argument.value`).
    pub value: String,
    /// `context.arguments`.
    pub arguments: CompletionArguments,
}

/// What a completer answers: every value to offer, in order.
pub type CompletionOutcome = HandlerResult<Vec<String>>;

/// A `#[arg(complete = ...)]` method as the router calls it.
pub type CompleterFn<S> =
    for<'a> fn(&'a S, CompletionRequest, &'a RequestContext) -> BoxFuture<'a, CompletionOutcome>;

/// Where a completion applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompletionTarget {
    /// A prompt, by name.
    Prompt(&'static str),
    /// A URI template, as written.
    Template(&'static str),
}

/// How one argument is completed.
pub enum Completer<S> {
    /// By a method of the server.
    Method(CompleterFn<S>),
    /// From the values of the argument type's JSON schema, if it is a
    /// string enum (run once, when the table is built).
    Derived(fn() -> Vec<String>),
}

/// One prompt argument or template variable as the router macro writes it
/// down (every one is listed, so that a known argument without a completer
/// answers no values while an unknown one is an error).
pub struct CompletionSpec<S> {
    /// The prompt or template.
    pub target: CompletionTarget,
    /// The argument or variable name.
    pub argument: &'static str,
    /// How it is completed.
    pub completer: Completer<S>,
}

enum Entry<S> {
    Method(CompleterFn<S>),
    Values(Vec<String>),
}

/// The completions of a `#[mcp_era_server::router]` impl, built once.
pub struct CompletionTable<S: 'static> {
    entries: HashMap<(CompletionTarget, &'static str), Entry<S>>,
    targets: Vec<CompletionTarget>,
    offered: bool,
}

impl<S> CompletionTable<S> {
    /// Builds the table, deriving the enum values now.
    pub fn build(specs: &[CompletionSpec<S>]) -> Self {
        let mut entries = HashMap::new();
        let mut targets = Vec::new();
        let mut offered = false;
        for spec in specs {
            if !targets.contains(&spec.target) {
                targets.push(spec.target);
            }
            let entry = match &spec.completer {
                Completer::Method(f) => Entry::Method(*f),
                Completer::Derived(values) => Entry::Values(values()),
            };
            offered |= !matches!(&entry, Entry::Values(v) if v.is_empty());
            entries.insert((spec.target, spec.argument), entry);
        }
        Self {
            entries,
            targets,
            offered,
        }
    }

    /// Whether any argument completes to something, i.e. whether the
    /// server offers the `completions` capability.
    pub fn offered(&self) -> bool {
        self.offered
    }

    /// `completion/complete`. An unknown prompt, template or argument is
    /// `-32602`; a known argument without a completer answers no values.
    pub async fn complete(
        &self,
        server: &S,
        params: CompleteRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<CompleteResult> {
        let target = match &params.ref_ {
            CompleteRequestParamsRef::PromptReference(r) => self.target(|t| match t {
                CompletionTarget::Prompt(name) => *name == r.name,
                CompletionTarget::Template(_) => false,
            }),
            CompleteRequestParamsRef::ResourceTemplateReference(r) => self.target(|t| match t {
                CompletionTarget::Template(template) => *template == r.uri,
                CompletionTarget::Prompt(_) => false,
            }),
        }
        .ok_or_else(|| unknown_ref(&params.ref_))?;
        let argument = params.argument.name.as_str();
        let Some(entry) = self.entries.get(&(target, argument)) else {
            return Err(errors::invalid_params(match target {
                CompletionTarget::Prompt(name) => {
                    format!("Prompt `{name}` has no argument `{argument}`")
                }
                CompletionTarget::Template(template) => {
                    format!("URI template `{template}` has no variable `{argument}`")
                }
            }));
        };
        let values = match entry {
            Entry::Values(values) => values
                .iter()
                .filter(|v| v.starts_with(params.argument.value.as_str()))
                .cloned()
                .collect(),
            Entry::Method(complete) => {
                let arguments = params.context.and_then(|c| c.arguments);
                let request = CompletionRequest {
                    value: params.argument.value,
                    arguments: CompletionArguments::new(arguments.unwrap_or_default()),
                };
                complete(server, request, ctx).await?
            }
        };
        Ok(completion(values))
    }

    fn target(&self, matches: impl Fn(&CompletionTarget) -> bool) -> Option<CompletionTarget> {
        self.targets.iter().copied().find(|t| matches(t))
    }
}

fn unknown_ref(reference: &CompleteRequestParamsRef) -> ErrorObject {
    errors::invalid_params(match reference {
        CompleteRequestParamsRef::PromptReference(r) => format!("Unknown prompt: {}", r.name),
        CompleteRequestParamsRef::ResourceTemplateReference(r) => {
            format!("Unknown resource template: {}", r.uri)
        }
    })
}

/// The answer for every value a completer offers: at most
/// [`MAX_COMPLETION_VALUES`], with the full count in `total` and `hasMore`
/// when some were cut.
pub fn completion(mut values: Vec<String>) -> CompleteResult {
    let total = values.len();
    values.truncate(MAX_COMPLETION_VALUES);
    let mut completion = CompleteResultCompletion::new(values);
    completion.total = Some(i64::try_from(total).unwrap_or(i64::MAX));
    completion.has_more = Some(total > MAX_COMPLETION_VALUES);
    CompleteResult::new(completion)
}

/// What a completer may return: any iterable of strings (`Vec<String>`,
/// `Vec<&str>`, an array, an iterator).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a completer",
    note = "return `Vec<String>`, `Vec<&str>`, an iterator of strings, or a `Result` of one whose `Err` is an `ErrorObject` (a JSON-RPC error)"
)]
pub trait IntoCompletionValues {
    /// The values, in order.
    fn into_completion_values(self) -> Vec<String>;
}

impl<I> IntoCompletionValues for I
where
    I: IntoIterator<Item: Into<String>>,
{
    fn into_completion_values(self) -> Vec<String> {
        self.into_iter().map(Into::into).collect()
    }
}

/// The values of a completer.
pub fn completion_values(values: impl IntoCompletionValues) -> CompletionOutcome {
    Ok(values.into_completion_values())
}

/// The values of a completer returning a `Result`; an `Err` is the
/// JSON-RPC error.
pub fn completion_result<I: IntoCompletionValues, E: Into<ErrorObject>>(
    values: Result<I, E>,
) -> CompletionOutcome {
    values
        .map(IntoCompletionValues::into_completion_values)
        .map_err(Into::into)
}

/// The string values of a JSON schema that is a string enum (`enum`, or a
/// `oneOf`/`anyOf` of `const`s as schemars writes documented variants);
/// empty for any other schema.
pub fn enum_values(schema: &serde_json::Value) -> Vec<String> {
    let strings = |list: &serde_json::Value| -> Option<Vec<String>> {
        list.as_array()?
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    if let Some(values) = schema.get("enum").and_then(strings) {
        return values;
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(variants) = schema.get(key).and_then(serde_json::Value::as_array) {
            let consts: Option<Vec<String>> = variants
                .iter()
                .map(|v| v.get("const").and_then(|c| c.as_str()).map(str::to_owned))
                .collect();
            if let Some(values) = consts {
                return values;
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn enum_values_reads_enum_and_const_lists() {
        assert_eq!(
            enum_values(&json!({"type": "string", "enum": ["a", "b"]})),
            ["a", "b"]
        );
        assert_eq!(
            enum_values(&json!({"oneOf": [{"const": "x"}, {"const": "y"}]})),
            ["x", "y"]
        );
        assert!(enum_values(&json!({"type": "string"})).is_empty());
        assert!(enum_values(&json!({"enum": [1, 2]})).is_empty());
        assert!(enum_values(&json!({"oneOf": [{"const": "x"}, {"type": "null"}]})).is_empty());
    }

    #[test]
    fn completion_caps_and_counts() {
        let all: Vec<String> = (0..150).map(|i| i.to_string()).collect();
        let cut = completion(all).completion;
        assert_eq!(cut.values.len(), MAX_COMPLETION_VALUES);
        assert_eq!((cut.total, cut.has_more), (Some(150), Some(true)));
        let few = completion(vec!["a".into()]).completion;
        assert_eq!((few.total, few.has_more), (Some(1), Some(false)));
    }
}
