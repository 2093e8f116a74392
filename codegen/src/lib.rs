//! Generator of Rust protocol types from the official MCP JSON schemas.
//!
//! The pipeline has one file per step:
//!
//! 1. [`manifest`]: read `schema/manifest.toml`, load each pinned schema file
//!    (protocol revisions and extension schemas) and verify its sha256.
//! 2. [`normalise`]: one documented pass of schema fix-ups (see
//!    [`normalise::FIXUPS`]), each with its reason.
//! 3. [`ir`]: turn the normalised `$defs` into an ordered IR of structs,
//!    discriminated unions, string enums and aliases.
//! 4. [`emit`]: tokens with `quote` (structs, unions, tables) and `typify`
//!    (string enums), formatted with `prettyplease`.
//!
//! Beside the pipeline, [`diff`] compares two schemas through the same
//! normalisation and IR: a semantic changelog ([`diff::SchemaDiff`], as
//! Markdown with [`diff::SchemaDiff::to_markdown`]) of the methods, types,
//! fields, enum values and union variants added, removed or changed, each
//! judged breaking or not for Rust users of the generated types
//! (`cargo xtask diff A B`).
//!
//! An extension schema ([`generate_extension`]) goes through the same steps;
//! the core definitions it repeats must equal its core revision's and are
//! imported from that revision's module instead of generated twice.
//! [`generate_delta`] generates a revision (the draft) as a delta of
//! another: what it shares with it is re-exported, not generated again.
//!
//! [`client`] is the other generator: a typed Rust client from any MCP
//! server's tool catalogue (`mcp-era-codegen client`, `mcp-probe --codegen`,
//! or [`client::build`] in a build script).
//!
//! Apart from [`client::build`] (for build scripts) this crate never writes files; `cargo xtask regen` does, and so does
//! the small CLI of this package for any schema file:
//!
//! ```text
//! cargo run -p mcp-era-codegen -- --schema schema.json --out src/mcp.rs [--version 2026-07-28]
//!     [--module NAME] [--derive PATH]... [--serde PATH] [--serde-json PATH]
//!     [--runtime PATH] [--named-feature FEATURE] [--command TEXT] [--check]
//! cargo run -p mcp-era-codegen -- --schema ext/tasks/schema.json --out src/tasks.rs
//!     --extension io.modelcontextprotocol/tasks --core 2026-07-28/schema.json
//!     [--core-version 2026-07-28] [--core-module ::mcp_era_types::v2026_07_28] [options above]
//! ```
//!
//! # As a library (for other SDKs)
//!
//! Schema in, formatted Rust out:
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let schema: serde_json::Value =
//!     serde_json::from_str(&std::fs::read_to_string("schema.json")?)?;
//! let era = mcp_era_codegen::detect_era(&schema).ok_or("not an MCP schema")?;
//! let options = mcp_era_codegen::EmitOptions::default()
//!     .command("my-sdk: cargo run -p my-codegen")
//!     .module("v2026_07_28")
//!     .derive("Hash")
//!     .named_feature(None);
//! let rust: String = mcp_era_codegen::generate_revision(&schema, era, "2026-07-28", &options)?;
//! std::fs::write("src/generated.rs", rust)?;
//! # Ok(()) }
//! ```
//!
//! The output is deterministic (ordered IR, one formatter) and carries a
//! `@generated` header naming [`EmitOptions::command`]. It calls a small
//! runtime, `mcp_era_types::__private` by default ([`EmitOptions::runtime`]):
//! depend on the `mcp-types` crate of this toolkit (lib name `mcp_era_types`)
//! and `serde` / `serde_json`. A schema shape the generator cannot express
//! is an [`Error`] naming the schema location, never silently wrong code.

#![deny(missing_docs)]

pub mod client;
pub mod diff;
pub mod emit;
mod error;
pub mod ir;
pub mod manifest;
mod naming;
pub mod normalise;

pub use emit::{
    DeltaBase, EmitOptions, ExtensionTarget, detect_era, generate_delta, generate_extension,
    generate_file, generate_revision, generate_versions,
};
pub use error::{Error, Result};
