impl Notes {
    /// One note.
    fn note(&self, id: u32) -> Option<String> {
        None
    }
    async fn note_ids(&self, ctx: &RequestContext) -> Vec<ListedResource<u32>> {
        Vec::new()
    }
    /// A cell.
    fn cell(&self, row: u32) -> String {
        String::new()
    }
    fn cells(&self) -> Vec<(String, u32)> {
        Vec::new()
    }
    /// Not listed.
    fn old(&self) -> String {
        String::new()
    }
}
#[automatically_derived]
impl Notes {
    #[doc(hidden)]
    #[allow(non_snake_case, unused_mut, unused_variables)]
    fn __mcp_tool_old<'a>(
        this: &'a Notes,
        call: ::mcp_era_server::__private::ToolCall,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::ToolOutcome,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let ::mcp_era_server::__private::ToolCall { mut arguments, retry } = call;
            ::mcp_era_server::__private::IntoToolResult::into_tool_result(this.old())
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
    #[allow(non_snake_case, unused_variables)]
    fn __mcp_resource_list_note<'a>(
        this: &'a Notes,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::HandlerResult<
            ::std::vec::Vec<
                ::mcp_era_server::__private::ListedResource<
                    ::std::vec::Vec<::std::string::String>,
                >,
            >,
        >,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let listed = ::mcp_era_server::__private::listing::<
                u32,
                _,
            >(this.note_ids(ctx).await)?;
            ::core::result::Result::Ok(
                listed
                    .into_iter()
                    .map(|item| {
                        item
                            .map_variables(|v0| {
                                ::std::vec![
                                    ::mcp_era_server::__private::variable_text(& v0)
                                ]
                            })
                    })
                    .collect(),
            )
        })
    }
    #[doc(hidden)]
    #[allow(non_snake_case, unused_variables)]
    fn __mcp_resource_cell<'a>(
        this: &'a Notes,
        request: ::mcp_era_server::__private::ResourceRequest,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::ReadOutcome,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let row: u32 = ::mcp_era_server::__private::template_variable::<
                u32,
            >(&request, "row")?;
            let value = this.cell(row);
            ::mcp_era_server::__private::IntoReadResult::into_read_result(
                value,
                &request,
                ctx,
            )
        })
    }
    #[doc(hidden)]
    #[allow(non_snake_case, unused_variables)]
    fn __mcp_resource_list_cell<'a>(
        this: &'a Notes,
        ctx: &'a ::mcp_era_server::__private::RequestContext,
    ) -> ::mcp_era_server::__private::RouterFuture<
        'a,
        ::mcp_era_server::__private::HandlerResult<
            ::std::vec::Vec<
                ::mcp_era_server::__private::ListedResource<
                    ::std::vec::Vec<::std::string::String>,
                >,
            >,
        >,
    > {
        ::mcp_era_server::__private::Box::pin(async move {
            let listed = ::mcp_era_server::__private::listing::<
                (::std::string::String, u32),
                _,
            >(this.cells())?;
            ::core::result::Result::Ok(
                listed
                    .into_iter()
                    .map(|item| {
                        item
                            .map_variables(|(v0, v1)| {
                                ::std::vec![
                                    ::mcp_era_server::__private::variable_text(& v0),
                                    ::mcp_era_server::__private::variable_text(& v1)
                                ]
                            })
                    })
                    .collect(),
            )
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
                        method: "old",
                        describe: || {
                            let mut tool = ::mcp_era_server::__private::Tool::new(
                                {
                                    let mut schema = ::mcp_era_server::__private::InputSchemaBuilder::new();
                                    schema.build()?
                                },
                                ::std::string::String::from("old"),
                            );
                            tool.description = ::core::option::Option::Some(
                                ::std::string::String::from("Not listed."),
                            );
                            if let ::core::option::Option::Some(schema) = <String as ::mcp_era_server::__private::IntoToolResult>::output_schema() {
                                tool.output_schema = ::core::option::Option::Some(schema?);
                            }
                            ::core::result::Result::Ok(tool)
                        },
                        call: <Notes>::__mcp_tool_old,
                        task: ::mcp_era_server::__private::TaskSupport::Never,
                        scopes: &[],
                        visibility: ::mcp_era_server::__private::ToolVisibility::HIDDEN
                            .only(::mcp_era_server::__private::Era::Legacy),
                        can_require_input: <String as ::mcp_era_server::__private::IntoToolResult>::CAN_REQUIRE_INPUT,
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
                        mime_type: ::core::option::Option::None,
                        meta: ::core::option::Option::None,
                        ttl_ms: ::core::option::Option::Some(60000u64),
                        cache_scope: ::core::option::Option::Some(
                            ::mcp_era_server::__private::CacheScope::Public,
                        ),
                        describe: || {
                            let mut described = ::mcp_era_server::__private::ResourceTemplate::builder()
                                .name("note")
                                .uri_template("note://{id}")
                                .build();
                            described.description = ::core::option::Option::Some(
                                ::std::string::String::from("One note."),
                            );
                            ::mcp_era_server::__private::ResourceDescription::Template(
                                described,
                            )
                        },
                        read: <Notes>::__mcp_resource_note,
                        list: ::core::option::Option::Some(
                            <Notes>::__mcp_resource_list_note,
                        ),
                    },
                    ::mcp_era_server::__private::ResourceSpec {
                        method: "cell",
                        mime_type: ::core::option::Option::None,
                        meta: ::core::option::Option::None,
                        ttl_ms: ::core::option::Option::None,
                        cache_scope: ::core::option::Option::None,
                        describe: || {
                            let mut described = ::mcp_era_server::__private::ResourceTemplate::builder()
                                .name("cell")
                                .uri_template("cell://{sheet}/{row}")
                                .build();
                            described.description = ::core::option::Option::Some(
                                ::std::string::String::from("A cell."),
                            );
                            ::mcp_era_server::__private::ResourceDescription::Template(
                                described,
                            )
                        },
                        read: <Notes>::__mcp_resource_cell,
                        list: ::core::option::Option::Some(
                            <Notes>::__mcp_resource_list_cell,
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
