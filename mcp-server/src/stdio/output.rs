//! stdout: the queue of answers and notifications, its backlog bound, and
//! the buffered writer that flushes once per burst.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{Notify, OwnedSemaphorePermit, mpsc};

use crate::model::outcome::Outcome;

/// A serialized message for stdout (without its newline), with the slot of
/// the request it answers (freed once the line is written).
pub(super) type Output = (Vec<u8>, Option<OwnedSemaphorePermit>);

/// What the reading loop and the request tasks share: the requests in
/// flight and the stdout queue.
pub(super) struct Shared {
    pub(super) out: mpsc::UnboundedSender<Output>,
    pub(super) backlog: Arc<Backlog>,
}

/// The bytes queued for stdout and not yet written. Above the limit the
/// server stops reading stdin (a client that does not read gets no more
/// answers queued for it); above four times the limit, notifications are
/// dropped rather than queued (answers never are: their number is bounded
/// by the in-flight slots).
pub(super) struct Backlog {
    pub(super) bytes: AtomicUsize,
    pub(super) limit: usize,
    pub(super) drained: Notify,
    pub(super) dropped: AtomicU64,
}

impl Backlog {
    pub(super) fn new(limit: usize) -> Self {
        Self {
            bytes: AtomicUsize::new(0),
            limit: limit.max(1),
            drained: Notify::new(),
            dropped: AtomicU64::new(0),
        }
    }

    pub(super) fn over(&self) -> bool {
        self.bytes.load(Ordering::Acquire) > self.limit
    }

    pub(super) fn added(&self, len: usize) {
        self.bytes.fetch_add(len, Ordering::AcqRel);
    }

    pub(super) fn written(&self, len: usize) {
        let before = self.bytes.fetch_sub(len, Ordering::AcqRel);
        if before > self.limit && before - len <= self.limit {
            self.drained.notify_waiters();
        }
    }

    /// Waits until the backlog is at or under the limit.
    pub(super) async fn below_limit(&self) {
        loop {
            let drained = self.drained.notified();
            let mut drained = std::pin::pin!(drained);
            drained.as_mut().enable();
            if !self.over() {
                return;
            }
            drained.await;
        }
    }

    /// Whether a notification may still be queued.
    pub(super) fn admits_notification(&self) -> bool {
        if self.bytes.load(Ordering::Acquire) <= self.limit.saturating_mul(4) {
            return true;
        }
        if self.dropped.fetch_add(1, Ordering::Relaxed) == 0 {
            tracing::warn!(
                limit = self.limit,
                "stdout is not being read; dropping notifications"
            );
        }
        false
    }
}

impl Shared {
    pub(super) fn send(&self, message: Vec<u8>, slot: Option<OwnedSemaphorePermit>) {
        self.backlog.added(message.len() + 1);
        if self.out.send((message, slot)).is_err() {
            self.backlog.bytes.store(0, Ordering::Release);
        }
    }

    pub(super) fn write(&self, message: Vec<u8>) {
        self.send(message, None);
    }

    /// A notification (or a server→client request) for stdout, unless the
    /// backlog is past its hard bound.
    pub(super) fn notify(&self, message: &Value) {
        if self.backlog.admits_notification() {
            self.write(serde_json::to_vec(message).unwrap_or_default());
        }
    }

    /// An answer, holding `slot` until it is on its way; a notification's
    /// (no body) writes nothing.
    pub(super) fn answer(&self, outcome: Outcome, slot: Option<OwnedSemaphorePermit>) {
        if let Some(body) = outcome.body {
            self.send(body, slot);
        }
    }
}
// Writes each message as one line through a buffer, flushing when the
/// queue is empty (one write for a burst of answers).
pub(super) async fn write_loop<W: AsyncWrite + Unpin>(
    writer: W,
    mut rx: mpsc::UnboundedReceiver<Output>,
    backlog: Arc<Backlog>,
) -> io::Result<()> {
    let mut writer = tokio::io::BufWriter::with_capacity(64 * 1024, writer);
    while let Some((message, slot)) = rx.recv().await {
        writer.write_all(&message).await?;
        writer.write_all(b"\n").await?;
        backlog.written(message.len() + 1);
        // The request's slot frees once its answer is on its way.
        drop(slot);
        if rx.is_empty() {
            writer.flush().await?;
        }
    }
    writer.flush().await
}
