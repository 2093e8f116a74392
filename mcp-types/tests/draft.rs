//! `mcp_era_types::draft` as users name it: its own `VERSION` and lookups,
//! the rest resolving as in a full module (while the pinned draft equals
//! 2026-07-28, to that revision's very types).

#![cfg(all(feature = "draft", feature = "named"))]
#![allow(clippy::unwrap_used)] // a test may panic

use mcp_era_types::{NamedError, draft, v2026_07_28};

#[test]
fn the_draft_names_itself_and_resolves_the_revision_names() {
    assert_eq!(draft::VERSION, "draft");
    assert_eq!(draft::methods::TOOLS_LIST, "tools/list");
    assert_eq!(draft::TYPE_NAMES, v2026_07_28::TYPE_NAMES);

    let tool = serde_json::json!({"name": "echo", "inputSchema": {"type": "object"}});
    let back = draft::roundtrip_named("Tool", tool.clone()).unwrap();
    assert_eq!(back, tool);
    let typed: draft::Tool = serde_json::from_value(tool).unwrap();
    let _: draft::prelude::ListToolsResult =
        draft::ListToolsResult::new(vec![typed], draft::CacheHints::public(60_000));

    // The error names the draft, not the revision whose types it shares.
    let error = draft::roundtrip_named("NoSuchType", serde_json::json!({})).unwrap_err();
    assert!(
        matches!(
            &error,
            NamedError::UnknownType {
                revision: "draft",
                ..
            }
        ),
        "{error:?}"
    );
    let error = draft::union_choices_named("NoSuchType", serde_json::json!({})).unwrap_err();
    assert!(
        matches!(
            &error,
            NamedError::UnknownType {
                revision: "draft",
                ..
            }
        ),
        "{error:?}"
    );
}
