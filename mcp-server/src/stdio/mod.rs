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
//! * **Backpressure** ([`StdioConfig::max_in_flight`], default
//!   [`DEFAULT_MAX_IN_FLIGHT`]): a request holds a slot from the moment it
//!   is read until its response is written to stdout. With every slot taken
//!   the server stops reading requests, so memory stays bounded however
//!   deep the client pipelines. While it waits it still reads ahead one
//!   line at a time to take client responses and notifications (a request
//!   waiting on the client, as a legacy server→client request does, must
//!   see the answer), queueing the requests it meets for the next free
//!   slots, up to 64 of them (8 MiB); a client that pipelines more than
//!   that before answering a server→client request stalls itself.
//!   `subscriptions/listen` streams take no slot.
//! * **Output backlog** ([`StdioConfig::max_output_backlog_bytes`], default
//!   [`DEFAULT_MAX_OUTPUT_BACKLOG_BYTES`]): a client that stops reading
//!   stdout stops the server reading stdin once that much waits to be
//!   written; past four times it, notifications are dropped. Memory stays
//!   bounded by the settings, whatever the client does.
//! * **Server→client requests** (legacy sampling, elicitation, roots) give
//!   up after [`StdioConfig::client_request_timeout`]; after EOF they fail
//!   at once (see [`ClientPeer::request`](crate::ClientPeer::request)).
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
//!   still waiting for the client, ends listen streams, lets every
//!   in-flight request finish and write its answer (so `echo '…' | server`
//!   prints all of them; [`StdioConfig::eof_grace`] bounds the wait when
//!   set), flushes stdout and returns.
//! * **Eras**: modern requests need no prior `server/discover` (each one is
//!   checked on its own `_meta`). A legacy `initialize` (without modern
//!   `_meta`) starts a legacy session scoped to this process; later legacy
//!   requests use it, and server-wide events reach it as legacy
//!   notifications. A second process (the TypeScript client probes with a
//!   short-lived one) shares nothing with the first.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::AbortHandle;

use crate::dispatch::handle_parsed;
use crate::features::listen::legacy_notification;
use crate::model::context::{LegacySession, MessageContext};
use crate::model::peer::{ClientPeer, is_response};
use crate::model::server::McpServer;
use crate::state::events::ServerEvents;
use crate::wire::errors;
use crate::wire::message::{Parsed, parse, request_id};

/// The default line limit: 4 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// The default number of requests in flight (read, not yet answered on
/// stdout): 256, enough to keep every core busy with I/O-bound handlers
/// while bounding what a deep pipeline can hold in memory.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 256;

/// Settings of the stdio transport.
#[derive(Debug, Clone)]
pub struct StdioConfig {
    /// The longest accepted line in bytes, newline excluded (default
    /// [`DEFAULT_MAX_LINE_BYTES`]).
    pub max_line_bytes: usize,
    /// How many requests may be in flight, from being read until their
    /// response is written (default [`DEFAULT_MAX_IN_FLIGHT`]; 0 counts as 1).
    pub max_in_flight: usize,
    /// How long in-flight requests may run after stdin closes before they
    /// are aborted; `None` (the default) waits for every answer.
    pub eof_grace: Option<Duration>,
    /// Whether results carry `_meta["io.modelcontextprotocol/serverInfo"]`
    /// (default true).
    pub server_info_in_results: bool,
    /// The event hub listen streams and legacy sessions follow (default: a
    /// fresh one).
    pub events: ServerEvents,
    /// How long a server→client request (legacy sampling, elicitation,
    /// roots) waits for the client (default
    /// [`DEFAULT_CLIENT_REQUEST_TIMEOUT`](crate::DEFAULT_CLIENT_REQUEST_TIMEOUT));
    /// see [`ClientPeer::request`] for the error the handler then gets.
    pub client_request_timeout: Duration,
    /// How many bytes may wait for stdout (default
    /// [`DEFAULT_MAX_OUTPUT_BACKLOG_BYTES`]). Past it the server stops
    /// reading stdin until the client reads; past four times it, the
    /// requests' notifications are dropped (with one warning). Answers are
    /// always queued: at most [`max_in_flight`](Self::max_in_flight) of them.
    pub max_output_backlog_bytes: usize,
}

/// The default bound on bytes waiting for stdout: 8 MiB.
pub const DEFAULT_MAX_OUTPUT_BACKLOG_BYTES: usize = 8 * 1024 * 1024;

impl Default for StdioConfig {
    fn default() -> Self {
        Self {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            eof_grace: None,
            server_info_in_results: true,
            events: ServerEvents::new(),
            client_request_timeout: crate::model::peer::DEFAULT_CLIENT_REQUEST_TIMEOUT,
            max_output_backlog_bytes: DEFAULT_MAX_OUTPUT_BACKLOG_BYTES,
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

/// A serialized message for stdout (without its newline), with the slot of
/// the request it answers (freed once the line is written).
type Output = (Vec<u8>, Option<OwnedSemaphorePermit>);

struct Shared {
    in_flight: Mutex<InFlight>,
    changed: Notify,
    out: mpsc::UnboundedSender<Output>,
    backlog: Arc<Backlog>,
}

/// The bytes queued for stdout and not yet written. Above the limit the
/// server stops reading stdin (a client that does not read gets no more
/// answers queued for it); above four times the limit, notifications are
/// dropped rather than queued (answers never are: their number is bounded
/// by the in-flight slots).
struct Backlog {
    bytes: AtomicUsize,
    limit: usize,
    drained: Notify,
    dropped: AtomicU64,
}

impl Backlog {
    fn new(limit: usize) -> Self {
        Self {
            bytes: AtomicUsize::new(0),
            limit: limit.max(1),
            drained: Notify::new(),
            dropped: AtomicU64::new(0),
        }
    }

    fn over(&self) -> bool {
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
    async fn below_limit(&self) {
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

impl Shared {
    fn in_flight(&self) -> std::sync::MutexGuard<'_, InFlight> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Removes task `seq`; true when it was still registered (not
    /// cancelled), in which case its response may be written.
    fn finish(
        &self,
        key: &str,
        seq: u64,
        body: Option<Vec<u8>>,
        slot: Option<OwnedSemaphorePermit>,
    ) {
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
            self.send(body, slot);
        }
        drop(in_flight);
        self.changed.notify_waiters();
    }

    fn send(&self, message: Vec<u8>, slot: Option<OwnedSemaphorePermit>) {
        self.backlog.added(message.len() + 1);
        if self.out.send((message, slot)).is_err() {
            self.backlog.bytes.store(0, Ordering::Release);
        }
    }

    fn write(&self, message: Vec<u8>) {
        self.send(message, None);
    }

    /// A notification (or a server→client request) for stdout, unless the
    /// backlog is past its hard bound.
    fn notify(&self, message: &Value) {
        if self.backlog.admits_notification() {
            self.write(serde_json::to_vec(message).unwrap_or_default());
        }
    }

    fn write_json(&self, message: &Value) {
        self.write(serde_json::to_vec(message).unwrap_or_default());
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

/// The in-flight key of a message with an `id` (its JSON text, as a
/// `notifications/cancelled` names it).
fn message_key(message: &Parsed) -> Option<String> {
    match message {
        Parsed::Modern(request) => serde_json::to_string(request_id(request)).ok(),
        Parsed::Json(message) => message.get("id").map(id_key),
        Parsed::Invalid => None,
    }
}

/// What the line reader hands to the dispatcher.
enum Incoming {
    Line(Vec<u8>),
    TooLong,
    End(io::Result<()>),
}

/// Reads lines into a channel of one: reading stops while the dispatcher
/// is not taking lines, and a line is never lost when the dispatcher
/// stops waiting for one.
async fn read_lines<R: AsyncRead + Unpin>(reader: R, max: usize, tx: mpsc::Sender<Incoming>) {
    let mut reader = BufReader::new(reader);
    loop {
        let mut line = Vec::new();
        let incoming = match read_line_limited(&mut reader, &mut line, max).await {
            Err(e) => Incoming::End(Err(e)),
            Ok(LineRead::Eof) => Incoming::End(Ok(())),
            Ok(LineRead::TooLong) => Incoming::TooLong,
            Ok(LineRead::Line) => Incoming::Line(line),
        };
        let end = matches!(incoming, Incoming::End(_));
        if tx.send(incoming).await.is_err() || end {
            return;
        }
    }
}

/// Lines that need no slot: bad lines (answered at once), over-long ones,
/// client responses (to server→client requests) and notifications
/// (cancellation). Returns the parsed message when it is anything else.
fn triage(line: &[u8], shared: &Shared, peer: &ClientPeer) -> Option<Parsed> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let message = match parse(line) {
        modern @ Parsed::Modern(_) => return Some(modern),
        Parsed::Json(message) => message,
        Parsed::Invalid => {
            tracing::debug!("unparsable line");
            shared.write_json(&json!({ "jsonrpc": "2.0", "error": errors::parse_error() }));
            return None;
        }
    };
    if is_response(&message) {
        if !peer.deliver(&message) {
            tracing::debug!("response to no pending request; ignored");
        }
        return None;
    }
    if message.get("id").is_none() && message.get("method").and_then(Value::as_str).is_some() {
        if message.get("method").and_then(Value::as_str) == Some("notifications/cancelled")
            && let Some(request_id) = message.pointer("/params/requestId")
        {
            tracing::debug!(%request_id, "cancelled by the client");
            shared.cancel(&id_key(request_id));
        }
        // Other notifications are never answered.
        return None;
    }
    Some(Parsed::Json(message))
}

fn too_long(shared: &Shared, max: usize) {
    tracing::warn!(limit = max, "skipped an over-long line");
    let error = errors::invalid_request(format!(
        "Message exceeds the {max}-byte line limit; the line was skipped"
    ));
    shared.write_json(&json!({ "jsonrpc": "2.0", "error": error }));
}

/// How many requests may wait, read ahead, while every slot is taken (and
/// how many bytes of them): a request in flight may be waiting for a
/// client response sent after further requests, so reading must go on
/// past them, in bounded memory.
const HELD_REQUESTS: usize = 64;
const HELD_BYTES: usize = 8 * 1024 * 1024;

/// Waits for a free slot. Meanwhile it keeps taking lines that need none
/// (a request in flight may be waiting for a client response) and queues
/// the requests it meets in `held`, up to [`HELD_REQUESTS`] /
/// [`HELD_BYTES`] or the end of input, after which it only waits.
async fn free_slot(
    slots: &Arc<Semaphore>,
    lines: &mut mpsc::Receiver<Incoming>,
    held: &mut VecDeque<Incoming>,
    shared: &Shared,
    peer: &ClientPeer,
    max_line_bytes: usize,
) -> Option<OwnedSemaphorePermit> {
    loop {
        let held_bytes: usize = held
            .iter()
            .map(|h| match h {
                Incoming::Line(line) => line.len(),
                _ => 0,
            })
            .sum();
        let ended = matches!(held.back(), Some(Incoming::End(_)));
        if ended || held.len() >= HELD_REQUESTS || held_bytes >= HELD_BYTES {
            return Arc::clone(slots).acquire_owned().await.ok();
        }
        if shared.backlog.over() {
            // Reading on would only queue more for a client that does not read.
            tokio::select! {
                biased;
                slot = Arc::clone(slots).acquire_owned() => return slot.ok(),
                () = shared.backlog.below_limit() => continue,
            }
        }
        tokio::select! {
            biased;
            slot = Arc::clone(slots).acquire_owned() => return slot.ok(),
            incoming = lines.recv() => match incoming {
                Some(Incoming::Line(line)) => {
                    if triage(&line, shared, peer).is_some() {
                        held.push_back(Incoming::Line(line));
                    }
                }
                Some(Incoming::TooLong) => too_long(shared, max_line_bytes),
                Some(end @ Incoming::End(_)) => held.push_back(end),
                None => held.push_back(Incoming::End(Ok(()))),
            },
        }
    }
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
    crate::model::server::check_catalogue(&*server)?;
    let (out, rx) = mpsc::unbounded_channel::<Output>();
    let backlog = Arc::new(Backlog::new(config.max_output_backlog_bytes));
    let writer_task = tokio::spawn(write_loop(writer, rx, Arc::clone(&backlog)));
    let shared = Arc::new(Shared {
        in_flight: Mutex::default(),
        changed: Notify::new(),
        out,
        backlog,
    });
    let peer = ClientPeer::with_timeout(config.client_request_timeout);
    let slots = Arc::new(Semaphore::new(config.max_in_flight.max(1)));
    let (lines_tx, mut lines) = mpsc::channel::<Incoming>(1);
    let reading = read_lines(reader, config.max_line_bytes, lines_tx);
    let dispatching = async {
        let session: Arc<Mutex<Option<LegacySession>>> = Arc::default();
        let mut legacy_forwarder: Option<tokio::task::JoinHandle<()>> = None;
        let seq = AtomicU64::new(0);
        let mut held: VecDeque<Incoming> = VecDeque::new();
        let read_result = loop {
            shared.backlog.below_limit().await;
            let incoming = match held.pop_front() {
                Some(incoming) => incoming,
                None => lines.recv().await.unwrap_or(Incoming::End(Ok(()))),
            };
            let line = match incoming {
                Incoming::End(result) => break result,
                Incoming::TooLong => {
                    too_long(&shared, config.max_line_bytes);
                    continue;
                }
                Incoming::Line(line) => line,
            };
            let Some(message) = triage(&line, &shared, &peer) else {
                continue;
            };
            drop(line);
            let method = message.method().map(str::to_owned);
            let current_session = session
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            let sink_shared = Arc::clone(&shared);
            let mut ctx = MessageContext::stdio()
                .with_sink(move |message| sink_shared.notify(&message))
                .with_peer(peer.clone())
                .with_events(config.events.clone())
                .with_server_info_in_results(config.server_info_in_results);
            if let Some(current) = current_session {
                ctx = ctx.with_legacy_session(current);
            }
            let Some(key) = message_key(&message) else {
                // Not a request and not a notification: the entry point
                // answers with the envelope error.
                let outcome = handle_parsed(&*server, Some(&server), message, &ctx).await;
                if let Some(body) = outcome.body {
                    shared.write(body);
                }
                continue;
            };
            if method.as_deref() == Some("initialize") {
                // Handled inline, so the session exists before the next line.
                let outcome = handle_parsed(&*server, Some(&server), message, &ctx).await;
                if let Some(new_session) = outcome.new_legacy_session {
                    tracing::info!(version = %new_session.protocol_version, "legacy session started");
                    if let Some(old) = legacy_forwarder.take() {
                        old.abort();
                    }
                    legacy_forwarder = Some(tokio::spawn(forward_legacy_events::<S>(
                        config.events.clone(),
                        new_session.clone(),
                        Arc::clone(&shared),
                    )));
                    *session.lock().unwrap_or_else(PoisonError::into_inner) = Some(new_session);
                }
                if let Some(body) = outcome.body {
                    shared.write(body);
                }
                continue;
            }
            let is_listen = method.as_deref() == Some("subscriptions/listen");
            // A listen stream lives until cancelled: it takes no slot.
            let slot = if is_listen {
                None
            } else {
                free_slot(
                    &slots,
                    &mut lines,
                    &mut held,
                    &shared,
                    &peer,
                    config.max_line_bytes,
                )
                .await
            };
            let task_seq = seq.fetch_add(1, Ordering::Relaxed);
            let task_server = Arc::clone(&server);
            let task_shared = Arc::clone(&shared);
            let task_key = key.clone();
            let mut in_flight = shared.in_flight();
            let handle = tokio::spawn(async move {
                let outcome = handle_parsed(&*task_server, Some(&task_server), message, &ctx).await;
                task_shared.finish(&task_key, task_seq, outcome.body, slot);
            });
            in_flight.tasks.entry(key).or_default().push((
                task_seq,
                handle.abort_handle(),
                is_listen,
            ));
            drop(in_flight);
        };
        (read_result, legacy_forwarder)
    };
    // The reader ends at EOF; the dispatcher when it has taken the end.
    let ((), (read_result, legacy_forwarder)) = tokio::join!(reading, dispatching);
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
    match config.eof_grace {
        None => wait_idle.await,
        Some(grace) => {
            if tokio::time::timeout(grace, wait_idle).await.is_err() {
                tracing::warn!("requests still running after stdin closed; aborting them");
                shared.abort_where(|_| true);
            }
        }
    }
    drop(shared);
    let write_result = writer_task
        .await
        .map_err(|e| io::Error::other(format!("the stdout writer failed: {e}")))?;
    read_result.and(write_result)
}

/// Writes each message as one line through a buffer, flushing when the
/// queue is empty (one write for a burst of answers).
async fn write_loop<W: AsyncWrite + Unpin>(
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

/// Delivers server-wide events to the process's legacy session.
async fn forward_legacy_events<S: McpServer>(
    events: ServerEvents,
    session: LegacySession,
    shared: Arc<Shared>,
) {
    let mut rx = events.subscribe();
    loop {
        match rx.recv().await {
            Ok(event) => {
                if let Some(message) = legacy_notification(S::declaration(), &session, &event) {
                    shared.notify(&message);
                }
            }
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        }
    }
}
