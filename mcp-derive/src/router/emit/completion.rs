//! The completion emitter: the helper of each `complete = ...` method and
//! the specs of every prompt argument and URI template variable, completed
//! by its method or derived from its type (a string enum's values).

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use super::helper::{Helper, helper};
use crate::router::ast::{Completer, CompleterInput, Kind, Method, Param, name_of};
use crate::router::shape::{never_enum, option_inner, template_variables};

/// The wrapper of a completer, as the completion table calls it.
pub fn emit_completer(p: &TokenStream, self_ty: &Type, completer: &Completer) -> TokenStream {
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
    helper(
        p,
        self_ty,
        Helper {
            ident: &fn_ident,
            unused_mut: false,
            input: Some(quote!(request: #p::CompletionRequest)),
            outcome: quote!(#p::CompletionOutcome),
            body: quote! {
                let values = #call;
                #convert
            },
        },
    )
}

/// The completion specs of every prompt argument and template variable,
/// and whether any may complete to something.
pub fn completion_specs(
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
