//! The draft as a delta (`generate_delta`): the official 2026-07-28 schema
//! (read from `MCP_SCHEMA_DIR` at test time, never copied) as its own
//! draft, and with one changed definition, one with a removed one. The
//! generated text is checked: what is generated locally, what is
//! re-exported, and that the module's public names are the full module's.
//! `mcp-codegen-synthetic` compiles a delta module.

#![allow(clippy::unwrap_used)] // a test may panic on broken fixtures

mod common;

use std::collections::BTreeSet;

use common::schema_dir;

use mcp_era_codegen::manifest::Era;
use mcp_era_codegen::{DeltaBase, EmitOptions, generate_delta, generate_revision};
use serde_json::{Value, json};

const BASE_MODULE: &str = "super::v2026_07_28";

fn base_schema() -> Option<Value> {
    let Some(dir) = schema_dir() else {
        eprintln!("MCP_SCHEMA_DIR is not set: the delta tests did not run");
        return None;
    };
    let text = std::fs::read_to_string(dir.join("2026-07-28/schema.json")).unwrap();
    Some(serde_json::from_str(&text).unwrap())
}

fn delta(schema: &Value, base: &Value) -> String {
    let base = DeltaBase {
        version: "2026-07-28",
        schema: base,
        module: BASE_MODULE,
    };
    generate_delta(schema, Era::Modern, "draft", &base, &EmitOptions::default()).unwrap()
}

/// The public names a module file defines or re-exports by name, and
/// whether it glob-imports its base.
fn names(source: &str) -> (BTreeSet<String>, bool) {
    fn use_names(tree: &syn::UseTree, out: &mut BTreeSet<String>, glob: &mut bool) {
        match tree {
            syn::UseTree::Path(p) => use_names(&p.tree, out, glob),
            syn::UseTree::Name(n) => drop(out.insert(n.ident.to_string())),
            syn::UseTree::Rename(r) => drop(out.insert(r.rename.to_string())),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_names(t, out, glob)),
            syn::UseTree::Glob(_) => *glob = true,
        }
    }
    let file = syn::parse_file(source).unwrap();
    let (mut out, mut glob) = (BTreeSet::new(), false);
    for item in &file.items {
        let public = |vis: &syn::Visibility| matches!(vis, syn::Visibility::Public(_));
        let ident = match item {
            syn::Item::Const(i) if public(&i.vis) => &i.ident,
            syn::Item::Enum(i) if public(&i.vis) => &i.ident,
            syn::Item::Fn(i) if public(&i.vis) => &i.sig.ident,
            syn::Item::Mod(i) if public(&i.vis) => &i.ident,
            syn::Item::Struct(i) if public(&i.vis) => &i.ident,
            syn::Item::Type(i) if public(&i.vis) => &i.ident,
            syn::Item::Use(u) if public(&u.vis) => {
                use_names(&u.tree, &mut out, &mut glob);
                continue;
            }
            _ => continue,
        };
        out.insert(ident.to_string());
    }
    (out, glob)
}

/// The names `draft::…` resolves in the delta module must be those of the
/// full module: local items, and the base's through the re-export.
fn assert_same_names(delta: &str, schema: &Value, base: &Value) {
    let options = EmitOptions::default();
    let full = generate_revision(schema, Era::Modern, "draft", &options).unwrap();
    let base_full = generate_revision(base, Era::Modern, "2026-07-28", &options).unwrap();
    let (mut resolved, glob) = names(delta);
    if glob {
        resolved.extend(names(&base_full).0);
    }
    assert_eq!(resolved, names(&full).0);
}

#[test]
fn an_identical_draft_is_the_reexport_and_its_version() {
    let Some(base) = base_schema() else { return };
    let source = delta(&base, &base);
    assert!(
        source.contains("pub use super::v2026_07_28::*;"),
        "{source}"
    );
    assert!(source.contains("pub const VERSION: &str = \"draft\";"));
    assert!(source.contains("equal those of MCP 2026-07-28"));
    // Nothing else but the two lookups whose errors name `VERSION`.
    let (local, _) = names(&source);
    let expected = ["VERSION", "roundtrip_named", "union_choices_named"];
    assert_eq!(local, expected.map(str::to_owned).into());
    for absent in [
        "pub struct",
        "pub enum",
        "pub type",
        "pub mod",
        "TYPE_NAMES",
    ] {
        assert!(!source.contains(absent), "{absent} in {source}");
    }
    assert!(source.lines().count() < 60, "{source}");
    assert_same_names(&source, &base, &base);
}

#[test]
fn a_changed_definition_is_generated_with_its_dependents() {
    let Some(base) = base_schema() else { return };
    let mut schema = base.clone();
    schema["$defs"]["ToolAnnotations"]["properties"]
        .as_object_mut()
        .unwrap()
        .insert("costHint".into(), json!({"type": "string"}));
    let source = delta(&schema, &base);
    assert!(
        source.contains("pub use super::v2026_07_28::*;"),
        "{source}"
    );
    assert!(source.contains("the definitions that differ from it (`ToolAnnotations`)"));
    // The change, its dependents (directly and not), and the tables that
    // name types.
    for local in [
        "pub struct ToolAnnotations {",
        "pub cost_hint: Option<String>,",
        "pub struct Tool {",
        "pub struct ListToolsResult {",
        "pub struct CreateMessageRequestParams {",
        "pub enum ServerResult {",
        "pub fn with_named_type<",
        "pub mod prelude {",
        "pub const VERSION: &str = \"draft\";",
    ] {
        assert!(source.contains(local), "{local} is not generated");
    }
    // Unrelated types and unchanged tables come from the base.
    for reexported in [
        "pub struct Annotations {",
        "pub enum Role {",
        "pub struct ListPromptsResult {",
        "pub type CacheHints",
        "pub mod methods {",
        "pub mod meta_keys {",
        "pub const TYPE_NAMES",
    ] {
        assert!(!source.contains(reexported), "{reexported} is generated");
    }
    assert_same_names(&source, &schema, &base);
}

#[test]
fn a_removed_definition_is_not_reexported() {
    let Some(base) = base_schema() else { return };
    let mut schema = base.clone();
    let defs = schema["$defs"].as_object_mut().unwrap();
    assert!(defs.remove("CompleteRequest").is_some());
    let members = defs["ClientRequest"]["anyOf"].as_array_mut().unwrap();
    members.retain(|m| m["$ref"] != "#/$defs/CompleteRequest");
    let source = delta(&schema, &base);
    // A glob would make `draft::CompleteRequest` the base's.
    assert!(!source.contains("v2026_07_28::*"), "{source}");
    let (names_here, glob) = names(&source);
    assert!(!glob);
    assert!(!names_here.contains("CompleteRequest"));
    assert!(names_here.contains("CompleteResult") && names_here.contains("ClientRequest"));
    assert!(source.contains("pub enum ClientRequest {"));
    assert!(source.contains("(`ClientRequest`; gone: `CompleteRequest`)"));
    assert!(source.contains("pub const TYPE_NAMES"));
    assert_same_names(&source, &schema, &base);
}

#[test]
fn a_base_of_another_era_is_refused() {
    let Some(draft) = base_schema() else { return };
    let text = std::fs::read_to_string(schema_dir().unwrap().join("2025-11-25/schema.json"));
    let legacy: Value = serde_json::from_str(&text.unwrap()).unwrap();
    let base = DeltaBase {
        version: "2025-11-25",
        schema: &legacy,
        module: "super::v2025_11_25",
    };
    let error = generate_delta(&draft, Era::Modern, "draft", &base, &EmitOptions::default());
    let error = error.unwrap_err().to_string();
    assert!(error.contains("not of the modern era"), "{error}");
}
