//! `#[router]`: parse the `#[tool]`, `#[resource]` and
//! `#[prompt]` methods of an `impl` block, check them, and emit their
//! static tables plus the matching handler trait impls.

use std::collections::BTreeMap;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{FnArg, ImplItem, ImplItemFn, ItemImpl, LitStr, Pat, Type};

use crate::internals::apps;
use crate::internals::attr::{
    Icon, Scopes, SpanOf, parse_cache_hints, parse_icon, parse_scopes, path_name, skip_value,
};
use crate::internals::check::{check_icon, check_scopes, checked_scope, checked_ttl};
use crate::internals::ctxt::Ctxt;
use crate::internals::json::JsonLiteral;
use crate::internals::suggest::{did_you_mean, unknown_key_message};
use crate::tokens::{icon_value, some_string};

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
const ERAS: &[&str] = &["modern", "legacy"];
const TASK_SUPPORT: &[&str] = &["never", "optional", "required"];
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
const ARG_KEYS: &[&str] = &["name", "description", "header", "complete"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    fn of(attr: &syn::Attribute) -> Option<Self> {
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

    fn word(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Resource => "resource",
            Self::Prompt => "prompt",
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Self::Tool => TOOL_KEYS,
            Self::Resource => RESOURCE_KEYS,
            Self::Prompt => PROMPT_KEYS,
        }
    }
}

/// The settings of one `#[tool(...)]`, `#[resource(...)]` or `#[prompt(...)]`.
#[derive(Default)]
struct Settings {
    strings: BTreeMap<String, LitStr>,
    flags: BTreeMap<String, bool>,
    icons: Vec<Icon>,
    meta: Option<String>,
    /// `scopes = [...]` (tools only); `Some` once written, even if invalid.
    scopes: Option<Option<Scopes>>,
    /// `#[tool(hidden)]`.
    hidden: bool,
    /// `list = method` (templates only), as written.
    list: Option<syn::Path>,
    /// The `list` method, once found and checked.
    lister: Option<Lister>,
    /// `cache(ttl_ms = ..., scope = ...)` (resources only), as written.
    cache: Option<(Option<syn::Expr>, Option<LitStr>)>,
    /// `cache(...)` checked: `ttlMs`, and `Some(true)` for a public scope.
    cache_values: (Option<u64>, Option<bool>),
    /// `visibility = [...]` (tools): who may use the tool (MCP Apps).
    visibility: Option<Vec<LitStr>>,
    /// `csp(...)` (UI resources): each list under its `_meta.ui.csp` name.
    csp: Option<Vec<(&'static str, Vec<LitStr>)>>,
    /// `permissions(...)` (UI resources), as `_meta.ui.permissions` names.
    permissions: Option<Vec<&'static str>>,
    /// `prefers_border` (UI resources).
    prefers_border: Option<bool>,
    /// Where the first UI-only resource key was written.
    ui_key: Option<Span>,
}

/// The `list` method of a template, as its signature says.
struct Lister {
    ident: syn::Ident,
    is_async: bool,
    takes_context: bool,
    /// Where an unfit return type is reported.
    output_span: Span,
}

/// A method of the impl block that `list = ...` may name.
struct FnInfo {
    ident: syn::Ident,
    sig: syn::Signature,
    marked: bool,
}

/// One parameter of a marked method.
struct Param {
    ident: syn::Ident,
    ty: Type,
    /// The wire name (`#[arg(name = ...)]`, else the parameter name).
    name: String,
    description: Option<LitStr>,
    header: Option<LitStr>,
    /// `#[arg(complete = method)]`: the completer of a prompt argument or
    /// template variable.
    complete: Option<syn::Path>,
    whole: bool,
    context: bool,
    request: bool,
    retry: bool,
}

/// One marked method.
struct Method {
    kind: Kind,
    ident: syn::Ident,
    is_async: bool,
    settings: Settings,
    docs: Option<String>,
    params: Vec<Param>,
    output: Type,
}

fn doc_text(attrs: &[syn::Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_owned()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

fn parse_settings(cx: &mut Ctxt, kind: Kind, attr: &syn::Attribute) -> Settings {
    let mut settings = Settings::default();
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return settings;
    }
    let result = attr.parse_nested_meta(|meta| settings_key(cx, kind, &mut settings, &meta));
    if let Err(e) = result {
        cx.syn_error(e);
    }
    settings
}

fn settings_key(
    cx: &mut Ctxt,
    kind: Kind,
    settings: &mut Settings,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let key = path_name(&meta.path);
    let context = format!("`#[{}(...)]`", kind.word());
    if key == "scopes" && kind != Kind::Tool {
        // Auth decides by method before the catalogue is read: a resource
        // would need its URI matched, so scopes go on the capability.
        let capability = format!("{}s", kind.word());
        cx.error_spanned_by(
            &meta.path,
            format!(
                "`scopes` applies to tools only; for every {} declare `{capability}(scopes = [...])` in `#[mcp(...)]`",
                kind.word()
            ),
        );
        return skip_value(meta);
    }
    let only = match key.as_str() {
        "hidden" | "era" if kind != Kind::Tool => Some("tools only"),
        "list" if kind != Kind::Resource => Some("resource templates only"),
        "cache" if kind != Kind::Resource => {
            Some("resources only (their reads); lists take the server's `#[mcp(cache(...))]`")
        }
        "visibility" if kind != Kind::Tool => Some("tools only"),
        "csp" | "permissions" | "domain" | "prefers_border" if kind != Kind::Resource => {
            Some("UI resources only (`#[resource(ui = \"ui://...\")]`)")
        }
        "ui" if kind == Kind::Prompt => Some("tools and resources only"),
        _ => None,
    };
    if let Some(only) = only {
        cx.error_spanned_by(&meta.path, format!("`{key}` applies to {only}"));
        return skip_value(meta);
    }
    if !kind.keys().contains(&key.as_str()) {
        cx.error_spanned_by(&meta.path, unknown_key_message(&key, &context, kind.keys()));
        return skip_value(meta);
    }
    let duplicate = settings.strings.contains_key(&key)
        || settings.flags.contains_key(&key)
        || (key == "meta" && settings.meta.is_some())
        || (key == "scopes" && settings.scopes.is_some())
        || (key == "hidden" && settings.hidden)
        || (key == "list" && settings.list.is_some())
        || (key == "cache" && settings.cache.is_some())
        || (key == "visibility" && settings.visibility.is_some())
        || (key == "csp" && settings.csp.is_some())
        || (key == "permissions" && settings.permissions.is_some())
        || (key == "prefers_border" && settings.prefers_border.is_some());
    if duplicate {
        cx.error_spanned_by(&meta.path, format!("duplicate {context} key `{key}`"));
        return skip_value(meta);
    }
    if matches!(
        key.as_str(),
        "csp" | "permissions" | "domain" | "prefers_border"
    ) && settings.ui_key.is_none()
    {
        settings.ui_key = Some(meta.path.span_of());
    }
    match key.as_str() {
        "icon" => settings.icons.push(parse_icon(cx, meta)?),
        "visibility" => {
            let array: syn::ExprArray = meta.value()?.parse()?;
            settings.visibility = Some(str_array(cx, array));
        }
        "csp" => {
            let mut lists = Vec::new();
            meta.parse_nested_meta(|inner| {
                let k = path_name(&inner.path);
                let Some((_, wire)) = apps::CSP_KEYS.iter().find(|(rust, _)| *rust == k) else {
                    let keys: Vec<&str> = apps::CSP_KEYS.iter().map(|(rust, _)| *rust).collect();
                    cx.error_spanned_by(&inner.path, unknown_key_message(&k, "`csp(...)`", &keys));
                    return skip_value(&inner);
                };
                if lists.iter().any(|(w, _)| w == wire) {
                    cx.error_spanned_by(&inner.path, format!("duplicate `csp(...)` key `{k}`"));
                    return skip_value(&inner);
                }
                let array: syn::ExprArray = inner.value()?.parse()?;
                lists.push((*wire, str_array(cx, array)));
                Ok(())
            })?;
            settings.csp = Some(lists);
        }
        "permissions" => {
            let mut granted = Vec::new();
            meta.parse_nested_meta(|inner| {
                let k = path_name(&inner.path);
                let Some((_, wire)) = apps::PERMISSION_KEYS.iter().find(|(rust, _)| *rust == k)
                else {
                    let keys: Vec<&str> =
                        apps::PERMISSION_KEYS.iter().map(|(rust, _)| *rust).collect();
                    cx.error_spanned_by(
                        &inner.path,
                        unknown_key_message(&k, "`permissions(...)`", &keys),
                    );
                    return skip_value(&inner);
                };
                if inner.input.peek(syn::Token![=]) || inner.input.peek(syn::token::Paren) {
                    cx.error_spanned_by(
                        &inner.path,
                        format!("`{k}` takes no value: list the permissions, e.g. `permissions(camera, clipboard_write)`"),
                    );
                    return skip_value(&inner);
                }
                if granted.contains(wire) {
                    cx.error_spanned_by(&inner.path, format!("duplicate permission `{k}`"));
                } else {
                    granted.push(*wire);
                }
                Ok(())
            })?;
            settings.permissions = Some(granted);
        }
        "prefers_border" => {
            let value = if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::LitBool>()?.value
            } else {
                true
            };
            settings.prefers_border = Some(value);
        }
        "scopes" => settings.scopes = Some(parse_scopes(cx, meta)?),
        "hidden" => {
            if meta.input.peek(syn::Token![=]) || meta.input.peek(syn::token::Paren) {
                cx.error_spanned_by(
                    &meta.path,
                    "`hidden` takes no value: write `#[tool(hidden)]`, or leave it out for a listed tool",
                );
                return skip_value(meta);
            }
            settings.hidden = true;
        }
        "list" => settings.list = Some(meta.value()?.parse()?),
        "cache" => settings.cache = Some(parse_cache_hints(cx, meta, "`cache(...)`")?),
        "read_only" | "destructive" | "idempotent" | "open_world" => {
            let value = if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::LitBool>()?.value
            } else {
                true
            };
            settings.flags.insert(key, value);
        }
        "meta" => {
            let span = meta.input.span();
            let JsonLiteral(value) = meta.value()?.parse()?;
            if value.is_object() {
                settings.meta = Some(value.to_string());
            } else {
                cx.syn_error(syn::Error::new(
                    span,
                    "`meta` must be a JSON object literal `{...}`",
                ));
            }
        }
        _ => {
            let value: LitStr = meta.value()?.parse()?;
            settings.strings.insert(key, value);
        }
    }
    Ok(())
}

/// `["a", "b"]` into string literals; other elements are errors.
fn str_array(cx: &mut Ctxt, array: syn::ExprArray) -> Vec<LitStr> {
    let mut out = Vec::new();
    for elem in array.elems {
        match elem {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => out.push(s),
            other => cx.error_spanned_by(other, "expected a string literal"),
        }
    }
    out
}

fn is_named(ty: &Type, name: &str) -> bool {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == name))
}

fn is_option(ty: &Type) -> bool {
    is_named(ty, "Option") && !matches!(ty, Type::Reference(_))
}

/// Types whose JSON Schema cannot be an object, spotted by their syntax.
fn never_object(ty: &Type) -> bool {
    const SCALARS: &[&str] = &[
        "bool", "char", "str", "String", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16",
        "u32", "u64", "u128", "usize", "f32", "f64", "Vec", "Option", "VecDeque", "HashSet",
        "BTreeSet",
    ];
    match ty {
        Type::Array(_) | Type::Slice(_) | Type::Tuple(_) | Type::Reference(_) => true,
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .last()
                    .is_some_and(|s| SCALARS.contains(&s.ident.to_string().as_str()))
        }
        _ => false,
    }
}

fn parse_param(cx: &mut Ctxt, arg: &mut syn::PatType) -> Option<Param> {
    let mut description = None;
    let mut header = None;
    let mut rename = None;
    let mut complete = None;
    let mut whole = false;
    let mut kept = Vec::new();
    for attr in arg.attrs.drain(..) {
        if attr.path().is_ident("arguments") {
            whole = true;
        } else if attr.path().is_ident("arg") {
            let result = attr.parse_nested_meta(|meta| {
                let key = path_name(&meta.path);
                if !ARG_KEYS.contains(&key.as_str()) {
                    cx.error_spanned_by(
                        &meta.path,
                        unknown_key_message(&key, "`#[arg(...)]`", ARG_KEYS),
                    );
                    return skip_value(&meta);
                }
                if key == "complete" {
                    complete = Some(meta.value()?.parse::<syn::Path>()?);
                    return Ok(());
                }
                let value: LitStr = meta.value()?.parse()?;
                match key.as_str() {
                    "description" => description = Some(value),
                    "header" => header = Some(value),
                    _ => rename = Some(value),
                }
                Ok(())
            });
            if let Err(e) = result {
                cx.syn_error(e);
            }
        } else {
            kept.push(attr);
        }
    }
    arg.attrs = kept;
    let ty = (*arg.ty).clone();
    let context = matches!(&ty, Type::Reference(_)) && is_named(&ty, "RequestContext");
    let request = is_named(&ty, "ResourceRequest");
    let retry = is_named(&ty, "RetryInput");
    let Pat::Ident(pat) = &*arg.pat else {
        cx.error_spanned_by(
            &arg.pat,
            "a marked method's parameters must be plain names (`name: Type`)",
        );
        return None;
    };
    let ident = pat.ident.clone();
    let name = rename.as_ref().map_or_else(
        || ident.to_string().trim_start_matches("r#").to_owned(),
        LitStr::value,
    );
    if let Some(header) = &header
        && !valid_header_name(&header.value())
    {
        cx.error_spanned_by(
            header,
            format!(
                "`{}` is not a valid header name: use letters, digits and ! # $ % & ' * + - . ^ _ ` | ~",
                header.value()
            ),
        );
    }
    Some(Param {
        ident,
        ty,
        name,
        description,
        header,
        complete,
        whole,
        context: context || retry,
        request,
        retry,
    })
}

fn valid_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The variable names of a URI template, or why it cannot be parsed.
fn template_variables(template: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut rest = template;
    let mut previous_was_var = false;
    while let Some(open) = rest.find('{') {
        if rest[..open].contains('}') {
            return Err(format!("stray `}}` in URI template `{template}`"));
        }
        if open > 0 {
            previous_was_var = false;
        }
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in URI template `{template}`"))?;
        let expression = &rest[open + 1..open + close];
        let name = expression.strip_prefix('+').unwrap_or(expression);
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(format!(
                "unsupported expression `{{{expression}}}` in URI template `{template}`: use `{{name}}` or `{{+name}}`"
            ));
        }
        if previous_was_var {
            return Err(format!(
                "two variables without text between them in URI template `{template}` cannot be told apart"
            ));
        }
        previous_was_var = true;
        names.push(name.to_owned());
        rest = &rest[open + close + 1..];
    }
    if rest.contains('}') {
        return Err(format!("stray `}}` in URI template `{template}`"));
    }
    Ok(names)
}

fn parse_method(
    cx: &mut Ctxt,
    kind: Kind,
    attr: &syn::Attribute,
    method: &mut ImplItemFn,
) -> Option<Method> {
    let settings = parse_settings(cx, kind, attr);
    let sig = &mut method.sig;
    match sig.inputs.first() {
        Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() => {}
        _ => {
            cx.error_spanned_by(
                &sig.ident,
                format!("a `#[{}]` method must take `&self`", kind.word()),
            );
            return None;
        }
    }
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            format!("a `#[{}]` method cannot be generic", kind.word()),
        );
        return None;
    }
    let mut params = Vec::new();
    for input in sig.inputs.iter_mut().skip(1) {
        if let FnArg::Typed(arg) = input {
            params.extend(parse_param(cx, arg));
        }
    }
    let output = match &sig.output {
        syn::ReturnType::Default => syn::parse_quote!(()),
        syn::ReturnType::Type(_, ty) => (**ty).clone(),
    };
    if matches!(output, Type::ImplTrait(_)) {
        cx.error_spanned_by(
            &output,
            "write the method as `async fn` instead of returning `impl Trait`",
        );
    }
    Some(Method {
        kind,
        ident: sig.ident.clone(),
        is_async: sig.asyncness.is_some(),
        docs: doc_text(&method.attrs),
        settings,
        params,
        output,
    })
}

/// The whole attribute macro.
pub fn router(args: TokenStream, mut item: ItemImpl, mut krate: syn::Path) -> TokenStream {
    let mut cx = Ctxt::new();
    if !args.is_empty() {
        let parser = syn::meta::parser(|meta| {
            if meta.path.is_ident("crate") {
                let value: LitStr = meta.value()?.parse()?;
                krate = value.parse()?;
                Ok(())
            } else {
                Err(meta.error("unknown `router` setting; expected `crate = \"...\"`"))
            }
        });
        if let Err(e) = syn::parse::Parser::parse2(parser, args) {
            cx.syn_error(e);
        }
    }
    if let Some((_, path, _)) = &item.trait_ {
        cx.error_spanned_by(
            path,
            "`#[router]` goes on an inherent `impl` block, not a trait impl",
        );
    }
    if !item.generics.params.is_empty() {
        cx.error_spanned_by(
            &item.generics,
            "`#[router]` impl blocks cannot be generic: the tables are statics",
        );
    }
    let mut methods = Vec::new();
    let mut fns = Vec::new();
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else {
            continue;
        };
        fns.push(FnInfo {
            ident: method.sig.ident.clone(),
            sig: method.sig.clone(),
            marked: method.attrs.iter().any(|a| Kind::of(a).is_some()),
        });
        let mut marks = Vec::new();
        method.attrs.retain(|attr| match Kind::of(attr) {
            Some(kind) => {
                marks.push((kind, attr.clone()));
                false
            }
            None => true,
        });
        match marks.as_slice() {
            [] => {}
            [(kind, attr)] => methods.extend(parse_method(&mut cx, *kind, attr, method)),
            [_, (_, second), ..] => cx.error_spanned_by(
                second,
                "a method can be one tool, resource or prompt, not several",
            ),
        }
    }
    let self_ty = (*item.self_ty).clone();
    let before = cx.has_errors();
    let completers = completers(&mut cx, &item, &methods);
    let completers_ok = cx.has_errors() == before;
    let checked = check(&mut cx, &methods) && completers_ok;
    let resolved = check_catalogue_keys(&mut cx, &mut methods, &fns);
    let errors = cx.into_compile_errors();
    if !checked || !resolved {
        let fallback = fallback(&krate, &self_ty, &methods);
        return quote! { #errors #item #fallback };
    }
    let body = expand(&krate, &self_ty, &methods, &completers);
    quote! {
        #errors
        #item
        #body
    }
}

/// One parameter of a completer method.
enum CompleterInput {
    Value,
    Arguments,
    Context,
}

/// A method named by `#[arg(complete = ...)]`.
struct Completer {
    ident: syn::Ident,
    is_async: bool,
    inputs: Vec<CompleterInput>,
    /// The return type, `Result`-like (its `Err` a JSON-RPC error) or not.
    fallible: bool,
    output: Type,
}

const COMPLETER_SHAPE: &str = "a completer takes `&self`, the partial value as `&str`, and optionally `&CompletionArguments` (the other resolved arguments) and `&RequestContext`";

/// The method a `complete = ...` path names, in this impl block.
fn completer_ident(cx: &mut Ctxt, path: &syn::Path) -> Option<syn::Ident> {
    let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
    let ident = match segments.as_slice() {
        [only] if path.leading_colon.is_none() => &only.ident,
        [first, method] if first.ident == "Self" => &method.ident,
        _ => {
            cx.error_spanned_by(
                path,
                "`complete` names a method of this `#[router]` impl block: `complete = Self::method`",
            );
            return None;
        }
    };
    Some(ident.clone())
}

/// Resolves and checks every `complete = ...`, by method name.
fn completers(cx: &mut Ctxt, item: &ItemImpl, methods: &[Method]) -> BTreeMap<String, Completer> {
    let fns: Vec<&ImplItemFn> = item
        .items
        .iter()
        .filter_map(|i| match i {
            ImplItem::Fn(f) => Some(f),
            _ => None,
        })
        .collect();
    let mut found = BTreeMap::new();
    for param in methods.iter().flat_map(|m| &m.params) {
        let Some(path) = &param.complete else {
            continue;
        };
        let Some(ident) = completer_ident(cx, path) else {
            continue;
        };
        let name = ident.to_string();
        if found.contains_key(&name) {
            continue;
        }
        let Some(method) = fns.iter().find(|f| f.sig.ident == ident) else {
            let names: Vec<String> = fns.iter().map(|f| f.sig.ident.to_string()).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let hint = crate::internals::suggest::did_you_mean(&name, &names)
                .map(|best| format!("; did you mean `{best}`?"))
                .unwrap_or_default();
            cx.error_spanned_by(
                path,
                format!("no method `{name}` in this `#[router]` impl block to complete with{hint}"),
            );
            continue;
        };
        if let Some(completer) = completer_shape(cx, method) {
            found.insert(name, completer);
        }
    }
    found
}

fn completer_shape(cx: &mut Ctxt, method: &ImplItemFn) -> Option<Completer> {
    match completer_parts(method) {
        Ok(completer) => Some(completer),
        Err(error) => {
            cx.syn_error(error);
            None
        }
    }
}

/// A completer's shape, or the first thing wrong with it.
fn completer_parts(method: &ImplItemFn) -> syn::Result<Completer> {
    let sig = &method.sig;
    match sig.inputs.first() {
        Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() => {}
        _ => return Err(syn::Error::new(sig.ident.span(), COMPLETER_SHAPE)),
    }
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            "a completer cannot be generic",
        ));
    }
    let mut inputs = Vec::new();
    for input in sig.inputs.iter().skip(1) {
        let FnArg::Typed(arg) = input else { continue };
        let ty = &*arg.ty;
        let by_ref = matches!(ty, Type::Reference(r) if r.mutability.is_none());
        let taken = if by_ref && is_named(ty, "str") {
            CompleterInput::Value
        } else if by_ref && is_named(ty, "CompletionArguments") {
            CompleterInput::Arguments
        } else if by_ref && is_named(ty, "RequestContext") {
            CompleterInput::Context
        } else {
            return Err(syn::Error::new_spanned(ty, COMPLETER_SHAPE));
        };
        inputs.push(taken);
    }
    let values = inputs
        .iter()
        .filter(|i| matches!(i, CompleterInput::Value))
        .count();
    if values != 1 {
        return Err(syn::Error::new_spanned(&sig.inputs, COMPLETER_SHAPE));
    }
    let syn::ReturnType::Type(_, output) = &sig.output else {
        return Err(syn::Error::new(
            sig.ident.span(),
            "a completer returns its values: `Vec<String>`, an iterator of strings, or a `Result` of one",
        ));
    };
    let output = (**output).clone();
    Ok(Completer {
        ident: sig.ident.clone(),
        is_async: sig.asyncness.is_some(),
        inputs,
        fallible: is_named(&output, "Result") || is_named(&output, "HandlerResult"),
        output,
    })
}

/// The wrapper of a completer, as the completion table calls it.
fn expand_completer(p: &TokenStream, self_ty: &Type, completer: &Completer) -> TokenStream {
    let fn_ident = format_ident!("__mcp_complete_{}", completer.ident);
    let ident = &completer.ident;
    let args = completer.inputs.iter().map(|input| match input {
        CompleterInput::Value => quote!(&request.value),
        CompleterInput::Arguments => quote!(&request.arguments),
        CompleterInput::Context => quote!(ctx),
    });
    let mut call = quote!(this.#ident(#(#args),*));
    if completer.is_async {
        call = quote!(#call.await);
    }
    let convert = if completer.fallible {
        quote_spanned!(completer.output.span()=> #p::completion_result(values))
    } else {
        quote_spanned!(completer.output.span()=> #p::completion_values(values))
    };
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, unused_variables)]
        fn #fn_ident<'a>(
            this: &'a #self_ty,
            request: #p::CompletionRequest,
            ctx: &'a #p::RequestContext,
        ) -> #p::RouterFuture<'a, #p::CompletionOutcome> {
            #p::Box::pin(async move {
                let values = #call;
                #convert
            })
        }
    }
}

/// The inner type of an `Option<T>` (else the type itself).
fn option_inner(ty: &Type) -> Type {
    if !is_option(ty) {
        return ty.clone();
    }
    let Type::Path(path) = ty else {
        return ty.clone();
    };
    path.path
        .segments
        .last()
        .and_then(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.first().and_then(|g| match g {
                syn::GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            }),
            _ => None,
        })
        .unwrap_or_else(|| ty.clone())
}

/// Types whose JSON schema is never a string enum: no completion is
/// derived from them.
fn never_enum(ty: &Type) -> bool {
    const PLAIN: &[&str] = &[
        "bool", "char", "str", "String", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16",
        "u32", "u64", "u128", "usize", "f32", "f64", "PathBuf",
    ];
    match ty {
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .last()
                    .is_some_and(|s| PLAIN.contains(&s.ident.to_string().as_str()))
        }
        Type::Reference(r) => never_enum(&r.elem),
        _ => true,
    }
}

/// The completion specs of every prompt argument and template variable,
/// and whether any may complete to something.
fn completion_specs(
    p: &TokenStream,
    self_ty: &Type,
    methods: &[Method],
    completers: &BTreeMap<String, Completer>,
) -> (Vec<TokenStream>, bool) {
    let mut specs = Vec::new();
    let mut any = false;
    let mut spec = |target: TokenStream, argument: &str, param: Option<&Param>| {
        let completer = match param {
            Some(param) => match param
                .complete
                .as_ref()
                .and_then(|path| path.segments.last())
            {
                Some(last) if completers.contains_key(&last.ident.to_string()) => {
                    any = true;
                    let wrapper = format_ident!("__mcp_complete_{}", last.ident);
                    quote!(#p::Completer::Method(<#self_ty>::#wrapper))
                }
                _ => {
                    let ty = option_inner(&param.ty);
                    any |= !never_enum(&ty);
                    quote!(#p::Completer::Derived({
                        #[allow(unused_imports)]
                        use #p::{ViaSchema as _, WithoutSchema as _};
                        (&#p::EnumProbe::<#ty>::new()).derived_values()
                    }))
                }
            },
            None => quote!(#p::Completer::Derived(::std::vec::Vec::new)),
        };
        specs.push(quote! {
            #p::CompletionSpec { target: #target, argument: #argument, completer: #completer }
        });
    };
    for method in methods {
        let inputs = method.params.iter().filter(|p| !p.context && !p.request);
        match method.kind {
            Kind::Prompt => {
                let name = name_of(method);
                for param in inputs {
                    spec(
                        quote!(#p::CompletionTarget::Prompt(#name)),
                        &param.name,
                        Some(param),
                    );
                }
            }
            Kind::Resource => {
                let Some(template) = method.settings.strings.get("template") else {
                    continue;
                };
                let template = template.value();
                let params: Vec<&Param> = inputs.collect();
                for variable in template_variables(&template).unwrap_or_default() {
                    spec(
                        quote!(#p::CompletionTarget::Template(#template)),
                        &variable,
                        params.iter().copied().find(|p| p.name == variable),
                    );
                }
            }
            Kind::Tool => {}
        }
    }
    (specs, any)
}

fn name_of(method: &Method) -> String {
    method.settings.strings.get("name").map_or_else(
        || method.ident.to_string().trim_start_matches("r#").to_owned(),
        LitStr::value,
    )
}

fn name_span(method: &Method) -> Span {
    method
        .settings
        .strings
        .get("name")
        .map_or(method.ident.span(), LitStr::span)
}

/// Cross-method and per-kind rules; false when expansion would only add
/// confusing errors.
fn check(cx: &mut Ctxt, methods: &[Method]) -> bool {
    let before = cx.has_errors();
    let mut seen: BTreeMap<(u8, String), ()> = BTreeMap::new();
    check_apps(cx, methods);
    for method in methods {
        for icon in &method.settings.icons {
            check_icon(cx, icon);
        }
        if let Some(Some(scopes)) = &method.settings.scopes {
            check_scopes(cx, scopes);
        }
        let name = name_of(method);
        let key = match method.kind {
            Kind::Tool => 0,
            Kind::Resource => 1,
            Kind::Prompt => 2,
        };
        if seen.insert((key, name.clone()), ()).is_some() {
            cx.syn_error(syn::Error::new(
                name_span(method),
                format!("duplicate {} name `{name}`", method.kind.word()),
            ));
        }
        let inputs: Vec<&Param> = method.params.iter().filter(|p| !p.context).collect();
        match method.kind {
            Kind::Tool => {
                if let Some(task) = method.settings.strings.get("task")
                    && !TASK_SUPPORT.contains(&task.value().as_str())
                {
                    cx.error_spanned_by(
                        task,
                        format!(
                            "unknown task support `{}`: use \"never\", \"optional\" or \"required\"",
                            task.value()
                        ),
                    );
                }
                if !valid_tool_name(&name) {
                    cx.syn_error(syn::Error::new(
                        name_span(method),
                        format!("tool name `{name}` must be 1 to 128 characters from A-Z a-z 0-9 _ - . (MCP tool naming rules)"),
                    ));
                }
                let wholes: Vec<&&Param> = inputs.iter().filter(|p| p.whole).collect();
                if let Some(whole) = wholes.first() {
                    if inputs.len() > 1 {
                        cx.error_spanned_by(&whole.ident, "an `#[arguments]` parameter must be the tool's only argument (besides `&RequestContext`)");
                    } else if never_object(&whole.ty) {
                        cx.error_spanned_by(&whole.ty, "an `#[arguments]` type must be a struct (its JSON Schema an object): tool arguments are a JSON object; take plain parameters instead");
                    }
                }
                let mut headers: BTreeMap<String, ()> = BTreeMap::new();
                for param in &inputs {
                    if let Some(header) = &param.header
                        && headers
                            .insert(header.value().to_ascii_lowercase(), ())
                            .is_some()
                    {
                        cx.error_spanned_by(
                            header,
                            format!(
                                "two arguments use the header name `Mcp-Param-{}`",
                                header.value()
                            ),
                        );
                    }
                    if param.request {
                        cx.error_spanned_by(
                            &param.ty,
                            "`ResourceRequest` is a resource method's parameter",
                        );
                    }
                    if let Some(complete) = &param.complete {
                        cx.error_spanned_by(
                            complete,
                            "`complete` applies to prompt arguments and URI template variables; tool arguments have no completions",
                        );
                    }
                }
            }
            Kind::Resource => {
                let ui = method.settings.strings.get("ui");
                let uri = method.settings.strings.get("uri");
                let template = method.settings.strings.get("template");
                if let (Some(ui), Some(_)) = (ui, uri.or(template)) {
                    cx.error_spanned_by(
                        ui,
                        "`ui` is the URI of the App, a fixed `ui://` URI: drop `uri`/`template`",
                    );
                    continue;
                }
                let uri = uri.or(ui);
                let variables = match (uri, template) {
                    (Some(_), None) => Vec::new(),
                    (None, Some(template)) => match template_variables(&template.value()) {
                        Ok(names) => names,
                        Err(e) => {
                            cx.error_spanned_by(template, e);
                            continue;
                        }
                    },
                    (Some(_), Some(template)) => {
                        cx.error_spanned_by(
                            template,
                            "`uri` and `template` are mutually exclusive",
                        );
                        continue;
                    }
                    (None, None) => {
                        cx.error_spanned_by(
                            &method.ident,
                            "a `#[resource]` needs `uri = \"...\"`, `template = \"...\"` or (an MCP App) `ui = \"ui://...\"`",
                        );
                        continue;
                    }
                };
                for param in inputs.iter().filter(|p| !p.request) {
                    if param.whole || param.header.is_some() || param.description.is_some() {
                        cx.error_spanned_by(
                            &param.ident,
                            "resource parameters take no `#[arg]`/`#[arguments]` settings",
                        );
                    }
                    if !variables.contains(&param.name) {
                        cx.error_spanned_by(
                            &param.ident,
                            format!(
                                "`{}` is not a variable of the URI template{}",
                                param.name,
                                if variables.is_empty() {
                                    String::new()
                                } else {
                                    format!(" (variables: {})", variables.join(", "))
                                }
                            ),
                        );
                    }
                }
            }
            Kind::Prompt => {
                for param in &inputs {
                    if param.whole || param.header.is_some() || param.request {
                        cx.error_spanned_by(&param.ident, "prompt arguments are plain parameters; `#[arguments]`, `header` and `ResourceRequest` do not apply");
                    }
                }
            }
        }
    }
    !cx.has_errors() || before
}

/// The MCP Apps keys: `#[resource(ui = ..., csp(...), ...)]` and
/// `#[tool(ui = ..., visibility = [...])]`. A tool's `ui` must name a
/// `#[resource(ui = ...)]` of this impl block when it has resources; with
/// none, the generated code checks that the server serves resources.
fn check_apps(cx: &mut Ctxt, methods: &[Method]) {
    let resources: Vec<&Method> = methods
        .iter()
        .filter(|m| m.kind == Kind::Resource)
        .collect();
    let app_uris: Vec<String> = resources
        .iter()
        .filter_map(|m| m.settings.strings.get("ui").map(LitStr::value))
        .collect();
    for method in methods {
        let settings = &method.settings;
        let ui = settings.strings.get("ui");
        if let Some(ui) = ui
            && let Err(e) = apps::check_ui_uri(&ui.value())
        {
            cx.error_spanned_by(ui, e);
        }
        match method.kind {
            Kind::Resource => {
                if ui.is_none() {
                    if let Some(span) = settings.ui_key {
                        cx.syn_error(syn::Error::new(
                            span,
                            "`csp`, `permissions`, `domain` and `prefers_border` describe an MCP App: write `ui = \"ui://...\"` instead of `uri`",
                        ));
                    }
                    if let Some(uri) = settings.strings.get("uri")
                        && uri.value().starts_with("ui://")
                    {
                        cx.error_spanned_by(
                            uri,
                            "a `ui://` resource is an MCP App: write `ui = \"...\"` instead of `uri` (it sets the MIME type and `_meta.ui`)",
                        );
                    }
                    continue;
                }
                if let Some(mime) = settings.strings.get("mime_type") {
                    cx.error_spanned_by(
                        mime,
                        format!(
                            "an MCP App's MIME type is always `{}`: drop `mime_type`",
                            apps::MIME_TYPE
                        ),
                    );
                }
                for domain in settings.csp.iter().flatten().flat_map(|(_, list)| list) {
                    if let Err(e) = apps::check_origin(&domain.value()) {
                        cx.error_spanned_by(domain, format!("CSP domain {e}"));
                    }
                }
                if let Some(domain) = settings.strings.get("domain")
                    && (domain.value().is_empty() || domain.value().contains(char::is_whitespace))
                {
                    cx.error_spanned_by(domain, "`domain` must be a host name, without whitespace");
                }
            }
            Kind::Tool => {
                if let Some(visibility) = &settings.visibility {
                    let mut seen = Vec::new();
                    for who in visibility {
                        let value = who.value();
                        if !apps::VISIBILITIES.contains(&value.as_str()) {
                            cx.error_spanned_by(
                                who,
                                format!("unknown visibility `{value}`: use \"model\" (the agent) and/or \"app\" (the tool's App)"),
                            );
                        } else if seen.contains(&value) {
                            cx.error_spanned_by(who, format!("duplicate visibility `{value}`"));
                        } else {
                            seen.push(value);
                        }
                    }
                    if visibility.is_empty() {
                        cx.error_spanned_by(
                            &method.ident,
                            "`visibility = []` leaves nobody to use the tool: list \"model\" and/or \"app\"",
                        );
                    }
                }
                if let Some(json) = &settings.meta
                    && (ui.is_some() || settings.visibility.is_some())
                    && let Ok(serde_json::Value::Object(meta)) = serde_json::from_str(json)
                    && (meta.contains_key("ui") || meta.contains_key(apps::LEGACY_RESOURCE_URI_KEY))
                {
                    cx.error_spanned_by(
                        &method.ident,
                        "`meta` sets `ui` too: write the App link once, with `ui = ...` and `visibility = [...]`",
                    );
                }
                let Some(ui) = ui else { continue };
                if matches!(&method.output, Type::Tuple(unit) if unit.elems.is_empty()) {
                    cx.error_spanned_by(
                        &method.ident,
                        "a tool with an App answers with content a host without Apps can show (the spec's text fallback): return text, or `Json(value).with_text(...)`",
                    );
                }
                if resources.is_empty() || app_uris.contains(&ui.value()) {
                    continue;
                }
                let names: Vec<&str> = app_uris.iter().map(String::as_str).collect();
                let hint = did_you_mean(&ui.value(), &names)
                    .map_or_else(String::new, |best| format!("; did you mean `{best}`?"));
                let declared = if app_uris.is_empty() {
                    " (it declares none)".to_owned()
                } else {
                    format!(" (it declares {})", app_uris.join(", "))
                };
                cx.error_spanned_by(
                    ui,
                    format!(
                        "no `#[resource(ui = \"{}\")]` in this `#[router]` impl block{declared}{hint}",
                        ui.value()
                    ),
                );
            }
            Kind::Prompt => {}
        }
    }
}

/// The `list`, `cache`, `era` and `hidden` rules; finds each `list`
/// method. False when it reported an error.
fn check_catalogue_keys(cx: &mut Ctxt, methods: &mut [Method], fns: &[FnInfo]) -> bool {
    let before = cx.has_errors();
    for method in methods.iter_mut() {
        if let Some((ttl_ms, scope)) = &method.settings.cache {
            method.settings.cache_values = (
                ttl_ms.as_ref().and_then(|ttl_ms| checked_ttl(cx, ttl_ms)),
                scope.as_ref().and_then(|scope| checked_scope(cx, scope)),
            );
        }
        if let Some(era) = method.settings.strings.get("era") {
            if !ERAS.contains(&era.value().as_str()) {
                let hint = did_you_mean(&era.value(), ERAS)
                    .map_or_else(String::new, |best| format!("; did you mean \"{best}\"?"));
                cx.error_spanned_by(
                    era,
                    format!(
                        "unknown era `{}`: use \"modern\" or \"legacy\" (or leave `era` out to serve both){hint}",
                        era.value()
                    ),
                );
            } else if era.value() == "legacy"
                && let Some(task) = method.settings.strings.get("task")
                && task.value() != "never"
            {
                cx.error_spanned_by(
                    task,
                    "a legacy-era tool cannot run as a task: legacy sessions get no tasks; drop `task` or `era = \"legacy\"`",
                );
            }
        }
        let Some(path) = method.settings.list.clone() else {
            continue;
        };
        if method.settings.strings.contains_key("uri") || method.settings.strings.contains_key("ui")
        {
            cx.error_spanned_by(
                &path,
                "`list` lists the instances of a `template`; a fixed `uri` is listed already",
            );
            continue;
        }
        method.settings.lister = find_lister(cx, &path, fns);
    }
    !cx.has_errors() || before
}

/// The method `list = path` names: `name` or `Self::name`, a plain method
/// of this impl block taking `&self` and at most a `&RequestContext`.
fn find_lister(cx: &mut Ctxt, path: &syn::Path, fns: &[FnInfo]) -> Option<Lister> {
    let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
    let name = match segments.as_slice() {
        [name] => name,
        [this, name] if this.ident == "Self" => name,
        _ => {
            cx.error_spanned_by(
                path,
                "`list` names a method of this impl block: `list = method` or `list = Self::method`",
            );
            return None;
        }
    };
    let Some(info) = fns.iter().find(|f| f.ident == name.ident) else {
        let names: Vec<String> = fns.iter().map(|f| f.ident.to_string()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let hint = did_you_mean(&name.ident.to_string(), &names)
            .map_or_else(String::new, |best| format!("; did you mean `{best}`?"));
        cx.error_spanned_by(
            path,
            format!(
                "`list = {}` names no method of this `#[router]` impl block (the `list` method must be written beside the template){hint}",
                name.ident
            ),
        );
        return None;
    };
    if info.marked {
        cx.error_spanned_by(
            path,
            format!(
                "`{}` is a tool, resource or prompt; `list` names a plain method returning the instances",
                info.ident
            ),
        );
        return None;
    }
    let sig = &info.sig;
    let by_ref = matches!(sig.inputs.first(), Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none());
    let rest: Vec<&FnArg> = sig.inputs.iter().skip(1).collect();
    let takes_context = match rest.as_slice() {
        [] => Some(false),
        [FnArg::Typed(arg)]
            if matches!(&*arg.ty, Type::Reference(_)) && is_named(&arg.ty, "RequestContext") =>
        {
            Some(true)
        }
        _ => None,
    };
    match takes_context {
        Some(takes_context) if by_ref && sig.generics.params.is_empty() => Some(Lister {
            ident: info.ident.clone(),
            is_async: sig.asyncness.is_some(),
            takes_context,
            output_span: match &sig.output {
                syn::ReturnType::Default => info.ident.span(),
                syn::ReturnType::Type(_, ty) => ty.span(),
            },
        }),
        _ => {
            cx.error_spanned_by(
                &info.ident,
                format!(
                    "`{}` is a `list` method: it must take `&self` and at most a `&RequestContext`, and not be generic",
                    info.ident
                ),
            );
            None
        }
    }
}

fn opt_lit(value: Option<&LitStr>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::<&str>::None),
    }
}

fn describe_common(p: &TokenStream, method: &Method, target: TokenStream) -> Vec<TokenStream> {
    let mut sets = Vec::new();
    if let Some(title) = some_string(method.settings.strings.get("title")) {
        sets.push(quote!(#target.title = #title;));
    }
    let description = method
        .settings
        .strings
        .get("description")
        .map(LitStr::value)
        .or_else(|| method.docs.clone());
    if let Some(description) = description {
        sets.push(quote!(#target.description = ::core::option::Option::Some(::std::string::String::from(#description));));
    }
    if !method.settings.icons.is_empty() {
        let icons = method
            .settings
            .icons
            .iter()
            .filter_map(|icon| icon_value(p, icon));
        sets.push(quote!(#target.icons = ::core::option::Option::Some(::std::vec![#(#icons),*]);));
    }
    sets
}

/// What a context-like parameter receives: the request context or the
/// retry input (by reference or by value, as declared).
fn passed(param: &Param) -> TokenStream {
    if !param.retry {
        quote!(ctx)
    } else if matches!(param.ty, Type::Reference(_)) {
        quote!(&retry)
    } else {
        quote!(retry.clone())
    }
}

fn call_expr(method: &Method, args: Vec<TokenStream>) -> TokenStream {
    let ident = &method.ident;
    let call = quote!(this.#ident(#(#args),*));
    if method.is_async {
        quote!(#call.await)
    } else {
        call
    }
}

fn expand_tool(p: &TokenStream, self_ty: &Type, method: &Method) -> (TokenStream, TokenStream) {
    let name = name_of(method);
    let method_name = method.ident.to_string();
    let fn_ident = format_ident!("__mcp_tool_{}", method.ident);
    let output = &method.output;
    let mut schema = Vec::new();
    let mut takes = Vec::new();
    let mut args = Vec::new();
    let mut consts = Vec::new();
    let mut whole_schema = None;
    for (index, param) in method.params.iter().enumerate() {
        let ident = &param.ident;
        let ty = &param.ty;
        if param.context {
            args.push(passed(param));
            continue;
        }
        args.push(quote!(#ident));
        // One const per parameter: a type lacking Deserialize/JsonSchema is one error.
        let hooks = format_ident!("__MCP_ARG_{}_{}", method.ident, index);
        consts.push(quote_spanned! {ty.span()=>
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            const #hooks: #p::ArgumentHooks<#ty> = #p::argument_hooks::<#ty>();
        });
        if param.whole {
            whole_schema = Some(quote!((<#self_ty>::#hooks.schema)()?));
            takes.push(quote! {
                let #ident: #ty = match (<#self_ty>::#hooks.whole)(arguments) {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(error) => return #p::argument_failure(error),
                };
            });
            continue;
        }
        let wire = &param.name;
        let description = opt_lit(param.description.as_ref());
        let header = opt_lit(param.header.as_ref());
        let required = !is_option(ty);
        schema.push(quote! {
            (<#self_ty>::#hooks.property)(&mut schema, #wire, #description, #required, #header);
        });
        takes.push(quote! {
            let #ident: #ty = match (<#self_ty>::#hooks.take)(&mut arguments, #wire) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => return #p::argument_failure(error),
            };
        });
    }
    let input_schema = match whole_schema {
        Some(schema) => schema,
        None => quote! {{
            let mut schema = #p::InputSchemaBuilder::new();
            #(#schema)*
            schema.build()?
        }},
    };
    let mut sets = describe_common(p, method, quote!(tool));
    let flags = &method.settings.flags;
    if !flags.is_empty() {
        let hints = flags.iter().map(|(key, value)| {
            let field = format_ident!("{}_hint", key);
            quote!(annotations.#field = ::core::option::Option::Some(#value);)
        });
        sets.push(quote!(tool.annotations = ::core::option::Option::Some({
            let mut annotations = #p::ToolAnnotations::new();
            #(#hints)*
            annotations
        });));
    }
    if let Some(json) = tool_meta(method) {
        sets.push(quote!(tool.meta = ::core::option::Option::Some(#p::meta_object(#json)?);));
    }
    let call = call_expr(method, args);
    let task = match method
        .settings
        .strings
        .get("task")
        .map(LitStr::value)
        .as_deref()
    {
        Some("optional") => quote!(#p::TaskSupport::Optional),
        Some("required") => quote!(#p::TaskSupport::Required),
        _ => quote!(#p::TaskSupport::Never),
    };
    let scopes = method
        .settings
        .scopes
        .iter()
        .flatten()
        .flat_map(|scopes| &scopes.list);
    let listed = if method.settings.hidden {
        quote!(#p::ToolVisibility::HIDDEN)
    } else {
        quote!(#p::ToolVisibility::LISTED)
    };
    let visibility = match method
        .settings
        .strings
        .get("era")
        .map(LitStr::value)
        .as_deref()
    {
        Some("modern") => quote!(#listed.only(#p::Era::Modern)),
        Some("legacy") => quote!(#listed.only(#p::Era::Legacy)),
        _ => listed,
    };
    let helper = quote! {
        #(#consts)*
        #[doc(hidden)]
        #[allow(non_snake_case, unused_mut, unused_variables)]
        fn #fn_ident<'a>(
            this: &'a #self_ty,
            call: #p::ToolCall,
            ctx: &'a #p::RequestContext,
        ) -> #p::RouterFuture<'a, #p::ToolOutcome> {
            #p::Box::pin(async move {
                let #p::ToolCall { mut arguments, retry } = call;
                #(#takes)*
                #p::IntoToolResult::into_tool_result(#call)
            })
        }
    };
    let spec = quote! {
        #p::ToolSpec {
            method: #method_name,
            describe: || {
                let mut tool = #p::Tool::new(#input_schema, ::std::string::String::from(#name));
                #(#sets)*
                if let ::core::option::Option::Some(schema) = <#output as #p::IntoToolResult>::output_schema() {
                    tool.output_schema = ::core::option::Option::Some(schema?);
                }
                ::core::result::Result::Ok(tool)
            },
            call: <#self_ty>::#fn_ident,
            task: #task,
            scopes: &[#(#scopes),*],
            visibility: #visibility,
            can_require_input: <#output as #p::IntoToolResult>::CAN_REQUIRE_INPUT,
        }
    };
    (helper, spec)
}

/// A tool's `_meta` as JSON text: `meta = {...}` with, for an MCP App,
/// `ui` (`resourceUri`, `visibility`) and the flat `ui/resourceUri` older
/// hosts read.
fn tool_meta(method: &Method) -> Option<String> {
    let settings = &method.settings;
    let mut meta = match settings.meta.as_deref().map(serde_json::from_str) {
        Some(Ok(serde_json::Value::Object(meta))) => meta,
        _ => serde_json::Map::new(),
    };
    let ui = settings.strings.get("ui").map(LitStr::value);
    if ui.is_none() && settings.visibility.is_none() {
        return settings.meta.clone();
    }
    let mut link = serde_json::Map::new();
    if let Some(uri) = &ui {
        link.insert("resourceUri".into(), uri.clone().into());
        meta.insert(apps::LEGACY_RESOURCE_URI_KEY.into(), uri.clone().into());
    }
    if let Some(visibility) = &settings.visibility {
        let who: Vec<serde_json::Value> = visibility.iter().map(|v| v.value().into()).collect();
        link.insert("visibility".into(), who.into());
    }
    meta.insert("ui".into(), link.into());
    Some(serde_json::Value::Object(meta).to_string())
}

/// A UI resource's `_meta` as JSON text: `{"ui": {...}}` from `csp`,
/// `permissions`, `domain` and `prefers_border`; `None` when none is given.
fn resource_meta(method: &Method) -> Option<String> {
    let settings = &method.settings;
    let mut ui = serde_json::Map::new();
    if let Some(lists) = &settings.csp {
        let csp: serde_json::Map<String, serde_json::Value> = lists
            .iter()
            .map(|(wire, list)| {
                let domains: Vec<serde_json::Value> =
                    list.iter().map(|d| d.value().into()).collect();
                ((*wire).to_owned(), domains.into())
            })
            .collect();
        ui.insert("csp".into(), csp.into());
    }
    if let Some(granted) = &settings.permissions {
        let permissions: serde_json::Map<String, serde_json::Value> = granted
            .iter()
            .map(|wire| ((*wire).to_owned(), serde_json::json!({})))
            .collect();
        ui.insert("permissions".into(), permissions.into());
    }
    if let Some(domain) = settings.strings.get("domain") {
        ui.insert("domain".into(), domain.value().into());
    }
    if let Some(border) = settings.prefers_border {
        ui.insert("prefersBorder".into(), border.into());
    }
    if ui.is_empty() {
        return None;
    }
    Some(serde_json::json!({ "ui": ui }).to_string())
}

fn expand_resource(p: &TokenStream, self_ty: &Type, method: &Method) -> (TokenStream, TokenStream) {
    let name = name_of(method);
    let method_name = method.ident.to_string();
    let fn_ident = format_ident!("__mcp_resource_{}", method.ident);
    let ui = method.settings.strings.get("ui");
    let mime = match ui {
        Some(_) => Some(apps::MIME_TYPE.to_owned()),
        None => method.settings.strings.get("mime_type").map(LitStr::value),
    };
    let meta = match resource_meta(method) {
        Some(json) => quote!(::core::option::Option::Some(#json)),
        None => quote!(::core::option::Option::None),
    };
    let mime_static = match &mime {
        Some(m) => quote!(::core::option::Option::Some(#m)),
        None => quote!(::core::option::Option::None),
    };
    let mut args = Vec::new();
    let mut takes = Vec::new();
    for param in &method.params {
        let ident = &param.ident;
        let ty = &param.ty;
        if param.context {
            args.push(if param.retry {
                quote!(request.retry.clone())
            } else {
                quote!(ctx)
            });
        } else if param.request {
            args.push(if matches!(ty, Type::Reference(_)) {
                quote!(&request)
            } else {
                quote!(request.clone())
            });
        } else {
            let wire = &param.name;
            takes.push(quote_spanned! {ty.span()=>
                let #ident: #ty = #p::template_variable::<#ty>(&request, #wire)?;
            });
            args.push(quote!(#ident));
        }
    }
    let mut sets = describe_common(p, method, quote!(described));
    if let Some(mime) = &mime {
        sets.push(quote!(described.mime_type = ::core::option::Option::Some(::std::string::String::from(#mime));));
    }
    let describe = match (
        method.settings.strings.get("uri").or(ui),
        method.settings.strings.get("template"),
    ) {
        (Some(uri), _) => quote! {{
            let mut described = #p::Resource::builder().name(#name).uri(#uri).build();
            #(#sets)*
            #p::ResourceDescription::Fixed(described)
        }},
        (None, template) => {
            let template = template.map(LitStr::value).unwrap_or_default();
            quote! {{
                let mut described = #p::ResourceTemplate::builder().name(#name).uri_template(#template).build();
                #(#sets)*
                #p::ResourceDescription::Template(described)
            }}
        }
    };
    let call = call_expr(method, args);
    let (list_helper, list) = match &method.settings.lister {
        Some(lister) => {
            let list_ident = format_ident!("__mcp_resource_list_{}", method.ident);
            let helper = expand_lister(p, self_ty, method, lister, &list_ident);
            (
                helper,
                quote!(::core::option::Option::Some(<#self_ty>::#list_ident)),
            )
        }
        None => (quote!(), quote!(::core::option::Option::None)),
    };
    let ttl_ms = match method.settings.cache_values.0 {
        Some(ttl) => quote!(::core::option::Option::Some(#ttl)),
        None => quote!(::core::option::Option::None),
    };
    let cache_scope = match method.settings.cache_values.1 {
        Some(true) => quote!(::core::option::Option::Some(#p::CacheScope::Public)),
        Some(false) => quote!(::core::option::Option::Some(#p::CacheScope::Private)),
        None => quote!(::core::option::Option::None),
    };
    let helper = quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, unused_variables)]
        fn #fn_ident<'a>(
            this: &'a #self_ty,
            request: #p::ResourceRequest,
            ctx: &'a #p::RequestContext,
        ) -> #p::RouterFuture<'a, #p::ReadOutcome> {
            #p::Box::pin(async move {
                #(#takes)*
                let value = #call;
                #p::IntoReadResult::into_read_result(value, &request, ctx)
            })
        }
        #list_helper
    };
    let spec = quote! {
        #p::ResourceSpec {
            method: #method_name,
            mime_type: #mime_static,
            meta: #meta,
            ttl_ms: #ttl_ms,
            cache_scope: #cache_scope,
            describe: || #describe,
            read: <#self_ty>::#fn_ident,
            list: #list,
        }
    };
    (helper, spec)
}

/// The helper behind `list = method`: calls it and writes each instance's
/// variables (typed as the resource method's parameters of those names,
/// `String` for the others) as text, in template order.
fn expand_lister(
    p: &TokenStream,
    self_ty: &Type,
    method: &Method,
    lister: &Lister,
    list_ident: &syn::Ident,
) -> TokenStream {
    let template = method
        .settings
        .strings
        .get("template")
        .map(LitStr::value)
        .unwrap_or_default();
    let names = template_variables(&template).unwrap_or_default();
    let types: Vec<Type> = names
        .iter()
        .map(|name| {
            method
                .params
                .iter()
                .find(|p| !p.context && !p.request && p.name == *name)
                .map_or_else(
                    || syn::parse_quote!(::std::string::String),
                    |p| p.ty.clone(),
                )
        })
        .collect();
    let vars: Vec<syn::Ident> = (0..names.len()).map(|i| format_ident!("v{i}")).collect();
    let (vars_ty, pattern) = match (types.as_slice(), vars.as_slice()) {
        ([ty], [var]) => (quote!(#ty), quote!(#var)),
        _ => (quote!((#(#types,)*)), quote!((#(#vars,)*))),
    };
    let ident = &lister.ident;
    let args = if lister.takes_context {
        quote!(ctx)
    } else {
        quote!()
    };
    let mut call = quote!(this.#ident(#args));
    if lister.is_async {
        call = quote!(#call.await);
    }
    let listing = quote_spanned!(lister.output_span=> #p::listing::<#vars_ty, _>(#call));
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, unused_variables)]
        fn #list_ident<'a>(
            this: &'a #self_ty,
            ctx: &'a #p::RequestContext,
        ) -> #p::RouterFuture<'a, #p::HandlerResult<::std::vec::Vec<#p::ListedResource<::std::vec::Vec<::std::string::String>>>>> {
            #p::Box::pin(async move {
                let listed = #listing?;
                ::core::result::Result::Ok(
                    listed
                        .into_iter()
                        .map(|item| item.map_variables(|#pattern| ::std::vec![#(#p::variable_text(&#vars)),*]))
                        .collect(),
                )
            })
        }
    }
}

fn expand_prompt(p: &TokenStream, self_ty: &Type, method: &Method) -> (TokenStream, TokenStream) {
    let name = name_of(method);
    let fn_ident = format_ident!("__mcp_prompt_{}", method.ident);
    let mut args = Vec::new();
    let mut takes = Vec::new();
    let mut declared = Vec::new();
    for param in &method.params {
        let ident = &param.ident;
        let ty = &param.ty;
        if param.context {
            args.push(passed(param));
            continue;
        }
        args.push(quote!(#ident));
        let wire = &param.name;
        let optional = is_option(ty);
        let inner = option_inner(ty);
        let parse =
            quote_spanned!(inner.span()=> #p::prompt_argument::<#inner>(&mut arguments, #wire));
        let value = if optional {
            quote!(#parse.map_err(#p::argument_error)?)
        } else {
            quote!(#parse.map_err(#p::argument_error)?.ok_or_else(|| #p::argument_error(#p::args::missing(#wire)))?)
        };
        takes.push(quote!(let #ident: #ty = #value;));
        let mut sets = Vec::new();
        if let Some(description) = &param.description {
            sets.push(quote!(argument.description = ::core::option::Option::Some(::std::string::String::from(#description));));
        }
        let required = !optional;
        declared.push(quote!({
            let mut argument = #p::PromptArgument::new(::std::string::String::from(#wire));
            argument.required = ::core::option::Option::Some(#required);
            #(#sets)*
            argument
        }));
    }
    let mut sets = describe_common(p, method, quote!(prompt));
    if !declared.is_empty() {
        sets.push(
            quote!(prompt.arguments = ::core::option::Option::Some(::std::vec![#(#declared),*]);),
        );
    }
    let call = call_expr(method, args);
    let helper = quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, unused_mut, unused_variables)]
        fn #fn_ident<'a>(
            this: &'a #self_ty,
            call: #p::PromptCall,
            ctx: &'a #p::RequestContext,
        ) -> #p::RouterFuture<'a, #p::PromptOutcome> {
            #p::Box::pin(async move {
                let #p::PromptCall { mut arguments, retry } = call;
                #(#takes)*
                #p::IntoPromptResult::into_prompt_result(#call)
            })
        }
    };
    let spec = quote! {
        #p::PromptSpec {
            describe: || {
                let mut prompt = #p::Prompt::new(::std::string::String::from(#name));
                #(#sets)*
                prompt
            },
            get: <#self_ty>::#fn_ident,
        }
    };
    (helper, spec)
}

/// The table impls of a router, with tables that are never built, emitted
/// after an error so the user sees that error alone rather than "does not
/// implement `ToolsHandler`" too.
fn fallback(krate: &syn::Path, self_ty: &Type, methods: &[Method]) -> TokenStream {
    let p = quote!(#krate::__private);
    let has = |kind: Kind| methods.iter().any(|m| m.kind == kind);
    let impls = [Kind::Tool, Kind::Resource, Kind::Prompt]
        .into_iter()
        .filter(|kind| has(*kind))
        .map(|kind| {
            let [routed_trait, table_fn, table_ty] = table_names(kind);
            quote! {
                impl #p::#routed_trait for #self_ty {
                    fn #table_fn() -> &'static #p::#table_ty<Self> {
                        ::core::unreachable!("a router that failed to compile")
                    }
                }
            }
        });
    quote!(#(#impls)*)
}

/// The trait by which a router serves `kind`, its table function and its
/// table type.
fn table_names(kind: Kind) -> [TokenStream; 3] {
    match kind {
        Kind::Tool => [quote!(RoutedTools), quote!(tool_table), quote!(ToolTable)],
        Kind::Resource => [
            quote!(RoutedResources),
            quote!(resource_table),
            quote!(ResourceTable),
        ],
        Kind::Prompt => [
            quote!(RoutedPrompts),
            quote!(prompt_table),
            quote!(PromptTable),
        ],
    }
}

fn expand(
    krate: &syn::Path,
    self_ty: &Type,
    methods: &[Method],
    completers: &BTreeMap<String, Completer>,
) -> TokenStream {
    let p = quote!(#krate::__private);
    let mut helpers = Vec::new();
    let mut out = Vec::new();
    for kind in [Kind::Tool, Kind::Resource, Kind::Prompt] {
        let marked: Vec<&Method> = methods.iter().filter(|m| m.kind == kind).collect();
        if marked.is_empty() {
            continue;
        }
        let mut specs = Vec::new();
        for method in &marked {
            let (helper, spec) = match kind {
                Kind::Tool => expand_tool(&p, self_ty, method),
                Kind::Resource => expand_resource(&p, self_ty, method),
                Kind::Prompt => expand_prompt(&p, self_ty, method),
            };
            helpers.push(helper);
            specs.push(spec);
        }
        out.push(routed_impl(&p, self_ty, table_names(kind), &specs));
    }
    let (specs, any) = completion_specs(&p, self_ty, methods, completers);
    if any {
        helpers.extend(
            completers
                .values()
                .map(|completer| expand_completer(&p, self_ty, completer)),
        );
        out.push(routed_impl(
            &p,
            self_ty,
            [
                quote!(RoutedCompletions),
                quote!(completion_table),
                quote!(CompletionTable),
            ],
            &specs,
        ));
    }
    // The derive of a generic type probes its handler traits generically
    // and so never sees a router of one instance: say so rather than serve
    // nothing.
    let message = format!(
        "`#[derive(McpServer)]` does not see the `#[router]` of `{}`: a router serves a non-generic server type",
        quote!(#self_ty).to_string().replace(' ', "")
    );
    let check = quote_spanned! {self_ty.span()=>
        const _: () = ::core::assert!(
            #p::sees(<#self_ty as #p::Derived>::VALID, !<#self_ty as #p::Derived>::GENERIC),
            #message
        );
    };
    let apps_checks = apps_checks(&p, self_ty, methods);
    quote! {
        #[automatically_derived]
        impl #self_ty {
            #(#helpers)*
        }
        #(#out)*
        #check
        #apps_checks
    }
}

/// What only the derive knows about a router using MCP Apps, checked at
/// compile time: the server declares the extension, and a tool's App
/// linked from a router without resources is served by a handler the
/// derive was told of.
fn apps_checks(p: &TokenStream, self_ty: &Type, methods: &[Method]) -> TokenStream {
    let uses = methods
        .iter()
        .find(|m| m.settings.strings.contains_key("ui") || m.settings.visibility.is_some());
    let Some(first) = uses else {
        return quote!();
    };
    let ty = quote!(#self_ty).to_string().replace(' ', "");
    let id = apps::EXTENSION_ID;
    let message = format!(
        "`{ty}` uses MCP Apps (`{}`) but does not declare the extension: add `#[mcp(extension(\"{id}\"))]`",
        name_of(first)
    );
    let mut checks = vec![quote_spanned! {first.ident.span()=>
        const _: () = ::core::assert!(
            #p::declares(<#self_ty as #p::Derived>::VALID, <#self_ty as #p::Derived>::EXTENSIONS, #id),
            #message
        );
    }];
    let has_resources = methods.iter().any(|m| m.kind == Kind::Resource);
    let linked = methods
        .iter()
        .find(|m| m.kind == Kind::Tool && m.settings.strings.contains_key("ui"));
    if let (false, Some(tool)) = (has_resources, linked) {
        let uri = tool
            .settings
            .strings
            .get("ui")
            .map(LitStr::value)
            .unwrap_or_default();
        let message = format!(
            "tool `{}` shows its results in the App `{uri}`, but `{ty}` serves no resources: add a `#[resource(ui = \"{uri}\")]` method (or, to serve it from a hand-written `ResourcesHandler`, write `resources` in `#[mcp(...)]`)",
            name_of(tool)
        );
        checks.push(quote_spanned! {tool.ident.span()=>
            const _: () = ::core::assert!(
                #p::sees(<#self_ty as #p::Derived>::VALID, <#self_ty as #p::Derived>::RESOURCES),
                #message
            );
        });
    }
    quote!(#(#checks)*)
}

/// The impl by which a router serves one capability: its table, built on
/// first use.
fn routed_impl(
    p: &TokenStream,
    self_ty: &Type,
    [routed_trait, table_fn, table_ty]: [TokenStream; 3],
    specs: &[TokenStream],
) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl #p::#routed_trait for #self_ty {
            fn #table_fn() -> &'static #p::#table_ty<Self> {
                static TABLE: #p::OnceLock<#p::#table_ty<#self_ty>> = #p::OnceLock::new();
                TABLE.get_or_init(|| #p::#table_ty::build(&[#(#specs),*]))
            }
        }
    }
}
