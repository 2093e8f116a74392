//! Several `mcp-everything http` processes on one real `redis-server`
//! (feature `redis`), sharing tasks (`--task-store`) and server events
//! (`--event-bus`):
//!
//! * tasks: created on A, read, updated and cancelled on B, still read on
//!   B after A is killed mid-task; with a short `--task-lease-ms`, a task
//!   whose process was killed ends `failed` when read elsewhere, and one
//!   whose process lives runs past many leases and completes;
//! * events: a listen stream on A gets the list changes, resource updates
//!   and task status notifications raised on B, each exactly once, and a
//!   legacy session's GET stream on A gets B's list changes;
//! * faults: Redis refusing writes (`maxmemory`), hung (SIGSTOP) and killed
//!   (SIGKILL): each request that needs Redis gets `-32603` within the
//!   store's 2 s bound, the others go on, a task round that ended during
//!   the outage is stored when Redis returns (or, past the end-retry
//!   window, the task is recorded failed), and events flow again.
//!
//! Needs `redis-server` on `PATH` (`.ci/run` installs it). Timeouts are
//! hang guards only; the fault tests print how long each failing request
//! took.
#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

mod common;

use common::{Process, free_port, wait_listening};

const GUARD: Duration = Duration::from_secs(30);
/// The hang guard of a request while Redis is failing: the store answers
/// within 2 s, so this only catches a stall (the client library's own
/// reconnect backoff would take longer).
const FAULT_GUARD: Duration = Duration::from_secs(10);
const EXT: &str = "io.modelcontextprotocol/tasks";
const WATCHED: &str = "test://watched-resource";
const SENTINEL: &str = "test://sentinel";

/// A `redis-server` of the test's own; `dir` (with the append-only file
/// on) lets it restart with its data after a SIGKILL.
struct Redis {
    process: Option<Process>,
    port: u16,
    dir: Option<PathBuf>,
}

impl Redis {
    async fn start(durable: bool) -> Self {
        let dir = durable.then(|| {
            let dir = std::env::temp_dir().join(format!("mcp-redis-test-{}", free_port()));
            std::fs::create_dir_all(&dir).unwrap();
            dir
        });
        let mut redis = Redis {
            process: None,
            port: free_port(),
            dir,
        };
        redis.spawn().await;
        redis
    }

    async fn spawn(&mut self) {
        let mut command = Command::new("redis-server");
        command
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--maxmemory-policy", "noeviction"])
            .stdout(Stdio::null());
        match &self.dir {
            Some(dir) => command
                .args(["--appendonly", "yes", "--appendfsync", "always"])
                .arg("--dir")
                .arg(dir),
            None => command.args(["--appendonly", "no"]),
        };
        let child = command
            .spawn()
            .expect("redis-server on PATH (apt-get install redis-server)");
        self.process = Some(Process(child));
        wait_listening(self.port).await;
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Sends `signal` (`-STOP`, `-CONT`, `-KILL`); whether it was sent.
    fn signal(&self, signal: &str) -> bool {
        let Some(process) = &self.process else {
            return false;
        };
        Command::new("kill")
            .args([signal, &process.0.id().to_string()])
            .status()
            .is_ok_and(|s| s.success())
    }

    fn kill(&mut self) {
        assert!(self.signal("-KILL"));
        let mut process = self.process.take().unwrap();
        let _ = process.0.wait();
    }

    /// One command in RESP on a connection of its own; the first reply line.
    async fn command(&self, args: &[&str]) -> String {
        let mut wire = format!("*{}\r\n", args.len());
        for arg in args {
            wire.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
        }
        let exchange = async {
            let mut stream = TcpStream::connect(("127.0.0.1", self.port)).await.unwrap();
            stream.write_all(wire.as_bytes()).await.unwrap();
            let mut line = String::new();
            BufReader::new(stream).read_line(&mut line).await.unwrap();
            line.trim_end().to_owned()
        };
        tokio::time::timeout(GUARD, exchange).await.unwrap()
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        // A test that failed while Redis was stopped leaves it stopped.
        self.signal("-CONT");
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// One `mcp-everything http` process, its stderr kept line by line.
struct Everything {
    _process: Process,
    addr: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Everything {
    async fn start(name: &str, redis: &Redis, extra: &[&str]) -> Self {
        let log = Arc::new(Mutex::new(Vec::new()));
        let (kept, name) = (Arc::clone(&log), name.to_owned());
        let (child, addr) = common::spawn_http(
            Command::new(env!("CARGO_BIN_EXE_mcp-everything"))
                .arg("http")
                .args(["--task-store", &redis.url(), "--event-bus", &redis.url()])
                .args(extra),
            move |line| {
                eprintln!("[{name}] {line}");
                kept.lock().unwrap().push(line.to_owned());
            },
        );
        Everything {
            _process: Process(child),
            addr,
            log,
        }
    }

    /// Waits until a line of its log contains every one of `parts`.
    async fn wait_log(&self, parts: &[&str]) {
        let wait = async {
            loop {
                let found = self
                    .log
                    .lock()
                    .unwrap()
                    .iter()
                    .any(|line| parts.iter().all(|part| line.contains(part)));
                if found {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        tokio::time::timeout(GUARD, wait)
            .await
            .unwrap_or_else(|_| panic!("no log line with {parts:?}"));
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": {}, "extensions": { EXT: {} } },
    })
}

fn message(method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params })
}

/// One modern POST with the extension declared: (HTTP status, JSON-RPC answer).
async fn exchange(addr: &str, method: &str, params: Value) -> (u16, Value) {
    let reply = common::post(addr, &message(method, params), &[]).await;
    (reply.status, reply.json())
}

async fn post(addr: &str, method: &str, params: Value) -> Value {
    exchange(addr, method, params).await.1
}

async fn call(addr: &str, tool: &str, arguments: Value) -> Value {
    post(
        addr,
        "tools/call",
        json!({ "name": tool, "arguments": arguments }),
    )
    .await
}

async fn create(addr: &str, tool: &str, arguments: Value) -> String {
    let created = call(addr, tool, arguments).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"].as_str().unwrap().to_owned()
}

async fn status(addr: &str, id: &str) -> Value {
    let got = post(addr, "tasks/get", json!({ "taskId": id })).await;
    got["result"].clone()
}

async fn wait_for(addr: &str, id: &str, wanted: &str) -> Value {
    let poll = async {
        loop {
            let task = status(addr, id).await;
            if task["status"] == wanted {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(GUARD, poll).await.unwrap()
}

/// Polls until the task is past `working`; its `DetailedTask`.
async fn wait_settled(addr: &str, id: &str) -> Value {
    let poll = async {
        loop {
            let task = status(addr, id).await;
            if task["status"].is_string() && task["status"] != "working" {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(GUARD, poll).await.unwrap()
}

/// A request made while Redis fails: its answer and how long it took,
/// within [`FAULT_GUARD`].
async fn timed(
    label: &str,
    request: impl std::future::Future<Output = (u16, Value)>,
) -> (u16, Value) {
    let started = Instant::now();
    let answer = tokio::time::timeout(FAULT_GUARD, request)
        .await
        .unwrap_or_else(|_| panic!("{label}: no answer within {FAULT_GUARD:?}"));
    eprintln!("{label}: answered in {} ms", started.elapsed().as_millis());
    answer
}

/// `-32603`, HTTP 200 (`http_status_of`), naming the task store.
fn assert_store_error((status, answer): &(u16, Value)) {
    assert_eq!(*status, 200, "{answer}");
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    let text = answer["error"]["message"].as_str().unwrap();
    assert!(text.starts_with("The task store failed: redis:"), "{text}");
}

/// A long-lived response (a listen stream or a legacy GET stream), read
/// message by message.
struct EventStream {
    reader: BufReader<TcpStream>,
    text: String,
    ready: std::collections::VecDeque<Value>,
}

impl EventStream {
    async fn open(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Self {
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut reader = BufReader::new(stream);
        let mut status = String::new();
        reader.read_line(&mut status).await.unwrap();
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        let mut chunked = false;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).await.unwrap();
            let lower = line.to_ascii_lowercase();
            if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
                chunked = true;
            }
            if line == "\r\n" {
                break;
            }
        }
        assert!(chunked, "not a stream");
        EventStream {
            reader,
            text: String::new(),
            ready: Default::default(),
        }
    }

    /// A `subscriptions/listen` on `addr`, once acknowledged (so it is
    /// subscribed to the hub); the acknowledgement's `notifications`.
    async fn listen(addr: &str, notifications: Value) -> (Self, Value) {
        let body = message(
            "subscriptions/listen",
            json!({ "notifications": notifications }),
        );
        let headers = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "subscriptions/listen"),
        ];
        let mut stream = Self::open(addr, "POST", &headers, &body.to_string()).await;
        let ack = stream.next().await;
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        (stream, ack["params"]["notifications"].clone())
    }

    /// The next message (hang-guarded).
    async fn next(&mut self) -> Value {
        tokio::time::timeout(GUARD, self.read())
            .await
            .expect("no event")
    }

    /// The next message if one comes within `wait` (a poll, not a check).
    async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        tokio::time::timeout(wait, self.read()).await.ok()
    }

    async fn read(&mut self) -> Value {
        loop {
            if let Some(message) = self.ready.pop_front() {
                return message;
            }
            let mut size = String::new();
            let n = self.reader.read_line(&mut size).await.unwrap();
            assert!(n > 0, "the stream closed");
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            assert!(size > 0, "the stream ended");
            let mut chunk = vec![0; size + 2];
            self.reader.read_exact(&mut chunk).await.unwrap();
            self.text
                .push_str(std::str::from_utf8(&chunk[..size]).unwrap());
            while let Some((event, rest)) = self.text.split_once("\n\n") {
                for data in event.lines().filter_map(|l| l.strip_prefix("data: ")) {
                    self.ready.push_back(serde_json::from_str(data).unwrap());
                }
                self.text = rest.to_owned();
            }
        }
    }

    /// Messages up to the `resources/updated` of [`SENTINEL`] (excluded).
    async fn until_sentinel(&mut self) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let message = self.next().await;
            if message["params"]["uri"] == SENTINEL {
                return seen;
            }
            seen.push(message);
        }
    }
}

fn methods(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("?"))
        .collect()
}

/// Raises prompt list changes on `from` until `stream` shows one: then
/// `from`'s bus and the stream's are both subscribed. Later stray ones are
/// prompt changes, which the checks ignore.
async fn until_connected(from: &Everything, stream: &mut EventStream) {
    let wait = async {
        loop {
            let raised = call(&from.addr, "test_trigger_prompt_change", json!({})).await;
            assert_eq!(raised["result"]["content"][0]["text"], "Mutation triggered");
            while let Some(message) = stream.next_within(Duration::from_millis(300)).await {
                if message["method"] == "notifications/prompts/list_changed" {
                    return;
                }
            }
        }
    };
    tokio::time::timeout(GUARD, wait)
        .await
        .expect("events never flowed between the instances");
}

fn without_prompts(messages: Vec<Value>) -> Vec<Value> {
    messages
        .into_iter()
        .filter(|m| m["method"] != "notifications/prompts/list_changed")
        .collect()
}

async fn raise_sentinel(on: &Everything) {
    let raised = call(
        &on.addr,
        "test_trigger_resource_update",
        json!({ "uri": SENTINEL }),
    )
    .await;
    assert_eq!(
        raised["result"]["content"][0]["text"],
        format!("Update of {SENTINEL} announced")
    );
}

#[tokio::test]
async fn two_processes_share_their_tasks_through_redis() {
    let redis = Redis::start(false).await;
    let a = Everything::start("A", &redis, &[]).await;
    let b = Everything::start("B", &redis, &[]).await;
    let (a_addr, b_addr) = (a.addr.clone(), b.addr.clone());

    // Created on A, finished on A, read on B.
    let quick = create(
        &a_addr,
        "slow_compute",
        json!({ "seconds": 1, "label": "shared" }),
    )
    .await;
    assert_eq!(status(&b_addr, &quick).await["status"], "working");
    let done = wait_for(&b_addr, &quick, "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Computed shared in 1 s"
    );

    // Created on A, cancelled on B: both see it cancelled, and A stops it.
    let long = create(&a_addr, "slow_compute", json!({ "seconds": 60 })).await;
    let ack = post(&b_addr, "tasks/cancel", json!({ "taskId": long })).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    assert_eq!(status(&a_addr, &long).await["status"], "cancelled");

    // Input asked on A, answered on B (which runs the next round), read on A.
    let ask = create(&a_addr, "confirm_delete", json!({ "filename": "x.txt" })).await;
    let parked = wait_for(&b_addr, &ask, "input_required").await;
    assert!(parked["inputRequests"]["confirm"].is_object(), "{parked}");
    let answer = json!({ "confirm": { "action": "accept", "content": { "confirm": true } } });
    let ack = post(
        &b_addr,
        "tasks/update",
        json!({ "taskId": ask, "inputResponses": answer }),
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete");
    let deleted = wait_for(&a_addr, &ask, "completed").await;
    assert_eq!(deleted["result"]["content"][0]["text"], "Deleted x.txt");

    // A dies mid-task: B still reads the task.
    let orphan = create(&a_addr, "slow_compute", json!({ "seconds": 60 })).await;
    drop(a);
    let task = status(&b_addr, &orphan).await;
    assert_eq!(task["taskId"], orphan.as_str());
    assert_eq!(task["status"], "working");
    // Unknown ids are still -32602 on a shared store.
    let unknown = post(&b_addr, "tasks/get", json!({ "taskId": "no-such-task" })).await;
    assert_eq!(unknown["error"]["code"], -32602);
}

#[tokio::test]
async fn a_task_whose_process_died_ends_failed_and_a_live_one_keeps_its_lease() {
    let redis = Redis::start(false).await;
    let lease = ["--task-lease-ms", "1000"];
    let a = Everything::start("A", &redis, &lease).await;
    let b = Everything::start("B", &redis, &lease).await;
    let c = Everything::start("C", &redis, &lease).await;
    // A round of 5 s, five leases, on a process that lives; one of 60 s on
    // a process killed at once.
    let live = create(
        &a.addr,
        "slow_compute",
        json!({ "seconds": 5, "label": "live" }),
    )
    .await;
    let orphan = create(&c.addr, "slow_compute", json!({ "seconds": 60 })).await;
    drop(c);
    let poll = async {
        let (mut live_done, mut orphan_failed) = (None, None);
        while live_done.is_none() || orphan_failed.is_none() {
            let task = status(&b.addr, &live).await;
            assert_ne!(
                task["status"], "failed",
                "a live round lost its lease: {task}"
            );
            if task["status"] == "completed" {
                live_done = Some(task);
            }
            let task = status(&b.addr, &orphan).await;
            if task["status"] == "failed" {
                orphan_failed = Some(task);
            } else {
                assert_eq!(task["status"], "working", "{task}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        (live_done.unwrap(), orphan_failed.unwrap())
    };
    let (done, failed) = tokio::time::timeout(GUARD, poll).await.unwrap();
    assert_eq!(done["result"]["content"][0]["text"], "Computed live in 5 s");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert!(
        failed["statusMessage"]
            .as_str()
            .unwrap()
            .contains("instance running this task stopped"),
        "{failed}"
    );
    // A reads the same end.
    assert_eq!(status(&a.addr, &orphan).await["status"], "failed");
}

#[tokio::test]
async fn events_raised_on_one_instance_reach_listeners_on_every_instance() {
    let redis = Redis::start(false).await;
    let a = Everything::start("A", &redis, &[]).await;
    let b = Everything::start("B", &redis, &[]).await;
    let filter = json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourceSubscriptions": [WATCHED, SENTINEL],
    });
    let (mut on_a, _) = EventStream::listen(&a.addr, filter.clone()).await;
    until_connected(&b, &mut on_a).await;

    // B's list change and resource update reach A's stream once each, in
    // B's order; the resource A's stream did not subscribe to does not.
    call(&b.addr, "test_trigger_tool_change", json!({})).await;
    call(&b.addr, "test_trigger_resource_update", json!({})).await;
    call(
        &b.addr,
        "test_trigger_resource_update",
        json!({ "uri": "test://other" }),
    )
    .await;
    raise_sentinel(&b).await;
    let seen = without_prompts(on_a.until_sentinel().await);
    assert_eq!(
        methods(&seen),
        [
            "notifications/tools/list_changed",
            "notifications/resources/updated"
        ],
        "{seen:?}"
    );
    assert_eq!(seen[1]["params"]["uri"], WATCHED);
    let listen_id = &seen[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"];
    assert_eq!(listen_id, 1, "{seen:?}");

    // A's own event reaches A's stream once: locally, not again from Redis.
    call(&a.addr, "test_trigger_tool_change", json!({})).await;
    raise_sentinel(&a).await;
    let seen = without_prompts(on_a.until_sentinel().await);
    assert_eq!(
        methods(&seen),
        ["notifications/tools/list_changed"],
        "{seen:?}"
    );

    // A task created on B: its status changes reach its listener on A.
    let task = create(&b.addr, "confirm_delete", json!({ "filename": "y.txt" })).await;
    wait_for(&a.addr, &task, "input_required").await;
    let (mut task_stream, acknowledged) = EventStream::listen(
        &a.addr,
        json!({ "taskIds": [task], "resourceSubscriptions": [SENTINEL] }),
    )
    .await;
    assert_eq!(acknowledged["taskIds"], json!([task]));
    let answer = json!({ "confirm": { "action": "accept", "content": { "confirm": true } } });
    let ack = post(
        &b.addr,
        "tasks/update",
        json!({ "taskId": task, "inputResponses": answer }),
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    wait_for(&b.addr, &task, "completed").await;
    raise_sentinel(&b).await;
    // B's `input_required` event travels through Redis while A's store
    // already shows that status: it may reach the stream just opened.
    let seen: Vec<Value> = task_stream
        .until_sentinel()
        .await
        .into_iter()
        .skip_while(|m| m["params"]["status"] == "input_required")
        .collect();
    let statuses: Vec<&Value> = seen.iter().map(|m| &m["params"]["status"]).collect();
    assert_eq!(methods(&seen), ["notifications/tasks"; 2], "{seen:?}");
    assert_eq!(statuses, ["working", "completed"], "{seen:?}");
    assert_eq!(seen[1]["params"]["taskId"], task.as_str());
    assert_eq!(
        seen[1]["params"]["result"]["content"][0]["text"],
        "Deleted y.txt"
    );

    // A legacy session on A: its GET stream gets B's list change once.
    let session = common::open_legacy_session(&a.addr).await;
    let legacy = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let subscribe = json!({"jsonrpc":"2.0","id":2,"method":"resources/subscribe",
        "params":{"uri": SENTINEL}});
    let subscribed = common::http(&a.addr, "POST", &legacy, &subscribe.to_string()).await;
    assert_eq!(subscribed.status, 200, "{}", subscribed.body);
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let mut on_session = EventStream::open(&a.addr, "GET", &get, "").await;
    // The stream follows the hub once a local event reaches it.
    let wait = async {
        loop {
            call(&a.addr, "test_trigger_tool_change", json!({})).await;
            if on_session
                .next_within(Duration::from_millis(300))
                .await
                .is_some()
            {
                return;
            }
        }
    };
    tokio::time::timeout(GUARD, wait).await.unwrap();
    raise_sentinel(&a).await;
    // Local triggers that were still on their way.
    let strays = without_prompts(on_session.until_sentinel().await);
    assert!(
        strays
            .iter()
            .all(|m| m["method"] == "notifications/tools/list_changed"),
        "{strays:?}"
    );
    call(&b.addr, "test_trigger_tool_change", json!({})).await;
    raise_sentinel(&b).await;
    let seen = without_prompts(on_session.until_sentinel().await);
    assert_eq!(
        seen,
        [json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {} })],
        "{seen:?}"
    );
}

/// `maxmemory 1` with `noeviction`: Redis answers reads and refuses writes.
#[tokio::test]
async fn redis_refusing_writes_loses_no_task_result() {
    let redis = Redis::start(false).await;
    let a = Everything::start("A", &redis, &[]).await;
    let b = Everything::start("B", &redis, &[]).await;
    let short = Everything::start("C", &redis, &["--task-end-retry-ms", "300"]).await;
    let (mut on_a, _) = EventStream::listen(
        &a.addr,
        json!({ "toolsListChanged": true, "promptsListChanged": true,
                "resourceSubscriptions": [SENTINEL] }),
    )
    .await;
    until_connected(&b, &mut on_a).await;

    // Two seconds: time to refuse writes before the rounds end.
    let kept = create(
        &b.addr,
        "slow_compute",
        json!({ "seconds": 2, "label": "kept" }),
    )
    .await;
    let given_up = create(&short.addr, "slow_compute", json!({ "seconds": 2 })).await;
    assert_eq!(
        redis.command(&["CONFIG", "SET", "maxmemory", "1"]).await,
        "+OK"
    );

    // A new task cannot be stored: -32603 at once.
    let refused = timed(
        "tools/call as a task, writes refused",
        exchange(
            &a.addr,
            "tools/call",
            json!({ "name": "slow_compute", "arguments": { "seconds": 1 } }),
        ),
    )
    .await;
    assert_store_error(&refused);
    assert!(
        refused.1["error"]["message"]
            .as_str()
            .unwrap()
            .contains("OOM"),
        "{}",
        refused.1
    );
    // Reads, plain calls and events go on.
    assert_eq!(status(&a.addr, &kept).await["status"], "working");
    let greeted = call(&a.addr, "greet", json!({ "name": "Ada" })).await;
    assert_eq!(greeted["result"]["content"][0]["text"], "Hello, Ada!");
    call(&b.addr, "test_trigger_tool_change", json!({})).await;
    raise_sentinel(&b).await;
    let seen = without_prompts(on_a.until_sentinel().await);
    assert_eq!(methods(&seen), ["notifications/tools/list_changed"]);

    // Both rounds end while writes are refused; C's window passes.
    b.wait_log(&[&kept, "could not store the end of a task round"])
        .await;
    short
        .wait_log(&[
            &given_up,
            "could not store the end of a task round within 300 ms",
        ])
        .await;
    assert_eq!(status(&a.addr, &kept).await["status"], "working");
    assert_eq!(
        redis.command(&["CONFIG", "SET", "maxmemory", "0"]).await,
        "+OK"
    );

    // B stores the result it kept; C records its task failed, saying why.
    let stored = wait_settled(&a.addr, &kept).await;
    assert_eq!(stored["status"], "completed", "{stored}");
    assert_eq!(
        stored["result"]["content"][0]["text"],
        "Computed kept in 2 s"
    );
    let failed = wait_settled(&a.addr, &given_up).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    let why = failed["error"]["message"].as_str().unwrap();
    assert!(
        why.starts_with("The task's result could not be stored: redis:"),
        "{why}"
    );
    // And new tasks are stored again.
    let again = create(&a.addr, "slow_compute", json!({ "seconds": 0.2 })).await;
    wait_for(&b.addr, &again, "completed").await;
}

/// SIGSTOP: Redis accepts connections and answers nothing.
#[tokio::test]
async fn redis_hung_then_resumed() {
    let redis = Redis::start(false).await;
    let a = Everything::start("A", &redis, &[]).await;
    let b = Everything::start("B", &redis, &[]).await;
    let (mut on_a, _) = EventStream::listen(
        &a.addr,
        json!({ "toolsListChanged": true, "promptsListChanged": true,
                "resourceSubscriptions": [SENTINEL] }),
    )
    .await;
    until_connected(&b, &mut on_a).await;
    let task = create(
        &b.addr,
        "slow_compute",
        json!({ "seconds": 1, "label": "hung" }),
    )
    .await;
    assert!(redis.signal("-STOP"));

    let got = timed(
        "tasks/get, Redis hung",
        exchange(&a.addr, "tasks/get", json!({ "taskId": task })),
    )
    .await;
    assert_store_error(&got);
    assert!(
        got.1["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no answer within 2000 ms"),
        "{}",
        got.1
    );
    let created = timed(
        "tools/call as a task, Redis hung",
        exchange(
            &a.addr,
            "tools/call",
            json!({ "name": "slow_compute", "arguments": { "seconds": 1 } }),
        ),
    )
    .await;
    assert_store_error(&created);
    let cancel = timed(
        "tasks/cancel, Redis hung",
        exchange(&a.addr, "tasks/cancel", json!({ "taskId": task })),
    )
    .await;
    assert_store_error(&cancel);
    // What needs no Redis is not held up.
    let greeted = timed(
        "greet, Redis hung",
        exchange(
            &b.addr,
            "tools/call",
            json!({ "name": "greet", "arguments": { "name": "Bo" } }),
        ),
    )
    .await;
    assert_eq!(greeted.1["result"]["content"][0]["text"], "Hello, Bo!");
    let raised = timed(
        "a trigger, Redis hung",
        exchange(
            &b.addr,
            "tools/call",
            json!({ "name": "test_trigger_tool_change" }),
        ),
    )
    .await;
    assert_eq!(
        raised.1["result"]["content"][0]["text"],
        "Mutation triggered"
    );
    let (mut opened, _) = EventStream::listen(&a.addr, json!({ "toolsListChanged": true })).await;

    b.wait_log(&[&task, "could not store the end of a task round"])
        .await;
    // The idle bus of A finds the hang by its PING and reconnects.
    a.wait_log(&["event bus: ", "PING"]).await;
    assert!(redis.signal("-CONT"));
    let stored = wait_settled(&a.addr, &task).await;
    assert_eq!(stored["status"], "completed", "{stored}");
    assert_eq!(
        stored["result"]["content"][0]["text"],
        "Computed hung in 1 s"
    );
    // Events flow again, to the stream opened before the hang and to the
    // one opened during it.
    until_connected(&b, &mut on_a).await;
    call(&b.addr, "test_trigger_tool_change", json!({})).await;
    loop {
        let message = opened.next().await;
        if message["method"] == "notifications/tools/list_changed" {
            break;
        }
    }
}

/// SIGKILL, then a restart on the same port with the append-only file.
#[tokio::test]
async fn redis_killed_then_restarted() {
    let mut redis = Redis::start(true).await;
    let a = Everything::start("A", &redis, &[]).await;
    let b = Everything::start("B", &redis, &[]).await;
    let (mut on_a, _) = EventStream::listen(
        &a.addr,
        json!({ "toolsListChanged": true, "promptsListChanged": true,
                "resourceSubscriptions": [SENTINEL] }),
    )
    .await;
    until_connected(&b, &mut on_a).await;
    let task = create(
        &b.addr,
        "slow_compute",
        json!({ "seconds": 1, "label": "killed" }),
    )
    .await;
    redis.kill();

    let got = timed(
        "tasks/get, Redis killed",
        exchange(&a.addr, "tasks/get", json!({ "taskId": task })),
    )
    .await;
    assert_store_error(&got);
    let listen_task = timed(
        "subscriptions/listen with taskIds, Redis killed",
        exchange(
            &a.addr,
            "subscriptions/listen",
            json!({ "notifications": { "taskIds": [task] } }),
        ),
    )
    .await;
    assert_store_error(&listen_task);
    let greeted = call(&a.addr, "greet", json!({ "name": "Cy" })).await;
    assert_eq!(greeted["result"]["content"][0]["text"], "Hello, Cy!");
    let raised = call(&b.addr, "test_trigger_tool_change", json!({})).await;
    assert_eq!(raised["result"]["content"][0]["text"], "Mutation triggered");

    b.wait_log(&[&task, "could not store the end of a task round"])
        .await;
    redis.spawn().await;
    let stored = wait_settled(&a.addr, &task).await;
    assert_eq!(stored["status"], "completed", "{stored}");
    assert_eq!(
        stored["result"]["content"][0]["text"],
        "Computed killed in 1 s"
    );
    until_connected(&b, &mut on_a).await;
    let again = create(&a.addr, "slow_compute", json!({ "seconds": 0.2 })).await;
    wait_for(&b.addr, &again, "completed").await;
}
