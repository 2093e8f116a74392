//! stdout: one buffer of queued lines, its backlog bound, and the writer
//! that empties it (a task for any `AsyncWrite`, a thread of its own for
//! the process's stdout). While the serving loop works through input
//! already read, its answers only gather: the writer is woken once the
//! loop is about to wait, so a burst of pipelined requests costs one
//! wake-up and one write, not one per answer.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;

use crate::model::outcome::Outcome;

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

    fn added(&self, len: usize) {
        self.bytes.fetch_add(len, Ordering::AcqRel);
    }

    fn written(&self, len: usize) {
        let before = self.bytes.fetch_sub(len, Ordering::AcqRel);
        if before > self.limit && before - len <= self.limit {
            self.drained.notify_waiters();
        }
    }

    /// Waits until the backlog is at or under the limit.
    pub(super) async fn below_limit(&self) {
        if !self.over() {
            return;
        }
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
    fn admits_notification(&self) -> bool {
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

/// The queue the writer empties.
pub(super) struct Queue {
    state: Mutex<State>,
    wake: Wake,
    pub(super) backlog: Backlog,
}

/// How the writer is woken: a task waits on a `Notify`, a thread on a
/// `Condvar` (of the queue's mutex).
enum Wake {
    Task(Notify),
    Thread(Condvar),
}

struct State {
    /// Whole lines, each with its newline.
    lines: Vec<u8>,
    /// The serving loop is working through input already read: it wakes
    /// the writer when it stops.
    reading: bool,
    /// Every sender is gone: the writer ends once the queue is empty.
    closed: bool,
    /// The writer failed: nothing more is queued.
    failed: bool,
}

impl Queue {
    /// A queue for [`write_loop`] (`thread` false) or [`write_thread`].
    pub(super) fn new(backlog_limit: usize, thread: bool) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State {
                lines: Vec::new(),
                reading: false,
                closed: false,
                failed: false,
            }),
            wake: if thread {
                Wake::Thread(Condvar::new())
            } else {
                Wake::Task(Notify::new())
            },
            backlog: Backlog::new(backlog_limit),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wake(&self) {
        match &self.wake {
            Wake::Task(notify) => notify.notify_one(),
            Wake::Thread(condvar) => condvar.notify_one(),
        }
    }

    /// The writer failed: nothing more is queued, and the reading loop
    /// must not wait for a drain that will not come.
    fn failed(&self) {
        self.state().failed = true;
        self.backlog.bytes.store(0, Ordering::Release);
        self.backlog.drained.notify_waiters();
    }

    /// Counts a written batch and readies it for the next one.
    fn written(&self, batch: &mut Vec<u8>) {
        self.backlog.written(batch.len());
        batch.clear();
        // After a large burst, the next one starts small again.
        if batch.capacity() > 1024 * 1024 {
            *batch = Vec::new();
        }
    }
}

/// What the serving loop and the request tasks share: the stdout queue.
/// When the last of them drops it, the writer finishes the queue and ends.
pub(super) struct Shared {
    queue: Arc<Queue>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.queue.state().closed = true;
        self.queue.wake();
    }
}

impl Shared {
    pub(super) fn new(queue: Arc<Queue>) -> Self {
        Self { queue }
    }

    pub(super) fn backlog(&self) -> &Backlog {
        &self.queue.backlog
    }

    /// Queues one line; the writer is woken unless the serving loop will.
    fn write(&self, message: &[u8]) {
        let mut state = self.queue.state();
        if state.failed {
            return;
        }
        let was_empty = state.lines.is_empty();
        state.lines.extend_from_slice(message);
        state.lines.push(b'\n');
        let wake = was_empty && !state.reading;
        drop(state);
        self.queue.backlog.added(message.len() + 1);
        if wake {
            self.queue.wake();
        }
    }

    /// Whether the serving loop goes on through input already read (its
    /// answers then gather), or is about to wait (the writer is woken).
    pub(super) fn set_reading(&self, reading: bool) {
        let mut state = self.queue.state();
        state.reading = reading;
        let wake = !reading && !state.lines.is_empty();
        drop(state);
        if wake {
            self.queue.wake();
        }
    }

    /// A notification (or a server→client request) for stdout, unless the
    /// backlog is past its hard bound.
    pub(super) fn notify(&self, message: &Value) {
        if self.queue.backlog.admits_notification() {
            self.write(&mcp_era_types::json::to_vec(message).unwrap_or_default());
        }
    }

    /// An answer; a notification's (no body) writes nothing.
    pub(super) fn answer(&self, outcome: Outcome) {
        if let Some(body) = outcome.body {
            self.write(&body);
        }
    }
}

/// Writes what is queued, all of it at once, and flushes, until every
/// sender is gone and the queue is empty.
pub(super) async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    queue: Arc<Queue>,
) -> io::Result<()> {
    let Wake::Task(notify) = &queue.wake else {
        return Err(io::Error::other("a thread's queue given to a task"));
    };
    let mut batch = Vec::new();
    loop {
        let woken = notify.notified();
        let mut woken = std::pin::pin!(woken);
        // Registered before the queue is read, so no line queued after it
        // is missed.
        woken.as_mut().enable();
        let closed = {
            let mut state = queue.state();
            std::mem::swap(&mut state.lines, &mut batch);
            state.closed
        };
        if batch.is_empty() {
            if closed {
                return writer.flush().await;
            }
            woken.await;
            continue;
        }
        let written = async {
            writer.write_all(&batch).await?;
            writer.flush().await
        }
        .await;
        if let Err(e) = written {
            queue.failed();
            return Err(e);
        }
        queue.written(&mut batch);
    }
}

/// [`write_loop`] on a thread, with blocking writes: for the process's
/// stdout, where each write of an async handle is a trip to the runtime's
/// blocking pool and back.
pub(super) fn write_thread(mut writer: impl Write, queue: &Queue) -> io::Result<()> {
    let Wake::Thread(condvar) = &queue.wake else {
        return Err(io::Error::other("a task's queue given to a thread"));
    };
    let mut batch = Vec::new();
    loop {
        let mut state = queue.state();
        while state.lines.is_empty() {
            if state.closed {
                return writer.flush();
            }
            state = condvar.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        std::mem::swap(&mut state.lines, &mut batch);
        drop(state);
        if let Err(e) = writer.write_all(&batch).and_then(|()| writer.flush()) {
            queue.failed();
            return Err(e);
        }
        queue.written(&mut batch);
    }
}
