//! Complete: what the methods name, resolved in the impl block and
//! checked: each `complete = ...` completer and `list = ...` method, the
//! `cache(...)` values, and the `era` a tool is served in.

use std::collections::BTreeMap;

use syn::spanned::Spanned;
use syn::{FnArg, ImplItem, ImplItemFn, ItemImpl, Type};

use super::ast::{Completer, CompleterInput, FnInfo, Lister, Method};
use super::shape::is_named;
use crate::internals::check::{checked_scope, checked_ttl};
use crate::internals::ctxt::Ctxt;
use crate::internals::suggest::did_you_mean;

const ERAS: &[&str] = &["modern", "legacy"];

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
pub fn completers(
    cx: &mut Ctxt,
    item: &ItemImpl,
    methods: &[Method],
) -> BTreeMap<String, Completer> {
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
            let hint = did_you_mean(&name, &names)
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

/// The `list`, `cache`, `era` and `hidden` rules; finds each `list`
/// method. False when it reported an error.
pub fn catalogue_keys(cx: &mut Ctxt, methods: &mut [Method], fns: &[FnInfo]) -> bool {
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
