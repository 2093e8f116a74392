//! The root paths of earlier releases, kept for one release. Each warns
//! (`deprecated`) with its new path; `tests/deprecated_root.rs` checks they
//! still compile. A type:
//!
//! ```compile_fail
//! #![deny(deprecated)]
//! fn f(_: mcp_era_server::Outcome) {}
//! ```
//!
//! a constant:
//!
//! ```compile_fail
//! #![deny(deprecated)]
//! const M: &str = mcp_era_server::INITIALIZE;
//! ```
//!
//! a function:
//!
//! ```compile_fail
//! #![deny(deprecated)]
//! let _ = mcp_era_server::is_response(&serde_json::json!({}));
//! ```
//!
//! and `Era::of` (the call itself, not only the trait's import):
//!
//! ```compile_fail
//! #![deny(deprecated)]
//! #[allow(deprecated)]
//! use mcp_era_server::EraOf;
//! use mcp_era_server::{Era, RequestContext};
//! fn f(ctx: &RequestContext) -> Era { Era::of(ctx) }
//! ```
//!
//! while the new paths do not warn:
//!
//! ```
//! #![deny(deprecated)]
//! use mcp_era_server::{Era, RequestContext, protocol, transport};
//! fn f(_: transport::Outcome, ctx: &RequestContext) -> Era { ctx.era() }
//! const M: &str = protocol::INITIALIZE;
//! let _ = transport::is_response(&serde_json::json!({}));
//! ```
#![allow(deprecated)]

use std::sync::Arc;

use mcp_era_types::v2026_07_28::SubscriptionFilter;

use crate::model::server::McpServer;
use crate::{protocol, transport};

/// Moved to [`transport::Outcome`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::Outcome`"
)]
pub type Outcome = transport::Outcome;

/// Moved to [`transport::MessageContext`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::MessageContext`"
)]
pub type MessageContext = transport::MessageContext;

/// Moved to [`transport::Transport`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::Transport`"
)]
pub type Transport = transport::Transport;

/// Moved to [`transport::HttpHeaders`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::HttpHeaders`"
)]
pub type HttpHeaders = transport::HttpHeaders;

/// Moved to [`transport::LegacySession`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::LegacySession`"
)]
pub type LegacySession = transport::LegacySession;

/// Moved to [`transport::ClientPeer`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::ClientPeer`"
)]
pub type ClientPeer = transport::ClientPeer;

/// Moved to [`transport::Sink`].
#[deprecated(since = "0.2.0", note = "moved to `mcp_era_server::transport::Sink`")]
pub type Sink = transport::Sink;

/// Moved to [`transport::DEFAULT_CLIENT_REQUEST_TIMEOUT`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::DEFAULT_CLIENT_REQUEST_TIMEOUT`"
)]
pub const DEFAULT_CLIENT_REQUEST_TIMEOUT: std::time::Duration =
    transport::DEFAULT_CLIENT_REQUEST_TIMEOUT;

/// Moved to [`protocol::INITIALIZE`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::protocol::INITIALIZE`"
)]
pub const INITIALIZE: &str = protocol::INITIALIZE;

/// Moved to [`protocol::MAX_INPUT_ROUNDS`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::protocol::MAX_INPUT_ROUNDS`"
)]
pub const MAX_INPUT_ROUNDS: usize = protocol::MAX_INPUT_ROUNDS;

/// Moved to [`protocol::CACHEABLE_METHODS`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::protocol::CACHEABLE_METHODS`"
)]
pub const CACHEABLE_METHODS: &[&str] = protocol::CACHEABLE_METHODS;

/// Moved to [`protocol::REMOVED_METHODS`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::protocol::REMOVED_METHODS`"
)]
pub const REMOVED_METHODS: &[&str] = protocol::REMOVED_METHODS;

/// Moved to [`protocol::IMPLEMENTED_VERSIONS`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::protocol::IMPLEMENTED_VERSIONS`"
)]
pub const IMPLEMENTED_VERSIONS: &[mcp_era_types::versions::KnownVersion] =
    protocol::IMPLEMENTED_VERSIONS;

/// Moved to [`protocol::IMPLEMENTED_MODERN_VERSIONS`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::protocol::IMPLEMENTED_MODERN_VERSIONS`"
)]
pub const IMPLEMENTED_MODERN_VERSIONS: &[&str] = protocol::IMPLEMENTED_MODERN_VERSIONS;

/// Moved to [`protocol::IMPLEMENTED_LEGACY_VERSIONS`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::protocol::IMPLEMENTED_LEGACY_VERSIONS`"
)]
pub const IMPLEMENTED_LEGACY_VERSIONS: &[&str] = protocol::IMPLEMENTED_LEGACY_VERSIONS;

/// Moved to [`protocol::MAX_COMPLETION_VALUES`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::protocol::MAX_COMPLETION_VALUES`"
)]
pub const MAX_COMPLETION_VALUES: usize = protocol::MAX_COMPLETION_VALUES;

/// Moved to [`protocol::PAGE_SIZE`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::protocol::PAGE_SIZE`"
)]
pub const PAGE_SIZE: usize = protocol::PAGE_SIZE;

/// Moved to [`transport::handle_message`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::handle_message`"
)]
#[inline]
pub async fn handle_message<S: McpServer>(
    server: &S,
    message: &[u8],
    ctx: &transport::MessageContext,
) -> transport::Outcome {
    transport::handle_message(server, message, ctx).await
}

/// Moved to [`transport::handle_message_shared`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::handle_message_shared`"
)]
#[inline]
pub async fn handle_message_shared<S: McpServer + 'static>(
    server: &Arc<S>,
    message: &[u8],
    ctx: &transport::MessageContext,
) -> transport::Outcome {
    transport::handle_message_shared(server, message, ctx).await
}

/// Moved to [`transport::handle_value`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::handle_value`"
)]
#[inline]
pub async fn handle_value<S: McpServer>(
    server: &S,
    message: serde_json::Value,
    ctx: &transport::MessageContext,
) -> transport::Outcome {
    transport::handle_value(server, message, ctx).await
}

/// Moved to [`transport::is_response`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::is_response`"
)]
#[inline]
pub fn is_response(message: &serde_json::Value) -> bool {
    transport::is_response(message)
}

/// Moved to [`transport::legacy_result`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::legacy_result`"
)]
#[inline]
pub fn legacy_result(method: &str, result: serde_json::Value) -> serde_json::Value {
    transport::legacy_result(method, result)
}

/// Moved to [`transport::honoured_filter`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::honoured_filter`"
)]
#[inline]
pub fn honoured_filter(
    declaration: &crate::model::declaration::ServerDeclaration,
    filter: &SubscriptionFilter,
) -> SubscriptionFilter {
    transport::honoured_filter(declaration, filter)
}

/// Moved to [`transport::legacy_notification`].
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::transport::legacy_notification`"
)]
#[inline]
pub fn legacy_notification(
    declaration: &crate::model::declaration::ServerDeclaration,
    session: &transport::LegacySession,
    event: &crate::state::events::ServerEvent,
) -> Option<serde_json::Value> {
    transport::legacy_notification(declaration, session, event)
}

/// Moved to [`errors::http_status_of`](crate::errors::http_status_of).
#[deprecated(
    since = "0.2.0",
    note = "moved to `mcp_era_server::errors::http_status_of`"
)]
#[inline]
pub fn http_status_of(error: &crate::wire::errors::ErrorObject) -> u16 {
    crate::wire::errors::http_status_of(error)
}
