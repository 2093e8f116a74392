//! The resource emitter: a `#[resource]` method's read helper (template
//! variables taken from the request), its `list = ...` helper, and its
//! `ResourceSpec` (a fixed resource, a template or an MCP App, with its
//! MIME type, `_meta` and cache hints).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{LitStr, Type};

use super::helper::{Helper, call_expr, describe_common, helper};
use crate::router::ast::{Lister, Method, name_of};
use crate::router::shape::template_variables;
use mcp_era_apps_rules as apps;

/// The helpers and the `ResourceSpec` of one resource.
pub fn emit(p: &TokenStream, self_ty: &Type, method: &Method) -> (TokenStream, TokenStream) {
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
    let (takes, args) = arguments(p, method);
    let describe = describe(p, method, mime.as_deref());
    let call = call_expr(method, args);
    let (list_helper, list) = match &method.settings.lister {
        Some(lister) => {
            let list_ident = format_ident!("__mcp_resource_list_{}", method.ident);
            let helper = emit_lister(p, self_ty, method, lister, &list_ident);
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
    let helper = helper(
        p,
        self_ty,
        Helper {
            ident: &fn_ident,
            unused_mut: false,
            input: Some(quote!(request: #p::ResourceRequest)),
            outcome: quote!(#p::ReadOutcome),
            body: quote! {
                #(#takes)*
                let value = #call;
                #p::IntoReadResult::into_read_result(value, &request, ctx)
            },
        },
    );
    let helper = quote! {
        #helper
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

/// The statements taking each template variable, and what the method is
/// called with.
fn arguments(p: &TokenStream, method: &Method) -> (Vec<TokenStream>, Vec<TokenStream>) {
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
    (takes, args)
}

/// The block that describes the resource: a fixed `Resource` (a `uri` or
/// an App's `ui`) or a `ResourceTemplate`.
fn describe(p: &TokenStream, method: &Method, mime: Option<&str>) -> TokenStream {
    let name = name_of(method);
    let mut sets = describe_common(p, method, quote!(described));
    if let Some(mime) = mime {
        sets.push(quote!(described.mime_type = ::core::option::Option::Some(::std::string::String::from(#mime));));
    }
    match (
        method
            .settings
            .strings
            .get("uri")
            .or(method.settings.strings.get("ui")),
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
    }
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

/// The helper behind `list = method`: calls it and writes each instance's
/// variables (typed as the resource method's parameters of those names,
/// `String` for the others) as text, in template order.
fn emit_lister(
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
    helper(
        p,
        self_ty,
        Helper {
            ident: list_ident,
            unused_mut: false,
            input: None,
            outcome: quote!(#p::HandlerResult<::std::vec::Vec<#p::ListedResource<::std::vec::Vec<::std::string::String>>>>),
            body: quote! {
                let listed = #listing?;
                ::core::result::Result::Ok(
                    listed
                        .into_iter()
                        .map(|item| item.map_variables(|#pattern| ::std::vec![#(#p::variable_text(&#vars)),*]))
                        .collect(),
                )
            },
        },
    )
}
