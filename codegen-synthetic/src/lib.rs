//! Holds only the synthetic schema update (`build.rs` generates it,
//! `tests/synthetic_update.rs` checks it); see this crate's Cargo.toml for
//! why it lives apart from `mcp-era-codegen`.
