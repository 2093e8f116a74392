//! Sessions, their messages and their stream events in Redis (feature
//! `redis`): [`RedisSessionStore`] and [`RedisEventStore`], for several
//! server processes behind a load balancer.
//!
//! Layout (prefix `mcp:session:` by default):
//!
//! * a session is a hash `{prefix}{id}`: `rec` (the fixed part as JSON),
//!   `ttl` (its idle timeout, ms), `seen` (last use, ms), `lvl` (the
//!   `logging/setLevel` level) and one `s:{uri}` field per subscription.
//!   The key expires `ttl` after its last use: every use (`load`, `touch`,
//!   `change`) refreshes it in the same script, so idle expiry is the same
//!   on every instance. A change and a removal publish `Changed` / `Ended`
//!   in the script that makes them, so no instance misses a change that
//!   was stored (pub/sub delivery aside, see the module above).
//! * messages go on pub/sub: `{prefix}bus` for every instance,
//!   `{prefix}bus:{instance}` for one; each instance holds one subscriber
//!   connection, pinged every few seconds, reconnected when cut.
//! * a stream's events are a Redis stream `{prefix}sse:{session}:{stream}`
//!   with entry ids `0-{seq}`, trimmed with `MAXLEN ~ window`, expiring
//!   `ttl` after its last append. A follower reads it with `XREAD BLOCK` on
//!   a connection of its own (a blocking read would hold up every command
//!   multiplexed behind it).
//!
//! **Every call is bounded**: it answers or fails within the timeout
//! (default [`DEFAULT_TIMEOUT`], 1 s), whatever the client library's
//! reconnect backoff does. After a timeout or a connection failure the
//! store fails fast, without trying, for as long again, so that a hung
//! Redis costs one timeout per second, not one per request; then it tries
//! again, and recovers by itself when Redis is back. Needs Redis 6.2 or
//! newer.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mcp_era_types::v2026_07_28::LoggingLevel;
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::{AsyncConnectionConfig, RedisError};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use tokio::sync::{OnceCell, mpsc};

use super::replay::{EventFollow, EventStore, StoredEvent, StreamKey};
use super::store::{
    BusEvent, SessionChange, SessionMessage, SessionRecord, SessionState, SessionStore, StoreError,
    StoreFuture,
};
use crate::state::tasks::store::now_ms;

/// The default key and channel prefix.
pub const DEFAULT_PREFIX: &str = "mcp:session:";

/// The default bound of every Redis call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

/// How long a follower's `XREAD` blocks before it checks that the stream
/// and its reader are still there.
const FOLLOW_BLOCK: Duration = Duration::from_secs(5);

/// How often the subscriber connection is pinged (a hung Redis sends
/// nothing, so silence alone says nothing).
const PING_EVERY: Duration = Duration::from_secs(5);

/// Creates the hash unless it exists; 1 if created.
const CREATE: &str = "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end \
     redis.call('HSET', KEYS[1], 'rec', ARGV[2], 'ttl', ARGV[1], 'seen', ARGV[3]) \
     redis.call('PEXPIRE', KEYS[1], ARGV[1]) return 1";

/// Uses the session now and returns the whole hash; nil when gone.
const TOUCH: &str = "local ttl = redis.call('HGET', KEYS[1], 'ttl') \
     if not ttl then return false end \
     redis.call('HSET', KEYS[1], 'seen', ARGV[1]) \
     redis.call('PEXPIRE', KEYS[1], ttl) \
     return redis.call('HGETALL', KEYS[1])";

/// Sets (`set`) or deletes (`del`) one field, uses the session now and
/// announces it on the bus; 0 when gone.
const CHANGE: &str = "local ttl = redis.call('HGET', KEYS[1], 'ttl') \
     if not ttl then return 0 end \
     if ARGV[2] == 'set' then redis.call('HSET', KEYS[1], ARGV[3], ARGV[4]) \
     else redis.call('HDEL', KEYS[1], ARGV[3]) end \
     redis.call('HSET', KEYS[1], 'seen', ARGV[1]) \
     redis.call('PEXPIRE', KEYS[1], ttl) \
     redis.call('PUBLISH', KEYS[2], ARGV[5]) return 1";

/// Deletes the session and announces it; 0 when it was gone.
const REMOVE: &str = "if redis.call('DEL', KEYS[1]) == 0 then return 0 end \
     redis.call('PUBLISH', KEYS[2], ARGV[1]) return 1";

/// Appends the events (seq, data, last triples) past the stream's top,
/// trims it and sets its expiry.
const APPEND: &str = "local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1) \
     local last = 0 \
     if #top > 0 then last = tonumber(string.match(top[1][1], '^0%-(%d+)$')) or 0 end \
     for i = 3, #ARGV, 3 do \
       local seq = tonumber(ARGV[i]) \
       if seq > last then \
         redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '0-' .. ARGV[i], 'd', ARGV[i + 1], 'l', ARGV[i + 2]) \
         last = seq \
       end \
     end \
     redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1";

fn failed(e: impl std::fmt::Display) -> StoreError {
    StoreError(format!("redis: {e}"))
}

/// Whether `e` says Redis cannot be reached (as opposed to a refused
/// command).
fn unreachable(e: &RedisError) -> bool {
    e.is_timeout() || e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal()
}

/// The connection both stores use, every call bounded, with the fail-fast
/// pause after a failure.
struct Link {
    client: redis::Client,
    connection: OnceCell<ConnectionManager>,
    timeout: Duration,
    /// Until when calls fail without trying, and why.
    paused: Mutex<Option<(Instant, String)>>,
}

impl Link {
    fn open(url: &str) -> Result<Self, StoreError> {
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
    async fn run<T, F, Fut>(&self, call: F) -> Result<T, StoreError>
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
    async fn run_idempotent<T, F, Fut>(&self, call: F) -> Result<T, StoreError>
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
    async fn dedicated(&self) -> Result<MultiplexedConnection, StoreError> {
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

/// The fixed part of a session, the hash's `rec` field.
#[derive(Serialize, Deserialize)]
struct Fixed {
    protocol_version: String,
    client_capabilities: Json,
    client_info: Json,
    principal: Option<String>,
    created_at_ms: u64,
    idle_timeout_ms: u64,
}

/// Legacy sessions in Redis, shared by every process using the same
/// Redis and prefix; also their messages (see the module docs). The
/// connection is opened on first use, inside the serving runtime, and
/// reconnects by itself.
pub struct RedisSessionStore {
    link: Arc<Link>,
    prefix: String,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("prefix", &self.prefix)
            .field("timeout", &self.link.timeout)
            .finish_non_exhaustive()
    }
}

impl RedisSessionStore {
    /// A store at `url` (`redis://HOST:PORT[/DB]`); only parses the URL.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        Ok(Self {
            link: Arc::new(Link::open(url)?),
            prefix: DEFAULT_PREFIX.to_owned(),
        })
    }

    /// The same store with keys and channels named `{prefix}…`.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The same store with every call bounded by `timeout` (at least
    /// 10 ms; default [`DEFAULT_TIMEOUT`]). Set it before
    /// [`event_store`](Self::event_store), which shares it.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        let timeout = timeout.max(Duration::from_millis(10));
        if let Some(link) = Arc::get_mut(&mut self.link) {
            link.timeout = timeout;
        } else {
            self.link = Arc::new(Link {
                client: self.link.client.clone(),
                connection: OnceCell::new(),
                timeout,
                paused: Mutex::new(None),
            });
        }
        self
    }

    /// The event store on the same Redis, connection and prefix, keeping
    /// `window` events per stream
    /// ([`DEFAULT_EVENT_WINDOW`](super::replay::DEFAULT_EVENT_WINDOW) is a good
    /// start).
    pub fn event_store(&self, window: usize) -> RedisEventStore {
        RedisEventStore {
            link: Arc::clone(&self.link),
            prefix: self.prefix.clone(),
            window: window.max(1),
        }
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    fn bus(&self) -> String {
        format!("{}bus", self.prefix)
    }

    fn direct(&self, instance: &str) -> String {
        format!("{}bus:{instance}", self.prefix)
    }

    async fn touch_hash(&self, id: &str) -> Result<Option<Vec<(String, String)>>, StoreError> {
        let key = self.key(id);
        self.link
            .run_idempotent(|mut c| {
                let key = key.clone();
                async move {
                    redis::cmd("EVAL")
                        .arg(TOUCH)
                        .arg(1)
                        .arg(key)
                        .arg(now_ms())
                        .query_async::<Option<Vec<(String, String)>>>(&mut c)
                        .await
                }
            })
            .await
    }
}

/// The [`SessionState`] in a hash's fields.
fn state_of(fields: &[(String, String)]) -> Result<SessionState, StoreError> {
    let mut state = SessionState::default();
    let mut subscriptions = BTreeSet::new();
    for (field, value) in fields {
        match field.as_str() {
            "seen" => state.last_seen_ms = value.parse().map_err(failed)?,
            "lvl" => {
                state.log_level = Some(
                    serde_json::from_value::<LoggingLevel>(Json::String(value.clone()))
                        .map_err(failed)?,
                );
            }
            other => {
                if let Some(uri) = other.strip_prefix("s:") {
                    subscriptions.insert(uri.to_owned());
                }
            }
        }
    }
    state.subscriptions = subscriptions.into_iter().collect();
    Ok(state)
}

fn record_of(id: &str, fields: &[(String, String)]) -> Result<Option<SessionRecord>, StoreError> {
    let Some((_, rec)) = fields.iter().find(|(f, _)| f == "rec") else {
        return Ok(None);
    };
    let fixed: Fixed = serde_json::from_str(rec).map_err(failed)?;
    Ok(Some(SessionRecord {
        id: id.to_owned(),
        protocol_version: fixed.protocol_version,
        client_capabilities: fixed.client_capabilities,
        client_info: fixed.client_info,
        principal: fixed.principal,
        created_at_ms: fixed.created_at_ms,
        idle_timeout_ms: fixed.idle_timeout_ms,
        state: state_of(fields)?,
    }))
}

fn message_json(message: &SessionMessage) -> Result<String, StoreError> {
    serde_json::to_string(message).map_err(failed)
}

impl SessionStore for RedisSessionStore {
    fn create(&self, record: SessionRecord) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let fixed = Fixed {
                protocol_version: record.protocol_version,
                client_capabilities: record.client_capabilities,
                client_info: record.client_info,
                principal: record.principal,
                created_at_ms: record.created_at_ms,
                idle_timeout_ms: record.idle_timeout_ms,
            };
            let rec = serde_json::to_string(&fixed).map_err(failed)?;
            let key = self.key(&record.id);
            let ttl = record.idle_timeout_ms.max(1);
            let seen = record.state.last_seen_ms;
            let created: i64 = self
                .link
                .run(|mut c| async move {
                    redis::cmd("EVAL")
                        .arg(CREATE)
                        .arg(1)
                        .arg(key)
                        .arg(ttl)
                        .arg(rec)
                        .arg(seen)
                        .query_async(&mut c)
                        .await
                })
                .await?;
            if created == 1 {
                Ok(())
            } else {
                Err(StoreError("redis: the session id is already taken".into()))
            }
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionRecord>> {
        Box::pin(async move {
            match self.touch_hash(id).await? {
                Some(fields) => record_of(id, &fields),
                None => Ok(None),
            }
        })
    }

    fn touch<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionState>> {
        Box::pin(async move {
            match self.touch_hash(id).await? {
                Some(fields) => state_of(&fields).map(Some),
                None => Ok(None),
            }
        })
    }

    fn peek<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionState>> {
        Box::pin(async move {
            let key = self.key(id);
            let fields: Vec<(String, String)> = self
                .link
                .run_idempotent(|mut c| {
                    let key = key.clone();
                    async move { redis::cmd("HGETALL").arg(key).query_async(&mut c).await }
                })
                .await?;
            if fields.iter().any(|(f, _)| f == "rec") {
                state_of(&fields).map(Some)
            } else {
                Ok(None)
            }
        })
    }

    fn change<'a>(&'a self, id: &'a str, change: &'a SessionChange) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let (op, field, value) = match change {
                SessionChange::LogLevel(level) => ("set", "lvl".to_owned(), level.to_string()),
                SessionChange::Subscribe(uri) => ("set", format!("s:{uri}"), "1".to_owned()),
                SessionChange::Unsubscribe(uri) => ("del", format!("s:{uri}"), String::new()),
            };
            let notice = message_json(&SessionMessage::Changed {
                session: id.to_owned(),
            })?;
            let (key, bus) = (self.key(id), self.bus());
            let changed: i64 = self
                .link
                .run(|mut c| async move {
                    redis::cmd("EVAL")
                        .arg(CHANGE)
                        .arg(2)
                        .arg(key)
                        .arg(bus)
                        .arg(now_ms())
                        .arg(op)
                        .arg(field)
                        .arg(value)
                        .arg(notice)
                        .query_async(&mut c)
                        .await
                })
                .await?;
            Ok(changed == 1)
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let notice = message_json(&SessionMessage::Ended {
                session: id.to_owned(),
            })?;
            let (key, bus) = (self.key(id), self.bus());
            let removed: i64 = self
                .link
                .run(|mut c| async move {
                    redis::cmd("EVAL")
                        .arg(REMOVE)
                        .arg(2)
                        .arg(key)
                        .arg(bus)
                        .arg(notice)
                        .query_async(&mut c)
                        .await
                })
                .await?;
            Ok(removed == 1)
        })
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn publish<'a>(&'a self, message: &'a SessionMessage) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let channel = match message {
                SessionMessage::Response { instance, .. } => self.direct(instance),
                _ => self.bus(),
            };
            let payload = message_json(message)?;
            self.link
                .run(|mut c| async move {
                    redis::cmd("PUBLISH")
                        .arg(channel)
                        .arg(payload)
                        .query_async::<i64>(&mut c)
                        .await
                })
                .await
                .map(|_| ())
        })
    }

    fn listen(&self, instance: &str) -> Option<mpsc::UnboundedReceiver<BusEvent>> {
        let (tx, rx) = mpsc::unbounded_channel();
        let channels = [self.bus(), self.direct(instance)];
        tokio::spawn(subscribe_loop(Arc::clone(&self.link), channels, tx));
        Some(rx)
    }
}

/// Holds the subscriber connection until `tx`'s receiver is gone:
/// subscribe, say [`BusEvent::Reconnected`], forward each message, and on a
/// cut or a failed ping start again after a pause (100 ms doubling to 2 s).
async fn subscribe_loop(
    link: Arc<Link>,
    channels: [String; 2],
    tx: mpsc::UnboundedSender<BusEvent>,
) {
    use futures_core::Stream;

    let mut pause = Duration::from_millis(100);
    let mut failing = false;
    while !tx.is_closed() {
        let subscribed = tokio::time::timeout(link.timeout, async {
            let mut pubsub = link.client.get_async_pubsub().await?;
            pubsub.subscribe(&channels).await?;
            Ok::<_, RedisError>(pubsub)
        })
        .await;
        match subscribed {
            Ok(Ok(pubsub)) => {
                if failing {
                    tracing::warn!("redis session bus: subscribed again");
                }
                pause = Duration::from_millis(100);
                if tx.send(BusEvent::Reconnected).is_err() {
                    return;
                }
                let (mut sink, stream) = pubsub.split();
                let mut stream = std::pin::pin!(stream);
                let mut ping = tokio::time::interval(PING_EVERY);
                ping.tick().await;
                loop {
                    let next = std::future::poll_fn(|cx| stream.as_mut().poll_next(cx));
                    tokio::select! {
                        message = next => {
                            let Some(message) = message else { break };
                            let parsed = message
                                .get_payload::<String>()
                                .ok()
                                .and_then(|p| serde_json::from_str::<SessionMessage>(&p).ok());
                            match parsed {
                                Some(message) => {
                                    if tx.send(BusEvent::Message(message)).is_err() {
                                        return;
                                    }
                                }
                                None => tracing::debug!("redis session bus: an unreadable message; ignored"),
                            }
                        }
                        _ = ping.tick() => {
                            let answered = tokio::time::timeout(
                                link.timeout,
                                sink.ping::<redis::Value>(),
                            ).await;
                            if !matches!(answered, Ok(Ok(_))) {
                                break;
                            }
                        }
                        () = tx.closed() => return,
                    }
                }
                tracing::warn!("redis session bus: subscription lost; reconnecting");
                failing = true;
            }
            Ok(Err(e)) => {
                if !failing {
                    tracing::warn!(error = %e, "redis session bus: cannot subscribe; retrying");
                }
                failing = true;
            }
            Err(_) => {
                if !failing {
                    tracing::warn!(
                        "redis session bus: no subscription within the timeout; retrying"
                    );
                }
                failing = true;
            }
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(2));
    }
}

/// Stream events in Redis (see the module docs): made with
/// [`RedisSessionStore::event_store`], or on their own with
/// [`RedisEventStore::open`].
pub struct RedisEventStore {
    link: Arc<Link>,
    prefix: String,
    window: usize,
}

impl std::fmt::Debug for RedisEventStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEventStore")
            .field("prefix", &self.prefix)
            .field("window", &self.window)
            .field("timeout", &self.link.timeout)
            .finish_non_exhaustive()
    }
}

impl RedisEventStore {
    /// An event store at `url` with the default prefix, window and
    /// timeout; only parses the URL.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        Ok(RedisSessionStore::open(url)?.event_store(super::replay::DEFAULT_EVENT_WINDOW))
    }

    fn key(&self, key: &StreamKey) -> String {
        format!("{}sse:{}:{}", self.prefix, key.session, key.stream)
    }
}

/// The stored events of an `XRANGE` / `XREAD` entry list.
fn entries_of(value: &redis::Value) -> Vec<StoredEvent> {
    let redis::Value::Array(entries) = value else {
        return Vec::new();
    };
    entries.iter().filter_map(entry_of).collect()
}

fn text(value: &redis::Value) -> Option<String> {
    match value {
        redis::Value::BulkString(bytes) => String::from_utf8(bytes.clone()).ok(),
        redis::Value::SimpleString(s) => Some(s.clone()),
        _ => None,
    }
}

fn entry_of(entry: &redis::Value) -> Option<StoredEvent> {
    let redis::Value::Array(parts) = entry else {
        return None;
    };
    let id = text(parts.first()?)?;
    let seq = id.strip_prefix("0-")?.parse().ok()?;
    let redis::Value::Array(fields) = parts.get(1)? else {
        return None;
    };
    let mut event = StoredEvent {
        seq,
        data: String::new(),
        last: false,
    };
    for pair in fields.chunks(2) {
        match (
            pair.first().and_then(text).as_deref(),
            pair.get(1).and_then(text),
        ) {
            (Some("d"), Some(data)) => event.data = data,
            (Some("l"), Some(last)) => event.last = last == "1",
            _ => {}
        }
    }
    Some(event)
}

/// The entries of the one stream an `XREAD` reply holds (RESP2 or RESP3).
fn xread_entries(value: &redis::Value) -> Vec<StoredEvent> {
    match value {
        redis::Value::Array(streams) => streams
            .iter()
            .filter_map(|s| match s {
                redis::Value::Array(pair) => pair.get(1).map(entries_of),
                _ => None,
            })
            .flatten()
            .collect(),
        redis::Value::Map(streams) => streams.iter().flat_map(|(_, e)| entries_of(e)).collect(),
        _ => Vec::new(),
    }
}

impl EventStore for RedisEventStore {
    fn append<'a>(
        &'a self,
        key: &'a StreamKey,
        events: Vec<StoredEvent>,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if events.is_empty() {
                return Ok(());
            }
            let key = self.key(key);
            let window = self.window;
            let ttl = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            self.link
                .run(|mut c| async move {
                    let mut cmd = redis::cmd("EVAL");
                    cmd.arg(APPEND).arg(1).arg(key).arg(window).arg(ttl);
                    for event in events {
                        cmd.arg(event.seq)
                            .arg(event.data)
                            .arg(if event.last { "1" } else { "0" });
                    }
                    cmd.query_async::<i64>(&mut c).await
                })
                .await
                .map(|_| ())
        })
    }

    fn read_after<'a>(
        &'a self,
        key: &'a StreamKey,
        after: u64,
    ) -> StoreFuture<'a, Option<Vec<StoredEvent>>> {
        Box::pin(async move {
            let key = self.key(key);
            let key = &key;
            let (exists, entries): (i64, redis::Value) = self
                .link
                .run_idempotent(|mut c| async move {
                    redis::pipe()
                        .cmd("EXISTS")
                        .arg(key)
                        .cmd("XRANGE")
                        .arg(key)
                        .arg(format!("0-{}", after.saturating_add(1)))
                        .arg("+")
                        .query_async(&mut c)
                        .await
                })
                .await?;
            Ok((exists == 1).then(|| entries_of(&entries)))
        })
    }

    fn follow(&self, key: StreamKey, after: u64) -> StoreFuture<'_, Option<EventFollow>> {
        Box::pin(async move {
            let name = self.key(&key);
            let mut connection = self.link.dedicated().await?;
            let timeout = self.link.timeout;
            let exists = tokio::time::timeout(
                timeout,
                redis::cmd("EXISTS")
                    .arg(&name)
                    .query_async::<i64>(&mut connection),
            )
            .await
            .map_err(|_| StoreError("redis: no answer within the timeout".into()))?
            .map_err(failed)?;
            if exists == 0 {
                return Ok(None);
            }
            let (tx, rx) = mpsc::channel(64);
            tokio::spawn(follow_loop(connection, name, after, timeout, tx));
            Ok(Some(rx))
        })
    }

    fn forget_session<'a>(&'a self, _session: &'a str) -> StoreFuture<'a, ()> {
        // Each stream expires `ttl` after its last append, and a stream of
        // an ended session cannot be resumed: nothing to do now.
        Box::pin(std::future::ready(Ok(())))
    }
}

/// Reads `name` from `after` with `XREAD BLOCK` until the last event, the
/// stream's expiry, the reader's leaving or an error (sent last).
async fn follow_loop(
    mut connection: MultiplexedConnection,
    name: String,
    mut after: u64,
    timeout: Duration,
    tx: mpsc::Sender<Result<StoredEvent, StoreError>>,
) {
    let block_ms = u64::try_from(FOLLOW_BLOCK.as_millis()).unwrap_or(5_000);
    loop {
        let mut xread = redis::cmd("XREAD");
        xread
            .arg("COUNT")
            .arg(64)
            .arg("BLOCK")
            .arg(block_ms)
            .arg("STREAMS")
            .arg(&name)
            .arg(format!("0-{after}"));
        let read = xread.query_async::<redis::Value>(&mut connection);
        let reply = tokio::select! {
            reply = tokio::time::timeout(FOLLOW_BLOCK + timeout, read) => reply,
            () = tx.closed() => return,
        };
        let reply = match reply {
            Ok(Ok(reply)) => reply,
            Ok(Err(e)) => {
                let _ = tx.send(Err(failed(e))).await;
                return;
            }
            Err(_) => {
                let _ = tx
                    .send(Err(StoreError(
                        "redis: a blocked read did not come back".into(),
                    )))
                    .await;
                return;
            }
        };
        let events = xread_entries(&reply);
        if events.is_empty() {
            let exists = tokio::time::timeout(
                timeout,
                redis::cmd("EXISTS")
                    .arg(&name)
                    .query_async::<i64>(&mut connection),
            )
            .await;
            match exists {
                Ok(Ok(1)) => continue,
                Ok(Ok(_)) => return,
                Ok(Err(e)) => {
                    let _ = tx.send(Err(failed(e))).await;
                    return;
                }
                Err(_) => {
                    let _ = tx
                        .send(Err(StoreError(
                            "redis: no answer within the timeout".into(),
                        )))
                        .await;
                    return;
                }
            }
        }
        for event in events {
            after = event.seq;
            let last = event.last;
            if tx.send(Ok(event)).await.is_err() || last {
                return;
            }
        }
    }
}
