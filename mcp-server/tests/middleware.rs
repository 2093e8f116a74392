//! Middleware around MCP requests, over stdio and HTTP: a server-wide layer
//! sees each request typed (method, name, era, version, caller), a layer
//! short-circuits with an error or a result, tower's timeout and
//! concurrency limit apply unchanged (per tool or server-wide), and the
//! shipped layers refuse with spec-shaped errors: a rate limit per caller
//! that leaves other callers alone, and a result size limit.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use mcp_era_server::errors::codes;
use mcp_era_server::http::{HttpConfig, McpService, serve_listener};
use mcp_era_server::middleware::{
    BoxError, BoxFuture, McpRequest, McpResponse, RateLimitLayer, ResultLimitLayer, for_tools,
};
use mcp_era_server::stdio::{StdioConfig, serve_with};
use mcp_era_server::{ErrorObject, McpServer, McpServerExt, Principal, Reply, router};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::limit::ConcurrencyLimitLayer;
use tower::load_shed::LoadShedLayer;
use tower::timeout::TimeoutLayer;
use tower::{Layer, Service, ServiceBuilder};

use common::meta;

#[derive(McpServer)]
#[mcp(name = "guarded", version = "1.0.0", versions(legacy = ["2025-11-25"]))]
struct Guarded {
    calls: AtomicUsize,
    gate: Arc<Semaphore>,
}

impl Guarded {
    fn new() -> Self {
        Self::with_gate(Arc::new(Semaphore::new(0)))
    }

    fn with_gate(gate: Arc<Semaphore>) -> Self {
        Self {
            calls: AtomicUsize::new(0),
            gate,
        }
    }
}

#[router]
impl Guarded {
    /// Adds two numbers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        (a + b).to_string()
    }

    /// Never finishes on its own.
    #[tool]
    async fn stuck(&self) -> String {
        std::future::pending::<()>().await;
        String::new()
    }

    /// Waits until the test opens the gate.
    #[tool]
    async fn gated(&self) -> String {
        let _pass = self.gate.acquire().await;
        "through".into()
    }

    /// A long text.
    #[tool]
    fn essay(&self, bytes: usize) -> String {
        "x".repeat(bytes)
    }
}

// ------------------------------------------------------------ layers ----

/// Records what each request looks like to a layer.
#[derive(Clone, Default)]
struct Spy(Arc<Mutex<Vec<String>>>);

impl Spy {
    fn seen(&self) -> Vec<String> {
        self.0.lock().expect("lock").clone()
    }
}

struct SpyService<S> {
    inner: S,
    seen: Spy,
}

impl<S: Clone> Clone for SpyService<S> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            seen: self.seen.clone(),
        }
    }
}

impl<S> Layer<S> for Spy {
    type Service = SpyService<S>;
    fn layer(&self, inner: S) -> SpyService<S> {
        SpyService {
            inner,
            seen: self.clone(),
        }
    }
}

impl<S> Service<McpRequest> for SpyService<S>
where
    S: Service<McpRequest, Response = McpResponse, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let line = format!(
            "{} {} {:?} {} {} args={}",
            request.method(),
            request.name().unwrap_or("-"),
            request.era(),
            request.protocol_version(),
            request.principal().unwrap_or("-"),
            request.arguments().map_or(0, |a| a.len()),
        );
        self.seen.0.lock().expect("lock").push(line);
        Box::pin(self.inner.call(request))
    }
}

/// Refuses the tool `add` when `a` is negative, and answers `add` with
/// `a == 0` on its own.
#[derive(Clone, Copy)]
struct Gatekeeper;

#[derive(Clone)]
struct GatekeeperService<S>(S);

impl<S> Layer<S> for Gatekeeper {
    type Service = GatekeeperService<S>;
    fn layer(&self, inner: S) -> GatekeeperService<S> {
        GatekeeperService(inner)
    }
}

impl<S> Service<McpRequest> for GatekeeperService<S>
where
    S: Service<McpRequest, Response = McpResponse, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let a = request
            .arguments()
            .and_then(|args| args.get("a"))
            .and_then(Value::as_i64);
        match a {
            Some(a) if a < 0 => {
                let error = ErrorObject::new(-31000, "negative numbers are not served here");
                Box::pin(std::future::ready(Ok(Err(error))))
            }
            Some(0) => {
                let answer = Reply::from_serialize(&json!({
                    "resultType": "complete",
                    "content": [{"type": "text", "text": "answered by the layer"}],
                }));
                Box::pin(std::future::ready(Ok(answer)))
            }
            _ => Box::pin(self.0.call(request)),
        }
    }
}

// ------------------------------------------------------------- stdio ----

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": meta()}})
}

/// A stdio session with a server on in-memory pipes.
struct Stdio {
    input: tokio::io::DuplexStream,
    output: BufReader<tokio::io::DuplexStream>,
}

impl Stdio {
    fn start<S: McpServer + 'static>(server: S) -> Self {
        let (input, server_in) = tokio::io::duplex(64 * 1024);
        let (server_out, output) = tokio::io::duplex(1024 * 1024);
        tokio::spawn(serve_with(
            Arc::new(server),
            server_in,
            server_out,
            StdioConfig::default(),
        ));
        Self {
            input,
            output: BufReader::new(output),
        }
    }

    async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.input.write_all(line.as_bytes()).await.expect("write");
    }

    async fn next(&mut self) -> Value {
        let mut line = String::new();
        let read = tokio::time::timeout(Duration::from_secs(20), self.output.read_line(&mut line));
        read.await.expect("hang guard").expect("read");
        serde_json::from_str(&line).expect("a JSON line")
    }

    async fn ask(&mut self, message: &Value) -> Value {
        self.send(message).await;
        self.next().await
    }
}

#[tokio::test]
async fn a_server_wide_layer_sees_each_request_typed_in_both_eras() {
    let spy = Spy::default();
    let mut stdio = Stdio::start(Guarded::new().layer(spy.clone()));

    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": meta()}});
    assert!(stdio.ask(&list).await["result"]["tools"].is_array());
    let sum = stdio.ask(&call(2, "add", json!({"a": 2, "b": 3}))).await;
    assert_eq!(sum["result"]["content"][0]["text"], "5", "{sum}");
    // The gate's refusals never reach a layer.
    let discover = json!({"jsonrpc": "2.0", "id": 3, "method": "server/discover",
        "params": {"_meta": meta()}});
    assert!(stdio.ask(&discover).await["result"].is_object());

    // A legacy session on the same server.
    let init = json!({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}});
    assert_eq!(
        stdio.ask(&init).await["result"]["protocolVersion"],
        "2025-11-25"
    );
    let legacy = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 1}}});
    assert_eq!(
        stdio.ask(&legacy).await["result"]["content"][0]["text"],
        "2"
    );

    assert_eq!(
        spy.seen(),
        [
            "tools/list - Modern 2026-07-28 - args=0",
            "tools/call add Modern 2026-07-28 - args=2",
            "tools/call add Legacy 2025-11-25 - args=2",
        ]
    );
}

#[tokio::test]
async fn a_layer_short_circuits_with_an_error_or_a_result_in_both_eras() {
    let server = Guarded::new().layer(Gatekeeper);
    let mut stdio = Stdio::start(server);

    let refused = stdio.ask(&call(1, "add", json!({"a": -1, "b": 1}))).await;
    assert_eq!(refused["id"], 1);
    assert_eq!(refused["error"]["code"], -31000, "{refused}");
    let answered = stdio.ask(&call(2, "add", json!({"a": 0, "b": 1}))).await;
    assert_eq!(
        answered["result"]["content"][0]["text"], "answered by the layer",
        "{answered}"
    );
    let passed = stdio.ask(&call(3, "add", json!({"a": 1, "b": 1}))).await;
    assert_eq!(passed["result"]["content"][0]["text"], "2");

    let init = json!({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}});
    stdio.ask(&init).await;
    let legacy = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 0, "b": 1}}});
    let answered = stdio.ask(&legacy).await;
    assert_eq!(
        answered["result"]["content"][0]["text"],
        "answered by the layer"
    );
    assert!(
        answered["result"].get("resultType").is_none(),
        "the legacy bridge converts a layer's modern result: {answered}"
    );
}

#[tokio::test]
async fn a_timeout_on_one_tool_stops_that_tool_only() {
    let server = Guarded::new().layer(for_tools(
        ["stuck", "gated"],
        TimeoutLayer::new(Duration::from_millis(100)),
    ));
    let mut stdio = Stdio::start(server);
    let stuck = stdio.ask(&call(1, "stuck", json!({}))).await;
    assert_eq!(stuck["error"]["code"], codes::TIMED_OUT, "{stuck}");
    let sum = stdio.ask(&call(2, "add", json!({"a": 1, "b": 2}))).await;
    assert_eq!(sum["result"]["content"][0]["text"], "3", "{sum}");
}

#[tokio::test]
async fn a_concurrency_limit_queues_and_with_load_shedding_refuses() {
    // Queued: the second call waits for the first, then both finish.
    let gate = Arc::new(Semaphore::new(0));
    let limited = ConcurrencyLimitLayer::new(1);
    let server = Guarded::with_gate(Arc::clone(&gate)).layer(for_tools(["gated"], limited));
    let mut stdio = Stdio::start(server);
    stdio.send(&call(1, "gated", json!({}))).await;
    stdio.send(&call(2, "gated", json!({}))).await;
    // `add` is not limited: it answers while both gated calls wait.
    let sum = stdio.ask(&call(3, "add", json!({"a": 1, "b": 2}))).await;
    assert_eq!(sum["id"], 3, "{sum}");
    gate.add_permits(1);
    assert_eq!(stdio.next().await["id"], 1);
    gate.add_permits(1);
    assert_eq!(stdio.next().await["id"], 2);

    // Shed: over the limit, the call is refused at once.
    let gate = Arc::new(Semaphore::new(0));
    let shed = ServiceBuilder::new()
        .layer(LoadShedLayer::new())
        .layer(ConcurrencyLimitLayer::new(1));
    let mut stdio = Stdio::start(Guarded::with_gate(Arc::clone(&gate)).layer(shed));
    stdio.send(&call(1, "gated", json!({}))).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let refused = stdio.ask(&call(2, "add", json!({"a": 1, "b": 2}))).await;
    assert_eq!(refused["id"], 2);
    assert_eq!(refused["error"]["code"], codes::OVERLOADED, "{refused}");
    gate.add_permits(1);
    assert_eq!(
        stdio.next().await["result"]["content"][0]["text"],
        "through"
    );
    let sum = stdio.ask(&call(3, "add", json!({"a": 1, "b": 2}))).await;
    assert_eq!(sum["result"]["content"][0]["text"], "3", "{sum}");
}

// -------------------------------------------------------------- HTTP ----

/// Stands in for an application's authentication: `X-User` names the caller.
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

/// Serves `server` mounted at `/mcp` behind [`authenticate`]; `host:port`.
async fn serve_http<S: McpServer + 'static>(server: S) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("addr");
    let mcp = McpService::new(server, HttpConfig::new(addr)).expect("a valid catalogue");
    let app = Router::new()
        .nest_service("/mcp", mcp)
        .layer(middleware::from_fn(authenticate));
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("127.0.0.1:{}", addr.port())
}

/// One `tools/call` as `user`: (HTTP status, answer).
async fn http_call(addr: &str, user: Option<&str>, tool: &str, arguments: Value) -> (u16, Value) {
    let (status, answer, _) = http_call_from([127, 0, 0, 1], addr, user, tool, arguments).await;
    (status, answer)
}

/// [`http_call`] from the loopback address `source`, with the response's
/// head, lower-cased.
async fn http_call_from(
    source: [u8; 4],
    addr: &str,
    user: Option<&str>,
    tool: &str,
    arguments: Value,
) -> (u16, Value, String) {
    let body = call(1, tool, arguments).to_string();
    let user = user.map(|u| format!("X-User: {u}\r\n")).unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {tool}\r\n{user}Connection: close\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let exchange = async {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket
            .bind(SocketAddr::from((source, 0)))
            .expect("bind the source");
        let mut stream = socket
            .connect(addr.parse().expect("an address"))
            .await
            .expect("connect");
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut raw = String::new();
        stream.read_to_string(&mut raw).await.expect("read");
        raw
    };
    let raw = tokio::time::timeout(Duration::from_secs(20), exchange)
        .await
        .expect("hang guard");
    let (head, body) = raw.split_once("\r\n\r\n").expect("a response");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    (
        status,
        serde_json::from_str(body).unwrap_or(Value::Null),
        head.to_ascii_lowercase(),
    )
}

#[tokio::test]
async fn the_rate_limit_refuses_one_caller_and_leaves_the_others_alone() {
    let spy = Spy::default();
    let server = Guarded::new()
        .layer(RateLimitLayer::per_principal(2, Duration::from_secs(60)))
        .layer(spy.clone());
    let addr = serve_http(server).await;
    let args = json!({"a": 1, "b": 2});
    for _ in 0..2 {
        let (status, answer) = http_call(&addr, Some("alice"), "add", args.clone()).await;
        assert_eq!(
            (status, &answer["result"]["content"][0]["text"]),
            (200, &json!("3"))
        );
    }
    let (status, refused) = http_call(&addr, Some("alice"), "add", args.clone()).await;
    assert_eq!(status, 200, "an application error: {refused}");
    assert_eq!(refused["id"], 1);
    assert_eq!(refused["error"]["code"], codes::RATE_LIMITED, "{refused}");
    let retry = refused["error"]["data"]["retryAfterMs"]
        .as_u64()
        .expect("retryAfterMs");
    assert!((1..=30_000).contains(&retry), "{retry}");

    let (status, answer) = http_call(&addr, Some("bob"), "add", args.clone()).await;
    assert_eq!(
        (status, &answer["result"]["content"][0]["text"]),
        (200, &json!("3"))
    );
    // An anonymous caller the mount gave no address has a bucket of its own.
    let (status, answer) = http_call(&addr, None, "add", args).await;
    assert_eq!(
        (status, &answer["result"]["content"][0]["text"]),
        (200, &json!("3"))
    );

    // The outer layer saw every caller, refused or not.
    let callers: Vec<String> = spy
        .seen()
        .iter()
        .map(|line| line.split(' ').nth(4).unwrap_or_default().to_owned())
        .collect();
    assert_eq!(callers, ["alice", "alice", "alice", "bob", "-"]);
}

#[tokio::test]
async fn anonymous_callers_are_limited_per_address() {
    // Our own listener, which knows each connection's address.
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let server = Guarded::new().layer(RateLimitLayer::per_principal(1, Duration::from_secs(60)));
    tokio::spawn(serve_listener(
        Arc::new(server),
        listener,
        HttpConfig::new(addr),
    ));
    let addr = addr.to_string();
    let args = json!({"a": 1, "b": 2});
    let (_, first, _) = http_call_from([127, 0, 0, 1], &addr, None, "add", args.clone()).await;
    assert_eq!(first["result"]["content"][0]["text"], "3", "{first}");
    let (status, again, head) =
        http_call_from([127, 0, 0, 1], &addr, None, "add", args.clone()).await;
    assert_eq!(again["error"]["code"], codes::RATE_LIMITED, "{again}");
    // 200 with the JSON-RPC error, and when to retry: 60 s, rounded up.
    assert_eq!(status, 200);
    let retry_ms = again["error"]["data"]["retryAfterMs"].as_u64().unwrap_or(0);
    let expected = format!("retry-after: {}", retry_ms.div_ceil(1000));
    assert!(head.lines().any(|line| line == expected), "{head}");
    // Another anonymous client keeps its own budget.
    let (_, other, _) = http_call_from([127, 0, 0, 2], &addr, None, "add", args).await;
    assert_eq!(other["result"]["content"][0]["text"], "3", "{other}");
}

#[tokio::test]
async fn the_result_limit_refuses_large_results_with_their_size() {
    let addr = serve_http(Guarded::new().layer(ResultLimitLayer::new(1000))).await;
    let (status, small) = http_call(&addr, None, "essay", json!({"bytes": 100})).await;
    assert_eq!(status, 200);
    assert_eq!(
        small["result"]["content"][0]["text"].as_str().map(str::len),
        Some(100)
    );
    let (status, large) = http_call(&addr, None, "essay", json!({"bytes": 5000})).await;
    assert_eq!(status, 200, "{large}");
    assert_eq!(large["error"]["code"], codes::RESULT_TOO_LARGE, "{large}");
    assert_eq!(large["error"]["data"]["limit"], 1000);
    assert!(large["error"]["data"]["size"].as_u64() > Some(5000));
}

#[tokio::test]
async fn per_tool_timeouts_short_circuits_and_load_shedding_answer_over_http() {
    let gate = Arc::new(Semaphore::new(0));
    let server = Guarded::with_gate(Arc::clone(&gate))
        .layer(Gatekeeper)
        .layer(for_tools(
            ["stuck"],
            TimeoutLayer::new(Duration::from_millis(100)),
        ))
        .layer(for_tools(
            ["gated"],
            ServiceBuilder::new()
                .layer(LoadShedLayer::new())
                .layer(ConcurrencyLimitLayer::new(1)),
        ));
    let addr = serve_http(server).await;

    let (status, stuck) = http_call(&addr, None, "stuck", json!({})).await;
    assert_eq!(
        (status, &stuck["error"]["code"]),
        (200, &json!(codes::TIMED_OUT)),
        "{stuck}"
    );
    let (status, refused) = http_call(&addr, None, "add", json!({"a": -1, "b": 1})).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (200, &json!(-31000)),
        "{refused}"
    );
    let (_, answered) = http_call(&addr, None, "add", json!({"a": 0, "b": 1})).await;
    assert_eq!(
        answered["result"]["content"][0]["text"],
        "answered by the layer"
    );

    let first = tokio::spawn({
        let addr = addr.clone();
        async move { http_call(&addr, None, "gated", json!({})).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, shed) = http_call(&addr, None, "gated", json!({})).await;
    assert_eq!(
        (status, &shed["error"]["code"]),
        (200, &json!(codes::OVERLOADED)),
        "{shed}"
    );
    gate.add_permits(1);
    let (status, through) = first.await.expect("the first call");
    assert_eq!(
        (status, &through["result"]["content"][0]["text"]),
        (200, &json!("through"))
    );
}
