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
    fn styles(&self, partial: &str) -> Vec<String> {
        todo!()
    }
    fn helper(&self) {}
}
#[automatically_derived]
impl Notes {
    #[doc(hidden)]
    #[allow(non_upper_case_globals)]
    const __MCP_ARG_add_0: ::mcp_era_server::__private::ArgumentHooks<String> = ::mcp_era_server::__private::argument_hooks::<
        String,
    >();
    #[doc(hidden)]
    #[allow(non_upper_case_globals)]
    const __MCP_ARG_add_1: ::mcp_era_server::__private::ArgumentHooks<
        Option<Vec<String>>,
    > = ::mcp_era_server::__private::argument_hooks::<Option<Vec<String>>>();
    #[doc(hidden)]
    #[allow(non_snake_case, unused_mut, unused_variables)]
    fn __mcp_tool_add<'a>(
        this: &'a Notes,
        call: ::mcp_era_server::__private::ToolCall,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::ToolOutcome,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let ::mcp_era_server::__private::ToolCall { mut arguments, retry } = call;
            let title: String = match (<Notes>::__MCP_ARG_add_0
                .take)(&mut arguments, "title")
            {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => {
                    return ::mcp_era_server::__private::argument_failure(error);
                }
            };
            let tags: Option<Vec<String>> = match (<Notes>::__MCP_ARG_add_1
                .take)(&mut arguments, "tags")
            {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => {
                    return ::mcp_era_server::__private::argument_failure(error);
                }
            };
            ::mcp_era_server::__private::IntoToolResult::into_tool_result(
                this.add(title, tags, ctx).await,
            )
        })
    }
    #[doc(hidden)]
    #[allow(non_upper_case_globals)]
    const __MCP_ARG_search_0: ::mcp_era_server::__private::ArgumentHooks<Query> = ::mcp_era_server::__private::argument_hooks::<
        Query,
    >();
    #[doc(hidden)]
    #[allow(non_snake_case, unused_mut, unused_variables)]
    fn __mcp_tool_search<'a>(
        this: &'a Notes,
        call: ::mcp_era_server::__private::ToolCall,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::ToolOutcome,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let ::mcp_era_server::__private::ToolCall { mut arguments, retry } = call;
            let query: Query = match (<Notes>::__MCP_ARG_search_0.whole)(arguments) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => {
                    return ::mcp_era_server::__private::argument_failure(error);
                }
            };
            ::mcp_era_server::__private::IntoToolResult::into_tool_result(
                this.search(query, &retry),
            )
        })
    }
    #[doc(hidden)]
    #[allow(non_snake_case, unused_variables)]
    fn __mcp_resource_note<'a>(
        this: &'a Notes,
        request: ::mcp_era_server::__private::ResourceRequest,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::ReadOutcome,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let id: u32 = ::mcp_era_server::__private::template_variable::<
                u32,
            >(&request, "id")?;
            let value = this.note(id);
            ::mcp_era_server::__private::IntoReadResult::into_read_result(
                value,
                &request,
                ctx,
            )
        })
    }
    #[doc(hidden)]
    #[allow(non_snake_case, unused_mut, unused_variables)]
    fn __mcp_prompt_summarise<'a>(
        this: &'a Notes,
        call: ::mcp_era_server::__private::PromptCall,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::PromptOutcome,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let ::mcp_era_server::__private::PromptCall { mut arguments, retry } = call;
            let id: u32 = ::mcp_era_server::__private::prompt_argument::<
                u32,
            >(&mut arguments, "id")
                .map_err(::mcp_era_server::__private::argument_error)?
                .ok_or_else(|| ::mcp_era_server::__private::argument_error(
                    ::mcp_era_server::__private::args::missing("id"),
                ))?;
            let style: Option<String> = ::mcp_era_server::__private::prompt_argument::<
                String,
            >(&mut arguments, "style")
                .map_err(::mcp_era_server::__private::argument_error)?;
            ::mcp_era_server::__private::IntoPromptResult::into_prompt_result(
                this.summarise(id, style),
            )
        })
    }
    #[doc(hidden)]
    #[allow(non_snake_case, unused_variables)]
    fn __mcp_complete_styles<'a>(
        this: &'a Notes,
        request: ::mcp_era_server::__private::CompletionRequest,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::CompletionOutcome,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let values = this.styles(&request.value);
            ::mcp_era_server::__private::completion_values(values)
        })
    }
}
#[automatically_derived]
impl ::mcp_era_server::__private::RoutedTools for Notes {
    fn tool_table() -> &'static ::mcp_era_server::__private::ToolTable<Self> {
        static TABLE: ::mcp_era_server::__private::OnceLock<
            ::mcp_era_server::__private::ToolTable<Notes>,
        > = ::mcp_era_server::__private::OnceLock::new();
        TABLE
            .get_or_init(|| ::mcp_era_server::__private::ToolTable::build(
                &[
                    ::mcp_era_server::__private::ToolSpec {
                        method: "add",
                        describe: || {
                            let mut tool = ::mcp_era_server::__private::Tool::new(
                                {
                                    let mut schema = ::mcp_era_server::__private::InputSchemaBuilder::new();
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
                                let mut annotations = ::mcp_era_server::__private::ToolAnnotations::new();
                                annotations.read_only_hint = ::core::option::Option::Some(
                                    true,
                                );
                                annotations
                            });
                            tool.meta = ::core::option::Option::Some(
                                ::mcp_era_server::__private::meta_object(
                                    "{\"com.example/x\":1}",
                                )?,
                            );
                            if let ::core::option::Option::Some(schema) = <Json<
                                Note,
                            > as ::mcp_era_server::__private::IntoToolResult>::output_schema() {
                                tool.output_schema = ::core::option::Option::Some(schema?);
                            }
                            ::core::result::Result::Ok(tool)
                        },
                        call: <Notes>::__mcp_tool_add,
                        task: ::mcp_era_server::__private::TaskSupport::Never,
                        scopes: &[],
                        visibility: ::mcp_era_server::__private::ToolVisibility::LISTED,
                        can_require_input: <Json<
                            Note,
                        > as ::mcp_era_server::__private::IntoToolResult>::CAN_REQUIRE_INPUT,
                    },
                    ::mcp_era_server::__private::ToolSpec {
                        method: "search",
                        describe: || {
                            let mut tool = ::mcp_era_server::__private::Tool::new(
                                (<Notes>::__MCP_ARG_search_0.schema)()?,
                                ::std::string::String::from("find"),
                            );
                            if let ::core::option::Option::Some(schema) = <Result<
                                String,
                                String,
                            > as ::mcp_era_server::__private::IntoToolResult>::output_schema() {
                                tool.output_schema = ::core::option::Option::Some(schema?);
                            }
                            ::core::result::Result::Ok(tool)
                        },
                        call: <Notes>::__mcp_tool_search,
                        task: ::mcp_era_server::__private::TaskSupport::Never,
                        scopes: &["notes:read", "search"],
                        visibility: ::mcp_era_server::__private::ToolVisibility::LISTED,
                        can_require_input: <Result<
                            String,
                            String,
                        > as ::mcp_era_server::__private::IntoToolResult>::CAN_REQUIRE_INPUT,
                    },
                ],
            ))
    }
}
#[automatically_derived]
impl ::mcp_era_server::__private::RoutedResources for Notes {
    fn resource_table() -> &'static ::mcp_era_server::__private::ResourceTable<Self> {
        static TABLE: ::mcp_era_server::__private::OnceLock<
            ::mcp_era_server::__private::ResourceTable<Notes>,
        > = ::mcp_era_server::__private::OnceLock::new();
        TABLE
            .get_or_init(|| ::mcp_era_server::__private::ResourceTable::build(
                &[
                    ::mcp_era_server::__private::ResourceSpec {
                        method: "note",
                        mime_type: ::core::option::Option::Some("text/markdown"),
                        meta: ::core::option::Option::None,
                        ttl_ms: ::core::option::Option::None,
                        cache_scope: ::core::option::Option::None,
                        describe: || {
                            let mut described = ::mcp_era_server::__private::ResourceTemplate::builder()
                                .name("note")
                                .uri_template("note://{id}")
                                .build();
                            described.description = ::core::option::Option::Some(
                                ::std::string::String::from("A note."),
                            );
                            described.mime_type = ::core::option::Option::Some(
                                ::std::string::String::from("text/markdown"),
                            );
                            ::mcp_era_server::__private::ResourceDescription::Template(
                                described,
                            )
                        },
                        read: <Notes>::__mcp_resource_note,
                        list: ::core::option::Option::None,
                    },
                ],
            ))
    }
}
#[automatically_derived]
impl ::mcp_era_server::__private::RoutedPrompts for Notes {
    fn prompt_table() -> &'static ::mcp_era_server::__private::PromptTable<Self> {
        static TABLE: ::mcp_era_server::__private::OnceLock<
            ::mcp_era_server::__private::PromptTable<Notes>,
        > = ::mcp_era_server::__private::OnceLock::new();
        TABLE
            .get_or_init(|| ::mcp_era_server::__private::PromptTable::build(
                &[
                    ::mcp_era_server::__private::PromptSpec {
                        describe: || {
                            let mut prompt = ::mcp_era_server::__private::Prompt::new(
                                ::std::string::String::from("summarise"),
                            );
                            prompt.title = ::core::option::Option::Some(
                                ::std::string::String::from("Summarise"),
                            );
                            prompt.arguments = ::core::option::Option::Some(
                                ::std::vec![
                                    { let mut argument =
                                    ::mcp_era_server::__private::PromptArgument::new(::std::string::String::from("id"));
                                    argument.required = ::core::option::Option::Some(true);
                                    argument.description =
                                    ::core::option::Option::Some(::std::string::String::from("Which note"));
                                    argument }, { let mut argument =
                                    ::mcp_era_server::__private::PromptArgument::new(::std::string::String::from("style"));
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
#[automatically_derived]
impl ::mcp_era_server::__private::RoutedCompletions for Notes {
    fn completion_table() -> &'static ::mcp_era_server::__private::CompletionTable<
        Self,
    > {
        static TABLE: ::mcp_era_server::__private::OnceLock<
            ::mcp_era_server::__private::CompletionTable<Notes>,
        > = ::mcp_era_server::__private::OnceLock::new();
        TABLE
            .get_or_init(|| ::mcp_era_server::__private::CompletionTable::build(
                &[
                    ::mcp_era_server::__private::CompletionSpec {
                        target: ::mcp_era_server::__private::CompletionTarget::Template(
                            "note://{id}",
                        ),
                        argument: "id",
                        completer: ::mcp_era_server::__private::Completer::Derived({
                            #[allow(unused_imports)]
                            use ::mcp_era_server::__private::{
                                ViaSchema as _, WithoutSchema as _,
                            };
                            (&::mcp_era_server::__private::EnumProbe::<u32>::new())
                                .derived_values()
                        }),
                    },
                    ::mcp_era_server::__private::CompletionSpec {
                        target: ::mcp_era_server::__private::CompletionTarget::Prompt(
                            "summarise",
                        ),
                        argument: "id",
                        completer: ::mcp_era_server::__private::Completer::Derived({
                            #[allow(unused_imports)]
                            use ::mcp_era_server::__private::{
                                ViaSchema as _, WithoutSchema as _,
                            };
                            (&::mcp_era_server::__private::EnumProbe::<u32>::new())
                                .derived_values()
                        }),
                    },
                    ::mcp_era_server::__private::CompletionSpec {
                        target: ::mcp_era_server::__private::CompletionTarget::Prompt(
                            "summarise",
                        ),
                        argument: "style",
                        completer: ::mcp_era_server::__private::Completer::Method(
                            <Notes>::__mcp_complete_styles,
                        ),
                    },
                ],
            ))
    }
}
const _: () = ::core::assert!(
    ::mcp_era_server::__private::sees(< Notes as ::mcp_era_server::__private::Derived >
    ::VALID, ! < Notes as ::mcp_era_server::__private::Derived > ::GENERIC),
    "`#[derive(McpServer)]` does not see the `#[router]` of `Notes`: a router serves a non-generic server type"
);
