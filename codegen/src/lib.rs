//! Generator of Rust protocol types from the official MCP JSON schemas.
//!
//! The pipeline has one file per step:
//!
//! 1. [`manifest`]: read `schema/manifest.toml`, load each pinned schema file
//!    and verify its sha256.
//! 2. [`normalise`]: one documented pass of schema fix-ups (see
//!    [`normalise::FIXUPS`]), each with its reason.
//! 3. [`ir`]: turn the normalised `$defs` into an ordered IR of structs,
//!    discriminated unions, string enums and aliases.
//! 4. [`emit`]: tokens with `quote` (structs, unions, tables) and `typify`
//!    (string enums), formatted with `prettyplease`.
//!
//! This crate never writes files; `cargo xtask regen` does.

#![deny(missing_docs)]

pub mod emit;
pub mod ir;
pub mod manifest;
mod naming;
pub mod normalise;

use std::fmt;

pub use emit::{EmitOptions, generate_revision, generate_versions};

/// Every failure of the generator, with a message that names the schema
/// location or file concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
