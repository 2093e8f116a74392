//! Every MCP protocol version this toolkit knows, with its era, newest first.
//!
//! Generated from `schema/manifest.toml` by `cargo xtask regen`. A crate of
//! its own so that `mcp-derive` can check versions at compile time without
//! compiling the protocol types for the host; `mcp_types::versions`
//! re-exports it.

#![deny(missing_docs)]

// Formatted by prettyplease, not rustfmt.
#[rustfmt::skip]
mod generated;

pub use generated::*;
