#[automatically_derived]
impl<T: Clone> my_runtime::__private::McpServer for Weather<T>
where
    T: Send,
{
    fn declaration(
        &self,
    ) -> my_runtime::__private::Arc<my_runtime::__private::ServerDeclaration> {
        static DECLARATION: my_runtime::__private::OnceLock<
            my_runtime::__private::Arc<my_runtime::__private::ServerDeclaration>,
        > = my_runtime::__private::OnceLock::new();
        my_runtime::__private::Arc::clone(
            DECLARATION
                .get_or_init(|| {
                    #[allow(unused_imports)]
                    use my_runtime::__private::probe::*;
                    #[allow(unused_variables)]
                    let probe = &my_runtime::__private::probe::Probe::<Self>::NEW;
                    let mut server_info = my_runtime::__private::Implementation::builder()
                        .name(::std::string::String::from("weather"))
                        .version(::std::string::String::from("1.0.0"))
                        .build();
                    server_info.title = ::core::option::Option::Some(
                        ::std::string::String::from("Weather"),
                    );
                    server_info.description = ::core::option::Option::Some(
                        ::std::string::String::from("Forecasts"),
                    );
                    server_info.website_url = ::core::option::Option::Some(
                        ::std::string::String::from("https://example.com"),
                    );
                    server_info.icons = ::core::option::Option::Some(
                        ::std::vec![
                            { let mut icon =
                            my_runtime::__private::Icon::new(::std::string::String::from("https://example.com/i.svg"));
                            icon.mime_type =
                            ::core::option::Option::Some(::std::string::String::from("image/svg+xml"));
                            icon.sizes =
                            ::core::option::Option::Some(::std::vec![::std::string::String::from("any")]);
                            icon.theme =
                            ::core::option::Option::Some(my_runtime::__private::IconTheme::Light);
                            icon }
                        ],
                    );
                    let mut capabilities = my_runtime::__private::ServerCapabilities::new();
                    my_runtime::__private::probe::requires_tools::<Self>();
                    capabilities.tools = ::core::option::Option::Some({
                        let mut c = my_runtime::__private::ServerCapabilitiesTools::new();
                        c.list_changed = ::core::option::Option::Some(true);
                        c
                    });
                    my_runtime::__private::probe::requires_resources::<Self>();
                    capabilities.resources = ::core::option::Option::Some({
                        let mut c = my_runtime::__private::ServerCapabilitiesResources::new();
                        c.list_changed = ::core::option::Option::Some(true);
                        c.subscribe = ::core::option::Option::Some(true);
                        c
                    });
                    my_runtime::__private::probe::requires_prompts::<Self>();
                    capabilities.prompts = ::core::option::Option::Some(
                        my_runtime::__private::ServerCapabilitiesPrompts::new(),
                    );
                    my_runtime::__private::probe::requires_completions::<Self>();
                    capabilities.completions = ::core::option::Option::Some(
                        my_runtime::__private::JSONObject::new(),
                    );
                    capabilities.logging = ::core::option::Option::Some(
                        my_runtime::__private::JSONObject::new(),
                    );
                    capabilities.experimental = ::core::option::Option::Some({
                        let mut map = ::std::collections::BTreeMap::new();
                        map.insert(
                            ::std::string::String::from("fancy"),
                            my_runtime::__private::settings(
                                "{\"level\":-2,\"ratio\":0.5,\"tags\":[\"a\",null,true]}",
                            ),
                        );
                        map
                    });
                    capabilities.extensions = ::core::option::Option::Some({
                        let mut map = ::std::collections::BTreeMap::new();
                        map.insert(
                            ::std::string::String::from("io.modelcontextprotocol/tasks"),
                            my_runtime::__private::settings("{\"list\":{}}"),
                        );
                        map.insert(
                            ::std::string::String::from("com.example/ui"),
                            my_runtime::__private::settings("{}"),
                        );
                        map.insert(
                            ::std::string::String::from("com.example/computed"),
                            my_runtime::__private::settings_from(settings::computed),
                        );
                        map
                    });
                    my_runtime::__private::Arc::new(
                        my_runtime::__private::checked_declaration(
                                server_info,
                                &["2026-07-28"],
                                &["2025-11-25"],
                            )
                            .with_capabilities(capabilities)
                            .with_instructions("Ask for the forecast.")
                            .with_discover_cache(
                                0u64,
                                my_runtime::__private::CacheScope::Private,
                            ),
                    )
                }),
        )
    }
    fn dispatch_capability<'a>(
        &'a self,
        request: my_runtime::__private::ClientRequest,
        ctx: &'a my_runtime::__private::RequestContext,
    ) -> impl my_runtime::__private::Future<
        Output = my_runtime::__private::HandlerResult<my_runtime::__private::Reply>,
    > + ::core::marker::Send + 'a {
        #[allow(unused_imports)]
        use my_runtime::__private::probe::*;
        #[allow(unused_variables)]
        let probe = &my_runtime::__private::probe::Probe::<Self>::NEW;
        let routed: my_runtime::__private::BoxFuture<'a> = match my_runtime::__private::capability_of(
            &request,
        ) {
            my_runtime::__private::Capability::Tools => {
                probe.dispatch_tools(self, request, ctx)
            }
            my_runtime::__private::Capability::Resources => {
                probe.dispatch_resources(self, request, ctx)
            }
            my_runtime::__private::Capability::Prompts => {
                probe.dispatch_prompts(self, request, ctx)
            }
            my_runtime::__private::Capability::Completions => {
                probe.dispatch_completions(self, request, ctx)
            }
            my_runtime::__private::Capability::None => {
                my_runtime::__private::unrouted(&request)
            }
        };
        routed
    }
    fn tool_param_headers(
        &self,
        name: &str,
    ) -> ::core::option::Option<::std::vec::Vec<my_runtime::__private::ParamHeader>> {
        #[allow(unused_imports)]
        use my_runtime::__private::probe::*;
        #[allow(unused_variables)]
        let probe = &my_runtime::__private::probe::Probe::<Self>::NEW;
        probe.tool_headers(self, name)
    }
    fn tool_task_support(&self, name: &str) -> my_runtime::__private::TaskSupport {
        #[allow(unused_imports)]
        use my_runtime::__private::probe::*;
        #[allow(unused_variables)]
        let probe = &my_runtime::__private::probe::Probe::<Self>::NEW;
        probe.tool_tasks(self, name)
    }
    fn tool_scopes(&self) -> my_runtime::__private::ToolScopes {
        #[allow(unused_imports)]
        use my_runtime::__private::probe::*;
        #[allow(unused_variables)]
        let probe = &my_runtime::__private::probe::Probe::<Self>::NEW;
        probe.tool_scopes_of(self)
    }
    fn catalogue_problems(&self) -> ::std::vec::Vec<::std::string::String> {
        #[allow(unused_imports)]
        use my_runtime::__private::probe::*;
        #[allow(unused_variables)]
        let probe = &my_runtime::__private::probe::Probe::<Self>::NEW;
        let mut problems = probe.tool_problems(self);
        problems.extend(probe.resource_problems(self));
        problems
    }
}
#[automatically_derived]
impl<T: Clone> my_runtime::__private::Derived for Weather<T>
where
    T: Send,
{
    const GENERIC: bool = true;
    const RESOURCES: bool = true;
    const EXTENSIONS: &'static [&'static str] = &[
        "io.modelcontextprotocol/tasks",
        "com.example/ui",
        "com.example/computed",
    ];
}
