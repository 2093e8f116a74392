//! Model Context Protocol types, generated from the official JSON schemas.
//!
//! One module per protocol revision, all compiled together, so a dual-era
//! program can use both: [`v2026_07_28`] (modern: per-request `_meta`,
//! `server/discover`) and [`v2025_11_25`] (legacy: the `initialize`
//! handshake). [`versions`] lists every known protocol version with its era,
//! the versions with types here (`GENERATED_VERSIONS`) and, apart, the
//! versions the runtime implements (`IMPLEMENTED_VERSIONS`).
//!
//! With the cargo feature `draft` (off by default), `mcp_era_types::draft` holds
//! the types of the upstream draft schema pinned in `schema/manifest.toml`:
//! a preview of the next revision, not a protocol version, never served.
//! Its types that equal those of the newest revision of its era (now
//! [`v2026_07_28`]) are re-exported from there (the same Rust types); only
//! the differing ones are its own.
//!
//! [`ext`] holds the types of MCP extensions, generated from their own
//! official schemas where published ([`ext::tasks`]).
//!
//! Every generated type keeps the exact JSON it was read from: unions are
//! dispatched on their discriminator (never tried in turn), `const` fields
//! are checked on input and always written, optional fields that were present
//! stay present, numbers keep their JSON form, and keys the schema does not
//! name are kept in `extra` and written back.
//!
//! ```
//! use mcp_era_types::v2026_07_28::{ClientRequest, methods};
//!
//! let request: ClientRequest = serde_json::from_str(
//!     r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{
//!         "io.modelcontextprotocol/protocolVersion":"2026-07-28",
//!         "io.modelcontextprotocol/clientCapabilities":{}}}}"#,
//! )?;
//! assert_eq!(request.method(), methods::SERVER_DISCOVER);
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! Tools that validate a message by its schema type name use
//! `v2026_07_28::roundtrip_named` (feature `named`, on by default): it
//! deserializes a `serde_json::Value` into the type with that `$defs` name
//! and serializes it back. Crates that only use the types should turn the
//! feature off (`default-features = false`): it instantiates every type's
//! serde impls and is most of this crate's compile time.

#![deny(missing_docs)]

extern crate self as mcp_era_types;

mod construct;
#[cfg(feature = "named")]
mod error;
pub mod ext;
pub mod headers;
mod helpers;
pub mod inspect;
pub mod json;
#[cfg(feature = "named")]
mod named;
mod runtime;
mod struct_macro;

pub use construct::{CacheHints, CacheScopeValues, Unset};
#[cfg(feature = "named")]
pub use error::NamedError;
#[cfg(feature = "named")]
pub use named::NamedTypeFn;

/// Support for generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::__mcp_struct_serde as struct_serde;
    pub use crate::construct::{CacheHints, CacheScopeValues, Unset};
    pub use crate::inspect::{UnionChoice, Walk, walk_member};
    pub use crate::json::{Probe, ViaSerde, ViaWriteJson, WriteJson, write_serde};
    #[cfg(feature = "named")]
    pub use crate::named::*;
    pub use crate::runtime::*;
    pub use serde;
    pub use serde_json;
}

mod generated;
pub use generated::*;

/// Every known protocol version with its era (the `mcp-versions` crate).
pub use mcp_era_versions as versions;
