//! The extension's wire shapes, written by hand: the generated 2026-07-28
//! types have no `tasks/*` methods (they belong to the extension, not the
//! core schema). Requests are read from JSON; results are built as JSON.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::store::{TaskRecord, TaskStatus};
use crate::wire::errors::{self, ErrorObject};

/// `tasks/get` and `tasks/cancel` params: `{taskId}`.
#[derive(Debug, Deserialize)]
pub(crate) struct TaskIdParams {
    #[serde(rename = "taskId")]
    pub(crate) task_id: Value,
}

/// `tasks/update` params: `{taskId, inputResponses}`.
#[derive(Debug, Deserialize)]
pub(crate) struct UpdateParams {
    #[serde(rename = "taskId")]
    pub(crate) task_id: Value,
    #[serde(rename = "inputResponses")]
    pub(crate) input_responses: Option<Value>,
}

/// A task id read from params: a string, else `-32602`.
pub(crate) fn task_id(value: &Value) -> Result<&str, ErrorObject> {
    match value {
        Value::String(id) => Ok(id),
        Value::Null => Err(errors::invalid_params("Missing params.taskId")),
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

/// The status as it travels.
pub(crate) fn status_str(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
    }
}

/// The `Task` fields every shape shares ("Tasks": `taskId`, `status`,
/// `statusMessage?`, `createdAt`, `lastUpdatedAt`, `ttlMs`,
/// `pollIntervalMs?`).
fn task_fields(record: &TaskRecord, result_type: &str) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("resultType".into(), json!(result_type));
    out.insert("taskId".into(), json!(record.task_id));
    out.insert("status".into(), json!(status_str(record.status)));
    if let Some(message) = &record.status_message {
        out.insert("statusMessage".into(), json!(message));
    }
    out.insert("createdAt".into(), json!(iso8601(record.created_at_ms)));
    out.insert(
        "lastUpdatedAt".into(),
        json!(iso8601(record.last_updated_at_ms)),
    );
    out.insert("ttlMs".into(), json!(record.ttl_ms));
    if let Some(poll) = record.poll_interval_ms {
        out.insert("pollIntervalMs".into(), json!(poll));
    }
    out
}

/// `CreateTaskResult`: flat `Result & Task`, `resultType: "task"`, no
/// `result`/`error`/`inputRequests` ("Task Creation").
pub(crate) fn create_task_result(record: &TaskRecord) -> Value {
    Value::Object(task_fields(record, "task"))
}

/// `GetTaskResult`: the `DetailedTask` of the current status with
/// `resultType: "complete"` ("Task Polling" → "Response"): the outstanding
/// `inputRequests` while `input_required`, `result` once `completed`,
/// `error` once `failed`.
pub(crate) fn detailed_task(record: &TaskRecord) -> Value {
    let mut out = task_fields(record, "complete");
    match record.status {
        TaskStatus::InputRequired => {
            let outstanding: Map<String, Value> = record
                .input_requests
                .iter()
                .filter(|(key, _)| !record.answers.contains_key(*key))
                .map(|(key, request)| (key.clone(), request.clone()))
                .collect();
            out.insert("inputRequests".into(), Value::Object(outstanding));
        }
        TaskStatus::Completed => {
            out.insert(
                "result".into(),
                record.result.clone().unwrap_or_else(|| json!({})),
            );
        }
        TaskStatus::Failed => {
            out.insert(
                "error".into(),
                record
                    .error
                    .clone()
                    .unwrap_or_else(|| json!({ "code": -32603, "message": "The task failed" })),
            );
        }
        TaskStatus::Working | TaskStatus::Cancelled => {}
    }
    Value::Object(out)
}

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`.
pub(crate) fn ack() -> Value {
    json!({ "resultType": "complete" })
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
