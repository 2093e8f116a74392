//! The schema diff on small synthetic schema pairs: each kind of change, its
//! verdict, and the lines of the Markdown a maintainer reads.

#![allow(clippy::unwrap_used)] // a test may panic on broken fixtures

use mcp_era_codegen::diff::{ChangeKind, FieldInfo, SchemaDiff, TypeShape, diff_schemas};
use serde_json::{Value, json};

/// The old side: a request, a struct, an enum, a union and a type that
/// the new side drops.
fn base() -> Value {
    json!({"$defs": {
        "PingRequest": {"type": "object", "required": ["method"], "properties": {
            "method": {"const": "ping"}}},
        "CallRequest": {"type": "object", "required": ["method", "params"], "properties": {
            "method": {"const": "tools/call"},
            "params": {"type": "object", "additionalProperties": true}}},
        "Tool": {"type": "object", "required": ["name", "title"], "properties": {
            "name": {"type": "string"},
            "title": {"type": "string"},
            "size": {"type": "integer"}}},
        "Role": {"type": "string", "enum": ["assistant", "user"]},
        "Content": {"anyOf": [{"$ref": "#/$defs/Tool"}, {"type": "string"}]},
        "Gone": {"type": "object", "properties": {"a": {"type": "string"}}},
        "Meta": {"type": "object", "additionalProperties": true}
    }})
}

fn with(edit: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Value {
    let mut schema = base();
    edit(schema["$defs"].as_object_mut().unwrap());
    schema
}

fn diff(new: &Value) -> SchemaDiff {
    diff_schemas(&base(), "old", new, "new").unwrap()
}

/// A field as (JSON name, Rust type, required); Rust names equal JSON
/// names in these schemas.
fn key(f: &FieldInfo) -> (&str, &str, bool) {
    assert_eq!(f.rust_name, f.json_name);
    (f.json_name.as_str(), f.rust_type.as_str(), f.required)
}

#[test]
fn identical_schemas_have_no_changes() {
    let d = diff(&base());
    assert!(d.is_empty());
    assert_eq!(d.breaking_count(), 0);
    assert!(
        d.to_markdown()
            .contains("No change of the generated Rust API")
    );
}

#[test]
fn added_fields_break_struct_literals_and_required_ones_the_wire_too() {
    let new = with(|defs| {
        let props = defs["Tool"]["properties"].as_object_mut().unwrap();
        props.insert("icon".into(), json!({"type": "string"}));
        props.insert("kind".into(), json!({"type": "string"}));
        defs["Tool"]["required"]
            .as_array_mut()
            .unwrap()
            .push(json!("kind"));
    });
    let d = diff(&new);
    let changes: Vec<_> = d.changes_of("Tool").collect();
    assert_eq!(changes.len(), 2, "{changes:#?}");
    assert!(
        matches!(&changes[0].kind, ChangeKind::FieldAdded(f) if key(f) == ("icon", "Option<String>", false))
    );
    assert!(changes[0].breaking, "structs are not #[non_exhaustive]");
    assert!(changes[0].rust.starts_with("Struct literals"));
    assert!(
        changes[0]
            .wire
            .as_deref()
            .unwrap()
            .starts_with("compatible")
    );
    assert!(
        matches!(&changes[1].kind, ChangeKind::FieldAdded(f) if key(f) == ("kind", "String", true))
    );
    assert!(changes[1].breaking);
    let md = d.to_markdown();
    assert!(md.contains("| Fields added (required) | 1 | 1 |"), "{md}");
    assert!(md.contains("| Fields added (optional) | 1 | 1 |"), "{md}");
    assert!(
        md.contains(
            "### `Tool`\n\n- **breaking**: field `icon` added, optional: `Option<String>`."
        ),
        "{md}"
    );
}

#[test]
fn a_removed_method_is_breaking_and_an_added_one_is_not() {
    let new = with(|defs| {
        defs.remove("PingRequest");
        defs.insert(
            "DiscoverRequest".into(),
            json!({"type": "object", "required": ["method"], "properties": {
                "method": {"const": "server/discover"}}}),
        );
    });
    let d = diff(&new);
    let methods: Vec<(&str, bool, bool)> = d
        .methods
        .iter()
        .map(|m| (m.method.as_str(), m.added, m.breaking()))
        .collect();
    assert_eq!(
        methods,
        [("ping", false, true), ("server/discover", true, false)]
    );
    assert_eq!(d.methods[0].types, ["PingRequest"]);
    let md = d.to_markdown();
    assert!(md.contains("| Methods removed | 1 | 1 |"), "{md}");
    assert!(md.contains("| Methods added | 1 | 0 |"), "{md}");
    assert!(
        md.contains("- **breaking**: request `ping` removed (`PingRequest`)"),
        "{md}"
    );
    assert!(md.contains("- non-breaking: request `server/discover` added (`DiscoverRequest`)"));
}

#[test]
fn a_method_renamed_on_the_same_type_is_recognised() {
    let new = with(|defs| defs["PingRequest"]["properties"]["method"] = json!({"const": "pong"}));
    let d = diff(&new);
    assert_eq!(d.methods.len(), 2);
    assert_eq!(d.methods[1].method, "pong");
    assert_eq!(d.methods[1].renamed.as_deref(), Some("ping"));
    assert_eq!(d.methods[0].renamed.as_deref(), Some("pong"));
    let changes: Vec<_> = d.changes_of("PingRequest").collect();
    assert!(
        matches!(&changes[0].kind, ChangeKind::FieldTypeChanged { to, .. } if to.rust_type == "const \"pong\"")
    );
    assert!(d.to_markdown().contains("looks renamed from `ping`"));
}

#[test]
fn required_to_optional_is_breaking_in_rust_though_compatible_json() {
    let new = with(|defs| defs["Tool"]["required"] = json!(["name"]));
    let d = diff(&new);
    let change = d.changes_of("Tool").next().unwrap();
    let ChangeKind::RequiredToOptional { from, to } = &change.kind else {
        panic!("{change:?}");
    };
    assert_eq!(key(from), ("title", "String", true));
    assert_eq!(key(to), ("title", "Option<String>", false));
    assert!(change.breaking);
    assert!(change.rust.contains("`Option<T>`"));
    assert!(change.wire.as_deref().unwrap().contains("new peers accept"));
    let md = d.to_markdown();
    assert!(
        md.contains("| Fields required → optional | 1 | 1 |"),
        "{md}"
    );
    assert!(md.contains("field `title` required → optional: `String` → `Option<String>`"));
}

#[test]
fn an_enum_value_added_breaks_exhaustive_matches() {
    let new = with(|defs| defs["Role"]["enum"] = json!(["assistant", "system", "user"]));
    let d = diff(&new);
    let change = d.changes_of("Role").next().unwrap();
    assert_eq!(change.kind, ChangeKind::EnumValueAdded("system".into()));
    assert!(change.breaking);
    assert!(change.rust.contains("exhaustive `match`es"));
    let md = d.to_markdown();
    assert!(md.contains("| Enum values added | 1 | 1 |"), "{md}");
    assert!(
        md.contains("- **breaking**: value `\"system\"` added."),
        "{md}"
    );
}

#[test]
fn a_removed_type_is_listed_once_without_its_fields() {
    let new = with(|defs| {
        defs.remove("Gone");
    });
    let d = diff(&new);
    assert_eq!(d.changes.len(), 1);
    assert_eq!(
        d.changes[0].kind,
        ChangeKind::TypeRemoved {
            shape: TypeShape::Struct,
            inline: vec![]
        }
    );
    assert!(d.changes[0].breaking);
    let md = d.to_markdown();
    assert!(
        md.contains("## Types removed\n\n**breaking**: Code naming the type"),
        "{md}"
    );
    assert!(md.contains("- `Gone` (struct)"));
    assert!(!md.contains("field `a`"), "{md}");
}

#[test]
fn a_field_type_change_and_a_union_variant_change() {
    let new = with(|defs| {
        defs["Tool"]["properties"]["size"] = json!({"type": "number"});
        defs["Content"]["anyOf"] = json!([{"$ref": "#/$defs/Tool"}, {"type": "boolean"}]);
    });
    let d = diff(&new);
    let tool: Vec<_> = d.changes_of("Tool").map(|c| &c.kind).collect();
    let [ChangeKind::FieldTypeChanged { from, to }] = tool.as_slice() else {
        panic!("{tool:?}");
    };
    assert_eq!(key(from), ("size", "Option<i64>", false));
    assert_eq!(key(to), ("size", "Option<serde_json::Number>", false));
    let content: Vec<_> = d.changes_of("Content").map(|c| &c.kind).collect();
    assert_eq!(
        content,
        [
            &ChangeKind::VariantRemoved {
                name: "String".into(),
                rust_type: "String".into()
            },
            &ChangeKind::VariantAdded {
                name: "Boolean".into(),
                rust_type: "bool".into()
            },
        ]
    );
    assert_eq!(d.breaking_count(), 3);
    let md = d.to_markdown();
    assert!(md.contains("field `size` changed type: `Option<i64>` → `Option<serde_json::Number>`"));
    assert!(md.contains("| **Total** | **3** | **3** |"), "{md}");
}

#[test]
fn an_alias_for_the_same_rust_type_is_no_change() {
    // `Meta` stands for `serde_json::Map`: naming it instead changes nothing.
    let old = with(|defs| {
        defs["Tool"]["properties"]["meta"] =
            json!({"type": "object", "additionalProperties": true});
    });
    let new = with(|defs| defs["Tool"]["properties"]["meta"] = json!({"$ref": "#/$defs/Meta"}));
    let d = diff_schemas(&old, "old", &new, "new").unwrap();
    assert!(d.is_empty(), "{d:#?}");
}

#[test]
fn inline_types_come_with_their_parent_and_renames_are_noted() {
    let new = with(|defs| {
        let gone = defs.remove("Gone").unwrap();
        defs.insert("Renamed".into(), gone);
        defs.insert(
            "Widget".into(),
            json!({"type": "object", "properties": {
                "part": {"type": "object", "properties": {"x": {"type": "integer"}}}}}),
        );
    });
    let d = diff(&new);
    let added: Vec<_> = d
        .changes
        .iter()
        .filter_map(|c| match &c.kind {
            ChangeKind::TypeAdded {
                inline,
                looks_renamed_from,
                ..
            } => Some((c.ty.as_str(), inline.clone(), looks_renamed_from.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        added,
        [
            ("Renamed", vec![], Some("Gone".to_owned())),
            ("Widget", vec!["WidgetPart".to_owned()], None),
        ]
    );
    let md = d.to_markdown();
    assert!(
        md.contains("- `Renamed` (struct; same fields as the removed `Gone`)"),
        "{md}"
    );
    assert!(
        md.contains("- `Widget` (struct; with `WidgetPart`)"),
        "{md}"
    );
}

#[test]
fn the_output_is_deterministic() {
    let new = with(|defs| {
        defs.remove("Gone");
        defs.remove("PingRequest");
        defs["Role"]["enum"] = json!(["user", "tool", "assistant", "system"]);
    });
    let first = diff(&new).to_markdown();
    assert_eq!(first, diff(&new).to_markdown());
    let system = first.find("`\"system\"`").unwrap();
    let tool = first.find("`\"tool\"`").unwrap();
    assert!(system < tool, "values in order: {first}");
}

/// The official revisions (from `MCP_SCHEMA_DIR`, never copied): the era
/// change shows as methods removed and added.
#[test]
fn across_eras_initialize_goes_and_server_discover_comes() {
    let Some(dir) = std::env::var_os("MCP_SCHEMA_DIR").map(std::path::PathBuf::from) else {
        eprintln!("MCP_SCHEMA_DIR is not set: the diff of the official schemas did not run");
        return;
    };
    let dir = if dir.is_relative() {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(dir)
    } else {
        dir
    };
    let read = |revision: &str| -> Value {
        let text = std::fs::read_to_string(dir.join(revision).join("schema.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let (legacy, modern) = (read("2025-11-25"), read("2026-07-28"));
    let d = diff_schemas(&legacy, "2025-11-25", &modern, "2026-07-28").unwrap();
    let find = |method: &str| d.methods.iter().find(|m| m.method == method).unwrap();
    assert!(!find("initialize").added);
    assert_eq!(find("initialize").types, ["InitializeRequest"]);
    assert!(find("server/discover").added);
    assert!(d.breaking_count() > 0);
    assert!(
        d.changes
            .iter()
            .any(|c| c.ty == "DiscoverRequest" && matches!(c.kind, ChangeKind::TypeAdded { .. }))
    );
}

#[test]
fn constants_are_judged_by_what_is_stored() {
    // A required constant is not stored; an optional one is a `bool` field.
    let new = with(|defs| {
        let props = defs["Tool"]["properties"].as_object_mut().unwrap();
        props.insert("kind".into(), json!({"const": "tool"}));
        props.insert("legacy".into(), json!({"const": "yes"}));
        defs["Tool"]["required"]
            .as_array_mut()
            .unwrap()
            .push(json!("kind"));
    });
    let d = diff(&new);
    let verdicts: Vec<(&str, bool)> = d
        .changes_of("Tool")
        .map(|c| match &c.kind {
            ChangeKind::FieldAdded(f) => (f.rust_type.as_str(), c.breaking),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("const \"tool\"", false),
            ("bool (const \"yes\" present)", true)
        ]
    );
}

#[test]
fn a_change_repeated_in_many_types_is_listed_once() {
    let new = with(|defs| {
        for ty in ["Gone", "PingRequest", "Tool"] {
            defs[ty]["properties"]
                .as_object_mut()
                .unwrap()
                .insert("note".into(), json!({"type": "string"}));
        }
    });
    let d = diff(&new);
    assert_eq!(d.changes.len(), 3);
    let md = d.to_markdown();
    assert!(md.contains("## Changes repeated across types"), "{md}");
    assert!(
        md.contains("\n  In 3 types: `Gone`, `PingRequest`, `Tool`.\n"),
        "{md}"
    );
    assert!(!md.contains("## Types changed"), "{md}");
    assert_eq!(md.matches("field `note` added").count(), 1, "{md}");
}
