//! Middleware around MCP requests: [`tower`] layers that see every request
//! a handler serves, typed, with its caller, version and era, on stdio and
//! HTTP alike.
//!
//! `server.layer(L)` ([`McpServerExt::layer`](crate::McpServerExt::layer))
//! wraps a server in [`Layered`], which serves the same declaration and runs
//! each request through `L` on its way to the handler. A layer is any
//! `tower::Layer` whose service takes an [`McpRequest`] and answers an
//! [`McpResponse`]: tower's own `TimeoutLayer`, `ConcurrencyLimitLayer`,
//! `LoadShedLayer` (or a `ServiceBuilder` of them; all three are in the
//! re-exported [`tower`], `mcp_era::server::middleware::tower` through the
//! facade) apply unchanged, and
//! their failures reach the client as spec-shaped JSON-RPC errors
//! ([`error_of`]). [`when`] and [`for_tools`] put a layer on some requests
//! only; the layers in [`RateLimitLayer`], [`RequestLogLayer`] and
//! [`ResultLimitLayer`] are the ones tower lacks. [`RequestLogLayer`] logs
//! through `tracing` at level `info`: it shows with `RUST_LOG=info` under
//! the stderr subscriber `serve_from_args` (or `log_to_stderr()`)
//! installs, and never on stdout, which a stdio server keeps for the
//! protocol.
//!
//! ```
//! use std::time::Duration;
//! use mcp_era_server::middleware::{RateLimitLayer, RequestLogLayer, for_tools};
//! use mcp_era_server::{McpServer, McpServerExt, router};
//! use tower::ServiceBuilder;
//! use tower::timeout::TimeoutLayer;
//!
//! #[derive(McpServer, Default)]
//! #[mcp(name = "calc", version = "1.0.0")]
//! struct Calc;
//!
//! #[router]
//! impl Calc {
//!     /// Adds two numbers.
//!     #[tool]
//!     fn add(&self, a: i64, b: i64) -> String { (a + b).to_string() }
//!
//!     /// Takes its time.
//!     #[tool]
//!     async fn slow(&self) -> String { String::from("done") }
//! }
//!
//! let server = Calc
//!     // Around every request: a log line each, 20 per second per caller.
//!     .layer(ServiceBuilder::new()
//!         .layer(RequestLogLayer::new())
//!         .layer(RateLimitLayer::per_principal(20, Duration::from_secs(1))))
//!     // Around one tool: a time limit.
//!     .layer(for_tools(["slow"], TimeoutLayer::new(Duration::from_secs(5))));
//! # let _ = server;
//! // mcp_era_server::stdio::run(server) or http::run(server, config): as any server.
//! ```
//!
//! What passes through: every request that reaches a handler (`tools/*`,
//! `resources/*`, `prompts/*`, `completion/complete`), in both eras, each
//! round of a legacy request the runtime bridges, and a tool call that runs
//! as a task. What does not: the envelope and version checks (a request
//! they refuse never reaches a layer), `server/discover` (pre-rendered),
//! `subscriptions/listen`, the tasks extension's own methods and the legacy
//! session methods (`initialize`, `ping`, `logging/setLevel`, subscribe).
//! A server without layers runs none of this code.

mod layers;
mod redeclared;
mod request;
mod stack;

/// The `tower` this module builds on, for its layers: `tower::timeout`,
/// `tower::limit` (`ConcurrencyLimitLayer`) and `tower::load_shed`, with no
/// `tower` dependency of your own.
pub use tower;
pub use tower::BoxError;

pub use layers::{
    RateLimit, RateLimitLayer, RequestLog, RequestLogLayer, ResultLimit, ResultLimitLayer,
};
pub use redeclared::Redeclared;
#[cfg(feature = "otel")]
pub(crate) use request::clipped;
pub use request::{BoxFuture, McpRequest, McpResponse, Rejection, error_of};
pub use stack::{Choose, Handler, Layered, RequestFilter, ToolNames, When, for_tools, when};
