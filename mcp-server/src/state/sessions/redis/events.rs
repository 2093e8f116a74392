//! [`RedisEventStore`]: a stream's events as a Redis stream, followed
//! with `XREAD BLOCK` on a connection of its own (see the module above).

use std::sync::Arc;
use std::time::Duration;

use redis::aio::MultiplexedConnection;
use tokio::sync::mpsc;

use super::super::replay::{EventFollow, EventStore, StoredEvent, StreamKey};
use super::super::store::{StoreError, StoreFuture};
use super::link::{DEFAULT_PREFIX, Link, in_time};

/// How long a follower's `XREAD` blocks before it checks that the stream
/// and its reader are still there.
const FOLLOW_BLOCK: Duration = Duration::from_secs(5);

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

/// Stream events in Redis (see the module docs): made with
/// [`RedisSessionStore::event_store`](crate::sessions::RedisSessionStore::event_store), or on their own with
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
        Ok(Self::new(
            Arc::new(Link::open(url)?),
            DEFAULT_PREFIX.to_owned(),
            super::super::replay::DEFAULT_EVENT_WINDOW,
        ))
    }

    /// On `link`, keeping `window` (at least 1) events per stream.
    pub(super) fn new(link: Arc<Link>, prefix: String, window: usize) -> Self {
        Self {
            link,
            prefix,
            window: window.max(1),
        }
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
            if !stream_exists(&mut connection, &name, timeout).await? {
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

/// Whether stream `name` still exists, asked within `timeout`.
async fn stream_exists(
    connection: &mut MultiplexedConnection,
    name: &str,
    timeout: Duration,
) -> Result<bool, StoreError> {
    let exists = tokio::time::timeout(
        timeout,
        redis::cmd("EXISTS")
            .arg(name)
            .query_async::<i64>(connection),
    )
    .await;
    Ok(in_time(exists, "no answer within the timeout")? == 1)
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
        let reply = match in_time(reply, "a blocked read did not come back") {
            Ok(reply) => reply,
            Err(error) => {
                let _ = tx.send(Err(error)).await;
                return;
            }
        };
        let events = xread_entries(&reply);
        if events.is_empty() {
            match stream_exists(&mut connection, &name, timeout).await {
                Ok(true) => continue,
                Ok(false) => return,
                Err(error) => {
                    let _ = tx.send(Err(error)).await;
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
