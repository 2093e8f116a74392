//! Round-trips every official 2026-07-28 example through the type its folder
//! names, and checks which variant every union inside it chose against
//! `tests/expected/union-choices-2026-07-28.txt` (regenerate that file with
//! `MCP_SNAPSHOT_BLESS=1` and review the diff).
//!
//! The examples are read from `$MCP_SCHEMA_DIR/2026-07-28/examples`; a relative
//! `MCP_SCHEMA_DIR` is taken from the workspace root, as CI sets it.

#![allow(clippy::unwrap_used)] // a test may panic on broken fixtures

use std::path::{Path, PathBuf};

use mcp_era_types::v2026_07_28::{self as modern, roundtrip_named, union_choices_named};
use serde_json::Value;

const EXAMPLE_COUNT: usize = 129;

fn examples_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("MCP_SCHEMA_DIR")?);
    let dir = if dir.is_relative() {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir)
    } else {
        dir
    };
    Some(dir.join("2026-07-28/examples"))
}

/// Every example as (type name, file name, value), sorted.
fn examples() -> Option<Vec<(String, String, Value)>> {
    let Some(dir) = examples_dir() else {
        println!("MCP_SCHEMA_DIR is not set: the official example tests did NOT run");
        return None;
    };
    let mut out = Vec::new();
    for type_dir in std::fs::read_dir(&dir).expect("examples directory is readable") {
        let type_dir = type_dir.expect("directory entry").path();
        let type_name = type_dir.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&type_dir).expect("type directory is readable") {
            let file = file.expect("directory entry").path();
            let text = std::fs::read_to_string(&file).expect("example is readable");
            let value: Value = serde_json::from_str(&text).expect("example is JSON");
            let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
            out.push((type_name.clone(), file_name, value));
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    Some(out)
}

/// The one example that breaks a schema MUST: `ReadResourceResult` requires
/// `ttlMs` and `cacheScope` (caching hints are mandatory on `resources/read`),
/// and this example lacks both. We reject it, with a message that names the
/// first missing hint.
const LACKS_CACHE_HINTS: (&str, &str) = (
    "ReadResourceResultResponse",
    "read-resource-result-response.json",
);

#[test]
fn every_official_example_round_trips() {
    let Some(examples) = examples() else { return };
    assert_eq!(examples.len(), EXAMPLE_COUNT, "number of official examples");
    let mut passed = 0;
    let mut failures = Vec::new();
    for (type_name, file, value) in &examples {
        let result = roundtrip_named(type_name, value.clone());
        if (type_name.as_str(), file.as_str()) == LACKS_CACHE_HINTS {
            let error = result.expect_err("an example without cache hints must be rejected");
            let message = error.to_string();
            assert!(message.contains("missing field `cacheScope`"), "{message}");
            passed += 1;
            continue;
        }
        match result {
            Ok(back) if &back == value => passed += 1,
            Ok(back) => failures.push(format!(
                "{type_name}/{file}: changed on round-trip\n  in:  {value}\n  out: {back}"
            )),
            Err(e) => failures.push(format!("{type_name}/{file}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{passed}/{EXAMPLE_COUNT} official examples round-trip");
}

/// The `ListRootsRequest` example carries an `id`, which the schema does not
/// define (in 2026-07-28 roots requests travel inside `inputRequests` and have
/// no id). The type is open, so the key survives in `extra` rather than being
/// lost or rejected.
#[test]
fn list_roots_example_keeps_its_undeclared_id_in_extra() {
    let Some(examples) = examples() else { return };
    let (_, _, value) = examples
        .iter()
        .find(|(t, f, _)| t == "ListRootsRequest" && f == "list-roots-request.json")
        .expect("the ListRootsRequest example exists");
    let request: modern::ListRootsRequest = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(
        request.extra.get("id"),
        Some(&Value::from("list-roots-example"))
    );
}

#[test]
fn union_choices_match_the_reviewed_list() {
    let Some(examples) = examples() else { return };
    let mut lines = String::new();
    for (type_name, file, value) in &examples {
        if (type_name.as_str(), file.as_str()) == LACKS_CACHE_HINTS {
            continue;
        }
        let choices = union_choices_named(type_name, value.clone())
            .unwrap_or_else(|e| panic!("{type_name}/{file}: {e}"));
        for choice in choices {
            let path = if choice.path.is_empty() {
                "/"
            } else {
                &choice.path
            };
            lines.push_str(&format!(
                "{type_name}/{file} {path} {}::{}\n",
                choice.union, choice.variant
            ));
        }
    }
    let expected_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected/union-choices-2026-07-28.txt");
    if std::env::var("MCP_SNAPSHOT_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&expected_path, &lines).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    assert!(
        expected == lines,
        "union choices differ from {}; rerun with MCP_SNAPSHOT_BLESS=1 and review the diff",
        expected_path.display()
    );
}
