//! Requests in flight, keyed by the JSON text of their id (what
//! `notifications/cancelled` names), each a task that cancellation aborts.
//! stdio keeps one table per process, HTTP one per legacy session.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::Value;
use tokio::sync::Notify;
use tokio::task::{AbortHandle, JoinHandle};

/// One task under a key (ids may repeat: each gets its own entry).
struct Entry {
    seq: u64,
    abort: AbortHandle,
    /// A `subscriptions/listen` stream, which only cancellation or the end
    /// of input stops.
    listen: bool,
}

/// The table of requests in flight.
#[derive(Default)]
pub(crate) struct InFlight {
    entries: Mutex<HashMap<String, Vec<Entry>>>,
    next: AtomicU64,
    changed: Notify,
}

/// The in-flight key of a request id.
pub(crate) fn id_key(id: &Value) -> String {
    id.to_string()
}

/// The `params.requestId` of a `notifications/cancelled`, if `message` is
/// one.
pub(crate) fn cancelled_request(message: &Value) -> Option<&Value> {
    if message.get("method").and_then(Value::as_str) != Some("notifications/cancelled") {
        return None;
    }
    message.pointer("/params/requestId")
}

impl InFlight {
    fn entries(&self) -> MutexGuard<'_, HashMap<String, Vec<Entry>>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Spawns `work` as the request `key`. It is registered before it can
    /// run, so it can always be cancelled, and it gets the [`Finish`] that
    /// ends its registration (at its end, or when it is dropped).
    pub(crate) fn spawn<F>(
        self: &Arc<Self>,
        key: String,
        listen: bool,
        work: impl FnOnce(Finish) -> F,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let seq = self.next.fetch_add(1, Ordering::Relaxed);
        let finish = Finish {
            in_flight: Arc::clone(self),
            key: key.clone(),
            seq,
            done: false,
        };
        // Built before the lock: a `Finish` dropped while building must not
        // wait for it. Spawned under it: registered before it can run.
        let work = work(finish);
        let mut entries = self.entries();
        let handle = tokio::spawn(work);
        entries.entry(key).or_default().push(Entry {
            seq,
            abort: handle.abort_handle(),
            listen,
        });
        handle
    }

    /// Removes task `seq` of `key`; true when it was still registered (not
    /// cancelled).
    fn finish(&self, key: &str, seq: u64) -> bool {
        let mut entries = self.entries();
        let Some(tasks) = entries.get_mut(key) else {
            return false;
        };
        let Some(pos) = tasks.iter().position(|e| e.seq == seq) else {
            return false;
        };
        tasks.remove(pos);
        if tasks.is_empty() {
            entries.remove(key);
        }
        drop(entries);
        self.changed.notify_waiters();
        true
    }

    /// Aborts every request under `key` (`notifications/cancelled`);
    /// false when none runs here.
    pub(crate) fn cancel(&self, key: &str) -> bool {
        let removed = self.entries().remove(key);
        let found = removed.is_some();
        for entry in removed.into_iter().flatten() {
            entry.abort.abort();
        }
        self.changed.notify_waiters();
        found
    }

    /// Whether nothing runs.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// Aborts the listen streams (`listen_only`) or every request.
    pub(crate) fn abort_all(&self, listen_only: bool) {
        let mut entries = self.entries();
        for tasks in entries.values_mut() {
            tasks.retain(|entry| {
                let stop = entry.listen || !listen_only;
                if stop {
                    entry.abort.abort();
                }
                !stop
            });
        }
        entries.retain(|_, tasks| !tasks.is_empty());
        drop(entries);
        self.changed.notify_waiters();
    }

    /// Waits until no request is in flight.
    #[cfg_attr(not(feature = "stdio"), allow(dead_code))]
    pub(crate) async fn idle(&self) {
        loop {
            let changed = self.changed.notified();
            if self.entries().is_empty() {
                return;
            }
            changed.await;
        }
    }
}

/// Ends one request's registration, when its work says so or when the
/// work is dropped (ended, aborted or panicked).
pub(crate) struct Finish {
    in_flight: Arc<InFlight>,
    key: String,
    seq: u64,
    done: bool,
}

impl Finish {
    /// Ends the registration; true when the request was not cancelled,
    /// so its answer may be written.
    #[cfg_attr(not(feature = "stdio"), allow(dead_code))]
    pub(crate) fn finish(mut self) -> bool {
        self.done = true;
        self.in_flight.finish(&self.key, self.seq)
    }
}

impl Drop for Finish {
    fn drop(&mut self) {
        if !self.done {
            self.in_flight.finish(&self.key, self.seq);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_cancelled_request_is_aborted_and_its_answer_not_written() {
        let in_flight = Arc::new(InFlight::default());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let handle = in_flight.spawn("1".into(), false, |finish| async move {
            let _ = rx.await;
            finish.finish()
        });
        in_flight.cancel("1");
        assert!(handle.await.is_err_and(|e| e.is_cancelled()));
        drop(tx);
        in_flight.idle().await;
    }

    #[tokio::test]
    async fn a_finished_request_leaves_nothing_behind() {
        let in_flight = Arc::new(InFlight::default());
        let written = in_flight
            .spawn("1".into(), false, |finish| async move { finish.finish() })
            .await;
        assert_eq!(written.ok(), Some(true));
        in_flight.idle().await;
        assert!(in_flight.entries().is_empty());
    }

    #[tokio::test]
    async fn ending_input_stops_listen_streams_only() {
        let in_flight = Arc::new(InFlight::default());
        let forever = |finish: Finish| async move {
            let _finish = finish;
            std::future::pending::<()>().await;
        };
        let listen = in_flight.spawn("1".into(), true, forever);
        let call = in_flight.spawn("2".into(), false, forever);
        in_flight.abort_all(true);
        assert!(listen.await.is_err_and(|e| e.is_cancelled()));
        assert_eq!(in_flight.entries().len(), 1);
        in_flight.abort_all(false);
        assert!(call.await.is_err_and(|e| e.is_cancelled()));
        in_flight.idle().await;
    }
}
