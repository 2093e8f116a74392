//! The prompt emitter: a `#[prompt]` method's helper (each argument
//! parsed from its string, an `Option` when not required) and its
//! `PromptSpec` (the described prompt and its arguments).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use super::helper::{call_expr, call_helper, describe_common, passed};
use crate::router::ast::{Method, name_of};
use crate::router::shape::{is_option, option_inner};

/// The helper and the `PromptSpec` of one prompt.
pub fn emit(p: &TokenStream, self_ty: &Type, method: &Method) -> (TokenStream, TokenStream) {
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
    let helper = call_helper(
        p,
        self_ty,
        &fn_ident,
        [quote!(PromptCall), quote!(PromptOutcome)],
        &takes,
        quote!(#p::IntoPromptResult::into_prompt_result(#call)),
    );
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
