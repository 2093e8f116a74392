//! The handler traits, one per capability.
//!
//! A `#[router]` implements them from its typed methods; a person may
//! implement them by hand instead (a capability has one or the other: the
//! two impls conflict). `#[derive(McpServer)]` declares and serves every
//! capability whose trait the server implements; writing the capability's
//! key in `#[mcp(...)]` adds its settings and makes a missing impl a compile
//! error that names the trait.
//!
//! Methods may be written as `async fn`; the returned futures must be `Send`
//! so that multi-threaded transports can run them.

use std::collections::BTreeMap;
use std::future::Future;

use mcp_era_types::v2026_07_28::{
    CallToolRequestParams, CallToolResultResponseResult, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResultResponseResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResultResponseResult,
};

use crate::model::context::RequestContext;
use crate::wire::errors::HandlerResult;
use crate::wire::reply::{self, Reply};

/// One `x-mcp-header` annotation: argument `argument` is mirrored in the
/// HTTP header `Mcp-Param-{header}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// The argument (input schema property) name.
    pub argument: String,
    /// The header name suffix, lower-cased.
    pub header: String,
}

/// Whether a tool may run as a task. The wire carries no such flag: it
/// only feeds the server's own decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    /// Always synchronous.
    #[default]
    Never,
    /// A task when the request declared the extension, else synchronous.
    Optional,
    /// A task when the request declared the extension, else `-32021`.
    Required,
}

/// The `tools` capability: `tools/list` and `tools/call`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares the `tools` capability but has no `#[tool]` method and does not implement `ToolsHandler`",
    label = "`tools` declared here",
    note = "a `#[tool]` method in a `#[router]` impl of `{Self}` serves `tools` (then write `tools(...)` only for its settings); or implement `mcp_era_server::ToolsHandler` by hand, or remove `tools` from `#[mcp(...)]`"
)]
pub trait ToolsHandler: Send + Sync {
    /// `tools/list`. The result carries its own caching hints (`ttlMs`,
    /// `cacheScope`), which the type requires.
    fn list_tools(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ListToolsResult>> + Send;

    /// `tools/list` as the bytes of its result, which the runtime sends as
    /// they are. The default renders [`list_tools`](Self::list_tools)'s
    /// result; a handler over a [`ToolRouter`](crate::ToolRouter) returns
    /// [`ToolRouter::list_tools_reply`](crate::ToolRouter::list_tools_reply),
    /// whose pages are rendered once per catalogue version.
    fn list_tools_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Reply>> + Send {
        async move {
            reply::render(
                self.list_tools(params, ctx).await?,
                ctx.result_server_info(),
            )
        }
    }

    /// `tools/call`: a complete result or an `input_required` one.
    fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<CallToolResultResponseResult>> + Send;

    /// The `x-mcp-header` annotations of tool `name`'s arguments, which the
    /// HTTP transport checks against the `Mcp-Param-*` headers. `Some` when
    /// the handler knows its catalogue (a `#[router]` or a
    /// [`ToolRouter`](crate::ToolRouter) does); the default `None` makes the
    /// runtime read them from `tools/list`.
    fn param_headers(&self, name: &str) -> Option<Vec<ParamHeader>> {
        let _ = name;
        None
    }

    /// Whether tool `name` may run as a task when the server declares the
    /// tasks extension ([`TaskSupport`](TaskSupport); the
    /// default: never). A `#[router]` answers from
    /// `#[tool(task = "...")]`.
    fn task_support(&self, name: &str) -> TaskSupport {
        let _ = name;
        TaskSupport::Never
    }

    /// What is wrong with the tool catalogue (a schema that cannot be made,
    /// a bad `x-mcp-header`); the transports refuse to start while this is
    /// not empty.
    fn tool_catalogue_problems(&self) -> Vec<String> {
        Vec::new()
    }

    /// The OAuth scopes a `tools/call` of each tool needs, by tool name
    /// (default: none). A `#[router]` answers from
    /// `#[tool(scopes = [...])]`; the HTTP transport with `auth` adds them
    /// to `AuthConfig::tool_scopes` once, at start.
    fn tool_scopes(&self) -> BTreeMap<String, Vec<String>> {
        BTreeMap::new()
    }
}

/// The `resources` capability: `resources/list`, `resources/read` and
/// `resources/templates/list`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares the `resources` capability but has no `#[resource]` method and does not implement `ResourcesHandler`",
    label = "`resources` declared here",
    note = "a `#[resource]` method in a `#[router]` impl of `{Self}` serves `resources` (then write `resources(...)` only for its settings); or implement `mcp_era_server::ResourcesHandler` by hand, or remove `resources` from `#[mcp(...)]`"
)]
pub trait ResourcesHandler: Send + Sync {
    /// `resources/list`.
    fn list_resources(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ListResourcesResult>> + Send;

    /// `resources/list` as the bytes of its result; the default renders
    /// [`list_resources`](Self::list_resources)'s result (a `#[router]`
    /// keeps its pages rendered).
    fn list_resources_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Reply>> + Send {
        async move {
            reply::render(
                self.list_resources(params, ctx).await?,
                ctx.result_server_info(),
            )
        }
    }

    /// `resources/read`. A resource that does not exist is
    /// [`resource_not_found`](crate::errors::resource_not_found): `-32602`
    /// with `data.uri`, which the runtime turns into `-32002` for legacy
    /// sessions (a plain `invalid_params` stays `-32602` in both eras).
    fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ReadResourceResultResponseResult>> + Send;

    /// `resources/templates/list`. The default answers an empty list with
    /// `ttlMs: 0` and `cacheScope: "public"` (no templates, nothing to
    /// cache, nothing user-specific).
    fn list_resource_templates(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ListResourceTemplatesResult>> + Send {
        let _ = ctx;
        // No templates, so no cursor was ever issued: any cursor is invalid.
        std::future::ready(match params.cursor {
            Some(cursor) => Err(crate::wire::errors::invalid_params(format!(
                "Invalid cursor: {cursor}"
            ))),
            None => Ok(ListResourceTemplatesResult::new(
                Vec::new(),
                mcp_era_types::v2026_07_28::CacheHints::public(0),
            )),
        })
    }

    /// `resources/templates/list` as the bytes of its result; the default
    /// renders [`list_resource_templates`](Self::list_resource_templates)'s.
    fn list_resource_templates_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Reply>> + Send {
        async move {
            reply::render(
                self.list_resource_templates(params, ctx).await?,
                ctx.result_server_info(),
            )
        }
    }

    /// What is wrong with the resource catalogue (a bad URI template, a
    /// URI served twice); the transports refuse to start while this is not
    /// empty.
    fn resource_catalogue_problems(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The `prompts` capability: `prompts/list` and `prompts/get`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares the `prompts` capability but has no `#[prompt]` method and does not implement `PromptsHandler`",
    label = "`prompts` declared here",
    note = "a `#[prompt]` method in a `#[router]` impl of `{Self}` serves `prompts` (then write `prompts(...)` only for its settings); or implement `mcp_era_server::PromptsHandler` by hand, or remove `prompts` from `#[mcp(...)]`"
)]
pub trait PromptsHandler: Send + Sync {
    /// `prompts/list`.
    fn list_prompts(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ListPromptsResult>> + Send;

    /// `prompts/list` as the bytes of its result; the default renders
    /// [`list_prompts`](Self::list_prompts)'s result (a `#[router]` and a
    /// [`PromptRouter`](crate::PromptRouter) keep their pages rendered).
    fn list_prompts_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Reply>> + Send {
        async move {
            reply::render(
                self.list_prompts(params, ctx).await?,
                ctx.result_server_info(),
            )
        }
    }

    /// `prompts/get`: a complete result or an `input_required` one.
    fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<GetPromptResultResponseResult>> + Send;
}

/// The most values one `completion/complete` answer may carry (the
/// schema's `maxItems`); the transport cuts a longer list and sets
/// `hasMore`.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// The `completions` capability: `completion/complete`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares the `completions` capability but completes nothing and does not implement `CompletionsHandler`",
    label = "`completions` declared here",
    note = "`#[arg(complete = Self::method)]` on a `#[prompt]` argument or template variable (or a string-enum argument type) serves `completions`; or implement `mcp_era_server::CompletionsHandler` by hand, or remove `completions` from `#[mcp(...)]`"
)]
pub trait CompletionsHandler: Send + Sync {
    /// `completion/complete`. Values past [`MAX_COMPLETION_VALUES`] are
    /// cut from the answer.
    fn complete(
        &self,
        params: CompleteRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<CompleteResult>> + Send;

    /// Whether the server offers `completions` when `#[mcp(...)]` does not
    /// write the key: `#[derive(McpServer)]` asks it once, when it builds
    /// the declaration. A `#[router]` offers it when some argument completes
    /// to something; the default is yes.
    fn offers_completions(&self) -> bool {
        true
    }
}
