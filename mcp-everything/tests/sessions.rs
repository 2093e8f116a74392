//! 2025-11-25 sessions shared by three `mcp-everything http` processes on
//! one real `redis-server` (feature `redis`, `--session-store redis://…`),
//! over real HTTP: a session opened on A is served by A, B and C; a change
//! made on B holds on A and C; an elicitation sent on A is answered on B; a
//! cancellation sent to C stops a request on A; `DELETE` on B ends the
//! session everywhere; idle expiry holds across processes; `Last-Event-ID`
//! resumes a GET stream and a POST stream on another process (one cut by
//! the client, one closed by the server: SEP-1699 polling); with Redis
//! hung, refusing writes or restarted every affected request gets a
//! spec-shaped error and the rest goes on. Needs `redis-server` on `PATH`; timeouts are hang
//! guards only.
//!
//! The `resources/updated` events are raised on the process that holds the
//! GET stream: carrying server events between processes is the event bus's
//! part (`--event-bus`), not the session store's.
#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

mod common;

use common::{GUARD, Process, Reply, free_port, http, wait_listening};

const VERSION: &str = "2025-11-25";
const WATCHED: &str = "test://watched-resource";

async fn start_redis(port: u16) -> Process {
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server on PATH (apt-get install redis-server)");
    wait_listening(port).await;
    Process(child)
}

async fn start_everything(redis_port: u16, extra: &[&str]) -> (Process, String) {
    let (child, addr) = common::spawn_http(
        Command::new(env!("CARGO_BIN_EXE_mcp-everything"))
            .arg("http")
            .args([
                "--session-store",
                &format!("redis://127.0.0.1:{redis_port}"),
            ])
            .args(extra),
        |line| eprintln!("{line}"),
    );
    (Process(child), addr)
}

/// Redis and three processes on it.
async fn cluster(extra: &[&str]) -> (Process, u16, Vec<(Process, String)>) {
    let redis_port = free_port();
    let redis = start_redis(redis_port).await;
    let mut instances = Vec::new();
    for _ in 0..3 {
        instances.push(start_everything(redis_port, extra).await);
    }
    (redis, redis_port, instances)
}

/// `initialize` (a client that can elicit); the session id.
async fn initialize(addr: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "sessions-test", "version": "1"}}});
    let reply = http(addr, "POST", &json_headers(), &init.to_string()).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["result"]["protocolVersion"], VERSION);
    reply.header("mcp-session-id").unwrap().to_owned()
}

fn json_headers() -> Vec<(&'static str, &'static str)> {
    vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ]
}

fn session_headers(session: &str) -> Vec<(&str, &str)> {
    let mut headers = json_headers();
    headers.push(("Mcp-Session-Id", session));
    headers.push(("MCP-Protocol-Version", VERSION));
    headers
}

/// One POST in `session`.
async fn legacy(addr: &str, session: &str, message: &Value) -> Reply {
    http(
        addr,
        "POST",
        &session_headers(session),
        &message.to_string(),
    )
    .await
}

fn call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn ping(addr: &str, session: &str) -> Reply {
    legacy(
        addr,
        session,
        &json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}),
    )
    .await
}

/// One SSE event as read.
#[derive(Debug, Clone, PartialEq)]
struct Event {
    id: Option<String>,
    data: String,
}

impl Event {
    fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

/// An HTTP answer read as it arrives (chunked), as SSE events.
struct Events {
    tcp: TcpStream,
    status: u16,
    content_type: String,
    /// Bytes read, not yet de-chunked.
    raw: Vec<u8>,
    /// De-chunked bytes not yet parsed into events.
    body: Vec<u8>,
    ended: bool,
}

impl Events {
    async fn open(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Self {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        tcp.write_all(head.as_bytes()).await.unwrap();
        tcp.write_all(body.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        let end = loop {
            if let Some(at) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                break at;
            }
            let mut chunk = [0u8; 4096];
            let n = tokio::time::timeout(GUARD, tcp.read(&mut chunk))
                .await
                .unwrap()
                .unwrap();
            assert!(n > 0, "closed before the head");
            raw.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&raw[..end]).into_owned();
        let rest = raw[end + 4..].to_vec();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let content_type = head
            .lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.trim().to_owned())
            .unwrap_or_default();
        Self {
            tcp,
            status,
            content_type,
            raw: rest,
            body: Vec::new(),
            ended: false,
        }
    }

    /// A GET stream of `session`, resuming after `last_event_id`.
    async fn get(addr: &str, session: &str, last_event_id: Option<&str>) -> Self {
        let mut headers = vec![
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", VERSION),
        ];
        if let Some(id) = last_event_id {
            headers.push(("Last-Event-ID", id));
        }
        let events = Self::open(addr, "GET", &headers, "").await;
        assert_eq!(events.status, 200);
        assert_eq!(events.content_type, "text/event-stream");
        events
    }

    /// Moves whole chunks from `raw` to `body`; false once the last chunk
    /// was seen.
    fn dechunk(&mut self) {
        loop {
            let Some(line) = self.raw.windows(2).position(|w| w == b"\r\n") else {
                return;
            };
            let size = usize::from_str_radix(String::from_utf8_lossy(&self.raw[..line]).trim(), 16)
                .unwrap();
            if size == 0 {
                self.ended = true;
                return;
            }
            if self.raw.len() < line + 2 + size + 2 {
                return;
            }
            self.body
                .extend_from_slice(&self.raw[line + 2..line + 2 + size]);
            self.raw.drain(..line + 2 + size + 2);
        }
    }

    /// The next event; `None` at the end of the answer.
    async fn next(&mut self) -> Option<Event> {
        loop {
            self.dechunk();
            if let Some(at) = self.body.windows(2).position(|w| w == b"\n\n") {
                let block = String::from_utf8_lossy(&self.body[..at]).into_owned();
                self.body.drain(..at + 2);
                let mut event = Event {
                    id: None,
                    data: String::new(),
                };
                let mut has_data = false;
                for line in block.lines() {
                    if let Some(id) = line.strip_prefix("id:") {
                        event.id = Some(id.trim().to_owned());
                    } else if let Some(data) = line.strip_prefix("data:") {
                        event.data.push_str(data.strip_prefix(' ').unwrap_or(data));
                        has_data = true;
                    }
                }
                if has_data {
                    return Some(event);
                }
                continue;
            }
            if self.ended {
                return None;
            }
            let mut chunk = [0u8; 4096];
            let n = tokio::time::timeout(GUARD, self.tcp.read(&mut chunk))
                .await
                .expect("hang guard: no event")
                .unwrap_or(0);
            if n == 0 {
                return None;
            }
            self.raw.extend_from_slice(&chunk[..n]);
        }
    }

    /// The next event that carries a message (priming events skipped).
    async fn next_message(&mut self) -> Option<(Option<String>, Value)> {
        loop {
            let event = self.next().await?;
            if !event.data.is_empty() {
                let json = event.json();
                return Some((event.id, json));
            }
        }
    }
}

/// The stream part of an event id (`{stream}-{seq}`).
fn stream_of(id: &str) -> &str {
    id.rsplit_once('-').unwrap().0
}

fn text_of(result: &Value) -> &str {
    result["result"]["content"][0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn a_session_opened_on_one_process_is_served_by_all() {
    let (_redis, _, instances) = cluster(&[]).await;
    let [a, b, c] = [&instances[0].1, &instances[1].1, &instances[2].1];
    let session = initialize(a).await;

    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(legacy(b, &session, &initialized).await.status, 202);
    for (n, addr) in [b, c, a].into_iter().enumerate() {
        let listed = legacy(
            addr,
            &session,
            &request(10 + n as i64, "tools/list", json!({})),
        )
        .await;
        assert_eq!(listed.status, 200, "{}", listed.body);
        assert!(listed.json()["result"]["tools"].as_array().unwrap().len() > 10);
        // Legacy results keep their legacy shape on every process.
        assert!(listed.json()["result"].get("resultType").is_none());
    }
    let simple = legacy(c, &session, &call(20, "test_simple_text", json!({}))).await;
    assert_eq!(
        text_of(&simple.json()),
        "This is a simple text response for testing."
    );

    // The default level lets info logs through; `logging/setLevel` on B
    // holds on A and C from the next request on.
    let logged = legacy(c, &session, &call(21, "test_tool_with_logging", json!({}))).await;
    assert_eq!(logged.events().len(), 4, "{}", logged.body);
    let set = request(22, "logging/setLevel", json!({"level": "error"}));
    assert_eq!(legacy(b, &session, &set).await.json()["result"], json!({}));
    for addr in [a, c] {
        let quiet = legacy(
            addr,
            &session,
            &call(23, "test_tool_with_logging", json!({})),
        )
        .await;
        assert_eq!(
            quiet.header("content-type"),
            Some("application/json"),
            "{}",
            quiet.body
        );
        assert_eq!(
            text_of(&quiet.json()),
            "Tool with logging executed successfully"
        );
    }

    // The GET stream on A hears an update of what was subscribed on B.
    let mut stream = Events::get(a, &session, None).await;
    let priming = stream.next().await.unwrap();
    assert!(priming.data.is_empty() && priming.id.as_deref().unwrap().starts_with('g'));
    let subscribe = request(24, "resources/subscribe", json!({"uri": WATCHED}));
    assert_eq!(
        legacy(b, &session, &subscribe).await.json()["result"],
        json!({})
    );
    for uri in ["test://not-subscribed", WATCHED] {
        let raised = legacy(
            a,
            &session,
            &call(25, "test_trigger_resource_update", json!({"uri": uri})),
        )
        .await;
        assert_eq!(raised.status, 200, "{}", raised.body);
    }
    let (id, updated) = stream.next_message().await.unwrap();
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(
        updated["params"]["uri"], WATCHED,
        "only what was subscribed"
    );
    assert_eq!(
        stream_of(id.as_deref().unwrap()),
        stream_of(priming.id.as_deref().unwrap())
    );

    // An elicitation sent on A's answer, answered with a POST to B.
    let asked = call(26, "test_elicitation", json!({"message": "Your name?"}));
    let mut answer = Events::open(a, "POST", &session_headers(&session), &asked.to_string()).await;
    assert_eq!(answer.content_type, "text/event-stream");
    let first = answer.next().await.unwrap();
    assert!(first.data.is_empty(), "a priming event first: {first:?}");
    let (_, elicit) = answer.next_message().await.unwrap();
    assert_eq!(elicit["method"], "elicitation/create", "{elicit}");
    let reply = json!({"jsonrpc": "2.0", "id": elicit["id"],
        "result": {"action": "accept", "content": {"response": "Ada"}}});
    assert_eq!(legacy(b, &session, &reply).await.status, 202);
    let (_, result) = answer.next_message().await.unwrap();
    assert_eq!(result["id"], 26);
    assert_eq!(
        text_of(&result),
        r#"User response: action=accept, content={"response":"Ada"}"#
    );
    assert!(
        answer.next().await.is_none(),
        "the answer ends with its response"
    );

    // A request running on A, cancelled by a notification posted to C: it
    // ends without its result (a 30 s call; the guard is 20 s).
    let slow = tokio::spawn({
        let (a, session) = (a.clone(), session.clone());
        async move {
            legacy(
                &a,
                &session,
                &call(77, "slow_compute", json!({"seconds": 30})),
            )
            .await
        }
    });
    let mut slow = std::pin::pin!(slow);
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 77, "reason": "test"}});
    let cancelled = loop {
        assert_eq!(legacy(c, &session, &cancel).await.status, 202);
        if let Ok(done) = tokio::time::timeout(Duration::from_millis(200), &mut slow).await {
            break done.unwrap();
        }
    };
    assert_eq!(cancelled.status, 202, "{}", cancelled.body);
    assert!(cancelled.body.is_empty());

    // DELETE on B: gone everywhere, and A closes the GET stream it held.
    let deleted = http(b, "DELETE", &session_headers(&session), "").await;
    assert_eq!(deleted.status, 200);
    assert!(stream.next().await.is_none(), "A closed its GET stream");
    for addr in [a, b, c] {
        let gone = ping(addr, &session).await;
        assert_eq!(gone.status, 404, "{addr}: {}", gone.body);
        assert_eq!(gone.json()["error"]["code"], -32600);
    }
    assert_eq!(
        http(c, "DELETE", &session_headers(&session), "")
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn an_unknown_session_is_not_found_on_any_process() {
    let (_redis, _, instances) = cluster(&[]).await;
    for (_, addr) in &instances {
        let reply = ping(addr, "0123456789abcdef0123456789abcdef").await;
        assert_eq!(reply.status, 404);
    }
}

#[tokio::test]
async fn last_event_id_resumes_a_stream_on_another_process() {
    let (_redis, _, instances) = cluster(&[]).await;
    let [a, b, c] = [&instances[0].1, &instances[1].1, &instances[2].1];
    let session = initialize(a).await;
    let subscribe = request(2, "resources/subscribe", json!({"uri": WATCHED}));
    assert_eq!(
        legacy(c, &session, &subscribe).await.json()["result"],
        json!({})
    );

    // A GET stream on A carries two updates the client "misses".
    let mut on_a = Events::get(a, &session, None).await;
    let priming = on_a.next().await.unwrap().id.unwrap();
    let raise = call(3, "test_trigger_resource_update", json!({"uri": WATCHED}));
    let mut sent = Vec::new();
    for _ in 0..2 {
        assert_eq!(legacy(a, &session, &raise).await.status, 200);
        sent.push(on_a.next().await.unwrap());
    }
    drop(on_a);
    // Resumed on B after the priming event: the two, once, in order, with
    // the ids A gave them; then B's own stream, live.
    let mut on_b = Events::get(b, &session, Some(&priming)).await;
    assert_eq!(on_b.next().await.unwrap(), sent[0]);
    assert_eq!(on_b.next().await.unwrap(), sent[1]);
    let opened = on_b.next().await.unwrap();
    assert!(opened.data.is_empty(), "{opened:?}");
    let new_stream = stream_of(opened.id.as_deref().unwrap()).to_owned();
    assert_ne!(new_stream, stream_of(&priming));
    assert_eq!(legacy(b, &session, &raise).await.status, 200);
    let (id, live) = on_b.next_message().await.unwrap();
    assert_eq!(live["params"]["uri"], WATCHED);
    assert_eq!(stream_of(id.as_deref().unwrap()), new_stream);

    // A POST stream on A cut after its elicitation; the elicitation answered
    // on C; the stream resumed on B gets the result A computed.
    let asked = call(4, "test_elicitation", json!({"message": "Your name?"}));
    let mut answer = Events::open(a, "POST", &session_headers(&session), &asked.to_string()).await;
    let first = answer.next().await.unwrap();
    let elicit_event = answer.next().await.unwrap();
    let elicit = elicit_event.json();
    assert_eq!(elicit["method"], "elicitation/create");
    drop(answer);
    let reply = json!({"jsonrpc": "2.0", "id": elicit["id"],
        "result": {"action": "accept", "content": {"response": "Grace"}}});
    assert_eq!(legacy(c, &session, &reply).await.status, 202);
    let mut resumed = Events::get(b, &session, elicit_event.id.as_deref()).await;
    let (result_id, result) = resumed.next_message().await.unwrap();
    assert_eq!(result["id"], 4);
    assert_eq!(
        text_of(&result),
        r#"User response: action=accept, content={"response":"Grace"}"#
    );
    assert!(resumed.next().await.is_none(), "ends after the response");
    // From the priming event, on C: everything after it, in order, once.
    let mut again = Events::get(c, &session, first.id.as_deref()).await;
    assert_eq!(again.next().await.unwrap(), elicit_event);
    let (id, replayed) = again.next_message().await.unwrap();
    assert_eq!((id, replayed), (result_id, result));
    assert!(again.next().await.is_none());

    // SEP-1699 polling: A closes the POST stream at once (priming event,
    // `retry`), and the result comes on C, which resumes it.
    let polled = call(5, "test_reconnection", json!({}));
    let mut cut = Events::open(a, "POST", &session_headers(&session), &polled.to_string()).await;
    let priming = cut.next().await.unwrap();
    assert!(priming.data.is_empty());
    assert!(cut.next().await.is_none(), "closed before the result");
    let mut resumed = Events::get(c, &session, priming.id.as_deref()).await;
    let (_, result) = resumed.next_message().await.unwrap();
    assert_eq!(result["id"], 5);
    assert!(text_of(&result).starts_with("Reconnection test completed successfully"));
    assert!(resumed.next().await.is_none());

    // An id that is not ours opens a plain GET stream.
    let mut plain = Events::get(c, &session, Some("not-an-id-of-ours")).await;
    assert!(plain.next().await.unwrap().data.is_empty());
}

/// Waits until Redis holds stream event `id` (`{stream}-{seq}`). A process
/// stores a stream's events in the background (a slow store delays no
/// stream), so one killed right after sending an event may not have kept it.
async fn stored_in_redis(redis_port: u16, id: &str) {
    let (stream, seq) = id.rsplit_once('-').unwrap();
    let port = redis_port.to_string();
    let cli = |args: &[&str]| {
        let out = Command::new("redis-cli")
            .args(["-p", &port])
            .args(args)
            .output()
            .expect("redis-cli on PATH (it comes with redis-server)");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let deadline = Instant::now() + GUARD;
    loop {
        let key = cli(&["--scan", "--pattern", &format!("*sse:*:{stream}")]);
        let at = format!("0-{seq}");
        if !key.is_empty() && !cli(&["XRANGE", &key, &at, &at]).is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "event {id} never stored");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_stream_resumed_from_a_killed_process_loses_no_live_event() {
    let (_redis, redis_port, instances) = cluster(&[]).await;
    let [a, b] = [&instances[0].1, &instances[1].1];
    let session = initialize(a).await;
    let subscribe = request(2, "resources/subscribe", json!({"uri": WATCHED}));
    assert_eq!(
        legacy(b, &session, &subscribe).await.json()["result"],
        json!({})
    );
    let mut on_a = Events::get(a, &session, None).await;
    let priming = on_a.next().await.unwrap().id.unwrap();
    let raise = call(3, "test_trigger_resource_update", json!({"uri": WATCHED}));
    assert_eq!(legacy(a, &session, &raise).await.status, 200);
    let missed = on_a.next().await.unwrap();
    stored_in_redis(redis_port, missed.id.as_deref().unwrap()).await;
    // A dies holding the stream, after it stored the event: it never marks
    // the stream's end, so B replays until the handover's quiet; an update
    // raised on B meanwhile must still reach the client.
    instances[0].0.signal("-KILL");
    drop(on_a);
    let mut on_b = Events::get(b, &session, Some(&priming)).await;
    assert_eq!(legacy(b, &session, &raise).await.status, 200);
    assert_eq!(on_b.next().await.unwrap(), missed);
    let opened = on_b.next().await.unwrap();
    assert!(opened.data.is_empty(), "{opened:?}");
    let (_, live) = on_b.next_message().await.unwrap();
    assert_eq!(live["method"], "notifications/resources/updated");
    assert_eq!(live["params"]["uri"], WATCHED);
}

#[tokio::test]
async fn idle_sessions_expire_on_every_process() {
    let (_redis, _, instances) = cluster(&["--session-idle-timeout-ms", "4000"]).await;
    let [a, b, c] = [&instances[0].1, &instances[1].1, &instances[2].1];
    let session = initialize(a).await;
    let mut stream = Events::get(a, &session, None).await;
    assert!(stream.next().await.unwrap().data.is_empty());
    // Used on B and C in turn, it outlives the timeout counted from A.
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    assert_eq!(ping(b, &session).await.status, 200);
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert_eq!(ping(c, &session).await.status, 200);
    // Unused for longer than the timeout: gone on every process, and A's
    // sweep closes the GET stream it held.
    tokio::time::sleep(Duration::from_millis(4_500)).await;
    for addr in [a, b, c] {
        assert_eq!(ping(addr, &session).await.status, 404, "{addr}");
    }
    assert!(stream.next().await.is_none());
}

/// How long each answer took, for the record.
async fn timed<T>(what: &str, work: impl std::future::Future<Output = T>) -> T {
    let started = Instant::now();
    let answer = work.await;
    eprintln!("{what}: answered in {} ms", started.elapsed().as_millis());
    answer
}

#[tokio::test]
async fn redis_hung_or_restarted_gets_errors_and_recovers() {
    let (redis, redis_port, instances) = cluster(&[]).await;
    let [a, b, c] = [&instances[0].1, &instances[1].1, &instances[2].1];
    let session = initialize(a).await;
    assert_eq!(ping(b, &session).await.status, 200);

    // Redis hung (SIGSTOP): sessions held here are served, changes fail
    // with -32603, sessions not held here get 503, and what needs no Redis
    // is not held up.
    redis.signal("-STOP");
    let held = timed("hung: ping on A (held)", ping(a, &session)).await;
    assert_eq!(
        (held.status, held.json()["result"].clone()),
        (200, json!({}))
    );
    let set = request(5, "logging/setLevel", json!({"level": "error"}));
    let refused = timed("hung: setLevel on A", legacy(a, &session, &set)).await;
    assert_eq!(refused.status, 200);
    assert_eq!(refused.json()["error"]["code"], -32603, "{}", refused.body);
    assert_eq!(refused.json()["id"], 5);
    let unknown = timed("hung: ping on C (not held)", ping(c, &session)).await;
    assert_eq!(unknown.status, 503, "{}", unknown.body);
    assert_eq!(unknown.json()["error"]["code"], -32603);
    assert_eq!(unknown.json()["id"], 9);
    assert_eq!(unknown.header("retry-after"), Some("1"));
    let opened = timed("hung: initialize on C", async {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
        http(c, "POST", &json_headers(), &init.to_string()).await
    })
    .await;
    assert_eq!(opened.status, 503, "{}", opened.body);
    assert!(opened.header("mcp-session-id").is_none());
    let deleted = timed(
        "hung: DELETE on B",
        http(b, "DELETE", &session_headers(&session), ""),
    )
    .await;
    assert_eq!(deleted.status, 503);
    let modern = timed(
        "hung: modern tools/list on C",
        common::post(c, &common::request(1, "tools/list", json!({})), &[]),
    )
    .await;
    assert_eq!(modern.status, 200, "{}", modern.body);

    // Redis back: every process serves the session again by itself, and
    // stores its changes (after at most the pause that follows a failure).
    redis.signal("-CONT");
    for addr in [c, a, b] {
        let recovered = async {
            loop {
                if legacy(addr, &session, &set).await.json()["result"] == json!({}) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        };
        tokio::time::timeout(GUARD, recovered).await.unwrap();
    }

    // Redis refusing writes (maxmemory): the same, and no pause (Redis
    // answers): every refused request is told at once.
    let redis_cli = |args: &[&str]| {
        let status = Command::new("redis-cli")
            .args(["-p", &redis_port.to_string()])
            .args(args)
            .stdout(Stdio::null())
            .status()
            .expect("redis-cli on PATH (it comes with redis-server)");
        assert!(status.success());
    };
    redis_cli(&["config", "set", "maxmemory", "1"]);
    let held = timed("full: ping on A (held)", ping(a, &session)).await;
    assert_eq!(held.status, 200, "{}", held.body);
    let refused = timed("full: setLevel on A", legacy(a, &session, &set)).await;
    assert_eq!(refused.json()["error"]["code"], -32603, "{}", refused.body);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let opened = timed(
        "full: initialize on B",
        http(b, "POST", &json_headers(), &init.to_string()),
    )
    .await;
    assert_eq!(opened.status, 503, "{}", opened.body);
    assert!(
        opened.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("OOM"),
        "{}",
        opened.body
    );
    redis_cli(&["config", "set", "maxmemory", "0"]);
    assert_eq!(legacy(a, &session, &set).await.json()["result"], json!({}));

    // Redis restarted empty: the session is gone everywhere (404, the
    // client starts a new one), and new sessions work across processes.
    drop(redis);
    let down = timed("down: ping on B", ping(b, &session)).await;
    assert!(down.status == 200 || down.status == 503, "{}", down.body);
    // Long enough for B's pause to end and for the processes' own
    // reconnects to fail while Redis is away.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let _redis = start_redis(redis_port).await;
    // A has not called Redis since it went away: its first call meets the
    // dead connection and is tried again on a new one, so no 503.
    let first = timed("restarted: ping on A", ping(a, &session)).await;
    assert_eq!(first.status, 404, "{}", first.body);
    let gone = async {
        loop {
            if ping(b, &session).await.status == 404 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(GUARD, gone).await.unwrap();
    let fresh = async {
        loop {
            let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
            let reply = http(c, "POST", &json_headers(), &init.to_string()).await;
            if reply.status == 200 {
                return reply.header("mcp-session-id").unwrap().to_owned();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let fresh = tokio::time::timeout(GUARD, fresh).await.unwrap();
    for addr in [a, b, c] {
        let reply = ping(addr, &fresh).await;
        assert_eq!(reply.status, 200, "{addr}: {}", reply.body);
    }
}
