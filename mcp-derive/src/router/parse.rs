//! Parse: the `router` arguments and the `impl` block's marked methods,
//! their `#[tool]`/`#[resource]`/`#[prompt]` settings and `#[arg]`
//! parameters, into the AST of `ast.rs`. The marks are taken off the
//! methods; mistakes go to the [`Ctxt`] and parsing goes on.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::{FnArg, ImplItem, ImplItemFn, ItemImpl, LitStr, Pat, Type};

use super::ast::{FnInfo, Kind, Method, Param, Settings};
use super::shape::is_named;
use crate::internals::attr::{
    SpanOf, parse_cache_hints, parse_icon, parse_scopes, path_name, skip_value,
};
use crate::internals::ctxt::Ctxt;
use crate::internals::json::JsonLiteral;
use crate::internals::suggest::unknown_key_message;
use mcp_era_apps_rules as apps;

const ARG_KEYS: &[&str] = &["name", "description", "header", "complete"];

/// `#[router(crate = "...")]`: the path generated code reaches the
/// runtime by, else `krate`.
pub fn arguments(cx: &mut Ctxt, args: TokenStream, mut krate: syn::Path) -> syn::Path {
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
    krate
}

/// The methods of the impl block: the marked ones parsed (their marks
/// removed from `item`), and every one as a `list = ...` candidate.
pub fn methods(cx: &mut Ctxt, item: &mut ItemImpl) -> (Vec<Method>, Vec<FnInfo>) {
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
            [(kind, attr)] => methods.extend(parse_method(cx, *kind, attr, method)),
            [_, (_, second), ..] => cx.error_spanned_by(
                second,
                "a method can be one tool, resource or prompt, not several",
            ),
        }
    }
    (methods, fns)
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

/// One key of a marked method's attribute.
fn settings_key(
    cx: &mut Ctxt,
    kind: Kind,
    settings: &mut Settings,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let key = path_name(&meta.path);
    let context = format!("`#[{}(...)]`", kind.word());
    if misplaced(cx, kind, &key, meta) {
        return skip_value(meta);
    }
    if !kind.keys().contains(&key.as_str()) {
        cx.error_spanned_by(&meta.path, unknown_key_message(&key, &context, kind.keys()));
        return skip_value(meta);
    }
    if is_duplicate(settings, &key) {
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
    settings_value(cx, settings, key, meta)
}

/// Reports a key written on a kind it does not apply to.
fn misplaced(cx: &mut Ctxt, kind: Kind, key: &str, meta: &ParseNestedMeta<'_>) -> bool {
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
        return true;
    }
    let only = match key {
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
        return true;
    }
    false
}

fn is_duplicate(settings: &Settings, key: &str) -> bool {
    settings.strings.contains_key(key)
        || settings.flags.contains_key(key)
        || (key == "meta" && settings.meta.is_some())
        || (key == "scopes" && settings.scopes.is_some())
        || (key == "hidden" && settings.hidden)
        || (key == "list" && settings.list.is_some())
        || (key == "cache" && settings.cache.is_some())
        || (key == "visibility" && settings.visibility.is_some())
        || (key == "csp" && settings.csp.is_some())
        || (key == "permissions" && settings.permissions.is_some())
        || (key == "prefers_border" && settings.prefers_border.is_some())
}

/// The value of a key that applies here, written once.
fn settings_value(
    cx: &mut Ctxt,
    settings: &mut Settings,
    key: String,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    match key.as_str() {
        "icon" => settings.icons.push(parse_icon(cx, meta)?),
        "visibility" => {
            let array: syn::ExprArray = meta.value()?.parse()?;
            settings.visibility = Some(str_array(cx, array));
        }
        "csp" => settings.csp = Some(parse_csp(cx, meta)?),
        "permissions" => settings.permissions = Some(parse_permissions(cx, meta)?),
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

/// `csp(connect_domains = [...], ...)`: each list under its wire name.
fn parse_csp(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<Vec<(&'static str, Vec<LitStr>)>> {
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
    Ok(lists)
}

/// `permissions(camera, ...)`: the wire names granted.
fn parse_permissions(cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<&'static str>> {
    let mut granted = Vec::new();
    meta.parse_nested_meta(|inner| {
        let k = path_name(&inner.path);
        let Some((_, wire)) = apps::PERMISSION_KEYS.iter().find(|(rust, _)| *rust == k) else {
            let keys: Vec<&str> = apps::PERMISSION_KEYS.iter().map(|(rust, _)| *rust).collect();
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
    Ok(granted)
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
