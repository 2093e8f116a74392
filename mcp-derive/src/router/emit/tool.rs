//! The tool emitter: a `#[tool]` method's helper (its arguments taken one
//! by one, or whole with `#[arguments]`) and its `ToolSpec` (the described
//! tool, its input schema, annotations, `_meta`, task support, scopes and
//! visibility).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{LitStr, Type};

use super::helper::{call_expr, call_helper, describe_common, passed};
use crate::router::ast::{Method, name_of};
use crate::router::shape::is_option;
use mcp_era_apps_rules as apps;

/// The helper and the `ToolSpec` of one tool.
pub fn emit(p: &TokenStream, self_ty: &Type, method: &Method) -> (TokenStream, TokenStream) {
    let name = name_of(method);
    let method_name = method.ident.to_string();
    let fn_ident = format_ident!("__mcp_tool_{}", method.ident);
    let output = &method.output;
    let Arguments {
        input_schema,
        takes,
        args,
        consts,
    } = arguments(p, self_ty, method);
    let sets = describe(p, method);
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
    let visibility = visibility(p, method);
    let helper = call_helper(
        p,
        self_ty,
        &fn_ident,
        [quote!(ToolCall), quote!(ToolOutcome)],
        &takes,
        quote!(#p::IntoToolResult::into_tool_result(#call)),
    );
    let helper = quote! {
        #(#consts)*
        #helper
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

/// How a tool's parameters are described and taken.
struct Arguments {
    /// The input schema, built from the parameters or the `#[arguments]` type.
    input_schema: TokenStream,
    /// One statement per argument, taking it from the call.
    takes: Vec<TokenStream>,
    /// What the method is called with, in order.
    args: Vec<TokenStream>,
    /// One `ArgumentHooks` const per argument.
    consts: Vec<TokenStream>,
}

fn arguments(p: &TokenStream, self_ty: &Type, method: &Method) -> Arguments {
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
    Arguments {
        input_schema,
        takes,
        args,
        consts,
    }
}

fn opt_lit(value: Option<&LitStr>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::<&str>::None),
    }
}

/// What is set on the described tool: the common fields, annotations, `_meta`.
fn describe(p: &TokenStream, method: &Method) -> Vec<TokenStream> {
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
    sets
}

/// Listed or `hidden`, in both eras or the one `era` names.
fn visibility(p: &TokenStream, method: &Method) -> TokenStream {
    let listed = if method.settings.hidden {
        quote!(#p::ToolVisibility::HIDDEN)
    } else {
        quote!(#p::ToolVisibility::LISTED)
    };
    match method
        .settings
        .strings
        .get("era")
        .map(LitStr::value)
        .as_deref()
    {
        Some("modern") => quote!(#listed.only(#p::Era::Modern)),
        Some("legacy") => quote!(#listed.only(#p::Era::Legacy)),
        _ => listed,
    }
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
