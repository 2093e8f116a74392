//! The handler traits a server author implements, one per capability.
//!
//! Declaring a capability in `#[mcp(...)]` makes the derive route that
//! capability's methods to the matching trait, so forgetting the impl is a
//! compile error that names the trait. Methods of a capability that is not
//! declared answer `-32601` without reaching any handler.
//!
//! Methods may be written as `async fn`; the returned futures must be `Send`
//! so that multi-threaded transports can run them.

use std::future::Future;

use mcp_types::v2026_07_28::{
    CallToolRequestParams, CallToolResultResponseResult, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResultResponseResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResultResponseResult,
};

use crate::context::RequestContext;
use crate::errors::HandlerResult;

/// The `tools` capability: `tools/list` and `tools/call`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares the `tools` capability but does not implement `ToolsHandler`",
    label = "`tools` declared here",
    note = "implement `mcp_server::ToolsHandler` for `{Self}`, or remove `tools` from `#[mcp(...)]`"
)]
pub trait ToolsHandler: Send + Sync {
    /// `tools/list`. The result carries its own caching hints (`ttlMs`,
    /// `cacheScope`), which the type requires.
    fn list_tools(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ListToolsResult>> + Send;

    /// `tools/call`: a complete result or an `input_required` one.
    fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<CallToolResultResponseResult>> + Send;
}

/// The `resources` capability: `resources/list`, `resources/read` and
/// `resources/templates/list`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares the `resources` capability but does not implement `ResourcesHandler`",
    label = "`resources` declared here",
    note = "implement `mcp_server::ResourcesHandler` for `{Self}`, or remove `resources` from `#[mcp(...)]`"
)]
pub trait ResourcesHandler: Send + Sync {
    /// `resources/list`.
    fn list_resources(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ListResourcesResult>> + Send;

    /// `resources/read`. A resource that does not exist is `-32602`
    /// ([`crate::errors::invalid_params`]), never `-32002`.
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
        let _ = (params, ctx);
        std::future::ready(Ok(ListResourceTemplatesResult::new(
            Vec::new(),
            mcp_types::v2026_07_28::CacheHints::public(0),
        )))
    }
}

/// The `prompts` capability: `prompts/list` and `prompts/get`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares the `prompts` capability but does not implement `PromptsHandler`",
    label = "`prompts` declared here",
    note = "implement `mcp_server::PromptsHandler` for `{Self}`, or remove `prompts` from `#[mcp(...)]`"
)]
pub trait PromptsHandler: Send + Sync {
    /// `prompts/list`.
    fn list_prompts(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ListPromptsResult>> + Send;

    /// `prompts/get`: a complete result or an `input_required` one.
    fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<GetPromptResultResponseResult>> + Send;
}

/// The `completions` capability: `completion/complete`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares the `completions` capability but does not implement `CompletionsHandler`",
    label = "`completions` declared here",
    note = "implement `mcp_server::CompletionsHandler` for `{Self}`, or remove `completions` from `#[mcp(...)]`"
)]
pub trait CompletionsHandler: Send + Sync {
    /// `completion/complete`.
    fn complete(
        &self,
        params: CompleteRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<CompleteResult>> + Send;
}
