#[automatically_derived]
impl ::mcp_server::__private::McpServer for ModernOnly {
    fn declaration() -> &'static ::mcp_server::__private::ServerDeclaration {
        static DECLARATION: ::mcp_server::__private::OnceLock<
            ::mcp_server::__private::ServerDeclaration,
        > = ::mcp_server::__private::OnceLock::new();
        DECLARATION
            .get_or_init(|| {
                let mut server_info = ::mcp_server::__private::Implementation::builder()
                    .name(::std::string::String::from("modern"))
                    .version(::std::string::String::from("1.0.0"))
                    .build();
                let mut capabilities = ::mcp_server::__private::ServerCapabilities::new();
                ::mcp_server::__private::ServerDeclaration::new(
                        server_info,
                        &["2026-07-28"],
                        &[],
                    )
                    .with_capabilities(capabilities)
                    .with_discover_cache(
                        ::mcp_server::__private::DEFAULT_DISCOVER_TTL_MS,
                        ::mcp_server::__private::DEFAULT_DISCOVER_CACHE_SCOPE,
                    )
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
            _ => ::mcp_server::__private::unrouted(&request),
        };
        routed
    }
}
