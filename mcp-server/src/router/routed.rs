//! How a `#[router]` serves: it implements one of these traits per
//! capability it has methods for (its table, built on first use), and the
//! blanket impls here make that table the capability's handler trait.
//!
//! A hand-written handler of the same capability conflicts with the
//! blanket impl, so a capability is served by a router or by hand, never
//! both.

use std::collections::BTreeMap;
use std::future::Future;

use mcp_era_types::v2026_07_28::{
    CallToolRequestParams, CallToolResultResponseResult, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResultResponseResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResultResponseResult,
};

use crate::model::context::RequestContext;
use crate::model::handlers::{
    CompletionsHandler, ParamHeader, PromptsHandler, ResourcesHandler, TaskSupport, ToolsHandler,
};
use crate::router::completions::CompletionTable;
use crate::router::prompts::PromptTable;
use crate::router::resources::ResourceTable;
use crate::router::tools::ToolTable;
use crate::wire::errors::HandlerResult;
use crate::wire::reply::Reply;

/// The tools of a `#[router]` impl.
pub trait RoutedTools: Send + Sync + Sized + 'static {
    /// The tool table.
    fn tool_table() -> &'static ToolTable<Self>;
}

/// The resources and templates of a `#[router]` impl.
pub trait RoutedResources: Send + Sync + Sized + 'static {
    /// The resource table.
    fn resource_table() -> &'static ResourceTable<Self>;
}

/// The prompts of a `#[router]` impl.
pub trait RoutedPrompts: Send + Sync + Sized + 'static {
    /// The prompt table.
    fn prompt_table() -> &'static PromptTable<Self>;
}

/// The completers of a `#[router]` impl.
pub trait RoutedCompletions: Send + Sync + Sized + 'static {
    /// The completion table.
    fn completion_table() -> &'static CompletionTable<Self>;
}

#[diagnostic::do_not_recommend]
impl<S: RoutedTools> ToolsHandler for S {
    fn list_tools(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ListToolsResult>> + Send {
        std::future::ready(S::tool_table().list(&params, ctx))
    }

    fn list_tools_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Reply>> + Send {
        std::future::ready(S::tool_table().list_reply(&params, ctx))
    }

    fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<CallToolResultResponseResult>> + Send {
        S::tool_table().call(self, params, ctx)
    }

    fn param_headers(&self, name: &str) -> Option<Vec<ParamHeader>> {
        S::tool_table().param_headers(name)
    }

    fn task_support(&self, name: &str) -> TaskSupport {
        S::tool_table().task_support(name)
    }

    fn tool_catalogue_problems(&self) -> Vec<String> {
        S::tool_table().problems().to_vec()
    }

    fn tool_scopes(&self) -> BTreeMap<String, Vec<String>> {
        S::tool_table().scopes().clone()
    }
}

#[diagnostic::do_not_recommend]
impl<S: RoutedResources> ResourcesHandler for S {
    fn list_resources(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ListResourcesResult>> + Send {
        S::resource_table().list(self, params, ctx)
    }

    fn list_resources_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Reply>> + Send {
        S::resource_table().list_reply(self, params, ctx)
    }

    fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ReadResourceResultResponseResult>> + Send {
        S::resource_table().read(self, params, ctx)
    }

    fn list_resource_templates(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ListResourceTemplatesResult>> + Send {
        std::future::ready(S::resource_table().list_templates(&params, ctx))
    }

    fn list_resource_templates_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Reply>> + Send {
        std::future::ready(S::resource_table().list_templates_reply(&params, ctx))
    }

    fn resource_catalogue_problems(&self) -> Vec<String> {
        S::resource_table().problems().to_vec()
    }
}

#[diagnostic::do_not_recommend]
impl<S: RoutedPrompts> PromptsHandler for S {
    fn list_prompts(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<ListPromptsResult>> + Send {
        std::future::ready(S::prompt_table().list(&params, ctx))
    }

    fn list_prompts_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Reply>> + Send {
        std::future::ready(S::prompt_table().list_reply(&params, ctx))
    }

    fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<GetPromptResultResponseResult>> + Send {
        S::prompt_table().get(self, params, ctx)
    }
}

#[diagnostic::do_not_recommend]
impl<S: RoutedCompletions> CompletionsHandler for S {
    fn complete(
        &self,
        params: CompleteRequestParams,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<CompleteResult>> + Send {
        S::completion_table().complete(self, params, ctx)
    }

    fn offers_completions(&self) -> bool {
        S::completion_table().offered()
    }
}
