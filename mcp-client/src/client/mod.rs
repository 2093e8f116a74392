//! The [`Client`]: connects over stdio or HTTP, tells the server's era
//! apart, agrees on a version and sends requests with the right envelope.
//!
//! A `Client` is a cheap, cloneable handle (`&self` methods): any number of
//! requests may be in flight at once over one stdio pipe or HTTP origin.
//! Responses are matched by id; dropping a request's future cancels it
//! (`notifications/cancelled` on stdio and in legacy HTTP sessions; on
//! modern HTTP closing the stream is the cancellation). Each request waits
//! at most [`Client::request_timeout`] (settable, or per call with
//! [`Client::request_with_timeout`]) and is cancelled when that expires.
//!
//! Connecting (see [`negotiate`](crate::negotiate) for the rules):
//!
//! * [`EraMode::Auto`](options::EraMode::Auto) sends `server/discover`
//!   with the preferred modern version. A `DiscoverResult` → modern. A recognised modern error →
//!   modern: pick a mutual version and retry once. Anything else, or
//!   silence for [`ClientOptions::probe_timeout`] → legacy `initialize`.
//!   A cached era for the same server (HTTP origin; stdio process) skips
//!   the probe, and a request that then fails the way the other era would
//!   answer drops the cache entry and probes again.
//! * [`EraMode::Modern`](options::EraMode::Modern) probes the same way but
//!   never falls back.
//! * [`EraMode::Legacy`](options::EraMode::Legacy) goes straight to
//!   `initialize`.
//!
//! Modern requests carry `_meta` (protocolVersion, clientCapabilities,
//! clientInfo) and, on HTTP, `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name` and the `Mcp-Param-*` mirrors of annotated tool arguments. A
//! `-32022` at any time re-selects the version from `data.supported` and
//! retries that request once. An `input_required` result of `tools/call`,
//! `prompts/get` or `resources/read` is answered through the
//! [`ClientHandler`](crate::handler::ClientHandler) and retried under a new
//! id (at most [`ClientOptions::max_input_rounds`] times).
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_era_client::Error> {
//! use mcp_era_client::{Client, ClientOptions};
//! use serde_json::Map;
//!
//! let client = Client::connect_stdio("my-server", &[], ClientOptions::default()).await?;
//! // Many calls at once over the one pipe.
//! let calls = (0..10).map(|_| {
//!     let c = client.clone();
//!     tokio::spawn(async move { c.call_tool("add", Map::new()).await })
//! });
//! for call in calls {
//!     let _ = call.await;
//! }
//! # Ok(()) }
//! ```

// The files, lowest first: `options` (what the caller sets), this one (the
// handle and what it knows), `exchange` (one round trip), `connect` (the
// handshake and the era cache), `request` (a request's whole life),
// `tasks` (the tasks extension), `skills` (the skills extension),
// `methods` (the typed methods) and `apps` (MCP Apps, on top of the methods).
pub mod apps;
mod connect;
mod exchange;
mod methods;
pub(crate) mod options;
mod request;
pub mod skills;
pub mod tasks;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use mcp_era_types::v2025_11_25 as legacy;
use mcp_era_types::v2026_07_28::{self as modern, DiscoverResult};
use mcp_era_types::versions::Era;
use serde::Serialize;

use self::options::ClientOptions;
use crate::cache::{AuthContext, ServerKey};
use crate::handler::Responder;
use crate::headers::ParamHeaders;
use crate::subscription::Routes;
use crate::transport::http::HttpTransport;
use crate::transport::stdio::StdioTransport;

/// A value that differs by era: the 2026-07-28 type or the 2025-11-25 one.
/// Serializes as the inner value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ByEra<M, L> {
    /// From a modern server.
    Modern(M),
    /// From a legacy server.
    Legacy(L),
}

#[derive(Debug, Clone)]
enum Conn {
    Stdio(Arc<StdioTransport>),
    Http(HttpTransport),
}

/// What the handshake learned; replaced as a whole when it is redone.
#[derive(Debug, Clone)]
struct State {
    era: Era,
    version: String,
    hello: ByEra<DiscoverResult, legacy::InitializeResult>,
    era_from_cache: bool,
}

struct Inner {
    conn: Conn,
    opts: ClientOptions,
    server: ServerKey,
    auth: Option<AuthContext>,
    state: Mutex<State>,
    next_id: AtomicI64,
    timeout_ms: AtomicU64,
    responder: Responder,
    routes: Arc<Routes>,
    /// Tool name → its `x-mcp-header` annotations, from the last `tools/list`.
    tool_headers: Mutex<HashMap<String, ParamHeaders>>,
    /// Serialises re-probing and re-initialising after a failed assumption.
    reconnect: tokio::sync::Mutex<()>,
    /// The legacy HTTP session's standalone GET stream.
    standalone: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(task) = lock(&self.standalone).take() {
            task.abort();
        }
    }
}

/// A connected client: a cloneable handle to one connection.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("conn", &self.inner.conn)
            .field("state", &*self.state())
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Client {
    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.inner.state)
    }

    fn opts(&self) -> &ClientOptions {
        &self.inner.opts
    }

    /// The default timeout of each request.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.inner.timeout_ms.load(Ordering::Relaxed))
    }

    /// Changes the default timeout of each request (every clone shares it).
    pub fn set_request_timeout(&self, timeout: Duration) {
        self.inner
            .timeout_ms
            .store(duration_ms(timeout), Ordering::Relaxed);
    }

    /// The server's era.
    pub fn era(&self) -> Era {
        self.state().era
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> String {
        self.state().version.clone()
    }

    /// Whether the era came from the cache rather than a probe.
    pub fn era_from_cache(&self) -> bool {
        self.state().era_from_cache
    }

    /// `supportedVersions` from `server/discover` (modern servers only).
    pub fn supported_versions(&self) -> Option<Vec<String>> {
        self.discover_result().map(|d| d.supported_versions)
    }

    /// The `server/discover` result (modern servers).
    pub fn discover_result(&self) -> Option<DiscoverResult> {
        match &self.state().hello {
            ByEra::Modern(d) => Some(d.clone()),
            ByEra::Legacy(_) => None,
        }
    }

    /// The `initialize` result (legacy servers).
    pub fn initialize_result(&self) -> Option<legacy::InitializeResult> {
        match &self.state().hello {
            ByEra::Legacy(r) => Some(r.clone()),
            ByEra::Modern(_) => None,
        }
    }

    /// The server's self-description: `_meta` serverInfo of the discover
    /// result (or a `serverInfo` member its body carries against the spec),
    /// or `serverInfo` of the `initialize` result.
    pub fn server_info(&self) -> Option<ByEra<modern::Implementation, legacy::Implementation>> {
        match &self.state().hello {
            ByEra::Modern(d) => d
                .meta
                .as_ref()
                .and_then(|m| m.server_info.as_deref().cloned())
                .or_else(|| serde_json::from_value(d.extra.get("serverInfo")?.clone()).ok())
                .map(ByEra::Modern),
            ByEra::Legacy(r) => Some(ByEra::Legacy((*r.server_info).clone())),
        }
    }

    /// The server's capabilities.
    pub fn capabilities(&self) -> ByEra<modern::ServerCapabilities, legacy::ServerCapabilities> {
        match &self.state().hello {
            ByEra::Modern(d) => ByEra::Modern(d.capabilities.clone()),
            ByEra::Legacy(r) => ByEra::Legacy(r.capabilities.clone()),
        }
    }

    /// The server's instructions, if it gave any.
    pub fn instructions(&self) -> Option<String> {
        match &self.state().hello {
            ByEra::Modern(d) => d.instructions.clone(),
            ByEra::Legacy(r) => r.instructions.clone(),
        }
    }

    /// The legacy HTTP session id, if the server issued one.
    pub fn session_id(&self) -> Option<String> {
        match &self.inner.conn {
            Conn::Http(t) => t.session_id(),
            Conn::Stdio(_) => None,
        }
    }
}

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
