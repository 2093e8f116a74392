//! Generates a synthetic revision `2026-12-01` from the official 2026-07-28
//! schema (`MCP_SCHEMA_DIR`) with one optional property on `Tool`, one new
//! `Role` value, one new request method in `ClientRequest` and one type
//! removed; and a delta module `draft` whose `Tool` alone changed. Without
//! `MCP_SCHEMA_DIR` nothing is generated and the test says it did not run.

use std::path::{Path, PathBuf};

use mcp_era_codegen::manifest::Era;
use mcp_era_codegen::{DeltaBase, EmitOptions, generate_delta, generate_revision};
use serde_json::{Value, json};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(synthetic_update)");
    println!("cargo::rerun-if-env-changed=MCP_SCHEMA_DIR");
    let Some(dir) = std::env::var_os("MCP_SCHEMA_DIR") else {
        return;
    };
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    // Relative to the workspace root, as the README and CI give it.
    let dir = manifest_dir.join("..").join(dir);
    let schema_file = dir.join("2026-07-28/schema.json");
    println!("cargo::rerun-if-changed={}", schema_file.display());
    let text = std::fs::read_to_string(&schema_file)
        .unwrap_or_else(|e| panic!("reading {}: {e}", schema_file.display()));
    let base: Value = serde_json::from_str(&text).expect("the 2026-07-28 schema is JSON");
    let mut schema = base.clone();
    update(&mut schema);

    // Non-default options, as another SDK would set them: a wrapping
    // module and serde reached through a re-export.
    let options = EmitOptions::default()
        .command("cargo test -p mcp-codegen-synthetic")
        .named_feature(None)
        .module("v2026_12_01")
        .serde_path("::mcp_era_types::__private::serde");
    let revision = generate_revision(&schema, Era::Modern, "2026-12-01", &options)
        .unwrap_or_else(|e| panic!("generating the synthetic revision: {e}"));

    // A draft with one changed definition, as a delta of 2026-07-28.
    let mut draft = base.clone();
    draft["$defs"]["Tool"] = schema["$defs"]["Tool"].clone();
    let delta_base = DeltaBase {
        version: "2026-07-28",
        schema: &base,
        module: "::mcp_era_types::v2026_07_28",
    };
    let delta = generate_delta(
        &draft,
        Era::Modern,
        "draft",
        &delta_base,
        &options.module("draft"),
    )
    .unwrap_or_else(|e| panic!("generating the delta: {e}"));

    let out = PathBuf::from(env("OUT_DIR"));
    write(&out.join("schema.json"), &schema.to_string());
    write(&out.join("revision.rs"), &revision);
    write(&out.join("delta.rs"), &delta);
    // `include!` takes no inner doc comments; modules by path do. A revision
    // declares more than one test uses, and its enums are named after the
    // schema's, which clippy lets pass only in a crate's public API.
    let allow = "#[allow(unused, clippy::enum_variant_names)]";
    let modules = format!(
        "{allow}\n#[path = {:?}]\nmod revision;\n{allow}\n#[path = {:?}]\nmod delta;\n",
        out.join("revision.rs").display().to_string(),
        out.join("delta.rs").display().to_string(),
    );
    write(&out.join("modules.rs"), &modules);
    println!("cargo::rustc-cfg=synthetic_update");
}

/// The synthetic update, applied to a parsed 2026-07-28 schema.
fn update(schema: &mut Value) {
    let defs = schema["$defs"].as_object_mut().expect("$defs");
    defs["Tool"]["properties"]
        .as_object_mut()
        .expect("Tool's properties")
        .insert(
            "describeUrl".into(),
            json!({"type": "string", "description": "Where a longer description of the tool lives."}),
        );
    defs["Role"]["enum"]
        .as_array_mut()
        .expect("Role's enum")
        .push(json!("system"));
    let mut describe = defs["ListToolsRequest"].clone();
    describe["description"] = json!("Sent from the client to get a tool's long description.");
    describe["properties"]["method"]["const"] = json!("tools/describe");
    defs.insert("DescribeToolRequest".into(), describe);
    // Removed: the type and the one reference to it.
    assert!(
        defs.remove("CompleteRequest").is_some(),
        "2026-07-28 has CompleteRequest"
    );
    let members = defs["ClientRequest"]["anyOf"]
        .as_array_mut()
        .expect("ClientRequest's anyOf");
    members.retain(|m| m["$ref"] != "#/$defs/CompleteRequest");
    members.push(json!({"$ref": "#/$defs/DescribeToolRequest"}));
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name}"))
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}
