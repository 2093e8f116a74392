#[automatically_derived]
impl ::mcp_era_server::__private::McpServer for Files {
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
                    #[allow(unused_imports)]
                    use ::mcp_era_server::__private::probe::*;
                    #[allow(unused_variables)]
                    let probe = &::mcp_era_server::__private::probe::Probe::<Self>::NEW;
                    let mut server_info = ::mcp_era_server::__private::Implementation::builder()
                        .name(::std::string::String::from("files"))
                        .version(::std::string::String::from("1.0.0"))
                        .build();
                    let mut capabilities = ::mcp_era_server::__private::ServerCapabilities::new();
                    ::mcp_era_server::__private::probe::requires_tools::<Self>();
                    capabilities.tools = ::core::option::Option::Some({
                        let mut c = ::mcp_era_server::__private::ServerCapabilitiesTools::new();
                        c.list_changed = ::core::option::Option::Some(true);
                        c
                    });
                    ::mcp_era_server::__private::probe::requires_resources::<Self>();
                    capabilities.resources = ::core::option::Option::Some(
                        ::mcp_era_server::__private::ServerCapabilitiesResources::new(),
                    );
                    ::mcp_era_server::__private::probe::requires_prompts::<Self>();
                    capabilities.prompts = ::core::option::Option::Some(
                        ::mcp_era_server::__private::ServerCapabilitiesPrompts::new(),
                    );
                    ::mcp_era_server::__private::probe::requires_completions::<Self>();
                    capabilities.completions = ::core::option::Option::Some(
                        ::mcp_era_server::__private::JSONObject::new(),
                    );
                    ::mcp_era_server::__private::Arc::new(
                        ::mcp_era_server::__private::checked_declaration(
                                server_info,
                                &["2026-07-28"],
                                &["2025-11-25"],
                            )
                            .with_capabilities(capabilities)
                            .with_discover_cache(
                                ::mcp_era_server::__private::DEFAULT_DISCOVER_TTL_MS,
                                ::mcp_era_server::__private::DEFAULT_DISCOVER_CACHE_SCOPE,
                            )
                            .with_required_scopes(["mcp"])
                            .with_capability_scopes("tools", ["files:read"])
                            .with_capability_scopes("resources", ["files:read"])
                            .with_capability_scopes(
                                "completions",
                                ["files:read", "complete"],
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
        #[allow(unused_imports)]
        use ::mcp_era_server::__private::probe::*;
        #[allow(unused_variables)]
        let probe = &::mcp_era_server::__private::probe::Probe::<Self>::NEW;
        let routed: ::mcp_era_server::__private::BoxFuture<'a> = match ::mcp_era_server::__private::capability_of(
            &request,
        ) {
            ::mcp_era_server::__private::Capability::Tools => {
                probe.dispatch_tools(self, request, ctx)
            }
            ::mcp_era_server::__private::Capability::Resources => {
                probe.dispatch_resources(self, request, ctx)
            }
            ::mcp_era_server::__private::Capability::Prompts => {
                probe.dispatch_prompts(self, request, ctx)
            }
            ::mcp_era_server::__private::Capability::Completions => {
                probe.dispatch_completions(self, request, ctx)
            }
            ::mcp_era_server::__private::Capability::None => {
                ::mcp_era_server::__private::unrouted(&request)
            }
        };
        routed
    }
    fn tool_param_headers(
        &self,
        name: &str,
    ) -> ::core::option::Option<
        ::std::vec::Vec<::mcp_era_server::__private::ParamHeader>,
    > {
        #[allow(unused_imports)]
        use ::mcp_era_server::__private::probe::*;
        #[allow(unused_variables)]
        let probe = &::mcp_era_server::__private::probe::Probe::<Self>::NEW;
        probe.tool_headers(self, name)
    }
    fn tool_task_support(&self, name: &str) -> ::mcp_era_server::__private::TaskSupport {
        #[allow(unused_imports)]
        use ::mcp_era_server::__private::probe::*;
        #[allow(unused_variables)]
        let probe = &::mcp_era_server::__private::probe::Probe::<Self>::NEW;
        probe.tool_tasks(self, name)
    }
    fn tool_scopes(&self) -> ::mcp_era_server::__private::ToolScopes {
        #[allow(unused_imports)]
        use ::mcp_era_server::__private::probe::*;
        #[allow(unused_variables)]
        let probe = &::mcp_era_server::__private::probe::Probe::<Self>::NEW;
        probe.tool_scopes_of(self)
    }
    fn catalogue_problems(&self) -> ::std::vec::Vec<::std::string::String> {
        #[allow(unused_imports)]
        use ::mcp_era_server::__private::probe::*;
        #[allow(unused_variables)]
        let probe = &::mcp_era_server::__private::probe::Probe::<Self>::NEW;
        let mut problems = probe.tool_problems(self);
        problems.extend(probe.resource_problems(self));
        problems
    }
}
#[automatically_derived]
impl ::mcp_era_server::__private::Derived for Files {
    const GENERIC: bool = false;
    const RESOURCES: bool = true;
    const EXTENSIONS: &'static [&'static str] = &[];
}
