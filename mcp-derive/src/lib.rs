//! `#[derive(McpServer)]`: a thin proc-macro shell over `expand::derive`
//! (parse → validate → expand, in `internals` and `expand`). Use it
//! through `mcp-server`, which documents every attribute and re-exports it.

#![deny(missing_docs)]

mod expand;
mod internals;

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
