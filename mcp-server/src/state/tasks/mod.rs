//! The task engine of one server type: the store, the settings of new
//! tasks, and the handler rounds running in this process. The extension's
//! methods that drive it are in `features::tasks`.

#[cfg(feature = "redis")]
pub(crate) mod redis;
pub(crate) mod store;
pub(crate) mod wire;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::task::{AbortHandle, JoinError, JoinHandle};

pub(crate) use self::store::now_ms;
use self::store::{MemoryTaskStore, StoreError, TaskRecord, TaskStatus, TaskStore};
use crate::state::events::{ServerEvent, ServerEvents};
use crate::wire::errors::{self, ErrorObject, HandlerResult};
use crate::wire::reply::Reply;

/// The default `ttlMs` of a task: one hour.
pub const DEFAULT_TTL_MS: u64 = 3_600_000;
/// The default `pollIntervalMs`: 500 ms.
pub const DEFAULT_POLL_INTERVAL_MS: u64 = 500;
/// How many handler rounds (`input_required` and back) one task may take
/// before it fails with `-32603`.
pub const MAX_TASK_ROUNDS: u32 = 16;

/// The extension's one authorization rule: a task is visible to, and
/// changed by, the principal that created it and nobody else (`None` is
/// the unauthenticated caller).
pub(crate) fn owned_by(owner: Option<&str>, caller: Option<&str>) -> bool {
    owner == caller
}

/// A handler call that owns everything it needs, so it can outlive the
/// request that started it.
pub(crate) type Work = Pin<Box<dyn Future<Output = HandlerResult<Reply>> + Send + 'static>>;

/// The tasks of one server type: where they are stored, their `ttlMs` and
/// `pollIntervalMs`, and the rounds running in this process.
pub struct Tasks {
    store: RwLock<Arc<dyn TaskStore>>,
    settings: RwLock<Settings>,
    running: Mutex<HashMap<String, AbortHandle>>,
}

#[derive(Debug, Clone, Copy)]
struct Settings {
    ttl_ms: Option<u64>,
    poll_interval_ms: u64,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("settings", &*self.read_settings())
            .field("running", &self.running_rounds())
            .finish_non_exhaustive()
    }
}

impl Default for Tasks {
    fn default() -> Self {
        Self::new()
    }
}

impl Tasks {
    /// An engine over a fresh [`MemoryTaskStore`], with
    /// [`DEFAULT_TTL_MS`] and [`DEFAULT_POLL_INTERVAL_MS`].
    pub fn new() -> Self {
        Self {
            store: RwLock::new(Arc::new(MemoryTaskStore::default())),
            settings: RwLock::new(Settings {
                ttl_ms: Some(DEFAULT_TTL_MS),
                poll_interval_ms: DEFAULT_POLL_INTERVAL_MS,
            }),
            running: Mutex::new(HashMap::new()),
        }
    }

    fn read_settings(&self) -> std::sync::RwLockReadGuard<'_, Settings> {
        self.settings.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_settings(&self) -> std::sync::RwLockWriteGuard<'_, Settings> {
        self.settings
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, AbortHandle>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Replaces the store (set it before serving: tasks in the old store
    /// are not moved).
    pub fn set_store(&self, store: Arc<dyn TaskStore>) {
        *self.store.write().unwrap_or_else(PoisonError::into_inner) = store;
    }

    /// The store.
    pub fn store(&self) -> Arc<dyn TaskStore> {
        Arc::clone(&self.store.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The `ttlMs` of new tasks (`None`: unlimited; a store may still have
    /// to drop finished tasks when full).
    pub fn set_ttl_ms(&self, ttl_ms: Option<u64>) {
        self.write_settings().ttl_ms = ttl_ms;
    }

    /// The `pollIntervalMs` of new tasks (at least 1).
    pub fn set_poll_interval_ms(&self, poll_interval_ms: u64) {
        self.write_settings().poll_interval_ms = poll_interval_ms.max(1);
    }

    /// How many handler rounds run in this process now (finished rounds
    /// leave nothing behind).
    pub fn running_rounds(&self) -> usize {
        self.running().len()
    }

    pub(crate) fn new_record(
        &self,
        request: Value,
        owner: Option<String>,
    ) -> HandlerResult<TaskRecord> {
        let task_id = crate::wire::random_id::random_id()
            .map_err(|e| errors::internal_error(format!("no randomness for a task id: {e}")))?;
        let settings = *self.read_settings();
        let now = now_ms();
        Ok(TaskRecord {
            task_id,
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: now,
            last_updated_at_ms: now,
            ttl_ms: settings.ttl_ms,
            poll_interval_ms: Some(settings.poll_interval_ms),
            request,
            request_state: None,
            input_requests: Map::new(),
            answers: Map::new(),
            key_map: Default::default(),
            used_keys: Default::default(),
            round: 1,
            owner,
            result: None,
            error: None,
        })
    }

    /// Runs one handler round in the background and records how it ends.
    pub(crate) fn spawn_round(
        &'static self,
        task_id: String,
        work: Work,
        events: Option<ServerEvents>,
    ) {
        let handle = tokio::spawn(work);
        self.running()
            .insert(task_id.clone(), handle.abort_handle());
        tokio::spawn(async move {
            let joined = self.supervise(&task_id, handle).await;
            self.running().remove(&task_id);
            let end = match joined {
                Ok(Ok(reply)) => match reply.to_value() {
                    Ok(result) => RoundEnd::Result(result),
                    Err(error) => RoundEnd::Error(error),
                },
                Ok(Err(error)) => RoundEnd::Error(error),
                Err(join) if join.is_cancelled() => return,
                Err(_) => RoundEnd::Error(errors::internal_error("The tool panicked")),
            };
            match self.end_round(&task_id, end).await {
                Ok(record) => announce(events.as_ref(), record.as_ref()),
                Err(e) => {
                    tracing::warn!(task = %task_id, "could not record the end of a task round: {e}");
                }
            }
        });
    }

    /// Waits for a round; with a shared store, also stops it when another
    /// process cancelled the task.
    async fn supervise(
        &self,
        task_id: &str,
        mut handle: JoinHandle<HandlerResult<Reply>>,
    ) -> Result<HandlerResult<Reply>, JoinError> {
        let store = self.store();
        if !store.is_shared() {
            return handle.await;
        }
        let every = Duration::from_millis(self.read_settings().poll_interval_ms);
        loop {
            if let Ok(joined) = tokio::time::timeout(every, &mut handle).await {
                return joined;
            }
            let gone = match store.get(task_id).await {
                Ok(Some(record)) => record.status.is_terminal(),
                Ok(None) => true,
                Err(_) => false,
            };
            if gone {
                handle.abort();
                return handle.await;
            }
        }
    }

    /// Records the end of a round: parks the task on `input_required`,
    /// or ends it (`completed` / `failed`) unless it already ended.
    async fn end_round(
        &self,
        task_id: &str,
        end: RoundEnd,
    ) -> Result<Option<TaskRecord>, StoreError> {
        let store = self.store();
        let now = now_ms();
        let mut change: Box<dyn FnMut(&mut TaskRecord) -> bool + Send> = match end {
            RoundEnd::Result(result)
                if result.get("resultType").and_then(Value::as_str) == Some("input_required") =>
            {
                let requests = result
                    .get("inputRequests")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let state = result
                    .get("requestState")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                Box::new(move |r: &mut TaskRecord| {
                    if r.status != TaskStatus::Working {
                        return false;
                    }
                    if requests.is_empty() || r.round >= MAX_TASK_ROUNDS {
                        let reason = if requests.is_empty() {
                            "The tool asked for input without any input request"
                        } else {
                            "The task still needed input after too many rounds"
                        };
                        fail(r, &errors::internal_error(reason), now);
                        return true;
                    }
                    park(r, &requests, state.clone(), now);
                    true
                })
            }
            RoundEnd::Result(result) => {
                let result = without_server_info(result);
                Box::new(move |r: &mut TaskRecord| {
                    if r.status.is_terminal() {
                        return false;
                    }
                    r.status = TaskStatus::Completed;
                    r.status_message = None;
                    r.result = Some(result.clone());
                    r.last_updated_at_ms = now;
                    true
                })
            }
            RoundEnd::Error(error) => Box::new(move |r: &mut TaskRecord| {
                if r.status.is_terminal() {
                    return false;
                }
                fail(r, &error, now);
                true
            }),
        };
        store.update(task_id, &mut *change).await
    }

    /// Cancels the task of `owner` (see the module docs, "Authorization"):
    /// `cancelled` unless it already ended, and its round in this process
    /// (if any) is stopped. `None` for an unknown id or another owner's task.
    pub async fn cancel(
        &self,
        task_id: &str,
        owner: Option<&str>,
    ) -> Result<Option<TaskRecord>, StoreError> {
        let now = now_ms();
        let mut change = |r: &mut TaskRecord| {
            if !owned_by(r.owner.as_deref(), owner) || r.status.is_terminal() {
                return false;
            }
            r.status = TaskStatus::Cancelled;
            r.status_message = Some("Cancelled at the client's request".into());
            r.input_requests.clear();
            r.answers.clear();
            r.last_updated_at_ms = now;
            true
        };
        let Some(record) = self.store().update(task_id, &mut change).await? else {
            return Ok(None);
        };
        if !owned_by(record.owner.as_deref(), owner) {
            return Ok(None);
        }
        if let Some(abort) = self.running().remove(task_id) {
            abort.abort();
        }
        Ok(Some(record))
    }
}

/// Publishes a task's new status to listen streams (`notifications/tasks`
/// carries the `DetailedTask`, without `resultType`).
pub(crate) fn announce(events: Option<&ServerEvents>, record: Option<&TaskRecord>) {
    let (Some(events), Some(record)) = (events, record) else {
        return;
    };
    // Notifications are optional ("Task Status Notifications"): a record
    // that cannot be shown is polled instead.
    let Ok(params) = wire::status_notification(record) else {
        return;
    };
    let task = wire::to_json(&params);
    events.publish(ServerEvent::TaskStatus {
        task_id: record.task_id.clone(),
        owner: record.owner.clone(),
        task,
    });
}

enum RoundEnd {
    Result(Value),
    Error(ErrorObject),
}

pub(crate) fn fail(record: &mut TaskRecord, error: &ErrorObject, now: u64) {
    record.status = TaskStatus::Failed;
    record.status_message = Some(error.message.clone());
    record.error = Some(wire::to_json(error));
    record.input_requests.clear();
    record.answers.clear();
    record.last_updated_at_ms = now;
}

/// `input_required` with `requests`; a key already issued in this task
/// gets a fresh wire key ("Task Update Requests": keys are unique over a
/// task's life).
fn park(record: &mut TaskRecord, requests: &Map<String, Value>, state: Option<String>, now: u64) {
    record.input_requests.clear();
    record.answers.clear();
    record.key_map.clear();
    for (key, request) in requests {
        let mut wire = key.clone();
        let mut n = record.round;
        while record.used_keys.contains(&wire) {
            wire = format!("{key}.{n}");
            n += 1;
        }
        record.used_keys.insert(wire.clone());
        record.key_map.insert(wire.clone(), key.clone());
        record.input_requests.insert(wire, request.clone());
    }
    record.request_state = state;
    record.status = TaskStatus::InputRequired;
    record.status_message = Some("Waiting for input".into());
    record.last_updated_at_ms = now;
}

/// A stored result without the response-level `serverInfo`.
fn without_server_info(mut result: Value) -> Value {
    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
        meta.remove(mcp_era_types::v2026_07_28::meta_keys::SERVER_INFO);
        if meta.is_empty()
            && let Value::Object(object) = &mut result
        {
            object.remove("_meta");
        }
    }
    result
}

pub(crate) fn store_failure(e: StoreError) -> ErrorObject {
    errors::internal_error(format!("The task store failed: {e}"))
}
