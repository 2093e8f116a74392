//! The per-message context a transport hands to the entry point, and the
//! per-request context handlers receive.

use mcp_types::v2026_07_28::{ClientCapabilities, Implementation, RequestId, RequestMetaObject};
use serde_json::Value;

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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpHeaders {
    /// The `MCP-Protocol-Version` header, if present.
    ///
    /// The entry point enforces, for modern requests and in this order
    /// (digest §6 item 14 steps 6–9): header present (else `-32020`),
    /// required `_meta` fields (else `-32602`), header equal to the `_meta`
    /// version (else `-32020`, even when the body version is unsupported),
    /// version supported (else `-32022`).
    pub protocol_version: Option<String>,
}

/// The per-message context: everything the entry point needs besides the
/// message itself.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageContext {
    /// The transport the message arrived on.
    pub transport: Transport,
    /// The legacy (2025-11-25 era) session this message belongs to, if the
    /// transport has one (stdio: the process after a legacy `initialize`;
    /// HTTP: the session named by `Mcp-Session-Id`).
    pub legacy_session: Option<LegacySession>,
}

impl MessageContext {
    /// A stdio message outside any legacy session.
    pub fn stdio() -> Self {
        Self {
            transport: Transport::Stdio,
            legacy_session: None,
        }
    }

    /// An HTTP message with the given `MCP-Protocol-Version` header value
    /// (already trimmed), outside any legacy session.
    pub fn http(protocol_version_header: Option<&str>) -> Self {
        Self {
            transport: Transport::Http(HttpHeaders {
                protocol_version: protocol_version_header.map(str::to_owned),
            }),
            legacy_session: None,
        }
    }

    /// The same context inside the given legacy session.
    pub fn with_legacy_session(mut self, session: LegacySession) -> Self {
        self.legacy_session = Some(session);
        self
    }
}

/// The state of a legacy (2025-11-25 era) session, negotiated by
/// `initialize`. The transport stores it (per process on stdio, per
/// `Mcp-Session-Id` on HTTP) and passes it back in [`MessageContext`].
#[derive(Debug, Clone, PartialEq)]
pub struct LegacySession {
    /// The version `initialize` agreed to; always a legacy version.
    pub protocol_version: String,
    /// The client's `capabilities` from `initialize`, as sent.
    pub client_capabilities: Value,
    /// The client's `clientInfo` from `initialize`, as sent.
    pub client_info: Value,
}

/// What a handler learns about the modern request it serves.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestContext {
    /// The request id, exactly as sent.
    pub id: RequestId,
    /// The request's validated `params._meta`.
    pub meta: RequestMetaObject,
}

impl RequestContext {
    /// The protocol version of this request (one of the accepted versions).
    pub fn protocol_version(&self) -> &str {
        &self.meta.protocol_version
    }

    /// The client capabilities declared by this request. A server MUST NOT
    /// rely on a capability this request did not declare.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.meta.client_capabilities
    }

    /// The self-reported client identity, if sent; never a basis for
    /// behaviour or security decisions.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.meta.client_info.as_ref()
    }
}
