//! Snapshot tests of the generator on small fixture schemas (`tests/schemas`):
//! the generated code is compared with `tests/snapshots/<name>.rs`
//! (regenerate with `MCP_SNAPSHOT_BLESS=1` and review the diff), and every
//! snapshot is compiled and run as a program, so a snapshot that does not
//! build fails the test.

#![allow(clippy::unwrap_used)] // a test may panic on broken fixtures

use std::path::Path;

use mcp_era_codegen::manifest::Era;
use mcp_era_codegen::{EmitOptions, generate_revision};

fn generate(schema_file: &Path) -> String {
    let text = std::fs::read_to_string(schema_file).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let options = EmitOptions::default()
        .command("cargo test -p mcp-era-codegen --test snapshots")
        .runtime("::mcp_era_types::__private")
        .named_feature(None);
    let module = generate_revision(&schema, Era::Modern, "test", &options).unwrap();
    format!("{module}\nfn main() {{}}\n")
}

#[test]
fn snapshots_match_and_compile() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut schemas: Vec<_> = std::fs::read_dir(root.join("schemas"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    schemas.sort();
    assert!(!schemas.is_empty());
    let cases = trybuild::TestCases::new();
    for schema in &schemas {
        let name = schema.file_stem().unwrap().to_string_lossy();
        let snapshot = root.join("snapshots").join(format!("{name}.rs"));
        let generated = generate(schema);
        if std::env::var("MCP_SNAPSHOT_BLESS").is_ok_and(|v| v == "1") {
            std::fs::write(&snapshot, &generated).unwrap();
        } else {
            let expected = std::fs::read_to_string(&snapshot).unwrap_or_default();
            assert!(
                expected == generated,
                "{} is stale; rerun with MCP_SNAPSHOT_BLESS=1 and review the diff",
                snapshot.display()
            );
        }
        cases.pass(&snapshot);
    }
}

#[test]
fn generation_is_deterministic() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemas/edge-shapes.json");
    assert_eq!(generate(&schema), generate(&schema));
}
