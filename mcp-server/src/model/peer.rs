//! The server's side of talking back to a client while a request runs: the
//! per-request [`Sink`] (notifications, and server→client requests in
//! legacy sessions) and the [`ClientPeer`] that matches the client's
//! responses to those requests.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::wire::errors::{self, ErrorObject};

/// Where a request's own messages go: the transport writes each value as
/// one JSON-RPC message on the request's stream (a stdout line, an SSE
/// event of the POST response).
pub type Sink = Arc<dyn Fn(Value) + Send + Sync>;

/// The requests waiting for the client, and whether the client is gone.
#[derive(Default)]
struct Pending {
    waiting: HashMap<String, oneshot::Sender<Result<Value, ErrorObject>>>,
    closed: bool,
}

/// The client side of a stdio process or a legacy HTTP session:
/// server→client requests (legacy `sampling/createMessage`,
/// `elicitation/create`, `roots/list`) wait here for the client's response,
/// which the transport hands to [`deliver`](Self::deliver).
///
/// Clones share the same pending requests.
#[derive(Clone, Default)]
pub struct ClientPeer {
    inner: Arc<PeerInner>,
}

/// How long a server→client request waits for its answer by default: as
/// long as the TypeScript SDK's default request timeout.
pub const DEFAULT_CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

struct PeerInner {
    next_id: AtomicI64,
    pending: Mutex<Pending>,
    timeout: Duration,
    /// Names the instance in request ids (`srv-{instance}-{n}`) so that a
    /// response posted to another instance finds its way back.
    instance: Option<String>,
}

impl Default for PeerInner {
    fn default() -> Self {
        Self {
            next_id: AtomicI64::default(),
            pending: Mutex::default(),
            timeout: DEFAULT_CLIENT_REQUEST_TIMEOUT,
            instance: None,
        }
    }
}

/// The instance a server→client request id names (`srv-{instance}-{n}`),
/// if it names one.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn instance_of(id: &Value) -> Option<&str> {
    let (instance, n) = id.as_str()?.strip_prefix("srv-")?.split_once('-')?;
    let valid = !instance.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    valid.then_some(instance)
}

impl std::fmt::Debug for ClientPeer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientPeer")
            .field("pending", &self.pending().waiting.len())
            .finish()
    }
}

fn key(id: &Value) -> String {
    id.to_string()
}

/// Whether `message` is a JSON-RPC response (an `id` with `result` or
/// `error`, and no `method`): what a client sends back to a server→client
/// request.
pub fn is_response(message: &Value) -> bool {
    message.as_object().is_some_and(|o| {
        !o.contains_key("method")
            && o.contains_key("id")
            && (o.contains_key("result") || o.contains_key("error"))
    })
}

impl ClientPeer {
    /// A peer with no pending requests and the default timeout
    /// ([`DEFAULT_CLIENT_REQUEST_TIMEOUT`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// A peer whose server→client requests give up after `timeout`.
    pub fn with_timeout(timeout: Duration) -> Self {
        Self {
            inner: Arc::new(PeerInner {
                timeout,
                ..PeerInner::default()
            }),
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.inner
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A peer like [`with_timeout`](Self::with_timeout) whose request ids
    /// name `instance` (`srv-{instance}-{n}`).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn for_instance(timeout: Duration, instance: &str) -> Self {
        Self {
            inner: Arc::new(PeerInner {
                timeout,
                instance: Some(instance.to_owned()),
                ..PeerInner::default()
            }),
        }
    }

    /// Sends a server→client request through `sink` and waits for the
    /// client's response: its `result`, or its `error`. Fails with `-32603`
    /// when the peer is closed before the response arrives, and at once,
    /// without sending anything, once it is closed (stdin reached EOF, the
    /// legacy session ended). When the client has not answered within the
    /// peer's timeout, the request is cancelled (`notifications/cancelled`
    /// with reason `timeout` goes to the client) and fails with `-32603`
    /// "The client did not answer {method} within N ms".
    pub async fn request(
        &self,
        sink: &Sink,
        method: &str,
        params: Value,
    ) -> Result<Value, ErrorObject> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let id = match &self.inner.instance {
            Some(instance) => json!(format!("srv-{instance}-{id}")),
            None => json!(format!("srv-{id}")),
        };
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = self.pending();
            if pending.closed {
                return Err(errors::internal_error(format!(
                    "The client connection is closed; {method} was not sent"
                )));
            }
            pending.waiting.insert(key(&id), tx);
        }
        let guard = RemoveOnDrop {
            peer: self,
            key: key(&id),
        };
        sink(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let answer = tokio::time::timeout(self.inner.timeout, rx).await;
        drop(guard);
        match answer {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(errors::internal_error(format!(
                "The client connection closed before it answered {method}"
            ))),
            Err(_) => {
                sink(json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": { "requestId": id, "reason": "timeout" },
                }));
                Err(errors::internal_error(format!(
                    "The client did not answer {method} within {} ms",
                    self.inner.timeout.as_millis()
                )))
            }
        }
    }

    /// Hands a client's JSON-RPC response to the request waiting for it.
    /// Returns `false` when no request waits for that id.
    pub fn deliver(&self, message: &Value) -> bool {
        let Some(object) = message.as_object() else {
            return false;
        };
        let Some(id) = object.get("id") else {
            return false;
        };
        let Some(tx) = self.pending().waiting.remove(&key(id)) else {
            return false;
        };
        let answer = match (object.get("result"), object.get("error")) {
            (Some(result), _) => Ok(result.clone()),
            (None, Some(error)) => {
                Err(serde_json::from_value(error.clone()).unwrap_or_else(|_| {
                    errors::internal_error("The client answered with a malformed error")
                }))
            }
            (None, None) => Err(errors::internal_error(
                "The client answered with neither result nor error",
            )),
        };
        let _ = tx.send(answer);
        true
    }

    /// Fails every pending request and every later one (the connection or
    /// session ended).
    pub fn close(&self) {
        let mut pending = self.pending();
        pending.closed = true;
        pending.waiting.clear();
    }
}

struct RemoveOnDrop<'a> {
    peer: &'a ClientPeer,
    key: String,
}

impl Drop for RemoveOnDrop<'_> {
    fn drop(&mut self) {
        self.peer.pending().waiting.remove(&self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_closed_peer_fails_requests_at_once_and_sends_nothing() {
        let peer = ClientPeer::new();
        let sent = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&sent);
        let sink: Sink = Arc::new(move |message| log.lock().expect("log").push(message));
        peer.close();
        let error = peer
            .request(&sink, "sampling/createMessage", json!({}))
            .await
            .expect_err("closed");
        assert_eq!(error.code, -32603);
        assert!(
            error.message.contains("sampling/createMessage"),
            "{}",
            error.message
        );
        assert!(sent.lock().expect("log").is_empty());
    }

    #[tokio::test]
    async fn request_ids_name_the_instance_that_waits() {
        let peer = ClientPeer::for_instance(Duration::from_secs(5), "a1b2");
        let sent = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&sent);
        let sink: Sink = Arc::new(move |message| log.lock().expect("log").push(message));
        let waiting = tokio::spawn({
            let peer = peer.clone();
            async move { peer.request(&sink, "roots/list", json!({})).await }
        });
        let id = loop {
            if let Some(first) = sent.lock().expect("log").first() {
                break first["id"].clone();
            }
            tokio::task::yield_now().await;
        };
        assert_eq!(id, json!("srv-a1b2-1"));
        assert_eq!(instance_of(&id), Some("a1b2"));
        assert!(peer.deliver(&json!({"jsonrpc": "2.0", "id": id, "result": {"roots": []}})));
        assert_eq!(
            waiting.await.expect("joined").expect("answered"),
            json!({"roots": []})
        );
        for other in [json!("srv-1"), json!(7), json!("srv-a-b"), json!("x-a-1")] {
            assert_eq!(instance_of(&other), None, "{other}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_unanswered_request_times_out_and_is_cancelled() {
        let peer = ClientPeer::with_timeout(Duration::from_secs(5));
        let sent = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&sent);
        let sink: Sink = Arc::new(move |message| log.lock().expect("log").push(message));
        let error = peer
            .request(&sink, "elicitation/create", json!({}))
            .await
            .expect_err("no answer");
        assert_eq!(error.code, -32603);
        assert_eq!(
            error.message,
            "The client did not answer elicitation/create within 5000 ms"
        );
        let sent = sent.lock().expect("log");
        assert_eq!(sent.len(), 2, "{sent:?}");
        assert_eq!(sent[1]["method"], "notifications/cancelled");
        assert_eq!(sent[1]["params"]["requestId"], sent[0]["id"]);
        assert_eq!(sent[1]["params"]["reason"], "timeout");
        // A late answer finds nobody waiting.
        let late = json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {}});
        assert!(!peer.deliver(&late));
    }
}
