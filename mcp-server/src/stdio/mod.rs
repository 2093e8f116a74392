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
//!   the request's notifications) goes through one writer task, so lines
//!   never interleave.
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

mod lines;
mod output;

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::dispatch::handle_parsed;
use crate::model::context::{LegacySession, MessageContext};
use crate::model::peer::{ClientPeer, is_response};
use crate::model::server::McpServer;
use crate::runtime::in_flight::{cancelled_request, id_key};
use crate::runtime::legacy_events::forward_legacy_events;
use crate::state::events::ServerEvents;
use crate::wire::errors;
use crate::wire::message::{Parsed, parse, request_id};
use lines::{Incoming, read_lines};
use output::{Backlog, Output, Shared, write_loop};

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

/// `future`'s output if it is ready at its first poll; else `None`, and the
/// future goes on where it stopped when polled again.
async fn poll_once<F: Future + Unpin>(mut future: F) -> Option<F::Output> {
    std::future::poll_fn(|cx| match Pin::new(&mut future).poll(cx) {
        Poll::Ready(output) => Poll::Ready(Some(output)),
        Poll::Pending => Poll::Ready(None),
    })
    .await
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
        if let Some(request_id) = cancelled_request(&message) {
            tracing::debug!(%request_id, "cancelled by the client");
            shared.in_flight.cancel(&id_key(request_id));
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
        in_flight: Arc::default(),
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
                    let (events, legacy, shared, server) = (
                        config.events.clone(),
                        new_session.clone(),
                        Arc::clone(&shared),
                        Arc::clone(&server),
                    );
                    legacy_forwarder = Some(tokio::spawn(async move {
                        forward_legacy_events(&*server, &events, &legacy, |message| {
                            shared.notify(message);
                            true
                        })
                        .await;
                    }));
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
            let task_server = Arc::clone(&server);
            let mut work = Box::pin(async move {
                handle_parsed(&*task_server, Some(&task_server), message, &ctx).await
            });
            // Polled here first: a handler that answers without waiting
            // (most do) needs no task, no registration and no wake-up of
            // another thread. One that waits goes on as a task, cancellable.
            if let Some(outcome) = poll_once(work.as_mut()).await {
                if let Some(body) = outcome.body {
                    shared.send(body, slot);
                }
                continue;
            }
            let task_shared = Arc::clone(&shared);
            shared.in_flight.spawn(key, is_listen, |finish| async move {
                let outcome = work.await;
                // A cancelled request's answer is never written.
                if finish.finish()
                    && let Some(body) = outcome.body
                {
                    task_shared.send(body, slot);
                }
            });
        };
        (read_result, legacy_forwarder)
    };
    // The reader ends at EOF; the dispatcher when it has taken the end.
    let ((), (read_result, legacy_forwarder)) = tokio::join!(reading, dispatching);
    // EOF (or a read error): wind down.
    peer.close();
    shared.in_flight.abort_all(true);
    if let Some(forwarder) = legacy_forwarder {
        forwarder.abort();
    }
    let wait_idle = shared.in_flight.idle();
    match config.eof_grace {
        None => wait_idle.await,
        Some(grace) => {
            if tokio::time::timeout(grace, wait_idle).await.is_err() {
                tracing::warn!("requests still running after stdin closed; aborting them");
                shared.in_flight.abort_all(false);
            }
        }
    }
    drop(shared);
    let write_result = writer_task
        .await
        .map_err(|e| io::Error::other(format!("the stdout writer failed: {e}")))?;
    read_result.and(write_result)
}
