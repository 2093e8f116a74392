//! The legacy sessions of one transport over its
//! [`SessionStore`](crate::sessions::SessionStore): the local table (what
//! this instance holds of each session: its client peer, GET stream and
//! requests in flight; also the fast path), lookup, opening and ending,
//! the idle sweep, and the messages to and from other instances.
//!
//! A session known here is touched in the store on each request (which
//! refreshes its expiry everywhere and brings changes made elsewhere); one
//! unknown here is loaded from the store, checked against the caller, and
//! held from then on. If the store fails, a session held here is still
//! served from what is held (a change to it then fails with `-32603`), and
//! one not held here gets 503: nothing else can tell whether it exists.
//!
//! The session cap ([`HttpConfig::max_sessions`]) bounds the local table.
//! With a store of this process only, a session pushed out ends, as it
//! always did; with a shared store only what this instance held of it is
//! dropped (the session lives on in the store and is loaded again when
//! needed), and the idle sweep drops what no request uses any more.
//!
//! [`HttpConfig::max_sessions`]: super::HttpConfig::max_sessions

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::task::AbortHandle;

use super::log_limit::LogLimiter;
use crate::model::context::LegacySession;
use crate::model::peer::{ClientPeer, instance_of};
use crate::runtime::connection::Connection;
use crate::state::sessions::{
    BusEvent, EventStore, SessionMessage, SessionRecord, SessionState, SessionStore, StoreError,
};
use crate::state::tasks::store::now_ms;

/// What this instance holds of one legacy session: its connection (what
/// `initialize` agreed, with the level and subscriptions kept fresh from
/// the store; its client peer and requests in flight) and its GET stream.
pub(super) struct Session {
    pub(super) conn: Connection,
    pub(super) last_seen: Mutex<Instant>,
    /// Whether a request after `initialize` named this session.
    pub(super) used: AtomicBool,
    /// Who opened it (the token's subject or client, with `auth`): only
    /// requests of the same principal may use it.
    pub(super) principal: Option<String>,
    pub(super) stream: Mutex<Option<AbortHandle>>,
}

impl Session {
    /// Stops what runs here: the GET stream, the requests in flight, the
    /// server→client requests waiting.
    pub(super) fn end(&self) {
        self.close_stream();
        self.conn.end();
    }

    /// Closes the GET stream, if one is open here.
    pub(super) fn close_stream(&self) {
        if let Some(stream) = self
            .stream
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            stream.abort();
        }
    }

    /// Makes `stream` the session's GET stream, closing the one before.
    pub(super) fn set_stream(&self, stream: AbortHandle) {
        if let Some(old) = self
            .stream
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .replace(stream)
        {
            old.abort();
        }
    }

    /// Takes what the store says of the session (level, subscriptions).
    fn refresh(&self, stored: &SessionState) {
        self.conn
            .with_legacy(|legacy| legacy.map(|legacy| legacy.refresh(stored)));
    }

    pub(super) fn seen(&self) -> Instant {
        *self
            .last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn mark_seen(&self, at: Instant) {
        *self
            .last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = at;
    }

    /// Whether something of the session runs here (a GET stream, a
    /// request).
    fn busy(&self) -> bool {
        let streaming = self
            .stream
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(|s| !s.is_finished());
        streaming || !self.conn.in_flight.is_empty()
    }
}

/// The sessions held here, and the ids of those not used yet, oldest
/// first (the first to go when the table is full).
#[derive(Default)]
pub(super) struct Sessions {
    pub(super) by_id: HashMap<String, Arc<Session>>,
    pub(super) unused: VecDeque<String>,
}

/// What a session lookup finds.
pub(super) enum Lookup {
    Found(Arc<Session>),
    /// Unknown, ended, expired, or another principal's: 404.
    NotFound,
    /// The store cannot say: 503.
    Unavailable(StoreError),
}

/// Why a session could not be opened.
pub(super) enum OpenError {
    /// No OS randomness for its id.
    Randomness(String),
    /// The store refused or failed.
    Store(StoreError),
}

/// The instant `ms` (Unix milliseconds) was, as far as this clock can say.
fn instant_of(ms: u64) -> Instant {
    let ago = Duration::from_millis(now_ms().saturating_sub(ms));
    Instant::now().checked_sub(ago).unwrap_or_else(Instant::now)
}

/// Ends idle legacy sessions in the background (never on a request's
/// path), every half idle timeout, at least every minute.
pub(super) async fn sweep_sessions_every(table: Weak<SessionTable>) {
    loop {
        let period = match table.upgrade() {
            Some(table) => {
                (table.idle_timeout / 2).clamp(Duration::from_millis(100), Duration::from_secs(60))
            }
            None => return,
        };
        tokio::time::sleep(period).await;
        match table.upgrade() {
            Some(table) => table.end_idle_sessions().await,
            None => return,
        }
    }
}

/// Acts on what the other instances say until the transport is gone.
pub(super) async fn follow_bus(
    table: Weak<SessionTable>,
    mut bus: tokio::sync::mpsc::UnboundedReceiver<BusEvent>,
) {
    while let Some(event) = bus.recv().await {
        let Some(table) = table.upgrade() else {
            return;
        };
        table.on_bus(event).await;
    }
}

/// The sessions of one transport: the stores, the settings that apply,
/// this instance's id, and the local table.
pub(super) struct SessionTable {
    pub(super) store: Arc<dyn SessionStore>,
    pub(super) events: Arc<dyn EventStore>,
    /// This transport among the instances sharing the store: named in
    /// server→client request ids and on the store's bus.
    pub(super) instance: String,
    pub(super) idle_timeout: Duration,
    max_sessions: usize,
    client_request_timeout: Duration,
    table: Mutex<Sessions>,
    log: LogLimiter,
}

/// A fresh instance id: 16 hex digits (the process id and the time when
/// the OS has no randomness; sessions then cannot be opened anyway).
fn instance_id() -> String {
    match crate::wire::random_id::random_id() {
        Ok(id) => id.chars().take(16).collect(),
        Err(_) => format!("{:x}{:x}", std::process::id(), now_ms()),
    }
}

impl SessionTable {
    pub(super) fn new(config: &super::config::HttpConfig) -> Self {
        Self {
            store: Arc::clone(&config.session_store),
            events: Arc::clone(&config.event_store),
            instance: instance_id(),
            idle_timeout: config.session_idle_timeout,
            max_sessions: config.max_sessions,
            client_request_timeout: config.client_request_timeout,
            table: Mutex::default(),
            log: LogLimiter::default(),
        }
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, Sessions> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn shared(&self) -> bool {
        self.store.is_shared()
    }

    fn local(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions().by_id.get(id).cloned()
    }

    fn store_trouble(&self, what: &str, id: &str, error: &StoreError) {
        if let Some(suppressed) = self.log.allow() {
            tracing::warn!(session = %id, %error, suppressed, "session store: {what}");
        }
    }

    /// The session `id` for a request of `principal` (see the module docs).
    pub(super) async fn session(&self, id: &str, principal: Option<&str>) -> Lookup {
        // Only ids this server gives reach the store (they name its keys).
        if !crate::wire::random_id::is_random_id(id) {
            return Lookup::NotFound;
        }
        let store = &self.store;
        if let Some(session) = self.local(id) {
            if session.principal.as_deref() != principal {
                return Lookup::NotFound;
            }
            return match store.touch(id).await {
                Ok(Some(stored)) => {
                    session.refresh(&stored);
                    session.mark_seen(Instant::now());
                    session.used.store(true, Ordering::Relaxed);
                    Lookup::Found(session)
                }
                Ok(None) => {
                    self.end_here(id, "ended or expired in the store");
                    self.forget_events(id).await;
                    Lookup::NotFound
                }
                Err(error) => {
                    self.store_trouble("serving a session held here without the store", id, &error);
                    session.mark_seen(Instant::now());
                    session.used.store(true, Ordering::Relaxed);
                    Lookup::Found(session)
                }
            };
        }
        // A store of this process holds no session this table lacks (and
        // a config cloned for another server must not find this one's).
        if !self.shared() {
            return Lookup::NotFound;
        }
        match store.load(id).await {
            Ok(Some(record)) if record.principal.as_deref() == principal => {
                Lookup::Found(self.hold(record).await)
            }
            Ok(_) => Lookup::NotFound,
            Err(error) => Lookup::Unavailable(error),
        }
    }

    /// Holds a session served here for the first time (its record from
    /// the store), unless a concurrent request did first.
    async fn hold(&self, record: SessionRecord) -> Arc<Session> {
        let legacy = LegacySession::from_record(&record, Arc::clone(&self.store));
        let session = self.new_session(legacy, record.principal.clone(), true);
        self.admit(record.id, session).await
    }

    fn new_session(
        &self,
        session: LegacySession,
        principal: Option<String>,
        used: bool,
    ) -> Arc<Session> {
        let timeout = self.client_request_timeout;
        let peer = if self.shared() {
            ClientPeer::for_instance(timeout, &self.instance)
        } else {
            ClientPeer::with_timeout(timeout)
        };
        Arc::new(Session {
            conn: Connection::new(peer, Some(session)),
            last_seen: Mutex::new(Instant::now()),
            used: AtomicBool::new(used),
            principal,
            stream: Mutex::default(),
        })
    }

    /// Opens the session a successful `initialize` agreed: stored first
    /// (readable everywhere), then held here. Its id.
    pub(super) async fn open_session(
        &self,
        session: LegacySession,
        principal: Option<String>,
    ) -> Result<String, OpenError> {
        let id = crate::wire::random_id::random_id()
            .map_err(|e| OpenError::Randomness(e.to_string()))?;
        let now = now_ms();
        let record = SessionRecord {
            id: id.clone(),
            protocol_version: session.protocol_version.clone(),
            client_capabilities: session.client_capabilities.clone(),
            client_info: session.client_info.clone(),
            principal: principal.clone(),
            created_at_ms: now,
            idle_timeout_ms: u64::try_from(self.idle_timeout.as_millis()).unwrap_or(u64::MAX),
            state: SessionState {
                last_seen_ms: now,
                ..SessionState::default()
            },
        };
        self.store.create(record).await.map_err(OpenError::Store)?;
        let session = session.stored_in(Arc::clone(&self.store), &id);
        let held = self.new_session(session, principal, false);
        self.admit(id.clone(), held).await;
        Ok(id)
    }

    /// Ends session `id` everywhere (`DELETE`): removed from the store,
    /// which tells the other instances, and stopped here.
    pub(super) async fn delete_session(&self, id: &str) -> Result<bool, StoreError> {
        let removed = self.store.remove(id).await?;
        self.end_here(id, "ended by DELETE");
        self.forget_events(id).await;
        Ok(removed)
    }

    /// Stops what this instance holds of session `id` and drops it from
    /// the local table.
    fn end_here(&self, id: &str, why: &str) {
        let removed = self.sessions().by_id.remove(id);
        if let Some(session) = removed {
            tracing::debug!(session = %id, "{why}");
            session.end();
        }
    }

    /// Drops the stream events of an ended session (a shared store leaves
    /// them to expire).
    async fn forget_events(&self, id: &str) {
        if let Err(error) = self.events.forget_session(id).await {
            self.store_trouble("forgetting the events of an ended session", id, &error);
        }
    }

    /// Adds a session to the local table, or returns the one a concurrent
    /// request added first; at the cap it first pushes out the oldest
    /// never-used session, or, when every session is in use, the least
    /// recently used (see the module docs for what that ends).
    /// The table part of [`admit`](Self::admit): the session held, and
    /// those pushed out.
    fn insert(
        &self,
        id: String,
        session: Arc<Session>,
    ) -> (Arc<Session>, Vec<(String, Arc<Session>)>) {
        let cap = self.max_sessions.max(1);
        let mut sessions = self.sessions();
        if let Some(existing) = sessions.by_id.get(&id) {
            return (Arc::clone(existing), Vec::new());
        }
        let mut pushed_out = Vec::new();
        while sessions.by_id.len() >= cap {
            let victim = match sessions.unused.pop_front() {
                Some(old) => match sessions.by_id.get(&old) {
                    Some(s) if !s.used.load(Ordering::Relaxed) => Some(old),
                    _ => continue,
                },
                // Every session is in use: a scan, rare by construction.
                None => sessions
                    .by_id
                    .iter()
                    .min_by_key(|(_, s)| s.seen())
                    .map(|(id, _)| id.clone()),
            };
            match victim.and_then(|id| sessions.by_id.remove_entry(&id)) {
                Some(entry) => pushed_out.push(entry),
                None => break,
            }
        }
        // Ids of sessions used or ended since are dropped now and then: when
        // they outnumber twice the sessions held (so a table that ends its
        // sessions keeps few ids, not up to twice its cap).
        if sessions.unused.len() > 2 * sessions.by_id.len().max(32) {
            let Sessions { by_id, unused } = &mut *sessions;
            unused.retain(|id| {
                by_id
                    .get(id)
                    .is_some_and(|s| !s.used.load(Ordering::Relaxed))
            });
        }
        if !session.used.load(Ordering::Relaxed) {
            sessions.unused.push_back(id.clone());
        }
        sessions.by_id.insert(id, Arc::clone(&session));
        (session, pushed_out)
    }

    async fn admit(&self, id: String, session: Arc<Session>) -> Arc<Session> {
        let (session, pushed_out) = self.insert(id, session);
        if !pushed_out.is_empty() {
            tracing::warn!(
                ended = pushed_out.len(),
                cap = self.max_sessions,
                "legacy session table full; pushed out unused or least recently used sessions"
            );
        }
        let shared = self.shared();
        for (id, old) in pushed_out {
            old.end();
            if !shared {
                if let Err(error) = self.store.remove(&id).await {
                    self.store_trouble("removing a pushed-out session", &id, &error);
                }
                self.forget_events(&id).await;
            }
        }
        session
    }

    /// Ends sessions idle for longer than the timeout. With a shared
    /// store, what is idle here may be in use elsewhere: the store decides,
    /// and what this instance holds is dropped once nothing of it runs here.
    pub(super) async fn end_idle_sessions(&self) {
        let timeout = self.idle_timeout;
        let idle: Vec<(String, Arc<Session>)> = self
            .sessions()
            .by_id
            .iter()
            .filter(|(_, s)| s.seen().elapsed() > timeout)
            .map(|(id, s)| (id.clone(), Arc::clone(s)))
            .collect();
        let store = &self.store;
        for (id, session) in idle {
            if !self.shared() {
                self.end_here(&id, "idle");
                if let Err(error) = store.remove(&id).await {
                    self.store_trouble("removing an idle session", &id, &error);
                }
                self.forget_events(&id).await;
                continue;
            }
            match store.peek(&id).await {
                Ok(None) => self.end_here(&id, "ended or expired in the store"),
                Ok(Some(stored)) => {
                    session.refresh(&stored);
                    session.mark_seen(instant_of(stored.last_seen_ms));
                    if !session.busy() {
                        self.end_here(&id, "idle here, dropped from the local table");
                    }
                }
                Err(error) => self.store_trouble("sweeping idle sessions", &id, &error),
            }
        }
    }

    /// Hands a client's response to the server→client request waiting for
    /// it: here, or on the instance its id names.
    pub(super) async fn route_response(
        &self,
        id: &str,
        session: &Session,
        response: &Value,
    ) -> Result<(), StoreError> {
        if session.conn.deliver(response) {
            return Ok(());
        }
        let instance = response.get("id").and_then(instance_of);
        match instance {
            Some(instance) if self.shared() && instance != self.instance => {
                let message = SessionMessage::Response {
                    session: id.to_owned(),
                    instance: instance.to_owned(),
                    message: response.clone(),
                };
                self.store.publish(&message).await
            }
            _ => {
                tracing::debug!("a response that no request waits for; ignored");
                Ok(())
            }
        }
    }

    /// `notifications/cancelled` for client request `request` (the JSON
    /// text of its id): aborted here, or on whichever instance runs it.
    pub(super) async fn route_cancel(
        &self,
        id: &str,
        session: &Session,
        request: String,
    ) -> Result<(), StoreError> {
        if session.conn.cancel(&request) || !self.shared() {
            return Ok(());
        }
        let message = SessionMessage::Cancel {
            session: id.to_owned(),
            request,
        };
        self.store.publish(&message).await
    }

    /// Tells the other instances that this one holds the GET stream of
    /// session `id` now (they close theirs).
    pub(super) async fn announce_stream(&self, id: &str) {
        if !self.shared() {
            return;
        }
        let message = SessionMessage::StreamOpened {
            session: id.to_owned(),
            instance: self.instance.clone(),
        };
        if let Err(error) = self.store.publish(&message).await {
            self.store_trouble("announcing a GET stream", id, &error);
        }
    }

    /// Acts on one message from the instances (this one included).
    async fn on_bus(&self, event: BusEvent) {
        let message = match event {
            BusEvent::Message(message) => message,
            BusEvent::Reconnected => return self.read_again().await,
        };
        let Some(session) = self.local(message.session()) else {
            return;
        };
        match message {
            SessionMessage::Ended { session: id } => self.end_here(&id, "ended elsewhere"),
            SessionMessage::Changed { session: id } => match self.store.peek(&id).await {
                Ok(Some(stored)) => session.refresh(&stored),
                Ok(None) => self.end_here(&id, "ended or expired in the store"),
                Err(error) => self.store_trouble("reading a change", &id, &error),
            },
            SessionMessage::Cancel { request, .. } => {
                session.conn.cancel(&request);
            }
            SessionMessage::Response {
                instance, message, ..
            } if instance == self.instance => {
                if !session.conn.deliver(&message) {
                    tracing::debug!("a response that no request waits for; ignored");
                }
            }
            SessionMessage::StreamOpened { instance, .. } if instance != self.instance => {
                session.close_stream();
            }
            SessionMessage::Response { .. } | SessionMessage::StreamOpened { .. } => {}
        }
    }

    /// After messages may have been missed: reads every session held here
    /// again (an `Ended` or `Changed` missed is repaired).
    async fn read_again(&self) {
        let held: Vec<(String, Arc<Session>)> = self
            .sessions()
            .by_id
            .iter()
            .map(|(id, s)| (id.clone(), Arc::clone(s)))
            .collect();
        for (id, session) in held {
            match self.store.peek(&id).await {
                Ok(Some(stored)) => session.refresh(&stored),
                Ok(None) => self.end_here(&id, "ended or expired in the store"),
                Err(error) => {
                    self.store_trouble("reading sessions again", &id, &error);
                    return;
                }
            }
        }
    }
}
