//! `#[router]`: the `#[tool]`, `#[resource]` and `#[prompt]` methods of an
//! `impl` block become static tables and the handler trait impls that
//! serve them. By step, as serde_derive splits a derive: `parse` builds
//! the AST of `ast.rs`, `check` reports the mistakes, `complete` resolves
//! what the methods name, `emit` writes the tokens (or, after an error,
//! a fallback that keeps the error alone).

mod ast;
mod check;
mod complete;
mod emit;
mod parse;
mod shape;

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemImpl;

use crate::internals::ctxt::Ctxt;

/// The whole attribute macro.
pub fn router(args: TokenStream, mut item: ItemImpl, krate: syn::Path) -> TokenStream {
    let mut cx = Ctxt::new();
    let krate = parse::arguments(&mut cx, args, krate);
    check::impl_block(&mut cx, &item);
    let (mut methods, fns) = parse::methods(&mut cx, &mut item);
    let self_ty = (*item.self_ty).clone();
    // A completer's mistake stops emission as the checks' do.
    let before = cx.has_errors();
    let completers = complete::completers(&mut cx, &item, &methods);
    let completers_ok = cx.has_errors() == before;
    let checked = check::check(&mut cx, &methods) && completers_ok;
    let resolved = complete::catalogue_keys(&mut cx, &mut methods, &fns);
    let errors = cx.into_compile_errors();
    if !checked || !resolved {
        let fallback = emit::fallback(&krate, &self_ty, &methods);
        return quote! { #errors #item #fallback };
    }
    let body = emit::emit(&krate, &self_ty, &methods, &completers);
    quote! {
        #errors
        #item
        #body
    }
}
