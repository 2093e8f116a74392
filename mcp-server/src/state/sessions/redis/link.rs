//! The Redis connection both stores share: every call bounded by a
//! timeout, and a fail-fast pause after a failure (see the module above).

use std::future::Future;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::{AsyncConnectionConfig, RedisError};
use tokio::sync::OnceCell;

use super::super::store::StoreError;

/// The default key and channel prefix.
pub const DEFAULT_PREFIX: &str = "mcp:session:";

/// The default bound of every Redis call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

pub(super) fn failed(e: impl std::fmt::Display) -> StoreError {
    StoreError(format!("redis: {e}"))
}

/// Whether `e` says Redis cannot be reached (as opposed to a refused
/// command).
pub(super) fn unreachable(e: &RedisError) -> bool {
    e.is_timeout() || e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal()
}

/// The connection both stores use, every call bounded, with the fail-fast
/// pause after a failure.
pub(super) struct Link {
    pub(super) client: redis::Client,
    pub(super) connection: OnceCell<ConnectionManager>,
    pub(super) timeout: Duration,
    /// Until when calls fail without trying, and why.
    pub(super) paused: Mutex<Option<(Instant, String)>>,
}

impl Link {
    pub(super) fn open(url: &str) -> Result<Self, StoreError> {
        Ok(Self {
            client: redis::Client::open(url).map_err(failed)?,
            connection: OnceCell::new(),
            timeout: DEFAULT_TIMEOUT,
            paused: Mutex::new(None),
        })
    }

    fn paused(&self) -> std::sync::MutexGuard<'_, Option<(Instant, String)>> {
        self.paused.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn pause(&self, why: &str) {
        *self.paused() = Some((Instant::now() + self.timeout, why.to_owned()));
    }

    /// The shared connection, opened on first use.
    async fn connection(&self) -> Result<ConnectionManager, RedisError> {
        let connection = self
            .connection
            .get_or_try_init(|| {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(self.timeout))
                    .set_response_timeout(Some(self.timeout))
                    .set_number_of_retries(1);
                self.client.get_connection_manager_with_config(config)
            })
            .await?;
        Ok(connection.clone())
    }

    /// Runs `call` on the shared connection within the timeout.
    pub(super) async fn run<T, F, Fut>(&self, call: F) -> Result<T, StoreError>
    where
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: Future<Output = Result<T, RedisError>>,
    {
        self.bounded(async { call(self.connection().await?).await })
            .await
    }

    /// Runs an idempotent `call`, once more at once if it met a cut
    /// connection: after a Redis restart the first call of each process
    /// meets the dead connection, and the second waits for the new one.
    pub(super) async fn run_idempotent<T, F, Fut>(&self, call: F) -> Result<T, StoreError>
    where
        F: Fn(ConnectionManager) -> Fut,
        Fut: Future<Output = Result<T, RedisError>>,
    {
        self.bounded(async {
            match call(self.connection().await?).await {
                Err(e) if unreachable(&e) && !e.is_timeout() => {
                    call(self.connection().await?).await
                }
                answer => answer,
            }
        })
        .await
    }

    /// `work` within the timeout, failing fast during the pause after a
    /// failure.
    async fn bounded<T>(
        &self,
        work: impl Future<Output = Result<T, RedisError>>,
    ) -> Result<T, StoreError> {
        if let Some((until, why)) = self.paused().clone()
            && Instant::now() < until
        {
            return Err(StoreError(format!("redis: unavailable ({why})")));
        }
        match tokio::time::timeout(self.timeout, work).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(e)) => {
                if unreachable(&e) {
                    self.pause(&e.to_string());
                }
                Err(failed(e))
            }
            Err(_) => {
                let why = format!("no answer within {} ms", self.timeout.as_millis());
                self.pause(&why);
                Err(StoreError(format!("redis: {why}")))
            }
        }
    }

    /// A connection of its own (for blocking reads), opened within the
    /// timeout; its replies are bounded by the caller.
    pub(super) async fn dedicated(&self) -> Result<MultiplexedConnection, StoreError> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(None);
        match tokio::time::timeout(
            self.timeout,
            self.client
                .get_multiplexed_async_connection_with_config(&config),
        )
        .await
        {
            Ok(connection) => connection.map_err(failed),
            Err(_) => Err(StoreError(format!(
                "redis: no connection within {} ms",
                self.timeout.as_millis()
            ))),
        }
    }
}

/// A reply bounded by `tokio::time::timeout`, its failure or its lateness
/// (`late`) as a store error.
pub(super) fn in_time<T>(
    reply: Result<Result<T, RedisError>, tokio::time::error::Elapsed>,
    late: &str,
) -> Result<T, StoreError> {
    match reply {
        Ok(answer) => answer.map_err(failed),
        Err(_) => Err(StoreError(format!("redis: {late}"))),
    }
}
