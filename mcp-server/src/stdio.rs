//! The stdio transport: newline-delimited JSON-RPC over stdin/stdout.
//!
//! ```no_run
//! # use mcp_server::McpServer;
//! # #[derive(McpServer)] #[mcp(name = "x", version = "1")] struct MyServer;
//! fn main() -> std::io::Result<()> {
//!     mcp_server::stdio::run(MyServer)
//! }
//! ```
//!
//! Behaviour:
//!
//! * **One message per line**, UTF-8 JSON; blank lines are skipped. Every
//!   line written to stdout is one valid JSON-RPC message; logs go to
//!   stderr (through `tracing`, whose subscriber the binary installs).
//! * **Concurrency**: each request runs in its own task; everything written
//!   (responses, the request's notifications) goes through one writer task,
//!   so lines never interleave.
//! * **Bad lines** get their error and the server lives on: `-32700` for
//!   bad JSON, `-32600` for a batch array or a bad envelope (no `id` in the
//!   error when it could not be read).
//! * **Line limit** ([`StdioConfig::max_line_bytes`], default 4 MiB): a
//!   longer line is answered with `-32600` "Message exceeds the N-byte line
//!   limit" (no `id`: the message was never parsed). **Recovery rule**: the
//!   server discards the bytes of the over-long line up to and including
//!   its next newline, without buffering them, and resumes with the
//!   following line. One over-long message costs only itself.
//! * **Cancellation**: `notifications/cancelled` with a `requestId` aborts
//!   that request's task; nothing further is written for it (not even a
//!   response). A `subscriptions/listen` request is ended the same way.
//! * **EOF**: the server stops reading, fails any server→client request
//!   still waiting for the client, ends listen streams, lets in-flight
//!   requests finish for up to [`StdioConfig::eof_grace`] (so
//!   `echo '…' | server` still prints its answers), aborts the rest, flushes
//!   stdout and returns.
//! * **Eras**: modern requests need no prior `server/discover` (each one is
//!   checked on its own `_meta`). A legacy `initialize` (without modern
//!   `_meta`) starts a legacy session scoped to this process; later legacy
//!   requests use it, and server-wide events reach it as legacy
//!   notifications. A second process (the TypeScript client probes with a
//!   short-lived one) shares nothing with the first.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Notify, mpsc};
use tokio::task::AbortHandle;

use crate::context::{LegacySession, MessageContext};
use crate::errors;
use crate::events::ServerEvents;
use crate::listen::legacy_notification;
use crate::peer::{ClientPeer, is_response};
use crate::server::McpServer;

/// The default line limit: 4 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// Settings of the stdio transport.
#[derive(Debug, Clone)]
pub struct StdioConfig {
    /// The longest accepted line in bytes, newline excluded (default
    /// [`DEFAULT_MAX_LINE_BYTES`]).
    pub max_line_bytes: usize,
    /// How long in-flight requests may run after stdin closes (default 5 s).
    pub eof_grace: Duration,
    /// Whether results carry `_meta["io.modelcontextprotocol/serverInfo"]`
    /// (default true).
    pub server_info_in_results: bool,
    /// The event hub listen streams and legacy sessions follow (default: a
    /// fresh one).
    pub events: ServerEvents,
}

impl Default for StdioConfig {
    fn default() -> Self {
        Self {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            eof_grace: Duration::from_secs(5),
            server_info_in_results: true,
            events: ServerEvents::new(),
        }
    }
}

/// Serves `server` on this process's stdin/stdout with the default
/// settings, on a new multi-threaded tokio runtime, until stdin closes.
pub fn run<S: McpServer + 'static>(server: S) -> io::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve(server))
}

/// Serves `server` on stdin/stdout with the default settings until stdin
/// closes.
pub async fn serve<S: McpServer + 'static>(server: S) -> io::Result<()> {
    serve_with(
        Arc::new(server),
        tokio::io::stdin(),
        tokio::io::stdout(),
        StdioConfig::default(),
    )
    .await
}

enum LineRead {
    Line,
    TooLong,
    Eof,
}

/// Reads one line into `buf` (newline excluded). A line longer than `max`
/// is skipped through its newline without being buffered.
async fn read_line_limited<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    let mut discarding = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if discarding {
                LineRead::TooLong
            } else if buf.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        match available.iter().position(|b| *b == b'\n') {
            Some(end) => {
                if !discarding && buf.len() + end <= max {
                    buf.extend_from_slice(&available[..end]);
                } else {
                    discarding = true;
                }
                reader.consume(end + 1);
                return Ok(if discarding {
                    LineRead::TooLong
                } else {
                    LineRead::Line
                });
            }
            None => {
                let len = available.len();
                if !discarding && buf.len() + len <= max {
                    buf.extend_from_slice(available);
                } else {
                    discarding = true;
                    buf.clear();
                }
                reader.consume(len);
            }
        }
    }
}

/// In-flight requests by id (several when ids repeat), with a sequence
/// number per task.
#[derive(Default)]
struct InFlight {
    tasks: HashMap<String, Vec<(u64, AbortHandle, bool)>>,
}

struct Shared {
    in_flight: Mutex<InFlight>,
    changed: Notify,
    out: mpsc::UnboundedSender<Value>,
}

impl Shared {
    fn in_flight(&self) -> std::sync::MutexGuard<'_, InFlight> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Removes task `seq`; true when it was still registered (not
    /// cancelled), in which case its response may be written.
    fn finish(&self, key: &str, seq: u64, body: Option<Value>) {
        let mut in_flight = self.in_flight();
        let Some(tasks) = in_flight.tasks.get_mut(key) else {
            return;
        };
        let Some(pos) = tasks.iter().position(|(s, _, _)| *s == seq) else {
            return;
        };
        tasks.remove(pos);
        if tasks.is_empty() {
            in_flight.tasks.remove(key);
        }
        if let Some(body) = body {
            let _ = self.out.send(body);
        }
        drop(in_flight);
        self.changed.notify_waiters();
    }

    fn cancel(&self, key: &str) {
        let removed = self.in_flight().tasks.remove(key);
        for (_, handle, _) in removed.into_iter().flatten() {
            handle.abort();
        }
        self.changed.notify_waiters();
    }

    fn abort_where(&self, pred: impl Fn(bool) -> bool) {
        let mut in_flight = self.in_flight();
        for tasks in in_flight.tasks.values_mut() {
            tasks.retain(|(_, handle, listen)| {
                if pred(*listen) {
                    handle.abort();
                    false
                } else {
                    true
                }
            });
        }
        in_flight.tasks.retain(|_, tasks| !tasks.is_empty());
        drop(in_flight);
        self.changed.notify_waiters();
    }

    fn is_idle(&self) -> bool {
        self.in_flight().tasks.is_empty()
    }
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

/// Serves `server` on any reader/writer pair (stdin/stdout, an in-memory
/// duplex in tests) until the reader reaches EOF. Returns write errors
/// (a closed stdout) and read errors.
pub async fn serve_with<S, R, W>(
    server: Arc<S>,
    reader: R,
    writer: W,
    config: StdioConfig,
) -> io::Result<()>
where
    S: McpServer + 'static,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    crate::server::check_catalogue(&*server)?;
    let (out, rx) = mpsc::unbounded_channel::<Value>();
    let writer_task = tokio::spawn(write_loop(writer, rx));
    let shared = Arc::new(Shared {
        in_flight: Mutex::default(),
        changed: Notify::new(),
        out,
    });
    let peer = ClientPeer::new();
    let session: Arc<Mutex<Option<LegacySession>>> = Arc::default();
    let mut legacy_forwarder: Option<tokio::task::JoinHandle<()>> = None;
    let seq = AtomicU64::new(0);
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    let read_result = loop {
        line.clear();
        match read_line_limited(&mut reader, &mut line, config.max_line_bytes).await {
            Err(e) => break Err(e),
            Ok(LineRead::Eof) => break Ok(()),
            Ok(LineRead::TooLong) => {
                tracing::warn!(limit = config.max_line_bytes, "skipped an over-long line");
                let error = errors::invalid_request(format!(
                    "Message exceeds the {}-byte line limit; the line was skipped",
                    config.max_line_bytes
                ));
                let _ = shared.out.send(json!({ "jsonrpc": "2.0", "error": error }));
                continue;
            }
            Ok(LineRead::Line) => {}
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let message: Value = match serde_json::from_slice(&line) {
            Ok(message) => message,
            Err(e) => {
                tracing::debug!(error = %e, "unparsable line");
                let _ = shared
                    .out
                    .send(json!({ "jsonrpc": "2.0", "error": errors::parse_error() }));
                continue;
            }
        };
        if is_response(&message) {
            if !peer.deliver(&message) {
                tracing::debug!("response to no pending request; ignored");
            }
            continue;
        }
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let id = message.get("id").cloned();
        if id.is_none() && method.is_some() {
            if method.as_deref() == Some("notifications/cancelled")
                && let Some(request_id) = message.pointer("/params/requestId")
            {
                tracing::debug!(%request_id, "cancelled by the client");
                shared.cancel(&id_key(request_id));
            }
            // Other notifications are never answered.
            continue;
        }
        let current_session = session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let sink_out = shared.out.clone();
        let mut ctx = MessageContext::stdio()
            .with_sink(move |message| {
                let _ = sink_out.send(message);
            })
            .with_peer(peer.clone())
            .with_events(config.events.clone())
            .with_server_info_in_results(config.server_info_in_results);
        if let Some(current) = current_session {
            ctx = ctx.with_legacy_session(current);
        }
        let Some(id) = id else {
            // Not a request and not a notification: the entry point
            // answers with the envelope error.
            let outcome = server.handle_value(message, &ctx).await;
            if let Some(body) = outcome.body {
                let _ = shared.out.send(body);
            }
            continue;
        };
        if method.as_deref() == Some("initialize") {
            // Handled inline, so the session exists before the next line.
            let outcome = server.handle_value(message, &ctx).await;
            if let Some(new_session) = outcome.new_legacy_session {
                tracing::info!(version = %new_session.protocol_version, "legacy session started");
                if let Some(old) = legacy_forwarder.take() {
                    old.abort();
                }
                legacy_forwarder = Some(tokio::spawn(forward_legacy_events::<S>(
                    config.events.clone(),
                    new_session.clone(),
                    shared.out.clone(),
                )));
                *session.lock().unwrap_or_else(PoisonError::into_inner) = Some(new_session);
            }
            if let Some(body) = outcome.body {
                let _ = shared.out.send(body);
            }
            continue;
        }
        let key = id_key(&id);
        let task_seq = seq.fetch_add(1, Ordering::Relaxed);
        let is_listen = method.as_deref() == Some("subscriptions/listen");
        let task_server = Arc::clone(&server);
        let task_shared = Arc::clone(&shared);
        let task_key = key.clone();
        let mut in_flight = shared.in_flight();
        let handle = tokio::spawn(async move {
            let outcome = task_server.handle_value(message, &ctx).await;
            task_shared.finish(&task_key, task_seq, outcome.body);
        });
        in_flight
            .tasks
            .entry(key)
            .or_default()
            .push((task_seq, handle.abort_handle(), is_listen));
        drop(in_flight);
    };
    // EOF (or a read error): wind down.
    peer.close();
    shared.abort_where(|listen| listen);
    if let Some(forwarder) = legacy_forwarder {
        forwarder.abort();
    }
    let wait_idle = async {
        loop {
            let changed = shared.changed.notified();
            if shared.is_idle() {
                break;
            }
            changed.await;
        }
    };
    if tokio::time::timeout(config.eof_grace, wait_idle)
        .await
        .is_err()
    {
        tracing::warn!("requests still running after stdin closed; aborting them");
        shared.abort_where(|_| true);
    }
    drop(shared);
    let write_result = writer_task
        .await
        .map_err(|e| io::Error::other(format!("the stdout writer failed: {e}")))?;
    read_result.and(write_result)
}

/// Writes each message as one line, flushing when the queue is empty.
async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::UnboundedReceiver<Value>,
) -> io::Result<()> {
    while let Some(message) = rx.recv().await {
        let mut bytes = serde_json::to_vec(&message).map_err(io::Error::other)?;
        bytes.push(b'\n');
        writer.write_all(&bytes).await?;
        if rx.is_empty() {
            writer.flush().await?;
        }
    }
    writer.flush().await
}

/// Delivers server-wide events to the process's legacy session.
async fn forward_legacy_events<S: McpServer>(
    events: ServerEvents,
    session: LegacySession,
    out: mpsc::UnboundedSender<Value>,
) {
    let mut rx = events.subscribe();
    loop {
        match rx.recv().await {
            Ok(event) => {
                if let Some(message) = legacy_notification(S::declaration(), &session, &event)
                    && out.send(message).is_err()
                {
                    return;
                }
            }
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        }
    }
}
