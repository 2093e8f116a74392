//! An MCP client that speaks both eras: 2026-07-28 ("modern": no
//! handshake, `_meta` on every request, `server/discover`) and 2025-11-25
//! and older ("legacy": `initialize`).
//!
//! * [`Client`] connects over stdio (spawning the server) or Streamable
//!   HTTP, detects the era, agrees on a version and sends requests. It is
//!   a cloneable handle: many requests in flight at once, each cancelled
//!   when its future is dropped or its timeout expires (example on
//!   [`Client`]'s module docs: concurrent calls).
//! * Every method is typed ([`Client::list_tools`], [`Client::call_tool`],
//!   [`Client::read_resource`], [`Client::get_prompt`], [`Client::complete`],
//!   [`Client::discover`], …), list methods follow every page
//!   ([`Client::list_all`]) and reuse fresh cached lists, and
//!   [`Client::subscribe`] turns `subscriptions/listen` into a
//!   [`Subscription`] stream (example there).
//! * [`handler`]: the [`ClientHandler`] answering elicitation, sampling and
//!   roots, through MRTR retries (modern) or server requests (legacy)
//!   (example there).
//! * [`headers`]: the Streamable HTTP headers, `Mcp-Param-*` mirroring and
//!   `x-mcp-header` screening (example there); [`sse`] and
//!   [`transport::http`]: SSE parsing and resumption (`retry`, `Last-Event-ID`).
//! * [`tasks`]: the tasks extension (opt in with
//!   [`ClientOptions::tasks`]): a tool call the server turns into a task is
//!   polled, its input requests answered and cancellable through a
//!   [`TaskHandle`] (example there).
//! * [`skills`]: the skills extension: `skills/list`, `skills/get`,
//!   `resources/directory/read`, and skill files read only when asked for,
//!   each verified against its entry (size, `sha256:` digest, `SKILL.md`
//!   frontmatter) before it is returned.
//! * [`negotiate`] holds the detection and selection rules as plain
//!   functions; [`cache`] what is remembered between connections.
//! * `auth` (feature `oauth`): OAuth 2.1 for HTTP servers, started by a
//!   `401`; without it, pass a bearer token in
//!   [`ClientOptions::authorization`].
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_era_client::Error> {
//! use mcp_era_client::{Client, ClientOptions};
//!
//! let client = Client::connect_stdio("my-server", &[], ClientOptions::default()).await?;
//! println!("{:?} {}", client.era(), client.protocol_version());
//! let tools = client.list_tools(None).await?;
//! # let _ = tools;
//! # Ok(()) }
//! ```
//!
//! `http://` URLs always work; `https://` needs the `rustls` feature (rustls
//! with ring, the bundled web PKI roots, plus
//! [`ClientOptions::extra_root_certificates`] for a private CA). Without it,
//! an `https://` URL is refused with a message naming the feature.
//!
//! Tracing (feature `otel`): each request carries the current
//! OpenTelemetry span's W3C context (`opentelemetry::Context::current()`)
//! in its `_meta` as `traceparent` and `tracestate`, the keys the spec
//! reserves for it, so a server's span for the request (`mcp-era-server`'s
//! `otel::TraceLayer`, or any server that reads them) joins the caller's
//! trace. Run a call inside a span, e.g. with
//! `opentelemetry::context::FutureExt::with_context`:
//! `client.list_tools(None).with_context(cx).await`. Outside a valid span
//! nothing is added, and a `traceparent` the caller put in `_meta` is kept.

#![deny(missing_docs)]

#[cfg(feature = "oauth")]
pub mod auth;
pub mod cache;
mod client;
mod connector;
mod error;
mod future;
pub mod handler;
pub mod headers;
pub mod negotiate;
pub mod sse;
pub mod subscription;
pub mod transport;

pub use client::apps;
pub use client::options::{ClientOptions, DEFAULT_MAX_REQUEST_STATE_BYTES, EraMode};
pub use client::skills;
pub use client::tasks;
pub use client::{ByEra, Client};
pub use error::{Error, Result};
pub use handler::{ClientHandler, HandlerError};
pub use mcp_era_types;
pub use mcp_era_types::versions::Era;
/// The versions this client implements, newest first: its default offer
/// (shared with `mcp-server`; `mcp_era_types::versions::GENERATED_VERSIONS`
/// lists the versions that merely have types).
pub use mcp_era_types::versions::{
    IMPLEMENTED_LEGACY_VERSIONS, IMPLEMENTED_MODERN_VERSIONS, IMPLEMENTED_VERSIONS,
};
pub use subscription::{Notification, Subscription};

// Documented as re-exports of `tasks`, as before it moved into `client`.
#[doc(no_inline)]
pub use tasks::{Task, TaskCall, TaskHandle, TaskStatus};
