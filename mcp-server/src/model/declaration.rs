//! A server's declaration, built by the derive once per type or at run
//! time by hand: identity, versions, capabilities, discover caching hints,
//! required OAuth scopes, and the results derived from them
//! (`server/discover`, the legacy `InitializeResult`).

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use mcp_era_types::v2025_11_25 as legacy;
use mcp_era_types::v2026_07_28::{
    CacheScope, DiscoverResult, Implementation, ResultMetaObject, ServerCapabilities, meta_keys,
};
use mcp_era_types::versions::{Era, servable_list};
use serde_json::{Map, Value};

/// The versions the runtime implements, newest first: the only ones a
/// server may declare (see `docs/adopting-a-revision.md` to add one).
/// Distinct from `mcp_era_types::versions::GENERATED_VERSIONS`, the versions
/// that merely have types.
pub use mcp_era_types::versions::{
    IMPLEMENTED_LEGACY_VERSIONS, IMPLEMENTED_MODERN_VERSIONS, IMPLEMENTED_VERSIONS,
    VersionRejection,
};

/// The default `ttlMs` of the `server/discover` result: 60 000 ms.
///
/// The discover result is built from compile-time declarations, so it can
/// only change when the server binary is replaced. One minute lets a client
/// skip re-probing for every connection while bounding how long a client
/// keeps a stale capability list after a redeploy. `0` ("immediately
/// stale") would be safe but gives up caching entirely; hours would hide a
/// rolling upgrade. Override with `#[mcp(discover(ttl_ms = ...))]`.
pub const DEFAULT_DISCOVER_TTL_MS: u64 = 60_000;

/// The default `cacheScope` of the `server/discover` result: `public`.
///
/// The result is the same for every caller (it comes from the declaration,
/// not from the authorisation context), so shared caches may reuse it.
/// Override with `#[mcp(discover(scope = "private"))]`.
pub const DEFAULT_DISCOVER_CACHE_SCOPE: CacheScope = CacheScope::Public;

/// The default `ttlMs` of list and read results whose handler leaves it
/// out (raw JSON results), and what [`RequestContext::cache_ttl_ms`]
/// returns when `#[mcp(cache(...))]` is not written: 0, "immediately
/// stale". Lists and reads are the handler's data, which the runtime knows
/// nothing about, so the safe default is no caching.
///
/// [`RequestContext::cache_ttl_ms`]: crate::RequestContext::cache_ttl_ms
pub const DEFAULT_CACHE_TTL_MS: u64 = 0;

/// The default `cacheScope` of list and read results: `private`, because
/// handler data may depend on the caller's authorisation.
pub const DEFAULT_CACHE_SCOPE: CacheScope = CacheScope::Private;

/// Everything a server declares about itself: what `#[derive(McpServer)]`
/// builds from its attributes, or what a server built at run time (from a
/// config file, a backend's `server/discover`) builds with
/// [`new`](Self::new) and the `with_*` methods.
///
/// ```
/// use mcp_era_server::ServerDeclaration;
/// use mcp_era_server::mcp_era_types::v2026_07_28::{
///     Implementation, ServerCapabilities, ServerCapabilitiesTools,
/// };
///
/// let mut capabilities = ServerCapabilities::new();
/// capabilities.tools = Some(ServerCapabilitiesTools::new());
/// let info = Implementation::builder().name("from-config").version("1.0.0").build();
/// let declaration = ServerDeclaration::new(info)
///     .with_versions(["2026-07-28"], [] as [&str; 0])?
///     .with_capabilities(capabilities)
///     .with_instructions("Tools read from tools.toml");
/// assert!(!declaration.is_dual_era());
/// assert_eq!(declaration.advertised_versions(), ["2026-07-28"]);
/// # Ok::<(), mcp_era_server::VersionRejection>(())
/// ```
///
/// It answers the three version questions separately (see
/// [`advertised_versions`](Self::advertised_versions),
/// [`accepted_versions`](Self::accepted_versions),
/// [`initialize_versions`](Self::initialize_versions)), so narrowing one can
/// never silently change another.
#[derive(Debug)]
pub struct ServerDeclaration {
    /// Unique in the process: what kept pages are keyed by (an address
    /// could be reused by a later declaration).
    id: u64,
    server_info: Implementation,
    instructions: Option<String>,
    modern_versions: Vec<&'static str>,
    legacy_versions: Vec<&'static str>,
    capabilities: ServerCapabilities,
    discover_ttl_ms: u64,
    discover_cache_scope: CacheScope,
    cache_ttl_ms: u64,
    cache_scope: CacheScope,
    required_scopes: Vec<String>,
    capability_scopes: BTreeMap<String, Vec<String>>,
    discover_json: OnceLock<Value>,
    discover_reply: OnceLock<crate::wire::reply::Reply>,
    server_info_bytes: OnceLock<Vec<u8>>,
    /// The extension table (`model/extensions.rs`), built from the
    /// capabilities on first use; see [`Self::extension_slot`].
    extensions: OnceLock<Box<dyn Any + Send + Sync>>,
    pub(crate) param_headers: crate::state::param_header_cache::ParamHeaderCache,
    tasks: Arc<crate::state::tasks::Tasks>,
    skills: Arc<crate::state::skills::Skills>,
    request_state: Arc<crate::state::request_state::RequestStateSealing>,
}

impl ServerDeclaration {
    /// A declaration serving every version the runtime implements, in both
    /// eras (as the derive does when `versions(...)` is not written), with
    /// no capabilities, no instructions and the default caching hints.
    pub fn new(server_info: Implementation) -> Self {
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        Self {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            server_info,
            instructions: None,
            modern_versions: IMPLEMENTED_MODERN_VERSIONS.to_vec(),
            legacy_versions: IMPLEMENTED_LEGACY_VERSIONS.to_vec(),
            capabilities: ServerCapabilities::new(),
            discover_ttl_ms: DEFAULT_DISCOVER_TTL_MS,
            discover_cache_scope: DEFAULT_DISCOVER_CACHE_SCOPE,
            cache_ttl_ms: DEFAULT_CACHE_TTL_MS,
            cache_scope: DEFAULT_CACHE_SCOPE,
            required_scopes: Vec::new(),
            capability_scopes: BTreeMap::new(),
            discover_json: OnceLock::new(),
            discover_reply: OnceLock::new(),
            server_info_bytes: OnceLock::new(),
            extensions: OnceLock::new(),
            param_headers: crate::state::param_header_cache::ParamHeaderCache::default(),
            tasks: Arc::new(crate::state::tasks::Tasks::new()),
            skills: Arc::new(crate::state::skills::Skills::new()),
            request_state: Arc::new(crate::state::request_state::RequestStateSealing::new()),
        }
    }

    /// Serves these versions only: `modern` (at least one) for modern
    /// requests, `legacy` (possibly none: a modern-only server) for a legacy
    /// `initialize`. Each must be a version the runtime implements, of that
    /// era, listed once; the error names the first that is not.
    pub fn with_versions<M, L>(
        mut self,
        modern: impl IntoIterator<Item = M>,
        legacy: impl IntoIterator<Item = L>,
    ) -> Result<Self, VersionRejection>
    where
        M: AsRef<str>,
        L: AsRef<str>,
    {
        let modern = servable_list(modern, Era::Modern)?;
        if modern.is_empty() {
            return Err(VersionRejection::NoModernVersion);
        }
        self.legacy_versions = servable_list(legacy, Era::Legacy)?;
        self.modern_versions = modern;
        Ok(self)
    }

    /// A copy of this declaration to change with the `with_*` methods:
    /// what it declares (identity, instructions, versions, capabilities,
    /// caching hints, scopes), with its run-time state shared as
    /// [`with_state_of`](Self::with_state_of) shares it. Serve it with
    /// [`McpServerExt::redeclared`](crate::McpServerExt::redeclared): a
    /// derived server narrowed to one era by a command-line flag, say.
    pub fn duplicate(&self) -> Self {
        let mut copy = Self::new(self.server_info.clone()).with_state_of(self);
        copy.instructions = self.instructions.clone();
        copy.modern_versions = self.modern_versions.clone();
        copy.legacy_versions = self.legacy_versions.clone();
        copy.capabilities = self.capabilities.clone();
        copy.discover_ttl_ms = self.discover_ttl_ms;
        copy.discover_cache_scope = self.discover_cache_scope;
        copy.cache_ttl_ms = self.cache_ttl_ms;
        copy.cache_scope = self.cache_scope;
        copy.required_scopes = self.required_scopes.clone();
        copy.capability_scopes = self.capability_scopes.clone();
        copy
    }

    /// Unique in the process.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// This declaration with the run-time state of `previous`: its tasks,
    /// skills and `requestState` keys, shared from then on. For a server
    /// that replaces its declaration while it serves (a capability that
    /// changed, a backend that restarted): running tasks, sealed
    /// `requestState`s and loaded skills outlive the change. Clients keep
    /// the old `server/discover` for its `ttlMs`: give such a server a
    /// [`with_discover_cache`](Self::with_discover_cache) no longer than it
    /// may go stale.
    pub fn with_state_of(mut self, previous: &ServerDeclaration) -> Self {
        self.tasks = Arc::clone(&previous.tasks);
        self.skills = Arc::clone(&previous.skills);
        self.request_state = Arc::clone(&previous.request_state);
        self
    }

    /// Versions the derive checked at compile time.
    pub(crate) fn with_checked_versions(
        mut self,
        modern: &[&'static str],
        legacy: &[&'static str],
    ) -> Self {
        self.modern_versions = modern.to_vec();
        self.legacy_versions = legacy.to_vec();
        self
    }

    /// Sets the server capabilities (modern shape).
    pub fn with_capabilities(mut self, capabilities: ServerCapabilities) -> Self {
        self.capabilities = capabilities;
        // The extensions declared may have changed.
        self.extensions = OnceLock::new();
        self
    }

    /// Sets the instructions shown to clients.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Sets the caching hints of the `server/discover` result.
    pub fn with_discover_cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.discover_ttl_ms = ttl_ms;
        self.discover_cache_scope = scope;
        self
    }

    /// Sets the default caching hints of the five other cacheable methods
    /// (`tools/list`, `prompts/list`, `resources/list`,
    /// `resources/templates/list`, `resources/read`):
    /// `#[mcp(cache(ttl_ms = ..., scope = "..."))]`.
    pub fn with_cache_defaults(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.cache_ttl_ms = ttl_ms;
        self.cache_scope = scope;
        self
    }

    /// Adds OAuth scopes every request needs: `#[mcp(scopes = [...])]`.
    pub fn with_required_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scopes: I,
    ) -> Self {
        extend_unique(&mut self.required_scopes, scopes);
        self
    }

    /// Adds OAuth scopes the methods of `capability` (`tools`, `resources`,
    /// `prompts`, `completions`) need: `#[mcp(tools(scopes = [...]))]`.
    pub fn with_capability_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        capability: impl Into<String>,
        scopes: I,
    ) -> Self {
        let entry = self.capability_scopes.entry(capability.into()).or_default();
        extend_unique(entry, scopes);
        self
    }

    /// The OAuth scopes every request needs (declared; the HTTP transport
    /// with `auth` adds them to `AuthConfig::required_scopes`).
    pub fn required_scopes(&self) -> &[String] {
        &self.required_scopes
    }

    /// The OAuth scopes each capability's methods need, by capability.
    pub fn capability_scopes(&self) -> &BTreeMap<String, Vec<String>> {
        &self.capability_scopes
    }

    /// The default `ttlMs` of list and read results.
    pub fn cache_ttl_ms(&self) -> u64 {
        self.cache_ttl_ms
    }

    /// The default `cacheScope` of list and read results.
    pub fn cache_scope(&self) -> CacheScope {
        self.cache_scope
    }

    /// The tasks of this server (tasks extension): their store,
    /// `ttlMs` and `pollIntervalMs`. Used only when the server declares
    /// `extension("io.modelcontextprotocol/tasks")`; configure it before
    /// serving, e.g. `server.declaration().tasks().set_store(store)`.
    pub fn tasks(&self) -> &Arc<crate::state::tasks::Tasks> {
        &self.tasks
    }

    /// The skills this server serves (skills extension). Used only
    /// when the server declares `extension("io.modelcontextprotocol/skills")`;
    /// fill it before serving, e.g.
    /// `server.declaration().skills().load_dir("skills")?`.
    pub fn skills(&self) -> &Arc<crate::state::skills::Skills> {
        &self.skills
    }

    /// How this server seals `requestState` (on by default, with a
    /// random key per process): configure it before serving, e.g.
    /// `server.declaration().request_state().set_keys(keys)`, the same
    /// keys on every replica (see [`crate::request_state`]).
    pub fn request_state(&self) -> &crate::state::request_state::RequestStateSealing {
        &self.request_state
    }

    /// Adds `_meta["io.modelcontextprotocol/serverInfo"]` to a modern result
    /// that does not carry it yet.
    pub(crate) fn with_server_info(&self, mut result: Value) -> Value {
        if let Value::Object(object) = &mut result {
            let meta = object
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta
                && !meta.contains_key(meta_keys::SERVER_INFO)
                && let Ok(info) = serde_json::to_value(self.server_info())
            {
                meta.insert(meta_keys::SERVER_INFO.to_owned(), info);
            }
        }
        result
    }

    /// The server's identity (`io.modelcontextprotocol/serverInfo`).
    pub fn server_info(&self) -> &Implementation {
        &self.server_info
    }

    /// The instructions, if declared.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// The declared capabilities (modern shape).
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// The `ttlMs` of the discover result.
    pub fn discover_ttl_ms(&self) -> u64 {
        self.discover_ttl_ms
    }

    /// The `cacheScope` of the discover result.
    pub fn discover_cache_scope(&self) -> CacheScope {
        self.discover_cache_scope
    }

    /// **List 1: the versions `server/discover` advertises** in
    /// `supportedVersions`, and the `data.supported` of every `-32022`
    /// error: the declared modern versions, newest first.
    ///
    /// Legacy versions are not advertised: a client picks a version from
    /// this list for its next request's `_meta`, and a legacy version in a
    /// modern envelope is rejected.
    pub fn advertised_versions(&self) -> &[&'static str] {
        &self.modern_versions
    }

    /// **List 2: the versions accepted per request** in
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`, compared exactly.
    /// Equal to [`advertised_versions`](Self::advertised_versions) by
    /// construction, so a `-32022` never lists a version that would itself
    /// be rejected.
    pub fn accepted_versions(&self) -> &[&'static str] {
        &self.modern_versions
    }

    /// **List 3: the versions a legacy `initialize` may agree to**: the
    /// declared legacy versions, newest first. Empty for a modern-only
    /// server. Never contains a modern version (the derive rejects that).
    pub fn initialize_versions(&self) -> &[&'static str] {
        &self.legacy_versions
    }

    /// Whether this server also serves legacy (2025-11-25 era) clients.
    pub fn is_dual_era(&self) -> bool {
        !self.legacy_versions.is_empty()
    }

    /// Whether a modern request may use `version` (exact comparison).
    pub fn accepts(&self, version: &str) -> bool {
        self.accepted_versions().contains(&version)
    }

    /// The version a legacy `initialize` requesting `requested` agrees to:
    /// `requested` itself if it is a declared legacy version, otherwise the
    /// newest declared legacy version (also for a requested modern or
    /// unknown version). `None` for a modern-only server.
    pub fn negotiate_initialize(&self, requested: &str) -> Option<&'static str> {
        self.legacy_versions
            .iter()
            .copied()
            .find(|v| *v == requested)
            .or_else(|| self.legacy_versions.first().copied())
    }

    /// The `server/discover` result, built from the declaration.
    pub fn discover_result(&self) -> DiscoverResult {
        let mut meta = ResultMetaObject::new();
        meta.server_info = Some(self.server_info.clone().into());
        let mut result = DiscoverResult::new(
            self.capabilities.clone(),
            self.advertised_versions()
                .iter()
                .map(|v| (*v).to_owned())
                .collect(),
            mcp_era_types::v2026_07_28::CacheHints::new(
                self.discover_ttl_ms,
                self.discover_cache_scope,
            ),
        );
        result.meta = Some(meta);
        result.instructions = self.instructions.clone();
        result
    }

    /// The `server/discover` result as JSON, built on first use and cached.
    pub fn discover_json(&self) -> &Value {
        self.discover_json
            .get_or_init(|| serde_json::to_value(self.discover_result()).unwrap_or(Value::Null))
    }

    /// The `server/discover` result as JSON bytes, rendered once: every
    /// `server/discover` is answered by splicing in the request id.
    pub fn discover_bytes(&self) -> &[u8] {
        self.discover_reply().as_bytes()
    }

    /// The rendered discover result; its clones share the bytes.
    pub(crate) fn discover_reply(&self) -> &crate::wire::reply::Reply {
        self.discover_reply.get_or_init(|| {
            let bytes = serde_json::to_vec(self.discover_json()).unwrap_or_default();
            crate::wire::reply::Reply::from_rendered(bytes).shared()
        })
    }

    /// Where `era/extensions.rs` keeps this declaration's extension table,
    /// built once. Opaque here: the table's hooks take the declaration
    /// and the contexts that hold it, so naming its type would make a
    /// circle.
    pub(crate) fn extension_slot(&self) -> &OnceLock<Box<dyn Any + Send + Sync>> {
        &self.extensions
    }

    /// The server identity as JSON bytes, rendered once, for the
    /// `_meta["io.modelcontextprotocol/serverInfo"]` of every result.
    pub(crate) fn server_info_bytes(&self) -> &[u8] {
        self.server_info_bytes
            .get_or_init(|| serde_json::to_vec(&self.server_info).unwrap_or_default())
    }

    /// The capabilities mapped to the 2025-11-25 shape: `experimental`,
    /// `logging`, `completions`, `prompts`, `resources`, `tools` carry over;
    /// `extensions` has no 2025-11-25 member and is left out.
    pub fn legacy_capabilities(&self) -> legacy::ServerCapabilities {
        let modern = &self.capabilities;
        let mut caps = legacy::ServerCapabilities::new();
        caps.experimental = modern.experimental.clone();
        caps.logging = modern.logging.clone();
        caps.completions = modern.completions.clone();
        caps.prompts = modern.prompts.as_ref().map(|p| {
            let mut out = legacy::ServerCapabilitiesPrompts::new();
            out.list_changed = p.list_changed;
            out
        });
        caps.resources = modern.resources.as_ref().map(|r| {
            let mut out = legacy::ServerCapabilitiesResources::new();
            out.list_changed = r.list_changed;
            out.subscribe = r.subscribe;
            out
        });
        caps.tools = modern.tools.as_ref().map(|t| {
            let mut out = legacy::ServerCapabilitiesTools::new();
            out.list_changed = t.list_changed;
            out
        });
        caps
    }

    /// The server identity in the 2025-11-25 shape (same JSON fields).
    pub fn legacy_server_info(&self) -> legacy::Implementation {
        serde_json::to_value(&self.server_info)
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_else(|| {
                legacy::Implementation::builder()
                    .name(self.server_info.name.clone())
                    .version(self.server_info.version.clone())
                    .build()
            })
    }

    /// The 2025-11-25 `InitializeResult` for a legacy `initialize` that
    /// requested `requested`, agreeing to
    /// [`negotiate_initialize`](Self::negotiate_initialize)`(requested)`.
    /// `None` for a modern-only server.
    pub fn initialize_result(&self, requested: &str) -> Option<legacy::InitializeResult> {
        let version = self.negotiate_initialize(requested)?;
        let mut result = legacy::InitializeResult::new(
            self.legacy_capabilities(),
            version.to_owned(),
            self.legacy_server_info(),
        );
        result.instructions = self.instructions.clone();
        Some(result)
    }
}

/// Every OAuth scope a server declares it needs: server-wide
/// (`#[mcp(scopes = [...])]`), per capability (`#[mcp(tools(scopes =
/// [...]))]`) and per tool (`#[tool(scopes = [...])]`). The declaration
/// holds no policy of its own: with the `auth` feature the HTTP transport
/// adds these to its `AuthConfig`, without it they are only carried
/// (see [`McpServer::declared_scopes`](crate::McpServer::declared_scopes)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeclaredScopes {
    /// Scopes every request needs.
    pub required: Vec<String>,
    /// Scopes the methods of a capability need, by capability.
    pub capabilities: BTreeMap<String, Vec<String>>,
    /// Scopes a `tools/call` of a tool needs, by tool name.
    pub tools: BTreeMap<String, Vec<String>>,
}

impl DeclaredScopes {
    /// Every declared scope once: server-wide, then by capability, then
    /// by tool (maps in name order).
    pub fn all(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for scope in self
            .required
            .iter()
            .chain(self.capabilities.values().flatten())
            .chain(self.tools.values().flatten())
        {
            if !out.contains(&scope.as_str()) {
                out.push(scope);
            }
        }
        out
    }
}

/// Appends the scopes of `more` that `list` lacks, in order.
pub(crate) fn extend_unique<I: IntoIterator<Item = S>, S: Into<String>>(
    list: &mut Vec<String>,
    more: I,
) {
    for scope in more {
        let scope = scope.into();
        if !list.contains(&scope) {
            list.push(scope);
        }
    }
}
