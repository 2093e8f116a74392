//! stdio flow control: a bounded number of requests in flight, client
//! notifications read while every slot is taken, and every answer written
//! after EOF.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_era_server::stdio::{StdioConfig, serve_with};
use mcp_era_server::{McpServer, router};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Semaphore;

#[derive(McpServer)]
#[mcp(name = "flow", version = "1.0.0")]
struct Flow {
    started: AtomicUsize,
    running: AtomicUsize,
    most_running: AtomicUsize,
    gate: Semaphore,
}

impl Flow {
    fn new() -> Self {
        Self {
            started: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            most_running: AtomicUsize::new(0),
            gate: Semaphore::new(0),
        }
    }
}

#[router]
impl Flow {
    /// Waits until the test opens the gate.
    #[tool]
    async fn gated(&self) -> String {
        self.started.fetch_add(1, Ordering::SeqCst);
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_running.fetch_max(now, Ordering::SeqCst);
        let _pass = self.gate.acquire().await;
        self.running.fetch_sub(1, Ordering::SeqCst);
        "through".into()
    }

    /// Takes a little while.
    #[tool]
    async fn slow(&self) -> String {
        tokio::time::sleep(Duration::from_millis(2)).await;
        "done".into()
    }

    /// Never answers on its own.
    #[tool]
    async fn forever(&self) -> String {
        std::future::pending::<()>().await;
        String::new()
    }
}

fn call(id: usize, tool: &str) -> String {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "_meta": meta}});
    format!("{message}\n")
}

/// Starts the server on in-memory pipes; returns the client's ends.
fn start(
    server: Arc<Flow>,
    max_in_flight: usize,
) -> (
    tokio::io::DuplexStream,
    BufReader<tokio::io::DuplexStream>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let (client_in, server_in) = tokio::io::duplex(64 * 1024);
    let (server_out, client_out) = tokio::io::duplex(64 * 1024);
    let config = StdioConfig {
        max_in_flight,
        ..StdioConfig::default()
    };
    let task = tokio::spawn(serve_with(server, server_in, server_out, config));
    (client_in, BufReader::new(client_out), task)
}

async fn answers(mut out: BufReader<tokio::io::DuplexStream>) -> Vec<Value> {
    let mut all = Vec::new();
    let mut line = String::new();
    while out.read_line(&mut line).await.expect("read") > 0 {
        all.push(serde_json::from_str(&line).expect("a JSON line"));
        line.clear();
    }
    all
}

#[tokio::test]
async fn in_flight_requests_are_bounded_and_all_answered() {
    let server = Arc::new(Flow::new());
    let (mut input, output, task) = start(Arc::clone(&server), 2);
    let reading = tokio::spawn(answers(output));
    for id in 0..6 {
        input
            .write_all(call(id, "gated").as_bytes())
            .await
            .expect("write");
    }
    // Two run; the rest wait for a slot.
    while server.started.load(Ordering::SeqCst) < 2 {
        tokio::task::yield_now().await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(server.started.load(Ordering::SeqCst), 2);
    server.gate.add_permits(6);
    drop(input);
    task.await.expect("join").expect("served");
    let answers = reading.await.expect("join");
    assert_eq!(answers.len(), 6, "{answers:?}");
    assert!(server.most_running.load(Ordering::SeqCst) <= 2);
    assert!(
        answers
            .iter()
            .all(|a| a["result"]["content"][0]["text"] == "through")
    );
}

#[tokio::test]
async fn a_cancellation_is_read_while_every_slot_is_taken() {
    let server = Arc::new(Flow::new());
    let (mut input, output, task) = start(server, 1);
    let reading = tokio::spawn(answers(output));
    input
        .write_all(call(1, "forever").as_bytes())
        .await
        .expect("write");
    input
        .write_all(call(2, "slow").as_bytes())
        .await
        .expect("write");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1}});
    input
        .write_all(format!("{cancel}\n").as_bytes())
        .await
        .expect("write");
    drop(input);
    task.await.expect("join").expect("served");
    let answers = reading.await.expect("join");
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(ids, [&json!(2)], "{answers:?}");
}

#[tokio::test]
async fn every_answer_is_written_after_eof() {
    let server = Arc::new(Flow::new());
    let (mut input, output, task) = start(server, 8);
    let reading = tokio::spawn(answers(output));
    let mut batch = String::new();
    for id in 0..500 {
        batch.push_str(&call(id, "slow"));
    }
    input.write_all(batch.as_bytes()).await.expect("write");
    drop(input);
    task.await.expect("join").expect("served");
    let answers = reading.await.expect("join");
    assert_eq!(answers.len(), 500);
    let mut ids: Vec<u64> = answers.iter().filter_map(|a| a["id"].as_u64()).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..500).collect::<Vec<u64>>());
}

#[tokio::test]
async fn a_client_that_stops_reading_stops_the_server_reading() {
    let (mut input, server_in) = tokio::io::duplex(4 * 1024);
    let (server_out, client_out) = tokio::io::duplex(4 * 1024);
    let config = StdioConfig {
        max_output_backlog_bytes: 16 * 1024,
        ..StdioConfig::default()
    };
    let task = tokio::spawn(serve_with(
        Arc::new(Flow::new()),
        server_in,
        server_out,
        config,
    ));
    // Every bad line costs an error answer (~70 bytes): 40,000 of them are
    // ~2.8 MB of answers, far beyond what the pipes and the backlog hold.
    let garbage = "not json\n".repeat(40_000);
    let writing = tokio::spawn(async move {
        input.write_all(garbage.as_bytes()).await.expect("write");
        input
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !writing.is_finished(),
        "the server read on while nobody read its answers"
    );
    // Reading again lets everything through, each line answered.
    let reading = tokio::spawn(answers(BufReader::new(client_out)));
    let input = writing.await.expect("writer");
    drop(input);
    let all = reading.await.expect("reader");
    assert_eq!(all.len(), 40_000);
    assert!(all.iter().all(|a| a["error"]["code"] == -32700));
    task.await.expect("server task").expect("server result");
}
