//! The Model Context Protocol toolkit, in one crate: add it with
//! `cargo add mcp-era` (server and derive) or
//! `cargo add mcp-era --features client`.
//!
//! | path | crate | feature |
//! |---|---|---|
//! | [`types`] | `mcp-era-types`: protocol types generated from the official schemas, one module per revision | always |
//! | `server` | `mcp-era-server`: runtime, handler traits, stdio and Streamable HTTP | `server` (default) |
//! | `McpServer`, `router`, `prelude` | `mcp-era-derive`: `#[derive(McpServer)]`, `#[router]` | `derive` (default) |
//! | `client` | `mcp-era-client`: dual-era client with version negotiation | `client` (`rustls` for `https://`, `oauth` for OAuth 2.1) |
//!
//! Feature `draft` adds `types::draft` (the upstream draft schema, never
//! served); `named` adds the by-name type lookup of `types`.
//!
//! ```
//! # #[cfg(feature = "derive")] mod example {
//! use mcp_era::prelude::*;
//!
//! #[derive(McpServer)]
//! #[mcp(name = "hello", version = "1.0.0", tools)]
//! pub struct Hello;
//!
//! #[router]
//! impl Hello {
//!     /// Greets someone.
//!     #[tool(read_only)]
//!     fn hello(&self, name: String) -> String {
//!         format!("Hello, {name}!")
//!     }
//! }
//! # pub fn check() {
//! // Served versions come from what the runtime implements.
//! assert_eq!(
//!     Hello::declaration().advertised_versions(),
//!     mcp_era::server::IMPLEMENTED_MODERN_VERSIONS
//! );
//! # } }
//! # #[cfg(feature = "derive")] example::check();
//! ```
//!
//! Serve it with `mcp_era::server::stdio::run(Hello)`.

#![deny(missing_docs)]

/// Protocol types generated from the official JSON schemas (`mcp-era-types`).
pub use mcp_era_types as types;

/// The server runtime (`mcp-era-server`).
///
/// Everything of `mcp-era-server`, except that the `McpServer` derive and
/// the `router` macro here generate code that reaches the runtime through
/// this crate, so a server written against `mcp-era` needs no other
/// dependency and no `crate = "..."` attribute.
#[cfg(feature = "server")]
pub mod server {
    #[doc(no_inline)]
    pub use mcp_era_server::*;

    // Explicit imports shadow the glob's macros of the same names; the
    // `McpServer` trait still comes from the glob.
    #[cfg(feature = "derive")]
    #[doc(inline)]
    pub use mcp_era_derive::{FacadeMcpServer as McpServer, facade_router as router};
}

/// The derive, the router macro and the `McpServer` trait.
#[cfg(feature = "derive")]
pub use server::{McpServer, router};

/// What a server author writes `use mcp_era::prelude::*;` for: the derive
/// and the trait, the router macro, the context, the typed results and
/// JSON Schema derivation (schemars 1, whose derive finds `schemars` here).
#[cfg(feature = "derive")]
pub mod prelude {
    pub use crate::server::schemars::{self, JsonSchema};
    pub use crate::server::{Json, McpServer, RequestContext, RetryInput, router};
}

/// The dual-era client (`mcp-era-client`).
#[cfg(feature = "client")]
pub use mcp_era_client as client;
