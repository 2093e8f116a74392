//! The client side of the tasks extension (`io.modelcontextprotocol/tasks`):
//! a `tools/call` the server answers with a `CreateTaskResult` is polled
//! with `tasks/get` until it ends, its `input_required` rounds answered
//! through the [`ClientHandler`](crate::ClientHandler) and `tasks/update`,
//! and `tasks/cancel` stops it.
//!
//! Opt in with [`ClientOptions::tasks`](crate::ClientOptions::tasks): every
//! modern request then declares the extension in its `_meta` client
//! capabilities, so the server may (it alone decides) answer a tool call
//! with a task. [`Client::call_tool`](crate::Client::call_tool) then waits
//! for the task transparently; [`Client::call_tool_as_task`] hands back a
//! [`TaskHandle`] to watch, answer and cancel it.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_era_client::Error> {
//! use mcp_era_client::tasks::TaskCall;
//! use mcp_era_client::{Client, ClientOptions};
//! use serde_json::{Map, json};
//!
//! let opts = ClientOptions { tasks: true, ..ClientOptions::default() };
//! let client = Client::connect_stdio("my-server", &[], opts).await?;
//! let mut args = Map::new();
//! args.insert("seconds".into(), json!(5));
//! match client.call_tool_as_task("slow_compute", args).await? {
//!     TaskCall::Complete(result) => println!("answered at once: {:?}", result.content),
//!     TaskCall::Task(task) => {
//!         println!("task {}", task.id());
//!         // Called at every status change; `task.cancel()` from a clone stops it.
//!         let result = task.wait_with(|t| println!("{:?}", t.status)).await?;
//!         println!("{:?}", result.content);
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! The wire shapes are the generated types of the extension's official
//! schema (`mcp_era_types::ext::tasks`): [`Task`] and [`TaskStatus`] are
//! those, re-exported. Dropping a [`TaskHandle::wait`]
//! future stops the polling (nothing is left running in the client) but
//! not the task: the server keeps working on it until it ends, its TTL
//! expires or [`TaskHandle::cancel`] is sent.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_era_types::ext::tasks::{CreateTaskResult, DetailedTask, GetTaskResult, methods};
use mcp_era_types::v2026_07_28 as modern;
use serde_json::{Map, Value, json};

use super::Client;
use super::exchange::parse;
use crate::error::{Error, Result};

/// A task as the server describes it, and its status: the generated types.
/// A [`Task`] read from `tasks/get` keeps its status's own fields
/// (`inputRequests`, `result`, `error`) among its extra keys;
/// [`Task::detailed`] types them.
pub use mcp_era_types::ext::tasks::{Task, TaskStatus};

// Defined beside `ClientOptions::tasks`, which declares it.
pub use super::options::TASKS_EXTENSION;

/// `tasks/get`.
pub const TASKS_GET: &str = methods::TASKS_GET;
/// `tasks/update`.
pub const TASKS_UPDATE: &str = methods::TASKS_UPDATE;
/// `tasks/cancel`.
pub const TASKS_CANCEL: &str = methods::TASKS_CANCEL;

/// The poll interval used when the server suggests none.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Bounds on a server-suggested poll interval: no busy loop on `0`, no
/// hour-long sleep on a huge value.
const MIN_POLL: Duration = Duration::from_millis(10);
const MAX_POLL: Duration = Duration::from_secs(60);

/// The poll interval to honour for `task`: the server's `pollIntervalMs`,
/// within sane bounds, else [`DEFAULT_POLL_INTERVAL`].
pub fn poll_interval(task: &Task) -> Duration {
    task.poll_interval_ms
        .map_or(DEFAULT_POLL_INTERVAL, |ms| {
            Duration::from_millis(u64::try_from(ms).unwrap_or(0))
        })
        .clamp(MIN_POLL, MAX_POLL)
}

/// Whether a result is a `CreateTaskResult`.
pub fn is_create_task_result(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some(CreateTaskResult::RESULT_TYPE)
}

/// What [`Client::call_tool_as_task`] got back.
#[derive(Debug)]
pub enum TaskCall {
    /// The server answered at once (it chose not to make a task, the
    /// client did not opt in, or the server is legacy).
    Complete(Box<modern::CallToolResult>),
    /// The server made a task.
    Task(TaskHandle),
}

impl TaskCall {
    /// The final result: at once, or by waiting for the task.
    pub async fn finish(self) -> Result<modern::CallToolResult> {
        match self {
            TaskCall::Complete(result) => Ok(*result),
            TaskCall::Task(task) => task.wait().await,
        }
    }
}

/// A handle to a task on the server: its id, its last known status, and
/// the requests that poll, answer and cancel it. Cheap to clone; clones
/// share the last status.
#[derive(Debug, Clone)]
pub struct TaskHandle {
    client: Client,
    id: String,
    /// The request the task came from, for error messages.
    method: String,
    last: Arc<Mutex<Task>>,
}

impl TaskHandle {
    /// A handle for a task the server just created (or one whose id is
    /// known from elsewhere: then `created` may be a bare `{taskId, status}`).
    pub fn new(client: Client, created: Task) -> Self {
        Self {
            client,
            id: created.task_id.clone(),
            method: modern::methods::TOOLS_CALL.to_owned(),
            last: Arc::new(Mutex::new(created)),
        }
    }

    /// The task's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The task as last seen (creation or the latest `tasks/get`).
    pub fn last(&self) -> Task {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The status as last seen.
    pub fn status(&self) -> TaskStatus {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).status
    }

    fn remember(&self, task: &Task) {
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = task.clone();
    }

    /// One `tasks/get`: the task now (also remembered as [`last`](Self::last)).
    pub async fn get(&self) -> Result<Task> {
        let raw = self
            .client
            .request(TASKS_GET, json!({"taskId": self.id}))
            .await?;
        // Checked as the whole `GetTaskResult` (the status's own fields
        // too), kept as a `Task` with those fields among its extra keys.
        parse::<GetTaskResult>(TASKS_GET, raw.clone())?;
        let task: Task = parse(TASKS_GET, raw)?;
        self.remember(&task);
        Ok(task)
    }

    /// `tasks/update`: answers to some or all of the outstanding input
    /// requests, by key.
    pub async fn update(&self, input_responses: Map<String, Value>) -> Result<()> {
        self.client
            .request(
                TASKS_UPDATE,
                json!({"taskId": self.id, "inputResponses": input_responses}),
            )
            .await
            .map(drop)
    }

    /// `tasks/cancel`: asks the server to stop the task (idempotent; an
    /// ended task stays as it ended). A [`wait`](Self::wait) in progress
    /// then ends with [`Error::TaskCancelled`].
    pub async fn cancel(&self) -> Result<()> {
        self.client
            .request(TASKS_CANCEL, json!({"taskId": self.id}))
            .await
            .map(drop)
    }

    /// Polls until the task ends and returns its result; see
    /// [`wait_with`](Self::wait_with).
    pub async fn wait(&self) -> Result<modern::CallToolResult> {
        self.wait_with(|_| {}).await
    }

    /// Polls `tasks/get` every `pollIntervalMs` until the task ends,
    /// answering `input_required` rounds through the client's handler and
    /// `tasks/update`. `on_change` sees every status (or status message)
    /// change, the current one first. `completed` → the tool's result
    /// (`isError` included); `failed` → [`Error::TaskFailed`];
    /// `cancelled` → [`Error::TaskCancelled`].
    pub async fn wait_with(
        &self,
        mut on_change: impl FnMut(&Task),
    ) -> Result<modern::CallToolResult> {
        let mut task = self.last();
        let mut shown: Option<(TaskStatus, Option<String>)> = None;
        // Keys are unique over a task's life: one already answered is not
        // answered again if a poll races the server taking the update.
        let mut answered: HashSet<String> = HashSet::new();
        let mut rounds = 0;
        loop {
            let seen = (task.status, task.status_message.clone());
            if shown.as_ref() != Some(&seen) {
                on_change(&task);
                shown = Some(seen);
            }
            let detailed = match task.status {
                TaskStatus::Working => None,
                _ => match task.detailed() {
                    Ok(detailed) => Some(detailed),
                    // A task as created carries no result, error or
                    // requests: `tasks/get` has them.
                    Err(_) => {
                        task = self.get().await?;
                        continue;
                    }
                },
            };
            match detailed {
                Some(DetailedTask::CompletedTask(completed)) => {
                    return parse(&self.method, Value::Object(completed.result));
                }
                Some(DetailedTask::FailedTask(failed)) => {
                    return Err(Error::TaskFailed {
                        task_id: self.id.clone(),
                        error: failed.error,
                    });
                }
                Some(DetailedTask::CancelledTask(_)) => {
                    return Err(Error::TaskCancelled {
                        task_id: self.id.clone(),
                    });
                }
                Some(DetailedTask::InputRequiredTask(waiting)) => {
                    let mut outstanding = Map::new();
                    for (key, request) in waiting.input_requests {
                        if !answered.contains(&key) {
                            let request = serde_json::to_value(&request).map_err(|e| {
                                Error::InvalidResult {
                                    method: TASKS_GET.to_owned(),
                                    detail: format!("inputRequests.{key}: {e}"),
                                }
                            })?;
                            outstanding.insert(key, request);
                        }
                    }
                    if !outstanding.is_empty() {
                        if rounds >= self.client.max_input_rounds() {
                            return Err(Error::TooManyInputRounds {
                                method: self.method.clone(),
                                rounds,
                            });
                        }
                        rounds += 1;
                        let responses = self
                            .client
                            .answer_inputs(&self.method, &outstanding)
                            .await?;
                        answered.extend(responses.keys().cloned());
                        self.update(responses).await?;
                        task = self.get().await?;
                        continue;
                    }
                }
                Some(DetailedTask::WorkingTask(_)) | None => {}
            }
            tokio::time::sleep(poll_interval(&task)).await;
            task = self.get().await?;
        }
    }
}

impl Client {
    /// Calls a tool, letting the server make it a task: with
    /// [`ClientOptions::tasks`](crate::ClientOptions::tasks) set the
    /// request declares the extension, and a `CreateTaskResult` comes back
    /// as a [`TaskHandle`]. Without the opt-in, or with a legacy server,
    /// the call is an ordinary one and ends [`TaskCall::Complete`]. MRTR
    /// rounds before the task is created are answered as in
    /// [`call_tool`](Self::call_tool).
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<TaskCall> {
        let method = modern::methods::TOOLS_CALL;
        let result = self
            .request(method, json!({"name": name, "arguments": arguments}))
            .await?;
        if is_create_task_result(&result) {
            parse::<CreateTaskResult>(method, result.clone())?;
            let created: Task = parse(method, result)?;
            return Ok(TaskCall::Task(TaskHandle::new(self.clone(), created)));
        }
        Ok(TaskCall::Complete(Box::new(parse(method, result)?)))
    }

    /// A handle for a task whose id is known (created earlier, perhaps by
    /// another connection to the same server). Its [`last`](TaskHandle::last)
    /// status is `working` until the first [`get`](TaskHandle::get).
    pub fn task(&self, task_id: &str) -> TaskHandle {
        TaskHandle::new(
            self.clone(),
            Task {
                task_id: task_id.to_owned(),
                status: TaskStatus::Working,
                status_message: None,
                created_at: String::new(),
                last_updated_at: String::new(),
                ttl_ms: None,
                poll_interval_ms: None,
                extra: Map::new(),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_create_task_result_and_a_detailed_task() {
        let created = json!({"resultType": "task", "taskId": "ab12", "status": "working",
            "createdAt": "2026-12-01T01:02:03.456Z", "lastUpdatedAt": "2026-12-01T01:02:03.456Z",
            "ttlMs": 3600000, "pollIntervalMs": 0});
        assert!(is_create_task_result(&created));
        let t: Task = serde_json::from_value(created).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.status, TaskStatus::Working);
        assert_eq!(poll_interval(&t), MIN_POLL, "0 is not a busy loop");
        let got = json!({"resultType": "complete", "taskId": "ab12", "status": "input_required",
            "createdAt": "x", "lastUpdatedAt": "y", "ttlMs": null,
            "inputRequests": {"confirm": {"method": "roots/list"}}});
        let t: Task = serde_json::from_value(got).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.status, TaskStatus::InputRequired);
        assert_eq!(poll_interval(&t), DEFAULT_POLL_INTERVAL);
        match t.detailed() {
            Ok(DetailedTask::InputRequiredTask(waiting)) => {
                assert!(waiting.input_requests.contains_key("confirm"))
            }
            other => panic!("{other:?}"),
        }
        let failed = json!({"taskId": "a", "status": "failed", "createdAt": "x",
            "lastUpdatedAt": "y", "ttlMs": 1000, "error": {"code": -32603, "message": "boom"}});
        let t: Task = serde_json::from_value(failed).unwrap_or_else(|e| panic!("{e}"));
        assert!(t.status.is_terminal());
        match t.detailed() {
            Ok(DetailedTask::FailedTask(failed)) => assert_eq!(failed.error.code, -32603),
            other => panic!("{other:?}"),
        }
        // The status set is the schema's: an unknown one is a bad result.
        let odd = json!({"taskId": "a", "status": "paused", "createdAt": "x",
            "lastUpdatedAt": "y", "ttlMs": null});
        assert!(serde_json::from_value::<Task>(odd).is_err());
        assert!(!is_create_task_result(&json!({"resultType": "complete"})));
    }
}
