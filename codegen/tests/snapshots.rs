//! Snapshot tests of the generator on small fixture schemas (`tests/schemas`):
//! the generated code is compared with `tests/snapshots/<name>.rs`
//! (regenerate with `MCP_SNAPSHOT_BLESS=1` and review the diff), and
//! `tests/snapshots_build.rs` compiles every snapshot, so one that does not
//! build fails `cargo test`.

#![allow(clippy::unwrap_used)] // a test may panic on broken fixtures

mod common;

use std::path::Path;

use mcp_era_codegen::manifest::Era;
use mcp_era_codegen::{EmitOptions, generate_revision};

/// The snapshots `tests/snapshots_build.rs` declares as modules: a new
/// fixture schema needs its line there too.
const COMPILED: &[&str] = &["edge-shapes"];

fn generate(schema_file: &Path) -> String {
    let text = std::fs::read_to_string(schema_file).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let options = EmitOptions::default()
        .command("cargo test -p mcp-era-codegen --test snapshots")
        .runtime("::mcp_era_types::__private")
        .named_feature(None);
    generate_revision(&schema, Era::Modern, "test", &options).unwrap()
}

#[test]
fn snapshots_match_and_are_compiled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut schemas: Vec<_> = std::fs::read_dir(root.join("schemas"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    schemas.sort();
    let names: Vec<String> = schemas
        .iter()
        .map(|s| s.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names, COMPILED,
        "tests/snapshots_build.rs compiles each snapshot"
    );
    for (schema, name) in schemas.iter().zip(&names) {
        common::assert_snapshot(&format!("{name}.rs"), &generate(schema));
    }
}

#[test]
fn generation_is_deterministic() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemas/edge-shapes.json");
    assert_eq!(generate(&schema), generate(&schema));
}
