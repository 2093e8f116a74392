#[automatically_derived]
impl ::mcp_server::__private::McpServer for Files {
    fn declaration() -> &'static ::mcp_server::__private::ServerDeclaration {
        static DECLARATION: ::mcp_server::__private::OnceLock<
            ::mcp_server::__private::ServerDeclaration,
        > = ::mcp_server::__private::OnceLock::new();
        DECLARATION
            .get_or_init(|| {
                let mut server_info = ::mcp_server::__private::Implementation::builder()
                    .name(::std::string::String::from("files"))
                    .version(::std::string::String::from("1.0.0"))
                    .build();
                let mut capabilities = ::mcp_server::__private::ServerCapabilities::new();
                capabilities.tools = ::core::option::Option::Some({
                    let mut c = ::mcp_server::__private::ServerCapabilitiesTools::new();
                    c.list_changed = ::core::option::Option::Some(true);
                    c
                });
                capabilities.resources = ::core::option::Option::Some(
                    ::mcp_server::__private::ServerCapabilitiesResources::new(),
                );
                capabilities.prompts = ::core::option::Option::Some(
                    ::mcp_server::__private::ServerCapabilitiesPrompts::new(),
                );
                capabilities.completions = ::core::option::Option::Some(
                    ::mcp_server::__private::JSONObject::new(),
                );
                ::mcp_server::__private::ServerDeclaration::new(
                        server_info,
                        &["2026-07-28"],
                        &["2025-11-25"],
                    )
                    .with_capabilities(capabilities)
                    .with_discover_cache(
                        ::mcp_server::__private::DEFAULT_DISCOVER_TTL_MS,
                        ::mcp_server::__private::DEFAULT_DISCOVER_CACHE_SCOPE,
                    )
                    .with_required_scopes(["mcp"])
                    .with_capability_scopes("tools", ["files:read"])
                    .with_capability_scopes("resources", ["files:read"])
                    .with_capability_scopes("completions", ["files:read", "complete"])
            })
    }
    fn dispatch_capability<'a>(
        &'a self,
        request: ::mcp_server::__private::ClientRequest,
        ctx: &'a ::mcp_server::__private::RequestContext,
    ) -> impl ::mcp_server::__private::Future<
        Output = ::mcp_server::__private::HandlerResult<::mcp_server::__private::Reply>,
    > + ::core::marker::Send + 'a {
        let routed: ::mcp_server::__private::BoxFuture<'a> = match ::mcp_server::__private::capability_of(
            &request,
        ) {
            "tools" => (Self::__MCP_TOOLS.dispatch)(self, request, ctx),
            "resources" => (Self::__MCP_RESOURCES.dispatch)(self, request, ctx),
            "prompts" => (Self::__MCP_PROMPTS.dispatch)(self, request, ctx),
            "completions" => (Self::__MCP_COMPLETIONS.dispatch)(self, request, ctx),
            _ => ::mcp_server::__private::unrouted(&request),
        };
        routed
    }
    fn tool_param_headers(
        &self,
        name: &str,
    ) -> ::core::option::Option<::std::vec::Vec<::mcp_server::__private::ParamHeader>> {
        (Self::__MCP_TOOLS.param_headers)(self, name)
    }
    fn tool_task_support(&self, name: &str) -> ::mcp_server::__private::TaskSupport {
        (Self::__MCP_TOOLS.task_support)(self, name)
    }
    fn tool_scopes(&self) -> ::mcp_server::__private::ToolScopes {
        (Self::__MCP_TOOLS.tool_scopes)(self)
    }
    fn catalogue_problems(&self) -> ::std::vec::Vec<::std::string::String> {
        let mut problems = ::std::vec::Vec::new();
        problems.extend((Self::__MCP_TOOLS.problems)(self));
        problems.extend((Self::__MCP_RESOURCES.problems)(self));
        problems.extend((Self::__MCP_PROMPTS.problems)(self));
        problems.extend((Self::__MCP_COMPLETIONS.problems)(self));
        problems
    }
}
#[automatically_derived]
impl ::mcp_server::__private::ToolsDeclared for Files {}
#[automatically_derived]
impl ::mcp_server::__private::ResourcesDeclared for Files {}
#[automatically_derived]
impl ::mcp_server::__private::PromptsDeclared for Files {}
#[automatically_derived]
impl ::mcp_server::__private::CompletionsDeclared for Files {}
#[automatically_derived]
impl Files {
    #[doc(hidden)]
    const __MCP_TOOLS: ::mcp_server::__private::CapabilityHooks<Self> = ::mcp_server::__private::tools_hooks::<
        Self,
    >();
    #[doc(hidden)]
    const __MCP_RESOURCES: ::mcp_server::__private::CapabilityHooks<Self> = ::mcp_server::__private::resources_hooks::<
        Self,
    >();
    #[doc(hidden)]
    const __MCP_PROMPTS: ::mcp_server::__private::CapabilityHooks<Self> = ::mcp_server::__private::prompts_hooks::<
        Self,
    >();
    #[doc(hidden)]
    const __MCP_COMPLETIONS: ::mcp_server::__private::CapabilityHooks<Self> = ::mcp_server::__private::completions_hooks::<
        Self,
    >();
}
