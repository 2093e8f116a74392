//! `#[derive(McpServer)]` and `#[router]`: thin proc-macro shells over
//! `expand::derive` and `router::router` (parse → validate → expand). Use it
//! through `mcp-server`, which documents every attribute and re-exports it.

#![deny(missing_docs)]

mod expand;
mod internals;
mod router;
mod tokens;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

/// Where generated code finds the runtime when no `crate = "..."` is
/// written: the server crate itself, or the `mcp-era` facade. Each entry
/// point has its own default, so a user of either crate writes no path.
fn server_path() -> syn::Path {
    syn::parse_quote!(::mcp_era_server)
}

fn facade_path() -> syn::Path {
    syn::parse_quote!(::mcp_era::server)
}

/// Derives `mcp_era_server::McpServer`; see the `mcp-server` crate docs for
/// every `#[mcp(...)]` key.
#[proc_macro_derive(McpServer, attributes(mcp))]
pub fn derive_mcp_server(input: TokenStream) -> TokenStream {
    derive_with(input, server_path())
}

/// `#[derive(McpServer)]` as re-exported by the `mcp-era` facade (generated
/// code reaches the runtime through `::mcp_era::server`).
#[doc(hidden)]
#[proc_macro_derive(FacadeMcpServer, attributes(mcp))]
pub fn derive_facade_mcp_server(input: TokenStream) -> TokenStream {
    derive_with(input, facade_path())
}

/// `#[mcp_era_server::router]`: the `#[tool]`, `#[resource]` and `#[prompt]`
/// methods of an `impl` block become the server's tools, resources and
/// prompts; see the `mcp-server` crate docs.
#[proc_macro_attribute]
pub fn router(args: TokenStream, input: TokenStream) -> TokenStream {
    router_with(args, input, server_path())
}

/// `#[router]` as re-exported by the `mcp-era` facade.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn facade_router(args: TokenStream, input: TokenStream) -> TokenStream {
    router_with(args, input, facade_path())
}

fn derive_with(input: TokenStream, path: syn::Path) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => expand::derive(&input, path).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn router_with(args: TokenStream, input: TokenStream, path: syn::Path) -> TokenStream {
    match syn::parse::<syn::ItemImpl>(input) {
        Ok(item) => router::router(args.into(), item, path).into(),
        Err(e) => e.to_compile_error().into(),
    }
}
