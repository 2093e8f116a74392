//! The compile-time checks a router emits, for what only the derive
//! knows: that it sees this router (the type is not generic) and, for MCP
//! Apps, that the extension is declared and the App is served.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::LitStr;
use syn::Type;
use syn::spanned::Spanned;

use crate::router::ast::{Kind, Method, name_of};
use mcp_era_apps_rules as apps;

/// `#[derive(McpServer)]` sees this router: the derive of a generic type
/// probes its handler traits generically and so never sees a router of one
/// instance; say so rather than serve nothing.
pub fn sees_router(p: &TokenStream, self_ty: &Type) -> TokenStream {
    let message = format!(
        "`#[derive(McpServer)]` does not see the `#[router]` of `{}`: a router serves a non-generic server type",
        quote!(#self_ty).to_string().replace(' ', "")
    );
    quote_spanned! {self_ty.span()=>
        const _: () = ::core::assert!(
            #p::sees(<#self_ty as #p::Derived>::VALID, !<#self_ty as #p::Derived>::GENERIC),
            #message
        );
    }
}

/// What only the derive knows about a router using MCP Apps, checked at
/// compile time: the server declares the extension, and a tool's App
/// linked from a router without resources is served by a handler the
/// derive was told of.
pub fn apps(p: &TokenStream, self_ty: &Type, methods: &[Method]) -> TokenStream {
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
