//! A schema update as a maintainer meets it: the official 2026-07-28 schema
//! (read from `MCP_SCHEMA_DIR` at test time, never copied) with one new
//! optional property on `Tool`, one new `Role` value, one new request method
//! in `ClientRequest` and one type removed, generated as a new modern
//! revision `2026-12-01`. The output is compiled and run in a temporary
//! crate (trybuild, offline, the workspace's lockfile), and the version
//! tables show it has types but is not served. The same compile checks a
//! delta module (`generate_delta`): a draft whose `Tool` alone changed.

#![allow(clippy::unwrap_used)] // a test may panic on broken fixtures

mod common;

use std::path::Path;

use common::schema_dir;

use mcp_era_codegen::manifest::{Era, Manifest};
use mcp_era_codegen::{
    DeltaBase, EmitOptions, detect_era, generate_delta, generate_revision, generate_versions,
};
use serde_json::{Value, json};

const NEW_VERSION: &str = "2026-12-01";

/// The synthetic update, applied to a parsed 2026-07-28 schema.
fn update(schema: &mut Value) {
    let defs = schema["$defs"].as_object_mut().unwrap();
    defs["Tool"]["properties"].as_object_mut().unwrap().insert(
        "describeUrl".into(),
        json!({"type": "string", "description": "Where a longer description of the tool lives."}),
    );
    defs["Role"]["enum"]
        .as_array_mut()
        .unwrap()
        .push(json!("system"));
    let mut describe = defs["ListToolsRequest"].clone();
    describe["description"] = json!("Sent from the client to get a tool's long description.");
    describe["properties"]["method"]["const"] = json!("tools/describe");
    defs.insert("DescribeToolRequest".into(), describe);
    // Removed: the type and the one reference to it.
    assert!(defs.remove("CompleteRequest").is_some());
    let members = defs["ClientRequest"]["anyOf"].as_array_mut().unwrap();
    members.retain(|m| m["$ref"] != "#/$defs/CompleteRequest");
    members.push(json!({"$ref": "#/$defs/DescribeToolRequest"}));
}

/// A program that uses what the update added and checks what it removed.
const MAIN: &str = r#"
use v2026_12_01::*;

fn main() {
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

    let tool = Tool::new(ToolInputSchema::new(), "echo").with_describe_url("https://example.com/echo");
    assert_eq!(serde_json::to_value(&tool).unwrap()["describeUrl"], "https://example.com/echo");
    assert_eq!(serde_json::to_value(Role::System).unwrap(), "system");
    assert_eq!(VERSION, "2026-12-01");

    // The delta: `Tool` and the types holding it are its own, the rest
    // are 2026-07-28's very types.
    use mcp_era_types::v2026_07_28 as base;
    let tool = draft::Tool::new(draft::ToolInputSchema::new(), "echo").with_describe_url("u");
    let list = draft::ListToolsResult::new(vec![tool], draft::CacheHints::public(1));
    assert_eq!(serde_json::to_value(&list).unwrap()["tools"][0]["describeUrl"], "u");
    let _: base::Icon = draft::Icon::new("https://example.com/icon.png");
    let _: base::ToolInputSchema = draft::ToolInputSchema::new();
    let _: base::CacheHints = draft::CacheHints::NONE;
    let _: draft::prelude::Tool = draft::Tool::new(draft::ToolInputSchema::new(), "e");
    assert_eq!(draft::VERSION, "draft");
    assert_eq!(draft::methods::TOOLS_LIST, base::methods::TOOLS_LIST);
}
"#;

#[test]
fn a_synthetic_revision_generates_compiles_and_is_not_served() {
    let Some(dir) = schema_dir() else {
        eprintln!("MCP_SCHEMA_DIR is not set: the synthetic schema update did not run");
        return;
    };
    let text = std::fs::read_to_string(dir.join("2026-07-28/schema.json")).unwrap();
    let mut schema: Value = serde_json::from_str(&text).unwrap();
    update(&mut schema);
    assert_eq!(detect_era(&schema), Some(Era::Modern));

    // Non-default options, as another SDK would set them: a wrapping
    // module and serde reached through a re-export.
    let options = EmitOptions::default()
        .command("cargo test -p mcp-era-codegen --test synthetic_update")
        .named_feature(None)
        .module("v2026_12_01")
        .serde_path("::mcp_era_types::__private::serde");
    let source = generate_revision(&schema, Era::Modern, NEW_VERSION, &options).unwrap();
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

    // A draft with one changed definition, as a delta of 2026-07-28.
    let base: Value = serde_json::from_str(&text).unwrap();
    let mut draft = base.clone();
    draft["$defs"]["Tool"] = schema["$defs"]["Tool"].clone();
    let base = DeltaBase {
        version: "2026-07-28",
        schema: &base,
        module: "::mcp_era_types::v2026_07_28",
    };
    let delta = generate_delta(
        &draft,
        Era::Modern,
        "draft",
        &base,
        &options.clone().module("draft"),
    )
    .unwrap();
    assert!(delta.contains("pub use ::mcp_era_types::v2026_07_28::*;"));
    assert!(delta.contains("pub struct Tool {") && !delta.contains("pub struct Icon {"));

    // The temporary crate: trybuild builds and runs it against mcp-types,
    // serde and serde_json as locked by the workspace.
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("synthetic_2026_12_01.rs");
    std::fs::write(&file, format!("{source}{delta}{MAIN}")).unwrap();
    trybuild::TestCases::new().pass(&file);

    // The version tables of the updated manifest: the new revision has types…
    let manifest_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/manifest.toml");
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
