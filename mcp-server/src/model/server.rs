//! The [`McpServer`] trait: what the runtime asks of a server, written by
//! `#[derive(McpServer)]` and `#[router]` or by hand.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_era_types::v2026_07_28::{ClientRequest, SubscriptionFilter};

use crate::model::context::{Following, RequestContext};
use crate::model::declaration::{DeclaredScopes, ServerDeclaration};
use crate::state::tasks::Work;
use crate::wire::errors::HandlerResult;
use crate::wire::reply::Reply;

/// An MCP server: a declaration plus the handlers of its declared
/// capabilities.
///
/// `#[derive(McpServer)]` and `#[router]` write it from attributes and
/// typed methods (see the crate docs). A server whose declaration or
/// catalogue is only known at run time (read from a file, or a backend's)
/// implements it by hand: [`declaration`](Self::declaration) is the one
/// required method, and every other has a default that serves nothing. The
/// runtime does the rest for both kinds alike: the version gate, the
/// legacy `initialize`, `server/discover` from the declaration, framing.
pub trait McpServer: Send + Sync + Sized {
    /// This server's declaration: identity, versions, capabilities,
    /// discover hints, and the state of its extensions (tasks, skills,
    /// sealed `requestState`). Asked once per request, so keep it cheap: an
    /// `Arc` the server holds (the derive's is built on first use and shared
    /// by the type). Two servers of one type may declare different things.
    fn declaration(&self) -> Arc<ServerDeclaration>;

    /// Answers a request of a capability the declaration offers
    /// (`tools/*`, `resources/*`, `prompts/*`, `completion/complete`),
    /// once the runtime checked its version and `_meta`. The default
    /// answers `-32601`.
    ///
    /// A hand-written server matches on the request and renders its typed
    /// result with [`RequestContext::reply`], which adds the server's
    /// identity as derived servers' results carry it; the runtime
    /// translates for legacy clients.
    fn dispatch_capability<'a>(
        &'a self,
        request: ClientRequest,
        ctx: &'a RequestContext,
    ) -> impl Future<Output = HandlerResult<Reply>> + Send + 'a {
        let _ = ctx;
        unrouted(&request)
    }

    /// Whether this server answers `method`, a method the runtime itself
    /// does not know (an extension's, or any method a proxy forwards). A
    /// modern request for it then passes the gate (version, `_meta`) and
    /// goes to [`handle_method`](Self::handle_method), and so does one in a
    /// legacy session (with the session's version and capabilities in its
    /// `_meta`); otherwise it is answered `-32601`. Of the methods the
    /// runtime knows, asked only for those of the tasks and skills
    /// extensions: a server that claims them (a proxy forwarding them)
    /// answers them, and the runtime's own engine for the extension stays
    /// out (claiming `skills/get` also keeps `skill://` reads from the
    /// declaration's catalogue; the runtime makes a task of a `tools/call`
    /// only for a tool whose `tool_task_support` says it may be one).
    fn serves_method(&self, method: &str) -> bool {
        let _ = method;
        false
    }

    /// Answers a modern request for a method that
    /// [`serves_method`](Self::serves_method) accepted, as raw JSON: its
    /// `params` in (with `_meta`), its result object out; the runtime adds
    /// `resultType` and the server's identity when they are missing (and
    /// removes them for a legacy session). Middleware layers do not see
    /// these requests yet.
    fn handle_method<'a>(
        &'a self,
        method: &'a str,
        params: Option<serde_json::Value>,
        ctx: &'a RequestContext,
    ) -> impl Future<Output = HandlerResult<serde_json::Value>> + Send + 'a {
        let _ = (params, ctx);
        std::future::ready(Err(crate::wire::errors::method_not_found(format!(
            "Unknown method {method}"
        ))))
    }

    /// The `x-mcp-header` annotations of tool `name`, checked against the
    /// `Mcp-Param-*` headers of an HTTP `tools/call`; `None` (the default)
    /// lets the runtime read them from `tools/list`, cached by its `ttlMs`.
    fn tool_param_headers(&self, name: &str) -> Option<Vec<crate::model::handlers::ParamHeader>> {
        let _ = name;
        None
    }

    /// Whether tool `name` may run as a task (tasks extension, when the
    /// declaration declares it); the default is never.
    fn tool_task_support(&self, name: &str) -> crate::model::handlers::TaskSupport {
        let _ = name;
        crate::model::handlers::TaskSupport::Never
    }

    /// The OAuth scopes a `tools/call` of each tool needs, by tool name
    /// (the HTTP transport with `auth` enforces them); none by default.
    fn tool_scopes(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        std::collections::BTreeMap::new()
    }

    /// Every OAuth scope the server declares it needs: `#[mcp(scopes =
    /// [...])]`, `#[mcp(tools(scopes = [...]))]` (and the other
    /// capabilities) and `#[tool(scopes = [...])]`. The HTTP transport with
    /// the `auth` feature requires them on top of its `AuthConfig`'s own.
    fn declared_scopes(&self) -> DeclaredScopes {
        let declaration = self.declaration();
        DeclaredScopes {
            required: declaration.required_scopes().to_vec(),
            capabilities: declaration.capability_scopes().clone(),
            tools: self.tool_scopes(),
        }
    }

    /// Called when a client starts following this server's events: a
    /// `subscriptions/listen` stream opens (`filter` is the part of its
    /// filter the server honours), or a legacy session subscribes to a
    /// resource (a filter naming that one URI). What it returns is kept
    /// while the client follows (until the stream ends, or the session
    /// unsubscribes or ends) and dropped then. For servers that make
    /// events on demand: a watcher started for the URIs someone follows, a
    /// gateway subscribing its backend. `None` (the default) keeps nothing.
    fn following(&self, filter: &SubscriptionFilter, ctx: &RequestContext) -> Option<Following> {
        let _ = (filter, ctx);
        None
    }

    /// Problems found in the declared catalogues (tools, resources);
    /// [`stdio::run`](crate::stdio::run) and [`http::run`](crate::http::run)
    /// refuse to start while there are any. None by default.
    fn catalogue_problems(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Starts handler calls that may outlive their request: what a transport
/// that holds its server in an `Arc` gives the entry point (a `tools/call`
/// that becomes a task runs on it).
pub(crate) trait Detach: Send + Sync {
    /// The call of `request`, owning a handle on the server.
    fn start(&self, request: ClientRequest, ctx: RequestContext) -> Work;
}

impl<S: McpServer + 'static> Detach for Arc<S> {
    fn start(&self, request: ClientRequest, ctx: RequestContext) -> Work {
        let server = Arc::clone(self);
        Box::pin(async move { server.dispatch_capability(request, &ctx).await })
    }
}

/// `-32601` for a request no handler takes.
pub fn unrouted<'a>(
    request: &ClientRequest,
) -> Pin<Box<dyn Future<Output = HandlerResult<Reply>> + Send + 'a>> {
    let error = crate::wire::errors::method_not_found(format!(
        "the server has no handler for `{}`",
        request.method()
    ));
    Box::pin(std::future::ready(Err(error)))
}

/// Refuses to serve a server whose catalogue could not be built, naming
/// every problem (the transports call it before reading a byte).
#[cfg_attr(not(any(feature = "http", feature = "stdio")), allow(dead_code))]
pub(crate) fn check_catalogue<S: McpServer>(server: &S) -> std::io::Result<()> {
    let problems = server.catalogue_problems();
    if problems.is_empty() {
        return Ok(());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("the server's catalogue is invalid: {}", problems.join("; ")),
    ))
}
