//! An MCP era gateway. MCP 2026-07-28 removed the `initialize` handshake;
//! most published servers still speak only 2025-11-25, and modern-first
//! clients fail against them. A [`Gateway`] serves both eras at its front
//! (our runtime's version gate, `server/discover`, legacy sessions) and
//! forwards each capability request to one backend in the backend's own
//! era: the backend's `initialize` becomes the front's discover, the modern
//! `_meta` keys are stripped before a legacy backend sees a request, and a
//! legacy result gains its modern `resultType` and cache hints.
//!
//! ```text
//! mcp-era-gateway -- npx @modelcontextprotocol/server-everything   # stdio front
//! mcp-era-gateway --listen 127.0.0.1:8080 -- python server.py      # HTTP front
//! mcp-era-gateway --url https://example.com/mcp                    # HTTP backend
//! ```
//!
//! What it forwards: `tools/*`, `resources/list`, `read` and
//! `templates/list`, `prompts/*`, `completion/complete`; the backend's
//! requests for input during a call (elicitation, sampling, roots) as the
//! front client's `input_required` rounds (a legacy backend's over stdio
//! one call at a time: [`BackendOptions::input`]; a modern backend's
//! passed through), which a legacy client gets as requests in its session;
//! the backend's list changes
//! (to `subscriptions/listen` streams and legacy sessions, from
//! [`Gateway::events`]); its progress and log messages (on the stream of
//! the request they belong to); and cancellation. The backend is a child
//! process over stdio or a Streamable HTTP endpoint; [`Gateway::start`]
//! starts it again when it cannot be started or exits. With the `auth`
//! feature an HTTP backend is reached with the gateway's own OAuth grant
//! ([`BackendOptions`]' `oauth`), and the front is protected as any of our
//! HTTP servers is (`HttpConfig::auth`); no token crosses the gateway.
//! Several gateway processes behind one balancer complete each other's
//! rounds: a legacy backend's `requestState` names the [`Instances`] id
//! holding the call, and a retry reaching another instance is forwarded to
//! it (a configured peer) or refused with a retryable error.
//! `docs/gateway.md` has the rules per method and argues the choices.

mod backend;
mod bridge;
mod calls;
mod compose;
mod front;
mod instances;
mod link;
mod notes;
mod resources;
mod rounds;
mod supervise;
mod tool_headers;
mod translate;

pub use backend::{Backend, BackendOptions, BackendSpec, CAPABILITY_SETS, Era, Restart};
pub use compose::{
    Access, Composite, Composition, DEFAULT_PAGE_SIZE, DEFAULT_SEPARATOR, Filter, Filters, Member,
    PrefixMode, Selector,
};
pub use front::Gateway;
pub use instances::{FORWARDED_BY, Instances};
pub use mcp_era_client::EraMode;
