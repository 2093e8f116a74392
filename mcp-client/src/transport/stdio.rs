//! stdio: the server is a child process; each message is one line of JSON
//! on its stdin/stdout; its stderr passes through to ours.
//!
//! A reader task routes responses to the waiting request by `id` (compared
//! exactly: `1` and `"1"` differ), so any number of requests can be in
//! flight on one pipe. Notifications go to the [`Inbound`] sink; server
//! requests are answered through it on their own task (without a sink:
//! `ping` gets `{}`, anything else `-32601`), so a legacy server never
//! waits on us and a slow handler never stalls the reader.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use crate::error::{Error, Result};
use crate::transport::{Inbound, InboundSlot, answer, reply_message};

type Writer = Arc<tokio::sync::Mutex<Box<dyn AsyncWrite + Send + Unpin>>>;
type Pending = Arc<Mutex<HashMap<String, Waiting>>>;

/// A request waiting for its response.
struct Waiting {
    respond: oneshot::Sender<Value>,
    /// The call tag it was sent under ([`crate::handler::call_tag`]).
    tag: Option<u64>,
    /// Whether a notification naming no stream may be this request's:
    /// any request but a listen stream, whose notifications carry their
    /// `subscriptionId`.
    owns_notifications: bool,
}

impl Waiting {
    fn new(message: &Value, respond: oneshot::Sender<Value>) -> Self {
        let listen = message.get("method").and_then(Value::as_str) == Some("subscriptions/listen");
        Self {
            respond,
            tag: crate::handler::call_tag(),
            owns_notifications: !listen,
        }
    }
}

/// The call tag of the request a notification belongs to, when exactly
/// one request waits (a listen stream's notifications carry a
/// `subscriptionId` and are never a request's).
///
/// A modern server over stdio writes notifications only for a request or
/// on a listen stream, so the lone waiting request's is exact. A legacy
/// server names no request in its notifications (a call's log messages
/// included), and may also write some outside any request: those, and any
/// server's for a request after answering it or after we gave it up, are
/// given to the request waiting alone then. With two or more waiting
/// nothing can tell whose a notification is, and it gets no tag.
fn owner_tag(pending: &Pending, notification: &Value) -> Option<u64> {
    let params = notification.get("params");
    if params
        .and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1subscriptionId"))
        .is_some()
    {
        return None;
    }
    let pending = lock(pending);
    let mut owners = pending.values().filter(|w| w.owns_notifications);
    match (owners.next(), owners.next()) {
        (Some(only), None) => only.tag,
        _ => None,
    }
}

/// A connection to a stdio server.
pub struct StdioTransport {
    writer: Writer,
    pending: Pending,
    /// Why the connection is gone, once it is.
    closed: Arc<watch::Sender<Option<String>>>,
    reader: JoinHandle<()>,
    inbound: InboundSlot,
    child: Mutex<Option<Child>>,
    pid: Option<u32>,
    label: String,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl std::fmt::Debug for StdioTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioTransport")
            .field("label", &self.label)
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

/// How `program args…` is named in errors.
pub(crate) fn label_of(program: &str, args: &[String]) -> String {
    std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

impl StdioTransport {
    /// Starts `program args…` and connects to its stdin/stdout.
    pub fn spawn(program: &str, args: &[String]) -> Result<Self> {
        let mut command = Command::new(program);
        command.args(args);
        Self::spawn_command(command, label_of(program, args))
    }

    /// Starts `command` as it is set up (its environment, its working
    /// directory), with its stdin and stdout piped to us and its stderr
    /// inherited, and connects to it; `label` names it in errors.
    pub fn spawn_command(mut command: Command, label: String) -> Result<Self> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| Error::Spawn {
                command: label.clone(),
                source,
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::Closed {
                detail: format!("`{label}` has no stdin/stdout pipe"),
            });
        };
        let pid = child.id();
        let mut t = Self::from_streams(stdout, stdin, label);
        t.child = Mutex::new(Some(child));
        t.pid = pid;
        Ok(t)
    }

    /// Connects to a server through any pair of streams (tests use an
    /// in-memory pipe). `label` names the server in errors.
    pub fn from_streams(
        reader: impl AsyncRead + Send + Unpin + 'static,
        writer: impl AsyncWrite + Send + Unpin + 'static,
        label: impl Into<String>,
    ) -> Self {
        let writer: Writer = Arc::new(tokio::sync::Mutex::new(Box::new(writer)));
        let pending: Pending = Arc::default();
        let closed = Arc::new(watch::Sender::new(None));
        let inbound = InboundSlot::default();
        let reader = tokio::spawn(read_loop(
            reader,
            writer.clone(),
            pending.clone(),
            closed.clone(),
            inbound.clone(),
        ));
        Self {
            writer,
            pending,
            closed,
            reader,
            inbound,
            child: Mutex::new(None),
            pid: None,
            label: label.into(),
        }
    }

    /// The server's process id, when this transport spawned it.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Sets where server requests and notifications go (once; later calls
    /// are ignored).
    pub fn set_inbound(&self, sink: Arc<dyn Inbound>) {
        let _ = self.inbound.set(sink);
    }

    /// Stops waiting for the response to the request with `id` (its future
    /// was dropped); a late answer is then discarded.
    pub fn forget(&self, id: &Value) {
        lock(&self.pending).remove(&id.to_string());
    }

    /// The command line (or label) of the server.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Sends a request and waits up to `timeout` for the response message.
    pub async fn request(&self, message: &Value, timeout: Duration) -> Result<Value> {
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        let key = message.get("id").map(Value::to_string).unwrap_or_default();
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(key.clone(), Waiting::new(message, tx));
        if let Err(e) = self.send(message).await {
            lock(&self.pending).remove(&key);
            return Err(e);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(_)) => Err(self.closed_error()),
            Err(_) => {
                lock(&self.pending).remove(&key);
                Err(Error::Timeout {
                    method,
                    after: timeout,
                })
            }
        }
    }

    /// Sends a notification (or any message) without waiting.
    pub async fn send(&self, message: &Value) -> Result<()> {
        if self.closed.borrow().is_some() {
            return Err(self.closed_error());
        }
        let mut line = mcp_era_types::json::to_vec(message).map_err(|e| Error::InvalidMessage {
            detail: e.to_string(),
        })?;
        line.push(b'\n');
        let mut w = self.writer.lock().await;
        let written = async {
            w.write_all(&line).await?;
            w.flush().await
        }
        .await;
        written.map_err(|e| match e.kind() {
            std::io::ErrorKind::BrokenPipe => self.closed_error(),
            _ => Error::Io(e),
        })
    }

    fn closed_error(&self) -> Error {
        let why = self
            .closed
            .borrow()
            .clone()
            .unwrap_or_else(|| "the connection is closed".to_owned());
        Error::Closed {
            detail: format!("`{}`: {why}", self.label),
        }
    }

    /// Waits until the server's stdout is closed (it exited, was killed or
    /// closed it), and says so.
    pub async fn closed(&self) -> String {
        let mut closed = self.closed.subscribe();
        match closed.wait_for(Option::is_some).await {
            Ok(why) => why.clone().unwrap_or_default(),
            Err(_) => "the connection is closed".to_owned(),
        }
    }

    /// Closes stdin, gives the server `grace` to exit, then kills it.
    pub async fn close(&self, grace: Duration) {
        {
            let mut w = self.writer.lock().await;
            let _ = w.shutdown().await;
            // Dropping the pipe is what closes it: the server sees EOF.
            *w = Box::new(tokio::io::sink());
        }
        let child = lock(&self.child).take();
        if let Some(mut child) = child
            && tokio::time::timeout(grace, child.wait()).await.is_err()
        {
            let _ = child.kill().await;
        }
        self.reader.abort();
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

async fn read_loop(
    reader: impl AsyncRead + Unpin,
    writer: Writer,
    pending: Pending,
    closed: Arc<watch::Sender<Option<String>>>,
    inbound: InboundSlot,
) {
    let mut lines = BufReader::new(reader).lines();
    let why = loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break "the server closed its stdout".to_owned(),
            Err(e) => break format!("reading the server's stdout failed: {e}"),
        };
        let Ok(message) = serde_json::from_str::<Value>(line.trim()) else {
            continue; // Not JSON: stdout noise from a misbehaving server.
        };
        let id = message.get("id").filter(|id| !id.is_null());
        match (message.get("method"), id) {
            (Some(method), Some(id)) => {
                // A server-to-client request: answered on its own task so
                // the reader keeps routing responses meanwhile.
                let method = method.as_str().unwrap_or_default().to_owned();
                let params = message.get("params").cloned().unwrap_or(Value::Null);
                let (id, writer, inbound) = (id.clone(), writer.clone(), inbound.clone());
                tokio::spawn(async move {
                    let outcome = answer(&inbound, &method, params).await;
                    let mut bytes = reply_message(&id, outcome).to_string().into_bytes();
                    bytes.push(b'\n');
                    let mut w = writer.lock().await;
                    let _ = w.write_all(&bytes).await;
                    let _ = w.flush().await;
                });
            }
            (Some(_), None) => {
                if let Some(sink) = inbound.get() {
                    let tag = owner_tag(&pending, &message);
                    crate::handler::under_call_tag(tag, || sink.notification(message));
                }
            }
            (None, Some(id)) => {
                if let Some(waiting) = lock(&pending).remove(&id.to_string()) {
                    let _ = waiting.respond.send(message);
                }
            }
            (None, None) => {} // An error without an id: nobody to give it to.
        }
    };
    closed.send_replace(Some(why));
    lock(&pending).clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wait(pending: &Pending, id: u64, message: Value, tag: u64) {
        let (respond, _) = oneshot::channel();
        let waiting = crate::handler::under_call_tag(Some(tag), || Waiting::new(&message, respond));
        lock(pending).insert(id.to_string(), waiting);
    }

    fn modern(method: &str) -> Value {
        json!({"method": method, "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})
    }

    #[test]
    fn a_notification_is_the_only_waiting_requests() {
        let pending = Pending::default();
        let log =
            json!({"method": "notifications/message", "params": {"level": "info", "data": "x"}});
        assert_eq!(owner_tag(&pending, &log), None);
        wait(&pending, 1, modern("subscriptions/listen"), 1);
        assert_eq!(owner_tag(&pending, &log), None, "a listen stream only");
        // A legacy server's log names no request: the lone one is its.
        let legacy = json!({"method": "tools/call", "params": {}});
        wait(&pending, 2, legacy.clone(), 2);
        assert_eq!(
            owner_tag(&pending, &log),
            Some(2),
            "a listen stream and a legacy request"
        );
        let listened = json!({"method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 1}}});
        assert_eq!(owner_tag(&pending, &listened), None);
        wait(&pending, 3, legacy, 3);
        assert_eq!(
            owner_tag(&pending, &log),
            None,
            "two legacy requests could own it"
        );
        lock(&pending).remove("2");
        lock(&pending).remove("3");
        wait(&pending, 4, modern("tools/call"), 4);
        assert_eq!(owner_tag(&pending, &log), Some(4));
        wait(&pending, 5, modern("prompts/get"), 5);
        assert_eq!(owner_tag(&pending, &log), None, "two could own it");
    }
}
