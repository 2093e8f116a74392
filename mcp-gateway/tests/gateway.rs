//! The gateway in front of a real server speaking 2025-11-25: our fixture
//! server, served over an in-memory stdio pipe and reached as a legacy
//! backend (a dual-era server answers `initialize` like any legacy one).
//! Modern requests go through the front's entry point, and clients of both
//! eras through the gateway.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::sync::Arc;

use mcp_era_gateway::{Backend, BackendOptions, Era, EraMode, Gateway};
use mcp_era_server::ServerEvent;
use mcp_era_server::mcp_era_types::v2026_07_28::SubscriptionFilter;
use mcp_era_server::stdio::{self, StdioConfig};
use mcp_era_testing::TestClient;
use mcp_everything::Everything;
use serde_json::json;

mod common;
use common::{ask, ask_declaring, front_client};

/// A gateway whose backend is the fixture, spoken to in `era`.
async fn gateway(era: EraMode) -> Gateway {
    gateway_with(BackendOptions {
        era,
        ..BackendOptions::default()
    })
    .await
}

/// A gateway whose backend is the fixture, reached with `options`.
async fn gateway_with(options: BackendOptions) -> Gateway {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(theirs);
    tokio::spawn(stdio::serve_with(
        Arc::new(Everything::new()),
        server_read,
        server_write,
        StdioConfig::default(),
    ));
    let (read, write) = tokio::io::split(ours);
    let backend = Backend::connect_streams(read, write, "everything", &options)
        .await
        .unwrap();
    Gateway::new(backend).await
}

#[tokio::test]
async fn a_modern_client_discovers_the_legacy_backend() {
    let gateway = gateway(EraMode::Legacy).await;
    assert_eq!(gateway.backend().unwrap().era(), Era::Legacy);
    let discover = ask(&gateway, "server/discover", json!({})).await["result"].clone();
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-everything"
    );
    let capabilities = &discover["capabilities"];
    for capability in ["tools", "resources", "prompts", "completions", "logging"] {
        assert!(capabilities.get(capability).is_some(), "{capabilities}");
    }
    // Its list changes and resource subscriptions are forwarded.
    assert_eq!(capabilities["tools"]["listChanged"], true);
    assert_eq!(capabilities["resources"]["listChanged"], true);
    assert_eq!(capabilities["resources"]["subscribe"], true);
    assert!(
        discover["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
}

#[tokio::test]
async fn capability_requests_are_forwarded_and_reshaped() {
    let gateway = gateway(EraMode::Legacy).await;
    let list = ask(&gateway, "tools/list", json!({})).await["result"].clone();
    assert_eq!(list["resultType"], "complete");
    assert_eq!(list["ttlMs"], 0);
    assert_eq!(list["cacheScope"], "private");
    let names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"test_simple_text"), "{names:?}");

    let call = ask(
        &gateway,
        "tools/call",
        json!({"name": "test_simple_text", "arguments": {}}),
    )
    .await["result"]
        .clone();
    assert_eq!(call["resultType"], "complete");
    assert_eq!(call["content"][0]["type"], "text");

    let read = ask(
        &gateway,
        "resources/read",
        json!({"uri": "test://static-text"}),
    )
    .await;
    assert_eq!(read["result"]["contents"][0]["uri"], "test://static-text");
    assert_eq!(read["result"]["ttlMs"], 0, "{read}");
    let templates = ask(&gateway, "resources/templates/list", json!({})).await;
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "test://template/{id}/data"
    );
    let prompt = ask(
        &gateway,
        "prompts/get",
        json!({"name": "test_simple_prompt"}),
    )
    .await;
    assert_eq!(
        prompt["result"]["messages"][0]["content"]["text"],
        "This is a simple prompt for testing."
    );
}

#[tokio::test]
async fn the_backends_errors_reach_the_client_in_the_modern_form() {
    let gateway = gateway(EraMode::Legacy).await;
    let missing = ask(&gateway, "resources/read", json!({"uri": "test://nothing"})).await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert_eq!(missing["error"]["data"]["uri"], "test://nothing");
    let unknown = ask(
        &gateway,
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    // Removed in the modern era: refused at the front, never forwarded.
    let ping = ask(&gateway, "ping", json!({})).await;
    assert_eq!(ping["error"]["code"], -32601, "{ping}");
}

#[tokio::test]
async fn the_backends_list_changes_are_published_at_the_front() {
    for era in [EraMode::Legacy, EraMode::Modern] {
        let gateway = gateway(era).await;
        let mut heard = gateway.events().subscribe();
        for tool in ["test_trigger_tool_change", "test_trigger_prompt_change"] {
            let call = ask(
                &gateway,
                "tools/call",
                json!({"name": tool, "arguments": {}}),
            )
            .await;
            assert_eq!(call["result"]["content"][0]["text"], "Mutation triggered");
        }
        let mut got = Vec::new();
        while got.len() < 2 {
            let next = tokio::time::timeout(std::time::Duration::from_secs(5), heard.recv());
            got.push(next.await.unwrap().unwrap());
        }
        assert_eq!(
            got,
            [
                ServerEvent::ToolsListChanged,
                ServerEvent::PromptsListChanged
            ],
            "{era:?}"
        );
    }
}

/// A modern client following a resource on `subscriptions/listen` gets
/// the backend's updates of it, from a legacy backend (subscribed with
/// `resources/subscribe`) and from a modern one (a listen stream of its
/// own); nothing of a resource it does not follow.
#[tokio::test]
async fn a_followed_resource_is_updated_from_a_backend_of_either_era() {
    for era in [EraMode::Legacy, EraMode::Modern] {
        let client = front_client(gateway(era).await).await;
        let filter = SubscriptionFilter::new()
            .with_resource_subscriptions(vec!["test://watched-resource".to_owned()]);
        let mut listen = client.subscribe(filter).await.unwrap();
        // The backend is subscribed just after the stream is acknowledged:
        // updates are announced until one arrives.
        let announce = |uri: &str| {
            let params = json!({"name": "test_trigger_resource_update", "arguments": {"uri": uri}});
            client.request("tools/call", params)
        };
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        let update = loop {
            assert!(tokio::time::Instant::now() < deadline, "{era:?}: no update");
            announce("test://other").await.unwrap();
            announce("test://watched-resource").await.unwrap();
            let wait = std::time::Duration::from_millis(200);
            if let Ok(Some(next)) = tokio::time::timeout(wait, listen.next()).await {
                break next;
            }
        };
        assert_eq!(update.method, "notifications/resources/updated", "{era:?}");
        assert_eq!(update.params["uri"], "test://watched-resource", "{era:?}");
    }
}

#[tokio::test]
async fn clients_of_both_eras_reach_the_backend_through_the_gateway() {
    for legacy in [false, true] {
        let gateway = gateway(EraMode::Legacy).await;
        let client = if legacy {
            TestClient::legacy(gateway).await.unwrap()
        } else {
            TestClient::new(gateway).await.unwrap()
        };
        let text = client
            .call_tool_text("test_simple_text", json!({}))
            .await
            .unwrap();
        assert!(!text.is_empty());
        let catalogue = client.catalogue().await.unwrap();
        assert!(
            catalogue["prompts"]
                .as_array()
                .is_some_and(|p| !p.is_empty())
        );
    }
}

#[tokio::test]
async fn a_modern_backend_is_passed_through() {
    let gateway = gateway(EraMode::Modern).await;
    assert_eq!(gateway.backend().unwrap().era(), Era::Modern);
    let call = ask(
        &gateway,
        "tools/call",
        json!({"name": "test_simple_text", "arguments": {}}),
    )
    .await;
    assert_eq!(call["result"]["content"][0]["type"], "text", "{call}");
    let list = ask(&gateway, "tools/list", json!({})).await["result"].clone();
    // The backend's own hints, as it stated them.
    assert!(list["ttlMs"].as_u64().is_some());
}

#[tokio::test]
async fn the_backends_elicitation_is_a_round_of_the_modern_client() {
    for era in [EraMode::Legacy, EraMode::Modern] {
        let gateway = gateway(era).await;
        let elicitation = json!({"elicitation": {}});
        let call = json!({"name": "test_elicitation", "arguments": {"message": "Your name?"}});
        let first = ask_declaring(&gateway, "tools/call", call.clone(), elicitation.clone()).await;
        let first = &first["result"];
        assert_eq!(first["resultType"], "input_required", "{era:?}: {first}");
        let requests = first["inputRequests"].as_object().unwrap();
        assert_eq!(requests.len(), 1, "{first}");
        let (key, request) = requests.iter().next().unwrap();
        assert_eq!(request["method"], "elicitation/create");
        assert_eq!(request["params"]["message"], "Your name?");
        // A legacy backend's request gets the gateway's key; a modern
        // backend's round passes through with its own.
        let own_key = if era == EraMode::Modern {
            "response"
        } else {
            "gateway-1"
        };
        assert_eq!(key, own_key, "{first}");

        let retry = answered(&call, first, json!({"response": "Ann"}));
        let second =
            ask_declaring(&gateway, "tools/call", retry.clone(), elicitation.clone()).await;
        assert_eq!(
            second["result"]["content"][0]["text"],
            r#"User response: action=accept, content={"response":"Ann"}"#,
            "{era:?}: {second}"
        );
        let again = ask_declaring(&gateway, "tools/call", retry, elicitation).await;
        if era == EraMode::Legacy {
            // Answered once: the gateway's state names nothing any more.
            assert_eq!(again["error"]["code"], -32602, "{again}");
        } else {
            // The gateway keeps nothing between a modern backend's rounds.
            assert_eq!(again["result"], second["result"], "{again}");
        }
    }
}

/// `call` again with `content` accepted for the one input request of
/// `first` (an `input_required` result), under its key, and its
/// `requestState` if it has one.
fn answered(
    call: &serde_json::Value,
    first: &serde_json::Value,
    content: serde_json::Value,
) -> serde_json::Value {
    let requests = first["inputRequests"].as_object().unwrap();
    let key = requests.keys().next().unwrap();
    let mut retry = call.clone();
    retry["inputResponses"] = json!({ key: {"action": "accept", "content": content} });
    if let Some(state) = first.get("requestState") {
        retry["requestState"] = state.clone();
    }
    retry
}

#[tokio::test]
async fn a_client_that_cannot_answer_is_never_asked() {
    let gateway = gateway(EraMode::Legacy).await;
    let call = json!({"name": "test_elicitation", "arguments": {"message": "Your name?"}});
    // No elicitation declared: the backend's request is refused, and the
    // call ends without a round.
    let answer = ask(&gateway, "tools/call", call).await;
    assert_ne!(answer["result"]["resultType"], "input_required", "{answer}");
    // The lane is free again: the next call goes through.
    let next = ask(
        &gateway,
        "tools/call",
        json!({"name": "test_simple_text", "arguments": {}}),
    )
    .await;
    assert_eq!(next["result"]["content"][0]["type"], "text", "{next}");
}

#[tokio::test]
async fn clients_of_both_eras_answer_the_backends_requests_through_the_gateway() {
    for (legacy_client, backend) in [
        (false, EraMode::Legacy),
        (true, EraMode::Legacy),
        (true, EraMode::Modern),
    ] {
        let mut builder = TestClient::builder(gateway(backend).await);
        if legacy_client {
            builder = builder.legacy();
        }
        let client = builder
            .on_elicit(|_| {
                let mut result = mcp_era_server::mcp_era_types::v2026_07_28::ElicitResult::new(
                    mcp_era_server::mcp_era_types::v2026_07_28::ElicitResultAction::Accept,
                );
                result.content = serde_json::from_value(json!({"response": "Bo"})).ok();
                result
            })
            .connect()
            .await
            .unwrap();
        let text = client
            .call_tool_text("test_elicitation", json!({"message": "Name?"}))
            .await
            .unwrap();
        assert_eq!(
            text, r#"User response: action=accept, content={"response":"Bo"}"#,
            "legacy client: {legacy_client}, backend: {backend:?}"
        );
    }
}

#[tokio::test]
async fn a_call_whose_client_never_comes_back_frees_the_lane() {
    // The wait for the client is its own: the backend's is a minute.
    let gateway = gateway_with(BackendOptions {
        era: EraMode::Legacy,
        input_timeout: std::time::Duration::from_millis(300),
        ..BackendOptions::default()
    })
    .await;
    let call = json!({"name": "test_elicitation", "arguments": {"message": "Your name?"}});
    let first = ask_declaring(&gateway, "tools/call", call, json!({"elicitation": {}})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].clone();
    // Never answered: after the wait the call is forgotten and the next
    // call runs.
    let next = ask(
        &gateway,
        "tools/call",
        json!({"name": "test_simple_text", "arguments": {}}),
    );
    let next = tokio::time::timeout(std::time::Duration::from_secs(10), next).await;
    assert_eq!(next.unwrap()["result"]["content"][0]["type"], "text");
    let late = json!({
        "name": "test_elicitation",
        "arguments": {"message": "Your name?"},
        "inputResponses": {"gateway-1": {"action": "decline"}},
        "requestState": state
    });
    let late = ask_declaring(&gateway, "tools/call", late, json!({"elicitation": {}})).await;
    assert_eq!(late["error"]["code"], -32602, "{late}");
}

#[tokio::test]
async fn without_input_calls_run_side_by_side() {
    let gateway = gateway_with(BackendOptions {
        era: EraMode::Legacy,
        input: false,
        ..BackendOptions::default()
    })
    .await;
    let call = json!({"name": "test_elicitation", "arguments": {"message": "Your name?"}});
    let answer = ask_declaring(&gateway, "tools/call", call, json!({"elicitation": {}})).await;
    assert_ne!(answer["result"]["resultType"], "input_required", "{answer}");
}

/// A gateway whose backend is the fixture over Streamable HTTP on a
/// loopback port, spoken to in `era`.
async fn http_gateway(era: EraMode) -> Gateway {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = mcp_era_server::http::HttpConfig::new(addr);
    tokio::spawn(mcp_era_server::http::serve_listener(
        Arc::new(Everything::new()),
        listener,
        config,
    ));
    let options = BackendOptions {
        era,
        ..BackendOptions::default()
    };
    let backend = Backend::connect_http(&format!("http://{addr}/mcp"), &options)
        .await
        .unwrap();
    Gateway::new(backend).await
}

#[tokio::test]
async fn an_http_backend_of_either_era_is_reached_the_same_way() {
    for era in [EraMode::Legacy, EraMode::Modern] {
        let gateway = http_gateway(era).await;
        let call = json!({"name": "test_simple_text", "arguments": {}});
        let answer = ask(&gateway, "tools/call", call).await;
        assert_eq!(
            answer["result"]["content"][0]["type"], "text",
            "{era:?}: {answer}"
        );

        let elicitation = json!({"elicitation": {}});
        let call = json!({"name": "test_elicitation", "arguments": {"message": "Your name?"}});
        let first = ask_declaring(&gateway, "tools/call", call.clone(), elicitation.clone()).await;
        let first = &first["result"];
        assert_eq!(first["resultType"], "input_required", "{era:?}: {first}");
        let retry = answered(&call, first, json!({"response": "Cy"}));
        let second = ask_declaring(&gateway, "tools/call", retry, elicitation).await;
        assert_eq!(
            second["result"]["content"][0]["text"],
            r#"User response: action=accept, content={"response":"Cy"}"#,
            "{era:?}: {second}"
        );
    }
}

#[tokio::test]
async fn the_backends_progress_reaches_the_request_it_reports_on() {
    for backend in [EraMode::Legacy, EraMode::Modern] {
        for input in [true, false] {
            let gateway = gateway_with(BackendOptions {
                era: backend,
                input,
                ..BackendOptions::default()
            })
            .await;
            let client = TestClient::new(gateway).await.unwrap();
            let mut notes = client.client().notifications();
            let params = json!({
                "name": "test_tool_with_progress",
                "arguments": {},
                "_meta": {"progressToken": "mine"}
            });
            let result = client.client().request("tools/call", params).await.unwrap();
            assert_eq!(result["content"][0]["type"], "text", "{result}");
            let mut steps = Vec::new();
            while steps.len() < 3 {
                let next = tokio::time::timeout(std::time::Duration::from_secs(5), notes.next());
                let note = next.await.unwrap().unwrap();
                if note.method == "notifications/progress" {
                    assert_eq!(note.params["progressToken"], "mine", "{:?}", note.params);
                    steps.push(note.params["progress"].as_f64().unwrap());
                }
            }
            assert_eq!(steps, [0.0, 50.0, 100.0], "{backend:?}, input {input}");
        }
    }
}

/// Over a backend whose requests name their call (any over HTTP, a modern
/// one over stdio), two calls that ask for input wait for their clients at
/// the same time, and each answer reaches its own call.
#[tokio::test]
async fn calls_that_ask_run_side_by_side_when_the_backend_names_its_calls() {
    let backends = [
        ("legacy over HTTP", http_gateway(EraMode::Legacy).await),
        ("modern over HTTP", http_gateway(EraMode::Modern).await),
        ("modern over stdio", gateway(EraMode::Modern).await),
    ];
    for (backend, gateway) in backends {
        assert!(gateway.backend().unwrap().names_calls(), "{backend}");
        let elicitation = json!({"elicitation": {}});
        let call = json!({"name": "test_elicitation", "arguments": {"message": "Your name?"}});
        let mut waiting = Vec::new();
        for _ in 0..2 {
            let first = ask_declaring(&gateway, "tools/call", call.clone(), elicitation.clone());
            let first = tokio::time::timeout(std::time::Duration::from_secs(5), first)
                .await
                .unwrap_or_else(|_| panic!("{backend}: the second call waited for the first"));
            assert_eq!(
                first["result"]["resultType"], "input_required",
                "{backend}: {first}"
            );
            waiting.push(first["result"].clone());
        }
        // Answered in the other order, each with its own name.
        for (name, first) in ["Di", "Ed"].into_iter().zip(waiting.into_iter().rev()) {
            let retry = answered(&call, &first, json!({"response": name}));
            let answer = ask_declaring(&gateway, "tools/call", retry, elicitation.clone()).await;
            assert_eq!(
                answer["result"]["content"][0]["text"],
                format!(r#"User response: action=accept, content={{"response":"{name}"}}"#),
                "{backend}: {answer}"
            );
        }
    }
    // Over a legacy stdio pipe, requests name no call: calls take the lane.
    assert!(
        !gateway(EraMode::Legacy)
            .await
            .backend()
            .unwrap()
            .names_calls()
    );
}

/// The log messages of `test_tool_with_logging` a client asking at `level`
/// gets through `gateway` (`None`: it sets no `logLevel`).
async fn logs_through(gateway: Gateway, level: Option<&str>) -> Vec<String> {
    let client = TestClient::new(gateway).await.unwrap();
    let mut notes = client.client().notifications();
    let mut params = json!({"name": "test_tool_with_logging", "arguments": {}});
    if let Some(level) = level {
        params["_meta"] = json!({"io.modelcontextprotocol/logLevel": level});
    }
    let result = client.client().request("tools/call", params).await.unwrap();
    assert_eq!(result["content"][0]["type"], "text", "{result}");
    let mut logs = Vec::new();
    let quiet = std::time::Duration::from_millis(300);
    while let Ok(Some(note)) = tokio::time::timeout(quiet, notes.next()).await {
        if note.method == "notifications/message" {
            logs.push(note.params["data"].as_str().unwrap_or_default().to_owned());
        }
    }
    logs
}

/// A backend's log messages reach the request they came with, at the
/// level it asked for, and no other (over stdio, where they name no
/// request, they are the one waiting request's).
#[tokio::test]
async fn the_backends_log_messages_reach_the_request_that_asked_for_them() {
    let all = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for era in [EraMode::Legacy, EraMode::Modern] {
        let logs = logs_through(http_gateway(era).await, Some("info")).await;
        assert_eq!(logs, all, "{era:?} over HTTP");
        let logs = logs_through(http_gateway(era).await, Some("warning")).await;
        assert!(logs.is_empty(), "{era:?}: above the level: {logs:?}");
        let logs = logs_through(http_gateway(era).await, None).await;
        assert!(logs.is_empty(), "{era:?}: no logLevel: {logs:?}");
    }
    // Over stdio, while the call is the only request waiting, its
    // messages are its own (a legacy server's name no request).
    for era in [EraMode::Legacy, EraMode::Modern] {
        let logs = logs_through(gateway(era).await, Some("info")).await;
        assert_eq!(logs, all, "{era:?} over stdio");
        let logs = logs_through(gateway(era).await, Some("warning")).await;
        assert!(
            logs.is_empty(),
            "{era:?} over stdio, above the level: {logs:?}"
        );
        let logs = logs_through(gateway(era).await, None).await;
        assert!(logs.is_empty(), "{era:?} over stdio, no logLevel: {logs:?}");
    }
}

/// A server whose tools say what its request's `_meta` told it, or ask for
/// input without end.
#[derive(mcp_era_server::McpServer)]
#[mcp(name = "echo-meta", version = "1.0.0", tools, logging)]
struct EchoMeta;

#[mcp_era_server::router]
impl EchoMeta {
    /// The `clientInfo` name and `logLevel` of the request
    #[tool]
    fn told(&self, ctx: &mcp_era_server::RequestContext) -> String {
        let name = ctx.client_info().map(|info| info.name.as_str());
        format!("{} {:?}", name.unwrap_or("-"), ctx.log_level())
    }

    /// Asks again whatever the answer
    #[tool]
    fn asks_forever(&self) -> mcp_era_server::ToolAnswer {
        mcp_era_server::InputRequired::new()
            .request("again", again())
            .state("round")
            .into()
    }

    /// Asks with a `requestState` of 2 MiB
    #[tool]
    fn huge_state(&self) -> mcp_era_server::ToolAnswer {
        mcp_era_server::InputRequired::new()
            .request("again", again())
            .state("x".repeat(2 << 20))
            .into()
    }
}

/// A form asking for nothing.
fn again() -> mcp_era_server::mcp_era_types::v2026_07_28::InputRequest {
    let schema = serde_json::from_value(json!({"type": "object", "properties": {}})).unwrap();
    mcp_era_server::input::elicit_with("Again?", schema)
}

/// A gateway in front of [`EchoMeta`], spoken to as a modern backend.
async fn echo_gateway() -> Gateway {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(theirs);
    tokio::spawn(stdio::serve_with(
        Arc::new(EchoMeta),
        server_read,
        server_write,
        StdioConfig::default(),
    ));
    let (read, write) = tokio::io::split(ours);
    let options = BackendOptions {
        era: EraMode::Modern,
        ..BackendOptions::default()
    };
    let backend = Backend::connect_streams(read, write, "echo-meta", &options)
        .await
        .unwrap();
    Gateway::new(backend).await
}

/// A modern backend gets, with each request, the log level and the
/// `clientInfo` of the front's client: a legacy session's from its
/// `logging/setLevel` and `initialize`, a modern request's own.
#[tokio::test]
async fn a_modern_backend_is_told_the_front_clients_log_level_and_identity() {
    let host = |client: &mut mcp_era_client::ClientOptions| {
        client.client_info = mcp_era_server::mcp_era_types::v2026_07_28::Implementation::builder()
            .name("a-host")
            .version("1")
            .build();
    };
    let legacy = TestClient::builder(echo_gateway().await)
        .legacy()
        .options(host)
        .connect()
        .await
        .unwrap();
    assert_eq!(
        legacy.call_tool_text("told", json!({})).await.unwrap(),
        "a-host Some(Debug)",
        "a legacy session that set no level gets every message"
    );
    legacy
        .client()
        .request("logging/setLevel", json!({"level": "warning"}))
        .await
        .unwrap();
    assert_eq!(
        legacy.call_tool_text("told", json!({})).await.unwrap(),
        "a-host Some(Warning)"
    );
    let modern = TestClient::builder(echo_gateway().await)
        .options(host)
        .connect()
        .await
        .unwrap();
    assert_eq!(
        modern.call_tool_text("told", json!({})).await.unwrap(),
        "a-host None"
    );
}

/// A modern backend that asks for input without end is cut off after the
/// runtime's 16 rounds in a legacy session, each answered by the client;
/// one whose `requestState` is over our client's limit (1 MiB), before
/// anyone is asked. The front's client gets an error naming why.
#[tokio::test]
async fn a_backend_asking_without_end_or_with_a_huge_state_is_cut_off() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asked);
    let client = TestClient::builder(echo_gateway().await)
        .legacy()
        .on_elicit(move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
            mcp_era_server::mcp_era_types::v2026_07_28::ElicitResult::new(
                mcp_era_server::mcp_era_types::v2026_07_28::ElicitResultAction::Accept,
            )
        })
        .connect()
        .await
        .unwrap();
    let error = client
        .call_tool_text("asks_forever", json!({}))
        .await
        .unwrap_err()
        .to_string();
    let rounds = mcp_era_server::protocol::MAX_INPUT_ROUNDS;
    assert!(
        error.contains(&format!("still needed input after {rounds} rounds")),
        "{error}"
    );
    assert_eq!(asked.load(Ordering::SeqCst), rounds);
    let error = client
        .call_tool_text("huge_state", json!({}))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("over the limit of 1048576"), "{error}");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        rounds,
        "asked for a state too large"
    );
}

/// A modern backend's skill files are read at the backend: the front does
/// not declare the skills (or tasks) extension it would answer for from
/// its own, empty, catalogue.
#[tokio::test]
async fn a_modern_backends_skills_are_its_own_through_the_gateway() {
    let gateway = http_gateway(EraMode::Modern).await;
    let discover = ask(&gateway, "server/discover", json!({})).await;
    let extensions = &discover["result"]["capabilities"]["extensions"];
    assert!(
        extensions.get("io.modelcontextprotocol/skills").is_some(),
        "{discover}"
    );
    let uri = "skill://git-workflow/SKILL.md";
    let listed = ask(&gateway, "skills/list", json!({})).await;
    let skills = listed["result"]["skills"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(skills.iter().any(|skill| skill["uri"] == uri), "{listed}");
    let got = ask(&gateway, "skills/get", json!({"uri": uri})).await;
    assert_eq!(got["result"]["skill"]["uri"], uri, "{got}");
    let read = ask(&gateway, "resources/read", json!({"uri": uri})).await;
    assert_eq!(read["result"]["contents"][0]["uri"], uri, "{read}");
    let directory = json!({"uri": "skill://git-workflow/references"});
    let children = ask(&gateway, "resources/directory/read", directory).await;
    assert!(children["result"].is_object(), "{children}");
}
