//! The task engine of one server type: the store, the settings of new
//! tasks, and the handler rounds running in this process. The extension's
//! methods that drive it are in `features::tasks`.
//!
//! The end of a round is durable: when the store cannot take it, it is
//! retried with backoff for the end-retry window (the result is kept in
//! memory meanwhile), and past the window the task is recorded `failed`
//! (`-32603`, saying the result could not be stored) as soon as the store
//! answers again. A task whose round ended is never left `working`.
//!
//! On a shared store a round also holds a lease: the instance running it
//! renews `lease_until_ms` every third of the lease while it runs. A task
//! read `working` with its lease lapsed is marked so; read again a whole
//! lease later, still lapsed and not renewed, it ends `failed` ("the
//! server instance running this task stopped"), announced like any other
//! end. The second look gives a live instance that could not reach the
//! store (an outage longer than the lease) time to renew, or to store its
//! end, which wins: a round's end only lands on a task still `working`,
//! and one recorded failed stops its round where it still runs (the
//! watch for a cancellation made elsewhere). A round is thus declared dead
//! about two leases after its instance stopped, measured on
//! the instances' wall clocks (keep them in step).

#[cfg(feature = "redis")]
pub(crate) mod redis;
pub(crate) mod store;
pub(crate) mod wire;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

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
/// How long the end of a round is retried when the store cannot take it,
/// before the task is to be recorded `failed` instead: 30 s.
pub const DEFAULT_END_RETRY_WINDOW: Duration = Duration::from_secs(30);
/// The first pause between two attempts to store the end of a round; it
/// doubles up to [`END_RETRY_MAX_DELAY`].
const END_RETRY_MIN_DELAY: Duration = Duration::from_millis(100);
/// The longest pause between two attempts to store the end of a round, so
/// a store that answers again is written within this (plus the store's own
/// bound).
pub const END_RETRY_MAX_DELAY: Duration = Duration::from_secs(2);
/// How long a running round's lease lasts on a shared store: 30 s (see
/// the module docs; [`Tasks::set_lease`]).
pub const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(30);

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
    unstored_ends: AtomicUsize,
}

#[derive(Debug, Clone, Copy)]
struct Settings {
    ttl_ms: Option<u64>,
    poll_interval_ms: u64,
    end_retry_window: Duration,
    lease: Duration,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("settings", &*self.read_settings())
            .field("running", &self.running_rounds())
            .field("unstored_ends", &self.unstored_ends())
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
                end_retry_window: DEFAULT_END_RETRY_WINDOW,
                lease: DEFAULT_TASK_LEASE,
            }),
            running: Mutex::new(HashMap::new()),
            unstored_ends: AtomicUsize::new(0),
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

    /// How long the end of a round is retried when the store cannot take
    /// it (default [`DEFAULT_END_RETRY_WINDOW`]); past it the task ends
    /// `failed` (`-32603`: the result could not be stored), written as
    /// soon as the store answers again, so no task whose round ended stays
    /// `working`. A longer window keeps more results through a longer
    /// outage, each held in memory meanwhile.
    pub fn set_end_retry_window(&self, window: Duration) {
        self.write_settings().end_retry_window = window;
    }

    /// How many handler rounds run in this process now (finished rounds
    /// leave nothing behind).
    pub fn running_rounds(&self) -> usize {
        self.running().len()
    }

    /// Sets how long a running round's lease lasts on a shared store
    /// (default 30 s; at least 300 ms): a task whose
    /// instance stopped is recorded failed about two leases later.
    pub fn set_lease(&self, lease: Duration) {
        self.write_settings().lease = lease.max(Duration::from_millis(300));
    }

    /// The lease a round starting now holds: `None` on a store of this
    /// process alone, where a round cannot outlive its process.
    pub(crate) fn lease_from(&self, now: u64) -> Option<u64> {
        let lease = self.read_settings().lease;
        self.store()
            .is_shared()
            .then(|| now.saturating_add(millis(lease)))
    }

    /// The task `task_id` as read from the store; a `working` task whose
    /// round's lease lapsed is marked, and ended `failed` when it stayed
    /// lapsed a whole lease (see the module docs), the end announced on
    /// `events`. Reads work when the store refuses the write.
    pub(crate) async fn get(
        &self,
        task_id: &str,
        events: Option<&ServerEvents>,
    ) -> Result<Option<TaskRecord>, StoreError> {
        let store = self.store();
        let record = store.get(task_id).await?;
        let now = now_ms();
        if !record.as_ref().is_some_and(|r| lease_lapsed(r, now)) {
            return Ok(record);
        }
        let grace = millis(self.read_settings().lease);
        let mut change = |r: &mut TaskRecord| {
            if !lease_lapsed(r, now) {
                return false;
            }
            match r.lease_lapsed_at_ms {
                None => r.lease_lapsed_at_ms = Some(now),
                Some(at) if now >= at.saturating_add(grace) => {
                    let stopped = errors::internal_error(
                        "The server instance running this task stopped (its lease lapsed)",
                    );
                    fail(r, &stopped, now);
                }
                Some(_) => return false,
            }
            true
        };
        match store.update(task_id, &mut change).await {
            Ok(updated) => {
                if updated
                    .as_ref()
                    .is_some_and(|r| r.status == TaskStatus::Failed)
                    && record
                        .as_ref()
                        .is_some_and(|r| r.status == TaskStatus::Working)
                {
                    tracing::warn!(task = %task_id, "recorded failed: the instance running it stopped renewing its lease");
                    announce(events, updated.as_ref());
                }
                Ok(updated)
            }
            Err(e) => {
                tracing::warn!(task = %task_id, "could not mark a lapsed task lease: {e}");
                Ok(record)
            }
        }
    }

    /// How many ended rounds this process is still trying to store (their
    /// tasks read `working` meanwhile); 0 when the store takes every end.
    pub fn unstored_ends(&self) -> usize {
        self.unstored_ends.load(Ordering::Relaxed)
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
            lease_until_ms: self.lease_from(now),
            lease_lapsed_at_ms: None,
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

    /// Runs one handler round in the background and records how it ends
    /// (durably: see the module docs). `expires_at_ms` is the task's
    /// expiry, after which there is nothing left to record.
    pub(crate) fn spawn_round(
        self: &Arc<Self>,
        task_id: String,
        expires_at_ms: Option<u64>,
        work: Work,
        events: Option<ServerEvents>,
    ) {
        let handle = tokio::spawn(work);
        self.running()
            .insert(task_id.clone(), handle.abort_handle());
        let this = Arc::clone(self);
        tokio::spawn(async move {
            let joined = this.supervise(&task_id, handle).await;
            this.running().remove(&task_id);
            let end = match joined {
                Ok(Ok(reply)) => match reply.to_value() {
                    // Stored without the response-level `serverInfo`.
                    Ok(result) => RoundEnd::Result(without_server_info(result)),
                    Err(error) => RoundEnd::Error(error),
                },
                Ok(Err(error)) => RoundEnd::Error(error),
                Err(join) if join.is_cancelled() => return,
                Err(_) => RoundEnd::Error(errors::internal_error("The tool panicked")),
            };
            this.unstored_ends.fetch_add(1, Ordering::Relaxed);
            this.record_end(&task_id, expires_at_ms, end, events.as_ref())
                .await;
            this.unstored_ends.fetch_sub(1, Ordering::Relaxed);
        });
    }

    /// Ends the task `failed` with `error`, durably (as a round's end).
    pub(crate) fn spawn_failure(
        self: &Arc<Self>,
        task_id: String,
        expires_at_ms: Option<u64>,
        error: ErrorObject,
        events: Option<ServerEvents>,
    ) {
        self.unstored_ends.fetch_add(1, Ordering::Relaxed);
        let this = Arc::clone(self);
        tokio::spawn(async move {
            let end = RoundEnd::Error(error);
            this.record_end(&task_id, expires_at_ms, end, events.as_ref())
                .await;
            this.unstored_ends.fetch_sub(1, Ordering::Relaxed);
        });
    }

    /// After a change whose answer was lost: if the store holds exactly
    /// `written` (the change that resumed the task landed), runs `work` as
    /// its next round; if it holds anything else, the change did not land
    /// and the client's retry decides. Asked with backoff for the
    /// end-retry window while the store fails.
    pub(crate) fn resume_if_written(
        self: &Arc<Self>,
        written: TaskRecord,
        work: Work,
        events: Option<ServerEvents>,
    ) {
        let this = Arc::clone(self);
        tokio::spawn(async move {
            let window = this.read_settings().end_retry_window;
            let started = Instant::now();
            let mut delay = END_RETRY_MIN_DELAY;
            loop {
                match this.store().get(&written.task_id).await {
                    Ok(Some(record)) if record == written => {
                        announce(events.as_ref(), Some(&record));
                        let expires = record.expires_at_ms();
                        this.spawn_round(record.task_id, expires, work, events);
                        return;
                    }
                    Ok(_) => return,
                    Err(e) if started.elapsed() >= window => {
                        tracing::error!(
                            task = %written.task_id,
                            "could not learn whether tasks/update resumed the task: {e}"
                        );
                        return;
                    }
                    Err(_) => {}
                }
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(END_RETRY_MAX_DELAY);
            }
        });
    }

    /// Stores the end of a round, retrying with backoff while the store
    /// fails: the real end for the end-retry window, then a `failed` end
    /// until it is stored or the task has expired.
    async fn record_end(
        &self,
        task_id: &str,
        expires_at_ms: Option<u64>,
        mut end: RoundEnd,
        events: Option<&ServerEvents>,
    ) {
        let window = self.read_settings().end_retry_window;
        let started = Instant::now();
        let mut delay = END_RETRY_MIN_DELAY;
        let mut failures = 0u32;
        let mut gave_up = false;
        loop {
            let error = match self.end_round(task_id, &end).await {
                Ok(record) => {
                    if failures > 0 {
                        tracing::warn!(
                            task = %task_id,
                            "stored the end of a task round after {failures} failed attempts"
                        );
                    }
                    announce(events, record.as_ref());
                    return;
                }
                Err(e) => e,
            };
            failures += 1;
            if expires_at_ms.is_some_and(|at| now_ms() >= at) {
                tracing::warn!(
                    task = %task_id,
                    "the end of a task round was never stored and the task has expired: {error}"
                );
                return;
            }
            if !gave_up && started.elapsed() >= window {
                gave_up = true;
                tracing::error!(
                    task = %task_id,
                    "could not store the end of a task round within {} ms ({error}); \
                     the task is recorded failed once the store answers",
                    window.as_millis()
                );
                end = RoundEnd::Error(errors::internal_error(format!(
                    "The task's result could not be stored: {error}"
                )));
            } else if failures == 1 {
                tracing::warn!(
                    task = %task_id,
                    "could not store the end of a task round ({error}); retrying"
                );
            }
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(END_RETRY_MAX_DELAY);
        }
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
        let (every, lease) = {
            let settings = self.read_settings();
            let lease = settings.lease;
            // Renewed at least three times a lease, whatever the polling.
            (
                Duration::from_millis(settings.poll_interval_ms).min(lease / 3),
                lease,
            )
        };
        let mut renewed = Instant::now();
        loop {
            if let Ok(joined) = tokio::time::timeout(every, &mut handle).await {
                return joined;
            }
            let seen = if renewed.elapsed() >= lease / 3 {
                renewed = Instant::now();
                let until = now_ms().saturating_add(millis(lease));
                let mut renew = |r: &mut TaskRecord| {
                    if r.status != TaskStatus::Working {
                        return false;
                    }
                    r.lease_until_ms = Some(until);
                    r.lease_lapsed_at_ms = None;
                    true
                };
                store.update(task_id, &mut renew).await
            } else {
                store.get(task_id).await
            };
            let gone = match seen {
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
        end: &RoundEnd,
    ) -> Result<Option<TaskRecord>, StoreError> {
        let store = self.store();
        let now = now_ms();
        let mut change: Box<dyn FnMut(&mut TaskRecord) -> bool + Send + '_> = match end {
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
            RoundEnd::Result(result) => Box::new(move |r: &mut TaskRecord| {
                if r.status.is_terminal() {
                    return false;
                }
                r.status = TaskStatus::Completed;
                r.status_message = None;
                r.result = Some(result.clone());
                r.last_updated_at_ms = now;
                true
            }),
            RoundEnd::Error(error) => Box::new(move |r: &mut TaskRecord| {
                if r.status.is_terminal() {
                    return false;
                }
                fail(r, error, now);
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

/// Whether `record` waits on a round whose lease ended before `now`.
fn lease_lapsed(record: &TaskRecord, now: u64) -> bool {
    record.status == TaskStatus::Working && record.lease_until_ms.is_some_and(|until| now > until)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
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
