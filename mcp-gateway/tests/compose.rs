//! Several backends behind one front ([`Composite`]): our fixture server
//! over Streamable HTTP (several instances) and a legacy-only server in
//! `sh` over stdio, under their prefixes; merged lists paged by the
//! composite; calls routed by name; collisions refused at start; list
//! changes handed on; clients of both eras; an MCP App in `never` mode
//! (its app-only tool listed to App hosts only, called by its bare name).
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use mcp_era_gateway::{BackendOptions, Composite, Composition};
use mcp_era_server::transport::MessageContext;
use mcp_era_server::{McpServer, McpServerExt, Principal, ServerEvent};
use mcp_era_testing::TestClient;
use mcp_everything::Everything;
use serde_json::{Value, json};

/// A legacy-only server in `sh`: refuses `server/discover`, lists `echo`
/// (answering `echo: TEXT`) and `change` (which announces a tool list
/// change before its result).
const SH: &str = r#"answer() { printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$1"; }
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"server/discover"'*)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
    *'"method":"initialize"'*)
      answer '{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"sh","version":"1"},"instructions":"The sh backend."}' ;;
    *'"method":"tools/list"'*)
      answer '{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"change","inputSchema":{"type":"object"}}]}' ;;
    *'"method":"tools/call"'*'"name":"echo"'*)
      text=$(printf '%s' "$line" | sed -n 's/.*"text":"\([^"]*\)".*/\1/p')
      answer "{\"content\":[{\"type\":\"text\",\"text\":\"echo: $text\"}]}" ;;
    *'"method":"tools/call"'*'"name":"change"'*)
      printf '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
      answer '{"content":[{"type":"text","text":"changed"}]}' ;;
    *'"id":'*)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
  esac
done"#;

/// `server` over Streamable HTTP on a loopback port: its URL.
async fn served_url<S: McpServer + 'static>(server: S) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = mcp_era_server::http::HttpConfig::new(addr);
    tokio::spawn(mcp_era_server::http::serve_listener(
        Arc::new(server),
        listener,
        config,
    ));
    format!("http://{addr}/mcp")
}

/// The fixture over Streamable HTTP on a loopback port: its URL.
async fn everything_url() -> String {
    served_url(Everything::new()).await
}

/// A `[[backend]]` table for the fixture over HTTP, named `name`.
async fn everything(name: &str, extra: &str) -> String {
    format!(
        "[[backend]]\nname = \"{name}\"\nurl = \"{}\"\n{extra}\n",
        everything_url().await
    )
}

/// A `[[backend]]` table running `script` with `sh -c`, named `name`,
/// with `extra` settings.
fn sh_table(name: &str, script: &str, extra: &str) -> String {
    let script = script
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n");
    format!(
        "[[backend]]\nname = \"{name}\"\ncommand = \"sh\"\nargs = [\"-c\", \"{script}\"]\n{extra}\n"
    )
}

/// A `[[backend]]` table for the `sh` server, named `name`.
fn sh(name: &str) -> String {
    sh_table(name, SH, "")
}

async fn composite(file: &str) -> Result<Composite, String> {
    let composition = Composition::from_toml(file)?;
    let options = BackendOptions {
        request_timeout: Duration::from_secs(10),
        ..BackendOptions::default()
    };
    Composite::start(composition, options).await
}

/// The response body of a modern request to `server`.
async fn ask(server: &impl McpServer, method: &str, params: Value) -> Value {
    ask_declaring(server, json!({}), method, params).await
}

/// [`ask`] from a client that declares `capabilities`.
async fn ask_declaring(
    server: &impl McpServer,
    capabilities: Value,
    method: &str,
    params: Value,
) -> Value {
    let context = MessageContext::stdio();
    ask_with(server, &context, capabilities, method, params).await
}

/// The response body of a modern request to `server` in `context`, whose
/// client declares `capabilities`.
async fn ask_with(
    server: &impl McpServer,
    context: &MessageContext,
    capabilities: Value,
    method: &str,
    mut params: Value,
) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities
    });
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    server.handle_value(message, context).await.json().unwrap()
}

/// Every tool name of the merged list, page by page, and how many pages.
async fn all_tool_names(server: &impl McpServer) -> (Vec<String>, usize) {
    let (mut names, mut pages, mut cursor) = (Vec::new(), 0, None::<String>);
    loop {
        let params = cursor.map_or_else(|| json!({}), |cursor| json!({"cursor": cursor}));
        let page = ask(server, "tools/list", params).await;
        let result = &page["result"];
        assert!(result["tools"].is_array(), "{page}");
        names.extend(
            result["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|tool| tool["name"].as_str().unwrap().to_owned()),
        );
        pages += 1;
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return (names, pages),
        }
    }
}

/// The first `test://` resource of a `resources/list` answer (the
/// fixture's `skill://` ones need the skills extension, not forwarded yet).
fn first_test_uri(answer: &Value) -> String {
    answer["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|resource| resource["uri"].as_str())
        .find(|uri| uri.starts_with("test://"))
        .unwrap_or_else(|| panic!("no test:// resource in {answer}"))
        .to_owned()
}

#[tokio::test]
async fn several_backends_are_listed_and_called_under_their_prefixes() {
    let file = [
        everything("a", "").await,
        everything("b", "").await,
        everything("c", "").await,
        sh("sh"),
    ]
    .concat();
    let composite = composite(&file).await.unwrap();

    // 3 × the fixture's tools and the two of `sh`: more than one page.
    let fixture = ask(&Everything::new(), "tools/list", json!({})).await["result"]["tools"]
        .as_array()
        .unwrap()
        .len();
    let (names, pages) = all_tool_names(&composite).await;
    assert_eq!(names.len(), 3 * fixture + 2, "{names:?}");
    assert_eq!(pages, 2);
    let unique: BTreeSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "a name listed twice: {names:?}");
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    for name in [
        "a__test_simple_text",
        "c__test_simple_text",
        "sh__echo",
        "sh__change",
    ] {
        assert!(
            names.iter().any(|n| n == name),
            "{name} missing from {names:?}"
        );
    }

    let echo = ask(
        &composite,
        "tools/call",
        json!({"name": "sh__echo", "arguments": {"text": "hi"}}),
    )
    .await;
    assert_eq!(echo["result"]["content"][0]["text"], "echo: hi", "{echo}");
    let simple = ask(
        &composite,
        "tools/call",
        json!({"name": "b__test_simple_text", "arguments": {}}),
    )
    .await;
    assert_eq!(simple["result"]["content"][0]["type"], "text", "{simple}");

    let unknown = ask(
        &composite,
        "tools/call",
        json!({"name": "echo", "arguments": {}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert_eq!(unknown["error"]["message"], "Unknown tool: echo");
    let bad_cursor = ask(&composite, "tools/list", json!({"cursor": "nope"})).await;
    assert_eq!(bad_cursor["error"]["code"], -32602, "{bad_cursor}");

    // The declaration: the union of the capabilities, each instruction
    // under its backend's name.
    let declaration = composite.declaration();
    assert_eq!(declaration.server_info().name, "mcp-era-gateway");
    assert!(declaration.capabilities().prompts.is_some());
    let instructions = declaration.instructions().unwrap();
    assert!(
        instructions.contains("sh (sh): The sh backend."),
        "{instructions}"
    );
}

#[tokio::test]
async fn a_name_two_backends_serve_is_refused_at_start() {
    let file = [
        everything("first", "prefix = \"never\"").await,
        everything("second", "prefix = \"never\"").await,
    ]
    .concat();
    let error = composite(&file).await.unwrap_err();
    assert!(
        error.contains("backends \"first\" and \"second\" both serve a tool named"),
        "{error}"
    );
    assert!(error.contains("prefix = \"always\""), "{error}");

    // One of them prefixed: no collision.
    let file = [
        everything("first", "prefix = \"never\"").await,
        everything("second", "prefix = \"always\"").await,
    ]
    .concat();
    let composite = composite(&file).await.unwrap();
    let call = json!({"name": "test_simple_text", "arguments": {}});
    let bare = ask(&composite, "tools/call", call).await;
    assert_eq!(bare["result"]["content"][0]["type"], "text", "{bare}");
}

#[tokio::test]
async fn one_backend_keeps_its_names_and_resources_and_prompts_route() {
    let composite = composite(&everything("only", "").await).await.unwrap();
    let (names, _) = all_tool_names(&composite).await;
    assert!(names.iter().any(|n| n == "test_simple_text"), "{names:?}");

    let resources = ask(&composite, "resources/list", json!({})).await;
    let uri = first_test_uri(&resources);
    let read = ask(&composite, "resources/read", json!({"uri": uri})).await;
    assert_eq!(read["result"]["contents"][0]["uri"], uri.as_str(), "{read}");
    let prompt = ask(
        &composite,
        "prompts/get",
        json!({"name": "test_simple_prompt"}),
    )
    .await;
    assert!(prompt["result"]["messages"].is_array(), "{prompt}");
}

#[tokio::test]
async fn a_resource_two_backends_list_is_the_first_ones() {
    let file = [everything("a", "").await, everything("b", "").await].concat();
    let composite = composite(&file).await.unwrap();
    let resources = ask(&composite, "resources/list", json!({})).await;
    let uris: Vec<&str> = resources["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    let unique: BTreeSet<&&str> = uris.iter().collect();
    assert_eq!(unique.len(), uris.len(), "{uris:?}");
    let uri = first_test_uri(&resources);
    let read = ask(&composite, "resources/read", json!({"uri": uri})).await;
    assert_eq!(read["result"]["contents"][0]["uri"], uri.as_str(), "{read}");
    let prompt = ask(
        &composite,
        "prompts/get",
        json!({"name": "b__test_simple_prompt"}),
    )
    .await;
    assert!(prompt["result"]["messages"].is_array(), "{prompt}");
}

#[tokio::test]
async fn a_backends_list_change_reaches_the_front() {
    let file = [everything("a", "").await, sh("sh")].concat();
    let composite = composite(&file).await.unwrap();
    let mut events = composite.events().subscribe();
    let changed = ask(
        &composite,
        "tools/call",
        json!({"name": "sh__change", "arguments": {}}),
    )
    .await;
    assert_eq!(
        changed["result"]["content"][0]["text"], "changed",
        "{changed}"
    );
    let event = tokio::time::timeout(Duration::from_secs(5), events.recv())
        .await
        .expect("no event at the front")
        .unwrap();
    assert!(matches!(event, ServerEvent::ToolsListChanged), "{event:?}");
}

#[tokio::test]
async fn clients_of_both_eras_use_the_composite() {
    let file = [everything("a", "").await, sh("sh")].concat();
    for legacy in [false, true] {
        let composite = composite(&file).await.unwrap();
        let client = if legacy {
            TestClient::legacy(composite).await.unwrap()
        } else {
            TestClient::new(composite).await.unwrap()
        };
        let text = client
            .call_tool_text("sh__echo", json!({"text": "both"}))
            .await
            .unwrap();
        assert_eq!(text, "echo: both", "legacy: {legacy}");
        let text = client
            .call_tool_text("a__test_simple_text", json!({}))
            .await
            .unwrap();
        assert!(!text.is_empty(), "legacy: {legacy}");
    }
}

#[tokio::test]
async fn a_backends_env_reaches_its_process() {
    // Its instructions are the value of $GREETING, set by the file only.
    let script = r#"while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"env","version":"1"},"instructions":"%s"}}\n' "$id" "$GREETING" ;;
    *'"method":"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n' "$id" ;;
    *'"id":'*)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
  esac
done"#;
    let file = [
        everything("a", "").await,
        sh_table(
            "envsh",
            script,
            "env = { GREETING = \"hello from the file\" }",
        ),
    ]
    .concat();
    let composite = composite(&file).await.unwrap();
    let declaration = composite.declaration();
    let instructions = declaration.instructions().unwrap();
    assert!(
        instructions.contains("envsh (env): hello from the file"),
        "{instructions}"
    );
}

/// [`ask`] in an HTTP request made by `principal`.
async fn ask_as(server: &impl McpServer, principal: &str, method: &str, params: Value) -> Value {
    let mut extensions = http::Extensions::new();
    extensions.insert(Principal(principal.to_owned()));
    ask_in(server, extensions, method, params).await
}

/// [`ask`] in an HTTP request with `extensions` (what the transport and
/// its auth gate put there).
async fn ask_in(
    server: &impl McpServer,
    extensions: http::Extensions,
    method: &str,
    params: Value,
) -> Value {
    let (mut parts, ()) = http::Request::builder().body(()).unwrap().into_parts();
    parts.extensions = extensions;
    let context = MessageContext::stdio().with_http_request(Arc::new(parts));
    ask_with(server, &context, json!({}), method, params).await
}

/// The names in a list answer's `items`.
fn names(answer: &Value, items: &str) -> Vec<String> {
    answer["result"][items]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|item| item["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_backends_filters_hide_items_from_lists_and_calls() {
    let filters = "tools = { exclude = [\"test_simple_*\"] }\nprompts = { include = [\"test_simple_prompt\"] }";
    let file = [everything("a", filters).await, sh("sh")].concat();
    let composite = composite(&file).await.unwrap();
    let (tools, _) = all_tool_names(&composite).await;
    assert!(
        !tools.iter().any(|n| n.starts_with("a__test_simple_")),
        "{tools:?}"
    );
    assert!(
        tools.iter().any(|n| n == "a__test_image_content"),
        "{tools:?}"
    );
    let hidden = ask(
        &composite,
        "tools/call",
        json!({"name": "a__test_simple_text", "arguments": {}}),
    )
    .await;
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
    assert_eq!(
        hidden["error"]["message"],
        "Unknown tool: a__test_simple_text"
    );
    let prompts = ask(&composite, "prompts/list", json!({})).await;
    assert_eq!(names(&prompts, "prompts"), ["a__test_simple_prompt"]);
    let other = ask(
        &composite,
        "prompts/get",
        json!({"name": "a__test_prompt_with_arguments", "arguments": {"arg1": "x", "arg2": "y"}}),
    )
    .await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
}

#[tokio::test]
async fn an_access_rule_limits_what_its_principal_sees_and_calls() {
    let file = format!(
        "{}{}[[access]]\nprincipal = \"alice\"\ntools = {{ include = [\"sh__*\"], exclude = [\"sh__change\"] }}\n",
        everything("a", "").await,
        sh("sh")
    );
    let composite = composite(&file).await.unwrap();
    let alice = ask_as(&composite, "alice", "tools/list", json!({})).await;
    assert_eq!(names(&alice, "tools"), ["sh__echo"]);
    let call = json!({"name": "a__test_simple_text", "arguments": {}});
    let refused = ask_as(&composite, "alice", "tools/call", call.clone()).await;
    assert_eq!(
        refused["error"]["message"], "Unknown tool: a__test_simple_text",
        "{refused}"
    );
    let echo = json!({"name": "sh__echo", "arguments": {"text": "mine"}});
    let allowed = ask_as(&composite, "alice", "tools/call", echo).await;
    assert_eq!(
        allowed["result"]["content"][0]["text"], "echo: mine",
        "{allowed}"
    );

    // Another principal, and a request with none, see everything.
    let bob = ask_as(&composite, "bob", "tools/call", call.clone()).await;
    assert_eq!(bob["result"]["content"][0]["type"], "text", "{bob}");
    let anonymous = ask(&composite, "tools/call", call).await;
    assert_eq!(
        anonymous["result"]["content"][0]["type"], "text",
        "{anonymous}"
    );
}

/// Rules by scope over the `sh` backend: `sh__change` needs `sh:write`;
/// a token holding `sh:only` sees the `sh` tools only.
const SCOPE_RULES: &str = "[[access]]\nmissing_scope = \"sh:write\"\ntools = { exclude = [\"sh__change\"] }\n\
    [[access]]\nscope = \"sh:only\"\ntools = { include = [\"sh__*\"] }\n";

#[tokio::test]
async fn without_a_token_a_missing_scope_rule_applies_and_a_scope_rule_does_not() {
    let file = format!("{}{}{SCOPE_RULES}", everything("a", "").await, sh("sh"));
    let composite = composite(&file).await.unwrap();
    let change = json!({"name": "sh__change", "arguments": {}});
    // No token, with or without a principal: no scope is held.
    for (who, extensions) in [
        ("anonymous", http::Extensions::new()),
        ("alice", {
            let mut extensions = http::Extensions::new();
            extensions.insert(Principal("alice".into()));
            extensions
        }),
    ] {
        let listed = ask_in(&composite, extensions.clone(), "tools/list", json!({})).await;
        let tools = names(&listed, "tools");
        assert!(tools.contains(&"sh__echo".to_owned()), "{who}: {tools:?}");
        assert!(
            !tools.contains(&"sh__change".to_owned()),
            "{who}: {tools:?}"
        );
        assert!(
            tools.contains(&"a__test_simple_text".to_owned()),
            "{who}: {tools:?}"
        );
        let refused = ask_in(&composite, extensions, "tools/call", change.clone()).await;
        assert_eq!(
            refused["error"]["message"], "Unknown tool: sh__change",
            "{who}: {refused}"
        );
    }
    // Nor over stdio, where no request carries a token.
    let stdio = ask(&composite, "tools/call", change).await;
    assert_eq!(stdio["error"]["code"], -32602, "{stdio}");
}

/// Requests whose verified token holds `scopes`, as the auth gate leaves
/// them.
#[cfg(feature = "auth")]
fn with_token(scopes: &[&str]) -> http::Extensions {
    let mut extensions = http::Extensions::new();
    extensions.insert(Principal("client:app".into()));
    extensions.insert(mcp_era_server::http::auth::Claims {
        subject: None,
        scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
        client_id: Some("app".into()),
        raw: json!({"scope": scopes.join(" ")}),
    });
    extensions
}

#[cfg(feature = "auth")]
#[tokio::test]
async fn scope_rules_follow_the_tokens_scopes_in_lists_and_calls() {
    let file = format!("{}{}{SCOPE_RULES}", everything("a", "").await, sh("sh"));
    let composite = composite(&file).await.unwrap();
    let change = json!({"name": "sh__change", "arguments": {}});

    let reader = ask_in(
        &composite,
        with_token(&["sh:read"]),
        "tools/list",
        json!({}),
    )
    .await;
    assert!(!names(&reader, "tools").contains(&"sh__change".to_owned()));
    let refused = ask_in(
        &composite,
        with_token(&["sh:read"]),
        "tools/call",
        change.clone(),
    )
    .await;
    assert_eq!(
        refused["error"]["message"], "Unknown tool: sh__change",
        "{refused}"
    );

    let writer = ask_in(
        &composite,
        with_token(&["sh:write"]),
        "tools/list",
        json!({}),
    )
    .await;
    let tools = names(&writer, "tools");
    assert!(tools.contains(&"sh__change".to_owned()), "{tools:?}");
    assert!(
        tools.contains(&"a__test_simple_text".to_owned()),
        "{tools:?}"
    );
    let called = ask_in(&composite, with_token(&["sh:write"]), "tools/call", change).await;
    assert_eq!(
        called["result"]["content"][0]["text"], "changed",
        "{called}"
    );

    // Both rules by scope apply to a token holding both scopes.
    let only = ask_in(
        &composite,
        with_token(&["sh:write", "sh:only"]),
        "tools/list",
        json!({}),
    )
    .await;
    assert_eq!(names(&only, "tools"), ["sh__change", "sh__echo"]);
    let other = json!({"name": "a__test_simple_text", "arguments": {}});
    let hidden = ask_in(
        &composite,
        with_token(&["sh:write", "sh:only"]),
        "tools/call",
        other,
    )
    .await;
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
}

#[tokio::test]
async fn a_backends_concurrency_bound_holds_back_its_own_requests_only() {
    let file = [
        everything("slow", "max_concurrent = 1").await,
        everything("other", "").await,
    ]
    .concat();
    let composite = Arc::new(composite(&file).await.unwrap());
    let first_done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let first = {
        let (composite, done) = (Arc::clone(&composite), Arc::clone(&first_done));
        tokio::spawn(async move {
            let call = json!({"name": "slow__slow_compute", "arguments": {"seconds": 1.0}});
            let answer = ask(&*composite, "tools/call", call).await;
            done.store(true, std::sync::atomic::Ordering::SeqCst);
            answer
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Another backend is not held back by the slow one's bound...
    let call = json!({"name": "other__slow_compute", "arguments": {"seconds": 0}});
    let other = ask(&*composite, "tools/call", call).await;
    assert!(other["result"]["content"].is_array(), "{other}");
    assert!(
        !first_done.load(std::sync::atomic::Ordering::SeqCst),
        "the slow call ended first"
    );
    // ...while the slow one's next request waits for its slot.
    let call = json!({"name": "slow__slow_compute", "arguments": {"seconds": 0}});
    let second = ask(&*composite, "tools/call", call).await;
    assert!(second["result"]["content"].is_array(), "{second}");
    assert!(
        first_done.load(std::sync::atomic::Ordering::SeqCst),
        "the second call did not wait"
    );
    let first = first.await.unwrap();
    assert!(first["result"]["content"].is_array(), "{first}");
}

/// The sh server with a `die` tool, which exits without answering.
fn mortal_sh() -> String {
    let script = SH
        .replace(
            r#"{"name":"change","inputSchema":{"type":"object"}}]"#,
            r#"{"name":"change","inputSchema":{"type":"object"}},{"name":"die","inputSchema":{"type":"object"}}]"#,
        )
        .replace(
            r#"    *'"id":'*)"#,
            "    *'\"name\":\"die\"'*) exit 0 ;;\n    *'\"id\":'*)",
        );
    assert!(script.contains("exit 0"), "{script}");
    script
}

/// Waits for the `n`th `tools/list_changed` on `events`.
async fn tools_changed(events: &mut tokio::sync::broadcast::Receiver<ServerEvent>, n: usize) {
    tokio::time::timeout(Duration::from_secs(10), async {
        let mut seen = 0;
        while seen < n {
            if let Ok(ServerEvent::ToolsListChanged) = events.recv().await {
                seen += 1;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("fewer than {n} tools/list_changed"));
}

#[tokio::test]
async fn a_backend_that_exits_loses_only_its_own_items_and_comes_back() {
    let file = [everything("a", "").await, sh_table("sh", &mortal_sh(), "")].concat();
    let composite = composite(&file).await.unwrap();
    let echo = json!({"name": "sh__echo", "arguments": {"text": "before"}});
    let before = ask(&composite, "tools/call", echo).await;
    assert_eq!(
        before["result"]["content"][0]["text"], "echo: before",
        "{before}"
    );
    let mut events = composite.events().subscribe();

    let died = ask(
        &composite,
        "tools/call",
        json!({"name": "sh__die", "arguments": {}}),
    )
    .await;
    assert!(died["error"]["message"].is_string(), "{died}");
    // The other backend serves on.
    let simple = json!({"name": "a__test_simple_text", "arguments": {}});
    let other = ask(&composite, "tools/call", simple).await;
    assert_eq!(other["result"]["content"][0]["type"], "text", "{other}");

    // Its loss is announced, then its restart, and its tools are served
    // again.
    tools_changed(&mut events, 2).await;
    let echo = json!({"name": "sh__echo", "arguments": {"text": "after"}});
    let after = ask(&composite, "tools/call", echo).await;
    assert_eq!(
        after["result"]["content"][0]["text"], "echo: after",
        "{after}"
    );
    let (names, _) = all_tool_names(&composite).await;
    assert!(names.iter().any(|n| n == "sh__die"), "{names:?}");
}

#[tokio::test]
async fn a_backend_never_restarted_leaves_its_items_out_and_says_why() {
    let file = [
        everything("a", "").await,
        sh_table("sh", &mortal_sh(), "restart = \"never\""),
    ]
    .concat();
    let composite = composite(&file).await.unwrap();
    let mut events = composite.events().subscribe();
    let died = ask(
        &composite,
        "tools/call",
        json!({"name": "sh__die", "arguments": {}}),
    )
    .await;
    assert!(died["error"]["message"].is_string(), "{died}");
    tools_changed(&mut events, 1).await;

    let (names, _) = all_tool_names(&composite).await;
    assert!(
        names.iter().any(|n| n == "a__test_simple_text"),
        "{names:?}"
    );
    assert!(!names.iter().any(|n| n.starts_with("sh__")), "{names:?}");
    let echo = json!({"name": "sh__echo", "arguments": {"text": "after"}});
    let refused = ask(&composite, "tools/call", echo).await;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("restart policy is never"), "{refused}");
}

/// The sh server, counting its `tools/list` requests in `count` (one line
/// each), declaring `listChanged` as `announces`.
fn counting_sh(count: &std::path::Path, announces: bool) -> String {
    let mut script = SH.replace(
        r#"    *'"method":"tools/list"'*)"#,
        &format!(
            "    *'\"method\":\"tools/list\"'*)\n      echo x >> '{}'",
            count.display()
        ),
    );
    if !announces {
        script = script.replace(r#""listChanged":true"#, r#""listChanged":false"#);
    }
    assert!(script.contains(">>"), "{script}");
    script
}

fn lines(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |text| text.lines().count())
}

#[tokio::test]
async fn a_list_is_read_again_only_when_it_may_have_changed() {
    let dir = std::env::temp_dir().join(format!("compose-count-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (kept, unkept) = (dir.join("kept"), dir.join("unkept"));
    let file = [
        sh_table("kept", &counting_sh(&kept, true), ""),
        sh_table("unkept", &counting_sh(&unkept, false), ""),
    ]
    .concat();
    let composite = composite(&file).await.unwrap();
    let (at_start, unkept_at_start) = (lines(&kept), lines(&unkept));

    // A backend that announces its changes is asked once per audience...
    all_tool_names(&composite).await;
    all_tool_names(&composite).await;
    assert_eq!(lines(&kept), at_start + 1);
    // ...one that does not, each time.
    assert_eq!(lines(&unkept), unkept_at_start + 2);

    // A call may change its lists: they are read again.
    let echo = json!({"name": "kept__echo", "arguments": {"text": "x"}});
    let echoed = ask(&composite, "tools/call", echo).await;
    assert_eq!(
        echoed["result"]["content"][0]["text"], "echo: x",
        "{echoed}"
    );
    all_tool_names(&composite).await;
    assert_eq!(lines(&kept), at_start + 2);
    // A call to another backend leaves them kept.
    let echo = json!({"name": "unkept__echo", "arguments": {"text": "x"}});
    ask(&composite, "tools/call", echo).await;
    all_tool_names(&composite).await;
    assert_eq!(lines(&kept), at_start + 2);
    std::fs::remove_dir_all(&dir).ok();
}

/// An MCP App as `mcp-era/examples/apps.rs` serves one: `show_counter`
/// renders `ui://counter/app`, whose button calls `increment`, a tool
/// only the App may use (listed only to clients with the extension).
#[derive(mcp_era_server::McpServer, Default)]
#[mcp(
    name = "counter-app",
    version = "1.0.0",
    extension("io.modelcontextprotocol/ui")
)]
struct CounterApp {
    count: std::sync::atomic::AtomicI64,
}

#[mcp_era_server::router]
impl CounterApp {
    /// Shows the counter.
    #[tool(read_only, ui = "ui://counter/app")]
    fn show_counter(&self) -> String {
        self.count
            .load(std::sync::atomic::Ordering::SeqCst)
            .to_string()
    }

    /// Adds one; called by the App.
    #[tool(ui = "ui://counter/app", visibility = ["app"])]
    fn increment(&self) -> String {
        let before = self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        (before + 1).to_string()
    }

    /// The App.
    #[resource(ui = "ui://counter/app", name = "counter_app")]
    fn app(&self) -> &'static str {
        r#"<!doctype html><html><body><p id="result"></p><button id="call">+1</button></body></html>"#
    }
}

/// The App server over Streamable HTTP on a loopback port, in a
/// `[[backend]]` table named `counter` with `prefix = "never"`.
async fn counter_app() -> String {
    let url = served_url(CounterApp::default()).await;
    format!("[[backend]]\nname = \"counter\"\nurl = \"{url}\"\nprefix = \"never\"\n")
}

/// The tool names a client lists, every page.
async fn listed_tools(client: &TestClient<Composite>) -> Vec<Value> {
    let all = client
        .client()
        .list_all("tools/list", "tools")
        .await
        .unwrap();
    all["tools"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn an_app_is_served_in_never_mode_beside_another_backend() {
    const UI: &str = "io.modelcontextprotocol/ui";
    for legacy in [false, true] {
        // A fresh App per era: its counter starts at 0.
        let file = [
            counter_app().await,
            everything("everything", "prefix = \"always\"").await,
        ]
        .concat();
        let front = composite(&file).await.unwrap();
        // The merged declaration carries the App's extension.
        let declaration = front.declaration();
        let extensions = declaration.capabilities().extensions.clone();
        assert!(
            extensions.is_some_and(|e| e.contains_key(UI)),
            "legacy: {legacy}"
        );

        // A host without Apps is never offered the app-only tool.
        let mut plain = TestClient::builder(front);
        if legacy {
            plain = plain.legacy();
        }
        let plain = plain.connect().await.unwrap();
        let names: Vec<String> = listed_tools(&plain)
            .await
            .iter()
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect();
        assert!(names.iter().any(|n| n == "show_counter"), "{names:?}");
        assert!(names.iter().any(|n| n.starts_with("everything__")));
        assert!(!names.iter().any(|n| n == "increment"), "{names:?}");

        // A host with Apps: the tool's `_meta.ui`, the App read through
        // the front, and the App's call by the tool's bare name.
        let front = composite(&file).await.unwrap();
        let mut host = TestClient::builder(front).options(|options| options.declare_apps());
        if legacy {
            host = host.legacy();
        }
        let host = host.connect().await.unwrap();
        let tools = listed_tools(&host).await;
        let tool = |name: &str| {
            tools
                .iter()
                .find(|tool| tool["name"] == name)
                .cloned()
                .unwrap_or_else(|| panic!("no {name} in {tools:?}"))
        };
        assert_eq!(
            tool("show_counter")["_meta"]["ui"]["resourceUri"],
            "ui://counter/app"
        );
        assert_eq!(
            tool("increment")["_meta"]["ui"]["visibility"],
            json!(["app"])
        );
        let app = host.client().read_app("ui://counter/app").await.unwrap();
        assert!(app.html.contains(r#"id="call""#), "{}", app.html);
        for expected in ["0", "1"] {
            let name = if expected == "0" {
                "show_counter"
            } else {
                "increment"
            };
            let text = host.call_tool_text(name, json!({})).await.unwrap();
            assert_eq!(text, expected, "{name}, legacy: {legacy}");
        }
        // A plain client's list, which leaves the app-only tool out, does
        // not take its name from its backend: called by that name, it is
        // answered as the App's server answers it directly.
        let (names, _) = all_tool_names(host.server()).await;
        assert!(!names.iter().any(|n| n == "increment"), "{names:?}");
        let call = json!({"name": "increment", "arguments": {}});
        let answered = ask(host.server(), "tools/call", call).await;
        assert_eq!(answered["result"]["content"][0]["text"], "2", "{answered}");
    }
}

#[tokio::test]
async fn an_app_only_tool_two_backends_serve_is_refused_at_start() {
    // Two Apps unprefixed, the second's model-visible tool hidden: only
    // the app-only `increment` collides.
    let second = counter_app()
        .await
        .replace("name = \"counter\"", "name = \"other\"")
        + "tools = { exclude = [\"show_counter\"] }\n";
    let file = [counter_app().await, second].concat();
    let error = composite(&file).await.unwrap_err();
    assert!(
        error.contains(r#"backends "counter" and "other" both serve a tool named "increment""#),
        "{error}"
    );
}

#[tokio::test]
async fn a_backends_tasks_and_skills_reach_it_through_the_composite() {
    const TASKS: &str = "io.modelcontextprotocol/tasks";
    const SKILLS: &str = "io.modelcontextprotocol/skills";
    let file = [everything("a", "").await, sh("sh")].concat();
    let composite = composite(&file).await.unwrap();
    let declaration = composite.declaration();
    let extensions = declaration.capabilities().extensions.clone().unwrap();
    assert!(extensions.contains_key(TASKS) && extensions.contains_key(SKILLS));
    let tasks_client = json!({"extensions": {TASKS: {}}});

    // A call that becomes a task at its backend, then that task's state.
    let call = json!({"name": "a__slow_compute", "arguments": {"seconds": 0.3}});
    let created = ask_declaring(&composite, tasks_client.clone(), "tools/call", call).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let mut status = Value::Null;
    for _ in 0..50 {
        let got = ask_declaring(
            &composite,
            tasks_client.clone(),
            "tasks/get",
            json!({"taskId": task_id}),
        )
        .await;
        status = got["result"]["status"].clone();
        if status == "completed" {
            break;
        }
        assert_eq!(status, "working", "{got}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, "completed");
    // An id no backend gave is unknown, as the runtime answers it.
    let unknown = ask_declaring(
        &composite,
        tasks_client,
        "tasks/get",
        json!({"taskId": "0123456789abcdef"}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    // Its skills are listed, got and read through the front, under its
    // name as their first path segment.
    let uri = "skill://a/git-workflow/SKILL.md";
    let listed = ask(&composite, "skills/list", json!({})).await;
    let skills = listed["result"]["skills"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let entry = skills.iter().find(|skill| skill["uri"] == uri);
    let entry = entry.unwrap_or_else(|| panic!("no {uri} in {listed}"));
    assert_eq!(entry["frontmatter"]["name"], "git-workflow");
    let files = entry["resources"].as_array().unwrap();
    assert!(
        files.iter().all(|file| file["uri"]
            .as_str()
            .is_some_and(|file| file.starts_with("skill://a/git-workflow/"))),
        "{entry}"
    );
    let got = ask(&composite, "skills/get", json!({"uri": uri})).await;
    assert_eq!(got["result"]["skill"]["uri"], uri, "{got}");
    let read = ask(&composite, "resources/read", json!({"uri": uri})).await;
    assert_eq!(read["result"]["contents"][0]["uri"], uri, "{read}");
    let text = read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.starts_with("---"), "{read}");
    let directory = json!({"uri": "skill://a/git-workflow/references"});
    let children = ask(&composite, "resources/directory/read", directory).await;
    let child = children["result"]["resources"][0]["uri"].as_str();
    assert!(
        child.is_some_and(|child| child.starts_with("skill://a/git-workflow/references/")),
        "{children}"
    );
    // Neither a skill no backend has, nor a prefixed one by its own URI.
    for missing in ["skill://none/SKILL.md", "skill://git-workflow/SKILL.md"] {
        let answer = ask(&composite, "skills/get", json!({"uri": missing})).await;
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
    }
}

#[tokio::test]
async fn two_backends_skills_of_one_name_are_both_served_under_their_prefixes() {
    let file = [
        everything("a", "").await,
        everything("b", "").await,
        everything("plain", "prefix = \"never\"").await,
    ]
    .concat();
    let composite = composite(&file).await.unwrap();
    let listed = ask(&composite, "skills/list", json!({})).await;
    let uris: Vec<&str> = listed["result"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|skill| skill["uri"].as_str())
        .filter(|uri| uri.ends_with("git-workflow/SKILL.md"))
        .collect();
    assert_eq!(
        uris,
        [
            "skill://a/git-workflow/SKILL.md",
            "skill://b/git-workflow/SKILL.md",
            "skill://git-workflow/SKILL.md"
        ],
        "{listed}"
    );
    for uri in uris {
        let read = ask(&composite, "resources/read", json!({"uri": uri})).await;
        assert_eq!(read["result"]["contents"][0]["uri"], uri, "{read}");
    }
}
