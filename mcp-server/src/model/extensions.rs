//! The extension table: the methods and hooks the extensions a declaration
//! declares register, built once per declaration by `era/extensions.rs`
//! and kept in the declaration's slot. The gate looks them up and never
//! names an extension; a server without extensions has an empty table.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_era_types::v2026_07_28::{CallToolRequest, ClientRequest, RequestId, RequestMetaObject};
use serde_json::Value;

use crate::model::context::{MessageContext, RequestContext};
use crate::model::declaration::ServerDeclaration;
use crate::model::handlers::TaskSupport;
use crate::model::server::{Detach, McpServer};
use crate::wire::errors::{ErrorObject, HandlerResult};
use crate::wire::reply::Reply;

/// A hook's answer that may wait.
pub(crate) type ReplyFuture<'a> = Pin<Box<dyn Future<Output = HandlerResult<Reply>> + Send + 'a>>;

/// What a hook may ask of the server (`McpServer` is not object safe).
pub(crate) trait ServerFacts: Send + Sync {
    /// [`McpServer::serves_method`]: a server that claims an extension's
    /// method answers it itself.
    fn serves_method(&self, method: &str) -> bool;
    /// [`McpServer::tool_task_support`].
    fn tool_task_support(&self, name: &str) -> TaskSupport;
}

impl<S: McpServer> ServerFacts for S {
    fn serves_method(&self, method: &str) -> bool {
        McpServer::serves_method(self, method)
    }

    fn tool_task_support(&self, name: &str) -> TaskSupport {
        McpServer::tool_task_support(self, name)
    }
}

/// A request for an extension's method, once the gate's checks passed.
pub(crate) struct MethodCall<'a> {
    pub declaration: &'a Arc<ServerDeclaration>,
    pub detach: Option<&'a dyn Detach>,
    pub id: &'a RequestId,
    pub method: &'a str,
    pub params: Option<&'a Value>,
    pub meta: &'a RequestMetaObject,
    pub ctx: &'a MessageContext,
}

/// How an extension answers one of its methods.
#[derive(Clone, Copy)]
pub(crate) enum MethodHook {
    /// At once, from the declaration: the result object, which the gate
    /// finishes (`resultType`, cache hints, the server's identity).
    Now(fn(&ServerDeclaration, &str, Option<&Value>) -> Result<Value, ErrorObject>),
    /// A finished reply, possibly after waiting.
    Later(for<'a> fn(MethodCall<'a>) -> ReplyFuture<'a>),
}

/// Decides a `tools/call` before any future is built: `Ok(None)` leaves
/// the call to the handler, `Ok(Some(detach))` gives it to the hook's
/// `run`, an error refuses it.
pub(crate) type ToolCallRoute = for<'d> fn(
    &dyn ServerFacts,
    Option<&'d dyn Detach>,
    &CallToolRequest,
    &RequestContext,
) -> HandlerResult<Option<&'d dyn Detach>>;

/// Runs a `tools/call` that the route took.
pub(crate) type ToolCallRun = for<'a> fn(
    &'a dyn Detach,
    &'a Arc<ServerDeclaration>,
    Box<ClientRequest>,
    &'a RequestContext,
) -> ReplyFuture<'a>;

/// A look at every `tools/call` before its handler runs.
#[derive(Clone, Copy)]
pub(crate) struct ToolCallHook {
    pub route: ToolCallRoute,
    pub run: ToolCallRun,
}

/// `resources/read` of `uri`: `Some` answers it (a result object the gate
/// finishes), `None` leaves it to the server's handler.
pub(crate) type ReadResourceHook =
    fn(&dyn ServerFacts, &ServerDeclaration, &str) -> Option<Result<Value, ErrorObject>>;

/// Resources added to the first page of `resources/list`.
pub(crate) type FirstListPageHook = fn(&ServerDeclaration) -> Vec<Value>;

/// The methods and hooks of a declaration's extensions. Empty vectors do
/// not allocate: a server without extensions pays one length check where
/// a hook could apply.
pub(crate) struct ExtensionTable {
    methods: Vec<(&'static str, MethodHook)>,
    tool_call: Vec<ToolCallHook>,
    read_resource: Vec<ReadResourceHook>,
    first_list_page: Vec<FirstListPageHook>,
}

impl ExtensionTable {
    pub(crate) const fn new() -> Self {
        Self {
            methods: Vec::new(),
            tool_call: Vec::new(),
            read_resource: Vec::new(),
            first_list_page: Vec::new(),
        }
    }

    /// Registers `method`, enabled for this declaration.
    pub(crate) fn add_method(&mut self, method: &'static str, hook: MethodHook) {
        self.methods.push((method, hook));
    }

    pub(crate) fn add_tool_call(&mut self, hook: ToolCallHook) {
        self.tool_call.push(hook);
    }

    pub(crate) fn add_read_resource(&mut self, hook: ReadResourceHook) {
        self.read_resource.push(hook);
    }

    pub(crate) fn add_first_list_page(&mut self, hook: FirstListPageHook) {
        self.first_list_page.push(hook);
    }

    /// The hook of `method`, if an extension registered and enabled it.
    pub(crate) fn method(&self, method: &str) -> Option<MethodHook> {
        self.methods
            .iter()
            .find(|(name, _)| *name == method)
            .map(|(_, hook)| *hook)
    }

    pub(crate) fn tool_call(&self) -> &[ToolCallHook] {
        &self.tool_call
    }

    pub(crate) fn read_resource(&self) -> &[ReadResourceHook] {
        &self.read_resource
    }

    pub(crate) fn first_list_page(&self) -> &[FirstListPageHook] {
        &self.first_list_page
    }
}

impl fmt::Debug for ExtensionTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExtensionTable")
            .field(
                "methods",
                &self.methods.iter().map(|(m, _)| *m).collect::<Vec<_>>(),
            )
            .field("tool_call", &self.tool_call.len())
            .field("read_resource", &self.read_resource.len())
            .field("first_list_page", &self.first_list_page.len())
            .finish()
    }
}
