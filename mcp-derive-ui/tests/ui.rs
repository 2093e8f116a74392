//! Compile-time diagnostics of `#[derive(McpServer)]` and of the generated
//! types' builders (`types_*.rs`): one UI test per diagnostic, with its
//! `.stderr` checked in (`TRYBUILD=overwrite` to bless).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
