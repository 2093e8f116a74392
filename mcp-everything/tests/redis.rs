//! Two `mcp-everything http` processes on one real `redis-server` (feature
//! `redis`): a task created on A is read, updated and cancelled on B, and
//! stays readable on B after A is killed mid-task. Needs `redis-server` on
//! `PATH` (`.ci/run` installs it); timeouts are hang guards only.
#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

mod common;

use tokio::net::TcpStream;

const GUARD: Duration = Duration::from_secs(30);
const EXT: &str = "io.modelcontextprotocol/tasks";

/// A child process, killed when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    let socket = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    socket.local_addr().unwrap().port()
}

async fn wait_listening(port: u16) {
    let wait = async {
        while TcpStream::connect(("127.0.0.1", port)).await.is_err() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(GUARD, wait).await.unwrap();
}

async fn start_redis() -> (Process, u16) {
    let port = free_port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server on PATH (apt-get install redis-server)");
    wait_listening(port).await;
    (Process(child), port)
}

async fn start_everything(redis_port: u16) -> (Process, String) {
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_mcp-everything"))
        .args(["http", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--task-store", &format!("redis://127.0.0.1:{redis_port}")])
        .spawn()
        .unwrap();
    wait_listening(port).await;
    (Process(child), format!("127.0.0.1:{port}"))
}

/// One modern POST with the extension declared; the JSON-RPC answer.
async fn post(addr: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": {}, "extensions": { EXT: {} } },
    });
    let message = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    common::post(addr, &message, &[]).await.json()
}

async fn create(addr: &str, tool: &str, arguments: Value) -> String {
    let created = post(
        addr,
        "tools/call",
        json!({ "name": tool, "arguments": arguments }),
    )
    .await;
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

#[tokio::test]
async fn two_processes_share_their_tasks_through_redis() {
    let (_redis, redis_port) = start_redis().await;
    let (mut a, a_addr) = start_everything(redis_port).await;
    let (_b, b_addr) = start_everything(redis_port).await;

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
    let _ = a.0.kill();
    let _ = a.0.wait();
    let task = status(&b_addr, &orphan).await;
    assert_eq!(task["taskId"], orphan.as_str());
    assert_eq!(task["status"], "working");
    // Unknown ids are still -32602 on a shared store.
    let unknown = post(&b_addr, "tasks/get", json!({ "taskId": "no-such-task" })).await;
    assert_eq!(unknown["error"]["code"], -32602);
}
