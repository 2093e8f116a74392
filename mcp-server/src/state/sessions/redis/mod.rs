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

mod events;
mod link;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_era_types::v2026_07_28::LoggingLevel;
use redis::RedisError;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use tokio::sync::{OnceCell, mpsc};

pub use self::events::RedisEventStore;
pub use self::link::{DEFAULT_PREFIX, DEFAULT_TIMEOUT};
use self::link::{Link, failed};
use super::store::{
    BusEvent, SessionChange, SessionMessage, SessionRecord, SessionState, SessionStore, StoreError,
    StoreFuture,
};
use crate::state::tasks::store::now_ms;

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
        RedisEventStore::new(Arc::clone(&self.link), self.prefix.clone(), window)
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
