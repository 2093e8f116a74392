//! Typed Rust clients from any server's tool catalogue (`tools/list`).
//!
//! [`generate`] turns a catalogue into one Rust module: per tool an
//! arguments struct (from `inputSchema`, through typify), an output type
//! where `outputSchema` exists, and one async method on a client struct
//! that wraps the dual-era client (`mcp_era::client::Client` by default).
//! A method returns the typed output (from `structuredContent`) or the
//! content blocks; an `isError` result is the generated
//! `ToolCallError::Tool`, carrying the blocks.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_era_codegen::client::{ClientOptions, generate};
//! let catalogue: serde_json::Value =
//!     serde_json::from_str(&std::fs::read_to_string("tools.json")?)?;
//! let generated = generate(&catalogue, &ClientOptions::new("Weather"))?;
//! for warning in &generated.warnings {
//!     eprintln!("warning: {warning}");
//! }
//! std::fs::write("src/weather.rs", generated.source)?;
//! # Ok(()) }
//! ```
//!
//! With feature `live`, `live::fetch` lists a running server's tools
//! (stdio command or URL, either era).
//!
//! In a build script, [`build`] reads a committed snapshot and writes to
//! `OUT_DIR` (include it with `include!(concat!(env!("OUT_DIR"), "/weather.rs"))`
//! inside a `mod`).
//!
//! Rules:
//!
//! * **Names.** A tool's method is its name in snake_case, every
//!   non-alphanumeric character splitting words (`files.read` →
//!   `files_read`, `get-weather` → `get_weather`); a leading digit gets
//!   `tool_`; a keyword or one of the wrapper's own method names gets a
//!   trailing `_` (`type` → `type_`). Types are the method in CamelCase
//!   plus `Args` / `Output`, and live, with the types typify makes for
//!   them, in a module named like the method, all re-exported at the top:
//!   a nested type under its own name (`GetWeatherArgsPlace`), or, where
//!   that name is made more than once or taken, under its owner's name
//!   plus its own (`GetWeatherArgsUnit`).
//!   Tools are taken in name order; a name that collides after mapping gets
//!   `_2`, `_3`, … and a warning.
//! * **Unused items.** The client's methods, `ToolCallError` and the
//!   re-exports allow `dead_code` / `unused_imports`: a program that
//!   calls only some tools builds without warnings.
//! * **No arguments.** A tool whose `inputSchema` has no properties (and no
//!   combinators or `$ref`) gets a method without an arguments parameter.
//! * **Fallback.** A subschema that uses a keyword typify cannot express
//!   (`if`/`then`/`else`, `not`, `patternProperties`, `propertyNames`,
//!   `dependentSchemas`, `prefixItems`, `contains`, `unevaluated*`, a
//!   `$ref` that names no root definition, nested `$defs`, a `false`
//!   schema, …) becomes any JSON value: its field is `serde_json::Value`,
//!   with a [`Warning`] naming the tool and the JSON pointer. If typify
//!   still fails or panics on a schema, the whole arguments type becomes
//!   `serde_json::Map<String, serde_json::Value>` (an output type:
//!   `serde_json::Value`), again with a warning (and nothing on stderr:
//!   typify's panics are caught without the panic hook's message). Input
//!   never panics.
//! * **Formats.** `date`, `date-time`, `time`, `uuid`, `duration` and
//!   `pattern` are dropped (the field is a `String`) so the generated code
//!   needs no `chrono`, `uuid` or `regress`; `ipv4`/`ipv6` become `std::net`
//!   types, integer formats sized integers.
//!
//! The generated code needs `serde` and `serde_json` and the client crate
//! at [`ClientOptions::client_path`]; output is deterministic, with a
//! `@generated` header that lists the warnings.

#[cfg(feature = "live")]
pub mod live;
mod names;
mod quiet;
mod schema;
mod types;
mod wrapper;

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use crate::emit::tidy;
use crate::error::{Error, Result};

/// What [`generate`] needs besides the catalogue.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// The client struct is `{name}Client` (default `Tools`).
    pub name: String,
    /// The client crate's path (default `::mcp_era::client`, the facade with
    /// its `client` feature; `::mcp_era_client` for the crate itself).
    pub client_path: String,
    /// The command named in the `@generated` header.
    pub command: String,
    /// Warnings (tool, JSON pointer) the build script's author reviewed:
    /// [`build`] prints the others only.
    pub accepted_warnings: Vec<(String, String)>,
}

impl ClientOptions {
    /// Options for a client struct named `{name}Client`.
    pub fn new(name: impl Into<String>) -> Self {
        ClientOptions {
            name: name.into(),
            ..ClientOptions::default()
        }
    }

    /// Sets [`ClientOptions::client_path`].
    pub fn client_path(mut self, path: impl Into<String>) -> Self {
        self.client_path = path.into();
        self
    }

    /// Sets [`ClientOptions::command`].
    pub fn command(mut self, command: impl Into<String>) -> Self {
        self.command = command.into();
        self
    }

    /// Accepts the warning about `tool` at `path` (a JSON pointer into the
    /// tool, as [`Warning::path`] says it): [`build`] no longer prints it,
    /// and says so when it no longer occurs.
    pub fn accept_warning(mut self, tool: impl Into<String>, path: impl Into<String>) -> Self {
        self.accepted_warnings.push((tool.into(), path.into()));
        self
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            name: "Tools".into(),
            client_path: "::mcp_era::client".into(),
            command: "mcp-era-codegen client".into(),
            accepted_warnings: Vec::new(),
        }
    }
}

/// Something the generator did instead of the obvious: a fallback to
/// `serde_json::Value`, a renamed collision, a skipped tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The tool's name as the server spells it.
    pub tool: String,
    /// JSON pointer into the tool object (`/inputSchema/properties/when`).
    pub path: String,
    /// What happened.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool `{}` at `{}`: {}",
            self.tool, self.path, self.message
        )
    }
}

/// A generated module.
#[derive(Debug, Clone)]
pub struct Generated {
    /// Formatted Rust source.
    pub source: String,
    /// What fell back or was renamed, in tool order.
    pub warnings: Vec<Warning>,
}

/// The tool objects of a catalogue: an array of tools, a `tools/list`
/// result (`{"tools": [...]}`) or a whole JSON-RPC response
/// (`{"result": {"tools": [...]}}`).
pub fn tools_of(catalogue: &Value) -> Result<&Vec<Value>> {
    match catalogue {
        Value::Array(tools) => Ok(tools),
        Value::Object(map) => match (map.get("tools"), map.get("result")) {
            (Some(Value::Array(tools)), _) => Ok(tools),
            (_, Some(result)) if result.get("tools").is_some() => tools_of(result),
            _ => Err(Error::new(
                "catalogue: expected an array of tools, {\"tools\": [...]} or a JSON-RPC response",
            )),
        },
        _ => Err(Error::new("catalogue: expected a JSON array or object")),
    }
}

/// One tool, named and typed.
struct Planned<'a> {
    tool: &'a str,
    method: String,
    description: Option<&'a str>,
    input: Option<&'a Value>,
    output: Option<&'a Value>,
}

/// Generates the typed client module for `catalogue` (see [`tools_of`]).
pub fn generate(catalogue: &Value, options: &ClientOptions) -> Result<Generated> {
    let client_path: syn::Path = syn::parse_str(&options.client_path)
        .map_err(|e| Error::new(format!("client path {:?}: {e}", options.client_path)))?;
    let client_name = format!("{}Client", options.name);
    syn::parse_str::<syn::Ident>(&client_name)
        .map_err(|_| Error::new(format!("{client_name:?} is not a Rust type name")))?;
    let mut warnings = Vec::new();
    let mut tools: Vec<(&str, &Map<String, Value>)> = Vec::new();
    for (i, tool) in tools_of(catalogue)?.iter().enumerate() {
        match tool.as_object() {
            Some(obj) => match obj.get("name").and_then(Value::as_str) {
                Some(name) => tools.push((name, obj)),
                None => warnings.push(Warning {
                    tool: format!("#{i}"),
                    path: "/name".into(),
                    message: "no name: tool left out".into(),
                }),
            },
            None => warnings.push(Warning {
                tool: format!("#{i}"),
                path: String::new(),
                message: "not an object: tool left out".into(),
            }),
        }
    }
    tools.sort_by(|a, b| a.0.cmp(b.0));
    let mut taken = BTreeSet::new();
    let mut planned = Vec::new();
    for (tool, obj) in tools {
        let base = names::method_name(tool);
        let mut method = base.clone();
        let mut n = 2;
        // Methods and type stems must both be unique.
        while taken.contains(&method) || taken.contains(&names::type_stem(&method)) {
            method = format!("{}_{n}", base.trim_end_matches('_'));
            n += 1;
        }
        if method != base {
            warnings.push(Warning {
                tool: tool.into(),
                path: "/name".into(),
                message: format!("`{base}` is taken by another tool: method `{method}`"),
            });
        }
        taken.insert(method.clone());
        taken.insert(names::type_stem(&method));
        planned.push(Planned {
            tool,
            method,
            description: obj.get("description").and_then(Value::as_str),
            input: obj.get("inputSchema"),
            output: obj.get("outputSchema"),
        });
    }

    let mut modules = Vec::new();
    let mut nested = Vec::new();
    let mut args_names = Vec::new();
    let mut output_names = Vec::new();
    for p in &planned {
        let stem = names::type_stem(&p.method);
        let module = format_ident!("{}", p.method);
        let mut body = TokenStream::new();
        let mut exports = Vec::new();
        let args = p.input.filter(|s| takes_arguments(s)).map(|schema| {
            let name = format!("{stem}Args");
            let t = types::generate(
                schema,
                &name,
                quote!(::serde_json::Map<::std::string::String, ::serde_json::Value>),
            );
            push_warnings(&mut warnings, p.tool, "/inputSchema", t.warnings);
            let ident = format_ident!("{name}");
            let tokens = t.tokens;
            nested.extend(
                nested_types(&tokens, &name)
                    .into_iter()
                    .map(|inner| Nested {
                        path: quote!(#module::args),
                        owner: name.clone(),
                        name: inner,
                    }),
            );
            body.extend(quote! {
                /// The arguments' types (typify).
                pub mod args { #tokens }
            });
            exports.push(quote!(args::#ident));
            name
        });
        let output = p.output.map(|schema| {
            let name = format!("{stem}Output");
            let t = types::generate(schema, &name, quote!(::serde_json::Value));
            push_warnings(&mut warnings, p.tool, "/outputSchema", t.warnings);
            let ident = format_ident!("{name}");
            let tokens = t.tokens;
            nested.extend(
                nested_types(&tokens, &name)
                    .into_iter()
                    .map(|inner| Nested {
                        path: quote!(#module::output),
                        owner: name.clone(),
                        name: inner,
                    }),
            );
            body.extend(quote! {
                /// The output's types (typify).
                pub mod output { #tokens }
            });
            exports.push(quote!(output::#ident));
            name
        });
        if !exports.is_empty() {
            let doc = format!(" Types of tool `{}`.", p.tool.replace('`', "'"));
            modules.push(quote! {
                #[doc = #doc]
                #[allow(clippy::all, clippy::pedantic, dead_code, missing_docs)]
                pub mod #module {
                    #body
                }
                // A program that uses some tools leaves the rest unused.
                #[allow(unused_imports)]
                pub use self::#module::{#(#exports),*};
            });
        }
        args_names.push(args);
        output_names.push(output);
    }
    let methods: Vec<wrapper::Method<'_>> = planned
        .iter()
        .zip(args_names.iter().zip(&output_names))
        .map(|(p, (args, output))| wrapper::Method {
            tool: p.tool,
            method: &p.method,
            description: p.description,
            args: args.as_deref(),
            output: output.as_deref(),
        })
        .collect();
    let client = wrapper::emit(&client_name, &client_path, &methods);
    let roots = [client_name.clone(), "ToolCallError".to_owned()]
        .into_iter()
        .chain(args_names.iter().chain(&output_names).flatten().cloned());
    let nested = reexport_nested(nested, roots.collect());
    // The same short paths and `use` lines as the protocol types.
    let (uses, items) = tidy::shorten_paths(
        quote! { #client #(#modules)* #nested },
        "::serde",
        "::serde_json",
    )?;
    let file: syn::File = syn::parse2(quote! { #uses #items })
        .map_err(|e| Error::new(format!("generated code does not parse: {e}")))?;
    let mut source = format!(
        "// @generated by `{}`. Do not edit by hand.\n// Typed client for {} tool(s); needs `serde`, `serde_json` and `{}`.\n",
        options.command.replace('\n', " "),
        planned.len(),
        options.client_path
    );
    for w in &warnings {
        source.push_str(&format!(
            "// warning: {}\n",
            w.to_string().replace('\n', " ")
        ));
    }
    source.push('\n');
    source.push_str(&prettyplease::unparse(&file));
    Ok(Generated { source, warnings })
}

/// A type typify made beside a tool's arguments or output type.
struct Nested {
    /// The module it is in (`get_weather::args`).
    path: TokenStream,
    /// The tool's arguments or output type (`GetWeatherArgs`).
    owner: String,
    /// Its name there (`Unit`).
    name: String,
}

/// The public types of one typify module other than `root`.
fn nested_types(tokens: &TokenStream, root: &str) -> Vec<String> {
    let Ok(file) = syn::parse2::<syn::File>(tokens.clone()) else {
        return Vec::new();
    };
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(i) if matches!(i.vis, syn::Visibility::Public(_)) => Some(&i.ident),
            syn::Item::Enum(i) if matches!(i.vis, syn::Visibility::Public(_)) => Some(&i.ident),
            syn::Item::Type(i) if matches!(i.vis, syn::Visibility::Public(_)) => Some(&i.ident),
            _ => None,
        })
        .map(ToString::to_string)
        .filter(|name| name != root)
        .collect()
}

/// `pub use` lines for the nested types at the module root: a name made
/// once keeps it; a name several tools use (or one the root has) is
/// re-exported as its owner's name plus its own (`OtherArgsUnit`), unless
/// that is taken too (then it stays at its path only).
fn reexport_nested(nested: Vec<Nested>, roots: BTreeSet<String>) -> TokenStream {
    let mut count = std::collections::BTreeMap::<&str, usize>::new();
    for n in &nested {
        *count.entry(n.name.as_str()).or_default() += 1;
    }
    let mut taken = roots;
    let mut chosen: Vec<Option<String>> = vec![None; nested.len()];
    // Unique names first, so that an alias never takes one of them.
    for (i, n) in nested.iter().enumerate() {
        if count[n.name.as_str()] == 1 && taken.insert(n.name.clone()) {
            chosen[i] = Some(n.name.clone());
        }
    }
    for (i, n) in nested.iter().enumerate() {
        let alias = format!("{}{}", n.owner, n.name);
        if chosen[i].is_none() && taken.insert(alias.clone()) {
            chosen[i] = Some(alias);
        }
    }
    let lines = nested.iter().zip(chosen).filter_map(|(n, alias)| {
        let alias = alias?;
        let path = &n.path;
        let name = format_ident!("{}", n.name);
        Some(if alias == n.name {
            quote!(pub use self::#path::#name;)
        } else {
            let alias = format_ident!("{alias}");
            quote!(pub use self::#path::#name as #alias;)
        })
    });
    quote! {
        #(
            #[allow(unused_imports)]
            #lines
        )*
    }
}

/// Whether an `inputSchema` has anything to fill in.
fn takes_arguments(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    let has = |key: &str| match map.get(key) {
        Some(Value::Object(m)) => !m.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Bool(b)) => *b && key == "additionalProperties",
        Some(_) => true,
        None => false,
    };
    [
        "properties",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "patternProperties",
    ]
    .iter()
    .any(|k| has(k))
        || matches!(map.get("additionalProperties"), Some(Value::Object(m)) if !m.is_empty())
}

fn push_warnings(out: &mut Vec<Warning>, tool: &str, prefix: &str, found: Vec<(String, String)>) {
    out.extend(found.into_iter().map(|(path, message)| Warning {
        tool: tool.into(),
        path: format!("{prefix}{path}"),
        message,
    }));
}

/// The lines [`build`] prints: each warning not accepted, and each accepted
/// warning that no longer occurs (so the list stays true).
fn build_warnings(warnings: &[Warning], accepted: &[(String, String)]) -> Vec<String> {
    let is_accepted = |w: &Warning| accepted.iter().any(|(t, p)| *t == w.tool && *p == w.path);
    let mut lines: Vec<String> = warnings
        .iter()
        .filter(|w| !is_accepted(w))
        .map(|w| w.to_string().replace('\n', " "))
        .collect();
    lines.extend(
        accepted
            .iter()
            .filter(|(t, p)| !warnings.iter().any(|w| w.tool == *t && w.path == *p))
            .map(|(t, p)| {
                format!("the accepted warning about tool `{t}` at `{p}` no longer occurs")
            }),
    );
    lines
}

/// For build scripts: reads the catalogue snapshot at `snapshot` (relative
/// to the package), writes the module to `$OUT_DIR/{out_file}`, tells cargo
/// to rerun when the snapshot changes and prints each warning as
/// `cargo:warning=`. Returns the path written.
///
/// ```no_run
/// // build.rs, in `fn main`:
/// let options = mcp_era_codegen::client::ClientOptions::new("Weather");
/// if let Err(e) = mcp_era_codegen::client::build("tools.json", "weather.rs", &options) {
///     panic!("{e}");
/// }
/// ```
pub fn build(
    snapshot: impl AsRef<Path>,
    out_file: &str,
    options: &ClientOptions,
) -> Result<PathBuf> {
    let snapshot = snapshot.as_ref();
    println!("cargo:rerun-if-changed={}", snapshot.display());
    let out_dir = std::env::var_os("OUT_DIR")
        .ok_or_else(|| Error::new("OUT_DIR is not set: call this from a build script"))?;
    let text = std::fs::read_to_string(snapshot)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", snapshot.display())))?;
    let catalogue: Value = serde_json::from_str(&text)
        .map_err(|e| Error::new(format!("{} is not JSON: {e}", snapshot.display())))?;
    let mut options = options.clone();
    if options.command == ClientOptions::default().command {
        options.command = format!("mcp_era_codegen::client::build from {}", snapshot.display());
    }
    let generated = generate(&catalogue, &options)?;
    for line in build_warnings(&generated.warnings, &options.accepted_warnings) {
        println!("cargo:warning={line}");
    }
    let path = PathBuf::from(out_dir).join(out_file);
    std::fs::write(&path, generated.source)
        .map_err(|e| Error::new(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::{Warning, build_warnings};

    #[test]
    fn accepted_warnings_are_not_printed_and_stale_ones_are_named() {
        let warning = |tool: &str, path: &str| Warning {
            tool: tool.into(),
            path: path.into(),
            message: "`if` dropped".into(),
        };
        let warnings = [warning("a", "/inputSchema"), warning("b", "/inputSchema")];
        let accepted = [
            ("a".to_owned(), "/inputSchema".to_owned()),
            ("gone".to_owned(), "/inputSchema".to_owned()),
        ];
        let lines = build_warnings(&warnings, &accepted);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].contains("`b`"), "{lines:?}");
        assert!(lines[1].contains("`gone`") && lines[1].contains("no longer occurs"));
        assert_eq!(build_warnings(&warnings, &[]).len(), 2);
    }
}
