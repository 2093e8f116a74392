//! The tasks extension's client side against the real `mcp-everything`
//! fixture, over stdio (a re-run of this test binary) and HTTP (in-process
//! on a loopback port, where `Mcp-Name` must equal the task id): a task
//! that completes, one that fails, an `isError` result that completes,
//! `input_required` answered through the handler, cancel, and the calls
//! that stay synchronous.
//!
//! `harness = false`: run with `fixture::FIXTURE` as its argument this
//! binary is the stdio fixture server.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod fixture;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use fixture::http_url;
use mcp_era_client::mcp_era_types::v2026_07_28 as m;
use mcp_era_client::transport::BoxFuture;
use mcp_era_client::{
    ByEra, Client, ClientHandler, ClientOptions, EraMode, Error, HandlerError, TaskCall,
    TaskHandle, TaskStatus,
};
use serde_json::{Map, Value, json};

/// Accepts every elicitation: `true` for a boolean `confirm`, else a name.
struct Answers;

impl ClientHandler for Answers {
    fn elicit(
        &self,
        request: m::ElicitRequestParams,
    ) -> BoxFuture<'_, Result<m::ElicitResult, HandlerError>> {
        let asks_confirm = serde_json::to_value(&request)
            .unwrap()
            .pointer("/requestedSchema/properties/confirm")
            .is_some();
        let content = if asks_confirm {
            json!({"confirm": true})
        } else {
            json!({"name": "Alice"})
        };
        Box::pin(async move {
            Ok(serde_json::from_value(json!({"action": "accept", "content": content})).unwrap())
        })
    }
}

fn opts(tasks: bool) -> ClientOptions {
    ClientOptions {
        era: EraMode::Modern,
        capabilities: serde_json::from_value(json!({"elicitation": {}})).unwrap(),
        handler: Some(Arc::new(Answers)),
        request_timeout: Duration::from_secs(10),
        tasks,
        ..ClientOptions::default()
    }
}

#[derive(Clone, Copy, Debug)]
enum Via {
    Stdio,
    Http,
}

const BOTH: [Via; 2] = [Via::Stdio, Via::Http];

async fn connect(via: Via, tasks: bool) -> Client {
    match via {
        Via::Stdio => fixture::stdio(opts(tasks)).await,
        Via::Http => Client::connect_http(&http_url().await, opts(tasks))
            .await
            .unwrap(),
    }
}

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn text(result: &m::CallToolResult) -> String {
    serde_json::to_value(result).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

async fn start(client: &Client, tool: &str, a: Value) -> TaskHandle {
    match client.call_tool_as_task(tool, args(a)).await.unwrap() {
        TaskCall::Task(task) => task,
        TaskCall::Complete(r) => panic!("{tool}: expected a task, got {r:?}"),
    }
}

/// Waits, recording every status seen.
async fn wait_recording(task: &TaskHandle) -> (Result<m::CallToolResult, Error>, Vec<TaskStatus>) {
    let mut seen = Vec::new();
    let outcome = task.wait_with(|t| seen.push(t.status)).await;
    (outcome, seen)
}

/// `slow_compute` becomes a task, is polled through `working` and ends
/// `completed` with the tool's result; `call_tool` does the same silently.
async fn a_task_completes() {
    for via in BOTH {
        let client = connect(via, true).await;
        let task = start(
            &client,
            "slow_compute",
            json!({"seconds": 0.3, "label": "x"}),
        )
        .await;
        assert!(!task.id().is_empty());
        assert_eq!(task.status(), TaskStatus::Working);
        let (outcome, seen) = wait_recording(&task).await;
        let result = outcome.unwrap();
        assert_eq!(text(&result), "Computed x in 0.3 s", "{via:?}");
        assert_eq!(
            seen,
            [TaskStatus::Working, TaskStatus::Completed],
            "{via:?}"
        );
        assert_eq!(task.last().status, TaskStatus::Completed);

        let plain = client
            .call_tool("slow_compute", args(json!({"seconds": 0.1, "label": "y"})))
            .await
            .unwrap();
        let ByEra::Modern(m::CallToolResultResponseResult::CallToolResult(plain)) = plain else {
            panic!("{via:?}: {plain:?}")
        };
        assert_eq!(text(&plain), "Computed y in 0.1 s", "{via:?}");
        client.close().await;
    }
}

/// A JSON-RPC error in the handler ends the task `failed`.
async fn a_protocol_error_fails_the_task() {
    for via in BOTH {
        let client = connect(via, true).await;
        let task = start(&client, "protocol_error_job", json!({})).await;
        let (outcome, seen) = wait_recording(&task).await;
        match outcome {
            Err(Error::TaskFailed { task_id, error }) => {
                assert_eq!(task_id, task.id());
                assert_eq!(error.code, -32603, "{via:?}");
                assert!(
                    error.message.contains("internal error"),
                    "{}",
                    error.message
                );
            }
            other => panic!("{via:?}: {other:?}"),
        }
        assert_eq!(seen.last(), Some(&TaskStatus::Failed));
        client.close().await;
    }
}

/// A tool result with `isError` ends `completed`, not `failed`.
async fn an_is_error_result_completes() {
    for via in BOTH {
        let client = connect(via, true).await;
        let task = start(&client, "failing_job", json!({})).await;
        let result = task.wait().await.unwrap();
        assert_eq!(result.is_error, Some(true), "{via:?}");
        assert!(text(&result).contains("The job failed"));
        assert_eq!(task.status(), TaskStatus::Completed);
        client.close().await;
    }
}

/// `input_required` inside a task is answered through the handler and
/// `tasks/update`: one key, then two keys at once.
async fn input_required_is_answered_through_the_handler() {
    for via in BOTH {
        let client = connect(via, true).await;
        let task = start(&client, "confirm_delete", json!({"filename": "a.txt"})).await;
        let (outcome, seen) = wait_recording(&task).await;
        assert_eq!(text(&outcome.unwrap()), "Deleted a.txt", "{via:?}");
        assert!(
            seen.contains(&TaskStatus::InputRequired),
            "{via:?}: {seen:?}"
        );
        assert_eq!(seen.last(), Some(&TaskStatus::Completed));

        let task = start(&client, "multi_input", json!({})).await;
        let result = task.wait().await.unwrap();
        let t = text(&result);
        assert!(
            t.contains("input-a") && t.contains("input-b"),
            "{via:?}: {t}"
        );
        assert!(t.contains("Alice"), "{t}");
        client.close().await;
    }
}

/// An MRTR round before the task exists, then the task.
async fn mrtr_then_a_task() {
    for via in BOTH {
        let client = connect(via, true).await;
        let task = start(&client, "test_tool_with_task", json!({})).await;
        let result = task.wait().await.unwrap();
        assert_eq!(text(&result), "Hello, Alice! (async)", "{via:?}");
        client.close().await;
    }
}

/// `cancel()` from a clone ends a waiting `wait()` with `TaskCancelled`;
/// cancelling again is acknowledged; a dropped `wait()` leaves the task
/// readable.
async fn cancel_ends_the_task() {
    for via in BOTH {
        let client = connect(via, true).await;
        let task = start(&client, "slow_compute", json!({"seconds": 30})).await;
        // Dropping a wait future stops only the polling.
        let dropped = tokio::time::timeout(Duration::from_millis(200), task.wait()).await;
        assert!(dropped.is_err());
        assert_eq!(task.get().await.unwrap().status, TaskStatus::Working);

        let waiter = {
            let task = task.clone();
            tokio::spawn(async move { task.wait().await })
        };
        tokio::time::sleep(Duration::from_millis(100)).await;
        task.cancel().await.unwrap();
        match waiter.await.unwrap() {
            Err(Error::TaskCancelled { task_id }) => assert_eq!(task_id, task.id()),
            other => panic!("{via:?}: {other:?}"),
        }
        task.cancel().await.unwrap();
        assert_eq!(task.get().await.unwrap().status, TaskStatus::Cancelled);
        // A handle from the id alone sees the same task.
        let again = client.task(task.id());
        assert_eq!(again.get().await.unwrap().status, TaskStatus::Cancelled);
        client.close().await;
    }
}

/// Without the opt-in nothing becomes a task: an optional tool answers at
/// once, a required one is refused with -32021.
async fn without_the_opt_in_calls_stay_synchronous() {
    for via in BOTH {
        let client = connect(via, false).await;
        match client
            .call_tool_as_task("slow_compute", args(json!({"seconds": 0.05, "label": "z"})))
            .await
            .unwrap()
        {
            TaskCall::Complete(r) => assert_eq!(text(&r), "Computed z in 0.05 s"),
            TaskCall::Task(t) => panic!("{via:?}: a task {}", t.id()),
        }
        match client.call_tool_as_task("failing_job", Map::new()).await {
            Err(Error::Rpc { error, .. }) => assert_eq!(error.code, -32021, "{via:?}"),
            other => panic!("{via:?}: {other:?}"),
        }
        // A tool that is never a task answers at once even with the opt-in.
        let client = connect(via, true).await;
        let done = client
            .call_tool_as_task("greet", args(json!({"name": "Bob"})))
            .await
            .unwrap()
            .finish()
            .await
            .unwrap();
        assert_eq!(text(&done), "Hello, Bob!");
        client.close().await;
    }
    // A legacy session has no tasks: the call answers at once.
    let legacy = ClientOptions {
        era: EraMode::Legacy,
        ..opts(true)
    };
    let client = fixture::stdio(legacy).await;
    match client
        .call_tool_as_task("slow_compute", args(json!({"seconds": 0.05, "label": "l"})))
        .await
        .unwrap()
    {
        TaskCall::Complete(r) => assert_eq!(text(&r), "Computed l in 0.05 s"),
        TaskCall::Task(t) => panic!("legacy: a task {}", t.id()),
    }
    client.close().await;
}

fn main() -> ExitCode {
    fixture::main(&[
        ("a_task_completes", || Box::pin(a_task_completes())),
        ("a_protocol_error_fails_the_task", || {
            Box::pin(a_protocol_error_fails_the_task())
        }),
        ("an_is_error_result_completes", || {
            Box::pin(an_is_error_result_completes())
        }),
        ("input_required_is_answered_through_the_handler", || {
            Box::pin(input_required_is_answered_through_the_handler())
        }),
        ("mrtr_then_a_task", || Box::pin(mrtr_then_a_task())),
        ("cancel_ends_the_task", || Box::pin(cancel_ends_the_task())),
        ("without_the_opt_in_calls_stay_synchronous", || {
            Box::pin(without_the_opt_in_calls_stay_synchronous())
        }),
    ])
}
