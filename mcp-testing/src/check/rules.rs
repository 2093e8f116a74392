//! The rules [`check_server`](crate::check_server) checks, each with its
//! place in the MCP 2026-07-28 requirements digest (`§2.3`: section 2,
//! item 3; `edge 3`: the third edge case at its end) or the spec page it
//! comes from when the digest has no item for it.

/// One rule: a stable id, where it comes from, and what it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// A short stable name (`"version-gate"`).
    pub id: &'static str,
    /// The digest section(s) or spec page.
    pub section: &'static str,
    /// The rule in one line.
    pub text: &'static str,
}

macro_rules! rules {
    ($($(#[$doc:meta])* $name:ident = $id:literal, $section:literal, $text:literal;)*) => {
        $(
            $(#[$doc])*
            pub const $name: Rule = Rule { id: $id, section: $section, text: $text };
        )*
        /// Every rule, in the order they are checked.
        pub const ALL: &[Rule] = &[$($name),*];
    };
}

rules! {
    /// `server/discover` answers a complete result with `supportedVersions`
    /// and `capabilities`, and no `serverInfo`/`protocolVersion` in the body.
    DISCOVER_SHAPE = "discover-shape", "§3.1-3.3",
        "server/discover answers resultType complete, a non-empty supportedVersions string list and a capabilities object; serverInfo and protocolVersion are not body fields";
    /// Results name the server in `_meta`.
    SERVER_INFO_IN_META = "server-info-in-meta", "§1.11, §3.3",
        "results carry _meta[\"io.modelcontextprotocol/serverInfo\"] with a name and a version";
    /// Every success result says `resultType`.
    RESULT_TYPE = "result-type", "§9.12, edge 8",
        "every modern success result carries resultType (\"complete\" for lists and discover)";
    /// The six cacheable results carry valid hints.
    CACHE_HINTS = "cache-hints", "§3.5-3.7",
        "server/discover, the four list results and a complete resources/read carry ttlMs (integer >= 0) and cacheScope (\"public\" or \"private\")";
    /// Every advertised version is accepted.
    SUPPORTED_VERSIONS_ACCEPTED = "supported-versions-accepted", "§2.4",
        "every version in supportedVersions is accepted in a request's _meta";
    /// The version gate.
    VERSION_GATE = "version-gate", "§2.2-2.6, edge 2",
        "an unknown version gets -32022 (HTTP 400) with data.supported equal to discover's supportedVersions and data.requested verbatim";
    /// Legacy versions are not accepted in a modern envelope.
    LEGACY_VERSION_IN_MODERN_META = "legacy-version-in-modern-meta", "edge 3, §2.7",
        "a legacy version (2025-11-25 or older) in the modern _meta gets -32022";
    /// Required `_meta` keys.
    META_REQUIRED = "meta-required", "§1.5, §1.6, §1.8",
        "a request without params._meta, its protocolVersion or its clientCapabilities gets -32602 (HTTP 400)";
    /// Unknown methods.
    UNKNOWN_METHOD = "unknown-method", "§5 (-32601), §6.10",
        "an unknown method gets -32601 (HTTP 404)";
    /// Methods removed in 2026.
    REMOVED_METHODS = "removed-methods", "§9.1-9.5, §8.2, edge 10",
        "ping, initialize, logging/setLevel, resources/subscribe and resources/unsubscribe with modern _meta get -32601 (HTTP 404)";
    /// Bad JSON-RPC envelopes.
    INVALID_REQUEST = "invalid-request", "§5 (-32600), edge 5, edge 7",
        "an object, fractional or null id, a missing jsonrpc and a batch array get -32600 (HTTP 400)";
    /// Bad JSON.
    PARSE_ERROR = "parse-error", "§5 (-32700)",
        "a body that is not JSON gets -32700 (HTTP 400) without an id";
    /// Notifications are never answered.
    NOTIFICATIONS_UNANSWERED = "notifications-unanswered", "§2.5, §6.3, edge 1",
        "notifications (known or not, without _meta) get no JSON-RPC answer (HTTP 202 or an error status, no body)";
    /// Errors echo the request's id.
    ERROR_ID_ECHO = "error-id-echo", "§5 error responses, edge 5",
        "an error to a request whose id could be read repeats that id with its type";
    /// The declared capabilities match what is served.
    CAPABILITIES_TRUTHFUL = "capabilities-truthful", "§3.4, §4.3, §4.9",
        "a declared tools/resources/prompts capability has a working list method; an undeclared one (completions too) gets -32601";
    /// Paging and cursors.
    PAGINATION = "pagination", "§3.8, §5 (-32602 bad cursor)",
        "each list's nextCursor leads to the next page without repeating, cacheScope is the same on every page, and an invalid cursor on any list gets -32602";
    /// Tool names.
    TOOL_NAMES = "tool-names", "tools.mdx (tool names)",
        "tool names are 1 to 128 characters of A-Z a-z 0-9 _ - . and unique within the list";
    /// Tool schemas.
    TOOL_SCHEMAS = "tool-schemas", "TS Tool.inputSchema/outputSchema",
        "a tool's inputSchema is a JSON Schema object with type \"object\" at the root, object properties and a string-list required; an outputSchema is a JSON Schema object (2025-11-25 sessions: type \"object\" at the root too)";
    /// `x-mcp-header` annotations.
    X_MCP_HEADER = "x-mcp-header", "§6.7, §6.8",
        "x-mcp-header names are header tokens, unique regardless of case, on string/integer/boolean properties (optionally with null); a call over HTTP whose body has the value but lacks the Mcp-Param header gets 400/-32020";
    /// Unknown tools and prompts.
    UNKNOWN_TOOL_OR_PROMPT = "unknown-tool-or-prompt", "§5 (-32602)",
        "tools/call of an unknown tool and prompts/get of an unknown prompt get -32602";
    /// A missing resource, modern era.
    RESOURCE_NOT_FOUND = "resource-not-found", "§5 (-32602), §9.11, edge 12",
        "resources/read of a URI the server does not have gets -32602 in the modern era, never -32002";
    /// A missing resource, legacy session.
    LEGACY_RESOURCE_NOT_FOUND = "legacy-resource-not-found", "§8.9, edge 12",
        "inside a legacy session, resources/read of a URI the server does not have gets -32002";
    /// A dual-era server's `initialize`.
    LEGACY_INITIALIZE = "legacy-initialize", "§8.5, §8.6",
        "a dual-era server answers legacy initialize with a legacy version (the requested one when it has it), serverInfo and capabilities in the body, and never agrees to a modern version";
    /// A modern-only server's `initialize`.
    MODERN_ONLY_INITIALIZE = "modern-only-initialize", "§7.7, §6.13",
        "a modern-only server refuses initialize naming its supported versions (data.supported); over HTTP without MCP-Protocol-Version, 400/-32020";
    /// HTTP header checks.
    HTTP_HEADERS = "http-headers", "§6.5, §6.8, §6.9, §6.14",
        "over HTTP, a missing MCP-Protocol-Version, a header version other than _meta's, a missing or wrong Mcp-Method and a missing Mcp-Name get 400/-32020; correct headers are served";
}
