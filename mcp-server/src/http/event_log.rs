//! The ids and the stored copy of one legacy session stream's events:
//! each event gets an id `{stream}-{seq}` as it is framed and goes, in
//! order and in the background, to the
//! [`EventStore`](crate::sessions::EventStore), so that a slow or failing
//! store delays no stream (an event it could not keep cannot be replayed;
//! a warning says so). See `resume.rs` for how the events come back.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc;

use super::sessions::SessionTable;
use crate::state::sessions::{EventStore, StoredEvent, StreamKey, event_id};

/// What opening a resumable stream of one session needs.
#[derive(Clone)]
pub(super) struct Resumable {
    pub(super) store: Arc<dyn EventStore>,
    pub(super) session: String,
    /// How long the stream's events are kept after the last one (the
    /// session idle timeout: a longer wait finds the session gone).
    pub(super) ttl: Duration,
}

impl Resumable {
    pub(super) fn of(table: &SessionTable, session: &str) -> Self {
        Self {
            store: Arc::clone(&table.events),
            session: session.to_owned(),
            ttl: table.idle_timeout,
        }
    }
}

/// The ids of one stream's events, and its events on their way to the
/// store.
pub(super) struct StreamLog {
    stream: String,
    next: u64,
    /// Whether the last event (a response, or the end mark) was recorded.
    ended: bool,
    to_store: mpsc::UnboundedSender<StoredEvent>,
}

/// A stored event that only marks the end of its stream (a GET stream
/// closed, a POST stream whose request ended without a response): never
/// sent, it ends whoever follows the stream.
pub(super) fn is_end_mark(event: &StoredEvent) -> bool {
    event.last && event.data.is_empty()
}

impl Drop for StreamLog {
    fn drop(&mut self) {
        if !self.ended {
            self.record(b"", true);
        }
    }
}

impl StreamLog {
    /// A new stream of `resumable`'s session, `kind` `'g'` or `'p'`;
    /// `None` without OS randomness for its id (the stream then goes
    /// without ids).
    pub(super) fn open(resumable: &Resumable, kind: char) -> Option<Self> {
        let random = crate::wire::random_id::random_id().ok()?;
        let stream = format!("{kind}{}", &random[..16]);
        let (to_store, queued) = mpsc::unbounded_channel();
        let key = StreamKey {
            session: resumable.session.clone(),
            stream: stream.clone(),
        };
        tokio::spawn(store_in_order(
            Arc::clone(&resumable.store),
            key,
            queued,
            resumable.ttl,
        ));
        Some(Self {
            stream,
            next: 1,
            ended: false,
            to_store,
        })
    }

    fn record(&mut self, data: &[u8], last: bool) -> String {
        let seq = self.next;
        self.next += 1;
        self.ended |= last;
        let _ = self.to_store.send(StoredEvent {
            seq,
            data: String::from_utf8_lossy(data).into_owned(),
            last,
        });
        event_id(&self.stream, seq)
    }

    /// The priming event: an id and empty data.
    pub(super) fn priming(&mut self) -> Bytes {
        let id = self.record(b"", false);
        priming_frame(&id)
    }

    /// One message event with its id; `last` for a POST's response.
    pub(super) fn frame(&mut self, json: &[u8], last: bool) -> Bytes {
        let id = self.record(json, last);
        message_frame(&id, json)
    }
}

pub(super) fn priming_frame(id: &str) -> Bytes {
    Bytes::from(format!("id: {id}\ndata:\n\n"))
}

pub(super) fn message_frame(id: &str, json: &[u8]) -> Bytes {
    let mut frame = Vec::with_capacity(json.len() + id.len() + 26);
    frame.extend_from_slice(b"id: ");
    frame.extend_from_slice(id.as_bytes());
    frame.extend_from_slice(b"\nevent: message\ndata: ");
    frame.extend_from_slice(json);
    frame.extend_from_slice(b"\n\n");
    Bytes::from(frame)
}

/// A stored event as it was sent.
pub(super) fn replayed_frame(stream: &str, event: &StoredEvent) -> Bytes {
    let id = event_id(stream, event.seq);
    if event.data.is_empty() {
        priming_frame(&id)
    } else {
        message_frame(&id, event.data.as_bytes())
    }
}

/// Appends a stream's events to the store in order, batching what is
/// queued, until the stream is done.
async fn store_in_order(
    store: Arc<dyn EventStore>,
    key: StreamKey,
    mut queued: mpsc::UnboundedReceiver<StoredEvent>,
    ttl: Duration,
) {
    let mut warned = false;
    while let Some(first) = queued.recv().await {
        let mut batch = vec![first];
        while let Ok(more) = queued.try_recv() {
            batch.push(more);
        }
        if let Err(error) = store.append(&key, batch, ttl).await
            && !warned
        {
            warned = true;
            tracing::warn!(session = %key.session, stream = %key.stream, %error,
                "event store: events of this stream could not be kept; a client resuming it misses them");
        }
    }
}
