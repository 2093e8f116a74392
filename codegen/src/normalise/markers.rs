//! The keys the normalisation adds to a schema for the IR to read.

/// Marker key for schemas that map to a serde_json type.
pub const BUILTIN_KEY: &str = "x-rust-builtin";
/// Marker key for a schema that also allows `null` (see `split-type-lists`).
pub const NULLABLE_KEY: &str = "x-nullable";
/// Marker key for a const that may be absent on input (see `result-type-consts`).
pub const ABSENT_ALLOWED_KEY: &str = "x-absent-allowed";
