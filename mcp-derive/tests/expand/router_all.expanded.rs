impl Notes {
    /// Adds a note.
    async fn add(
        &self,
        title: String,
        tags: Option<Vec<String>>,
        ctx: &RequestContext,
    ) -> Json<Note> {
        todo!()
    }
    fn search(&self, query: Query, retry: &RetryInput) -> Result<String, String> {
        todo!()
    }
    /// A note.
    fn note(&self, id: u32) -> Option<String> {
        todo!()
    }
    fn summarise(&self, id: u32, style: Option<String>) -> String {
        todo!()
    }
    fn helper(&self) {}
}
#[automatically_derived]
impl Notes {
    #[doc(hidden)]
    #[allow(non_upper_case_globals)]
    const __MCP_ARG_add_0: ::mcp_server::__private::ArgumentHooks<String> = ::mcp_server::__private::argument_hooks::<
        String,
    >();
    #[doc(hidden)]
    #[allow(non_upper_case_globals)]
    const __MCP_ARG_add_1: ::mcp_server::__private::ArgumentHooks<Option<Vec<String>>> = ::mcp_server::__private::argument_hooks::<
        Option<Vec<String>>,
    >();
    #[doc(hidden)]
    #[allow(non_snake_case, unused_mut, unused_variables)]
    fn __mcp_tool_add<'a>(
        this: &'a Notes,
        call: ::mcp_server::__private::ToolCall,
        ctx: &'a ::mcp_server::__private::RequestContext,
    ) -> ::mcp_server::__private::RouterFuture<
        'a,
        ::mcp_server::__private::ToolOutcome,
    > {
        ::mcp_server::__private::Box::pin(async move {
            let ::mcp_server::__private::ToolCall { mut arguments, retry } = call;
            let title: String = match (<Notes>::__MCP_ARG_add_0
                .take)(&mut arguments, "title")
            {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => {
                    return ::mcp_server::__private::argument_failure(error);
                }
            };
            let tags: Option<Vec<String>> = match (<Notes>::__MCP_ARG_add_1
                .take)(&mut arguments, "tags")
            {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => {
                    return ::mcp_server::__private::argument_failure(error);
                }
            };
            ::mcp_server::__private::IntoToolResult::into_tool_result(
                this.add(title, tags, ctx).await,
            )
        })
    }
    #[doc(hidden)]
    #[allow(non_upper_case_globals)]
    const __MCP_ARG_search_0: ::mcp_server::__private::ArgumentHooks<Query> = ::mcp_server::__private::argument_hooks::<
        Query,
    >();
    #[doc(hidden)]
    #[allow(non_snake_case, unused_mut, unused_variables)]
    fn __mcp_tool_search<'a>(
        this: &'a Notes,
        call: ::mcp_server::__private::ToolCall,
        ctx: &'a ::mcp_server::__private::RequestContext,
    ) -> ::mcp_server::__private::RouterFuture<
        'a,
        ::mcp_server::__private::ToolOutcome,
    > {
        ::mcp_server::__private::Box::pin(async move {
            let ::mcp_server::__private::ToolCall { mut arguments, retry } = call;
            let query: Query = match (<Notes>::__MCP_ARG_search_0.whole)(arguments) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => {
                    return ::mcp_server::__private::argument_failure(error);
                }
            };
            ::mcp_server::__private::IntoToolResult::into_tool_result(
                this.search(query, &retry),
            )
        })
    }
    #[doc(hidden)]
    fn __mcp_tool_table() -> &'static ::mcp_server::__private::ToolTable<Notes> {
        static TABLE: ::mcp_server::__private::OnceLock<
            ::mcp_server::__private::ToolTable<Notes>,
        > = ::mcp_server::__private::OnceLock::new();
        TABLE
            .get_or_init(|| ::mcp_server::__private::ToolTable::build(
                &[
                    ::mcp_server::__private::ToolSpec {
                        method: "add",
                        describe: || {
                            let mut tool = ::mcp_server::__private::Tool::new(
                                {
                                    let mut schema = ::mcp_server::__private::InputSchemaBuilder::new();
                                    (<Notes>::__MCP_ARG_add_0
                                        .property)(
                                        &mut schema,
                                        "title",
                                        ::core::option::Option::Some("The title"),
                                        true,
                                        ::core::option::Option::Some("Title"),
                                    );
                                    (<Notes>::__MCP_ARG_add_1
                                        .property)(
                                        &mut schema,
                                        "tags",
                                        ::core::option::Option::<&str>::None,
                                        false,
                                        ::core::option::Option::<&str>::None,
                                    );
                                    schema.build()?
                                },
                                ::std::string::String::from("add"),
                            );
                            tool.description = ::core::option::Option::Some(
                                ::std::string::String::from("Adds a note."),
                            );
                            tool.annotations = ::core::option::Option::Some({
                                let mut annotations = ::mcp_server::__private::ToolAnnotations::new();
                                annotations.read_only_hint = ::core::option::Option::Some(
                                    true,
                                );
                                annotations
                            });
                            tool.meta = ::core::option::Option::Some(
                                ::mcp_server::__private::meta_object(
                                    "{\"com.example/x\":1}",
                                )?,
                            );
                            if let ::core::option::Option::Some(schema) = <Json<
                                Note,
                            > as ::mcp_server::__private::IntoToolResult>::output_schema() {
                                tool.output_schema = ::core::option::Option::Some(schema?);
                            }
                            ::core::result::Result::Ok(tool)
                        },
                        call: <Notes>::__mcp_tool_add,
                        task: ::mcp_server::__private::TaskSupport::Never,
                        scopes: &[],
                        visibility: ::mcp_server::__private::ToolVisibility::LISTED,
                    },
                    ::mcp_server::__private::ToolSpec {
                        method: "search",
                        describe: || {
                            let mut tool = ::mcp_server::__private::Tool::new(
                                (<Notes>::__MCP_ARG_search_0.schema)()?,
                                ::std::string::String::from("find"),
                            );
                            if let ::core::option::Option::Some(schema) = <Result<
                                String,
                                String,
                            > as ::mcp_server::__private::IntoToolResult>::output_schema() {
                                tool.output_schema = ::core::option::Option::Some(schema?);
                            }
                            ::core::result::Result::Ok(tool)
                        },
                        call: <Notes>::__mcp_tool_search,
                        task: ::mcp_server::__private::TaskSupport::Never,
                        scopes: &["notes:read", "search"],
                        visibility: ::mcp_server::__private::ToolVisibility::LISTED,
                    },
                ],
            ))
    }
    #[doc(hidden)]
    #[allow(non_snake_case, unused_variables)]
    fn __mcp_resource_note<'a>(
        this: &'a Notes,
        request: ::mcp_server::__private::ResourceRequest,
        ctx: &'a ::mcp_server::__private::RequestContext,
    ) -> ::mcp_server::__private::RouterFuture<
        'a,
        ::mcp_server::__private::ReadOutcome,
    > {
        ::mcp_server::__private::Box::pin(async move {
            let id: u32 = ::mcp_server::__private::template_variable::<
                u32,
            >(&request, "id")?;
            let value = this.note(id);
            ::mcp_server::__private::IntoReadResult::into_read_result(
                value,
                &request,
                ctx,
            )
        })
    }
    #[doc(hidden)]
    fn __mcp_resource_table() -> &'static ::mcp_server::__private::ResourceTable<Notes> {
        static TABLE: ::mcp_server::__private::OnceLock<
            ::mcp_server::__private::ResourceTable<Notes>,
        > = ::mcp_server::__private::OnceLock::new();
        TABLE
            .get_or_init(|| ::mcp_server::__private::ResourceTable::build(
                &[
                    ::mcp_server::__private::ResourceSpec {
                        method: "note",
                        mime_type: ::core::option::Option::Some("text/markdown"),
                        ttl_ms: ::core::option::Option::None,
                        cache_scope: ::core::option::Option::None,
                        describe: || {
                            let mut described = ::mcp_server::__private::ResourceTemplate::builder()
                                .name("note")
                                .uri_template("note://{id}")
                                .build();
                            described.description = ::core::option::Option::Some(
                                ::std::string::String::from("A note."),
                            );
                            described.mime_type = ::core::option::Option::Some(
                                ::std::string::String::from("text/markdown"),
                            );
                            ::mcp_server::__private::ResourceDescription::Template(
                                described,
                            )
                        },
                        read: <Notes>::__mcp_resource_note,
                        list: ::core::option::Option::None,
                    },
                ],
            ))
    }
    #[doc(hidden)]
    #[allow(non_snake_case, unused_mut, unused_variables)]
    fn __mcp_prompt_summarise<'a>(
        this: &'a Notes,
        call: ::mcp_server::__private::PromptCall,
        ctx: &'a ::mcp_server::__private::RequestContext,
    ) -> ::mcp_server::__private::RouterFuture<
        'a,
        ::mcp_server::__private::PromptOutcome,
    > {
        ::mcp_server::__private::Box::pin(async move {
            let ::mcp_server::__private::PromptCall { mut arguments, retry } = call;
            let id: u32 = ::mcp_server::__private::prompt_argument::<
                u32,
            >(&mut arguments, "id")
                .map_err(::mcp_server::__private::argument_error)?
                .ok_or_else(|| ::mcp_server::__private::argument_error(
                    ::mcp_server::__private::args::missing("id"),
                ))?;
            let style: Option<String> = ::mcp_server::__private::prompt_argument::<
                String,
            >(&mut arguments, "style")
                .map_err(::mcp_server::__private::argument_error)?;
            ::mcp_server::__private::IntoPromptResult::into_prompt_result(
                this.summarise(id, style),
            )
        })
    }
    #[doc(hidden)]
    fn __mcp_prompt_table() -> &'static ::mcp_server::__private::PromptTable<Notes> {
        static TABLE: ::mcp_server::__private::OnceLock<
            ::mcp_server::__private::PromptTable<Notes>,
        > = ::mcp_server::__private::OnceLock::new();
        TABLE
            .get_or_init(|| ::mcp_server::__private::PromptTable::build(
                &[
                    ::mcp_server::__private::PromptSpec {
                        describe: || {
                            let mut prompt = ::mcp_server::__private::Prompt::new(
                                ::std::string::String::from("summarise"),
                            );
                            prompt.title = ::core::option::Option::Some(
                                ::std::string::String::from("Summarise"),
                            );
                            prompt.arguments = ::core::option::Option::Some(
                                ::std::vec![
                                    { let mut argument =
                                    ::mcp_server::__private::PromptArgument::new(::std::string::String::from("id"));
                                    argument.required = ::core::option::Option::Some(true);
                                    argument.description =
                                    ::core::option::Option::Some(::std::string::String::from("Which note"));
                                    argument }, { let mut argument =
                                    ::mcp_server::__private::PromptArgument::new(::std::string::String::from("style"));
                                    argument.required = ::core::option::Option::Some(false);
                                    argument }
                                ],
                            );
                            prompt
                        },
                        get: <Notes>::__mcp_prompt_summarise,
                    },
                ],
            ))
    }
}
impl ::mcp_server::__private::ToolsHandler for Notes {
    fn list_tools(
        &self,
        params: ::mcp_server::__private::PaginatedRequestParams,
        ctx: &::mcp_server::__private::RequestContext,
    ) -> impl ::mcp_server::__private::Future<
        Output = ::mcp_server::__private::HandlerResult<
            ::mcp_server::__private::ListToolsResult,
        >,
    > + ::core::marker::Send {
        ::core::future::ready(<Notes>::__mcp_tool_table().list(&params, ctx))
    }
    fn call_tool(
        &self,
        params: ::mcp_server::__private::CallToolRequestParams,
        ctx: &::mcp_server::__private::RequestContext,
    ) -> impl ::mcp_server::__private::Future<
        Output = ::mcp_server::__private::HandlerResult<
            ::mcp_server::__private::CallToolResultResponseResult,
        >,
    > + ::core::marker::Send {
        <Notes>::__mcp_tool_table().call(self, params, ctx)
    }
    fn param_headers(
        &self,
        name: &str,
    ) -> ::core::option::Option<::std::vec::Vec<::mcp_server::__private::ParamHeader>> {
        <Notes>::__mcp_tool_table().param_headers(name)
    }
    fn tool_catalogue_problems(&self) -> ::std::vec::Vec<::std::string::String> {
        <Notes>::__mcp_tool_table().problems().to_vec()
    }
    fn task_support(&self, name: &str) -> ::mcp_server::__private::TaskSupport {
        <Notes>::__mcp_tool_table().task_support(name)
    }
    fn tool_scopes(&self) -> ::mcp_server::__private::ToolScopes {
        <Notes>::__mcp_tool_table().scopes().clone()
    }
}
impl ::mcp_server::__private::ResourcesHandler for Notes {
    fn list_resources(
        &self,
        params: ::mcp_server::__private::PaginatedRequestParams,
        ctx: &::mcp_server::__private::RequestContext,
    ) -> impl ::mcp_server::__private::Future<
        Output = ::mcp_server::__private::HandlerResult<
            ::mcp_server::__private::ListResourcesResult,
        >,
    > + ::core::marker::Send {
        <Notes>::__mcp_resource_table().list(self, params, ctx)
    }
    fn read_resource(
        &self,
        params: ::mcp_server::__private::ReadResourceRequestParams,
        ctx: &::mcp_server::__private::RequestContext,
    ) -> impl ::mcp_server::__private::Future<
        Output = ::mcp_server::__private::HandlerResult<
            ::mcp_server::__private::ReadResourceResultResponseResult,
        >,
    > + ::core::marker::Send {
        <Notes>::__mcp_resource_table().read(self, params, ctx)
    }
    fn list_resource_templates(
        &self,
        params: ::mcp_server::__private::PaginatedRequestParams,
        ctx: &::mcp_server::__private::RequestContext,
    ) -> impl ::mcp_server::__private::Future<
        Output = ::mcp_server::__private::HandlerResult<
            ::mcp_server::__private::ListResourceTemplatesResult,
        >,
    > + ::core::marker::Send {
        ::core::future::ready(
            <Notes>::__mcp_resource_table().list_templates(&params, ctx),
        )
    }
    fn resource_catalogue_problems(&self) -> ::std::vec::Vec<::std::string::String> {
        <Notes>::__mcp_resource_table().problems().to_vec()
    }
}
impl ::mcp_server::__private::PromptsHandler for Notes {
    fn list_prompts(
        &self,
        params: ::mcp_server::__private::PaginatedRequestParams,
        ctx: &::mcp_server::__private::RequestContext,
    ) -> impl ::mcp_server::__private::Future<
        Output = ::mcp_server::__private::HandlerResult<
            ::mcp_server::__private::ListPromptsResult,
        >,
    > + ::core::marker::Send {
        ::core::future::ready(<Notes>::__mcp_prompt_table().list(&params, ctx))
    }
    fn get_prompt(
        &self,
        params: ::mcp_server::__private::GetPromptRequestParams,
        ctx: &::mcp_server::__private::RequestContext,
    ) -> impl ::mcp_server::__private::Future<
        Output = ::mcp_server::__private::HandlerResult<
            ::mcp_server::__private::GetPromptResultResponseResult,
        >,
    > + ::core::marker::Send {
        <Notes>::__mcp_prompt_table().get(self, params, ctx)
    }
}
