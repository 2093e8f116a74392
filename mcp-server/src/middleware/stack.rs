//! Stacks of layers: [`Layered`] (a server whose requests run through a
//! layer), the innermost [`Handler`], and [`when`]/[`for_tools`] for a layer
//! on some requests only.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll};

use mcp_era_types::v2026_07_28::ClientRequest;
use tower::util::BoxCloneSyncService;
use tower::{BoxError, Layer, Service, ServiceExt};

use crate::middleware::request::{BoxFuture, McpRequest, McpResponse, error_of};
use crate::model::context::RequestContext;
use crate::model::declaration::{DeclaredScopes, ServerDeclaration};
use crate::model::handlers::{ParamHeader, TaskSupport};
use crate::model::server::McpServer;
use crate::wire::errors::HandlerResult;
use crate::wire::reply::Reply;

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
            let (request, context) = call.into_parts();
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
    fn declaration(&self) -> Arc<ServerDeclaration> {
        self.server.declaration()
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

    fn serves_method(&self, method: &str) -> bool {
        self.server.serves_method(method)
    }

    fn handle_method<'a>(
        &'a self,
        method: &'a str,
        params: Option<serde_json::Value>,
        ctx: &'a RequestContext,
    ) -> impl Future<Output = HandlerResult<serde_json::Value>> + Send + 'a {
        self.server.handle_method(method, params, ctx)
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

    fn following(
        &self,
        filter: &mcp_era_types::v2026_07_28::SubscriptionFilter,
        ctx: &RequestContext,
    ) -> Option<crate::model::context::Following> {
        self.server.following(filter, ctx)
    }
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
