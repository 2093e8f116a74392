//! Where tasks live: the [`TaskStore`] trait (one atomic read-modify-write
//! plus create and get, so a shared backend can implement it with
//! optimistic transactions) and the in-memory default, [`MemoryTaskStore`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A task's status ("Task Status"): the extension's generated type, whose
/// serde form (`input_required`, …) is also how records store it.
pub use mcp_era_types::ext::tasks::TaskStatus;

/// Everything stored about one task. Plain data (serde), so any backend
/// can keep it as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The server-generated, unguessable id.
    pub task_id: String,
    /// The current status.
    pub status: TaskStatus,
    /// A human-readable note on the status.
    pub status_message: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// Last change, milliseconds since the Unix epoch.
    pub last_updated_at_ms: u64,
    /// Time to live from creation; `None` is unlimited.
    pub ttl_ms: Option<u64>,
    /// The suggested polling interval.
    pub poll_interval_ms: Option<u64>,
    /// The `tools/call` params of the current round (with `_meta`), from
    /// which the next round is built after `tasks/update`.
    pub request: Value,
    /// The `requestState` of the last `input_required` round.
    pub request_state: Option<String>,
    /// The outstanding input requests, by wire key.
    pub input_requests: Map<String, Value>,
    /// Answers received so far for outstanding keys, by wire key.
    pub answers: Map<String, Value>,
    /// Wire key → the key the handler used (keys are unique over a task's
    /// life, so a key asked again in a later round gets a new wire key).
    pub key_map: BTreeMap<String, String>,
    /// Every wire key ever issued.
    pub used_keys: BTreeSet<String>,
    /// How many rounds the handler has run.
    pub round: u32,
    /// Who created the task (see [`crate::features::tasks`], "Authorization"):
    /// only requests of the same principal see it. `None` without `auth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The final result (`completed`).
    pub result: Option<Value>,
    /// The JSON-RPC error (`failed`).
    pub error: Option<Value>,
    /// On a shared store, while a round runs: until when the instance
    /// running it vouches for it (it renews this while the round runs; see
    /// `Tasks::set_lease`). `None`: no lease (one process, or no round).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_until_ms: Option<u64>,
    /// When a reader first found the lease lapsed; a renewal clears it,
    /// and a lease lapsed this long ends the task `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_lapsed_at_ms: Option<u64>,
}

impl TaskRecord {
    /// When the record may be discarded, if ever.
    pub fn expires_at_ms(&self) -> Option<u64> {
        self.ttl_ms
            .map(|ttl| self.created_at_ms.saturating_add(ttl))
    }
}

/// A store failure (a backend error, or a full store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

/// The future of a store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A change applied atomically by [`TaskStore::update`]: edits the record
/// and says whether to keep the edit. It may run more than once (a shared
/// backend retries on a conflicting write), each time on a fresh copy.
pub type Change<'a> = &'a mut (dyn FnMut(&mut TaskRecord) -> bool + Send);

/// Task storage. Records expire `ttl_ms` after creation; an expired or
/// unknown id reads as `None`.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new record; done (readable by `get`) when the future ends,
    /// which is what "durably created" asks before `CreateTaskResult`.
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()>;

    /// The record of `task_id`, if known and not expired.
    fn get<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Option<TaskRecord>>;

    /// Applies `change` atomically; returns the record as stored afterwards
    /// (changed or not), or `None` for an unknown or expired id.
    fn update<'a>(
        &'a self,
        task_id: &'a str,
        change: Change<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>>;

    /// Whether other processes share this store (then a running task also
    /// watches the store for a cancellation made elsewhere).
    fn is_shared(&self) -> bool {
        false
    }
}

/// The default store: a bounded map in this process. Expired records are
/// dropped when read and swept when the map fills; when it is full of live
/// tasks the oldest finished one makes room, and creation fails only when
/// every slot holds an unfinished task.
pub struct MemoryTaskStore {
    capacity: usize,
    tasks: Mutex<HashMap<String, TaskRecord>>,
}

impl fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTaskStore")
            .field("capacity", &self.capacity)
            .field("len", &self.len())
            .finish()
    }
}

/// The default capacity of [`MemoryTaskStore`].
pub const DEFAULT_MEMORY_CAPACITY: usize = 10_000;

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::new(DEFAULT_MEMORY_CAPACITY)
    }
}

impl MemoryTaskStore {
    /// A store holding at most `capacity` tasks (at least one).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            tasks: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many records are held (expired ones not yet swept included).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no record is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every expired record; returns how many.
    pub fn sweep(&self) -> usize {
        let now = now_ms();
        let mut tasks = self.lock();
        let before = tasks.len();
        tasks.retain(|_, r| !expired(r, now));
        before - tasks.len()
    }

    fn live<'m>(
        tasks: &'m mut HashMap<String, TaskRecord>,
        id: &str,
        now: u64,
    ) -> Option<&'m mut TaskRecord> {
        if tasks.get(id).is_some_and(|r| expired(r, now)) {
            tasks.remove(id);
            return None;
        }
        tasks.get_mut(id)
    }
}

fn expired(record: &TaskRecord, now: u64) -> bool {
    record.expires_at_ms().is_some_and(|at| now >= at)
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        let now = now_ms();
        let mut tasks = self.lock();
        if tasks.len() >= self.capacity {
            tasks.retain(|_, r| !expired(r, now));
        }
        if tasks.len() >= self.capacity {
            let oldest_finished = tasks
                .values()
                .filter(|r| r.status.is_terminal())
                .min_by_key(|r| r.last_updated_at_ms)
                .map(|r| r.task_id.clone());
            match oldest_finished {
                Some(id) => {
                    tasks.remove(&id);
                }
                None => {
                    return Box::pin(std::future::ready(Err(StoreError(format!(
                        "the task store is full ({} unfinished tasks)",
                        self.capacity
                    )))));
                }
            }
        }
        tasks.insert(record.task_id.clone(), record);
        Box::pin(std::future::ready(Ok(())))
    }

    fn get<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        let now = now_ms();
        let mut tasks = self.lock();
        let found = Self::live(&mut tasks, task_id, now).map(|r| r.clone());
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        change: Change<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        let now = now_ms();
        let mut tasks = self.lock();
        let found = Self::live(&mut tasks, task_id, now).map(|record| {
            let mut edited = record.clone();
            if change(&mut edited) {
                *record = edited;
            }
            record.clone()
        });
        Box::pin(std::future::ready(Ok(found)))
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
