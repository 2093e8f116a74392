//! The messages one HTTP request sends before its answer (progress,
//! logging, a legacy session's server→client requests), and its asking to
//! close its SSE connection, queued for the response: a lighter channel
//! than tokio's, whose per-request setup cost showed in profiles although
//! most requests send nothing.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use serde_json::Value;

/// What a request queues for its answer.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Item {
    /// A message before the response.
    Message(Value),
    /// Close the SSE connection now (the request goes on; the client
    /// resumes after `retry`).
    Close(Duration),
}

/// The queue both sides share.
struct Outbox {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Item>,
    reader: Option<Waker>,
    /// The sender is gone: nothing more will come.
    closed: bool,
    /// The receiver is gone: what is sent is dropped, as a channel would.
    unread: bool,
}

/// The sending side (one: the request's sink).
pub(super) struct Sender(Arc<Outbox>);

/// The reading side; `recv` ends with `None` once the sender is dropped
/// and the queue is empty.
pub(super) struct Receiver(Arc<Outbox>);

/// A new outbox: its sender and its receiver.
pub(super) fn outbox() -> (Sender, Receiver) {
    let outbox = Arc::new(Outbox {
        state: Mutex::new(State::default()),
    });
    (Sender(Arc::clone(&outbox)), Receiver(outbox))
}

impl Outbox {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Receiver {
    /// The next item, waiting for one; `None` when no more can come.
    pub(super) async fn recv(&self) -> Option<Item> {
        poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// The next item, or the waker registered for it.
    pub(super) fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Option<Item>> {
        let mut state = self.0.state();
        if let Some(message) = state.queue.pop_front() {
            return Poll::Ready(Some(message));
        }
        if state.closed {
            return Poll::Ready(None);
        }
        match &state.reader {
            // Polled again by the same task (a stream's body): no clone.
            Some(reader) if reader.will_wake(cx.waker()) => {}
            _ => state.reader = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// The next item if one is queued.
    pub(super) fn try_recv(&self) -> Option<Item> {
        self.0.state().queue.pop_front()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.unread = true;
        state.queue.clear();
    }
}

impl Sender {
    pub(super) fn send(&self, message: Value) {
        self.push(Item::Message(message));
    }

    /// Asks the answer to close its SSE connection after `retry`.
    pub(super) fn close_stream(&self, retry: Duration) {
        self.push(Item::Close(retry));
    }

    fn push(&self, item: Item) {
        let reader = {
            let mut state = self.0.state();
            if state.unread {
                return;
            }
            state.queue.push_back(item);
            state.reader.take()
        };
        if let Some(reader) = reader {
            reader.wake();
        }
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        let reader = {
            let mut state = self.0.state();
            state.closed = true;
            state.reader.take()
        };
        if let Some(reader) = reader {
            reader.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn delivers_in_order_then_ends_when_the_sender_goes() {
        let (sender, outbox) = outbox();
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            while let Some(message) = outbox.recv().await {
                got.push(message);
            }
            got
        });
        tokio::task::yield_now().await;
        sender.send(Value::from(1));
        sender.send(Value::from(2));
        drop(sender);
        let got = reader.await.expect("reader");
        assert_eq!(
            got,
            [Item::Message(Value::from(1)), Item::Message(Value::from(2))]
        );
    }

    #[test]
    fn keeps_nothing_once_the_receiver_is_gone() {
        let (sender, outbox) = outbox();
        let shared = Arc::clone(&outbox.0);
        sender.send(Value::from(1));
        drop(outbox);
        sender.send(Value::from(2));
        assert!(shared.state().queue.is_empty());
    }
}
