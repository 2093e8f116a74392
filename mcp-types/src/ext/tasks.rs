//! The tasks extension (`io.modelcontextprotocol/tasks`): a server may answer
//! a request with a task (`CreateTaskResult`, `resultType: "task"`) that the
//! client then polls with `tasks/get`, feeds with `tasks/update` while it is
//! `input_required`, and stops with `tasks/cancel`; `notifications/tasks`
//! report status changes on `subscriptions/listen` streams.
//!
//! Every type here is generated from the extension's official schema
//! (`modelcontextprotocol/ext-tasks`, `schema/draft/schema.json`, pinned in
//! `schema/manifest.toml`), with the same guarantees as the core modules
//! (exact JSON round trip, consts checked, unknown keys kept). The core types
//! the schema refers to (`Error`, `Result`'s `_meta`, `InputRequests`,
//! `InputResponses`, `RequestId`) are those of
//! [`v2026_07_28`](crate::v2026_07_28). This file adds only helpers.
//!
//! ```
//! use mcp_era_types::ext::tasks::{GetTaskResult, TaskStatus};
//!
//! let got: GetTaskResult = serde_json::from_str(
//!     r#"{"resultType":"complete","taskId":"t1","status":"completed",
//!         "createdAt":"2026-12-01T00:00:00Z","lastUpdatedAt":"2026-12-01T00:00:01Z",
//!         "ttlMs":null,"result":{"content":[]}}"#,
//! )?;
//! assert!(matches!(got, GetTaskResult::GetTaskResultCompleted(_)));
//! assert!(TaskStatus::Completed.is_terminal());
//! assert_eq!(TaskStatus::InputRequired.as_str(), "input_required");
//! # Ok::<(), serde_json::Error>(())
//! ```

pub use crate::generated::ext_tasks::*;

impl TaskStatus {
    /// Whether a task with this status has ended (`completed`, `failed`,
    /// `cancelled`): it changes no more.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The status as it travels (`input_required`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

impl Task {
    /// The task with its status's own fields typed: the `inputRequests` of
    /// an `input_required` task, the `result` of a `completed` one, the
    /// `error` of a `failed` one. A `Task` read from a `tasks/get` result or
    /// a `notifications/tasks` keeps them among its extra keys; one read
    /// from a `CreateTaskResult` has none, so only a `working` or
    /// `cancelled` one converts.
    ///
    /// ```
    /// use mcp_era_types::ext::tasks::{DetailedTask, Task};
    ///
    /// let task: Task = serde_json::from_str(
    ///     r#"{"resultType":"complete","taskId":"t1","status":"failed","createdAt":"a",
    ///         "lastUpdatedAt":"b","ttlMs":null,"error":{"code":-32603,"message":"boom"}}"#,
    /// )?;
    /// let DetailedTask::FailedTask(failed) = task.detailed()? else { unreachable!() };
    /// assert_eq!(failed.error.message, "boom");
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn detailed(&self) -> Result<DetailedTask, serde_json::Error> {
        serde_json::to_value(self).and_then(serde_json::from_value)
    }
}
