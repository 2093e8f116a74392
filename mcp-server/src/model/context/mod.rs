//! The per-message context a transport hands to the entry point
//! ([`MessageContext`]), and what it is made of: who sent the message
//! (`caller.rs`), its legacy session (`legacy.rs`) and the per-request
//! context handlers receive (`request.rs`).

mod caller;
mod handoff;
mod header_text;
mod legacy;
mod request;

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::model::peer::{ClientPeer, Sink};

use crate::state::events::ServerEvents;
pub(crate) use caller::principal_in;
pub use caller::{PeerAddr, Principal};
pub(crate) use handoff::Handoff;
pub use header_text::HeaderText;
pub use legacy::{Following, LegacySession};
#[allow(deprecated)]
pub use request::EraOf;
pub(crate) use request::StreamCloser;
pub use request::{Era, Progress, RequestContext};

/// Which transport a message arrived on, with what the envelope checks need
/// from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// stdio: all metadata lives in `_meta`; there is no header layer, so
    /// `-32020` never applies.
    Stdio,
    /// Streamable HTTP.
    Http(HttpHeaders),
}

/// The HTTP request headers the envelope checks use. The HTTP transport
/// fills this in; names are matched case-insensitively and values are
/// trimmed of surrounding whitespace by the transport before they get here.
/// Values are [`HeaderText`]: the transport's share the request's bytes,
/// and a caller's are built from strings (`"2026-07-28".into()`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpHeaders {
    /// The `MCP-Protocol-Version` header, if present.
    ///
    /// The entry point enforces, for modern requests and in this order
    /// (the conformance suite's order): header present (else `-32020`),
    /// required `_meta` fields (else `-32602`), header equal to the `_meta`
    /// version (else `-32020`, even when the body version is unsupported),
    /// version supported (else `-32022`).
    pub protocol_version: Option<HeaderText>,
    /// The `Mcp-Method` header, if present. Modern requests must carry it,
    /// equal to the body's `method` (else `-32020`, step 10). `None` in
    /// [`MessageContext::http`] skips the check, for callers that only
    /// know the version header.
    pub method: Option<Option<HeaderText>>,
    /// The `Mcp-Name` header (raw, trimmed), if present. `tools/call` and
    /// `prompts/get` must carry `params.name`, `resources/read` must carry
    /// `params.uri` (after decoding the `=?base64?…?=` sentinel).
    pub name: Option<HeaderText>,
    /// The `Mcp-Param-{Name}` headers: the name suffix in lower case and
    /// the value (raw, trimmed). A `tools/call` argument whose input
    /// schema property carries `"x-mcp-header": "{Name}"` must be mirrored
    /// in that header when the body has a value for it (else `-32020`).
    pub params: Vec<(String, HeaderText)>,
}

impl HttpHeaders {
    /// The same headers sharing no bytes with the request (see
    /// [`HeaderText::detached`]).
    pub(crate) fn detached(self) -> Self {
        let detach = |text: Option<HeaderText>| text.map(HeaderText::detached);
        Self {
            protocol_version: detach(self.protocol_version),
            method: self.method.map(detach),
            name: detach(self.name),
            params: self
                .params
                .into_iter()
                .map(|(name, value)| (name, value.detached()))
                .collect(),
        }
    }
}

/// The per-message context: everything the entry point needs besides the
/// message itself.
#[derive(Clone)]
pub struct MessageContext {
    /// The transport the message arrived on.
    pub transport: Transport,
    /// The legacy (2025-11-25 era) session this message belongs to, if the
    /// transport has one (stdio: the process after a legacy `initialize`;
    /// HTTP: the session named by `Mcp-Session-Id`).
    pub legacy_session: Option<LegacySession>,
    /// Where the request's own notifications (progress, logging) go, and
    /// server→client requests of a legacy session. `None` drops them.
    pub(crate) sink: Option<Sink>,
    /// The client side of a legacy session: matches client responses to
    /// server→client requests.
    pub(crate) peer: Option<ClientPeer>,
    /// Closes the request's SSE connection early (resumable legacy HTTP
    /// streams only).
    pub(crate) stream_closer: Option<StreamCloser>,
    /// Server-wide events (list changes, resource updates) that
    /// `subscriptions/listen` streams follow.
    pub(crate) events: Option<ServerEvents>,
    /// Whether results carry `_meta["io.modelcontextprotocol/serverInfo"]`.
    pub(crate) server_info_in_results: bool,
    /// The HTTP request's parts (method, URI, headers, extensions set by
    /// middleware), when the message came over HTTP.
    pub(crate) http_request: Option<Arc<http::request::Parts>>,
    /// The address the HTTP request came from, when known ([`PeerAddr`]).
    pub(crate) remote_addr: Option<std::net::SocketAddr>,
    /// Where a listen leaves its stream once acknowledged, when the
    /// transport takes it.
    pub(crate) handoff: Option<Arc<Handoff>>,
}

impl fmt::Debug for MessageContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessageContext")
            .field("transport", &self.transport)
            .field("legacy_session", &self.legacy_session)
            .field("sink", &self.sink.is_some())
            .field("server_info_in_results", &self.server_info_in_results)
            .finish_non_exhaustive()
    }
}

impl MessageContext {
    fn new(transport: Transport) -> Self {
        Self {
            transport,
            legacy_session: None,
            sink: None,
            peer: None,
            stream_closer: None,
            events: None,
            server_info_in_results: true,
            http_request: None,
            remote_addr: None,
            handoff: None,
        }
    }

    /// A stdio message outside any legacy session.
    pub fn stdio() -> Self {
        Self::new(Transport::Stdio)
    }

    /// An HTTP message with the given `MCP-Protocol-Version` header value
    /// (already trimmed), outside any legacy session. The `Mcp-Method` and
    /// `Mcp-Name` checks are skipped; use [`MessageContext::http_headers`]
    /// to have them.
    pub fn http(protocol_version_header: Option<&str>) -> Self {
        Self::new(Transport::Http(HttpHeaders {
            protocol_version: protocol_version_header.map(HeaderText::from),
            method: None,
            name: None,
            params: Vec::new(),
        }))
    }

    /// An HTTP message with all the MCP headers the transport read.
    pub fn http_headers(headers: HttpHeaders) -> Self {
        Self::new(Transport::Http(headers))
    }

    /// The same context inside the given legacy session.
    pub fn with_legacy_session(mut self, session: LegacySession) -> Self {
        self.legacy_session = Some(session);
        self
    }

    /// Sends the request's own messages (notifications before the response;
    /// in a legacy session also server→client requests) to `sink`, which
    /// the transport writes to the request's stream (stdout, or the POST's
    /// SSE response).
    pub fn with_sink(mut self, sink: impl Fn(Value) + Send + Sync + 'static) -> Self {
        self.sink = Some(Arc::new(sink));
        self
    }

    /// The client side of the connection or legacy session: server→client
    /// requests wait on it for the client's response, which the transport
    /// hands to [`ClientPeer::deliver`].
    pub fn with_peer(mut self, peer: ClientPeer) -> Self {
        self.peer = Some(peer);
        self
    }

    /// The server-wide event hub that `subscriptions/listen` streams and
    /// legacy sessions follow, and that handlers reach through
    /// [`RequestContext::events`].
    pub fn with_events(mut self, events: ServerEvents) -> Self {
        self.events = Some(events);
        self
    }

    /// Whether every result carries
    /// `_meta["io.modelcontextprotocol/serverInfo"]` (default: yes, as the
    /// spec says servers SHOULD). Legacy results never do.
    pub fn with_server_info_in_results(mut self, on: bool) -> Self {
        self.server_info_in_results = on;
        self
    }

    /// The HTTP request the message came in (its body already read), for
    /// handlers to read headers and middleware extensions through
    /// [`RequestContext::http_request`].
    /// A [`Principal`] among its extensions names the caller: legacy
    /// sessions and tasks are bound to it.
    pub fn with_http_request(mut self, parts: Arc<http::request::Parts>) -> Self {
        self.http_request = Some(parts);
        self
    }

    /// Who sent the message: the [`Principal`] of its HTTP request.
    pub(crate) fn principal(&self) -> Option<&str> {
        principal_in(&self.http_request.as_deref()?.extensions)
    }
}
