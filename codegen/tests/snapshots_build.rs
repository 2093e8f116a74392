//! Compiles the generator's fixture snapshots in the workspace's own build
//! (no nested cargo project): `tests/snapshots.rs` keeps them equal to what
//! the generator writes today. The typed-client snapshot is compiled by
//! `mcp-everything-client/tests/one_tool.rs`, which has the client runtime.

/// The fixture schemas' types (`tests/snapshots.rs` lists the same names).
#[allow(unused)] // a fixture declares and imports more than anything uses
#[rustfmt::skip] // generated text: compared byte for byte
#[path = "snapshots/edge-shapes.rs"]
mod edge_shapes;
