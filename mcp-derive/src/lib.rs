//! `#[derive(McpServer)]` and `#[router]`: thin proc-macro shells over
//! `expand::derive` and `router::router` (parse → validate → expand). Use it
//! through `mcp-server`, which documents every attribute and re-exports it.

#![deny(missing_docs)]

mod expand;
mod internals;
mod router;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

/// Derives `mcp_server::McpServer`; see the `mcp-server` crate docs for
/// every `#[mcp(...)]` key.
#[proc_macro_derive(McpServer, attributes(mcp))]
pub fn derive_mcp_server(input: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => expand::derive(&input).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// `#[mcp_server::router]`: the `#[tool]`, `#[resource]` and `#[prompt]`
/// methods of an `impl` block become the server's tools, resources and
/// prompts; see the `mcp-server` crate docs.
#[proc_macro_attribute]
pub fn router(args: TokenStream, input: TokenStream) -> TokenStream {
    match syn::parse::<syn::ItemImpl>(input) {
        Ok(item) => router::router(args.into(), item).into(),
        Err(e) => e.to_compile_error().into(),
    }
}
