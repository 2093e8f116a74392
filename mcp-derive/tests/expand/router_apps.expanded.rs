impl Counter {
    /// Shows the counter in its App.
    fn show(&self) -> String {
        String::new()
    }
    /// Called by the App only.
    fn add(&self) -> String {
        String::new()
    }
    /// The App.
    fn app(&self) -> &'static str {
        "<!DOCTYPE html><html></html>"
    }
}
#[automatically_derived]
impl Counter {
    #[doc(hidden)]
    #[allow(non_snake_case, unused_mut, unused_variables)]
    fn __mcp_tool_show<'a>(
        this: &'a Counter,
        call: ::mcp_era_server::__private::ToolCall,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::ToolOutcome,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let ::mcp_era_server::__private::ToolCall { mut arguments, retry } = call;
            ::mcp_era_server::__private::IntoToolResult::into_tool_result(this.show())
        })
    }
    #[doc(hidden)]
    #[allow(non_snake_case, unused_mut, unused_variables)]
    fn __mcp_tool_add<'a>(
        this: &'a Counter,
        call: ::mcp_era_server::__private::ToolCall,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::ToolOutcome,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let ::mcp_era_server::__private::ToolCall { mut arguments, retry } = call;
            ::mcp_era_server::__private::IntoToolResult::into_tool_result(this.add())
        })
    }
    #[doc(hidden)]
    #[allow(non_snake_case, unused_variables)]
    fn __mcp_resource_app<'a>(
        this: &'a Counter,
        request: ::mcp_era_server::__private::ResourceRequest,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::ReadOutcome,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let value = this.app();
            ::mcp_era_server::__private::IntoReadResult::into_read_result(
                value,
                &request,
                ctx,
            )
        })
    }
}
#[automatically_derived]
impl ::mcp_era_server::__private::RoutedTools for Counter {
    fn tool_table() -> &'static ::mcp_era_server::__private::ToolTable<Self> {
        static TABLE: ::mcp_era_server::__private::OnceLock<
            ::mcp_era_server::__private::ToolTable<Counter>,
        > = ::mcp_era_server::__private::OnceLock::new();
        TABLE
            .get_or_init(|| ::mcp_era_server::__private::ToolTable::build(
                &[
                    ::mcp_era_server::__private::ToolSpec {
                        method: "show",
                        describe: || {
                            let mut tool = ::mcp_era_server::__private::Tool::new(
                                {
                                    let mut schema = ::mcp_era_server::__private::InputSchemaBuilder::new();
                                    schema.build()?
                                },
                                ::std::string::String::from("show"),
                            );
                            tool.description = ::core::option::Option::Some(
                                ::std::string::String::from("Shows the counter in its App."),
                            );
                            tool.annotations = ::core::option::Option::Some({
                                let mut annotations = ::mcp_era_server::__private::ToolAnnotations::new();
                                annotations.read_only_hint = ::core::option::Option::Some(
                                    true,
                                );
                                annotations
                            });
                            tool.meta = ::core::option::Option::Some(
                                ::mcp_era_server::__private::meta_object(
                                    "{\"ui\":{\"resourceUri\":\"ui://counter/app\"},\"ui/resourceUri\":\"ui://counter/app\"}",
                                )?,
                            );
                            if let ::core::option::Option::Some(schema) = <String as ::mcp_era_server::__private::IntoToolResult>::output_schema() {
                                tool.output_schema = ::core::option::Option::Some(schema?);
                            }
                            ::core::result::Result::Ok(tool)
                        },
                        call: <Counter>::__mcp_tool_show,
                        task: ::mcp_era_server::__private::TaskSupport::Never,
                        scopes: &[],
                        visibility: ::mcp_era_server::__private::ToolVisibility::LISTED,
                        can_require_input: <String as ::mcp_era_server::__private::IntoToolResult>::CAN_REQUIRE_INPUT,
                    },
                    ::mcp_era_server::__private::ToolSpec {
                        method: "add",
                        describe: || {
                            let mut tool = ::mcp_era_server::__private::Tool::new(
                                {
                                    let mut schema = ::mcp_era_server::__private::InputSchemaBuilder::new();
                                    schema.build()?
                                },
                                ::std::string::String::from("add"),
                            );
                            tool.description = ::core::option::Option::Some(
                                ::std::string::String::from("Called by the App only."),
                            );
                            tool.meta = ::core::option::Option::Some(
                                ::mcp_era_server::__private::meta_object(
                                    "{\"ui\":{\"resourceUri\":\"ui://counter/app\",\"visibility\":[\"app\"]},\"ui/resourceUri\":\"ui://counter/app\",\"x\":1}",
                                )?,
                            );
                            if let ::core::option::Option::Some(schema) = <String as ::mcp_era_server::__private::IntoToolResult>::output_schema() {
                                tool.output_schema = ::core::option::Option::Some(schema?);
                            }
                            ::core::result::Result::Ok(tool)
                        },
                        call: <Counter>::__mcp_tool_add,
                        task: ::mcp_era_server::__private::TaskSupport::Never,
                        scopes: &[],
                        visibility: ::mcp_era_server::__private::ToolVisibility::LISTED,
                        can_require_input: <String as ::mcp_era_server::__private::IntoToolResult>::CAN_REQUIRE_INPUT,
                    },
                ],
            ))
    }
}
#[automatically_derived]
impl ::mcp_era_server::__private::RoutedResources for Counter {
    fn resource_table() -> &'static ::mcp_era_server::__private::ResourceTable<Self> {
        static TABLE: ::mcp_era_server::__private::OnceLock<
            ::mcp_era_server::__private::ResourceTable<Counter>,
        > = ::mcp_era_server::__private::OnceLock::new();
        TABLE
            .get_or_init(|| ::mcp_era_server::__private::ResourceTable::build(
                &[
                    ::mcp_era_server::__private::ResourceSpec {
                        method: "app",
                        mime_type: ::core::option::Option::Some(
                            "text/html;profile=mcp-app",
                        ),
                        meta: ::core::option::Option::Some(
                            "{\"ui\":{\"csp\":{\"connectDomains\":[\"https://api.example.com\"],\"resourceDomains\":[\"https://*.cdn.example\"]},\"domain\":\"counter.example\",\"permissions\":{\"clipboardWrite\":{}},\"prefersBorder\":false}}",
                        ),
                        ttl_ms: ::core::option::Option::None,
                        cache_scope: ::core::option::Option::None,
                        describe: || {
                            let mut described = ::mcp_era_server::__private::Resource::builder()
                                .name("app")
                                .uri("ui://counter/app")
                                .build();
                            described.description = ::core::option::Option::Some(
                                ::std::string::String::from("The App."),
                            );
                            described.mime_type = ::core::option::Option::Some(
                                ::std::string::String::from("text/html;profile=mcp-app"),
                            );
                            ::mcp_era_server::__private::ResourceDescription::Fixed(
                                described,
                            )
                        },
                        read: <Counter>::__mcp_resource_app,
                        list: ::core::option::Option::None,
                    },
                ],
            ))
    }
}
const _: () = ::core::assert!(
    ::mcp_era_server::__private::sees(< Counter as ::mcp_era_server::__private::Derived >
    ::VALID, ! < Counter as ::mcp_era_server::__private::Derived > ::GENERIC),
    "`#[derive(McpServer)]` does not see the `#[router]` of `Counter`: a router serves a non-generic server type"
);
const _: () = ::core::assert!(
    ::mcp_era_server::__private::declares(< Counter as
    ::mcp_era_server::__private::Derived > ::VALID, < Counter as
    ::mcp_era_server::__private::Derived > ::EXTENSIONS, "io.modelcontextprotocol/ui"),
    "`Counter` uses MCP Apps (`show`) but does not declare the extension: add `#[mcp(extension(\"io.modelcontextprotocol/ui\"))]`"
);
