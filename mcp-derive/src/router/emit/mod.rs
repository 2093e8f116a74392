//! Emit: the tokens of a checked router, one emitter per kind (`tool.rs`,
//! `resource.rs`, `prompt.rs`, `completion.rs`) over the one helper
//! skeleton of `helper.rs`; here the table impls that gather them, and the
//! fallback after an error.

mod checks;
mod completion;
mod helper;
mod prompt;
mod resource;
mod tool;

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;
use syn::Type;

use super::ast::{Completer, Kind, Method};

/// The helpers, the table impls and the compile-time checks of a
/// router that passed its checks.
pub fn emit(
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
                Kind::Tool => tool::emit(&p, self_ty, method),
                Kind::Resource => resource::emit(&p, self_ty, method),
                Kind::Prompt => prompt::emit(&p, self_ty, method),
            };
            helpers.push(helper);
            specs.push(spec);
        }
        out.push(routed_impl(&p, self_ty, table_names(kind), &specs));
    }
    let (specs, any) = completion::completion_specs(&p, self_ty, methods, completers);
    if any {
        helpers.extend(
            completers
                .values()
                .map(|completer| completion::emit_completer(&p, self_ty, completer)),
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
    let check = checks::sees_router(&p, self_ty);
    let apps_checks = checks::apps(&p, self_ty, methods);
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

/// The table impls of a router, with tables that are never built, emitted
/// after an error so the user sees that error alone rather than "does not
/// implement `ToolsHandler`" too.
pub fn fallback(krate: &syn::Path, self_ty: &Type, methods: &[Method]) -> TokenStream {
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
