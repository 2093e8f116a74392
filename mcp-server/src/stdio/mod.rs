//! The stdio transport: newline-delimited JSON-RPC over stdin/stdout.
//!
//! ```no_run
//! # use mcp_era_server::McpServer;
//! # #[derive(McpServer)] #[mcp(name = "x", version = "1")] struct MyServer;
//! fn main() -> std::io::Result<()> {
//!     mcp_era_server::stdio::run(MyServer)
//! }
//! ```
//!
//! Behaviour:
//!
//! * **One message per line**, UTF-8 JSON; blank lines are skipped. Every
//!   line written to stdout is one valid JSON-RPC message; logs go to
//!   stderr (through `tracing`, whose subscriber the binary installs).
//! * **Concurrency**: a request is polled once as it is read; one that
//!   answers at once is answered there, one that waits (on I/O, a timer,
//!   the client) goes on in its own task, so requests that wait never hold
//!   up the next lines. A handler that computes for long without waiting
//!   holds up reading meanwhile, as it would hold a runtime thread:
//!   run such work with `spawn_blocking`. Everything written (responses,
//!   the request's notifications) goes through one queue and one writer
//!   (a thread of its own for the process's stdout), so lines never
//!   interleave; answers to lines already read gather and go out in one
//!   write once the server is about to wait.
//! * **Backpressure** ([`StdioConfig::max_in_flight`], default
//!   [`DEFAULT_MAX_IN_FLIGHT`]): a request holds a slot from the moment it
//!   is read until its response is queued for stdout. With every slot taken
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
//!   at once (see [`ClientPeer::request`](crate::model::peer::ClientPeer::request)).
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

mod lines;
mod output;
mod slots;

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::dispatch::handle_parsed;
use crate::model::context::{LegacySession, MessageContext};
use crate::model::outcome::Outcome;
use crate::model::peer::ClientPeer;
use crate::model::server::McpServer;
use crate::runtime::connection::{Connection, Kind, Message, Request, cancelled_key, classify};
use crate::runtime::in_flight::id_key;
use crate::runtime::legacy_events::forward_legacy_events;
use crate::state::events::ServerEvents;
use crate::wire::errors;
use crate::wire::message::Parsed;
use lines::{Incoming, LineReader};
use output::{Queue, Shared, write_loop, write_thread};
use slots::{Slot, Slots};

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
    /// [`DEFAULT_CLIENT_REQUEST_TIMEOUT`](crate::model::peer::DEFAULT_CLIENT_REQUEST_TIMEOUT));
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
    serve_stdio(Arc::new(server), StdioConfig::default()).await
}

/// Serves `server` on this process's stdin and stdout with `config` until
/// stdin closes. Answers are written by a thread of their own, with
/// blocking writes: cheaper than an async stdout, each of whose writes is
/// a trip to the runtime's blocking pool.
pub async fn serve_stdio<S: McpServer + 'static>(
    server: Arc<S>,
    config: StdioConfig,
) -> io::Result<()> {
    let queue = Queue::new(config.max_output_backlog_bytes, true);
    let shared = Arc::new(Shared::new(Arc::clone(&queue)));
    let (done, finished) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("mcp-stdout".to_owned())
        .spawn(move || {
            let _ = done.send(write_thread(io::stdout(), &queue));
        })?;
    let writing = Box::pin(async move {
        finished
            .await
            .unwrap_or_else(|_| Err(io::Error::other("the stdout writer panicked")))
    });
    serve_on(server, tokio::io::stdin(), config, shared, writing).await
}

/// `future`'s output if it is ready at its first poll; else `None`, and the
/// future goes on where it stopped when polled again.
async fn poll_once<F: Future + Unpin>(mut future: F) -> Option<F::Output> {
    std::future::poll_fn(|cx| match Pin::new(&mut future).poll(cx) {
        Poll::Ready(output) => Poll::Ready(Some(output)),
        Poll::Pending => Poll::Ready(None),
    })
    .await
}

/// Takes what needs no slot and no handler: bad lines (answered at once),
/// client responses (to server→client requests) and notifications
/// (cancellation). Returns the request when it is anything else.
fn take(line: &[u8], shared: &Shared, conn: &Connection) -> Option<Request> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    match classify(line) {
        Message::Request(request) => return Some(request),
        Message::Unparsable => {
            tracing::debug!("unparsable line");
            shared.answer(Outcome::parse_error());
        }
        Message::Response(response) => {
            if !conn.deliver(&response) {
                tracing::debug!("response to no pending request; ignored");
            }
        }
        Message::Notification(notification) => {
            if let Some(key) = cancelled_key(&notification) {
                tracing::debug!(request_id = %key, "cancelled by the client");
                conn.cancel(&key);
            }
        }
    }
    None
}

fn too_long(shared: &Shared, max: usize) {
    tracing::warn!(limit = max, "skipped an over-long line");
    let error = errors::invalid_request(format!(
        "Message exceeds the {max}-byte line limit; the line was skipped"
    ));
    shared.answer(Outcome::error(None, error));
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
async fn free_slot<R: AsyncRead + Unpin>(
    slots: &Arc<Slots>,
    lines: &mut LineReader<R>,
    held: &mut VecDeque<Incoming>,
    shared: &Shared,
    conn: &Connection,
    max_line_bytes: usize,
    reading: &mut bool,
) -> Slot {
    if let Some(slot) = slots.try_take() {
        return slot;
    }
    // About to wait: what is queued for stdout goes out meanwhile.
    if std::mem::take(reading) {
        shared.set_reading(false);
    }
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
            return slots.take().await;
        }
        if shared.backlog().over() {
            // Reading on would only queue more for a client that does not read.
            tokio::select! {
                biased;
                slot = slots.take() => return slot,
                () = shared.backlog().below_limit() => continue,
            }
        }
        tokio::select! {
            biased;
            slot = slots.take() => return slot,
            incoming = lines.next() => match incoming {
                Incoming::Line(line) => {
                    if take(&line, shared, conn).is_some() {
                        held.push_back(Incoming::Line(line));
                    }
                }
                Incoming::TooLong => too_long(shared, max_line_bytes),
                end @ Incoming::End(_) => held.push_back(end),
            },
        }
    }
}

/// Serves `server` on any reader/writer pair (stdin/stdout, an in-memory
/// duplex in tests) until the reader reaches EOF. Returns write errors
/// (a closed stdout) and read errors. For the process's own stdin and
/// stdout, [`serve_stdio`] writes faster.
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
    let queue = Queue::new(config.max_output_backlog_bytes, false);
    let shared = Arc::new(Shared::new(Arc::clone(&queue)));
    let task = tokio::spawn(write_loop(writer, queue));
    let writing = Box::pin(async move {
        task.await
            .map_err(|e| io::Error::other(format!("the stdout writer failed: {e}")))?
    });
    serve_on(server, reader, config, shared, writing).await
}

/// The output queue's writer, started: its result once it has written
/// everything.
type Writing = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

/// The serving loop over `reader`, its answers into `shared`'s queue,
/// which `writing` empties.
async fn serve_on<S, R>(
    server: Arc<S>,
    reader: R,
    config: StdioConfig,
    shared: Arc<Shared>,
    writing: Writing,
) -> io::Result<()>
where
    S: McpServer + 'static,
    R: AsyncRead + Unpin,
{
    // On an early return the queue's last sender drops: the writer ends.
    crate::model::server::check_catalogue(&*server)?;
    let sink = Arc::clone(&shared);
    let base = MessageContext::stdio()
        .with_sink(move |message| sink.notify(&message))
        .with_events(config.events.clone())
        .with_server_info_in_results(config.server_info_in_results);
    let mut serving = Serving {
        slots: Slots::new(config.max_in_flight),
        base,
        shared,
        conn: Arc::new(Connection::new(
            ClientPeer::with_timeout(config.client_request_timeout),
            None,
        )),
        server,
        config,
        legacy_forwarder: None,
    };
    let mut lines = LineReader::new(reader, serving.config.max_line_bytes);
    let read_result = serving.serve(&mut lines).await;
    serving.wind_down().await;
    // The last sender of the output queue: the writer ends once it drains.
    drop(serving);
    let write_result = writing.await;
    read_result.and(write_result)
}

/// The serving loop's state: the process's one connection, the slots, the
/// output queue.
struct Serving<S> {
    server: Arc<S>,
    config: StdioConfig,
    shared: Arc<Shared>,
    conn: Arc<Connection>,
    slots: Arc<Slots>,
    /// What every message's context starts from, built once: the output
    /// queue as its sink, the event hub.
    base: MessageContext,
    /// Hands server-wide events to the legacy session, when one is open.
    legacy_forwarder: Option<tokio::task::JoinHandle<()>>,
}

impl<S: McpServer + 'static> Serving<S> {
    /// Reads and answers lines until the end of input; its read result.
    async fn serve<R: AsyncRead + Unpin>(&mut self, lines: &mut LineReader<R>) -> io::Result<()> {
        let mut held: VecDeque<Incoming> = VecDeque::new();
        // Whether the writer was told that input already read is being
        // worked through (answers gather until the loop is about to wait).
        let mut reading = false;
        loop {
            let buffered = !held.is_empty() || lines.has_line();
            if buffered != reading || self.shared.backlog().over() {
                reading = buffered && !self.shared.backlog().over();
                self.shared.set_reading(reading);
            }
            self.shared.backlog().below_limit().await;
            let incoming = match held.pop_front() {
                Some(incoming) => incoming,
                None => lines.next().await,
            };
            let line = match incoming {
                Incoming::End(result) => return result,
                Incoming::TooLong => {
                    too_long(&self.shared, self.config.max_line_bytes);
                    continue;
                }
                Incoming::Line(line) => line,
            };
            let Some(request) = take(&line, &self.shared, &self.conn) else {
                continue;
            };
            drop(line);
            let id = request.id();
            let Request { message, kind } = request;
            match (kind, id) {
                // Not a request and not a notification: the entry point
                // answers with the envelope error. `initialize` is handled
                // inline, so its session exists before the next line.
                (_, None) | (Kind::Initialize, _) => {
                    if std::mem::take(&mut reading) {
                        self.shared.set_reading(false);
                    }
                    self.answer_inline(message).await;
                }
                // A listen stream lives until cancelled: it takes no slot.
                (Kind::Listen, Some(id)) => self.run(message, &id, true, None).await,
                (Kind::Other, Some(id)) => {
                    let slot = free_slot(
                        &self.slots,
                        lines,
                        &mut held,
                        &self.shared,
                        &self.conn,
                        self.config.max_line_bytes,
                        &mut reading,
                    )
                    .await;
                    self.run(message, &id, false, Some(slot)).await;
                }
            }
        }
    }

    /// The context of one message on this connection.
    fn context(&self) -> MessageContext {
        self.conn.context(self.base.clone())
    }

    /// Answers `request` before reading on; a legacy session it opens
    /// starts here.
    async fn answer_inline(&mut self, message: Parsed) {
        let ctx = self.context();
        let outcome = handle_parsed(&*self.server, Some(&self.server), message, &ctx).await;
        if let Some(session) = outcome.new_legacy_session.as_deref() {
            self.start_legacy_session(session.clone());
        }
        self.shared.answer(outcome);
    }

    fn start_legacy_session(&mut self, session: LegacySession) {
        tracing::info!(version = %session.protocol_version, "legacy session started");
        if let Some(old) = self.legacy_forwarder.take() {
            old.abort();
        }
        let (events, legacy, shared, server) = (
            self.config.events.clone(),
            session.clone(),
            Arc::clone(&self.shared),
            Arc::clone(&self.server),
        );
        self.legacy_forwarder = Some(tokio::spawn(async move {
            forward_legacy_events(&*server, &events, &legacy, |message| {
                shared.notify(message);
                true
            })
            .await;
        }));
        self.conn.set_legacy(session);
    }

    /// Runs the request `id`, holding `slot` until its answer is queued.
    async fn run(&self, message: Parsed, id: &Value, listen: bool, slot: Option<Slot>) {
        let ctx = self.context();
        let server = Arc::clone(&self.server);
        let mut work =
            Box::pin(async move { handle_parsed(&*server, Some(&server), message, &ctx).await });
        // Polled here first: a handler that answers without waiting
        // (most do) needs no task, no registration and no wake-up of
        // another thread. One that waits goes on as a task, cancellable.
        if let Some(outcome) = poll_once(work.as_mut()).await {
            self.shared.answer(outcome);
            drop(slot);
            return;
        }
        let shared = Arc::clone(&self.shared);
        self.conn
            .in_flight
            .spawn(id_key(id), listen, |finish| async move {
                let outcome = work.await;
                // A cancelled request's answer is never written.
                if finish.finish() {
                    shared.answer(outcome);
                }
                drop(slot);
            });
    }

    /// After EOF (or a read error): server→client requests fail, listen
    /// streams end, and the requests in flight finish (within the grace).
    async fn wind_down(&mut self) {
        self.conn.peer.close();
        let in_flight = &self.conn.in_flight;
        in_flight.abort_all(true);
        if let Some(forwarder) = self.legacy_forwarder.take() {
            forwarder.abort();
        }
        let wait_idle = in_flight.idle();
        match self.config.eof_grace {
            None => wait_idle.await,
            Some(grace) => {
                if tokio::time::timeout(grace, wait_idle).await.is_err() {
                    tracing::warn!("requests still running after stdin closed; aborting them");
                    in_flight.abort_all(false);
                }
            }
        }
    }
}
