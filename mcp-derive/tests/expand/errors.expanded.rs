::core::compile_error! {
    "unknown `#[mcp]` key `nmae`; did you mean `name`?"
}
::core::compile_error! {
    "`2025-11-25` is a legacy protocol version and cannot be listed in `modern`; move it to `versions(legacy = [...])`"
}
::core::compile_error! {
    "`ttl_ms` must not be negative: ttlMs is an integer >= 0 (milliseconds)"
}
#[automatically_derived]
impl ::mcp_era_server::__private::McpServer for Broken {
    fn declaration(
        &self,
    ) -> ::mcp_era_server::__private::Arc<
        ::mcp_era_server::__private::ServerDeclaration,
    > {
        ::core::unreachable!()
    }
}
#[automatically_derived]
impl ::mcp_era_server::__private::Derived for Broken {
    const VALID: bool = false;
}
