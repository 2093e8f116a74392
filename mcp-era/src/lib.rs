//! The Model Context Protocol toolkit, in one crate: add it with
//! `cargo add mcp-era` (server and derive) or
//! `cargo add mcp-era --features client`.
//!
//! | path | crate | feature |
//! |---|---|---|
//! | [`types`] | `mcp-era-types`: protocol types generated from the official schemas, one module per revision | always |
//! | `server` | `mcp-era-server`: runtime, handler traits, stdio and Streamable HTTP | `server` (default) |
//! | `McpServer`, `router` | `mcp-era-derive` through the server: `#[derive(McpServer)]`, `#[router]` | `derive` (default) |
//! | `client` | `mcp-era-client`: dual-era client with version negotiation | `client` (`rustls` for `https://`, `oauth` for OAuth 2.1) |
//!
//! Feature `draft` adds `types::draft` (the upstream draft schema, never
//! served); `named` adds the by-name type lookup of `types`.
//!
//! The macros reach the runtime as `::mcp_server` by default; through this
//! crate, say where it is with `crate = "mcp_era::server"`:
//!
//! ```
//! # #[cfg(feature = "derive")] mod example {
//! use mcp_era::{McpServer, router};
//!
//! #[derive(McpServer)]
//! #[mcp(crate = "mcp_era::server", name = "hello", version = "1.0.0", tools)]
//! pub struct Hello;
//!
//! #[router(crate = "mcp_era::server")]
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
pub use mcp_types as types;

/// The server runtime (`mcp-era-server`).
#[cfg(feature = "server")]
pub use mcp_server as server;

/// The derive and the router macro (and the `McpServer` trait).
#[cfg(feature = "derive")]
pub use mcp_server::{McpServer, router};

/// The dual-era client (`mcp-era-client`).
#[cfg(feature = "client")]
pub use mcp_client as client;
