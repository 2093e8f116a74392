//! The one helper emitter: every tool, resource, prompt, completer and
//! `list` method is called through a hidden `fn(this, [input,] ctx)` that
//! returns a boxed future; the kinds differ only in the input, the outcome
//! and the body. Also the parts every kind's description and call share.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{LitStr, Type};

use crate::router::ast::{Method, Param};
use crate::tokens::{icon_value, some_string};

/// One hidden helper, as a kind's emitter fills it in.
pub struct Helper<'a> {
    /// The helper's name (`__mcp_tool_<method>`, ...).
    pub ident: &'a syn::Ident,
    /// Whether the body may bind `mut` without using it (arguments taken).
    pub unused_mut: bool,
    /// The parameter between `this` and `ctx` (`call: ToolCall`), if any.
    pub input: Option<TokenStream>,
    /// What the future resolves to.
    pub outcome: TokenStream,
    /// The statements inside `async move { ... }`.
    pub body: TokenStream,
}

/// The helper `fn`: `this`, the kind's input and the request context in,
/// the boxed future of the kind's outcome out.
pub fn helper(p: &TokenStream, self_ty: &Type, helper: Helper<'_>) -> TokenStream {
    let Helper {
        ident,
        unused_mut,
        input,
        outcome,
        body,
    } = helper;
    let lints = if unused_mut {
        quote!(non_snake_case, unused_mut, unused_variables)
    } else {
        quote!(non_snake_case, unused_variables)
    };
    let input = input.map(|input| quote!(#input,));
    quote! {
        #[doc(hidden)]
        #[allow(#lints)]
        fn #ident<'a>(
            this: &'a #self_ty,
            #input
            ctx: &'a #p::RequestContext,
        ) -> #p::RouterFuture<'a, #outcome> {
            #p::Box::pin(async move {
                #body
            })
        }
    }
}

/// The helper of a tool or a prompt: its arguments taken out of the call
/// (`ToolCall`, `PromptCall`), then the method's value, converted.
pub fn call_helper(
    p: &TokenStream,
    self_ty: &Type,
    ident: &syn::Ident,
    [call, outcome]: [TokenStream; 2],
    takes: &[TokenStream],
    value: TokenStream,
) -> TokenStream {
    helper(
        p,
        self_ty,
        Helper {
            ident,
            unused_mut: true,
            input: Some(quote!(call: #p::#call)),
            outcome: quote!(#p::#outcome),
            body: quote! {
                let #p::#call { mut arguments, retry } = call;
                #(#takes)*
                #value
            },
        },
    )
}

/// The `title`, `description` (else the doc comment) and `icon`s set on
/// `target`, a tool, resource or prompt being described.
pub fn describe_common(p: &TokenStream, method: &Method, target: TokenStream) -> Vec<TokenStream> {
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
pub fn passed(param: &Param) -> TokenStream {
    if !param.retry {
        quote!(ctx)
    } else if matches!(param.ty, Type::Reference(_)) {
        quote!(&retry)
    } else {
        quote!(retry.clone())
    }
}

/// The marked method called with `args`, awaited when `async`.
pub fn call_expr(method: &Method, args: Vec<TokenStream>) -> TokenStream {
    let ident = &method.ident;
    let call = quote!(this.#ident(#(#args),*));
    if method.is_async {
        quote!(#call.await)
    } else {
        call
    }
}
