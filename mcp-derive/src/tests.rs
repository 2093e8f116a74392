//! Expansion snapshots: each `tests/expand/<name>.rs` (one derive input,
//! or for `router_*` files one `impl` block for the router macro) is
//! expanded by [`crate::expand::derive`] or [`crate::router::router`], formatted with prettyplease and
//! compared with `tests/expand/<name>.expanded.rs`. Run with
//! `MCP_SNAPSHOT_BLESS=1` to rewrite the snapshots after an intended change.
#![allow(
    clippy::unwrap_used,
    reason = "test code: a panic is the failure report"
)]

use std::fs;
use std::path::Path;

/// A derive input, or (files named `router_*`) an `impl` block given to
/// the router macro.
fn expand_source(source: &str, router: bool) -> String {
    let tokens = if router {
        let item: syn::ItemImpl = syn::parse_str(source).unwrap();
        crate::router::router(proc_macro2::TokenStream::new(), item, crate::server_path())
    } else {
        let input: syn::DeriveInput = syn::parse_str(source).unwrap();
        crate::expand::derive(&input, crate::server_path())
    };
    let file: syn::File = syn::parse2(tokens).unwrap();
    prettyplease::unparse(&file)
}

#[test]
fn expansion_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let bless = std::env::var("MCP_SNAPSHOT_BLESS").is_ok_and(|v| v == "1");
    let mut inputs: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "rs")
                && !p.to_string_lossy().ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty());
    let mut mismatched = Vec::new();
    for input in inputs {
        let expected_path = input.with_extension("expanded.rs");
        let router = input
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("router_"));
        let actual = expand_source(&fs::read_to_string(&input).unwrap(), router);
        if bless {
            fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            eprintln!("--- {} differs; actual:\n{actual}", expected_path.display());
            mismatched.push(expected_path);
        }
    }
    assert!(
        mismatched.is_empty(),
        "snapshots differ (rerun with MCP_SNAPSHOT_BLESS=1 if intended): {mismatched:?}"
    );
}
