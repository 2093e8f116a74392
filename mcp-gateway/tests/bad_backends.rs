//! Backends that misbehave, written in `sh`: one that exits at start, one
//! that prints garbage, one that never answers, one that answers with the
//! wrong ids, one that dies mid-call; and an HTTP backend that is not up
//! yet. The front answers every request with a spec-shaped error within the
//! backend timeout, starts (or reaches) the backend again with a growing
//! delay, and serves it once it is back.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::path::Path;
use std::time::Duration;

use mcp_era_gateway::{BackendOptions, BackendSpec, EraMode, Gateway};
use mcp_era_server::ServerEvent;
use mcp_era_server::mcp_era_types::v2026_07_28::SubscriptionFilter;
use serde_json::{Value, json};

mod common;
use common::{ask, ask_in, front_client};

/// The longest any request may take here: the backend timeout (1 s) and
/// a wide margin; a request still unanswered then hangs.
const NO_HANG: Duration = Duration::from_secs(15);

/// A legacy server in `sh` that writes the time of each start (ns) to the
/// file named by `$1`, then runs `body` (a `case` on each request line, with
/// `$id` its id and `answer RESULT` to answer it).
fn backend(starts: &Path, body: &str) -> BackendSpec {
    let script = format!(
        r#"date +%s%N >> "$1"
answer() {{ printf '{{"jsonrpc":"2.0","id":%s,"result":%s}}\n' "$id" "$1"; }}
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  {body}
done"#
    );
    BackendSpec::Command {
        program: "sh".into(),
        args: vec![
            "-c".into(),
            script,
            "sh".into(),
            starts.display().to_string(),
        ],
        env: Vec::new(),
    }
}

/// Answers `initialize` and `tools/list` (one tool, `crash`), and does
/// what `on_call` says with `tools/call`.
fn tool_server(starts: &Path, on_call: &str) -> BackendSpec {
    backend(starts, &tool_cases(on_call))
}

fn tool_cases(on_call: &str) -> String {
    format!(
        r#"case "$line" in
    *'"method":"initialize"'*) answer '{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"sh","version":"1"}}}}' ;;
    *'"method":"tools/list"'*) answer '{{"tools":[{{"name":"crash","inputSchema":{{"type":"object"}}}}]}}' ;;
    *'"method":"tools/call"'*) {on_call} ;;
  esac"#
    )
}

/// One backend session (whose starts the tests count) for every client.
fn options() -> BackendOptions {
    BackendOptions {
        era: EraMode::Legacy,
        request_timeout: Duration::from_secs(1),
        per_capability_set: false,
        ..BackendOptions::default()
    }
}

/// A request to the front, failing the test if it hangs.
async fn request(gateway: &Gateway, method: &str, params: Value) -> Value {
    tokio::time::timeout(NO_HANG, ask(gateway, method, params))
        .await
        .unwrap_or_else(|_| panic!("{method} hung"))
}

/// The start times the backend wrote, once there are at least `n`.
async fn starts(file: &Path, n: usize) -> Vec<u128> {
    let deadline = tokio::time::Instant::now() + NO_HANG;
    loop {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let times: Vec<u128> = text.lines().filter_map(|l| l.parse().ok()).collect();
        if times.len() >= n {
            return times;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} start(s), not {n}",
            times.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn starts_file(dir: &Path, name: &str) -> std::path::PathBuf {
    dir.join(format!("{name}.starts"))
}

#[tokio::test]
async fn a_backend_that_never_comes_up_is_refused_with_the_reason_and_retried() {
    let dir = tempdir();
    let cases = [
        // Exits when spoken to.
        ("exits", "exit 3".to_owned()),
        ("garbage", "echo 'this is not JSON'".to_owned()),
        ("silent", ": nothing".to_owned()),
        (
            "wrong-ids",
            r#"id=$((id + 1000)); answer '{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"sh","version":"1"}}'"#
                .to_owned(),
        ),
    ];
    for (name, body) in cases {
        let file = starts_file(&dir, name);
        let started = tokio::time::Instant::now();
        let gateway = Gateway::start(backend(&file, &body), options()).await;
        assert!(started.elapsed() < NO_HANG, "{name}: the front waited");
        // The front is served: discover answers, the lists are refused
        // with why.
        let discover = request(&gateway, "server/discover", json!({})).await;
        assert!(
            discover["result"]["capabilities"]["tools"].is_object(),
            "{name}: {discover}"
        );
        let list = request(&gateway, "tools/list", json!({})).await;
        let error = &list["error"];
        assert!(
            error["code"] == -32603 || error["code"] == -31408,
            "{name}: {list}"
        );
        assert!(
            error["message"].as_str().unwrap().contains("backend"),
            "{name}: {list}"
        );
        // And the backend is tried again, later each time.
        let times = starts(&file, 3).await;
        let gaps: Vec<u128> = times
            .windows(2)
            .map(|w| (w[1] - w[0]) / 1_000_000)
            .collect();
        assert!(gaps[0] >= 250 && gaps[1] >= 500, "{name}: gaps {gaps:?} ms");
    }
}

#[tokio::test]
async fn a_backend_that_dies_mid_call_is_started_again_and_served() {
    let dir = tempdir();
    let file = starts_file(&dir, "dies");
    let gateway = Gateway::start(tool_server(&file, "exit 1"), options()).await;
    let mut heard = gateway.events().subscribe();
    let list = request(&gateway, "tools/list", json!({})).await;
    assert_eq!(list["result"]["tools"][0]["name"], "crash", "{list}");

    let call = request(
        &gateway,
        "tools/call",
        json!({"name": "crash", "arguments": {}}),
    )
    .await;
    assert_eq!(call["error"]["code"], -32603, "{call}");
    let message = call["error"]["message"].as_str().unwrap();
    assert!(message.contains("stdout"), "{call}");

    // Started again: the lists are announced as changed, and served.
    starts(&file, 2).await;
    let changed = tokio::time::timeout(NO_HANG, async {
        loop {
            if heard.recv().await.unwrap() == ServerEvent::ToolsListChanged {
                return;
            }
        }
    });
    changed.await.unwrap();
    let list = request(&gateway, "tools/list", json!({})).await;
    assert_eq!(list["result"]["tools"][0]["name"], "crash", "{list}");
}

#[tokio::test]
async fn a_backend_that_answers_a_call_with_the_wrong_id_times_out_and_serves_on() {
    let dir = tempdir();
    let file = starts_file(&dir, "wrong-call-id");
    let wrong = r#"id=$((id + 1000)); answer '{"content":[]}'"#;
    let gateway = Gateway::start(tool_server(&file, wrong), options()).await;
    let call = request(
        &gateway,
        "tools/call",
        json!({"name": "crash", "arguments": {}}),
    )
    .await;
    assert_eq!(call["error"]["code"], -31408, "{call}");
    let list = request(&gateway, "tools/list", json!({})).await;
    assert_eq!(list["result"]["tools"][0]["name"], "crash", "{list}");
    assert_eq!(starts(&file, 1).await.len(), 1, "no restart was needed");
}

/// A front request dropped before the backend answered (a client's
/// `notifications/cancelled` aborts it so) is cancelled at the backend,
/// under the backend's own request id, whether the call went through the
/// input rounds or not.
#[tokio::test]
async fn a_cancelled_call_is_cancelled_at_the_backend() {
    let dir = tempdir();
    for input in [true, false] {
        let file = starts_file(&dir, &format!("cancel-{input}"));
        let seen = dir.join(format!("cancel-{input}.seen"));
        let record = format!(r#"printf '%s\n' "$line" >> '{}'"#, seen.display());
        let gateway = Gateway::start(
            backend(&file, &format!("{record}\n  {}", tool_cases(": never"))),
            BackendOptions {
                input,
                // Longer than the test: only the cancellation can end it.
                request_timeout: Duration::from_secs(60),
                ..options()
            },
        )
        .await;
        let call = ask(
            &gateway,
            "tools/call",
            json!({"name": "crash", "arguments": {}}),
        );
        let dropped = tokio::time::timeout(Duration::from_millis(300), call).await;
        assert!(dropped.is_err(), "the backend never answers");
        let deadline = tokio::time::Instant::now() + NO_HANG;
        let (call, cancel) = loop {
            let lines: Vec<Value> = std::fs::read_to_string(&seen)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            let cancel = lines
                .iter()
                .find(|l| l["method"] == "notifications/cancelled")
                .cloned();
            let call = lines.iter().find(|l| l["method"] == "tools/call").cloned();
            if let (Some(call), Some(cancel)) = (call, cancel) {
                break (call, cancel);
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "input {input}: {lines:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(call["method"], "tools/call", "input {input}");
        assert_eq!(
            cancel["params"]["requestId"], call["id"],
            "input {input}: {cancel}"
        );
    }
}

#[tokio::test]
async fn an_http_backend_down_at_first_is_served_once_it_is_up() {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let url = format!("http://{addr}/mcp");
    let gateway = Gateway::start(BackendSpec::Url(url), options()).await;
    let list = request(&gateway, "tools/list", json!({})).await;
    assert_eq!(list["error"]["code"], -32603, "{list}");

    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let config = mcp_era_server::http::HttpConfig::new(addr);
    tokio::spawn(mcp_era_server::http::serve_listener(
        std::sync::Arc::new(mcp_everything::Everything::new()),
        listener,
        config,
    ));
    let deadline = tokio::time::Instant::now() + NO_HANG;
    loop {
        let list = request(&gateway, "tools/list", json!({})).await;
        if list["result"]["tools"].is_array() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never served: {list}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `tools/call` of `crash` as `principal` would send it over HTTP: the
/// backend process's id it answers with.
async fn pid_for(gateway: &Gateway, principal: Option<&str>) -> String {
    pid_declaring(gateway, principal, json!({})).await
}

/// [`pid_for`] from a client declaring `capabilities`.
async fn pid_declaring(gateway: &Gateway, principal: Option<&str>, capabilities: Value) -> String {
    let (mut parts, ()) = http::Request::new(()).into_parts();
    if let Some(principal) = principal {
        parts
            .extensions
            .insert(mcp_era_server::Principal(principal.into()));
    }
    let context = mcp_era_server::transport::MessageContext::stdio()
        .with_http_request(std::sync::Arc::new(parts));
    let params = json!({"name": "crash", "arguments": {}});
    let answer = ask_in(gateway, "tools/call", params, capabilities, &context);
    let answer = tokio::time::timeout(NO_HANG, answer).await.unwrap();
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{principal:?}: {answer}"))
        .to_owned()
}

/// With a backend per principal, each principal's calls reach a process
/// of its own, started at its first request; requests with no principal
/// share one; past the limit, the principal unused the longest loses its
/// backend and gets a new one when it comes back.
#[tokio::test]
async fn each_principal_gets_a_backend_of_its_own() {
    let dir = tempdir();
    let file = starts_file(&dir, "principals");
    let pid = r#"answer "{\"content\":[{\"type\":\"text\",\"text\":\"$$\"}]}""#;
    let options = BackendOptions {
        per_principal: Some(2),
        ..options()
    };
    let gateway = Gateway::start(tool_server(&file, pid), options).await;
    let shared = pid_for(&gateway, None).await;
    let ann = pid_for(&gateway, Some("ann")).await;
    let bob = pid_for(&gateway, Some("bob")).await;
    assert_ne!(ann, bob);
    assert!(![&ann, &bob].contains(&&shared), "{shared} {ann} {bob}");
    assert_eq!(pid_for(&gateway, Some("ann")).await, ann);
    assert_eq!(pid_for(&gateway, None).await, shared);
    // A third principal: bob, unused the longest, makes room.
    let cy = pid_for(&gateway, Some("cy")).await;
    assert!(![&shared, &ann, &bob].contains(&&cy));
    assert_eq!(pid_for(&gateway, Some("ann")).await, ann);
    let bob_again = pid_for(&gateway, Some("bob")).await;
    assert!(![&shared, &ann, &bob, &cy].contains(&&bob_again));
    assert_eq!(starts(&file, 5).await.len(), 5, "one start each");
}

/// A backend server in `sh` whose `crash` tool answers with its process
/// id, and which writes each `initialize` it is sent (after its process
/// id) to `told`.
fn telling_server(starts: &Path, told: &Path) -> BackendSpec {
    let record = format!(
        r#"case "$line" in *'"method":"initialize"'*) printf '%s %s\n' "$$" "$line" >> '{}' ;; esac"#,
        told.display()
    );
    let pid = r#"answer "{\"content\":[{\"type\":\"text\",\"text\":\"$$\"}]}""#;
    backend(starts, &format!("{record}\n  {}", tool_cases(pid)))
}

/// The client capabilities process `pid` was told at `initialize`.
fn told_to(told: &Path, pid: &str) -> Value {
    let lines = std::fs::read_to_string(told).unwrap();
    let line = lines
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{pid} ")))
        .unwrap_or_else(|| panic!("no initialize from {pid} in {lines}"));
    let initialize: Value = serde_json::from_str(line).unwrap();
    initialize["params"]["capabilities"].clone()
}

/// The process ids in `told`, in the order they were started.
fn told_pids(told: &Path) -> Vec<String> {
    let lines = std::fs::read_to_string(told).unwrap_or_default();
    lines
        .lines()
        .filter_map(|line| line.split(' ').next().map(str::to_owned))
        .collect()
}

/// Waits until process `pid` is gone.
async fn gone(pid: &str) {
    let deadline = tokio::time::Instant::now() + NO_HANG;
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        assert!(tokio::time::Instant::now() < deadline, "{pid} still runs");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One backend session per capability set, told the default way.
fn per_set() -> BackendOptions {
    BackendOptions {
        per_capability_set: true,
        ..options()
    }
}

/// A gateway in front of a [`telling_server`]: it, the file of what each
/// process was told, and the id of the process started with the gateway.
async fn telling_gateway(name: &str) -> (Gateway, std::path::PathBuf, String) {
    let dir = tempdir();
    let (file, told) = (starts_file(&dir, name), dir.join("told"));
    let gateway = Gateway::start(telling_server(&file, &told), per_set()).await;
    let first = told_pids(&told)[0].clone();
    (gateway, told, first)
}

/// Clients declaring different input capabilities reach backend sessions
/// told exactly those (an empty `elicitation` read as form mode, `roots`
/// without `listChanged`); the session started with the gateway, told
/// them all, is stopped when the first request needs another one. A new
/// session's start announces no list change (the lists are the ones the
/// front declares).
#[tokio::test]
async fn each_capability_set_gets_a_backend_session_told_it() {
    let (gateway, told, first) = telling_gateway("sets").await;
    let mut events = gateway.events().subscribe();
    assert_eq!(
        told_to(&told, &first),
        json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
    );
    let form = pid_declaring(&gateway, None, json!({"elicitation": {}})).await;
    assert_ne!(form, first);
    assert_eq!(told_to(&told, &form), json!({"elicitation": {"form": {}}}));
    gone(&first).await;
    assert!(gateway.backend().is_none());
    let nothing = pid_declaring(&gateway, None, json!({})).await;
    assert_eq!(told_to(&told, &nothing), json!({}));
    let all = json!({
        "elicitation": {"form": {}, "url": {}},
        "sampling": {"tools": {}},
        "roots": {"listChanged": true}
    });
    let everything = pid_declaring(&gateway, None, all).await;
    assert_eq!(
        told_to(&told, &everything),
        json!({"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}, "roots": {}})
    );
    assert_eq!(
        pid_declaring(&gateway, None, json!({"elicitation": {"form": {}}})).await,
        form
    );
    assert_eq!(pid_for(&gateway, None).await, nothing);
    let pids = told_pids(&told);
    assert_eq!(pids.len(), 4, "{pids:?}");
    assert!(![&form, &nothing].contains(&&everything));
    let announced = events.try_recv();
    assert!(announced.is_err(), "{announced:?}");
}

/// A modern server in `sh` answering `tools/call` of `crash` with its
/// process id, each call's line recorded in `told` after that id
/// (`subscriptions/listen` acknowledged, then left open).
fn modern_telling_server(starts: &Path, told: &Path) -> BackendSpec {
    let pid = r#"answer "{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"$$\"}]}""#;
    let body = format!(
        r#"case "$line" in
    *'"method":"server/discover"'*) answer '{{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{{"tools":{{}}}},"ttlMs":0,"cacheScope":"private","_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"sh","version":"1"}}}}}}' ;;
    *'"method":"subscriptions/listen"'*) printf '{{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":%s}}}}}}\n' "$id" ;;
    *'"method":"tools/call"'*) printf '%s %s\n' "$$" "$line" >> '{}'; {pid} ;;
  esac"#,
        told.display()
    );
    backend(starts, &body)
}

/// A modern backend reads each client's capabilities from each request:
/// one session serves clients of every set, each request telling its
/// client's own input capabilities.
#[tokio::test]
async fn a_modern_backend_serves_every_capability_set_in_one_session() {
    let dir = tempdir();
    let (file, told) = (starts_file(&dir, "modern"), dir.join("told"));
    let options = BackendOptions {
        era: EraMode::Auto,
        ..per_set()
    };
    let gateway = Gateway::start(modern_telling_server(&file, &told), options).await;
    let sets = [
        json!({"elicitation": {}}),
        json!({}),
        json!({"sampling": {"tools": {}}, "roots": {"listChanged": true}}),
    ];
    let mut pids = Vec::new();
    for capabilities in &sets {
        pids.push(pid_declaring(&gateway, None, capabilities.clone()).await);
    }
    assert!(pids.iter().all(|pid| *pid == pids[0]), "{pids:?}");
    assert_eq!(starts(&file, 1).await.len(), 1);
    let lines = std::fs::read_to_string(&told).unwrap();
    let each: Vec<Value> = lines
        .lines()
        .map(|line| {
            let call: Value = serde_json::from_str(line.split_once(' ').unwrap().1).unwrap();
            call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"].clone()
        })
        .collect();
    assert_eq!(
        each,
        [
            json!({"elicitation": {"form": {}}}),
            json!({}),
            json!({"sampling": {"tools": {}}, "roots": {}})
        ]
    );
}

/// A modern backend session stopped to make room (here: one principal's,
/// when another comes) is gone, its listen stream with it: nothing keeps
/// the process, nor publishes its list changes any more.
#[tokio::test]
async fn a_stopped_modern_backend_session_is_gone_with_its_listen_stream() {
    let dir = tempdir();
    let (file, told) = (starts_file(&dir, "modern-stopped"), dir.join("told"));
    let options = BackendOptions {
        era: EraMode::Auto,
        per_principal: Some(1),
        ..per_set()
    };
    let gateway = Gateway::start(modern_telling_server(&file, &told), options).await;
    let first = pid_for(&gateway, Some("ann")).await;
    let second = pid_for(&gateway, Some("bob")).await;
    assert_ne!(first, second);
    gone(&first).await;
}

/// When the first request needs what the first session was told, that
/// session serves it and is kept.
#[tokio::test]
async fn the_first_session_serves_the_clients_that_declare_everything() {
    let (gateway, _told, first) = telling_gateway("home").await;
    let all = json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}});
    assert_eq!(pid_declaring(&gateway, None, all.clone()).await, first);
    let nothing = pid_for(&gateway, None).await;
    assert_ne!(nothing, first);
    assert_eq!(pid_declaring(&gateway, None, all).await, first);
    assert!(gateway.backend().is_some());
}

/// Over a legacy stdio backend, the calls of clients that declare no input
/// capability run side by side (their backend session was told none, so
/// nothing it asks needs a lane), while those of clients that may be asked
/// take the lane one at a time. The backend answers a call only once a
/// second one has come: one at a time, the first call times out.
#[tokio::test]
async fn calls_of_clients_that_cannot_be_asked_run_side_by_side() {
    let dir = tempdir();
    let file = starts_file(&dir, "side");
    let both = r#"if [ -z "$held" ]; then held=$id; else answer '{"content":[]}'; id=$held; answer '{"content":[]}'; held=; fi"#;
    let gateway = Gateway::start(tool_server(&file, both), per_set()).await;
    let call = || json!({"name": "crash", "arguments": {}});
    let twice = |capabilities: Value| {
        let context = mcp_era_server::transport::MessageContext::stdio();
        let gateway = &gateway;
        async move {
            let one = ask_in(
                gateway,
                "tools/call",
                call(),
                capabilities.clone(),
                &context,
            );
            let two = ask_in(
                gateway,
                "tools/call",
                call(),
                capabilities.clone(),
                &context,
            );
            let both = async { tokio::join!(one, two) };
            let (one, two) = tokio::time::timeout(NO_HANG, both).await.unwrap();
            [one, two].map(|answer| answer["error"]["code"].clone())
        }
    };
    assert_eq!(twice(json!({})).await, [Value::Null, Value::Null]);
    let mut codes = twice(json!({"elicitation": {}})).await.to_vec();
    codes.sort_by_key(Value::is_null);
    assert_eq!(codes[1], Value::Null, "{codes:?}");
    assert!(codes[0].is_i64(), "{codes:?}");
}

/// The lines of `seen` (`PID LINE`) whose request is `method`, as
/// `(pid, uri)`.
fn seen(file: &Path, method: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (pid, message) = line.split_once(' ')?;
            let message: Value = serde_json::from_str(message).ok()?;
            (message["method"] == method).then(|| {
                let uri = message["params"]["uri"].as_str().unwrap_or_default();
                (pid.to_owned(), uri.to_owned())
            })
        })
        .collect()
}

/// A resource a modern client follows on `subscriptions/listen` is
/// subscribed at a legacy backend, whose updates reach the stream; it is
/// subscribed again when the backend restarts, and unsubscribed when the
/// stream ends.
#[tokio::test]
async fn a_followed_resource_is_subscribed_at_the_backend_across_restarts() {
    let dir = tempdir();
    let (file, lines) = (starts_file(&dir, "follow"), dir.join("lines"));
    let body = format!(
        r#"printf '%s %s\n' "$$" "$line" >> '{}'
  case "$line" in
    *'"method":"initialize"'*) answer '{{"protocolVersion":"2025-11-25","capabilities":{{"resources":{{"subscribe":true}}}},"serverInfo":{{"name":"sh","version":"1"}}}}' ;;
    *'"method":"resources/subscribe"'*) answer '{{}}'; printf '{{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{{"uri":"file:///x"}}}}\n' ;;
    *'"method":"resources/unsubscribe"'*) answer '{{}}' ;;
    *'"method":"resources/list"'*) exit 1 ;;
  esac"#,
        lines.display()
    );
    let gateway = Gateway::start(backend(&file, &body), options()).await;
    let client = front_client(gateway).await;
    let filter =
        SubscriptionFilter::new().with_resource_subscriptions(vec!["file:///x".to_owned()]);
    let mut listen = client.subscribe(filter).await.unwrap();
    let mut updates = 0;
    while updates < 2 {
        let next = tokio::time::timeout(NO_HANG, listen.next()).await.unwrap();
        let next = next.unwrap();
        if next.method == "notifications/resources/updated" {
            assert_eq!(next.params["uri"], "file:///x", "{:?}", next.params);
            updates += 1;
            if updates == 1 {
                // The backend exits on resources/list, and is started again.
                let list = client.request("resources/list", json!({})).await;
                assert!(list.is_err(), "{list:?}");
            }
        }
    }
    let subscribed = seen(&lines, "resources/subscribe");
    assert_eq!(subscribed.len(), 2, "{subscribed:?}");
    assert_ne!(subscribed[0].0, subscribed[1].0, "one per process");
    assert!(subscribed.iter().all(|(_, uri)| uri == "file:///x"));
    drop(listen);
    let deadline = tokio::time::Instant::now() + NO_HANG;
    while seen(&lines, "resources/unsubscribe")
        != [(subscribed[1].0.clone(), "file:///x".to_owned())]
    {
        assert!(tokio::time::Instant::now() < deadline, "never unsubscribed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A backend's progress sent just before its result reaches the front
/// request before that result does (our client hands notifications over as
/// it reads them), every time.
#[tokio::test]
async fn the_last_progress_before_a_result_is_never_lost() {
    let dir = tempdir();
    let file = starts_file(&dir, "progress");
    let report = r#"token=$(printf '%s' "$line" | sed -n 's/.*"progressToken":"\([^"]*\)".*/\1/p')
      for n in 1 2 3; do printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"%s","progress":%s}}\n' "$token" "$n"; done
      answer '{"content":[]}'"#;
    let gateway = Gateway::start(tool_server(&file, report), options()).await;
    let client = mcp_era_testing::TestClient::new(gateway).await.unwrap();
    let mut notes = client.client().notifications();
    for round in 0..20 {
        let params = json!({"name": "crash", "arguments": {}, "_meta": {"progressToken": round}});
        client.client().request("tools/call", params).await.unwrap();
        let mut seen = Vec::new();
        while seen.len() < 3 {
            let next = tokio::time::timeout(NO_HANG, notes.next())
                .await
                .unwrap()
                .unwrap();
            if next.method == "notifications/progress" {
                assert_eq!(next.params["progressToken"], round, "{:?}", next.params);
                seen.push(next.params["progress"].as_f64().unwrap());
            }
        }
        assert_eq!(seen, [1.0, 2.0, 3.0], "round {round}");
    }
}

/// Over HTTP the front checks a call's `Mcp-Param-*` headers against the
/// tool's annotations: read from the backend's `tools/list` once, not on
/// every call.
#[tokio::test]
async fn a_calls_header_check_does_not_list_the_tools_each_time() {
    let dir = tempdir();
    let file = starts_file(&dir, "headers");
    let seen = dir.join("headers.seen");
    let record = format!(r#"printf '%s\n' "$line" >> '{}'"#, seen.display());
    let body = format!("{record}\n  {}", tool_cases(r#"answer '{"content":[]}'"#));
    let gateway = Gateway::start(backend(&file, &body), options()).await;
    let context = mcp_era_server::transport::MessageContext::http_headers(
        mcp_era_server::transport::HttpHeaders {
            protocol_version: Some("2026-07-28".into()),
            method: Some(Some("tools/call".into())),
            name: Some("crash".into()),
            params: Vec::new(),
        },
    );
    for _ in 0..3 {
        let params = json!({"name": "crash", "arguments": {}});
        let answer = ask_in(&gateway, "tools/call", params, json!({}), &context);
        let answer = tokio::time::timeout(NO_HANG, answer).await.unwrap();
        assert!(answer["result"]["content"].is_array(), "{answer}");
    }
    let lists = std::fs::read_to_string(&seen)
        .unwrap()
        .matches(r#""method":"tools/list""#)
        .count();
    assert_eq!(lists, 1, "tools/list sent {lists} times");
}

/// A fresh directory under the system's temporary one.
fn tempdir() -> std::path::PathBuf {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    let name: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let dir = std::env::temp_dir().join(format!("mcp-gateway-test-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
