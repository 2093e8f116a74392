//! `#[mcp_era_server::router]` catalogue options over the real entry point:
//! live `resources/list` instances of a template (`list = ...`),
//! per-resource cache hints (`cache(...)`), hidden and one-era tools.

mod common;

use std::collections::BTreeMap;
use std::sync::Mutex;

use mcp_era_server::mcp_era_types::v2026_07_28::{Annotations, Role};
use mcp_era_server::transport::{HttpHeaders, LegacySession, MessageContext, Outcome};
use mcp_era_server::{
    Era, HandlerResult, ListedResource, McpServer, McpServerExt, RequestContext, ToolRouter,
    ToolVisibility, errors, router,
};
use serde_json::{Value, json};

use common::{block_on, meta, request};

fn legacy_ctx() -> MessageContext {
    MessageContext::stdio().with_legacy_session(LegacySession::new(
        "2025-11-25".to_owned(),
        json!({}),
        json!({"name": "c", "version": "1"}),
    ))
}

fn legacy_request(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

fn ask_ctx<S: McpServer>(server: &S, message: Value, ctx: &MessageContext) -> Outcome {
    block_on(server.handle_value(message, ctx))
}

/// The whole response body of a modern stdio request.
fn ask<S: McpServer>(server: &S, method: &str, params: Value) -> Value {
    ask_ctx(server, request(method, params), &MessageContext::stdio())
        .json()
        .expect("a response")
}

/// The `result` of a modern request, without its `_meta`.
#[track_caller]
fn result<S: McpServer>(server: &S, method: &str, params: Value) -> Value {
    let body = ask(server, method, params);
    let mut result = body
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: expected a result, got {body}"));
    if let Some(object) = result.as_object_mut() {
        object.remove("_meta");
    }
    result
}

fn uris(list: &Value) -> Vec<String> {
    list["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| r["uri"].as_str().expect("a uri").to_owned())
        .collect()
}

// ----- live resource lists ---------------------------------------------------

#[derive(McpServer)]
#[mcp(
    name = "notebook",
    version = "1.0.0",
    resources,
    versions(legacy = ["2025-11-25"]),
    cache(ttl_ms = 5000, scope = "public")
)]
struct Notebook {
    notes: Mutex<BTreeMap<u32, String>>,
    /// Values for the encoding templates.
    words: Vec<String>,
    failing: bool,
}

impl Notebook {
    fn with_notes(count: u32) -> Self {
        Self {
            notes: Mutex::new((1..=count).map(|id| (id, format!("note {id}"))).collect()),
            words: Vec::new(),
            failing: false,
        }
    }

    fn note_ids(&self) -> Vec<u32> {
        self.notes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .keys()
            .copied()
            .collect()
    }
}

#[router]
impl Notebook {
    /// The index of the notebook.
    #[resource(uri = "book://index", mime_type = "text/plain")]
    fn index(&self) -> String {
        "index".to_owned()
    }

    /// One note.
    #[resource(
        template = "note://{id}",
        title = "A note",
        mime_type = "text/markdown",
        icon(src = "https://example.com/n.png"),
        list = Self::notes,
        cache(ttl_ms = 60000)
    )]
    fn note(&self, id: u32) -> Option<String> {
        self.notes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&id)
            .cloned()
    }

    /// Plain ids get the template's defaults; note 1 says more.
    async fn notes(&self, ctx: &RequestContext) -> HandlerResult<Vec<ListedResource<u32>>> {
        if self.failing {
            return Err(errors::internal_error(format!(
                "the note store is down ({})",
                ctx.protocol_version()
            )));
        }
        Ok(self
            .note_ids()
            .into_iter()
            .map(|id| match id {
                1 => ListedResource::new(id)
                    .name("first")
                    .title("The first note")
                    .description("Where it began")
                    .mime_type("text/plain")
                    .size(6)
                    .annotations(Annotations::new().with_audience(vec![Role::User])),
                _ => id.into(),
            })
            .collect())
    }

    /// A word, one path segment.
    #[resource(template = "word://{w}", list = words, cache(scope = "public", ttl_ms = 1))]
    fn word(&self, w: String) -> String {
        w
    }

    /// A word as a path.
    #[resource(template = "path:///{+p}.txt", list = words)]
    fn path(&self, p: String) -> String {
        p
    }

    fn words(&self) -> Vec<String> {
        self.words.clone()
    }

    /// Two variables, listed as a tuple in template order.
    #[resource(template = "cell://{sheet}/{row}", list = cells)]
    fn cell(&self, row: u32, sheet: String) -> String {
        format!("{sheet}:{row}")
    }

    fn cells(&self) -> Vec<(String, u32)> {
        if self.words.is_empty() {
            Vec::new()
        } else {
            vec![("b".to_owned(), 2), ("a".to_owned(), 10)]
        }
    }
}

#[test]
fn live_list_pages_with_cursors_across_changes() {
    let book = Notebook::with_notes(150);
    let first = result(&book, "resources/list", json!({}));
    let listed = uris(&first);
    assert_eq!(listed.len(), 100);
    assert_eq!(listed[0], "book://index", "fixed resources first");
    // Live instances in URI order.
    let mut sorted = listed[1..].to_vec();
    sorted.sort();
    assert_eq!(listed[1..], sorted[..]);
    assert_eq!(listed[1], "note://1");
    assert_eq!(listed[2], "note://10");
    assert_eq!(first["ttlMs"], 5000, "a list keeps the server default");
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a second page")
        .to_owned();
    assert_eq!(cursor, format!("after:{}", listed[99]));

    // Between the pages a note before the cursor appears and one after it
    // vanishes: the rest are listed once each, none twice.
    {
        let mut notes = book.notes.lock().expect("unpoisoned");
        notes.insert(0, "new".into());
        notes.remove(&99);
    }
    let second = result(&book, "resources/list", json!({"cursor": cursor}));
    assert!(second.get("nextCursor").is_none(), "{second}");
    let rest = uris(&second);
    let mut all: Vec<String> = listed.iter().chain(&rest).cloned().collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), listed.len() + rest.len(), "no URI twice");
    let mut expected: Vec<String> = (1..=150)
        .filter(|id| *id != 99)
        .map(|id| format!("note://{id}"))
        .collect();
    expected.push("book://index".into());
    expected.sort();
    assert_eq!(all, expected);

    // The same state gives the same pages.
    assert_eq!(
        result(&book, "resources/list", json!({})),
        result(&book, "resources/list", json!({}))
    );
    // A cursor naming a URI that is gone still resumes after it.
    book.notes.lock().expect("unpoisoned").remove(&145);
    let after_gone = result(
        &book,
        "resources/list",
        json!({"cursor": "after:note://145"}),
    );
    assert_eq!(
        uris(&after_gone)[..6],
        [
            "note://146",
            "note://147",
            "note://148",
            "note://149",
            "note://15",
            "note://150"
        ]
    );
    let last = result(
        &book,
        "resources/list",
        json!({"cursor": "after:note://99"}),
    );
    assert_eq!(last["resources"], json!([]));
    assert!(last.get("nextCursor").is_none());
}

#[test]
fn bad_cursors_are_invalid_params() {
    let book = Notebook::with_notes(3);
    for cursor in ["x", "-1", "5", "after"] {
        let body = ask(&book, "resources/list", json!({"cursor": cursor}));
        assert_eq!(
            body["error"],
            json!({"code": -32602, "message": format!("Invalid cursor: {cursor}")}),
            "{cursor}"
        );
    }
}

#[test]
fn listed_items_carry_overrides_and_template_defaults() {
    let book = Notebook::with_notes(2);
    let list = result(&book, "resources/list", json!({}));
    assert_eq!(
        list["resources"],
        json!([
            {"uri": "book://index", "name": "index", "description": "The index of the notebook.", "mimeType": "text/plain"},
            {
                "uri": "note://1",
                "name": "first",
                "title": "The first note",
                "description": "Where it began",
                "mimeType": "text/plain",
                "size": 6,
                "icons": [{"src": "https://example.com/n.png"}],
                "annotations": {"audience": ["user"]}
            },
            {
                "uri": "note://2",
                "name": "note",
                "title": "A note",
                "description": "One note.",
                "mimeType": "text/markdown",
                "icons": [{"src": "https://example.com/n.png"}]
            }
        ])
    );
    // Listing changes no read: a note that is not listed reads as before.
    book.notes
        .lock()
        .expect("unpoisoned")
        .insert(7, "unlisted?".into());
    let read = result(&book, "resources/read", json!({"uri": "note://7"}));
    assert_eq!(read["contents"][0]["text"], "unlisted?");
}

#[test]
fn variables_are_encoded_by_operator_and_read_back() {
    let book = Notebook {
        words: vec!["a/b c".into(), "été".into(), "x?y".into(), "".into()],
        ..Notebook::with_notes(0)
    };
    let list = result(&book, "resources/list", json!({}));
    assert_eq!(
        uris(&list),
        [
            "book://index",
            "cell://a/10",
            "cell://b/2",
            "path:///%C3%A9t%C3%A9.txt",
            "path:///a/b%20c.txt",
            "path:///x?y.txt",
            "word://%C3%A9t%C3%A9",
            "word://a%2Fb%20c",
            "word://x%3Fy",
        ],
        "an empty value names no readable URI and is left out"
    );
    // Every listed URI reads back the value it was listed with.
    for (uri, value) in [
        ("word://a%2Fb%20c", "a/b c"),
        ("word://%C3%A9t%C3%A9", "été"),
        ("path:///a/b%20c.txt", "a/b c"),
        ("path:///%C3%A9t%C3%A9.txt", "été"),
        ("path:///x?y.txt", "x?y"),
        ("cell://a/10", "a:10"),
    ] {
        let read = result(&book, "resources/read", json!({"uri": uri}));
        assert_eq!(read["contents"][0]["text"], value, "{uri}");
    }
}

#[test]
fn a_failing_lister_answers_its_error() {
    let book = Notebook {
        failing: true,
        ..Notebook::with_notes(3)
    };
    assert_eq!(
        ask(&book, "resources/list", json!({}))["error"],
        json!({"code": -32603, "message": "the note store is down (2026-07-28)"})
    );
    // Reads do not call the lister.
    assert_eq!(
        result(&book, "resources/read", json!({"uri": "note://2"}))["contents"][0]["text"],
        "note 2"
    );
}

#[test]
fn legacy_sessions_list_the_same_instances() {
    let book = Notebook::with_notes(2);
    let body = ask_ctx(
        &book,
        legacy_request("resources/list", json!({})),
        &legacy_ctx(),
    )
    .json()
    .expect("a response");
    let listed: Vec<&str> = body["result"]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert_eq!(listed, ["book://index", "note://1", "note://2"]);
}

// ----- per-resource cache hints ---------------------------------------------

#[test]
fn reads_carry_the_resource_cache_hints_else_the_server_default() {
    let book = Notebook::with_notes(1);
    let hints = |uri: &str| {
        let read = result(&book, "resources/read", json!({"uri": uri}));
        (read["ttlMs"].clone(), read["cacheScope"].clone())
    };
    // `cache(ttl_ms = 60000)`: the scope stays the server default.
    assert_eq!(hints("note://1"), (json!(60000), json!("public")));
    assert_eq!(hints("word://w"), (json!(1), json!("public")));
    // No `cache(...)`: the server default.
    assert_eq!(hints("book://index"), (json!(5000), json!("public")));
    assert_eq!(hints("path:///p.txt"), (json!(5000), json!("public")));
}

#[derive(McpServer)]
#[mcp(name = "private-reads", version = "1.0.0", resources)]
struct PrivateReads;

#[router]
impl PrivateReads {
    /// Shared by everyone.
    #[resource(uri = "pub://one", cache(ttl_ms = 300000, scope = "public"))]
    fn one(&self) -> String {
        "one".into()
    }

    /// Uses the built-in defaults.
    #[resource(uri = "pub://two")]
    fn two(&self) -> String {
        "two".into()
    }
}

#[test]
fn cache_hints_override_the_built_in_default() {
    let one = result(&PrivateReads, "resources/read", json!({"uri": "pub://one"}));
    assert_eq!(
        one,
        json!({
            "resultType": "complete",
            "ttlMs": 300000,
            "cacheScope": "public",
            "contents": [{"uri": "pub://one", "text": "one"}]
        })
    );
    let two = result(&PrivateReads, "resources/read", json!({"uri": "pub://two"}));
    assert_eq!(
        (two["ttlMs"].clone(), two["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
}

// ----- hidden and one-era tools ---------------------------------------------

#[derive(McpServer)]
#[mcp(name = "eras", version = "1.0.0", tools, versions(legacy = ["2025-11-25"]))]
struct Eras;

#[router]
impl Eras {
    /// Everyone sees it.
    #[tool]
    fn both(&self) -> String {
        "both".into()
    }

    /// Callable by name, never listed.
    #[tool(hidden)]
    fn secret(&self, #[arg(header = "Region")] region: Option<String>) -> String {
        format!("secret {}", region.as_deref().unwrap_or("-"))
    }

    /// For 2026 clients.
    #[tool(era = "modern", task = "optional")]
    fn fresh(&self) -> String {
        "fresh".into()
    }

    /// For 2025-11-25 clients.
    #[tool(era = "legacy", name = "old.style")]
    fn old(&self) -> String {
        "old".into()
    }

    /// Hidden, and for legacy clients only.
    #[tool(hidden, era = "legacy")]
    fn old_secret(&self) -> String {
        "old secret".into()
    }
}

fn names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("a name").to_owned())
        .collect()
}

fn legacy(method: &str, params: Value) -> Value {
    ask_ctx(&Eras, legacy_request(method, params), &legacy_ctx())
        .json()
        .expect("a response")
}

#[test]
fn each_era_lists_its_own_tools_and_never_hidden_ones() {
    assert_eq!(
        names(&result(&Eras, "tools/list", json!({}))),
        ["both", "fresh"]
    );
    assert_eq!(
        names(&legacy("tools/list", json!({}))["result"]),
        ["both", "old.style"]
    );
}

#[test]
fn hidden_tools_are_callable_in_their_eras() {
    let modern = result(&Eras, "tools/call", json!({"name": "secret"}));
    assert_eq!(modern["content"][0]["text"], "secret -");
    let old = legacy("tools/call", json!({"name": "secret"}));
    assert_eq!(old["result"]["content"][0]["text"], "secret -");
    let old_secret = legacy("tools/call", json!({"name": "old_secret"}));
    assert_eq!(old_secret["result"]["content"][0]["text"], "old secret");
}

#[test]
fn a_call_from_the_other_era_answers_as_an_unknown_tool() {
    let unknown = |name: &str| json!({"code": -32602, "message": format!("Unknown tool: {name}")});
    // Modern requests: the legacy tools are unknown, exactly like a missing one.
    for name in ["old.style", "old_secret", "missing"] {
        assert_eq!(
            ask(&Eras, "tools/call", json!({"name": name}))["error"],
            unknown(name),
            "{name}"
        );
    }
    assert_eq!(
        result(&Eras, "tools/call", json!({"name": "fresh"}))["content"][0]["text"],
        "fresh"
    );
    // A legacy session: the modern tool is unknown, exactly like a missing one.
    let missing = legacy("tools/call", json!({"name": "missing"}));
    let fresh = legacy("tools/call", json!({"name": "fresh"}));
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert_eq!(
        fresh["error"],
        json!({"code": missing["error"]["code"], "message": "Unknown tool: fresh"})
    );
    assert_eq!(
        legacy("tools/call", json!({"name": "old.style"}))["result"]["content"][0]["text"],
        "old"
    );
}

fn http_call(tool: &str, arguments: Value, params: Vec<(String, String)>) -> Outcome {
    let ctx = MessageContext::http_headers(HttpHeaders {
        protocol_version: Some("2026-07-28".into()),
        method: Some(Some("tools/call".into())),
        name: Some(tool.into()),
        params: params.into_iter().map(|(n, v)| (n, v.into())).collect(),
    });
    ask_ctx(
        &Eras,
        request("tools/call", json!({"name": tool, "arguments": arguments})),
        &ctx,
    )
}

#[test]
fn hidden_tools_keep_their_header_checks_and_other_eras_have_none() {
    let region = || vec![("region".to_owned(), "eu".to_owned())];
    let ok = http_call("secret", json!({"region": "eu"}), region());
    assert_eq!(
        ok.json().expect("a response")["result"]["content"][0]["text"],
        "secret eu"
    );
    let mismatch = http_call("secret", json!({"region": "us"}), region());
    assert_eq!(mismatch.http_status, 400);
    assert_eq!(
        mismatch.json().expect("a response")["error"],
        json!({"code": -32020, "message": "Mcp-Param-region header does not match argument region"})
    );
    // A legacy-only tool is unknown to a modern HTTP call, headers or not.
    let old = http_call("old.style", json!({}), region());
    assert_eq!(
        old.json().expect("a response")["error"],
        json!({"code": -32602, "message": "Unknown tool: old.style"})
    );
}

#[test]
fn task_support_and_scopes_follow_the_era_rules() {
    use mcp_era_server::{McpServer, TaskSupport};
    assert_eq!(Eras.tool_task_support("fresh"), TaskSupport::Optional);
    assert_eq!(Eras.tool_task_support("old.style"), TaskSupport::Never);
    assert_eq!(Eras.tool_param_headers("old.style"), Some(Vec::new()));
    assert_eq!(
        Eras.tool_param_headers("secret").map(|h| h.len()),
        Some(1),
        "hidden tools keep their header annotations"
    );
}

// ----- ToolRouter visibility -------------------------------------------------

#[test]
fn tool_router_hides_and_limits_tools() {
    let tools = ToolRouter::new();
    for name in ["open", "hidden", "legacy"] {
        tools
            .add_raw(
                mcp_era_server::mcp_era_types::v2026_07_28::Tool::new(
                    serde_json::from_value(json!({"type": "object"})).expect("a schema"),
                    name.to_owned(),
                ),
                move |_, _| async move { name },
            )
            .expect("added");
    }
    assert!(tools.set_visibility("hidden", ToolVisibility::HIDDEN));
    assert!(tools.set_visibility("legacy", ToolVisibility::LISTED.only(Era::Legacy)));
    assert!(!tools.set_visibility("nope", ToolVisibility::HIDDEN));
    let ctx = RequestContext::new(
        mcp_era_server::mcp_era_types::v2026_07_28::RequestId::Integer(1),
        serde_json::from_value(meta()).expect("meta"),
    );
    let list = block_on(tools.list_tools(
        serde_json::from_value(json!({"_meta": meta()})).expect("params"),
        &ctx,
    ))
    .expect("a list");
    let listed: Vec<&str> = list.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(listed, ["open"]);
    let call = |name: &str| {
        let params =
            serde_json::from_value(json!({"name": name, "_meta": meta()})).expect("params");
        block_on(tools.call_tool(params, &ctx))
    };
    assert!(call("hidden").is_ok());
    assert_eq!(
        call("legacy").expect_err("a legacy tool"),
        errors::invalid_params("Unknown tool: legacy")
    );
}
