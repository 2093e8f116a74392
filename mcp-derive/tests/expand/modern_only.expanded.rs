#[automatically_derived]
impl ::mcp_era_server::__private::McpServer for ModernOnly {
    fn declaration(
        &self,
    ) -> ::mcp_era_server::__private::Arc<
        ::mcp_era_server::__private::ServerDeclaration,
    > {
        static DECLARATION: ::mcp_era_server::__private::OnceLock<
            ::mcp_era_server::__private::Arc<
                ::mcp_era_server::__private::ServerDeclaration,
            >,
        > = ::mcp_era_server::__private::OnceLock::new();
        ::mcp_era_server::__private::Arc::clone(
            DECLARATION
                .get_or_init(|| {
                    let mut server_info = ::mcp_era_server::__private::Implementation::builder()
                        .name(::std::string::String::from("modern"))
                        .version(::std::string::String::from("1.0.0"))
                        .build();
                    let mut capabilities = ::mcp_era_server::__private::ServerCapabilities::new();
                    if <Self as ::mcp_era_server::__private::Served>::SERVED
                        .tools
                        .as_ref()
                        .is_some_and(|hooks| (hooks.offered)())
                    {
                        capabilities.tools = ::core::option::Option::Some(
                            ::mcp_era_server::__private::ServerCapabilitiesTools::new(),
                        );
                    }
                    if <Self as ::mcp_era_server::__private::Served>::SERVED
                        .resources
                        .as_ref()
                        .is_some_and(|hooks| (hooks.offered)())
                    {
                        capabilities.resources = ::core::option::Option::Some(
                            ::mcp_era_server::__private::ServerCapabilitiesResources::new(),
                        );
                    }
                    if <Self as ::mcp_era_server::__private::Served>::SERVED
                        .prompts
                        .as_ref()
                        .is_some_and(|hooks| (hooks.offered)())
                    {
                        capabilities.prompts = ::core::option::Option::Some(
                            ::mcp_era_server::__private::ServerCapabilitiesPrompts::new(),
                        );
                    }
                    if <Self as ::mcp_era_server::__private::Served>::SERVED
                        .completions
                        .as_ref()
                        .is_some_and(|hooks| (hooks.offered)())
                    {
                        capabilities.completions = ::core::option::Option::Some(
                            ::mcp_era_server::__private::JSONObject::new(),
                        );
                    }
                    ::mcp_era_server::__private::Arc::new(
                        ::mcp_era_server::__private::checked_declaration(
                                server_info,
                                &["2026-07-28"],
                                &[],
                            )
                            .with_capabilities(capabilities)
                            .with_discover_cache(
                                ::mcp_era_server::__private::DEFAULT_DISCOVER_TTL_MS,
                                ::mcp_era_server::__private::DEFAULT_DISCOVER_CACHE_SCOPE,
                            ),
                    )
                }),
        )
    }
    fn dispatch_capability<'a>(
        &'a self,
        request: ::mcp_era_server::__private::ClientRequest,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> impl ::mcp_era_server::__private::Future<
        Output = ::mcp_era_server::__private::HandlerResult<
            ::mcp_era_server::__private::Reply,
        >,
    > + ::core::marker::Send + 'a {
        let routed: ::mcp_era_server::__private::BoxFuture<'a> = match ::mcp_era_server::__private::capability_of(
            &request,
        ) {
            "tools" => {
                match &<Self as ::mcp_era_server::__private::Served>::SERVED.tools {
                    ::core::option::Option::Some(hooks) => {
                        (hooks.dispatch)(self, request, ctx)
                    }
                    ::core::option::Option::None => {
                        ::mcp_era_server::__private::unrouted(&request)
                    }
                }
            }
            "resources" => {
                match &<Self as ::mcp_era_server::__private::Served>::SERVED.resources {
                    ::core::option::Option::Some(hooks) => {
                        (hooks.dispatch)(self, request, ctx)
                    }
                    ::core::option::Option::None => {
                        ::mcp_era_server::__private::unrouted(&request)
                    }
                }
            }
            "prompts" => {
                match &<Self as ::mcp_era_server::__private::Served>::SERVED.prompts {
                    ::core::option::Option::Some(hooks) => {
                        (hooks.dispatch)(self, request, ctx)
                    }
                    ::core::option::Option::None => {
                        ::mcp_era_server::__private::unrouted(&request)
                    }
                }
            }
            "completions" => {
                match &<Self as ::mcp_era_server::__private::Served>::SERVED.completions
                {
                    ::core::option::Option::Some(hooks) => {
                        (hooks.dispatch)(self, request, ctx)
                    }
                    ::core::option::Option::None => {
                        ::mcp_era_server::__private::unrouted(&request)
                    }
                }
            }
            _ => ::mcp_era_server::__private::unrouted(&request),
        };
        routed
    }
    fn tool_param_headers(
        &self,
        name: &str,
    ) -> ::core::option::Option<
        ::std::vec::Vec<::mcp_era_server::__private::ParamHeader>,
    > {
        match &<Self as ::mcp_era_server::__private::Served>::SERVED.tools {
            ::core::option::Option::Some(hooks) => (hooks.param_headers)(self, name),
            ::core::option::Option::None => ::core::option::Option::None,
        }
    }
    fn tool_task_support(&self, name: &str) -> ::mcp_era_server::__private::TaskSupport {
        match &<Self as ::mcp_era_server::__private::Served>::SERVED.tools {
            ::core::option::Option::Some(hooks) => (hooks.task_support)(self, name),
            ::core::option::Option::None => {
                ::mcp_era_server::__private::TaskSupport::Never
            }
        }
    }
    fn tool_scopes(&self) -> ::mcp_era_server::__private::ToolScopes {
        match &<Self as ::mcp_era_server::__private::Served>::SERVED.tools {
            ::core::option::Option::Some(hooks) => (hooks.tool_scopes)(self),
            ::core::option::Option::None => {
                ::mcp_era_server::__private::ToolScopes::new()
            }
        }
    }
    fn catalogue_problems(&self) -> ::std::vec::Vec<::std::string::String> {
        let served = &<Self as ::mcp_era_server::__private::Served>::SERVED;
        let mut problems = ::std::vec::Vec::new();
        for hooks in [
            &served.tools,
            &served.resources,
            &served.prompts,
            &served.completions,
        ]
            .into_iter()
            .flatten()
        {
            problems.extend((hooks.problems)(self));
        }
        problems
    }
}
#[automatically_derived]
impl ::mcp_era_server::__private::Served for ModernOnly {
    const SERVED: ::mcp_era_server::__private::Routed<Self> = ::mcp_era_server::__private::Routed {
        tools: {
            #[allow(unused_imports)]
            use ::mcp_era_server::__private::NothingRouted as _;
            Self::__MCP_ROUTED.tools
        },
        resources: {
            #[allow(unused_imports)]
            use ::mcp_era_server::__private::NothingRouted as _;
            Self::__MCP_ROUTED.resources
        },
        prompts: {
            #[allow(unused_imports)]
            use ::mcp_era_server::__private::NothingRouted as _;
            Self::__MCP_ROUTED.prompts
        },
        completions: {
            #[allow(unused_imports)]
            use ::mcp_era_server::__private::NothingRouted as _;
            Self::__MCP_ROUTED.completions
        },
    };
    const EXTENSIONS: &'static [&'static str] = &[];
}
