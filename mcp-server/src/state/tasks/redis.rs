//! A [`TaskStore`] in Redis (feature `redis`), so that several server
//! processes behind a load balancer share their tasks: any of them can
//! read, update or cancel a task another one created.
//!
//! Each task is one string key (`{prefix}{taskId}`) holding the record as
//! JSON, created with `SET … NX PXAT created+ttl` (Redis drops it when its
//! TTL ends). A change is an optimistic compare-and-set: read the JSON,
//! apply the change, and write it back with a Lua script only if the key
//! still holds exactly what was read (else read again and retry), keeping
//! the expiry. This works on one multiplexed connection, which `WATCH`
//! would not. Needs Redis 6.2 or newer (`PXAT`, `KEEPTTL`).
//!
//! Every operation is bounded: it answers, or fails with a [`StoreError`],
//! within [`DEFAULT_TIMEOUT`] (or [`RedisTaskStore::with_timeout`]), whatever
//! Redis does (down, hung, refusing writes), and never waits out the
//! client library's reconnect backoff: the connection manager retries a
//! lost connection a few times, at most [`RECONNECT_MAX_DELAY`] apart, in
//! the background, and each operation waits for it only within its bound.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::OnceCell;

use super::store::{Change, StoreError, StoreFuture, TaskRecord, TaskStore};

/// The default key prefix.
pub const DEFAULT_PREFIX: &str = "mcp:task:";

/// Writes `ARGV[2]` if the key still holds `ARGV[1]`; 1 if written.
const COMPARE_AND_SET: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then \
     redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 end return 0";

/// How often a change is retried under contention before it fails.
const MAX_ATTEMPTS: usize = 64;

/// The default bound of one store operation (`create`, `get`, `update`,
/// connecting included): 2 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// One connection attempt, and one command's answer, time out after this.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// The longest pause between two reconnect attempts.
pub const RECONNECT_MAX_DELAY: Duration = Duration::from_millis(500);

/// Reconnect attempts per lost connection; the next operation after they
/// all failed starts a new round of them.
const RECONNECT_ATTEMPTS: usize = 3;

/// Tasks in Redis. The connection is opened on first use, inside the
/// serving runtime, and reconnects by itself after a failure.
pub struct RedisTaskStore {
    client: redis::Client,
    connection: OnceCell<ConnectionManager>,
    prefix: String,
    timeout: Duration,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn failed(e: impl std::fmt::Display) -> StoreError {
    StoreError(format!("redis: {e}"))
}

impl RedisTaskStore {
    /// A store at `url` (`redis://HOST:PORT[/DB]`); only parses the URL.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        Ok(Self {
            client: redis::Client::open(url).map_err(failed)?,
            connection: OnceCell::new(),
            prefix: DEFAULT_PREFIX.to_owned(),
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// The same store with each operation bounded by `timeout` (default
    /// [`DEFAULT_TIMEOUT`]; at least 10 ms): past it the operation fails,
    /// and the request that made it answers `-32603`.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout.max(Duration::from_millis(10));
        self
    }

    /// The same store with keys named `{prefix}{taskId}`.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The shared connection, created without connecting (the first
    /// command connects), so creating it never waits.
    async fn connection(&self) -> Result<ConnectionManager, StoreError> {
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(CONNECT_TIMEOUT))
            .set_number_of_retries(RECONNECT_ATTEMPTS)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(RECONNECT_MAX_DELAY);
        self.connection
            .get_or_try_init(|| async { self.client.get_connection_manager_lazy(config) })
            .await
            .cloned()
            .map_err(failed)
    }

    /// Runs `operation` within the store's bound.
    async fn bounded<T>(
        &self,
        operation: impl std::future::Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        tokio::time::timeout(self.timeout, operation)
            .await
            .unwrap_or_else(|_| {
                Err(StoreError(format!(
                    "redis: no answer within {} ms",
                    self.timeout.as_millis()
                )))
            })
    }

    fn key(&self, task_id: &str) -> String {
        format!("{}{task_id}", self.prefix)
    }

    async fn read(
        &self,
        connection: &mut ConnectionManager,
        key: &str,
    ) -> Result<Option<(String, TaskRecord)>, StoreError> {
        let raw: Option<String> = redis::cmd("GET")
            .arg(key)
            .query_async(connection)
            .await
            .map_err(failed)?;
        let Some(raw) = raw else {
            return Ok(None);
        };
        let record = serde_json::from_str(&raw).map_err(failed)?;
        Ok(Some((raw, record)))
    }
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        Box::pin(self.bounded(async move {
            let json = serde_json::to_string(&record).map_err(failed)?;
            let mut connection = self.connection().await?;
            let mut set = redis::cmd("SET");
            set.arg(self.key(&record.task_id)).arg(json).arg("NX");
            if let Some(expires) = record.expires_at_ms() {
                set.arg("PXAT").arg(expires);
            }
            let written: Option<String> = set.query_async(&mut connection).await.map_err(failed)?;
            written
                .map(|_| ())
                .ok_or_else(|| StoreError("redis: the task id is already taken".into()))
        }))
    }

    fn get<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(self.bounded(async move {
            let mut connection = self.connection().await?;
            let found = self.read(&mut connection, &self.key(task_id)).await?;
            Ok(found.map(|(_, record)| record))
        }))
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        change: Change<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(self.bounded(async move {
            let key = self.key(task_id);
            let mut connection = self.connection().await?;
            for _ in 0..MAX_ATTEMPTS {
                let Some((raw, record)) = self.read(&mut connection, &key).await? else {
                    return Ok(None);
                };
                let mut edited = record.clone();
                if !change(&mut edited) {
                    return Ok(Some(record));
                }
                let json = serde_json::to_string(&edited).map_err(failed)?;
                let written: i64 = redis::cmd("EVAL")
                    .arg(COMPARE_AND_SET)
                    .arg(1)
                    .arg(&key)
                    .arg(raw)
                    .arg(json)
                    .query_async(&mut connection)
                    .await
                    .map_err(failed)?;
                if written == 1 {
                    return Ok(Some(edited));
                }
            }
            Err(StoreError(format!(
                "redis: task {task_id} changed under {MAX_ATTEMPTS} attempts in a row"
            )))
        }))
    }

    fn is_shared(&self) -> bool {
        true
    }
}
