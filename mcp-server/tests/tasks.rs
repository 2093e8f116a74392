//! The tasks extension (`io.modelcontextprotocol/tasks`) end to end: real
//! servers on `127.0.0.1:0` spoken to over raw HTTP/1.1, so codes, HTTP
//! statuses and routing headers are the ones a client sees. Each rule of
//! `docs/tasks.md` has a test here; timeouts are hang guards only.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::sync::Arc;
use std::time::Duration;

use mcp_era_server::http::HttpConfig;
use mcp_era_server::mcp_era_types::v2026_07_28::prelude::*;
use mcp_era_server::tasks::{MemoryTaskStore, TaskRecord, TaskStatus, TaskStore};
use mcp_era_server::{McpServer, RequestContext, RetryInput, ToolError, errors, router};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const GUARD: Duration = Duration::from_secs(20);
const EXT: &str = "io.modelcontextprotocol/tasks";

/// A server with the extension and one tool per behaviour.
#[derive(McpServer)]
#[mcp(
    name = "tasky",
    version = "1.0.0",
    extension("io.modelcontextprotocol/tasks")
)]
struct Tasky;

fn input_required(requests: Value, state: Option<&str>) -> CallToolResultResponseResult {
    let requests: InputRequests = serde_json::from_value(requests).unwrap();
    let mut result = InputRequiredResult::new().with_input_requests(requests);
    result.request_state = state.map(str::to_owned);
    result.into()
}

fn elicit(property: &str) -> Value {
    json!({ "method": "elicitation/create", "params": {
        "message": format!("Give {property}"),
        "requestedSchema": { "type": "object", "properties": { property: { "type": "string" } } },
    } })
}

#[router]
impl Tasky {
    /// Never a task
    #[tool]
    fn quick(&self) -> &'static str {
        "quick"
    }

    /// Waits `ms`, a task when allowed
    #[tool(task = "optional")]
    async fn sleepy(&self, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("slept {ms}")
    }

    /// Answers without waiting: synchronous even when it may be a task
    #[tool(task = "optional")]
    fn instant(&self) -> &'static str {
        "instant"
    }

    /// A task or nothing
    #[tool(task = "required")]
    async fn must(&self) -> &'static str {
        tokio::time::sleep(Duration::from_millis(20)).await;
        "must"
    }

    /// A JSON-RPC error after waiting
    #[tool(task = "optional")]
    async fn broken(&self) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Err(ToolError::Protocol(errors::internal_error(
            "broken on purpose",
        )))
    }

    /// A tool error (`isError`) after waiting
    #[tool(task = "optional")]
    async fn soft_fail(&self) -> Result<String, String> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Err("soft failure".into())
    }

    /// Panics after waiting
    #[tool(task = "optional")]
    async fn panics(&self) -> String {
        tokio::time::sleep(Duration::from_millis(20)).await;
        panic!("on purpose")
    }

    /// Becomes a task at once, asks `a` and `b`, then `a` again, then ends
    #[tool(task = "optional")]
    async fn ask_twice(
        &self,
        retry: &RetryInput,
        ctx: &RequestContext,
    ) -> CallToolResultResponseResult {
        ctx.continue_as_task().await;
        let seen: Vec<String> = retry.responses.keys().cloned().collect();
        match retry.state.as_deref() {
            None => input_required(
                json!({ "a": elicit("a"), "b": elicit("b") }),
                Some("round-2"),
            ),
            Some("round-2") => input_required(json!({ "a": elicit("a") }), Some("round-3")),
            Some(_) => CallToolResult::text(format!("answered {}", seen.join(","))).into(),
        }
    }
}

/// The same tool kinds on a server that does not declare the extension.
#[derive(McpServer)]
#[mcp(name = "plain", version = "1.0.0")]
struct Plain;

#[router]
impl Plain {
    /// Would be a task, but the server never makes tasks
    #[tool(task = "required")]
    async fn must(&self) -> &'static str {
        tokio::time::sleep(Duration::from_millis(10)).await;
        "must, synchronously"
    }
}

/// A server whose tasks live 300 ms, in a store the test can inspect.
#[derive(McpServer)]
#[mcp(
    name = "short",
    version = "1.0.0",
    extension("io.modelcontextprotocol/tasks")
)]
struct ShortLived;

#[router]
impl ShortLived {
    /// Waits a little
    #[tool(task = "optional")]
    async fn brief(&self) -> &'static str {
        tokio::time::sleep(Duration::from_millis(10)).await;
        "brief"
    }
}

/// A server with one long tool, to see a cancelled round stop.
#[derive(McpServer)]
#[mcp(
    name = "stoppable",
    version = "1.0.0",
    extension("io.modelcontextprotocol/tasks")
)]
struct Stoppable;

#[router]
impl Stoppable {
    /// Works for a minute
    #[tool(task = "required")]
    async fn long(&self) -> &'static str {
        tokio::time::sleep(Duration::from_secs(60)).await;
        "long"
    }
}

/// Tools known at run time: a `ToolRouter` whose task support is set by
/// hand, served by a hand-written `ToolsHandler`.
#[derive(McpServer)]
#[mcp(
    name = "dynamic",
    version = "1.0.0",
    tools,
    extension("io.modelcontextprotocol/tasks")
)]
struct Dynamic {
    tools: mcp_era_server::ToolRouter,
}

impl mcp_era_server::ToolsHandler for Dynamic {
    async fn list_tools(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> mcp_era_server::HandlerResult<ListToolsResult> {
        self.tools.list_tools(params, ctx).await
    }
    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> mcp_era_server::HandlerResult<CallToolResultResponseResult> {
        self.tools.call_tool(params, ctx).await
    }
    fn task_support(&self, name: &str) -> mcp_era_server::TaskSupport {
        self.tools.task_support(name)
    }
}

#[derive(serde::Deserialize, mcp_era_server::schemars::JsonSchema)]
#[schemars(crate = "mcp_era_server::schemars")]
struct Wait {
    ms: u64,
}

fn dynamic() -> Dynamic {
    let tools = mcp_era_server::ToolRouter::new();
    tools
        .add("wait", "Waits", |args: Wait, _ctx| async move {
            tokio::time::sleep(Duration::from_millis(args.ms)).await;
            format!("waited {}", args.ms)
        })
        .unwrap();
    Dynamic { tools }
}

// ------------------------------------------------------------- client ----

async fn start<S: McpServer + 'static>(server: S) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(mcp_era_server::http::serve_listener(
        Arc::new(server),
        listener,
        HttpConfig::new(addr),
    ));
    format!("127.0.0.1:{}", addr.port())
}

struct Answer {
    status: u16,
    body: Value,
}

impl Answer {
    fn result(&self) -> &Value {
        assert_eq!(self.status, 200, "{}", self.body);
        &self.body["result"]
    }

    fn error(&self, code: i64, status: u16) -> &Value {
        assert_eq!(self.body["error"]["code"], code, "{}", self.body);
        assert_eq!(self.status, status, "{}", self.body);
        &self.body["error"]
    }
}

fn dechunk(mut raw: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = raw.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        raw = &rest[size + 2..];
    }
    out
}

/// One POST; `headers` replace the computed ones (a `None` value drops
/// the header).
async fn post_with(addr: &str, message: &Value, headers: &[(&str, Option<&str>)]) -> Answer {
    let method = message["method"].as_str().unwrap();
    let name = mcp_era_server::mcp_era_types::headers::mcp_name(method, &message["params"]);
    let mut all: Vec<(String, String)> = vec![
        ("Content-Type".into(), "application/json".into()),
        (
            "Accept".into(),
            "application/json, text/event-stream".into(),
        ),
        ("MCP-Protocol-Version".into(), "2026-07-28".into()),
        ("Mcp-Method".into(), method.into()),
    ];
    if let Some(name) = name {
        all.push(("Mcp-Name".into(), name.into()));
    }
    for (header, value) in headers {
        all.retain(|(h, _)| !h.eq_ignore_ascii_case(header));
        if let Some(value) = value {
            all.push(((*header).into(), (*value).into()));
        }
    }
    let body = message.to_string();
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (n, v) in &all {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).await.unwrap();
        raw
    };
    let raw = tokio::time::timeout(GUARD, exchange).await.unwrap();
    let (head, rest) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let text = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    let body = match text.lines().find_map(|l| l.strip_prefix("data: ")) {
        Some(data) => serde_json::from_str(data).unwrap(),
        None => serde_json::from_str(&text).unwrap(),
    };
    Answer { status, body }
}

async fn post(addr: &str, message: &Value) -> Answer {
    post_with(addr, message, &[]).await
}

/// A modern request; `ext` declares the extension in its capabilities.
fn request(method: &str, mut params: Value, ext: bool) -> Value {
    let caps = if ext {
        json!({ "elicitation": {}, "extensions": { EXT: {} } })
    } else {
        json!({ "elicitation": {} })
    };
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
    });
    json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params })
}

async fn call(addr: &str, tool: &str, arguments: Value, ext: bool) -> Answer {
    post(
        addr,
        &request(
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
            ext,
        ),
    )
    .await
}

async fn get(addr: &str, task_id: &str) -> Answer {
    post(
        addr,
        &request("tasks/get", json!({ "taskId": task_id }), true),
    )
    .await
}

async fn cancel(addr: &str, task_id: &str) -> Answer {
    post(
        addr,
        &request("tasks/cancel", json!({ "taskId": task_id }), true),
    )
    .await
}

async fn update(addr: &str, task_id: &str, responses: Value) -> Answer {
    let params = json!({ "taskId": task_id, "inputResponses": responses });
    post(addr, &request("tasks/update", params, true)).await
}

/// Creates a task with `tool` and returns its `CreateTaskResult`.
async fn create(addr: &str, tool: &str, arguments: Value) -> Value {
    let created = call(addr, tool, arguments, true).await;
    let result = created.result().clone();
    assert_eq!(result["resultType"], "task", "{result}");
    result
}

/// Polls until `status` (or a terminal status).
async fn wait_for(addr: &str, task_id: &str, status: &str) -> Value {
    let poll = async {
        loop {
            let task = get(addr, task_id).await.result().clone();
            let now = task["status"].as_str().unwrap().to_owned();
            if now == status || ["completed", "failed", "cancelled"].contains(&now.as_str()) {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(GUARD, poll).await.unwrap()
}

fn is_iso8601(value: &Value) -> bool {
    let text = value.as_str().unwrap_or_default();
    let b = text.as_bytes();
    text.len() == 24
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'.'
        && b[23] == b'Z'
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

// -------------------------------------------------------------- tests ----

#[tokio::test]
async fn discover_advertises_the_extension() {
    let addr = start(Tasky).await;
    let discover = post(&addr, &request("server/discover", json!({}), false)).await;
    assert_eq!(
        discover.result()["capabilities"]["extensions"][EXT],
        json!({})
    );
}

#[tokio::test]
async fn the_server_decides_per_tool_and_per_request() {
    let addr = start(Tasky).await;
    // Never a task, even with the extension declared.
    let quick = call(&addr, "quick", json!({}), true).await;
    assert_eq!(quick.result()["resultType"], "complete");
    assert!(quick.result().get("taskId").is_none());
    // Optional, without the extension: synchronous.
    let sync = call(&addr, "sleepy", json!({ "ms": 10 }), false).await;
    assert_eq!(sync.result()["content"][0]["text"], "slept 10");
    assert!(sync.result().get("taskId").is_none());
    // Optional, answered without waiting: synchronous too.
    let instant = call(&addr, "instant", json!({}), true).await;
    assert_eq!(instant.result()["content"][0]["text"], "instant");
    // Optional and waiting, with the extension: a task.
    let created = create(&addr, "sleepy", json!({ "ms": 50 })).await;
    assert!(created.get("result").is_none() && created.get("inputRequests").is_none());
    // A legacy `task` hint changes nothing.
    let hinted = request(
        "tools/call",
        json!({ "name": "quick", "arguments": {}, "task": { "ttl": 60000 } }),
        true,
    );
    assert_eq!(
        post(&addr, &hinted).await.result()["resultType"],
        "complete"
    );
}

#[tokio::test]
async fn tool_routers_and_hand_written_handlers_declare_task_support() {
    let server = dynamic();
    let tools = server.tools.clone();
    let addr = start(server).await;
    // Added as never: synchronous.
    let sync = call(&addr, "wait", json!({ "ms": 10 }), true).await;
    assert_eq!(sync.result()["content"][0]["text"], "waited 10");
    assert!(tools.set_task_support("wait", mcp_era_server::TaskSupport::Required));
    assert!(!tools.set_task_support("missing", mcp_era_server::TaskSupport::Optional));
    call(&addr, "wait", json!({ "ms": 10 }), false)
        .await
        .error(-32021, 400);
    let created = create(&addr, "wait", json!({ "ms": 10 })).await;
    let done = wait_for(&addr, created["taskId"].as_str().unwrap(), "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "waited 10");
}

#[tokio::test]
async fn a_required_task_without_the_extension_is_32021() {
    let addr = start(Tasky).await;
    let answer = call(&addr, "must", json!({}), false).await;
    let error = answer.error(-32021, 400);
    assert_eq!(
        error["data"]["requiredCapabilities"]["extensions"][EXT],
        json!({})
    );
    // With the extension it is a task that completes.
    let created = create(&addr, "must", json!({})).await;
    let done = wait_for(&addr, created["taskId"].as_str().unwrap(), "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "must");
}

#[tokio::test]
async fn create_task_result_shape_and_immediate_get() {
    let addr = start(Tasky).await;
    let created = create(&addr, "sleepy", json!({ "ms": 100 })).await;
    let id = created["taskId"].as_str().unwrap();
    assert_eq!(id.len(), 32, "128 random bits in hex");
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(created["status"], "working");
    assert!(is_iso8601(&created["createdAt"]) && is_iso8601(&created["lastUpdatedAt"]));
    assert!(created["ttlMs"].as_u64().is_some_and(|t| t > 0));
    assert!(created["pollIntervalMs"].as_u64().is_some_and(|p| p > 0));
    assert!(created.get("ttl").is_none() && created.get("requestState").is_none());
    assert!(created["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    // Durable before the answer: an immediate get resolves.
    let working = get(&addr, id).await;
    assert_eq!(working.result()["resultType"], "complete");
    assert_eq!(working.result()["taskId"], id);
    let done = wait_for(&addr, id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "slept 100");
    assert!(
        done["result"].get("_meta").is_none(),
        "no response meta in the result"
    );
    assert!(done.get("error").is_none());
}

#[tokio::test]
async fn tool_errors_complete_and_protocol_errors_fail() {
    let addr = start(Tasky).await;
    let soft = create(&addr, "soft_fail", json!({})).await;
    let soft = wait_for(&addr, soft["taskId"].as_str().unwrap(), "completed").await;
    assert_eq!(soft["status"], "completed");
    assert_eq!(soft["result"]["isError"], true);

    let hard = create(&addr, "broken", json!({})).await;
    let hard = wait_for(&addr, hard["taskId"].as_str().unwrap(), "failed").await;
    assert_eq!(hard["status"], "failed");
    assert_eq!(hard["error"]["code"], -32603);
    assert_eq!(hard["error"]["message"], "broken on purpose");
    assert!(hard.get("result").is_none());

    let panicked = create(&addr, "panics", json!({})).await;
    let panicked = wait_for(&addr, panicked["taskId"].as_str().unwrap(), "failed").await;
    assert_eq!(panicked["error"]["code"], -32603);
    // The server keeps serving.
    assert_eq!(call(&addr, "quick", json!({}), true).await.status, 200);
}

#[tokio::test]
async fn capability_is_checked_before_the_lookup() {
    let addr = start(Tasky).await;
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let params = json!({ "taskId": "no-such-task", "inputResponses": {} });
        let answer = post(&addr, &request(method, params, false)).await;
        let error = answer.error(-32021, 400);
        assert_eq!(
            error["data"]["requiredCapabilities"]["extensions"][EXT],
            json!({})
        );
    }
}

#[tokio::test]
async fn bad_task_ids_are_32602() {
    let addr = start(Tasky).await;
    get(&addr, "no-such-task").await.error(-32602, 400);
    get(&addr, "").await.error(-32602, 400);
    cancel(&addr, "no-such-task").await.error(-32602, 400);
    update(&addr, "no-such-task", json!({}))
        .await
        .error(-32602, 400);
    for params in [
        json!({ "taskId": 42 }),
        json!({}),
        json!({ "taskId": null }),
    ] {
        post(&addr, &request("tasks/get", params, true))
            .await
            .error(-32602, 400);
    }
    // The server keeps serving.
    assert_eq!(call(&addr, "quick", json!({}), true).await.status, 200);
}

#[tokio::test]
async fn removed_and_undeclared_methods_are_32601() {
    let addr = start(Tasky).await;
    for method in ["tasks/result", "tasks/list"] {
        let answer = post(&addr, &request(method, json!({ "taskId": "x" }), true)).await;
        answer.error(-32601, 404);
    }
    let plain = start(Plain).await;
    get(&plain, "x").await.error(-32601, 404);
    // Without the extension declared by the server, tools never become tasks.
    let sync = call(&plain, "must", json!({}), true).await;
    assert_eq!(sync.result()["content"][0]["text"], "must, synchronously");
}

#[tokio::test]
async fn mcp_name_carries_the_task_id() {
    let addr = start(Tasky).await;
    let created = create(&addr, "sleepy", json!({ "ms": 10 })).await;
    let id = created["taskId"].as_str().unwrap();
    let message = request("tasks/get", json!({ "taskId": id }), true);
    post_with(&addr, &message, &[("Mcp-Name", Some("another-task"))])
        .await
        .error(-32020, 400);
    post_with(&addr, &message, &[("Mcp-Name", None)])
        .await
        .error(-32020, 400);
    let padded = format!("  {id}  ");
    let ok = post_with(&addr, &message, &[("Mcp-Name", Some(padded.as_str()))]).await;
    assert_eq!(ok.result()["taskId"], id);
}

#[tokio::test]
async fn cancel_is_cooperative_and_idempotent() {
    let addr = start(Tasky).await;
    let created = create(&addr, "sleepy", json!({ "ms": 60000 })).await;
    let id = created["taskId"].as_str().unwrap();
    let ack = cancel(&addr, id).await;
    assert_eq!(ack.result()["resultType"], "complete");
    for field in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack.result().get(field).is_none(), "{field} on the ack");
    }
    let after = get(&addr, id).await;
    assert_eq!(after.result()["status"], "cancelled");
    // Twice: the same ack, the status stays.
    assert_eq!(cancel(&addr, id).await.result()["resultType"], "complete");
    assert_eq!(get(&addr, id).await.result()["status"], "cancelled");
    // A finished task: ack, and it stays completed.
    let quick = create(&addr, "sleepy", json!({ "ms": 10 })).await;
    let quick_id = quick["taskId"].as_str().unwrap();
    wait_for(&addr, quick_id, "completed").await;
    assert_eq!(
        cancel(&addr, quick_id).await.result()["resultType"],
        "complete"
    );
    assert_eq!(get(&addr, quick_id).await.result()["status"], "completed");
}

#[tokio::test]
async fn cancel_stops_the_running_round() {
    let addr = start(Stoppable).await;
    let created = create(&addr, "long", json!({})).await;
    let tasks = Stoppable.declaration().tasks().clone();
    assert_eq!(tasks.running_rounds(), 1);
    cancel(&addr, created["taskId"].as_str().unwrap())
        .await
        .result();
    assert_eq!(tasks.running_rounds(), 0);
}

#[tokio::test]
async fn input_required_inside_a_task() {
    let addr = start(Tasky).await;
    let created = create(&addr, "ask_twice", json!({})).await;
    let id = created["taskId"].as_str().unwrap();
    let parked = wait_for(&addr, id, "input_required").await;
    assert_eq!(parked["status"], "input_required");
    let keys: Vec<&String> = parked["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["a", "b"]);
    assert_eq!(parked["inputRequests"]["a"]["method"], "elicitation/create");
    assert!(parked.get("requestState").is_none());

    // Keys never issued are ignored; the ack is empty.
    let ignored = update(&addr, id, json!({ "zzz": accept(json!({})) })).await;
    assert_eq!(ignored.result()["resultType"], "complete");
    assert!(ignored.result().get("status").is_none());
    // A malformed answer to an outstanding key is -32602 and not taken.
    update(&addr, id, json!({ "a": "not an answer" }))
        .await
        .error(-32602, 400);
    update(&addr, id, json!(["a"])).await.error(-32602, 400);
    let params = json!({ "taskId": id });
    post(&addr, &request("tasks/update", params, true))
        .await
        .error(-32602, 400);
    assert_eq!(
        get(&addr, id).await.result()["inputRequests"]
            .as_object()
            .unwrap()
            .len(),
        2
    );

    // A partial answer: still input_required, only `b` outstanding.
    update(&addr, id, json!({ "a": accept(json!({ "a": "1" })) }))
        .await
        .result();
    let partial = get(&addr, id).await;
    assert_eq!(partial.result()["status"], "input_required");
    let keys: Vec<&String> = partial.result()["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["b"]);
    // Answering `a` again changes nothing.
    update(&addr, id, json!({ "a": accept(json!({ "a": "2" })) }))
        .await
        .result();

    update(&addr, id, json!({ "b": accept(json!({ "b": "1" })) }))
        .await
        .result();
    // The next round asks `a` again: a fresh key, since keys are unique
    // over the task's life.
    let again = wait_for(&addr, id, "input_required").await;
    let keys: Vec<String> = again["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys.len(), 1);
    assert_ne!(keys[0], "a");
    update(&addr, id, json!({ "a": accept(json!({})) }))
        .await
        .result();
    assert_eq!(get(&addr, id).await.result()["status"], "input_required");
    update(
        &addr,
        id,
        json!({ keys[0].clone(): accept(json!({ "a": "3" })) }),
    )
    .await
    .result();
    let done = wait_for(&addr, id, "completed").await;
    // The handler saw its own key, not the wire key.
    assert_eq!(done["result"]["content"][0]["text"], "answered a");
    // Updates to a finished task are acknowledged and ignored.
    update(&addr, id, json!({ "a": accept(json!({})) }))
        .await
        .result();
    assert_eq!(get(&addr, id).await.result()["status"], "completed");
}

#[tokio::test]
async fn cancelling_a_task_that_waits_for_input() {
    let addr = start(Tasky).await;
    let created = create(&addr, "ask_twice", json!({})).await;
    let id = created["taskId"].as_str().unwrap();
    wait_for(&addr, id, "input_required").await;
    cancel(&addr, id).await.result();
    let after = get(&addr, id).await;
    assert_eq!(after.result()["status"], "cancelled");
    assert!(after.result().get("inputRequests").is_none());
    // An answer now is ignored.
    update(&addr, id, json!({ "a": accept(json!({})) }))
        .await
        .result();
    assert_eq!(get(&addr, id).await.result()["status"], "cancelled");
}

#[tokio::test]
async fn tasks_expire_after_their_ttl_and_leave_nothing_behind() {
    let store = Arc::new(MemoryTaskStore::new(100));
    let tasks = ShortLived.declaration().tasks().clone();
    tasks.set_store(store.clone());
    tasks.set_ttl_ms(Some(300));
    let addr = start(ShortLived).await;
    let created = create(&addr, "brief", json!({})).await;
    assert_eq!(created["ttlMs"], 300);
    let id = created["taskId"].as_str().unwrap();
    wait_for(&addr, id, "completed").await;
    assert_eq!(tasks.running_rounds(), 0);
    tokio::time::sleep(Duration::from_millis(350)).await;
    // Polling after the TTL: the task is gone.
    let gone = get(&addr, id).await;
    gone.error(-32602, 400);
    cancel(&addr, id).await.error(-32602, 400);
    store.sweep();
    assert!(store.is_empty());
}

fn record(id: &str, status: TaskStatus, ttl_ms: Option<u64>) -> TaskRecord {
    TaskRecord {
        task_id: id.into(),
        status,
        status_message: None,
        created_at_ms: 1_000,
        last_updated_at_ms: 1_000,
        ttl_ms,
        poll_interval_ms: None,
        request: json!({}),
        request_state: None,
        input_requests: Default::default(),
        answers: Default::default(),
        key_map: Default::default(),
        used_keys: Default::default(),
        round: 1,
        owner: None,
        result: None,
        error: None,
        lease_until_ms: None,
        lease_lapsed_at_ms: None,
    }
}

#[tokio::test]
async fn the_memory_store_is_bounded() {
    let store = MemoryTaskStore::new(2);
    store
        .create(record("a", TaskStatus::Working, None))
        .await
        .unwrap();
    store
        .create(record("b", TaskStatus::Working, None))
        .await
        .unwrap();
    // Full of unfinished tasks: creation fails.
    assert!(
        store
            .create(record("c", TaskStatus::Working, None))
            .await
            .is_err()
    );
    // A finished task makes room.
    let mut finish = |r: &mut TaskRecord| {
        r.status = TaskStatus::Completed;
        true
    };
    store.update("a", &mut finish).await.unwrap();
    store
        .create(record("c", TaskStatus::Working, None))
        .await
        .unwrap();
    assert!(store.get("a").await.unwrap().is_none());
    assert_eq!(store.len(), 2);
    // Expired records read as unknown and are dropped.
    let expired = MemoryTaskStore::new(2);
    expired
        .create(record("old", TaskStatus::Working, Some(1)))
        .await
        .unwrap();
    assert!(expired.get("old").await.unwrap().is_none());
    assert!(expired.is_empty());
}

// ---------------------------------------------------- notifications ----

fn message(id: i64, method: &str, params: Value, ext: bool) -> Vec<u8> {
    let mut request = request(method, params, ext);
    request["id"] = json!(id);
    request.to_string().into_bytes()
}

#[tokio::test]
async fn listen_streams_carry_task_status_notifications() {
    use mcp_era_server::ServerEvents;
    use mcp_era_server::transport::MessageContext;
    use std::sync::Mutex;
    let server = Arc::new(Tasky);
    let events = ServerEvents::new();
    let ctx = MessageContext::stdio().with_events(events.clone());
    // Task notifications need the extension on the listen request.
    let filter = json!({ "notifications": { "taskIds": ["x"] } });
    let refused = mcp_era_server::transport::handle_message_shared(
        &server,
        &message(1, "subscriptions/listen", filter, false),
        &ctx,
    )
    .await;
    assert_eq!(refused.json().unwrap()["error"]["code"], -32021);

    let call = json!({ "name": "sleepy", "arguments": { "ms": 100 } });
    let created = mcp_era_server::transport::handle_message_shared(
        &server,
        &message(2, "tools/call", call, true),
        &ctx,
    )
    .await
    .json()
    .unwrap();
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let listen_ctx = ctx.clone().with_sink(move |m| sink.lock().unwrap().push(m));
    let filter = json!({ "notifications": { "taskIds": [id] } });
    let listen = message(3, "subscriptions/listen", filter, true);
    let stream = tokio::spawn({
        let server = Arc::clone(&server);
        async move {
            mcp_era_server::transport::handle_message_shared(&server, &listen, &listen_ctx).await
        }
    });
    let wait = async {
        loop {
            let done = seen.lock().unwrap().iter().any(|m| {
                m["method"] == "notifications/tasks" && m["params"]["status"] == "completed"
            });
            if done {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(GUARD, wait).await.unwrap();
    stream.abort();
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen[0]["method"],
        "notifications/subscriptions/acknowledged"
    );
    assert_eq!(seen[0]["params"]["notifications"]["taskIds"], json!([id]));
    let task = seen
        .iter()
        .find(|m| m["method"] == "notifications/tasks")
        .unwrap();
    assert_eq!(task["params"]["taskId"], id);
    assert_eq!(task["params"]["result"]["content"][0]["text"], "slept 100");
    assert!(task["params"].get("resultType").is_none());
    assert_eq!(
        task["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        3
    );
}

// ------------------------------------------------------- store faults ----

/// The memory store behind a switch: it can refuse every change (a shared
/// store refusing writes), or make the next change and lose its answer (a
/// shared store whose reply never arrived). A refused change is still run
/// on a copy, to show what the engine tried to write.
#[derive(Default)]
struct Faulty {
    inner: MemoryTaskStore,
    refuse: std::sync::atomic::AtomicBool,
    lose_next_answer: std::sync::atomic::AtomicBool,
    attempted: std::sync::Mutex<Option<TaskRecord>>,
}

impl TaskStore for Faulty {
    fn create(&self, record: TaskRecord) -> mcp_era_server::tasks::StoreFuture<'_, ()> {
        self.inner.create(record)
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> mcp_era_server::tasks::StoreFuture<'a, Option<TaskRecord>> {
        self.inner.get(task_id)
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        change: mcp_era_server::tasks::Change<'a>,
    ) -> mcp_era_server::tasks::StoreFuture<'a, Option<TaskRecord>> {
        use std::sync::atomic::Ordering::SeqCst;
        Box::pin(async move {
            if self.refuse.load(SeqCst) {
                if let Some(mut copy) = self.inner.get(task_id).await? {
                    change(&mut copy);
                    *self.attempted.lock().unwrap() = Some(copy);
                }
                return Err(mcp_era_server::tasks::StoreError("writes refused".into()));
            }
            let stored = self.inner.update(task_id, change).await?;
            if self.lose_next_answer.swap(false, SeqCst) {
                return Err(mcp_era_server::tasks::StoreError("answer lost".into()));
            }
            Ok(stored)
        })
    }
}

/// A server whose tasks live in a [`Faulty`] store.
#[derive(McpServer)]
#[mcp(
    name = "faulty",
    version = "1.0.0",
    extension("io.modelcontextprotocol/tasks")
)]
struct FaultyServer;

#[router]
impl FaultyServer {
    /// Waits `ms`, a task when allowed
    #[tool(task = "optional")]
    async fn sleepy(&self, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("slept {ms}")
    }

    /// Becomes a task, asks `a` once, then ends
    #[tool(task = "optional")]
    async fn ask(&self, retry: &RetryInput, ctx: &RequestContext) -> CallToolResultResponseResult {
        ctx.continue_as_task().await;
        match retry.state.as_deref() {
            None => input_required(json!({ "a": elicit("a") }), Some("asked")),
            Some(_) => CallToolResult::text("answered").into(),
        }
    }
}

/// Waits until the store was asked for a change that `wanted` accepts.
async fn attempted(store: &Faulty, wanted: impl Fn(&TaskRecord) -> bool) {
    let wait = async {
        while !store
            .attempted
            .lock()
            .unwrap()
            .as_ref()
            .is_some_and(&wanted)
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(GUARD, wait).await.unwrap();
}

/// "No result computed while the store was down is lost": a round end
/// the store refused is stored once it takes writes again; past the
/// end-retry window the task is recorded failed instead; a `tasks/update`
/// whose write landed but whose answer was lost still runs its round.
#[tokio::test]
async fn round_ends_survive_a_failing_store() {
    use std::sync::atomic::Ordering::SeqCst;
    let store = Arc::new(Faulty::default());
    let tasks = FaultyServer.declaration().tasks().clone();
    tasks.set_store(store.clone());
    let addr = start(FaultyServer).await;

    // Refused while the round ends: kept, then stored.
    let created = create(&addr, "sleepy", json!({ "ms": 100 })).await;
    let id = created["taskId"].as_str().unwrap();
    store.refuse.store(true, SeqCst);
    attempted(&store, |r| {
        r.task_id == id && r.status == TaskStatus::Completed
    })
    .await;
    assert_eq!(tasks.unstored_ends(), 1);
    // Reads go on; changes answer -32603 (HTTP 200).
    assert_eq!(get(&addr, id).await.result()["status"], "working");
    let refused = cancel(&addr, id).await;
    let error = refused.error(-32603, 200);
    assert_eq!(error["message"], "The task store failed: writes refused");
    store.refuse.store(false, SeqCst);
    let done = wait_for(&addr, id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "slept 100");

    // Past the window: failed, saying why, once the store answers.
    tasks.set_end_retry_window(Duration::from_millis(100));
    let created = create(&addr, "sleepy", json!({ "ms": 50 })).await;
    let id = created["taskId"].as_str().unwrap();
    store.refuse.store(true, SeqCst);
    attempted(&store, |r| {
        r.task_id == id && r.status == TaskStatus::Failed
    })
    .await;
    store.refuse.store(false, SeqCst);
    let failed = wait_for(&addr, id, "failed").await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    assert_eq!(
        failed["error"]["message"],
        "The task's result could not be stored: writes refused"
    );
    tasks.set_end_retry_window(mcp_era_server::tasks::DEFAULT_END_RETRY_WINDOW);

    // tasks/update refused: nothing changed, the task still waits for
    // input (not `working` with no round), and the retry resumes it.
    let created = create(&addr, "ask", json!({})).await;
    let id = created["taskId"].as_str().unwrap();
    wait_for(&addr, id, "input_required").await;
    let answer = json!({ "a": accept(json!({ "a": "1" })) });
    store.refuse.store(true, SeqCst);
    update(&addr, id, answer.clone()).await.error(-32603, 200);
    store.refuse.store(false, SeqCst);
    assert_eq!(get(&addr, id).await.result()["status"], "input_required");
    update(&addr, id, answer.clone()).await.result();
    wait_for(&addr, id, "completed").await;

    // tasks/update written but its answer lost: the round still runs.
    let created = create(&addr, "ask", json!({})).await;
    let id = created["taskId"].as_str().unwrap();
    wait_for(&addr, id, "input_required").await;
    store.lose_next_answer.store(true, SeqCst);
    let lost = update(&addr, id, answer).await;
    assert_eq!(
        lost.error(-32603, 200)["message"],
        "The task store failed: answer lost"
    );
    let done = wait_for(&addr, id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "answered");
    let settle = async {
        while tasks.unstored_ends() > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(GUARD, settle).await.unwrap();
}
