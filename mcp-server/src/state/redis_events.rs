//! Server events shared by several processes through Redis pub/sub
//! (feature `redis`): [`RedisEventBus`] and `ServerEvents::with_redis`.
//!
//! Every event a process publishes (except `ShuttingDown`) is delivered to
//! its own subscribers at once, as without Redis, and queued for one
//! `PUBLISH` on the channel (default [`RedisEventBus::DEFAULT_CHANNEL`]) as
//! `{"v":1,"origin":ID,"seq":N,"event":{..}}`: `origin` is random per hub,
//! `seq` counts that hub's events in the order they were queued. Each
//! process is subscribed to the channel on the same connection (RESP3) and
//! hands on an event only when its origin is another hub's and its `seq`
//! is above the last one seen from that origin. So a listener gets each
//! event at most once (a batch re-sent after a lost answer is recognised),
//! in its origin's order, and never its own process's events twice.
//!
//! Bounds. `publish` only tries to put the event in a queue of
//! [`RedisEventBus::DEFAULT_QUEUE_CAPACITY`] events and never waits: when
//! the queue is full the event is dropped for the other processes (still
//! delivered locally), counted and logged at most every 10 s. Each Redis
//! step (connect and subscribe, a batch of up to 64 `PUBLISH`es, a `PING`
//! every 5 s when idle) is bounded by [`RedisEventBus::TIMEOUT`]; a failed
//! or hung connection is dropped and opened again with backoff (100 ms
//! doubling to [`RedisEventBus::RECONNECT_MAX_DELAY`]), subscribing again,
//! so delivery resumes by itself when Redis returns. Events published by
//! others while this process was not subscribed are not seen here (pub/sub
//! keeps nothing); an event of this process that could not be sent within
//! [`RedisEventBus::MAX_EVENT_AGE`] is dropped rather than sent late.
//!
//! The relay runs on a thread of its own (one current-thread runtime per
//! shared hub), so it works whatever runtime serves requests, and stops
//! when the last clone of its hub is dropped. Anyone who can publish on
//! the channel can inject events: give the servers a Redis of their own.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, IntoConnectionInfo, ProtocolVersion, PushInfo, PushKind};
use serde_json::{Value, json};
use tokio::sync::{Notify, broadcast, mpsc, oneshot};

use crate::state::events::{EventBusStats, Relay, ServerEvent, ServerEvents};

/// The version of the message format on the channel.
const FORMAT: u64 = 1;
/// The first pause before connecting again.
const RECONNECT_MIN_DELAY: Duration = Duration::from_millis(100);
/// How often an idle connection is checked with `PING`.
const PING_INTERVAL: Duration = Duration::from_secs(5);
/// At most this many events go in one pipeline of `PUBLISH`es.
const BATCH: usize = 64;
/// A repeated warning is logged at most this often.
const LOG_EVERY: Duration = Duration::from_secs(10);
/// At most this many origins are remembered (the least recently heard
/// one is forgotten first; an origin is one hub of one process).
const MAX_ORIGINS: usize = 4096;

/// A failure to set up a [`RedisEventBus`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventBusError(pub String);

impl fmt::Display for EventBusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EventBusError {}

/// Where and how a shared hub meets the others: a Redis URL, a channel and
/// the size of the queue toward Redis. Give it to
/// [`ServerEvents::with_redis`]. Needs Redis 6 or newer (RESP3).
pub struct RedisEventBus {
    client: redis::Client,
    channel: String,
    queue_capacity: usize,
}

impl fmt::Debug for RedisEventBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisEventBus")
            .field("channel", &self.channel)
            .field("queue_capacity", &self.queue_capacity)
            .finish_non_exhaustive()
    }
}

impl RedisEventBus {
    /// The default pub/sub channel.
    pub const DEFAULT_CHANNEL: &'static str = "mcp:events";
    /// The default number of events waiting for Redis before new ones are
    /// dropped (for the other processes only).
    pub const DEFAULT_QUEUE_CAPACITY: usize = 1024;
    /// The bound of each Redis step: connecting and subscribing, one batch
    /// of `PUBLISH`es, one `PING`.
    pub const TIMEOUT: Duration = Duration::from_secs(2);
    /// The longest pause between two connection attempts, so delivery
    /// resumes within this (plus [`TIMEOUT`](Self::TIMEOUT)) of Redis
    /// answering again.
    pub const RECONNECT_MAX_DELAY: Duration = Duration::from_secs(2);
    /// An event of this process not sent within this is dropped.
    pub const MAX_EVENT_AGE: Duration = Duration::from_secs(30);

    /// A bus at `url` (`redis://HOST:PORT[/DB]`, `rediss://…` with TLS
    /// support in the `redis` crate); only parses the URL.
    pub fn open(url: &str) -> Result<Self, EventBusError> {
        let failed = |e: redis::RedisError| EventBusError(format!("redis: {e}"));
        let info = url.into_connection_info().map_err(failed)?;
        let settings = info
            .redis_settings()
            .clone()
            .set_protocol(ProtocolVersion::RESP3);
        let client = redis::Client::open(info.set_redis_settings(settings)).map_err(failed)?;
        Ok(Self {
            client,
            channel: Self::DEFAULT_CHANNEL.to_owned(),
            queue_capacity: Self::DEFAULT_QUEUE_CAPACITY,
        })
    }

    /// The same bus on `channel` (servers share events only with servers
    /// on the same channel).
    pub fn with_channel(mut self, channel: impl Into<String>) -> Self {
        self.channel = channel.into();
        self
    }

    /// The same bus with room for `capacity` events waiting for Redis (at
    /// least 1; default [`DEFAULT_QUEUE_CAPACITY`](Self::DEFAULT_QUEUE_CAPACITY)).
    pub fn with_queue_capacity(mut self, capacity: usize) -> Self {
        self.queue_capacity = capacity.max(1);
        self
    }
}

impl ServerEvents {
    /// A hub shared through Redis (feature `redis`) with every process
    /// whose hub uses the same Redis and channel: their listen streams and
    /// legacy sessions get this process's events and this process's get
    /// theirs, each at most once and in the order its process published
    /// them (see [`RedisEventBus`] for the bounds). Starts the relay's
    /// thread, which connects in the background: this never waits for
    /// Redis, and a Redis that is down only delays the other processes'
    /// share. Fails only when no id or thread can be had.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp_era_server::{RedisEventBus, ServerEvents};
    /// let mut config = mcp_era_server::http::HttpConfig::default();
    /// config.events = ServerEvents::with_redis(RedisEventBus::open("redis://127.0.0.1:6379")?)?;
    /// # Ok(()) }
    /// ```
    pub fn with_redis(bus: RedisEventBus) -> Result<Self, EventBusError> {
        ServerEvents::with_relay(|hub| {
            let origin = crate::wire::random_id::random_id()
                .map_err(|e| EventBusError(format!("no randomness for an origin id: {e}")))?;
            let counters = Arc::new(Counters::default());
            let (queue_tx, queue_rx) = mpsc::channel(bus.queue_capacity);
            let (alive_tx, alive_rx) = oneshot::channel();
            let inbox = Arc::new(Inbox {
                hub,
                origin: origin.clone(),
                last_seen: Mutex::new(HashMap::new()),
                counters: Arc::clone(&counters),
            });
            let runner = Runner {
                client: bus.client,
                channel: bus.channel,
                origin,
                queue_capacity: bus.queue_capacity,
                inbox,
                counters: Arc::clone(&counters),
            };
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| EventBusError(format!("no runtime for the event bus: {e}")))?;
            std::thread::Builder::new()
                .name("mcp-event-bus".into())
                .spawn(move || runtime.block_on(runner.run(queue_rx, alive_rx)))
                .map_err(|e| EventBusError(format!("no thread for the event bus: {e}")))?;
            let relay: Arc<dyn Relay> = Arc::new(RedisRelay {
                queue: queue_tx,
                counters,
                _alive: alive_tx,
            });
            Ok(relay)
        })
    }
}

#[derive(Debug, Default)]
struct Counters {
    sent: AtomicU64,
    dropped: AtomicU64,
    expired: AtomicU64,
    received: AtomicU64,
    connected: AtomicBool,
}

/// An event waiting for Redis, with when it was published.
struct Queued {
    at: Instant,
    event: ServerEvent,
}

/// The side every clone of the hub holds: the queue toward the relay's
/// thread. Dropping the last one ends the thread.
struct RedisRelay {
    queue: mpsc::Sender<Queued>,
    counters: Arc<Counters>,
    _alive: oneshot::Sender<()>,
}

impl fmt::Debug for RedisRelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisRelay")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Relay for RedisRelay {
    fn offer(&self, event: &ServerEvent) {
        let queued = Queued {
            at: Instant::now(),
            event: event.clone(),
        };
        if let Err(mpsc::error::TrySendError::Full(_)) = self.queue.try_send(queued) {
            self.counters.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn stats(&self) -> EventBusStats {
        let c = &self.counters;
        EventBusStats {
            sent: c.sent.load(Ordering::Relaxed),
            dropped: c.dropped.load(Ordering::Relaxed),
            expired: c.expired.load(Ordering::Relaxed),
            received: c.received.load(Ordering::Relaxed),
            connected: c.connected.load(Ordering::Relaxed),
        }
    }
}

/// The receiving side: messages from the channel to the local hub.
struct Inbox {
    hub: broadcast::WeakSender<ServerEvent>,
    origin: String,
    /// Per origin: the last `seq` handed on and when.
    last_seen: Mutex<HashMap<String, (u64, Instant)>>,
    counters: Arc<Counters>,
}

impl Inbox {
    /// Called by the connection for every push; `lost` is woken when the
    /// connection ends.
    fn on_push(&self, info: PushInfo, lost: &Notify) {
        match info.kind {
            PushKind::Disconnection => lost.notify_one(),
            PushKind::Message => {
                if let [_, redis::Value::BulkString(payload)] = info.data.as_slice() {
                    self.deliver(payload);
                }
            }
            _ => {}
        }
    }

    fn deliver(&self, payload: &[u8]) {
        let Ok(message) = serde_json::from_slice::<Value>(payload) else {
            tracing::debug!("event bus: a message that is not JSON, ignored");
            return;
        };
        let (Some(FORMAT), Some(origin), Some(seq)) = (
            message.get("v").and_then(Value::as_u64),
            message.get("origin").and_then(Value::as_str),
            message.get("seq").and_then(Value::as_u64),
        ) else {
            tracing::debug!("event bus: a message of another format, ignored");
            return;
        };
        if origin == self.origin {
            return;
        }
        let Some(event) = message.get("event").and_then(decode_event) else {
            tracing::debug!("event bus: an unknown event, ignored");
            return;
        };
        if !self.is_next(origin, seq) {
            return;
        }
        if let Some(hub) = self.hub.upgrade() {
            let _ = hub.send(event);
            self.counters.received.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether `seq` is past the last one seen from `origin` (and records
    /// it): a repeat or an older one is not delivered again.
    fn is_next(&self, origin: &str, seq: u64) -> bool {
        let now = Instant::now();
        let mut seen = self
            .last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((last, at)) = seen.get_mut(origin) {
            if seq <= *last {
                return false;
            }
            *last = seq;
            *at = now;
            return true;
        }
        if seen.len() >= MAX_ORIGINS
            && let Some(oldest) = seen
                .iter()
                .min_by_key(|(_, (_, at))| *at)
                .map(|(origin, _)| origin.clone())
        {
            seen.remove(&oldest);
        }
        seen.insert(origin.to_owned(), (seq, now));
        true
    }
}

/// An event as the channel carries it; `None` for `ShuttingDown`, which
/// stays in its process.
fn encode_event(event: &ServerEvent) -> Option<Value> {
    Some(match event {
        ServerEvent::ToolsListChanged => json!({ "type": "toolsListChanged" }),
        ServerEvent::PromptsListChanged => json!({ "type": "promptsListChanged" }),
        ServerEvent::ResourcesListChanged => json!({ "type": "resourcesListChanged" }),
        ServerEvent::ResourceUpdated(uri) => json!({ "type": "resourceUpdated", "uri": uri }),
        ServerEvent::TaskStatus {
            task_id,
            owner,
            task,
        } => json!({ "type": "taskStatus", "taskId": task_id, "owner": owner, "task": task }),
        ServerEvent::ShuttingDown => return None,
    })
}

fn decode_event(event: &Value) -> Option<ServerEvent> {
    let text = |key: &str| event.get(key).and_then(Value::as_str).map(str::to_owned);
    Some(match event.get("type")?.as_str()? {
        "toolsListChanged" => ServerEvent::ToolsListChanged,
        "promptsListChanged" => ServerEvent::PromptsListChanged,
        "resourcesListChanged" => ServerEvent::ResourcesListChanged,
        "resourceUpdated" => ServerEvent::ResourceUpdated(text("uri")?),
        "taskStatus" => ServerEvent::TaskStatus {
            task_id: text("taskId")?,
            owner: text("owner"),
            task: event.get("task")?.clone(),
        },
        _ => return None,
    })
}

/// A warning that may repeat, logged at most every [`LOG_EVERY`].
struct Throttle(Option<Instant>);

impl Throttle {
    fn allows(&mut self) -> bool {
        let now = Instant::now();
        if self
            .0
            .is_some_and(|last| now.duration_since(last) < LOG_EVERY)
        {
            return false;
        }
        self.0 = Some(now);
        true
    }
}

/// Why a connection was given up.
enum Lost {
    /// The hub is gone: stop.
    Stop,
    /// Connect again.
    Reconnect(String),
}

/// The relay's thread: connects, subscribes, sends the queue, and starts
/// again when the connection fails.
struct Runner {
    client: redis::Client,
    channel: String,
    origin: String,
    queue_capacity: usize,
    inbox: Arc<Inbox>,
    counters: Arc<Counters>,
}

/// What the thread keeps between connections.
struct Outgoing {
    queue: mpsc::Receiver<Queued>,
    /// Taken from the queue, numbered, not yet sent (at most [`BATCH`]).
    pending: VecDeque<(u64, Queued)>,
    seq: u64,
    dropped_reported: u64,
    drop_log: Throttle,
}

impl Runner {
    async fn run(self, queue: mpsc::Receiver<Queued>, mut alive: oneshot::Receiver<()>) {
        let mut out = Outgoing {
            queue,
            pending: VecDeque::new(),
            seq: 0,
            dropped_reported: 0,
            drop_log: Throttle(None),
        };
        let mut delay = RECONNECT_MIN_DELAY;
        let mut failure_log = Throttle(None);
        let mut failures = 0u64;
        loop {
            let lost = Arc::new(Notify::new());
            let connecting = tokio::time::timeout(RedisEventBus::TIMEOUT, self.connect(&lost));
            let connected = tokio::select! {
                _ = &mut alive => return,
                connected = connecting => connected,
            };
            let reason = match connected {
                Ok(Ok(connection)) => {
                    if failures > 0 {
                        tracing::warn!(
                            "event bus: connected to Redis again after {failures} failed attempts"
                        );
                    }
                    failures = 0;
                    delay = RECONNECT_MIN_DELAY;
                    self.counters.connected.store(true, Ordering::Relaxed);
                    let lost_why = self.serve(connection, &lost, &mut out, &mut alive).await;
                    self.counters.connected.store(false, Ordering::Relaxed);
                    match lost_why {
                        Lost::Stop => return,
                        Lost::Reconnect(why) => why,
                    }
                }
                Ok(Err(e)) => format!("cannot connect and subscribe: {e}"),
                Err(_) => format!(
                    "no answer within {} ms while connecting",
                    RedisEventBus::TIMEOUT.as_millis()
                ),
            };
            failures += 1;
            if failure_log.allows() {
                tracing::warn!(
                    "event bus: {reason}; retrying (meanwhile no events of other processes \
                     arrive, and up to {} of this process's wait)",
                    self.queue_capacity
                );
            }
            self.report_drops(&mut out);
            self.expire(&mut out);
            tokio::select! {
                _ = &mut alive => return,
                () = tokio::time::sleep(delay) => {}
            }
            delay = (delay * 2).min(RedisEventBus::RECONNECT_MAX_DELAY);
        }
    }

    async fn connect(&self, lost: &Arc<Notify>) -> redis::RedisResult<MultiplexedConnection> {
        let inbox = Arc::clone(&self.inbox);
        let lost = Arc::clone(lost);
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(RedisEventBus::TIMEOUT))
            .set_response_timeout(Some(RedisEventBus::TIMEOUT))
            .set_push_sender(move |info: PushInfo| {
                inbox.on_push(info, &lost);
                Ok::<(), std::convert::Infallible>(())
            });
        let mut connection = self
            .client
            .get_multiplexed_async_connection_with_config(&config)
            .await?;
        connection.subscribe(&self.channel).await?;
        Ok(connection)
    }

    /// Sends the queue on `connection` until it fails or the hub is gone.
    async fn serve(
        &self,
        mut connection: MultiplexedConnection,
        lost: &Notify,
        out: &mut Outgoing,
        alive: &mut oneshot::Receiver<()>,
    ) -> Lost {
        let mut ping =
            tokio::time::interval_at(tokio::time::Instant::now() + PING_INTERVAL, PING_INTERVAL);
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            self.expire(out);
            if out.pending.is_empty() {
                tokio::select! {
                    _ = &mut *alive => return Lost::Stop,
                    () = lost.notified() => return Lost::Reconnect("the connection closed".into()),
                    _ = ping.tick() => {
                        self.report_drops(out);
                        let ping_cmd = redis::cmd("PING");
                        let pong = tokio::time::timeout(
                            RedisEventBus::TIMEOUT,
                            ping_cmd.query_async::<()>(&mut connection),
                        );
                        match pong.await {
                            Ok(Ok(())) => {}
                            Ok(Err(e)) => return Lost::Reconnect(format!("PING failed: {e}")),
                            Err(_) => return Lost::Reconnect(no_answer("PING")),
                        }
                        continue;
                    }
                    queued = out.queue.recv() => match queued {
                        None => return Lost::Stop,
                        Some(queued) => {
                            out.seq += 1;
                            out.pending.push_back((out.seq, queued));
                            while out.pending.len() < BATCH {
                                let Ok(queued) = out.queue.try_recv() else { break };
                                out.seq += 1;
                                out.pending.push_back((out.seq, queued));
                            }
                        }
                    },
                }
            }
            let mut pipe = redis::pipe();
            for (seq, queued) in &out.pending {
                if let Some(event) = encode_event(&queued.event) {
                    let message =
                        json!({ "v": FORMAT, "origin": self.origin, "seq": seq, "event": event });
                    pipe.cmd("PUBLISH")
                        .arg(&self.channel)
                        .arg(message.to_string())
                        .ignore();
                }
            }
            let sent = tokio::time::timeout(
                RedisEventBus::TIMEOUT,
                pipe.query_async::<()>(&mut connection),
            );
            let count = out.pending.len() as u64;
            match sent.await {
                Ok(Ok(())) => {
                    self.counters.sent.fetch_add(count, Ordering::Relaxed);
                    out.pending.clear();
                }
                // Redis refused them (not a connection failure): sending
                // them again would be refused again.
                Ok(Err(e)) if !(e.is_io_error() || e.is_timeout() || e.is_connection_dropped()) => {
                    self.counters.dropped.fetch_add(count, Ordering::Relaxed);
                    out.pending.clear();
                    if out.drop_log.allows() {
                        tracing::warn!("event bus: Redis refused {count} events: {e}");
                    }
                }
                Ok(Err(e)) => return Lost::Reconnect(format!("PUBLISH failed: {e}")),
                Err(_) => return Lost::Reconnect(no_answer("PUBLISH")),
            }
        }
    }

    /// Drops the events that waited longer than [`RedisEventBus::MAX_EVENT_AGE`]:
    /// those taken already, then, while none is waiting, the oldest of the
    /// queue, up to the first fresh one.
    fn expire(&self, out: &mut Outgoing) {
        let fresh = |queued: &Queued| queued.at.elapsed() < RedisEventBus::MAX_EVENT_AGE;
        let before = out.pending.len();
        out.pending.retain(|(_, queued)| fresh(queued));
        let mut expired = (before - out.pending.len()) as u64;
        while out.pending.is_empty() {
            let Ok(queued) = out.queue.try_recv() else {
                break;
            };
            if fresh(&queued) {
                out.seq += 1;
                out.pending.push_back((out.seq, queued));
            } else {
                expired += 1;
            }
        }
        if expired > 0 {
            self.counters.expired.fetch_add(expired, Ordering::Relaxed);
            tracing::warn!(
                "event bus: dropped {expired} events of this process that could not reach \
                 Redis within {} s",
                RedisEventBus::MAX_EVENT_AGE.as_secs()
            );
        }
    }

    /// Logs, at most every [`LOG_EVERY`], how many events the full queue
    /// turned away since the last report.
    fn report_drops(&self, out: &mut Outgoing) {
        let dropped = self.counters.dropped.load(Ordering::Relaxed);
        if dropped > out.dropped_reported && out.drop_log.allows() {
            tracing::warn!(
                "event bus: dropped {} events for the other processes (queue of {} full)",
                dropped - out.dropped_reported,
                self.queue_capacity
            );
            out.dropped_reported = dropped;
        }
    }
}

fn no_answer(command: &str) -> String {
    format!(
        "no answer to {command} within {} ms",
        RedisEventBus::TIMEOUT.as_millis()
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    #[test]
    fn every_shared_event_survives_the_channel() {
        let events = [
            ServerEvent::ToolsListChanged,
            ServerEvent::PromptsListChanged,
            ServerEvent::ResourcesListChanged,
            ServerEvent::ResourceUpdated("test://a b".into()),
            ServerEvent::TaskStatus {
                task_id: "t1".into(),
                owner: Some("alice".into()),
                task: json!({ "taskId": "t1", "status": "completed" }),
            },
            ServerEvent::TaskStatus {
                task_id: "t2".into(),
                owner: None,
                task: json!({}),
            },
        ];
        for event in events {
            let wire = encode_event(&event).unwrap();
            assert_eq!(decode_event(&wire), Some(event));
        }
        assert_eq!(encode_event(&ServerEvent::ShuttingDown), None);
        assert_eq!(decode_event(&json!({ "type": "shuttingDown" })), None);
    }

    fn inbox(hub: &broadcast::Sender<ServerEvent>) -> Inbox {
        Inbox {
            hub: hub.downgrade(),
            origin: "me".into(),
            last_seen: Mutex::new(HashMap::new()),
            counters: Arc::default(),
        }
    }

    fn message(origin: &str, seq: u64, uri: &str) -> Vec<u8> {
        let event = encode_event(&ServerEvent::ResourceUpdated(uri.into())).unwrap();
        json!({ "v": FORMAT, "origin": origin, "seq": seq, "event": event })
            .to_string()
            .into_bytes()
    }

    #[test]
    fn an_event_is_handed_on_once_in_its_origins_order_and_never_back_home() {
        let (hub, mut rx) = broadcast::channel(16);
        let inbox = inbox(&hub);
        inbox.deliver(&message("a", 1, "x:1"));
        inbox.deliver(&message("a", 1, "x:1")); // a batch sent again
        inbox.deliver(&message("b", 1, "y:1")); // another origin counts apart
        inbox.deliver(&message("a", 3, "x:3"));
        inbox.deliver(&message("a", 2, "x:2")); // older than one handed on
        inbox.deliver(&message("me", 9, "mine")); // this hub's own
        inbox.deliver(b"not json");
        let mut got = Vec::new();
        while let Ok(event) = rx.try_recv() {
            got.push(event);
        }
        let uris: Vec<ServerEvent> = ["x:1", "y:1", "x:3"]
            .into_iter()
            .map(|u| ServerEvent::ResourceUpdated(u.into()))
            .collect();
        assert_eq!(got, uris);
        assert_eq!(inbox.counters.received.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn origins_are_forgotten_oldest_first_at_the_cap() {
        let (hub, _rx) = broadcast::channel(16);
        let inbox = inbox(&hub);
        for n in 0..=MAX_ORIGINS {
            assert!(inbox.is_next(&format!("o{n}"), 1));
        }
        let seen = inbox.last_seen.lock().unwrap();
        assert_eq!(seen.len(), MAX_ORIGINS);
        assert!(!seen.contains_key("o0"));
    }

    /// A Redis that refuses connections: `publish` still returns at once,
    /// delivers locally, and past the queue's bound drops (and counts).
    #[test]
    fn publish_never_waits_for_an_unreachable_redis() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port(); // closed again: nothing listens there
        let bus = RedisEventBus::open(&format!("redis://127.0.0.1:{port}"))
            .unwrap()
            .with_queue_capacity(8);
        let events = ServerEvents::with_redis(bus).unwrap();
        assert!(events.is_shared());
        let mut rx = events.subscribe();
        for _ in 0..100 {
            events.tools_list_changed();
        }
        for _ in 0..100 {
            assert_eq!(rx.try_recv().unwrap(), ServerEvent::ToolsListChanged);
        }
        let stats = events.bus_stats().unwrap();
        assert!(!stats.connected);
        // Unconnected, the thread holds at most one event off the queue.
        assert!(stats.dropped >= 100 - 8 - 1, "{stats:?}");
        assert_eq!(stats.sent, 0);
    }
}
