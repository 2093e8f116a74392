//! A schema update as a maintainer meets it (`build.rs` generates it from
//! the official 2026-07-28 schema in `MCP_SCHEMA_DIR`, never copied): the
//! new revision's source says what changed, builds here in the workspace,
//! and runs; the version tables show it has types but is not served. The
//! same build checks a delta module: a draft whose `Tool` alone changed.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

#[cfg(synthetic_update)]
include!(concat!(env!("OUT_DIR"), "/modules.rs"));

#[cfg(not(synthetic_update))]
#[test]
fn a_synthetic_revision_generates_compiles_and_is_not_served() {
    eprintln!(
        "MCP_SCHEMA_DIR was not set when this crate was built: the synthetic schema update did not run"
    );
}

#[cfg(synthetic_update)]
#[test]
fn a_synthetic_revision_generates_compiles_and_is_not_served() {
    use mcp_era_codegen::manifest::{Era, Manifest};
    use mcp_era_codegen::{EmitOptions, detect_era, generate_versions};
    use serde_json::Value;

    const NEW_VERSION: &str = "2026-12-01";
    let schema: Value =
        serde_json::from_str(include_str!(concat!(env!("OUT_DIR"), "/schema.json"))).unwrap();
    assert_eq!(detect_era(&schema), Some(Era::Modern));

    let source = include_str!(concat!(env!("OUT_DIR"), "/revision.rs"));
    for expected in [
        "pub struct DescribeToolRequest {",
        "DescribeToolRequest(DescribeToolRequest),",
        "pub const TOOLS_DESCRIBE: &str = \"tools/describe\";",
        "pub describe_url: Option<String>,",
        "    use ::mcp_era_types::__private::serde::{",
        "System,",
    ] {
        assert!(source.contains(expected), "missing {expected:?}");
    }
    assert!(!source.contains("pub struct CompleteRequest {"));
    assert!(
        !source.contains(" ::serde::"),
        "every serde path is rewritten"
    );
    let delta = include_str!(concat!(env!("OUT_DIR"), "/delta.rs"));
    assert!(delta.contains("pub use ::mcp_era_types::v2026_07_28::*;"));
    assert!(delta.contains("pub struct Tool {") && !delta.contains("pub struct Icon {"));

    // The generated code at work: what the update added, what it removed.
    use delta::draft;
    use revision::v2026_12_01::*;
    let meta = serde_json::json!({"io.modelcontextprotocol/protocolVersion": "2026-12-01",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let describe = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/describe",
        "params": {"_meta": meta}});
    let request: ClientRequest = serde_json::from_value(describe.clone()).unwrap();
    assert!(matches!(request, ClientRequest::DescribeToolRequest(_)));
    assert_eq!(request.method(), methods::TOOLS_DESCRIBE);
    assert_eq!(serde_json::to_value(&request).unwrap(), describe);

    let removed = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "completion/complete",
        "params": {"_meta": meta}});
    let error = serde_json::from_value::<ClientRequest>(removed).unwrap_err();
    assert!(error.to_string().contains("completion/complete"), "{error}");

    let tool =
        Tool::new(ToolInputSchema::new(), "echo").with_describe_url("https://example.com/echo");
    assert_eq!(
        serde_json::to_value(&tool).unwrap()["describeUrl"],
        "https://example.com/echo"
    );
    assert_eq!(serde_json::to_value(Role::System).unwrap(), "system");
    assert_eq!(VERSION, "2026-12-01");

    // The delta: `Tool` and the types holding it are its own, the rest
    // are 2026-07-28's very types.
    use mcp_era_types::v2026_07_28 as base;
    let tool = draft::Tool::new(draft::ToolInputSchema::new(), "echo").with_describe_url("u");
    let list = draft::ListToolsResult::new(vec![tool], draft::CacheHints::public(1));
    assert_eq!(
        serde_json::to_value(&list).unwrap()["tools"][0]["describeUrl"],
        "u"
    );
    let _: base::Icon = draft::Icon::new("https://example.com/icon.png");
    let _: base::ToolInputSchema = draft::ToolInputSchema::new();
    let _: base::CacheHints = draft::CacheHints::NONE;
    let _: draft::prelude::Tool = draft::Tool::new(draft::ToolInputSchema::new(), "e");
    assert_eq!(draft::VERSION, "draft");
    assert_eq!(draft::methods::TOOLS_LIST, base::methods::TOOLS_LIST);

    // The version tables of the updated manifest: the new revision has types…
    let manifest_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../schema/manifest.toml");
    let manifest_text = std::fs::read_to_string(manifest_path).unwrap();
    let entry = format!(
        "[[revision]]\nversion = \"{NEW_VERSION}\"\nera = \"modern\"\ngenerate = true\n\
         url = \"https://example.com/b0f60ba5409db7a6582440a7b473cc0398890f15/schema.json\"\n\
         sha256 = \"{}\"\n\n",
        mcp_era_codegen::manifest::sha256_hex(serde_json::to_string(&schema).unwrap().as_bytes())
    );
    let manifest_text = manifest_text.replacen("[[revision]]", &format!("{entry}[[revision]]"), 1);
    let manifest = Manifest::parse(&manifest_text).unwrap();
    let versions = generate_versions(&manifest, &EmitOptions::default()).unwrap();
    let generated = &versions[versions.find("GENERATED_VERSIONS").unwrap()..];
    assert!(generated.contains(NEW_VERSION), "{versions}");

    // …but the runtime list, from which servers take their default
    // `versions(modern)` and which bounds every `versions(...)`, is written
    // by hand and does not move: no server advertises 2026-12-01.
    use mcp_era_types::versions::{IMPLEMENTED_MODERN_VERSIONS, is_implemented};
    assert!(!is_implemented(NEW_VERSION));
    assert_eq!(IMPLEMENTED_MODERN_VERSIONS, ["2026-07-28"]);
}
