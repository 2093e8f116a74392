//! Where legacy (2025-11-25) HTTP sessions live, so that any instance
//! behind a load balancer can serve any request of any session: the
//! [`SessionStore`] trait (records, changes, and the messages instances send
//! each other), the [`EventStore`] trait (the SSE events a client may ask
//! again with `Last-Event-ID`), and their in-memory defaults
//! ([`MemorySessionStore`], [`MemoryEventStore`]: one process, today's
//! behaviour). `RedisSessionStore` and `RedisEventStore` (feature `redis`)
//! share them between processes. The HTTP transport uses them through
//! `HttpConfig::session_store` and `HttpConfig::event_store`.
//!
//! # What is shared, what stays with one instance
//!
//! A session is a [`SessionRecord`] in the store: the negotiated version,
//! the client's capabilities and `clientInfo`, the principal that opened it,
//! its `logging/setLevel` level and `resources/subscribe` set, when it was
//! created and last used, and its idle timeout. Any instance serves a POST
//! of any session from that record; its changes (`logging/setLevel`,
//! `resources/subscribe` / `unsubscribe`) are written there before they
//! are answered, so the next request anywhere sees them.
//!
//! What cannot be written down stays with the instance that has it, in the
//! transport's local table (also the fast path: a session served here
//! before is not read again, only touched, which refreshes its expiry and
//! brings changes made elsewhere):
//!
//! * the legacy **GET stream** (held by the instance the client opened it
//!   on; one per session: opening one closes the one before, wherever it
//!   is),
//! * the **requests in flight** (each runs on the instance it was POSTed
//!   to, and so does its SSE stream),
//! * the **server→client requests** a request waits on (the MRTR bridge's
//!   `elicitation/create`, `sampling/createMessage`, `roots/list`).
//!
//! So, for a session whose parts are held elsewhere, any instance can:
//! serve its requests (every method, with the session's version,
//! capabilities, level and subscriptions), take the client's response to a
//! server→client request sent from elsewhere (`Response`, below), take a
//! `notifications/cancelled` for a request running elsewhere (`Cancel`),
//! end it (`DELETE`: `Ended`), take over its GET stream (`StreamOpened`),
//! and resume any of its streams from `Last-Event-ID`. It cannot run a
//! request that another instance runs, nor send on a connection another
//! instance holds: what a request sends goes on its own stream, and reaches
//! a client reconnected elsewhere through the event store. Server-wide
//! events (`list_changed`, `resources/updated`) reach a GET stream through
//! the [`ServerEvents`](crate::ServerEvents) hub of the instance holding it;
//! an event raised on another instance gets there only if the hubs are
//! shared (the event bus), not through the session store.
//!
//! # Instances tell each other ([`SessionMessage`])
//!
//! A shared store also carries the few messages one instance sends the
//! others about a session they hold a part of:
//!
//! | message | sent when | what the receiver does |
//! |---|---|---|
//! | `Ended` | `DELETE`, by the store itself as part of [`remove`](SessionStore::remove) | closes the GET stream, aborts the requests in flight, fails the server→client requests waiting |
//! | `Changed` | a change, by the store itself as part of [`change`](SessionStore::change) | reads the level and subscriptions again (the GET stream filters `resources/updated` by them) |
//! | `Cancel` | `notifications/cancelled` for a request not running here | aborts the request, if it runs there |
//! | `Response` | a client's response to a server→client request sent elsewhere | hands it to the request waiting for it |
//! | `StreamOpened` | a GET stream opened | closes its own GET stream of that session |
//!
//! Redis carries them on pub/sub, on two channels per instance: one that
//! every instance hears (`{prefix}bus`: `Ended`, `Changed`, `Cancel`,
//! `StreamOpened`, small and rare, and only the instances holding a part of
//! the session act on them) and one of its own (`{prefix}bus:{instance}`,
//! for `Response`, which may be large and has exactly one reader: the
//! server→client request id names the instance that sent it,
//! `srv-{instance}-{n}`). A channel per session would cost a SUBSCRIBE per
//! session on every instance that touches it, and its cleanup; a channel per
//! instance alone would need a lookup of who holds what, which the
//! broadcast makes unnecessary for messages this rare. Pub/sub is
//! at-most-once: an instance whose subscription was cut reads every
//! session it holds again when it is back ([`BusEvent::Reconnected`]), which
//! repairs a missed `Ended` or `Changed`; a `Cancel` or `Response` missed
//! that way leaves the request to its own timeout (the client request
//! timeout for server→client requests).
//!
//! # Expiry
//!
//! A record carries its idle timeout (the timeout of the instance that
//! opened it); every use refreshes it ([`touch`], [`load`], [`change`]),
//! and a record not used for that long is gone on every instance (Redis
//! expires the key; the memory store drops it when read). An instance
//! notices on the session's next request (404) or in its idle sweep, which
//! closes what it held of the session.
//!
//! # Resumable streams ([`EventStore`])
//!
//! Every SSE stream of a session (its GET stream and each POST answered
//! with SSE) has a stream id (`g…` or `p…`), and each event on it an id
//! `{stream}-{seq}` ([`event_id`]), unique within the session; each stream
//! opens with a priming event (an id, no message). Events are appended to
//! the event store in order, in the background (a slow or absent store
//! delays no stream), which keeps a bounded window per stream; a stream's
//! end is marked there too (its response, or an end mark when a GET stream
//! closes or a request ends without answering). A client that reconnects,
//! to any instance, with `GET` and `Last-Event-ID` gets the events of
//! *that* stream after that id, in order, once (2025-11-25 "Resumability
//! and Redelivery"): a POST stream is followed until its response; a GET
//! stream is followed until its end mark (the instance that held it closes
//! it on `StreamOpened`), or 2 s without more if that instance died, then
//! goes on live as the session's GET stream.
//!
//! # When the store fails
//!
//! Every call of a shared store is bounded (Redis: 1 s by default, then it
//! fails fast for as long again). A request of a session this instance
//! holds is then served from what it holds (a change fails with `-32603`);
//! anything that needs the store (a session not held here, `initialize`,
//! `DELETE`, a response or cancellation for another instance, a resume)
//! gets HTTP 503 with a JSON-RPC `-32603`. Events that could not be stored
//! cannot be replayed (a warning says so).
//!
//! [`touch`]: SessionStore::touch
//! [`load`]: SessionStore::load
//! [`change`]: SessionStore::change

mod memory;
#[cfg(feature = "redis")]
mod redis;
mod replay;
mod store;

pub use self::memory::MemorySessionStore;
#[cfg(feature = "redis")]
pub use self::redis::{
    DEFAULT_PREFIX as REDIS_DEFAULT_PREFIX, DEFAULT_TIMEOUT as REDIS_DEFAULT_TIMEOUT,
    RedisEventStore, RedisSessionStore,
};
pub use self::replay::{
    DEFAULT_EVENT_WINDOW, DEFAULT_MEMORY_EVENT_CAPACITY, EventFollow, EventStore, MemoryEventStore,
    StoredEvent, StreamKey, event_id, parse_event_id,
};
pub use self::store::{
    BusEvent, SessionChange, SessionMessage, SessionRecord, SessionState, SessionStore, StoreError,
    StoreFuture,
};
