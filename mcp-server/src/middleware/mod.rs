//! Middleware around MCP requests: [`tower`] layers that see every request
//! a handler serves, typed, with its caller, version and era, on stdio and
//! HTTP alike.
//!
//! `server.layer(L)` ([`McpServerExt::layer`](crate::McpServerExt::layer))
//! wraps a server in [`Layered`], which serves the same declaration and runs
//! each request through `L` on its way to the handler. A layer is any
//! `tower::Layer` whose service takes an [`McpRequest`] and answers an
//! [`McpResponse`]: tower's own `TimeoutLayer`, `ConcurrencyLimitLayer`,
//! `LoadShedLayer` (or a `ServiceBuilder` of them) apply unchanged, and
//! their failures reach the client as spec-shaped JSON-RPC errors
//! ([`error_of`]). [`when`] and [`for_tools`] put a layer on some requests
//! only; the layers in [`RateLimitLayer`], [`RequestLogLayer`] and
//! [`ResultLimitLayer`] are the ones tower lacks.
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

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use mcp_era_types::v2026_07_28::{ClientRequest, RequestId};
use serde_json::{Map, Value};
/// The `tower` this module builds on, for its layers (`tower::timeout`,
/// `tower::load_shed`; add `tower` with the `limit` feature for
/// `ConcurrencyLimitLayer`).
pub use tower;
pub use tower::BoxError;
use tower::util::BoxCloneSyncService;
use tower::{Layer, Service, ServiceExt};

pub use layers::{
    RateLimit, RateLimitLayer, RequestLog, RequestLogLayer, ResultLimit, ResultLimitLayer,
};

use crate::model::context::{Era, RequestContext, principal_in};
use crate::model::declaration::{DeclaredScopes, ServerDeclaration};
use crate::model::handlers::{ParamHeader, TaskSupport};
use crate::model::server::McpServer;
use crate::wire::errors::{self, ErrorObject, HandlerResult};
use crate::wire::message::request_parts;
use crate::wire::reply::Reply;

/// What a layer answers: the handler's result (as bytes) or a JSON-RPC
/// error. A layer that refuses a request answers `Ok(Err(error))`; the
/// service's own `Err` is for failures of the layer itself (a timeout),
/// which [`error_of`] turns into a JSON-RPC error. A result a layer makes
/// itself ([`Reply::from_serialize`]) is sent as it is: give it the modern
/// shape (`resultType`, and `ttlMs`/`cacheScope` on cacheable methods); in
/// a legacy session the runtime converts it as it converts a handler's.
pub type McpResponse = HandlerResult<Reply>;

/// One MCP request on its way to its handler: the typed request and the
/// context its handler gets.
#[derive(Debug)]
pub struct McpRequest {
    request: ClientRequest,
    context: RequestContext,
}

impl McpRequest {
    /// A request to send through a stack by hand (tests of a layer).
    pub fn new(request: ClientRequest, context: RequestContext) -> Self {
        Self { request, context }
    }

    /// The method, such as `tools/call`.
    pub fn method(&self) -> &str {
        self.request.method()
    }

    /// What the request names: the tool of `tools/call`, the prompt of
    /// `prompts/get`, the URI of `resources/read`.
    pub fn name(&self) -> Option<&str> {
        request_parts(&self.request).call.name
    }

    /// The tool a `tools/call` calls.
    pub fn tool_name(&self) -> Option<&str> {
        match &self.request {
            ClientRequest::CallToolRequest(call) => Some(&call.params.name),
            _ => None,
        }
    }

    /// The arguments of a `tools/call`.
    pub fn arguments(&self) -> Option<&Map<String, Value>> {
        request_parts(&self.request).call.arguments
    }

    /// The caller, as the HTTP transport resolved it (a [`Principal`]
    /// middleware set, else with the `auth` feature the token's subject or
    /// client). `None` on stdio and for anonymous HTTP callers.
    ///
    /// [`Principal`]: crate::Principal
    pub fn principal(&self) -> Option<&str> {
        let parts = self.context.http_request()?;
        principal_in(&parts.extensions)
    }

    /// The protocol version of the request (a legacy session's negotiated
    /// version in the legacy era).
    pub fn protocol_version(&self) -> &str {
        self.context.protocol_version()
    }

    /// The request's era.
    pub fn era(&self) -> Era {
        Era::of(&self.context)
    }

    /// The request id, exactly as sent.
    pub fn id(&self) -> &RequestId {
        &self.context.id
    }

    /// The typed request.
    pub fn request(&self) -> &ClientRequest {
        &self.request
    }

    /// The typed request, to change before the handler sees it.
    pub fn request_mut(&mut self) -> &mut ClientRequest {
        &mut self.request
    }

    /// The context the handler gets (`_meta`, the HTTP request, the client's
    /// capabilities).
    pub fn context(&self) -> &RequestContext {
        &self.context
    }

    /// The request and its context.
    pub fn into_parts(self) -> (ClientRequest, RequestContext) {
        (self.request, self.context)
    }
}

/// The innermost service of every stack: the server's own handlers.
pub struct Handler<S> {
    server: Arc<S>,
}

impl<S> Clone for Handler<S> {
    fn clone(&self) -> Self {
        Self {
            server: Arc::clone(&self.server),
        }
    }
}

/// A boxed, sendable future, the one every service here returns.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

impl<S: McpServer + 'static> Service<McpRequest> for Handler<S> {
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: McpRequest) -> Self::Future {
        let server = Arc::clone(&self.server);
        Box::pin(async move {
            let McpRequest { request, context } = call;
            Ok(server.dispatch_capability(request, &context).await)
        })
    }
}

type Stack = BoxCloneSyncService<McpRequest, McpResponse, BoxError>;

/// A server whose requests run through a layer: serve it as the server
/// itself (same declaration, catalogue and scopes). Made by
/// [`McpServerExt::layer`](crate::McpServerExt::layer); layering a
/// `Layered` again puts the new layer outside the old one.
pub struct Layered<S> {
    server: Arc<S>,
    stack: Stack,
}

impl<S: McpServer + 'static> Layered<S> {
    /// `server` with `layer` around its handlers.
    pub fn new<L>(server: S, layer: L) -> Self
    where
        L: Layer<Handler<S>>,
        L::Service: Service<McpRequest, Response = McpResponse> + Clone + Send + Sync + 'static,
        <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
        <L::Service as Service<McpRequest>>::Future: Send + 'static,
    {
        let server = Arc::new(server);
        let handler = Handler {
            server: Arc::clone(&server),
        };
        let stack = BoxCloneSyncService::new(layer.layer(handler).map_err(Into::into));
        Self { server, stack }
    }

    /// The server inside.
    pub fn inner(&self) -> &S {
        &self.server
    }
}

impl<S: McpServer + 'static> McpServer for Layered<S> {
    fn declaration() -> &'static ServerDeclaration {
        S::declaration()
    }

    fn dispatch_capability<'a>(
        &'a self,
        request: ClientRequest,
        ctx: &'a RequestContext,
    ) -> impl Future<Output = HandlerResult<Reply>> + Send + 'a {
        // Each request gets its own clone, as tower expects: shared state
        // (a concurrency limit's semaphore) lives behind the clones' Arcs.
        let call = McpRequest::new(request, ctx.clone());
        let stack = self.stack.clone();
        async move {
            stack
                .oneshot(call)
                .await
                .unwrap_or_else(|error| Err(error_of(&error)))
        }
    }

    fn tool_param_headers(&self, name: &str) -> Option<Vec<ParamHeader>> {
        self.server.tool_param_headers(name)
    }

    fn tool_task_support(&self, name: &str) -> TaskSupport {
        self.server.tool_task_support(name)
    }

    fn tool_scopes(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        self.server.tool_scopes()
    }

    fn declared_scopes(&self) -> DeclaredScopes {
        self.server.declared_scopes()
    }

    fn catalogue_problems(&self) -> Vec<String> {
        self.server.catalogue_problems()
    }
}

/// A layer's refusal as an error, for layers that fail through the
/// service's `Err` (`Err(Rejection(error).into())`) rather than answering
/// `Ok(Err(error))`.
#[derive(Debug, Clone)]
pub struct Rejection(pub ErrorObject);

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.0.message, self.0.code)
    }
}

impl std::error::Error for Rejection {}

/// The JSON-RPC error a stack's failure becomes: a [`Rejection`] as it is,
/// tower's timeout as [`codes::TIMED_OUT`](crate::errors::codes::TIMED_OUT),
/// its load shedding as [`codes::OVERLOADED`](crate::errors::codes::OVERLOADED),
/// anything else `-32603` with the error's text.
pub fn error_of(error: &BoxError) -> ErrorObject {
    if let Some(Rejection(refusal)) = error.downcast_ref::<Rejection>() {
        return refusal.clone();
    }
    if error.is::<tower::timeout::error::Elapsed>() {
        return errors::timed_out("The request did not finish in time");
    }
    if error.is::<tower::load_shed::error::Overloaded>() {
        return errors::overloaded("The server is at capacity; try again later");
    }
    errors::internal_error(format!("Middleware failed: {error}"))
}

/// Which requests a conditional layer applies to ([`when`]).
pub trait RequestFilter: Clone + Send + Sync + 'static {
    /// Whether the layer applies to `request`.
    fn matches(&self, request: &McpRequest) -> bool;
}

impl<F> RequestFilter for F
where
    F: Fn(&McpRequest) -> bool + Clone + Send + Sync + 'static,
{
    fn matches(&self, request: &McpRequest) -> bool {
        self(request)
    }
}

/// The `tools/call` requests of some tools ([`for_tools`]).
#[derive(Debug, Clone)]
pub struct ToolNames(Arc<[String]>);

impl RequestFilter for ToolNames {
    fn matches(&self, request: &McpRequest) -> bool {
        request
            .tool_name()
            .is_some_and(|name| self.0.iter().any(|tool| tool == name))
    }
}

/// `layer` on the requests `filter` matches; the others skip it.
pub fn when<F: RequestFilter, L>(filter: F, layer: L) -> When<F, L> {
    When { filter, layer }
}

/// `layer` on the calls of the named tools only.
pub fn for_tools<L>(
    tools: impl IntoIterator<Item = impl Into<String>>,
    layer: L,
) -> When<ToolNames, L> {
    let names: Vec<String> = tools.into_iter().map(Into::into).collect();
    when(ToolNames(names.into()), layer)
}

/// A layer applied to some requests only: see [`when`].
#[derive(Debug, Clone)]
pub struct When<F, L> {
    filter: F,
    layer: L,
}

impl<F: RequestFilter, L: Layer<S>, S: Clone> Layer<S> for When<F, L> {
    type Service = Choose<F, L::Service, S>;

    fn layer(&self, inner: S) -> Self::Service {
        Choose {
            filter: self.filter.clone(),
            layered: self.layer.layer(inner.clone()),
            plain: inner,
        }
    }
}

/// The service of [`When`]: each request goes through the layered service
/// or straight to the inner one.
#[derive(Debug, Clone)]
pub struct Choose<F, A, B> {
    filter: F,
    layered: A,
    plain: B,
}

impl<F, A, B> Service<McpRequest> for Choose<F, A, B>
where
    F: RequestFilter,
    A: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
    A::Error: Into<BoxError>,
    A::Future: Send + 'static,
    B: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
    B::Error: Into<BoxError>,
    B::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<Result<McpResponse, BoxError>>;

    // Readiness is asked of the chosen service only, inside the call: a
    // busy layered service must not hold up requests that skip it.
    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        if self.filter.matches(&request) {
            let service = self.layered.clone();
            Box::pin(async move { service.oneshot(request).await.map_err(Into::into) })
        } else {
            let service = self.plain.clone();
            Box::pin(async move { service.oneshot(request).await.map_err(Into::into) })
        }
    }
}
