//! What the codegen's tests share: where the official schemas are.

use std::path::{Path, PathBuf};

/// The official schemas (from `MCP_SCHEMA_DIR`, never copied), relative to
/// the workspace root as README and CI give it; `None` when unset.
pub fn schema_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("MCP_SCHEMA_DIR")?);
    Some(if dir.is_relative() {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir)
    } else {
        dir
    })
}
