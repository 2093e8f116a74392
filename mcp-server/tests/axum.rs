//! The transport as a tower service mounted in an axum application: its
//! routes and MCP side by side, middleware extensions reaching handlers,
//! and the transport's own rules (Host check, sessions) still applied; a
//! `Principal` set by middleware owns the tasks and legacy sessions it
//! creates, and another caller gets for them what an unknown id gets.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use mcp_era_server::http::{HttpConfig, McpService};
use mcp_era_server::{McpServer, Principal, RequestContext, router};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(McpServer)]
#[mcp(name = "mounted", version = "1.0.0", versions(legacy = ["2025-11-25"]))]
struct Mounted;

#[derive(Clone)]
struct Claims(&'static str);

#[router]
impl Mounted {
    /// Reports what the middleware and the request said.
    #[tool]
    fn whoami(&self, ctx: &RequestContext) -> String {
        let parts = ctx.http_request();
        let claims = parts
            .and_then(|p| p.extensions.get::<Claims>())
            .map(|c| c.0);
        let agent = parts
            .and_then(|p| p.headers.get("user-agent"))
            .and_then(|v| v.to_str().ok());
        format!("{claims:?} {agent:?}")
    }
}

async fn claims(mut request: Request, next: Next) -> Response {
    request.extensions_mut().insert(Claims("alice"));
    next.run(request).await
}

/// Serves the app `build` makes for the bound address; returns `host:port`.
async fn serve(build: impl FnOnce(SocketAddr) -> Router) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = build(addr);
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("127.0.0.1:{}", addr.port())
}

async fn start() -> String {
    serve(|addr| {
        let mcp = McpService::new(Mounted, HttpConfig::new(addr)).expect("a valid catalogue");
        Router::new()
            .route("/health", get(|| async { "ok" }))
            .nest_service("/mcp", mcp)
            .layer(middleware::from_fn(claims))
    })
    .await
}

/// One request on its own connection: (status, headers lower-cased, body).
async fn exchange(addr: &str, head: &str, body: &str) -> (u16, String, String) {
    let run = async {
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        let request = format!(
            "{head}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut raw = String::new();
        stream.read_to_string(&mut raw).await.expect("read");
        raw
    };
    let raw = tokio::time::timeout(Duration::from_secs(20), run)
        .await
        .expect("hang guard");
    let (head, body) = raw.split_once("\r\n\r\n").expect("a response");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    (status, head.to_ascii_lowercase(), body.to_owned())
}

fn call(name: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string()
}

fn mcp_post(addr: &str, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: whoami\r\n\
         User-Agent: probe/1{extra}"
    )
}

fn legacy_initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}})
}

/// The `Mcp-Session-Id` of a lower-cased response head.
fn session_id(headers: &str) -> String {
    headers
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .expect("a session id")
        .to_owned()
}

#[tokio::test]
async fn mcp_and_the_app_share_one_router() {
    let addr = start().await;
    let (status, _, body) =
        exchange(&addr, &format!("GET /health HTTP/1.1\r\nHost: {addr}"), "").await;
    assert_eq!((status, body.as_str()), (200, "ok"));

    let (status, _, body) = exchange(&addr, &mcp_post(&addr, ""), &call("whoami")).await;
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        r#"Some("alice") Some("probe/1")"#
    );

    let (status, _, _) = exchange(
        &addr,
        &format!("GET /elsewhere HTTP/1.1\r\nHost: {addr}"),
        "",
    )
    .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_transport_rules_apply_when_mounted() {
    let addr = start().await;
    // DNS-rebinding protection.
    let head = mcp_post(&addr, "").replace(&format!("Host: {addr}"), "Host: evil.example");
    let (status, _, _) = exchange(&addr, &head, &call("whoami")).await;
    assert_eq!(status, 403);
    // The envelope checks.
    let (status, _, body) = exchange(&addr, &mcp_post(&addr, ""), &call("nope")).await;
    assert_eq!(status, 400, "{body}");
    // A legacy session lives in the mounted service.
    let init = legacy_initialize().to_string();
    let head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json");
    let (status, headers, _) = exchange(&addr, &head, &init).await;
    assert_eq!(status, 200);
    let session = session_id(&headers);
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let (status, _, body) = exchange(
        &addr,
        &format!("{head}\r\nMcp-Session-Id: {session}"),
        &ping,
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

// ------------------------------------------------------ principals ----

#[derive(McpServer)]
#[mcp(
    name = "owned",
    version = "1.0.0",
    extension("io.modelcontextprotocol/tasks"),
    versions(legacy = ["2025-11-25"])
)]
struct Owned;

#[router]
impl Owned {
    /// Works for a while, as a task when allowed
    #[tool(task = "optional")]
    async fn slow(&self) -> &'static str {
        tokio::time::sleep(Duration::from_secs(30)).await;
        "done"
    }
}

/// Stands in for an application's own authentication: `X-User` names the
/// caller.
async fn authenticate(mut request: Request, next: Next) -> Response {
    let user = request
        .headers()
        .get("x-user")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(user) = user {
        request.extensions_mut().insert(Principal(user));
    }
    next.run(request).await
}

async fn start_owned() -> String {
    start_owned_with(|_| {}).await
}

async fn start_owned_with(tweak: impl FnOnce(&mut HttpConfig)) -> String {
    serve(|addr| {
        let mut config = HttpConfig::new(addr);
        tweak(&mut config);
        let mcp = McpService::new(Owned, config).expect("a valid catalogue");
        Router::new()
            .nest_service("/mcp", mcp)
            .layer(middleware::from_fn(authenticate))
    })
    .await
}

/// POSTs `body` as `user`, with `extra` header lines (each ending `\r\n`).
async fn post_as(
    addr: &str,
    user: Option<&str>,
    extra: &str,
    body: &Value,
) -> (u16, String, Value) {
    let user = user.map(|u| format!("\r\nX-User: {u}")).unwrap_or_default();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream{extra}{user}"
    );
    let (status, headers, body) = exchange(addr, &head, &body.to_string()).await;
    (
        status,
        headers,
        serde_json::from_str(&body).unwrap_or(Value::Null),
    )
}

/// `tasks/*` or `tools/call` declaring the tasks extension: (status, answer).
async fn with_tasks(addr: &str, user: Option<&str>, method: &str, name: &str) -> (u16, Value) {
    let mut params = match method {
        "tools/call" => json!({"name": name}),
        "tasks/update" => json!({"taskId": name, "inputResponses": {}}),
        _ => json!({"taskId": name}),
    };
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    let extra =
        format!("\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nMcp-Name: {name}");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let (status, _, answer) = post_as(addr, user, &extra, &body).await;
    (status, answer)
}

#[tokio::test]
async fn a_task_is_seen_only_by_the_principal_that_created_it() {
    let addr = start_owned().await;
    let (status, created) = with_tasks(&addr, Some("alice"), "tools/call", "slow").await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"].as_str().expect("a task id");

    let (_, unknown) = with_tasks(&addr, Some("alice"), "tasks/get", "0123456789abcdef").await;
    for user in [Some("bob"), None] {
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let (status, answer) = with_tasks(&addr, user, method, task).await;
            assert_eq!(status, 400, "{user:?} {method}: {answer}");
            assert_eq!(answer["error"], unknown["error"], "{user:?} {method}");
        }
    }

    let (status, seen) = with_tasks(&addr, Some("alice"), "tasks/get", task).await;
    assert_eq!(status, 200, "{seen}");
    assert_eq!(
        seen["result"]["status"], "working",
        "bob's cancel did nothing"
    );
    let (status, answer) = with_tasks(&addr, Some("alice"), "tasks/cancel", task).await;
    assert_eq!(status, 200, "{answer}");
    let (_, seen) = with_tasks(&addr, Some("alice"), "tasks/get", task).await;
    assert_eq!(seen["result"]["status"], "cancelled", "{seen}");
}

#[tokio::test]
async fn a_legacy_session_serves_only_the_principal_that_opened_it() {
    let addr = start_owned().await;
    let init = legacy_initialize();
    let (status, headers, _) = post_as(&addr, Some("alice"), "", &init).await;
    assert_eq!(status, 200);
    let session = session_id(&headers);
    let in_session = format!("\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    for user in [Some("bob"), None] {
        let (status, _, _) = post_as(&addr, user, &in_session, &ping).await;
        assert_eq!(status, 404, "{user:?}");
    }
    let (status, _, answer) = post_as(&addr, Some("alice"), &in_session, &ping).await;
    assert_eq!(status, 200, "{answer}");
}

/// One process's sessions, shared by two mounted services as a shared
/// store would share them between processes (no bus: none is needed here).
#[derive(Debug, Default)]
struct SharedInProcess(mcp_era_server::sessions::MemorySessionStore);

impl mcp_era_server::sessions::SessionStore for SharedInProcess {
    fn create(
        &self,
        record: mcp_era_server::sessions::SessionRecord,
    ) -> mcp_era_server::sessions::StoreFuture<'_, ()> {
        self.0.create(record)
    }
    fn load<'a>(
        &'a self,
        id: &'a str,
    ) -> mcp_era_server::sessions::StoreFuture<'a, Option<mcp_era_server::sessions::SessionRecord>>
    {
        self.0.load(id)
    }
    fn touch<'a>(
        &'a self,
        id: &'a str,
    ) -> mcp_era_server::sessions::StoreFuture<'a, Option<mcp_era_server::sessions::SessionState>>
    {
        self.0.touch(id)
    }
    fn peek<'a>(
        &'a self,
        id: &'a str,
    ) -> mcp_era_server::sessions::StoreFuture<'a, Option<mcp_era_server::sessions::SessionState>>
    {
        self.0.peek(id)
    }
    fn change<'a>(
        &'a self,
        id: &'a str,
        change: &'a mcp_era_server::sessions::SessionChange,
    ) -> mcp_era_server::sessions::StoreFuture<'a, bool> {
        self.0.change(id, change)
    }
    fn remove<'a>(&'a self, id: &'a str) -> mcp_era_server::sessions::StoreFuture<'a, bool> {
        self.0.remove(id)
    }
    fn is_shared(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn a_shared_session_serves_only_its_principal_on_every_instance() {
    let store = std::sync::Arc::new(SharedInProcess::default());
    let shared = |c: &mut HttpConfig| c.session_store = store.clone();
    let (first, second) = (
        start_owned_with(shared).await,
        start_owned_with(shared).await,
    );
    let (status, headers, _) = post_as(&first, Some("alice"), "", &legacy_initialize()).await;
    assert_eq!(status, 200);
    let session = session_id(&headers);
    let in_session = format!("\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    for user in [Some("bob"), None] {
        let (status, _, _) = post_as(&second, user, &in_session, &ping).await;
        assert_eq!(status, 404, "{user:?}");
    }
    let (status, _, answer) = post_as(&second, Some("alice"), &in_session, &ping).await;
    assert_eq!(status, 200, "{answer}");
    // Once held by the second instance, still not bob's.
    let (status, _, _) = post_as(&second, Some("bob"), &in_session, &ping).await;
    assert_eq!(status, 404);
}

/// A `subscriptions/listen` stream opened as `user`, read as it arrives.
struct Listen {
    stream: TcpStream,
    unread: String,
}

impl Listen {
    async fn open(addr: &str, user: &str, task_ids: &[&str]) -> Self {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": {
            "notifications": {"taskIds": task_ids},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities":
                          {"extensions": {"io.modelcontextprotocol/tasks": {}}}}}})
        .to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: subscriptions/listen\r\nX-User: {user}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        stream.write_all(request.as_bytes()).await.expect("write");
        Self {
            stream,
            unread: String::new(),
        }
    }

    /// The next message on the stream whose `method` is `method`.
    async fn next(&mut self, method: &str) -> Value {
        let read = async {
            loop {
                while let Some((line, rest)) = self.unread.split_once('\n') {
                    let message = line.trim_end().strip_prefix("data: ").map(str::to_owned);
                    self.unread = rest.to_owned();
                    if let Some(message) =
                        message.and_then(|m| serde_json::from_str::<Value>(&m).ok())
                        && message["method"] == method
                    {
                        return message;
                    }
                }
                let mut chunk = vec![0; 4096];
                let n = self.stream.read(&mut chunk).await.expect("read");
                assert!(n > 0, "the stream ended before {method}");
                self.unread.push_str(&String::from_utf8_lossy(&chunk[..n]));
            }
        };
        tokio::time::timeout(Duration::from_secs(20), read)
            .await
            .expect("hang guard")
    }
}

#[tokio::test]
async fn a_listen_stream_follows_only_its_principal_s_tasks() {
    let addr = start_owned().await;
    let mut tasks = Vec::new();
    for user in ["alice", "bob"] {
        let (status, created) = with_tasks(&addr, Some(user), "tools/call", "slow").await;
        assert_eq!(status, 200, "{created}");
        tasks.push(
            created["result"]["taskId"]
                .as_str()
                .expect("an id")
                .to_owned(),
        );
    }
    let (alices, bobs) = (tasks[0].as_str(), tasks[1].as_str());

    // Bob names both tasks: only his own is acknowledged, as an unknown id
    // would not be.
    let mut bob = Listen::open(&addr, "bob", &[alices, bobs, "0123456789abcdef"]).await;
    let ack = bob.next("notifications/subscriptions/acknowledged").await;
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([bobs]),
        "{ack}"
    );
    let mut alice = Listen::open(&addr, "alice", &[alices, bobs]).await;
    let ack = alice.next("notifications/subscriptions/acknowledged").await;
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([alices]),
        "{ack}"
    );

    // Alice's task ends first: bob's stream skips it and carries his own.
    let (status, answer) = with_tasks(&addr, Some("alice"), "tasks/cancel", alices).await;
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = with_tasks(&addr, Some("bob"), "tasks/cancel", bobs).await;
    assert_eq!(status, 200, "{answer}");
    let seen = bob.next("notifications/tasks").await;
    assert_eq!(seen["params"]["taskId"], bobs, "{seen}");
    let seen = alice.next("notifications/tasks").await;
    assert_eq!(seen["params"]["taskId"], alices, "{seen}");
    assert_eq!(seen["params"]["status"], "cancelled", "{seen}");
}

#[tokio::test]
async fn each_principal_has_its_own_stream_cap() {
    let addr = start_owned_with(|c| c.max_streams_per_principal = 2).await;
    let mut open = Vec::new();
    for user in ["alice", "alice", "bob"] {
        let mut listen = Listen::open(&addr, user, &[]).await;
        listen
            .next("notifications/subscriptions/acknowledged")
            .await;
        open.push(listen);
    }
    let listen = json!({"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen", "params": {
        "notifications": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let extra = "\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen";
    let (status, headers, answer) = post_as(&addr, Some("alice"), extra, &listen).await;
    assert_eq!(status, 429, "{answer}");
    assert!(headers.contains("retry-after: 1"), "{headers}");
    assert_eq!(answer["id"], 5, "{answer}");
    let message = answer["error"]["message"].as_str().expect("a message");
    assert!(message.contains("at most 2"), "{message}");
    // Bob's second stream still fits.
    let mut bobs = Listen::open(&addr, "bob", &[]).await;
    bobs.next("notifications/subscriptions/acknowledged").await;
}
