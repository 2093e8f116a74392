//! Tools: the static table behind `#[tool]` methods and the dynamic
//! [`ToolRouter`] (what a tool returns is in `tool_results`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use mcp_era_types::ext::apps;
use mcp_era_types::v2026_07_28::{
    CallToolRequestParams, CallToolResult, CallToolResultResponseResult, ListToolsResult,
    PaginatedRequestParams, Tool, methods,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::args::{self, Arguments};
use super::names::NameMap;
use super::page::page;
use super::rendered::{PageKey, RenderedPages};
pub use super::tool_results::{
    IntoToolError, IntoToolResult, Json, JsonWithText, ToolError, ToolOutcome, argument_failure,
};
use super::tool_rules::app_only;
pub use super::tool_rules::{ToolVisibility, param_headers_of, valid_tool_name};
use super::validation::ToolSchemas;
use super::{RetryInput, StateSeal};
pub use crate::model::context::Era;
use crate::model::context::RequestContext;
pub use crate::model::handlers::ParamHeader;
use crate::model::handlers::TaskSupport;
use crate::state::events::ServerEvents;
use crate::state::request_state::arguments_digest;
use crate::wire::errors::{self, ErrorObject, HandlerResult};
use crate::wire::reply::{self, Reply};

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Arguments that break the tool's input schema: a failed result naming
/// each violation (tools spec, "Error Handling": input validation errors
/// are tool execution errors).
fn schema_failure(violations: String) -> ToolOutcome {
    Ok(CallToolResult::error(violations).into())
}

/// A described tool with its handler.
struct Entry<H> {
    tool: Tool,
    visibility: ToolVisibility,
    /// `_meta.ui.visibility` leaves the model out: listed only to clients
    /// that render MCP Apps (see [`app_only`]).
    app_only: bool,
    headers: Vec<ParamHeader>,
    /// The schemas, compiled (shared: a [`ToolRouter`] call checks
    /// arguments after releasing the catalogue lock).
    schemas: Arc<ToolSchemas>,
    task: TaskSupport,
    /// The handler's `IntoToolResult::CAN_REQUIRE_INPUT`.
    can_require_input: bool,
    handler: H,
}

/// Tools by name, in listing order, and the `tools/list` pages rendered
/// from them.
struct Catalogue<H> {
    entries: Vec<Entry<H>>,
    by_name: NameMap<String, usize>,
    pages: RenderedPages,
}

impl<H> Default for Catalogue<H> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            by_name: NameMap::default(),
            pages: RenderedPages::default(),
        }
    }
}

impl<H> Catalogue<H> {
    /// Adds or replaces (by name) a tool; its name and header annotations
    /// are checked and its schemas compiled first. `derived`: the input
    /// schema comes from the handler's Rust types.
    fn insert(
        &mut self,
        tool: Tool,
        derived: bool,
        task: TaskSupport,
        visibility: ToolVisibility,
        can_require_input: bool,
        handler: H,
    ) -> Result<(), String> {
        if !valid_tool_name(&tool.name) {
            return Err(format!(
                "tool name `{}` must be 1 to 128 characters from A-Z a-z 0-9 _ - .",
                tool.name
            ));
        }
        let headers = param_headers_of(&tool).map_err(|e| format!("tool `{}`: {e}", tool.name))?;
        let app_only = app_only(&tool).map_err(|e| format!("tool `{}`: {e}", tool.name))?;
        let schemas = ToolSchemas::compile(&tool, derived)
            .map_err(|e| format!("tool `{}`: {e}", tool.name))?;
        let entry = Entry {
            tool,
            visibility,
            app_only,
            headers,
            schemas: Arc::new(schemas),
            task,
            can_require_input,
            handler,
        };
        match self.by_name.get(&entry.tool.name) {
            Some(&at) => self.entries[at] = entry,
            None => {
                self.by_name
                    .insert(entry.tool.name.clone(), self.entries.len());
                self.entries.push(entry);
            }
        }
        Ok(())
    }

    fn remove(&mut self, name: &str) -> bool {
        let Some(at) = self.by_name.remove(name) else {
            return false;
        };
        self.entries.remove(at);
        for index in self.by_name.values_mut() {
            if *index > at {
                *index -= 1;
            }
        }
        true
    }

    /// Tool `name` as requests of `era` see it: one of the other era is
    /// unknown.
    fn get(&self, name: &str, era: Era) -> Result<&Entry<H>, ErrorObject> {
        self.by_name
            .get(name)
            .map(|&at| &self.entries[at])
            .filter(|entry| entry.visibility.serves(era))
            .ok_or_else(|| errors::invalid_params(format!("Unknown tool: {name}")))
    }

    /// A page of the tools listed to the request's era; the offsets count
    /// those alone, so each era's cursors are stable.
    fn list(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        let renders_apps = apps::client_renders_apps(ctx.client_capabilities().extensions.as_ref());
        self.list_for(params, renders_apps, ctx)
    }

    /// [`list`](Self::list)'s page as result bytes, rendered once per
    /// catalogue version.
    fn list_reply(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        let renders_apps = apps::client_renders_apps(ctx.client_capabilities().extensions.as_ref());
        let key = PageKey::new(params.cursor.as_deref(), renders_apps, ctx);
        self.pages.get_or_render(key, || {
            reply::render(
                self.list_for(params, renders_apps, ctx)?,
                ctx.result_server_info(),
            )
        })
    }

    fn list_for(
        &self,
        params: &PaginatedRequestParams,
        renders_apps: bool,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        let era = ctx.era();
        let listed: Vec<&Entry<H>> = self
            .entries
            .iter()
            .filter(|e| e.visibility.lists(era) && (renders_apps || !e.app_only))
            .collect();
        let (entries, next) = page(&listed, params.cursor.as_deref())?;
        let tools = entries.iter().map(|e| e.tool.clone()).collect();
        let mut result = ListToolsResult::new(tools, ctx.cache_hints());
        result.next_cursor = next;
        Ok(result)
    }

    /// Only modern `tools/call` requests carry `Mcp-Param-*` headers and
    /// become tasks, so a legacy-only tool answers as an unknown one.
    fn modern(&self, name: &str) -> Option<&Entry<H>> {
        let at = self.by_name.get(name)?;
        Some(&self.entries[*at]).filter(|e| e.visibility.serves(Era::Modern))
    }

    fn param_headers(&self, name: &str) -> Option<Vec<ParamHeader>> {
        self.modern(name).map(|e| e.headers.clone())
    }

    fn task_support(&self, name: &str) -> TaskSupport {
        self.modern(name).map_or(TaskSupport::Never, |e| e.task)
    }
}

/// One `tools/call` as a handler sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCall {
    /// The arguments object (empty when absent).
    pub arguments: Arguments,
    /// The answers and state of a retried call.
    pub retry: RetryInput,
}

impl ToolCall {
    /// The call, if its arguments fit the tool's input schema; else the
    /// text of the failed result, naming each violation.
    fn checked(params: CallToolRequestParams, schemas: &ToolSchemas) -> Result<Self, String> {
        let arguments = schemas.input.admit(params.arguments.unwrap_or_default())?;
        Ok(Self {
            arguments,
            retry: RetryInput::new(params.input_responses, params.request_state),
        })
    }
}

/// The call's seal (for tool `name`), with `requestState` opened in
/// `params` (`-32602` when it does not open: the handler is not called).
/// A call without a state whose handler cannot ask for input needs no
/// seal: its arguments are not hashed.
fn opened<'a>(
    params: &mut CallToolRequestParams,
    name: impl FnOnce(&CallToolRequestParams) -> Cow<'a, str>,
    can_require_input: bool,
    ctx: &'a RequestContext,
) -> HandlerResult<StateSeal<'a>> {
    if !can_require_input && params.request_state.is_none() {
        return Ok(StateSeal::Unneeded {
            method: methods::TOOLS_CALL,
        });
    }
    let seal = StateSeal::new(
        ctx,
        methods::TOOLS_CALL,
        || name(params),
        || arguments_digest(params.arguments.as_ref()),
    );
    params.request_state = seal.open(params.request_state.take())?;
    Ok(seal)
}

/// Seals the state of an `input_required` answer in place.
fn seal_outcome(seal: &StateSeal<'_>, outcome: &mut ToolOutcome) {
    if let Ok(CallToolResultResponseResult::InputRequiredResult(result)) = outcome
        && let Err(error) = seal.seal(result)
    {
        *outcome = Err(error);
    }
}

/// The handler of a `#[tool]` method: the server, the call and the request
/// context in, the answer out.
pub type ToolFn<S> = for<'a> fn(&'a S, ToolCall, &'a RequestContext) -> BoxFuture<'a, ToolOutcome>;

/// One `#[tool]` method as the router macro writes it down.
pub struct ToolSpec<S> {
    /// The method, for messages.
    pub method: &'static str,
    /// Builds the tool's description (schemas included); run once.
    pub describe: fn() -> Result<Tool, String>,
    /// The handler.
    pub call: ToolFn<S>,
    /// Whether the tool may run as a task (`#[tool(task = "...")]`).
    pub task: TaskSupport,
    /// The OAuth scopes a call needs (`#[tool(scopes = [...])]`).
    pub scopes: &'static [&'static str],
    /// `#[tool(hidden)]`, `#[tool(era = "...")]`.
    pub visibility: ToolVisibility,
    /// The return type's [`IntoToolResult::CAN_REQUIRE_INPUT`].
    pub can_require_input: bool,
}

/// The tools of a `#[mcp_era_server::router]` impl, described once.
pub struct ToolTable<S: 'static> {
    catalogue: Catalogue<ToolFn<S>>,
    scopes: BTreeMap<String, Vec<String>>,
    problems: Vec<String>,
    list_pages: AtomicUsize,
}

impl<S> ToolTable<S> {
    /// Describes every tool; a tool that cannot be described is left out
    /// and named in [`problems`](Self::problems).
    pub fn build(specs: &[ToolSpec<S>]) -> Self {
        let mut catalogue = Catalogue::default();
        let mut scopes = BTreeMap::new();
        let mut problems = Vec::new();
        for spec in specs {
            let described = (spec.describe)()
                .and_then(|tool| {
                    let name = tool.name.clone();
                    catalogue.insert(
                        tool,
                        true,
                        spec.task,
                        spec.visibility,
                        spec.can_require_input,
                        spec.call,
                    )?;
                    Ok(name)
                })
                .map_err(|e| format!("tool method `{}`: {e}", spec.method));
            match described {
                Ok(name) if !spec.scopes.is_empty() => {
                    scopes.insert(name, spec.scopes.iter().map(|s| (*s).to_owned()).collect());
                }
                Ok(_) => {}
                Err(problem) => problems.push(problem),
            }
        }
        Self {
            catalogue,
            scopes,
            problems,
            list_pages: AtomicUsize::new(0),
        }
    }

    /// What went wrong while describing the tools; transports refuse to
    /// start while this is not empty.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// Every described tool in declaration order, hidden and one-era ones
    /// included.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.catalogue.entries.iter().map(|e| &e.tool)
    }

    /// How many `tools/list` pages this table has served.
    pub fn list_pages_served(&self) -> usize {
        self.list_pages.load(Ordering::Relaxed)
    }

    /// `tools/list`: one page with the declared cache hints.
    pub fn list(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        self.list_pages.fetch_add(1, Ordering::Relaxed);
        self.catalogue.list(params, ctx)
    }

    /// [`list`](Self::list)'s page as the bytes of its result, each page
    /// rendered once.
    pub fn list_reply(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        self.list_pages.fetch_add(1, Ordering::Relaxed);
        self.catalogue.list_reply(params, ctx)
    }

    /// `tools/call`: an unknown name (or a tool of the other era) is
    /// `-32602 "Unknown tool: X"`; arguments that break the input schema
    /// get a failed result.
    pub async fn call(
        &self,
        server: &S,
        mut params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> ToolOutcome {
        let entry = self.catalogue.get(&params.name, ctx.era())?;
        let seal = opened(
            &mut params,
            |_| Cow::Borrowed(&entry.tool.name),
            entry.can_require_input,
            ctx,
        )?;
        let call = match ToolCall::checked(params, &entry.schemas) {
            Ok(call) => call,
            Err(violations) => return schema_failure(violations),
        };
        let mut outcome = (entry.handler)(server, call, ctx).await;
        #[cfg(debug_assertions)]
        entry.schemas.check_output(&entry.tool.name, &outcome);
        seal_outcome(&seal, &mut outcome);
        outcome
    }

    /// The `x-mcp-header` annotations of tool `name` (none for a
    /// legacy-only tool: only modern calls carry the headers).
    pub fn param_headers(&self, name: &str) -> Option<Vec<ParamHeader>> {
        Some(self.catalogue.param_headers(name).unwrap_or_default())
    }

    /// Whether tool `name` may run as a task (never for an unknown name or
    /// a legacy-only tool: legacy sessions get no tasks).
    pub fn task_support(&self, name: &str) -> TaskSupport {
        self.catalogue.task_support(name)
    }

    /// The OAuth scopes of the tools that declare some, by tool name
    /// (hidden and one-era tools included: the HTTP layer checks them by
    /// name before the era is known).
    pub fn scopes(&self) -> &BTreeMap<String, Vec<String>> {
        &self.scopes
    }
}

type DynToolFn =
    Arc<dyn Fn(ToolCall, RequestContext) -> BoxFuture<'static, ToolOutcome> + Send + Sync>;

/// Tools known only at run time (plugins, proxies): build and change the
/// catalogue without macros. Cheap to clone; clones share the catalogue.
///
/// Every change publishes `notifications/tools/list_changed` through the
/// event hub given to [`with_events`](Self::with_events) (pass the same hub
/// to the transport's config). A server serves it by delegating its
/// [`ToolsHandler`](crate::ToolsHandler) methods to the router's methods of
/// the same names:
///
/// ```
/// use mcp_era_server::mcp_era_types::v2026_07_28::prelude::*;
/// use mcp_era_server::{HandlerResult, McpServer, ParamHeader, Reply, RequestContext, ServerEvents};
/// use mcp_era_server::{ToolRouter, ToolsHandler};
///
/// #[derive(McpServer)]
/// #[mcp(name = "plugins", version = "1.0.0", tools(list_changed))]
/// struct Plugins {
///     tools: ToolRouter,
/// }
///
/// impl ToolsHandler for Plugins {
///     async fn list_tools(&self, p: PaginatedRequestParams, ctx: &RequestContext) -> HandlerResult<ListToolsResult> {
///         self.tools.list_tools(p, ctx).await
///     }
///     // Pages rendered once per catalogue version, sent as bytes.
///     async fn list_tools_reply(&self, p: PaginatedRequestParams, ctx: &RequestContext) -> HandlerResult<Reply> {
///         self.tools.list_tools_reply(p, ctx).await
///     }
///     async fn call_tool(&self, p: CallToolRequestParams, ctx: &RequestContext) -> HandlerResult<CallToolResultResponseResult> {
///         self.tools.call_tool(p, ctx).await
///     }
///     fn param_headers(&self, name: &str) -> Option<Vec<ParamHeader>> {
///         self.tools.param_headers(name)
///     }
/// }
///
/// use mcp_era_server::schemars::{self, JsonSchema};
///
/// #[derive(serde::Deserialize, JsonSchema)]
/// struct Echo { text: String }
///
/// let events = ServerEvents::new(); // also give it to `StdioConfig`/`HttpConfig`
/// let tools = ToolRouter::new().with_events(events.clone());
/// tools.add("echo", "Echoes its text", |args: Echo, _ctx| async move { args.text })?;
/// assert_eq!(tools.names(), ["echo"]);
/// let server = Plugins { tools };
/// # let _ = server;
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Default)]
pub struct ToolRouter {
    catalogue: Arc<RwLock<Catalogue<DynToolFn>>>,
    events: Option<ServerEvents>,
}

impl fmt::Debug for ToolRouter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRouter")
            .field("tools", &self.names())
            .finish_non_exhaustive()
    }
}

impl ToolRouter {
    /// An empty router that announces no changes.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same router, announcing changes on `events`.
    pub fn with_events(mut self, events: ServerEvents) -> Self {
        self.events = Some(events);
        self
    }

    fn changed(&self) {
        if let Some(events) = &self.events {
            events.tools_list_changed();
        }
    }

    /// The catalogue, to change: its rendered pages are forgotten.
    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Catalogue<DynToolFn>> {
        let mut catalogue = self
            .catalogue
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        catalogue.pages.clear();
        catalogue
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Catalogue<DynToolFn>> {
        self.catalogue
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds (or replaces, by name) a tool described by hand, whose handler
    /// reads the raw call (arguments object, retry answers and state). Fails on a name or `x-mcp-header`
    /// annotation that breaks the spec's rules, and on an `inputSchema`
    /// that does not compile (an invalid schema, a remote `$ref`, an unknown
    /// `$schema`). Calls whose arguments break the schema get a failed
    /// result naming each violation; the handler sees only valid arguments.
    pub fn add_raw<F, Fut, R>(&self, tool: Tool, handler: F) -> Result<(), String>
    where
        F: Fn(ToolCall, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        self.insert(
            tool,
            false,
            R::CAN_REQUIRE_INPUT,
            Arc::new(move |call, ctx| {
                let future = handler(call, ctx);
                Box::pin(async move { future.await.into_tool_result() })
            }),
        )
    }

    fn insert(
        &self,
        tool: Tool,
        derived: bool,
        can_require_input: bool,
        handler: DynToolFn,
    ) -> Result<(), String> {
        self.write().insert(
            tool,
            derived,
            TaskSupport::Never,
            ToolVisibility::LISTED,
            can_require_input,
            handler,
        )?;
        self.changed();
        Ok(())
    }

    /// Adds (or replaces) a tool whose arguments are one `A`: the input
    /// schema comes from `A` (an object schema), the output schema from `R`.
    /// Arguments that break that schema, or do not parse as `A`, answer a
    /// failed result naming the path.
    pub fn add<A, F, Fut, R>(&self, name: &str, description: &str, handler: F) -> Result<(), String>
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        let mut tool = Tool::new(args::input_schema_of::<A>()?, name.to_owned());
        tool.description = (!description.is_empty()).then(|| description.to_owned());
        tool.output_schema = R::output_schema().transpose()?;
        let handler = Arc::new(handler);
        self.insert(
            tool,
            true,
            R::CAN_REQUIRE_INPUT,
            Arc::new(move |call: ToolCall, ctx| {
                let handler = Arc::clone(&handler);
                Box::pin(async move {
                    match args::whole::<A>(call.arguments) {
                        Ok(parsed) => handler(parsed, ctx).await.into_tool_result(),
                        Err(error) => argument_failure(error),
                    }
                })
            }),
        )
    }

    /// Lets tool `name` run as a task (tasks extension) or not; whether
    /// the tool exists. Tools are added as [`TaskSupport::Never`].
    pub fn set_task_support(&self, name: &str, support: TaskSupport) -> bool {
        let mut catalogue = self.write();
        let Some(&at) = catalogue.by_name.get(name) else {
            return false;
        };
        catalogue.entries[at].task = support;
        true
    }

    /// Hides tool `name` from `tools/list` or limits it to one era (see
    /// [`ToolVisibility`]); whether the tool exists. Tools are added
    /// [`ToolVisibility::LISTED`]. A change announces
    /// `notifications/tools/list_changed`.
    pub fn set_visibility(&self, name: &str, visibility: ToolVisibility) -> bool {
        {
            let mut catalogue = self.write();
            let Some(&at) = catalogue.by_name.get(name) else {
                return false;
            };
            catalogue.entries[at].visibility = visibility;
        }
        self.changed();
        true
    }

    /// Whether tool `name` may run as a task (for
    /// [`ToolsHandler::task_support`](crate::ToolsHandler::task_support)).
    pub fn task_support(&self, name: &str) -> TaskSupport {
        self.read().task_support(name)
    }

    /// Removes tool `name`; whether it was there.
    pub fn remove(&self, name: &str) -> bool {
        let removed = self.write().remove(name);
        if removed {
            self.changed();
        }
        removed
    }

    /// The tool names, in listing order.
    pub fn names(&self) -> Vec<String> {
        self.read()
            .entries
            .iter()
            .map(|e| e.tool.name.clone())
            .collect()
    }

    /// `tools/list`.
    pub async fn list_tools(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListToolsResult> {
        self.read().list(&params, ctx)
    }

    /// `tools/list` as the bytes of its result (for
    /// [`ToolsHandler::list_tools_reply`](crate::ToolsHandler::list_tools_reply)):
    /// each page is rendered once until the catalogue changes.
    pub async fn list_tools_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        self.read().list_reply(&params, ctx)
    }

    /// `tools/call`: an unknown name (or a tool of the other era) is
    /// `-32602 "Unknown tool: X"`; arguments that break the input schema
    /// get a failed result.
    pub async fn call_tool(
        &self,
        mut params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> ToolOutcome {
        let (handler, schemas, can_require_input) = {
            let catalogue = self.read();
            let entry = catalogue.get(&params.name, ctx.era())?;
            (
                Arc::clone(&entry.handler),
                Arc::clone(&entry.schemas),
                entry.can_require_input,
            )
        };
        #[cfg(debug_assertions)]
        let name = params.name.clone();
        let seal = opened(
            &mut params,
            |p| Cow::Owned(p.name.clone()),
            can_require_input,
            ctx,
        )?;
        let call = match ToolCall::checked(params, &schemas) {
            Ok(call) => call,
            Err(violations) => return schema_failure(violations),
        };
        let mut outcome = handler(call, ctx.clone()).await;
        #[cfg(debug_assertions)]
        schemas.check_output(&name, &outcome);
        seal_outcome(&seal, &mut outcome);
        outcome
    }

    /// The `x-mcp-header` annotations of tool `name` (for
    /// [`ToolsHandler::param_headers`](crate::ToolsHandler::param_headers)).
    pub fn param_headers(&self, name: &str) -> Option<Vec<ParamHeader>> {
        Some(self.read().param_headers(name).unwrap_or_default())
    }
}
