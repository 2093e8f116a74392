//! Parsing of `#[mcp(...)]` into the [`Attrs`] IR. Every value keeps its
//! syn node for spans. Errors go to the [`Ctxt`]; parsing goes on after an
//! error so that all mistakes are reported at once.

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Expr, ExprArray, Ident, Lit, LitStr, Token};

use super::ctxt::Ctxt;
use super::json::JsonLiteral;
use super::suggest::unknown_key_message;

/// The keys of `#[mcp(...)]`.
pub const KEYS: &[&str] = &[
    "name",
    "version",
    "title",
    "description",
    "website",
    "icon",
    "instructions",
    "instructions_file",
    "versions",
    "tools",
    "resources",
    "prompts",
    "completions",
    "logging",
    "experimental",
    "extension",
    "discover",
    "cache",
    "scopes",
    "crate",
];
const VERSIONS_KEYS: &[&str] = &["modern", "legacy"];
const TOOLS_KEYS: &[&str] = &["list_changed", "scopes"];
const PROMPTS_KEYS: &[&str] = &["list_changed", "scopes"];
const RESOURCES_KEYS: &[&str] = &["subscribe", "list_changed", "scopes"];
const COMPLETIONS_KEYS: &[&str] = &["scopes"];
const DISCOVER_KEYS: &[&str] = &["ttl_ms", "scope"];
const ICON_KEYS: &[&str] = &["src", "mime_type", "sizes", "theme"];

/// A declared capability flag, e.g. `tools(list_changed)`.
pub struct Capability {
    /// The capability keyword, for spans of generated handler calls.
    pub ident: Ident,
    /// `list_changed` was given.
    pub list_changed: bool,
    /// `subscribe` was given (resources only).
    pub subscribe: bool,
    /// `scopes = [...]`: OAuth scopes the capability's methods need.
    pub scopes: Option<Scopes>,
}

/// A `scopes = ["...", ...]` list of OAuth scopes.
pub struct Scopes {
    /// The scopes as written.
    pub list: Vec<LitStr>,
}

/// Extension or experimental settings.
pub enum Settings {
    /// A JSON object literal, checked at compile time.
    Json(serde_json::Map<String, serde_json::Value>),
    /// A path to a `fn() -> JSONObject`.
    Path(syn::Path),
}

/// One `extension(...)` or `experimental(...)` entry.
pub struct Entry {
    /// The identifier as written.
    pub id: LitStr,
    /// Its settings (`{}` when omitted).
    pub settings: Settings,
}

/// One `icon(...)`.
pub struct Icon {
    /// `src`.
    pub src: Option<LitStr>,
    /// `mime_type`.
    pub mime_type: Option<LitStr>,
    /// `sizes`.
    pub sizes: Vec<LitStr>,
    /// `theme`: `light` or `dark`.
    pub theme: Option<LitStr>,
    /// The span of the `icon` keyword.
    pub span: Span,
}

/// Everything `#[mcp(...)]` says, before validation.
#[derive(Default)]
pub struct Attrs {
    /// `name`.
    pub name: Option<LitStr>,
    /// `version`.
    pub version: Option<LitStr>,
    /// `title`.
    pub title: Option<LitStr>,
    /// `description`.
    pub description: Option<LitStr>,
    /// `website`.
    pub website: Option<LitStr>,
    /// `icon(...)`, repeatable.
    pub icons: Vec<Icon>,
    /// `instructions`.
    pub instructions: Option<LitStr>,
    /// `instructions_file`.
    pub instructions_file: Option<LitStr>,
    /// `versions(modern = [...])`.
    pub modern: Option<(Span, Vec<LitStr>)>,
    /// `versions(modern = [])` was written with no element at all.
    pub modern_written_empty: bool,
    /// `versions(legacy = [...])`.
    pub legacy: Option<(Span, Vec<LitStr>)>,
    /// `tools`.
    pub tools: Option<Capability>,
    /// `resources`.
    pub resources: Option<Capability>,
    /// `prompts`.
    pub prompts: Option<Capability>,
    /// `completions`.
    pub completions: Option<Capability>,
    /// `logging`.
    pub logging: Option<Capability>,
    /// `experimental(...)` entries.
    pub experimental: Vec<Entry>,
    /// `extension(...)` entries.
    pub extensions: Vec<Entry>,
    /// `discover(ttl_ms = ...)`, checked by the check pass.
    pub ttl_ms: Option<Expr>,
    /// `discover(scope = ...)`.
    pub scope: Option<LitStr>,
    /// `cache(ttl_ms = ...)`: the default `ttlMs` of list and read results.
    pub cache_ttl_ms: Option<Expr>,
    /// `cache(scope = ...)`.
    pub cache_scope: Option<LitStr>,
    /// `scopes = [...]`: OAuth scopes every request needs.
    pub scopes: Option<Scopes>,
    /// `crate = "..."`.
    pub krate: Option<syn::Path>,
    seen: BTreeMap<String, Span>,
}

impl Attrs {
    /// Parses every `#[mcp(...)]` attribute of the input.
    pub fn from_ast(cx: &mut Ctxt, attrs: &[syn::Attribute]) -> Self {
        let mut out = Attrs::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("mcp")) {
            let result = attr.parse_nested_meta(|meta| out.parse_key(cx, &meta));
            if let Err(e) = result {
                cx.syn_error(e);
            }
        }
        out
    }

    /// Records `key` as seen; reports a duplicate and returns false if it
    /// was seen before.
    fn first(&mut self, cx: &mut Ctxt, key: &str, meta: &ParseNestedMeta<'_>) -> bool {
        if self
            .seen
            .insert(key.to_owned(), meta.path.span_of())
            .is_some()
        {
            cx.error_spanned_by(&meta.path, format!("duplicate `#[mcp]` key `{key}`"));
            return false;
        }
        true
    }

    fn parse_key(&mut self, cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let key = path_name(&meta.path);
        match key.as_str() {
            "name" | "version" | "title" | "description" | "website" | "instructions"
            | "instructions_file" => {
                let value: LitStr = meta.value()?.parse()?;
                if self.first(cx, &key, meta) {
                    let slot = match key.as_str() {
                        "name" => &mut self.name,
                        "version" => &mut self.version,
                        "title" => &mut self.title,
                        "description" => &mut self.description,
                        "website" => &mut self.website,
                        "instructions" => &mut self.instructions,
                        _ => &mut self.instructions_file,
                    };
                    *slot = Some(value);
                }
            }
            "crate" => {
                let value: LitStr = meta.value()?.parse()?;
                if self.first(cx, &key, meta) {
                    match value.parse::<syn::Path>() {
                        Ok(path) => self.krate = Some(path),
                        Err(_) => cx.error_spanned_by(
                            &value,
                            "`crate` must be a path, e.g. `crate = \"::mcp_era_server\"`",
                        ),
                    }
                }
            }
            "icon" => self.icons.push(parse_icon(cx, meta)?),
            "scopes" => {
                let scopes = parse_scopes(cx, meta)?;
                if self.first(cx, &key, meta) {
                    self.scopes = scopes;
                }
            }
            "versions" => {
                let first = self.first(cx, &key, meta);
                meta.parse_nested_meta(|inner| {
                    let k = path_name(&inner.path);
                    if !VERSIONS_KEYS.contains(&k.as_str()) {
                        cx.error_spanned_by(
                            &inner.path,
                            unknown_key_message(&k, "`versions(...)`", VERSIONS_KEYS),
                        );
                        return skip_value(&inner);
                    }
                    let span = inner.path.span_of();
                    let array: ExprArray = inner.value()?.parse()?;
                    let written_empty = array.elems.is_empty();
                    let list = parse_str_array(cx, array);
                    let slot = if k == "modern" {
                        &mut self.modern
                    } else {
                        &mut self.legacy
                    };
                    if slot.is_some() {
                        cx.error_spanned_by(
                            &inner.path,
                            format!("duplicate `versions(...)` key `{k}`"),
                        );
                    } else if first {
                        *slot = Some((span, list));
                        if k == "modern" {
                            self.modern_written_empty = written_empty;
                        }
                    }
                    Ok(())
                })?;
            }
            "tools" | "resources" | "prompts" | "completions" | "logging" => {
                let ident = meta
                    .path
                    .get_ident()
                    .cloned()
                    .unwrap_or_else(|| Ident::new(&key, Span::call_site()));
                let mut cap = Capability {
                    ident,
                    list_changed: false,
                    subscribe: false,
                    scopes: None,
                };
                let allowed: &[&str] = match key.as_str() {
                    "tools" => TOOLS_KEYS,
                    "prompts" => PROMPTS_KEYS,
                    "resources" => RESOURCES_KEYS,
                    "completions" => COMPLETIONS_KEYS,
                    _ => &[],
                };
                if meta.input.peek(syn::token::Paren) {
                    let context = format!("`{key}(...)`");
                    meta.parse_nested_meta(|inner| {
                        let k = path_name(&inner.path);
                        if !allowed.contains(&k.as_str()) {
                            let message = if allowed.is_empty() {
                                format!("`{key}` takes no settings; found `{k}`")
                            } else {
                                unknown_key_message(&k, &context, allowed)
                            };
                            cx.error_spanned_by(&inner.path, message);
                            return skip_value(&inner);
                        }
                        if k == "scopes" {
                            let scopes = parse_scopes(cx, &inner)?;
                            if cap.scopes.is_some() {
                                cx.error_spanned_by(
                                    &inner.path,
                                    format!("duplicate {context} key `{k}`"),
                                );
                            } else {
                                cap.scopes = scopes;
                            }
                            return Ok(());
                        }
                        let flag = if k == "subscribe" {
                            &mut cap.subscribe
                        } else {
                            &mut cap.list_changed
                        };
                        if *flag {
                            cx.error_spanned_by(
                                &inner.path,
                                format!("duplicate {context} key `{k}`"),
                            );
                        }
                        *flag = true;
                        Ok(())
                    })?;
                }
                if self.first(cx, &key, meta) {
                    let slot = match key.as_str() {
                        "tools" => &mut self.tools,
                        "resources" => &mut self.resources,
                        "prompts" => &mut self.prompts,
                        "completions" => &mut self.completions,
                        _ => &mut self.logging,
                    };
                    *slot = Some(cap);
                }
            }
            "experimental" | "extension" => {
                let content;
                syn::parenthesized!(content in meta.input);
                while !content.is_empty() {
                    let id: LitStr = content.parse()?;
                    let settings = if content.peek(Token![=]) {
                        content.parse::<Token![=]>()?;
                        if content.peek(syn::token::Brace) {
                            let JsonLiteral(value) = content.parse()?;
                            match value {
                                serde_json::Value::Object(map) => Settings::Json(map),
                                _ => Settings::Json(serde_json::Map::new()),
                            }
                        } else if content.peek(syn::Ident)
                            || content.peek(Token![::])
                            || content.peek(Token![crate])
                            || content.peek(Token![self])
                            || content.peek(Token![super])
                        {
                            Settings::Path(content.parse()?)
                        } else {
                            return Err(content.error(format!(
                                "`{key}` settings must be a JSON object literal `{{...}}` or a path to a `fn() -> JSONObject`"
                            )));
                        }
                    } else {
                        Settings::Json(serde_json::Map::new())
                    };
                    let seen_key = format!("{key}:{}", id.value());
                    if self.seen.insert(seen_key, id.span()).is_some() {
                        cx.error_spanned_by(&id, format!("duplicate {key} `{}`", id.value()));
                    } else {
                        let entry = Entry { id, settings };
                        if key == "extension" {
                            self.extensions.push(entry)
                        } else {
                            self.experimental.push(entry)
                        }
                    }
                    if content.is_empty() {
                        break;
                    }
                    content.parse::<Token![,]>()?;
                }
            }
            "discover" | "cache" => {
                let first = self.first(cx, &key, meta);
                let discover = key == "discover";
                let label = if discover {
                    "`discover(...)`"
                } else {
                    "`cache(...)`"
                };
                let (ttl_ms, scope) = parse_cache_hints(cx, meta, label)?;
                if first {
                    if discover {
                        self.ttl_ms = ttl_ms;
                        self.scope = scope;
                    } else {
                        self.cache_ttl_ms = ttl_ms;
                        self.cache_scope = scope;
                    }
                }
            }
            _ => {
                cx.error_spanned_by(&meta.path, unknown_key_message(&key, "`#[mcp]`", KEYS));
                skip_value(meta)?;
            }
        }
        Ok(())
    }
}

pub trait SpanOf {
    /// The span of the first segment.
    fn span_of(&self) -> Span;
}

impl SpanOf for syn::Path {
    fn span_of(&self) -> Span {
        self.segments
            .first()
            .map_or_else(Span::call_site, |s| s.ident.span())
    }
}

/// One `icon(src = ..., mime_type = ..., sizes = [...], theme = ...)`.
pub fn parse_icon(cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Icon> {
    let mut icon = Icon {
        src: None,
        mime_type: None,
        sizes: Vec::new(),
        theme: None,
        span: meta.path.span_of(),
    };
    let mut seen = BTreeMap::new();
    meta.parse_nested_meta(|inner| {
        let k = path_name(&inner.path);
        if !ICON_KEYS.contains(&k.as_str()) {
            cx.error_spanned_by(
                &inner.path,
                unknown_key_message(&k, "`icon(...)`", ICON_KEYS),
            );
            return skip_value(&inner);
        }
        if seen.insert(k.clone(), ()).is_some() {
            cx.error_spanned_by(&inner.path, format!("duplicate `icon(...)` key `{k}`"));
            return skip_value(&inner);
        }
        match k.as_str() {
            "src" => icon.src = Some(inner.value()?.parse()?),
            "mime_type" => icon.mime_type = Some(inner.value()?.parse()?),
            "theme" => icon.theme = Some(inner.value()?.parse()?),
            _ => icon.sizes = parse_str_array(cx, inner.value()?.parse()?),
        }
        Ok(())
    })?;
    Ok(icon)
}

/// `scopes = ["a", "b"]`; `None` after an error. Another shape (`scopes =
/// "a"`, `scopes("a")`) gets one message showing the list form.
pub fn parse_scopes(cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<Scopes>> {
    const SHAPE: &str = "`scopes` takes a list of OAuth scopes: `scopes = [\"files:read\", ...]`";
    if !meta.input.peek(Token![=]) {
        cx.error_spanned_by(&meta.path, SHAPE);
        skip_value(meta)?;
        return Ok(None);
    }
    match meta.value()?.parse::<Expr>()? {
        Expr::Array(array) => {
            let list = parse_str_array(cx, array);
            Ok(Some(Scopes { list }))
        }
        other => {
            cx.error_spanned_by(other, SHAPE);
            Ok(None)
        }
    }
}

/// The key as written (`crate` included).
pub fn path_name(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// The `ttl_ms` and `scope` of a `discover(...)` or `cache(...)` list
/// (`label`), unchecked; unknown and repeated keys are errors.
pub fn parse_cache_hints(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    label: &str,
) -> syn::Result<(Option<Expr>, Option<LitStr>)> {
    let mut ttl_ms = None;
    let mut scope = None;
    let mut seen = BTreeMap::new();
    meta.parse_nested_meta(|inner| {
        let k = path_name(&inner.path);
        if !DISCOVER_KEYS.contains(&k.as_str()) {
            cx.error_spanned_by(&inner.path, unknown_key_message(&k, label, DISCOVER_KEYS));
            return skip_value(&inner);
        }
        if seen.insert(k.clone(), ()).is_some() {
            cx.error_spanned_by(&inner.path, format!("duplicate {label} key `{k}`"));
            return skip_value(&inner);
        }
        if k == "ttl_ms" {
            ttl_ms = Some(inner.value()?.parse::<Expr>()?);
        } else {
            scope = Some(inner.value()?.parse::<LitStr>()?);
        }
        Ok(())
    })?;
    Ok((ttl_ms, scope))
}

/// Consumes the value of a key we reject, so parsing can go on.
pub fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        // Left unread, syn would report the content as unexpected too.
        content.parse::<proc_macro2::TokenStream>()?;
    }
    Ok(())
}

/// `["a", "b"]` into string literals; other elements are errors.
fn parse_str_array(cx: &mut Ctxt, array: ExprArray) -> Vec<LitStr> {
    let mut out = Vec::new();
    for elem in array.elems {
        match elem {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => out.push(s),
            other => cx.error_spanned_by(other, "expected a string literal"),
        }
    }
    out
}
