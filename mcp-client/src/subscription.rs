//! Server notifications as an async stream: [`Subscription`] (from
//! [`Client::subscribe`](crate::Client::subscribe) or
//! [`Client::notifications`](crate::Client::notifications)), and the
//! routing behind it.
//!
//! On stdio every notification of a listen stream carries
//! `_meta["io.modelcontextprotocol/subscriptionId"]` (the listen request's
//! id) and is routed by it; the rest goes to the general subscribers. Over
//! HTTP each listen stream is its own response body. Whatever the route, a
//! `notifications/{tools,prompts,resources}/list_changed` drops the cached
//! list first, so the next list call fetches it again.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::cache::{Cache, ServerKey};
use crate::error::{Error, Result};
use crate::negotiate::split_response;
use crate::transport::stdio::StdioTransport;

/// The `_meta` key tagging listen-stream notifications.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// One notification from the server.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// Its method, e.g. `notifications/tools/list_changed`.
    pub method: String,
    /// Its params (`null` when it had none).
    pub params: Value,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The list methods a list-changed notification makes stale.
fn stale_lists(method: &str) -> &'static [&'static str] {
    match method {
        "notifications/tools/list_changed" => &["tools/list"],
        "notifications/prompts/list_changed" => &["prompts/list"],
        "notifications/resources/list_changed" => &["resources/list", "resources/templates/list"],
        _ => &[],
    }
}

/// Where notifications go.
pub(crate) struct Routes {
    cache: Arc<Cache>,
    server: ServerKey,
    listeners: Mutex<HashMap<String, UnboundedSender<Value>>>,
    general: Mutex<Vec<UnboundedSender<Value>>>,
    generation: AtomicU64,
}

impl Routes {
    pub(crate) fn new(cache: Arc<Cache>, server: ServerKey) -> Self {
        Self {
            cache,
            server,
            listeners: Mutex::default(),
            general: Mutex::default(),
            generation: AtomicU64::new(0),
        }
    }

    /// Bumped by every list change (a list fetched across one is not cached).
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    fn invalidate(&self, method: &str) {
        for list in stale_lists(method) {
            self.generation.fetch_add(1, Ordering::SeqCst);
            self.cache.invalidate_list(&self.server, list);
        }
    }

    /// Routes one notification message.
    pub(crate) fn deliver(&self, message: Value) {
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.invalidate(method);
        let tag = message
            .get("params")
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(SUBSCRIPTION_ID));
        if let Some(tag) = tag {
            if let Some(tx) = lock(&self.listeners).get(&tag.to_string()) {
                let _ = tx.send(message);
            }
            return;
        }
        // The server ending a listen stream by cancelling it.
        if method == "notifications/cancelled"
            && let Some(id) = message.pointer("/params/requestId")
            && lock(&self.listeners).remove(&id.to_string()).is_some()
        {
            return;
        }
        lock(&self.general).retain(|tx| tx.send(message.clone()).is_ok());
    }

    pub(crate) fn listen(&self, id: &Value, tx: UnboundedSender<Value>) {
        lock(&self.listeners).insert(id.to_string(), tx);
    }

    pub(crate) fn unlisten(&self, id: &Value) {
        lock(&self.listeners).remove(&id.to_string());
    }

    /// A subscription to the notifications outside listen streams.
    pub(crate) fn general(self: &Arc<Self>) -> Subscription {
        let (tx, rx) = unbounded_channel();
        lock(&self.general).push(tx);
        Subscription::new(rx, self.clone())
    }
}

/// Ends a stdio listen request when its subscription is dropped.
struct StdioListen {
    id: Value,
    transport: Arc<StdioTransport>,
    task: tokio::task::JoinHandle<()>,
}

/// An async stream of [`Notification`]s; use [`Subscription::next`] or it
/// as a `futures_core::Stream`. Dropping it ends the listen request.
pub struct Subscription {
    rx: UnboundedReceiver<Value>,
    routes: Arc<Routes>,
    early: VecDeque<Notification>,
    listen: Option<StdioListen>,
    ended: bool,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    pub(crate) fn new(rx: UnboundedReceiver<Value>, routes: Arc<Routes>) -> Self {
        Self {
            rx,
            routes,
            early: VecDeque::new(),
            listen: None,
            ended: false,
        }
    }

    pub(crate) fn with_cancel(
        mut self,
        id: Value,
        transport: Arc<StdioTransport>,
        task: tokio::task::JoinHandle<()>,
    ) -> Self {
        self.listen = Some(StdioListen {
            id,
            transport,
            task,
        });
        self
    }

    /// Turns one raw message into a notification; `None` ends the stream
    /// (the listen request's response).
    fn take(&mut self, message: Value) -> Option<Notification> {
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            self.ended = true;
            self.rx.close();
            return None;
        };
        // Listen streams over HTTP bypass the router: invalidate here too.
        self.routes.invalidate(method);
        Some(Notification {
            method: method.to_owned(),
            params: message.get("params").cloned().unwrap_or(Value::Null),
        })
    }

    /// Waits for `notifications/subscriptions/acknowledged`; notifications
    /// before it are kept for [`next`](Self::next).
    pub(crate) async fn acknowledged(&mut self, timeout: Duration) -> Result<()> {
        let wait = async {
            loop {
                let Some(message) = self.rx.recv().await else {
                    return Err(Error::Closed {
                        detail: "subscriptions/listen ended before it was acknowledged".into(),
                    });
                };
                if message.get("method").is_none() {
                    return Err(match split_response(&message) {
                        Some(Err(error)) => Error::Rpc {
                            method: "subscriptions/listen".into(),
                            error,
                        },
                        _ => Error::Closed {
                            detail: "subscriptions/listen ended before it was acknowledged".into(),
                        },
                    });
                }
                if message["method"] == "notifications/subscriptions/acknowledged" {
                    return Ok(());
                }
                if let Some(n) = self.take(message) {
                    self.early.push_back(n);
                }
            }
        };
        match tokio::time::timeout(timeout, wait).await {
            Ok(r) => r,
            Err(_) => Err(Error::Timeout {
                method: "subscriptions/listen".into(),
                after: timeout,
            }),
        }
    }

    /// The next notification; `None` once the stream ended.
    pub async fn next(&mut self) -> Option<Notification> {
        if let Some(n) = self.early.pop_front() {
            return Some(n);
        }
        if self.ended {
            return None;
        }
        let message = self.rx.recv().await?;
        self.take(message)
    }
}

impl futures_core::Stream for Subscription {
    type Item = Notification;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Notification>> {
        if let Some(n) = self.early.pop_front() {
            return Poll::Ready(Some(n));
        }
        if self.ended {
            return Poll::Ready(None);
        }
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(message)) => Poll::Ready(self.take(message)),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let Some(listen) = self.listen.take() else {
            return;
        };
        listen.task.abort();
        listen.transport.forget(&listen.id);
        self.routes.unlisten(&listen.id);
        if self.ended {
            return;
        }
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": listen.id, "reason": "the subscription was dropped"}});
            let t = listen.transport;
            rt.spawn(async move {
                let _ = t.send(&note).await;
            });
        }
    }
}
