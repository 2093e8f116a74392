//! Which handler traits a derived server implements, asked of the
//! compiler by method resolution ("autoref specialization").
//!
//! `#[derive(McpServer)]` cannot name the router of its type, nor ask
//! whether a trait is implemented. `(&Probe::<S>::NEW).m()` resolves to
//! `Has*::m` (implemented for `Probe<S>` when `S` implements the handler
//! trait) before `Lacks*::m` (implemented for `&Probe<S>`, one autoref
//! further, for every `S`). A `#[router]` implements the handler traits
//! through its tables (`router/routed.rs`); a person implements them by
//! hand. A capability written in `#[mcp(...)]` is also required
//! (`requires_tools` and the like), so that a missing impl is an error
//! naming the trait.

use mcp_era_types::v2026_07_28::ClientRequest;

use super::{
    BoxFuture, CompletionsHandler, ParamHeader, PromptsHandler, RequestContext, ResourcesHandler,
    TaskSupport, ToolScopes, ToolsHandler, dispatch_completions, dispatch_prompts,
    dispatch_resources, dispatch_tools, unrouted,
};

/// Asks which handler traits `S` implements (see the module docs).
pub struct Probe<S>(std::marker::PhantomData<fn() -> S>);

impl<S> Probe<S> {
    /// The probe.
    pub const NEW: Self = Self(std::marker::PhantomData);
}

/// `tools`, served by `S`'s [`ToolsHandler`].
pub trait HasTools<S> {
    /// Whether the capability is offered.
    fn offers_tools(&self, server: &S) -> bool;
    /// Routes a `tools/*` request.
    fn dispatch_tools<'a>(
        &self,
        server: &'a S,
        request: ClientRequest,
        ctx: &'a RequestContext,
    ) -> BoxFuture<'a>;
    /// See [`ToolsHandler::param_headers`].
    fn tool_headers(&self, server: &S, name: &str) -> Option<Vec<ParamHeader>>;
    /// See [`ToolsHandler::task_support`].
    fn tool_tasks(&self, server: &S, name: &str) -> TaskSupport;
    /// See [`ToolsHandler::tool_scopes`].
    fn tool_scopes_of(&self, server: &S) -> ToolScopes;
    /// See [`ToolsHandler::tool_catalogue_problems`].
    fn tool_problems(&self, server: &S) -> Vec<String>;
}

impl<S: ToolsHandler> HasTools<S> for Probe<S> {
    fn offers_tools(&self, _: &S) -> bool {
        true
    }
    fn dispatch_tools<'a>(
        &self,
        server: &'a S,
        request: ClientRequest,
        ctx: &'a RequestContext,
    ) -> BoxFuture<'a> {
        dispatch_tools(server, request, ctx)
    }
    fn tool_headers(&self, server: &S, name: &str) -> Option<Vec<ParamHeader>> {
        server.param_headers(name)
    }
    fn tool_tasks(&self, server: &S, name: &str) -> TaskSupport {
        server.task_support(name)
    }
    fn tool_scopes_of(&self, server: &S) -> ToolScopes {
        server.tool_scopes()
    }
    fn tool_problems(&self, server: &S) -> Vec<String> {
        server.tool_catalogue_problems()
    }
}

/// No `tools`.
pub trait LacksTools<S> {
    /// Not offered.
    fn offers_tools(&self, _: &S) -> bool {
        false
    }
    /// `-32601`.
    fn dispatch_tools<'a>(
        &self,
        _: &'a S,
        request: ClientRequest,
        _: &'a RequestContext,
    ) -> BoxFuture<'a> {
        unrouted(&request)
    }
    /// None: the runtime reads them from `tools/list`.
    fn tool_headers(&self, _: &S, _: &str) -> Option<Vec<ParamHeader>> {
        None
    }
    /// Never.
    fn tool_tasks(&self, _: &S, _: &str) -> TaskSupport {
        TaskSupport::Never
    }
    /// None.
    fn tool_scopes_of(&self, _: &S) -> ToolScopes {
        ToolScopes::new()
    }
    /// None.
    fn tool_problems(&self, _: &S) -> Vec<String> {
        Vec::new()
    }
}
impl<S> LacksTools<S> for &Probe<S> {}

/// `resources`, served by `S`'s [`ResourcesHandler`].
pub trait HasResources<S> {
    /// Whether the capability is offered.
    fn offers_resources(&self, server: &S) -> bool;
    /// Routes a `resources/*` request.
    fn dispatch_resources<'a>(
        &self,
        server: &'a S,
        request: ClientRequest,
        ctx: &'a RequestContext,
    ) -> BoxFuture<'a>;
    /// See [`ResourcesHandler::resource_catalogue_problems`].
    fn resource_problems(&self, server: &S) -> Vec<String>;
}

impl<S: ResourcesHandler> HasResources<S> for Probe<S> {
    fn offers_resources(&self, _: &S) -> bool {
        true
    }
    fn dispatch_resources<'a>(
        &self,
        server: &'a S,
        request: ClientRequest,
        ctx: &'a RequestContext,
    ) -> BoxFuture<'a> {
        dispatch_resources(server, request, ctx)
    }
    fn resource_problems(&self, server: &S) -> Vec<String> {
        server.resource_catalogue_problems()
    }
}

/// No `resources`.
pub trait LacksResources<S> {
    /// Not offered.
    fn offers_resources(&self, _: &S) -> bool {
        false
    }
    /// `-32601`.
    fn dispatch_resources<'a>(
        &self,
        _: &'a S,
        request: ClientRequest,
        _: &'a RequestContext,
    ) -> BoxFuture<'a> {
        unrouted(&request)
    }
    /// None.
    fn resource_problems(&self, _: &S) -> Vec<String> {
        Vec::new()
    }
}
impl<S> LacksResources<S> for &Probe<S> {}

/// `prompts`, served by `S`'s [`PromptsHandler`].
pub trait HasPrompts<S> {
    /// Whether the capability is offered.
    fn offers_prompts(&self, server: &S) -> bool;
    /// Routes a `prompts/*` request.
    fn dispatch_prompts<'a>(
        &self,
        server: &'a S,
        request: ClientRequest,
        ctx: &'a RequestContext,
    ) -> BoxFuture<'a>;
}

impl<S: PromptsHandler> HasPrompts<S> for Probe<S> {
    fn offers_prompts(&self, _: &S) -> bool {
        true
    }
    fn dispatch_prompts<'a>(
        &self,
        server: &'a S,
        request: ClientRequest,
        ctx: &'a RequestContext,
    ) -> BoxFuture<'a> {
        dispatch_prompts(server, request, ctx)
    }
}

/// No `prompts`.
pub trait LacksPrompts<S> {
    /// Not offered.
    fn offers_prompts(&self, _: &S) -> bool {
        false
    }
    /// `-32601`.
    fn dispatch_prompts<'a>(
        &self,
        _: &'a S,
        request: ClientRequest,
        _: &'a RequestContext,
    ) -> BoxFuture<'a> {
        unrouted(&request)
    }
}
impl<S> LacksPrompts<S> for &Probe<S> {}

/// `completions`, served by `S`'s [`CompletionsHandler`].
pub trait HasCompletions<S> {
    /// Whether the capability is offered.
    fn offers_completions(&self, server: &S) -> bool;
    /// Routes `completion/complete`.
    fn dispatch_completions<'a>(
        &self,
        server: &'a S,
        request: ClientRequest,
        ctx: &'a RequestContext,
    ) -> BoxFuture<'a>;
}

impl<S: CompletionsHandler> HasCompletions<S> for Probe<S> {
    fn offers_completions(&self, server: &S) -> bool {
        server.offers_completions()
    }
    fn dispatch_completions<'a>(
        &self,
        server: &'a S,
        request: ClientRequest,
        ctx: &'a RequestContext,
    ) -> BoxFuture<'a> {
        dispatch_completions(server, request, ctx)
    }
}

/// No `completions`.
pub trait LacksCompletions<S> {
    /// Not offered.
    fn offers_completions(&self, _: &S) -> bool {
        false
    }
    /// `-32601`.
    fn dispatch_completions<'a>(
        &self,
        _: &'a S,
        request: ClientRequest,
        _: &'a RequestContext,
    ) -> BoxFuture<'a> {
        unrouted(&request)
    }
}
impl<S> LacksCompletions<S> for &Probe<S> {}

/// Requires `tools` of a server whose `#[mcp(...)]` writes the key.
pub const fn requires_tools<S: ToolsHandler>() {}
/// Requires `resources` of a server whose `#[mcp(...)]` writes the key.
pub const fn requires_resources<S: ResourcesHandler>() {}
/// Requires `prompts` of a server whose `#[mcp(...)]` writes the key.
pub const fn requires_prompts<S: PromptsHandler>() {}
/// Requires `completions` of a server whose `#[mcp(...)]` writes the key.
pub const fn requires_completions<S: CompletionsHandler>() {}
