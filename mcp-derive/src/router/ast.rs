//! The small AST of a `#[router]` impl block: its marked methods (kind,
//! settings, parameters), the plain methods `list = ...` may name, and what
//! the completion step resolves (`list` methods, completers).

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::{LitStr, Type};

use crate::internals::attr::{Icon, Scopes};

const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "icon",
    "meta",
    "task",
    "scopes",
    "hidden",
    "era",
    "ui",
    "visibility",
];
const RESOURCE_KEYS: &[&str] = &[
    "uri",
    "template",
    "name",
    "title",
    "description",
    "mime_type",
    "icon",
    "list",
    "cache",
    "ui",
    "csp",
    "permissions",
    "domain",
    "prefers_border",
];
const PROMPT_KEYS: &[&str] = &["name", "title", "description", "icon"];

/// What a marked method is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    pub fn of(attr: &syn::Attribute) -> Option<Self> {
        let path = attr.path();
        if path.is_ident("tool") {
            Some(Self::Tool)
        } else if path.is_ident("resource") {
            Some(Self::Resource)
        } else if path.is_ident("prompt") {
            Some(Self::Prompt)
        } else {
            None
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Resource => "resource",
            Self::Prompt => "prompt",
        }
    }

    pub fn keys(self) -> &'static [&'static str] {
        match self {
            Self::Tool => TOOL_KEYS,
            Self::Resource => RESOURCE_KEYS,
            Self::Prompt => PROMPT_KEYS,
        }
    }
}

/// The settings of one `#[tool(...)]`, `#[resource(...)]` or `#[prompt(...)]`.
#[derive(Default)]
pub struct Settings {
    pub strings: BTreeMap<String, LitStr>,
    pub flags: BTreeMap<String, bool>,
    pub icons: Vec<Icon>,
    pub meta: Option<String>,
    /// `scopes = [...]` (tools only); `Some` once written, even if invalid.
    pub scopes: Option<Option<Scopes>>,
    /// `#[tool(hidden)]`.
    pub hidden: bool,
    /// `list = method` (templates only), as written.
    pub list: Option<syn::Path>,
    /// The `list` method, once found and checked.
    pub lister: Option<Lister>,
    /// `cache(ttl_ms = ..., scope = ...)` (resources only), as written.
    pub cache: Option<(Option<syn::Expr>, Option<LitStr>)>,
    /// `cache(...)` checked: `ttlMs`, and `Some(true)` for a public scope.
    pub cache_values: (Option<u64>, Option<bool>),
    /// `visibility = [...]` (tools): who may use the tool (MCP Apps).
    pub visibility: Option<Vec<LitStr>>,
    /// `csp(...)` (UI resources): each list under its `_meta.ui.csp` name.
    pub csp: Option<Vec<(&'static str, Vec<LitStr>)>>,
    /// `permissions(...)` (UI resources), as `_meta.ui.permissions` names.
    pub permissions: Option<Vec<&'static str>>,
    /// `prefers_border` (UI resources).
    pub prefers_border: Option<bool>,
    /// Where the first UI-only resource key was written.
    pub ui_key: Option<Span>,
}

/// The `list` method of a template, as its signature says.
pub struct Lister {
    pub ident: syn::Ident,
    pub is_async: bool,
    pub takes_context: bool,
    /// Where an unfit return type is reported.
    pub output_span: Span,
}

/// A method of the impl block that `list = ...` may name.
pub struct FnInfo {
    pub ident: syn::Ident,
    pub sig: syn::Signature,
    pub marked: bool,
}

/// One parameter of a marked method.
pub struct Param {
    pub ident: syn::Ident,
    pub ty: Type,
    /// The wire name (`#[arg(name = ...)]`, else the parameter name).
    pub name: String,
    pub description: Option<LitStr>,
    pub header: Option<LitStr>,
    /// `#[arg(complete = method)]`: the completer of a prompt argument or
    /// template variable.
    pub complete: Option<syn::Path>,
    pub whole: bool,
    pub context: bool,
    pub request: bool,
    pub retry: bool,
}

/// One marked method.
pub struct Method {
    pub kind: Kind,
    pub ident: syn::Ident,
    pub is_async: bool,
    pub settings: Settings,
    pub docs: Option<String>,
    pub params: Vec<Param>,
    pub output: Type,
}

/// One parameter of a completer method.
pub enum CompleterInput {
    Value,
    Arguments,
    Context,
}

/// A method named by `#[arg(complete = ...)]`.
pub struct Completer {
    pub ident: syn::Ident,
    pub is_async: bool,
    pub inputs: Vec<CompleterInput>,
    /// The return type, `Result`-like (its `Err` a JSON-RPC error) or not.
    pub fallible: bool,
    pub output: Type,
}

/// The wire name: `name = ...`, else the method name.
pub fn name_of(method: &Method) -> String {
    method.settings.strings.get("name").map_or_else(
        || method.ident.to_string().trim_start_matches("r#").to_owned(),
        LitStr::value,
    )
}

/// Where a name mistake is reported.
pub fn name_span(method: &Method) -> Span {
    method
        .settings
        .strings
        .get("name")
        .map_or(method.ident.span(), LitStr::span)
}
