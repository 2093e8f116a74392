//! The SSE events of session streams, kept for `Last-Event-ID`: the
//! [`EventStore`] trait, event ids, and the in-memory default
//! [`MemoryEventStore`] (a bounded window per stream, a bounded total).

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::future::ready;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};

use crate::state::tasks::store::{StoreError, StoreFuture};

/// How many events a stream keeps by default: older ones are dropped (a
/// client resuming from before them gets what is left, with a gap).
pub const DEFAULT_EVENT_WINDOW: usize = 1_000;

/// How many events [`MemoryEventStore::default`] keeps in all; past it
/// the oldest streams go whole.
pub const DEFAULT_MEMORY_EVENT_CAPACITY: usize = 50_000;

/// One stream of one session.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StreamKey {
    /// The session id.
    pub session: String,
    /// The stream id, unique within the session.
    pub stream: String,
}

/// One SSE event as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredEvent {
    /// Its position in the stream, from 1, increasing.
    pub seq: u64,
    /// The JSON-RPC message as sent; empty for the priming event (an id,
    /// no message).
    pub data: String,
    /// The stream's last event (a POST stream's response).
    pub last: bool,
}

/// The event id of event `seq` of `stream`: `{stream}-{seq}`.
pub fn event_id(stream: &str, seq: u64) -> String {
    format!("{stream}-{seq}")
}

/// The stream and position an event id names, if it is one of ours.
pub fn parse_event_id(id: &str) -> Option<(&str, u64)> {
    let (stream, seq) = id.trim().rsplit_once('-')?;
    let valid = !stream.is_empty() && stream.bytes().all(|b| b.is_ascii_alphanumeric());
    valid.then_some(())?;
    Some((stream, seq.parse().ok()?))
}

/// A followed stream: every event after a position, then each new one as
/// it is stored, ending after the event marked `last`, when the stream goes
/// (expired, dropped, its session ended) or on a store error (the last
/// item). Dropping the receiver stops the following.
pub type EventFollow = mpsc::Receiver<Result<StoredEvent, StoreError>>;

/// Where the events of session streams are kept for resumption. Every
/// method is bounded (a shared store answers or fails within its
/// timeout); following is bounded per read.
pub trait EventStore: fmt::Debug + Send + Sync + 'static {
    /// Appends `events` to `key`, in order; an event whose `seq` is not
    /// past the last one stored is left out (so an append retried is
    /// stored once). The stream lives `ttl` past its last append.
    fn append<'a>(
        &'a self,
        key: &'a StreamKey,
        events: Vec<StoredEvent>,
        ttl: Duration,
    ) -> StoreFuture<'a, ()>;

    /// The events of `key` after position `after`, in order; `None` when
    /// the stream is unknown (never written, expired or dropped).
    fn read_after<'a>(
        &'a self,
        key: &'a StreamKey,
        after: u64,
    ) -> StoreFuture<'a, Option<Vec<StoredEvent>>>;

    /// Follows `key` from position `after` (see [`EventFollow`]); `None`
    /// when the stream is unknown.
    fn follow(&self, key: StreamKey, after: u64) -> StoreFuture<'_, Option<EventFollow>>;

    /// Drops the streams of an ended session (a store that expires streams
    /// by their TTL may leave them to expire: nobody can resume a stream
    /// of an ended session).
    fn forget_session<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()>;
}

/// One stream's window, and the signal of new events (dropped with the
/// stream, which ends its followers).
struct Buffer {
    events: VecDeque<StoredEvent>,
    appended: watch::Sender<u64>,
}

#[derive(Default)]
struct Inner {
    /// Session → stream → window.
    sessions: HashMap<String, HashMap<String, Buffer>>,
    /// Streams oldest first, for the total bound (ids of dropped streams
    /// are skipped when they come up).
    order: VecDeque<StreamKey>,
    total: usize,
}

impl Inner {
    fn buffer(&self, key: &StreamKey) -> Option<&Buffer> {
        self.sessions.get(&key.session)?.get(&key.stream)
    }

    fn drop_stream(&mut self, key: &StreamKey) {
        let Some(streams) = self.sessions.get_mut(&key.session) else {
            return;
        };
        if let Some(buffer) = streams.remove(&key.stream) {
            self.total -= buffer.events.len();
        }
        if streams.is_empty() {
            self.sessions.remove(&key.session);
        }
    }
}

/// Events in this process: at most `window` per stream and `capacity` in
/// all (the oldest streams go first). Streams of an ended session are
/// dropped with it.
#[derive(Clone)]
pub struct MemoryEventStore {
    window: usize,
    capacity: usize,
    inner: Arc<Mutex<Inner>>,
}

impl fmt::Debug for MemoryEventStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryEventStore")
            .field("window", &self.window)
            .field("capacity", &self.capacity)
            .field("events", &self.lock().total)
            .finish()
    }
}

impl Default for MemoryEventStore {
    fn default() -> Self {
        Self::new(DEFAULT_EVENT_WINDOW, DEFAULT_MEMORY_EVENT_CAPACITY)
    }
}

impl MemoryEventStore {
    /// A store keeping `window` events per stream and `capacity` in all
    /// (each at least 1).
    pub fn new(window: usize, capacity: usize) -> Self {
        Self {
            window: window.max(1),
            capacity: capacity.max(1),
            inner: Arc::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many events are held.
    pub fn len(&self) -> usize {
        self.lock().total
    }

    /// Whether no event is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn store(&self, key: &StreamKey, events: Vec<StoredEvent>) {
        let mut inner = self.lock();
        let Inner {
            sessions, order, ..
        } = &mut *inner;
        let streams = sessions.entry(key.session.clone()).or_default();
        let buffer = streams.entry(key.stream.clone()).or_insert_with(|| {
            order.push_back(key.clone());
            Buffer {
                events: VecDeque::new(),
                appended: watch::channel(0).0,
            }
        });
        let mut added = 0usize;
        let mut dropped = 0usize;
        for event in events {
            let last_seq = *buffer.appended.borrow();
            if event.seq <= last_seq {
                continue;
            }
            buffer.appended.send_replace(event.seq);
            buffer.events.push_back(event);
            added += 1;
            if buffer.events.len() > self.window {
                buffer.events.pop_front();
                dropped += 1;
            }
        }
        inner.total = inner.total + added - dropped;
        while inner.total > self.capacity {
            let Some(oldest) = inner.order.pop_front() else {
                break;
            };
            inner.drop_stream(&oldest);
        }
        // Ids of streams dropped another way are cleaned up now and then.
        if inner.order.len() > 2 * inner.sessions.values().map(HashMap::len).sum::<usize>() + 64 {
            let Inner {
                sessions, order, ..
            } = &mut *inner;
            order.retain(|k| {
                sessions
                    .get(&k.session)
                    .is_some_and(|s| s.contains_key(&k.stream))
            });
        }
    }

    fn events_after(&self, key: &StreamKey, after: u64) -> Option<Vec<StoredEvent>> {
        let inner = self.lock();
        let buffer = inner.buffer(key)?;
        Some(
            buffer
                .events
                .iter()
                .filter(|e| e.seq > after)
                .cloned()
                .collect(),
        )
    }
}

impl EventStore for MemoryEventStore {
    fn append<'a>(
        &'a self,
        key: &'a StreamKey,
        events: Vec<StoredEvent>,
        _ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        self.store(key, events);
        Box::pin(ready(Ok(())))
    }

    fn read_after<'a>(
        &'a self,
        key: &'a StreamKey,
        after: u64,
    ) -> StoreFuture<'a, Option<Vec<StoredEvent>>> {
        Box::pin(ready(Ok(self.events_after(key, after))))
    }

    fn follow(&self, key: StreamKey, after: u64) -> StoreFuture<'_, Option<EventFollow>> {
        let Some(mut appended) = self.lock().buffer(&key).map(|b| b.appended.subscribe()) else {
            return Box::pin(ready(Ok(None)));
        };
        let (tx, rx) = mpsc::channel(64);
        let store = self.clone();
        tokio::spawn(async move {
            let mut after = after;
            loop {
                appended.borrow_and_update();
                let Some(events) = store.events_after(&key, after) else {
                    return;
                };
                for event in events {
                    after = event.seq;
                    let last = event.last;
                    if tx.send(Ok(event)).await.is_err() || last {
                        return;
                    }
                }
                tokio::select! {
                    changed = appended.changed() => {
                        if changed.is_err() {
                            // The stream went: what it still held was sent.
                            return;
                        }
                    }
                    () = tx.closed() => return,
                }
            }
        });
        Box::pin(ready(Ok(Some(rx))))
    }

    fn forget_session<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()> {
        let mut inner = self.lock();
        if let Some(streams) = inner.sessions.remove(session) {
            inner.total -= streams.values().map(|b| b.events.len()).sum::<usize>();
        }
        Box::pin(ready(Ok(())))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

    use super::*;

    fn key(session: &str, stream: &str) -> StreamKey {
        StreamKey {
            session: session.into(),
            stream: stream.into(),
        }
    }

    fn event(seq: u64, last: bool) -> StoredEvent {
        StoredEvent {
            seq,
            data: format!("{{\"n\":{seq}}}"),
            last,
        }
    }

    const TTL: Duration = Duration::from_secs(60);

    #[test]
    fn event_ids_name_their_stream_and_position() {
        assert_eq!(event_id("p1a2b", 7), "p1a2b-7");
        assert_eq!(parse_event_id("p1a2b-7"), Some(("p1a2b", 7)));
        assert_eq!(parse_event_id(" g9-0 "), Some(("g9", 0)));
        for foreign in ["", "7", "-7", "p1-", "p1-x", "a/b-1", "event-1-x"] {
            assert_eq!(parse_event_id(foreign), None, "{foreign}");
        }
    }

    #[tokio::test]
    async fn events_are_read_after_a_position_once_in_order() {
        let store = MemoryEventStore::new(3, 100);
        let k = key("s", "p1");
        store
            .append(&k, vec![event(1, false), event(2, false)], TTL)
            .await
            .unwrap();
        // A retried append is stored once.
        store
            .append(&k, vec![event(2, false), event(3, false)], TTL)
            .await
            .unwrap();
        let after_one = store.read_after(&k, 1).await.unwrap().unwrap();
        assert_eq!(after_one.iter().map(|e| e.seq).collect::<Vec<_>>(), [2, 3]);
        // The window keeps the newest three.
        store.append(&k, vec![event(4, false)], TTL).await.unwrap();
        let all = store.read_after(&k, 0).await.unwrap().unwrap();
        assert_eq!(all.iter().map(|e| e.seq).collect::<Vec<_>>(), [2, 3, 4]);
        assert_eq!(store.read_after(&key("s", "other"), 0).await.unwrap(), None);
        assert_eq!(store.read_after(&key("t", "p1"), 0).await.unwrap(), None);
        store.forget_session("s").await.unwrap();
        assert_eq!(store.read_after(&k, 0).await.unwrap(), None);
        assert!(store.is_empty());
    }

    #[tokio::test]
    async fn the_oldest_streams_go_past_the_capacity() {
        let store = MemoryEventStore::new(10, 4);
        for stream in ["a", "b", "c"] {
            store
                .append(
                    &key("s", stream),
                    vec![event(1, false), event(2, false)],
                    TTL,
                )
                .await
                .unwrap();
        }
        assert_eq!(store.len(), 4);
        assert_eq!(store.read_after(&key("s", "a"), 0).await.unwrap(), None);
        assert!(store.read_after(&key("s", "c"), 0).await.unwrap().is_some());
    }

    #[tokio::test]
    async fn a_follower_gets_what_is_stored_then_what_comes_until_the_last() {
        let store = MemoryEventStore::default();
        let k = key("s", "p1");
        assert!(
            store.follow(k.clone(), 0).await.unwrap().is_none(),
            "unknown"
        );
        store
            .append(&k, vec![event(1, false), event(2, false)], TTL)
            .await
            .unwrap();
        let mut follow = store.follow(k.clone(), 1).await.unwrap().unwrap();
        assert_eq!(follow.recv().await.unwrap().unwrap().seq, 2);
        store.append(&k, vec![event(3, false)], TTL).await.unwrap();
        assert_eq!(follow.recv().await.unwrap().unwrap().seq, 3);
        store
            .append(&k, vec![event(4, true), event(5, false)], TTL)
            .await
            .unwrap();
        let last = follow.recv().await.unwrap().unwrap();
        assert_eq!((last.seq, last.last), (4, true));
        assert!(follow.recv().await.is_none(), "ends after the last");
        // A follower of a stream that goes ends too.
        let mut follow = store.follow(k.clone(), 5).await.unwrap().unwrap();
        store.forget_session("s").await.unwrap();
        assert!(follow.recv().await.is_none());
    }
}
