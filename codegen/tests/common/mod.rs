//! What the codegen's tests share: where the official schemas are, and how
//! a snapshot is compared or blessed.

#![allow(dead_code)] // each test crate uses part of it

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

/// Compares `generated` with the snapshot `tests/snapshots/<file>`, or
/// writes it there when `MCP_SNAPSHOT_BLESS=1` (review the diff after).
/// The workspace's own build compiles every snapshot (`tests/snapshots_build.rs`,
/// `mcp-everything-client/tests/one_tool.rs`), so one that does not build
/// fails `cargo test`.
pub fn assert_snapshot(file: &str, generated: &str) {
    let snapshot = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(file);
    if std::env::var("MCP_SNAPSHOT_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&snapshot, generated).expect("the snapshot is written");
    } else {
        let expected = std::fs::read_to_string(&snapshot).unwrap_or_default();
        assert!(
            expected == generated,
            "{} is stale; rerun with MCP_SNAPSHOT_BLESS=1 and review the diff",
            snapshot.display()
        );
    }
}
