//! Binding to the caller: a `Principal` that middleware puts in the request
//! extensions owns the tasks and legacy sessions it creates; another
//! caller's requests for them get exactly what an unknown id gets.

use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use mcp_server::http::{HttpConfig, McpService};
use mcp_server::{McpServer, Principal, router};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const TASKS: &str = "io.modelcontextprotocol/tasks";

#[derive(McpServer)]
#[mcp(
    name = "owned",
    version = "1.0.0",
    tools,
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

async fn start() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let mcp = McpService::new(Owned, HttpConfig::new(addr)).expect("a valid catalogue");
    let app = Router::new()
        .nest_service("/mcp", mcp)
        .layer(middleware::from_fn(authenticate));
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("127.0.0.1:{}", addr.port())
}

/// POSTs `body` as `user` with `extra` header lines: (status, headers, body).
async fn post(addr: &str, user: Option<&str>, extra: &str, body: &Value) -> (u16, String, Value) {
    let body = body.to_string();
    let user = user.map(|u| format!("X-User: {u}\r\n")).unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{user}{extra}\
         Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.expect("connect");
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
    let body = serde_json::from_str(body).unwrap_or(Value::Null);
    (status, head.to_ascii_lowercase(), body)
}

/// A modern request declaring the tasks extension, with its routing headers.
fn modern(method: &str, name: &str, mut params: Value) -> (String, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}},
    });
    let headers =
        format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nMcp-Name: {name}\r\n");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    (headers, body)
}

async fn task_request(addr: &str, user: Option<&str>, method: &str, task: &str) -> (u16, Value) {
    let mut params = json!({"taskId": task});
    if method == "tasks/update" {
        params["inputResponses"] = json!({});
    }
    let (headers, body) = modern(method, task, params);
    let (status, _, answer) = post(addr, user, &headers, &body).await;
    (status, answer)
}

#[tokio::test]
async fn a_task_is_seen_only_by_the_principal_that_created_it() {
    let addr = start().await;
    let (headers, body) = modern("tools/call", "slow", json!({"name": "slow"}));
    let (status, _, created) = post(&addr, Some("alice"), &headers, &body).await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"].as_str().expect("a task id");

    let (_, unknown) = task_request(&addr, Some("alice"), "tasks/get", "0123456789abcdef").await;
    for user in [Some("bob"), None] {
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let (status, answer) = task_request(&addr, user, method, task).await;
            assert_eq!(status, 400, "{user:?} {method}: {answer}");
            assert_eq!(answer["error"], unknown["error"], "{user:?} {method}");
        }
    }

    let (status, seen) = task_request(&addr, Some("alice"), "tasks/get", task).await;
    assert_eq!(status, 200, "{seen}");
    assert_eq!(
        seen["result"]["status"], "working",
        "bob's cancel did nothing"
    );
    let (status, answer) = task_request(&addr, Some("alice"), "tasks/cancel", task).await;
    assert_eq!(status, 200, "{answer}");
    let (_, seen) = task_request(&addr, Some("alice"), "tasks/get", task).await;
    assert_eq!(seen["result"]["status"], "cancelled", "{seen}");
}

#[tokio::test]
async fn a_legacy_session_serves_only_the_principal_that_opened_it() {
    let addr = start().await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}});
    let (status, headers, _) = post(&addr, Some("alice"), "", &init).await;
    assert_eq!(status, 200);
    let session = headers
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .expect("a session id")
        .to_owned();
    let in_session = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    for user in [Some("bob"), None] {
        let (status, _, _) = post(&addr, user, &in_session, &ping).await;
        assert_eq!(status, 404, "{user:?}");
    }
    let (status, _, answer) = post(&addr, Some("alice"), &in_session, &ping).await;
    assert_eq!(status, 200, "{answer}");
}
