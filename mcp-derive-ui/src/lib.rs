//! Holds only the UI tests of `#[derive(McpServer)]` and `#[router]`
//! (`tests/ui.rs`); see this crate's Cargo.toml for why they live apart.
