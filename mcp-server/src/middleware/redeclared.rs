//! [`Redeclared`]: a server served under another declaration (other
//! versions, identity or capabilities), its handlers unchanged.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use mcp_era_types::v2026_07_28::{ClientRequest, SubscriptionFilter};
use serde_json::Value;

use crate::model::context::{Following, RequestContext};
use crate::model::declaration::ServerDeclaration;
use crate::model::handlers::{ParamHeader, TaskSupport};
use crate::model::server::McpServer;
use crate::wire::errors::HandlerResult;
use crate::wire::reply::Reply;

/// `server` answering as `declaration` says: made by
/// [`McpServerExt::redeclared`](crate::McpServerExt::redeclared). Every
/// request the declaration lets through reaches the server's own
/// handlers; start the declaration from the server's
/// ([`ServerDeclaration::duplicate`]) to keep its tasks, skills and
/// `requestState` keys.
pub struct Redeclared<S> {
    server: S,
    declaration: Arc<ServerDeclaration>,
}

impl<S> Redeclared<S> {
    /// `server` under `declaration`.
    pub fn new(server: S, declaration: ServerDeclaration) -> Self {
        Self {
            server,
            declaration: Arc::new(declaration),
        }
    }

    /// The server inside.
    pub fn inner(&self) -> &S {
        &self.server
    }
}

impl<S: McpServer> McpServer for Redeclared<S> {
    fn declaration(&self) -> Arc<ServerDeclaration> {
        Arc::clone(&self.declaration)
    }

    fn dispatch_capability<'a>(
        &'a self,
        request: ClientRequest,
        ctx: &'a RequestContext,
    ) -> impl Future<Output = HandlerResult<Reply>> + Send + 'a {
        self.server.dispatch_capability(request, ctx)
    }

    fn serves_method(&self, method: &str) -> bool {
        self.server.serves_method(method)
    }

    fn handle_method<'a>(
        &'a self,
        method: &'a str,
        params: Option<Value>,
        ctx: &'a RequestContext,
    ) -> impl Future<Output = HandlerResult<Value>> + Send + 'a {
        self.server.handle_method(method, params, ctx)
    }

    fn tool_param_headers(&self, name: &str) -> Option<Vec<ParamHeader>> {
        self.server.tool_param_headers(name)
    }

    fn tool_task_support(&self, name: &str) -> TaskSupport {
        self.server.tool_task_support(name)
    }

    fn tool_scopes(&self) -> BTreeMap<String, Vec<String>> {
        self.server.tool_scopes()
    }

    // The default reads the scopes of this declaration, not the server's.

    fn following(&self, filter: &SubscriptionFilter, ctx: &RequestContext) -> Option<Following> {
        self.server.following(filter, ctx)
    }

    fn catalogue_problems(&self) -> Vec<String> {
        self.server.catalogue_problems()
    }
}
