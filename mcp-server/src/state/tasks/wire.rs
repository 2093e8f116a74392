//! The extension's wire shapes, as the generated types of
//! `mcp_era_types::ext::tasks` (from the extension's official schema): a
//! stored [`TaskRecord`] becomes a `CreateTaskResult`, a `GetTaskResult` or
//! the params of `notifications/tasks`; `tasks/get` and `tasks/cancel`
//! params are read as `GetTaskRequestParams`. Results leave as JSON, which
//! the reply renders.

use mcp_era_types::ext::tasks::{
    CancelTaskResult, CreateTaskResult, GetTaskResult, GetTaskResultCancelled,
    GetTaskResultCompleted, GetTaskResultFailed, GetTaskResultInputRequired, GetTaskResultWorking,
    TaskStatusNotificationParams, TaskStatusNotificationParamsCancelled,
    TaskStatusNotificationParamsCompleted, TaskStatusNotificationParamsFailed,
    TaskStatusNotificationParamsInputRequired, TaskStatusNotificationParamsWorking,
    UpdateTaskResult,
};
use mcp_era_types::v2026_07_28::{Error, InputRequests, error_codes};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::store::{TaskRecord, TaskStatus};
use crate::wire::errors::{self, ErrorObject};

/// A task id read from params: a string, else `-32602`.
pub(crate) fn task_id(value: Option<&Value>) -> Result<&str, ErrorObject> {
    match value {
        Some(Value::String(id)) => Ok(id),
        None | Some(Value::Null) => Err(errors::invalid_params("Missing params.taskId")),
        _ => Err(errors::invalid_params("params.taskId must be a string")),
    }
}

/// Reads `params` (an object) as `T`, else `-32602` naming the method.
pub(crate) fn read_params<T: for<'de> Deserialize<'de>>(
    method: &str,
    params: Option<&Value>,
) -> Result<T, ErrorObject> {
    let params = params.cloned().unwrap_or(Value::Null);
    serde_json::from_value(params)
        .map_err(|e| errors::invalid_params(format!("Invalid params for {method}: {e}")))
}

/// The `Task` fields every shape shares ("Tasks": `taskId`, `status`,
/// `statusMessage?`, `createdAt`, `lastUpdatedAt`, `ttlMs`,
/// `pollIntervalMs?`), as they travel.
struct Base {
    task_id: String,
    status_message: Option<String>,
    created_at: String,
    last_updated_at: String,
    ttl_ms: Option<i64>,
    poll_interval_ms: Option<i64>,
}

impl Base {
    fn of(record: &TaskRecord) -> Self {
        // Milliseconds past i64 are centuries; they saturate.
        let wire_ms = |ms: u64| i64::try_from(ms).unwrap_or(i64::MAX);
        Base {
            task_id: record.task_id.clone(),
            status_message: record.status_message.clone(),
            created_at: iso8601(record.created_at_ms),
            last_updated_at: iso8601(record.last_updated_at_ms),
            ttl_ms: record.ttl_ms.map(wire_ms),
            poll_interval_ms: record.poll_interval_ms.map(wire_ms),
        }
    }
}

/// One status's struct of a `DetailedTask`-shaped type: the `Task` fields
/// of `base`, the status's own fields, no `_meta`, no extra keys.
macro_rules! shape {
    ($ty:ident, $base:expr $(, $field:ident: $value:expr)*) => {{
        let base: Base = $base;
        $ty {
            meta: None,
            task_id: base.task_id,
            status_message: base.status_message,
            created_at: base.created_at,
            last_updated_at: base.last_updated_at,
            ttl_ms: base.ttl_ms,
            poll_interval_ms: base.poll_interval_ms,
            $($field: $value,)*
            extra: Map::new(),
        }
    }};
}

/// The `DetailedTask` variant of the record's status in union `$union`:
/// the outstanding `inputRequests` while `input_required`, `result` once
/// `completed`, `error` once `failed`.
macro_rules! detailed {
    ($union:ident, $record:expr, [$working:ident, $input:ident, $completed:ident, $failed:ident, $cancelled:ident]) => {{
        let record: &TaskRecord = $record;
        let base = Base::of(record);
        Ok(match record.status {
            TaskStatus::Working => $union::$working(shape!($working, base)),
            TaskStatus::InputRequired => $union::$input(shape!(
                $input,
                base,
                input_requests: outstanding(record)?
            )),
            TaskStatus::Completed => {
                $union::$completed(shape!($completed, base, result: final_result(record)))
            }
            TaskStatus::Failed => $union::$failed(shape!($failed, base, error: task_error(record))),
            TaskStatus::Cancelled => $union::$cancelled(shape!($cancelled, base)),
        })
    }};
}

/// The requests not yet answered, as the core `InputRequests`.
fn outstanding(record: &TaskRecord) -> Result<InputRequests, ErrorObject> {
    record
        .input_requests
        .iter()
        .filter(|(key, _)| !record.answers.contains_key(*key))
        .map(|(key, request)| {
            let request = serde_json::from_value(request.clone()).map_err(|e| {
                errors::internal_error(format!("Stored input request {key} is malformed: {e}"))
            })?;
            Ok((key.clone(), request))
        })
        .collect()
}

fn final_result(record: &TaskRecord) -> Map<String, Value> {
    match &record.result {
        Some(Value::Object(result)) => result.clone(),
        _ => Map::new(),
    }
}

fn task_error(record: &TaskRecord) -> Error {
    record
        .error
        .as_ref()
        .and_then(|error| serde_json::from_value(error.clone()).ok())
        .unwrap_or_else(|| Error::new(error_codes::INTERNAL_ERROR, "The task failed"))
}

/// `CreateTaskResult`: flat `Result & Task`, `resultType: "task"`, no
/// `result`/`error`/`inputRequests` ("Task Creation").
pub(crate) fn create_task_result(record: &TaskRecord) -> Value {
    let base = Base::of(record);
    to_json(&CreateTaskResult {
        meta: None,
        status: record.status,
        task_id: base.task_id,
        status_message: base.status_message,
        created_at: base.created_at,
        last_updated_at: base.last_updated_at,
        ttl_ms: base.ttl_ms,
        poll_interval_ms: base.poll_interval_ms,
        extra: Map::new(),
    })
}

/// `GetTaskResult`: the `DetailedTask` of the current status with
/// `resultType: "complete"` ("Task Polling" → "Response").
pub(crate) fn get_task_result(record: &TaskRecord) -> Result<GetTaskResult, ErrorObject> {
    detailed!(
        GetTaskResult,
        record,
        [
            GetTaskResultWorking,
            GetTaskResultInputRequired,
            GetTaskResultCompleted,
            GetTaskResultFailed,
            GetTaskResultCancelled
        ]
    )
}

/// The params of `notifications/tasks`: the same `DetailedTask`, without
/// `resultType`.
pub(crate) fn status_notification(
    record: &TaskRecord,
) -> Result<TaskStatusNotificationParams, ErrorObject> {
    detailed!(
        TaskStatusNotificationParams,
        record,
        [
            TaskStatusNotificationParamsWorking,
            TaskStatusNotificationParamsInputRequired,
            TaskStatusNotificationParamsCompleted,
            TaskStatusNotificationParamsFailed,
            TaskStatusNotificationParamsCancelled
        ]
    )
}

/// The empty acknowledgement of `tasks/update`.
pub(crate) fn update_ack() -> Value {
    to_json(&UpdateTaskResult {
        meta: None,
        extra: Map::new(),
    })
}

/// The empty acknowledgement of `tasks/cancel`.
pub(crate) fn cancel_ack() -> Value {
    to_json(&CancelTaskResult {
        meta: None,
        extra: Map::new(),
    })
}

/// Milliseconds since the Unix epoch as ISO 8601 UTC
/// (`2026-12-01T01:02:03.456Z`).
pub fn iso8601(epoch_ms: u64) -> String {
    let secs = epoch_ms / 1000;
    let millis = epoch_ms % 1000;
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01
/// (H. Hinnant's `civil_from_days`, for non-negative days).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// Serializes for the record; JSON values never fail.
pub(crate) fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::iso8601;

    #[test]
    fn iso8601_formats_known_instants() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso8601(1_796_086_923_456), "2026-12-01T01:02:03.456Z");
    }
}
