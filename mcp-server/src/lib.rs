//! MCP server runtime: `#[derive(McpServer)]`, the handler traits, and the
//! transport-agnostic entry point that answers one JSON-RPC message.
//!
//! The author declares *what* the server is; the derive generates the parts
//! that must be exactly right (`server/discover`, the `_meta` checks, the
//! version gate, legacy `initialize`) and rejects mistakes at compile time.
//!
//! # A server in 20 lines
//!
//! ```
//! use mcp_era_server::{McpServer, router};
//!
//! #[derive(McpServer)]
//! #[mcp(name = "weather", version = "1.0.0")]
//! struct Weather;
//!
//! #[router]
//! impl Weather {
//!     /// Today's forecast for a city.
//!     #[tool(read_only, open_world)]
//!     async fn forecast(&self, #[arg(description = "City name")] city: String) -> Result<String, String> {
//!         if city.is_empty() { return Err("name a city".into()) } // a failed result (`isError`)
//!         Ok(format!("Sunny in {city}"))
//!     }
//! }
//! # let d = Weather.declaration();
//! # assert!(d.capabilities().tools.is_some()); // served by the router, said once
//! # assert_eq!(d.advertised_versions(), ["2026-07-28"]);
//! # assert_eq!(d.initialize_versions(), ["2025-11-25"]);
//! ```
//!
//! Serve it with `mcp_era_server::stdio::run(Weather)`,
//! `mcp_era_server::http::run(Weather, HttpConfig::bind("127.0.0.1:8080")?)`,
//! or let the command line choose: `fn main() -> ExitCode {
//! mcp_era_server::serve_from_args(Weather) }` serves stdio by default and HTTP
//! with `http [HOST:PORT]` ([`serve_from_args`]).
//!
//! # Tools, resources and prompts: `#[router]`
//!
//! `#[mcp_era_server::router]` on an inherent `impl` block turns its marked
//! methods into the server's catalogue, described once and served from a
//! static table (`tools/list`, `resources/list`, `resources/templates/list`
//! and `prompts/list` paginate it, 100 entries a page, with the
//! `cache(...)` hints; the HTTP `Mcp-Param-*` check reads it). Methods may
//! be `fn` or `async fn`, take `&self`, and may take a `&RequestContext`
//! anywhere in their parameters.
//!
//! **`#[tool(...)]`**: `name` (default: the method name; checked against
//! the spec's naming rules, 1–128 of `A-Z a-z 0-9 _ - .`, and unique),
//! `title`, `description` (default: the doc comment), `read_only`,
//! `destructive`, `idempotent`, `open_world` (annotation hints; `= false`
//! allowed), `icon(src = ..., mime_type = ..., sizes = [...], theme = ...)`
//! (repeatable), `meta = { JSON object }`, `ui = "ui://..."` and
//! `visibility = [...]` (an MCP App; see below), `task = "never" | "optional" |
//! "required"` (whether the call may run as a task when the server
//! declares the tasks extension; see [`tasks`]), `scopes = ["files:write",
//! ...]` (OAuth scopes a call of this tool needs; see
//! [OAuth scopes](#oauth-scopes)), `hidden` (callable by name, never
//! listed), `era = "modern" | "legacy"` (listed and callable only by
//! requests of that era, as [`RequestContext::is_legacy`] tells them apart:
//! for the other era the tool does not exist, and a call answers exactly as
//! an unknown tool does; see [`ToolVisibility`]).
//!
//! * Hidden and one-era tools keep what a call needs in their era: a
//!   hidden tool's `Mcp-Param-*` headers are checked and its `task`
//!   honoured. A legacy-only tool has neither (only modern requests carry
//!   the headers or become tasks, so `task` with `era = "legacy"` is a
//!   compile error). Scopes are checked by tool name before the era is
//!   known: a token lacking a one-era tool's scopes is refused (403) in
//!   both eras. Tool names stay unique across eras, since the header
//!   annotations, task support and scopes are all found by name.
//!
//! * Arguments are plain parameters, each a property of the input schema
//!   (`Option<T>` ones optional): `#[arg(description = "...", name =
//!   "wireName", header = "Region")]` sets the property's description,
//!   JSON name and `x-mcp-header`. Or one `#[arguments] args: T` parameter
//!   whose type is the whole arguments object. Argument types implement
//!   `serde::Deserialize` and [`schemars::JsonSchema`] (schemars 1,
//!   re-exported: JSON Schema 2020-12).
//! * Arguments are checked against the advertised `inputSchema` (JSON
//!   Schema 2020-12 unless its `$schema` names another draft; compiled
//!   once per tool) before the handler runs, for `#[tool]` methods and
//!   [`ToolRouter`] tools alike. Arguments that do not fit answer a result
//!   with `isError: true` naming the instance path and keyword of each
//!   violation (``Invalid argument `/items/1` (type): ...``, at most five),
//!   as the spec files input validation under tool execution errors; an
//!   unknown tool is `-32602 "Unknown tool: X"`. In derived schemas a
//!   `null` for an optional argument reads as absent, as serde reads
//!   `Option<T>`; `format` is an annotation (the 2020-12 default).
//! * Return types ([`IntoToolResult`]): `String`, a content block,
//!   `Vec<ContentBlock>`, `CallToolResult`, [`Json<T>`] (`structuredContent`
//!   plus a text copy, and `T`'s schema as `outputSchema`; a 2025-11-25
//!   session, whose schema allows only objects there, gets the text copy
//!   alone when `T` is not an object, see [`legacy_result`](transport::legacy_result)),
//!   [`InputRequired`] or `InputRequiredResult` (MRTR, see [`input`]; its
//!   `requestState` is sealed by the runtime, see [`request_state`]),
//!   `()`, or `Result<T, E>`: an `Err` whose type implements `Display` is
//!   a result with `isError: true`; [`ToolError::Protocol`] is a JSON-RPC
//!   error (`?` on a [`HandlerResult`] converts into it). Which to use
//!   when: [`errors`], "Which error to return".
//!
//! **`#[resource(...)]`**: `uri = "..."` (a fixed resource) or `template =
//! "note://{id}"` (RFC 6570 `{var}` and `{+var}`; every other parameter
//! names a variable and is parsed with `FromStr`, `{var}` and `{+var}`
//! values percent-decoded; a value that does not parse is "resource not
//! found"), `name`, `title`, `description`, `mime_type`, `icon(...)`,
//! `cache(ttl_ms = ..., scope = ...)` (the hints of this resource's reads,
//! each value left out the server's `#[mcp(cache(...))]` default; same
//! value rules), `list = method` (templates: the live instances, below). A
//! [`ResourceRequest`] parameter gives the URI, variables and resolved
//! cache hints. Returns ([`IntoReadResult`]): `String` (text, with the
//! declared `mimeType`), [`Blob`] (bytes), resource contents,
//! `ReadResourceResult`, `Option<T>` (`None` is resource not found:
//! `-32602` with `data.uri`, `-32002` in legacy sessions), or
//! `HandlerResult<T>`.
//!
//! **A live resource list**: `resources/list` shows the fixed resources,
//! then the instances of each template that names a `list` method. That
//! method sits in the same `#[router]` impl block (the macro reads its
//! signature: `fn` or `async fn`, `&self`, optionally `&RequestContext`)
//! and returns `Vec<V>` or `Vec<`[`ListedResource<V>`]`>`, or a
//! `HandlerResult` of one, where `V` is the template's variables: one
//! value, or a tuple in the template's order, each typed as the resource
//! method's parameter of that name (`String` for a variable it does not
//! take), written with `Display`:
//!
//! ```
//! use mcp_era_server::{ListedResource, McpServer, router};
//! use std::collections::BTreeMap;
//!
//! #[derive(McpServer)]
//! #[mcp(name = "notes", version = "1.0.0", resources)]
//! struct Notes { notes: BTreeMap<u32, String> }
//!
//! #[router]
//! impl Notes {
//!     /// A note.
//!     #[resource(template = "note://{id}", mime_type = "text/plain", list = Self::all)]
//!     fn note(&self, id: u32) -> Option<String> {
//!         self.notes.get(&id).cloned()
//!     }
//!
//!     fn all(&self) -> Vec<ListedResource<u32>> {
//!         self.notes.iter().map(|(id, text)| ListedResource::new(*id).title(text)).collect()
//!     }
//! }
//! ```
//!
//! * Each instance's URI is expanded from the template (RFC 6570: a
//!   `{var}` value keeps only unreserved characters, a `{+var}` value also
//!   keeps `/`, `?`, `#` and the other reserved ones; the rest is
//!   `%XX`-encoded UTF-8), so it reads back the same value. Its `name`,
//!   `title`, `description`, `mimeType`, icons and annotations default to
//!   the template's declaration; [`ListedResource`] overrides them and sets
//!   `size`. An instance whose URI its template does not match back (an
//!   empty value) or that a fixed resource holds is left out (logged).
//! * Why a `list` key on the template, not a separate `#[resources_list]`
//!   method: the lister is tied to one template, so the variables it
//!   returns are typed and checked at compile time, the URI cannot drift
//!   from the template, and the defaults have one obvious source. A
//!   server with several listed templates writes one small method each.
//! * **Cursors.** The list is produced afresh on each call (the `list`
//!   methods run for every page that reaches past the fixed resources, so
//!   they should be cheap), and instances come and go between pages. The
//!   live part is therefore sorted by URI, and its cursor names the last
//!   URI sent (`after:<uri>`, opaque to clients): the next page resumes
//!   after it whether it still exists or not. A walk over the pages lists
//!   every instance present throughout it exactly once; one added or
//!   removed meanwhile may or may not appear, and moves no other; the same
//!   state gives the same pages. Within the fixed resources the cursor is
//!   an offset, as in every other list, 100 entries a page.
//! * **Errors.** An `Err` from a `list` method answers the whole
//!   `resources/list` request with that JSON-RPC error (use
//!   [`errors::internal_error`], `-32603`, for the server's own failure): a
//!   partial page would tell the client the list ended early.
//! * Listing plays no part in `resources/read`: any URI a template
//!   matches is read, listed or not.
//!
//! Resources and prompts take no `scopes`: the HTTP layer checks scopes by
//! method before any handler runs, so a resource's would need its URI
//! matched against every template there; declare them for the whole
//! capability instead (`resources(scopes = [...])`).
//!
//! **MCP Apps** (`io.modelcontextprotocol/ui`, SEP-1865): a tool whose
//! results a host shows in an interactive HTML view. The view is a
//! `#[resource(ui = "ui://...")]` (a fixed resource whose `mimeType` is
//! `text/html;profile=mcp-app`), taking besides `name`, `title`,
//! `description`, `icon(...)` and `cache(...)`: `csp(connect_domains =
//! [...], resource_domains = [...], frame_domains = [...], base_uri_domains
//! = [...])` (origins such as `"https://api.example.com"` or
//! `"https://*.example.com"`), `permissions(camera, microphone,
//! geolocation, clipboard_write)`, `domain = "..."` and `prefers_border`
//! (`= false` allowed); they become `_meta.ui` on the listed resource and
//! on the contents a `String`, `&'static str` or [`Blob`] read returns.
//! Serve the HTML with `include_str!`, a string, or a file read at run
//! time (`Option<String>`). A tool links to it with `#[tool(ui =
//! "ui://...")]`, which writes `_meta.ui.resourceUri` (and the flat
//! `ui/resourceUri` older hosts read), and says who may use it with
//! `visibility = ["model", "app"]` (default both). The server declares
//! `#[mcp(extension("io.modelcontextprotocol/ui"))]`.
//!
//! ```
//! use mcp_era_server::schemars::{self, JsonSchema};
//! use mcp_era_server::{Json, JsonWithText, McpServer, router};
//!
//! #[derive(McpServer)]
//! #[mcp(name = "weather", version = "1.0.0", extension("io.modelcontextprotocol/ui"))]
//! struct Weather;
//!
//! #[derive(serde::Serialize, JsonSchema)]
//! struct Now { celsius: f64 }
//!
//! #[router]
//! impl Weather {
//!     /// The weather now, shown in the dashboard App where hosts have Apps.
//!     #[tool(ui = "ui://weather/dashboard")]
//!     fn weather(&self) -> JsonWithText<Now> {
//!         Json(Now { celsius: 21.5 }).with_text("21.5 °C and sunny.")
//!     }
//!
//!     /// Called by the dashboard's refresh button only.
//!     #[tool(ui = "ui://weather/dashboard", visibility = ["app"])]
//!     fn refresh(&self) -> Json<Now> {
//!         Json(Now { celsius: 21.7 })
//!     }
//!
//!     /// The dashboard.
//!     #[resource(ui = "ui://weather/dashboard", prefers_border,
//!                csp(connect_domains = ["https://api.weather.example"]))]
//!     fn dashboard(&self) -> &'static str {
//!         "<!DOCTYPE html><html><body>...</body></html>"
//!     }
//! }
//! ```
//!
//! * Compile errors: a `ui` that is not `ui://...`, a CSP entry that is not
//!   an origin (`scheme://host[:port]`, scheme https, http, wss or ws, no
//!   path), a `mime_type` on an App, App keys on a plain resource, a
//!   visibility other than `"model"`/`"app"`, an App tool returning `()`
//!   (no text fallback), a tool's `ui` naming no
//!   `#[resource(ui = ...)]` of the impl block (when it has resources; when
//!   it has none, a server that serves no resources at all), and a server
//!   that does not declare the extension. Catalogues built by hand
//!   ([`ToolRouter`], `_meta` literals) get the same URI and origin checks
//!   at start, as [`McpServer::catalogue_problems`].
//! * **Text fallback.** The spec asks every App tool for content a host
//!   without Apps can show: return [`Json::with_text`] (structured content
//!   for the App, a sentence for everyone else) or a plain text result.
//! * **App-only tools.** The spec has the *host* keep a tool whose
//!   visibility lacks `"model"` out of the agent's tool list, and refuse an
//!   App's call of a tool whose visibility lacks `"app"`. A client that
//!   renders no Apps knows neither rule, so `tools/list` shows app-only
//!   tools only to requests whose client capabilities declare the
//!   extension without leaving `text/html;profile=mcp-app` out of
//!   `mimeTypes` (modern: the request's `_meta`; legacy: the session's
//!   `initialize`). A call by name is served, as for a `hidden` tool: the
//!   server cannot tell an App's call from a model's.
//!
//! **`#[prompt(...)]`**: `name`, `title`, `description`, `icon(...)`; each
//! parameter is a prompt argument (`Option<T>` optional, others required,
//! parsed with `FromStr`, `#[arg(description = ...)]`), listed with its
//! `required` flag. A missing or unparsable argument is `-32602`. Returns
//! ([`IntoPromptResult`]): `String` (one user message), `PromptMessage`,
//! `Vec<PromptMessage>`, `GetPromptResult`, [`InputRequired`],
//! `InputRequiredResult`, or `HandlerResult<T>` ([`PromptAnswer`] when it
//! may ask for input).
//!
//! **Completions** (`completion/complete`): `#[arg(complete = Self::method)]`
//! on a `#[prompt]` parameter or a `#[resource(template)]` variable names a
//! method of the same impl block that offers values for it. It takes
//! `&self`, the partial value as `&str`, and optionally
//! [`&CompletionArguments`](CompletionArguments) (the other arguments the
//! client already resolved, `context.arguments`) and `&RequestContext`; it
//! may be `async`; it returns `Vec<String>`, `Vec<&str>`, an iterator of
//! strings, or a `Result` of one (an `Err` is the JSON-RPC error). The
//! values are sent as returned (no filter is added), at most
//! [`MAX_COMPLETION_VALUES`](protocol::MAX_COMPLETION_VALUES), with `total` (all of them) and `hasMore`. A
//! parameter whose type's JSON schema is a string `enum` (a
//! `#[derive(JsonSchema, Deserialize)]` enum of unit variants, also parsed
//! with `FromStr`) completes from those values by prefix with no code; any
//! other argument answers no values. An unknown prompt, template (matched
//! as written in `template = "..."`) or argument is `-32602`. The attribute
//! sits on the argument it completes, where the name, the type and the
//! completer are read together and checked at compile time (a missing
//! method with "did you mean", a wrong signature, `complete` on a tool), so
//! there is no second place naming the prompt and argument by string to
//! keep in step.
//!
//! ```
//! use mcp_era_server::{McpServer, router, schemars::{self, JsonSchema}};
//!
//! #[derive(Clone, Copy, serde::Deserialize, JsonSchema)]
//! enum Style { Bullets, Paragraph }
//! impl std::str::FromStr for Style {
//!     type Err = String;
//!     fn from_str(s: &str) -> Result<Self, String> {
//!         match s { "Bullets" => Ok(Self::Bullets), "Paragraph" => Ok(Self::Paragraph), _ => Err(s.into()) }
//!     }
//! }
//!
//! #[derive(McpServer)]
//! #[mcp(name = "notes", version = "1.0.0")]
//! struct Notes;
//!
//! #[router]
//! impl Notes {
//!     /// Summarises a topic.
//!     #[prompt]
//!     fn summarise(&self, #[arg(complete = Self::topics)] topic: String, style: Style) -> String {
//!         format!("Summarise {topic}, {}", matches!(style, Style::Bullets))
//!     }
//!
//!     fn topics(&self, partial: &str) -> Vec<String> {
//!         ["rust", "mcp"].iter().filter(|t| t.starts_with(partial)).map(|t| t.to_string()).collect()
//!     }
//! }
//! # assert!(Notes.declaration().capabilities().completions.is_some());
//! ```
//!
//! **Capabilities are said once**: a router serves `tools`, `resources`,
//! `prompts` and `completions` (when something completes) with nothing in
//! `#[mcp(...)]`; write a capability there only for its settings
//! (`tools(list_changed)`, `resources(subscribe)`, `scopes = [...]`). A
//! capability is served by its router or by a hand-written handler impl,
//! never both (a compile error).
//!
//! Compile-time errors: a bad or duplicate name, an argument type without
//! `Deserialize`/`JsonSchema`, a non-object `#[arguments]` type, a bad
//! template or a parameter that is not one of its variables, unknown keys
//! (with "did you mean"), a `complete` method that is missing or has the
//! wrong signature, a declared capability with no router methods nor
//! handler, a router and a hand-written handler of one capability, and a
//! router without `#[derive(McpServer)]`. What only the
//! runtime can know (an `#[arguments]` type whose schema is not an object,
//! a bad `x-mcp-header` in a struct's schema) stops the transports at
//! start, naming the tool ([`McpServer::catalogue_problems`]).
//!
//! Catalogues known only at run time use [`ToolRouter`] (no macros; each
//! change announces `notifications/tools/list_changed`); hand-written
//! [`ToolsHandler`], [`ResourcesHandler`], [`PromptsHandler`] and
//! [`CompletionsHandler`] impls keep working, declared by their key in
//! `#[mcp(...)]`.
//!
//! A transport then feeds each message to
//! [`McpServerExt::handle_message`] (or [`handle_message`](transport::handle_message)) with a
//! [`MessageContext`](transport::MessageContext) and writes the [`Outcome`](transport::Outcome)'s body with its HTTP status.
//!
//! # Tasks (`io.modelcontextprotocol/tasks`)
//!
//! Declaring `extension("io.modelcontextprotocol/tasks")` turns on
//! `tasks/get`, `tasks/update` and `tasks/cancel`, and lets tools marked
//! `task = "optional"` or `"required"` answer a `CreateTaskResult` to
//! requests that declared the extension; the rules are in [`tasks`] and
//! `docs/tasks.md`.
//!
//! # Skills (`io.modelcontextprotocol/skills`)
//!
//! Declaring `extension("io.modelcontextprotocol/skills")` (beside
//! `resources`) turns on `skills/list` and `skills/get`, and serves
//! `skill://` files through `resources/read`; adding
//! `= { "directoryRead": true }` also turns on `resources/directory/read`.
//! The skills come from the declaration's catalogue, filled before
//! serving from a directory of `SKILL.md` skills or from code; the rules
//! are in [`skills`] and `docs/extensions.md`.
//!
//! Skills are served to modern (2026-07-28) clients only: a legacy
//! 2025-11-25 `initialize` result has no `extensions` to announce them in,
//! so a legacy session gets none of `skills/list`, `skills/get`,
//! `resources/directory/read` or the `skill://` files.
//!
//! ```
//! use mcp_era_server::McpServer;
//! use mcp_era_server::skills::Skill;
//!
//! #[derive(McpServer)]
//! #[mcp(
//!     name = "handbook",
//!     version = "1.0.0",
//!     extension("io.modelcontextprotocol/skills" = { "directoryRead": true })
//! )]
//! struct Handbook;
//!
//! // Any resource makes the server declare `resources`.
//! #[mcp_era_server::router]
//! impl Handbook {
//!     #[resource(uri = "docs://readme", name = "readme")]
//!     fn readme(&self) -> String {
//!         "Ask for a skill.".into()
//!     }
//! }
//!
//! // One subdirectory per skill, each with a SKILL.md (problems are
//! // reported; the other skills are served):
//! let server = Handbook;
//! // let report = server.declaration().skills().load_dir("skills")?;
//! server.declaration().skills().insert(
//!     Skill::builder("git-workflow")
//!         .file("SKILL.md", "---\nname: git-workflow\ndescription: Team Git conventions\n---\n\nRebase.\n")
//!         .build()?,
//! );
//! assert_eq!(server.declaration().skills().snapshot().len(), 1);
//! # Ok::<(), mcp_era_server::skills::SkillError>(())
//! ```
//!
//! # `#[mcp(...)]` reference
//!
//! Keys may be split over several `#[mcp(...)]` attributes; each key may
//! appear once (except `icon`, `experimental` and `extension`, which add
//! entries). All keys are optional.
//!
//! ## Identity (`Implementation`, sent as `_meta["io.modelcontextprotocol/serverInfo"]`)
//!
//! | Key | Example | Default |
//! |---|---|---|
//! | `name` | `name = "weather"` | the author's crate name (`CARGO_PKG_NAME`) |
//! | `version` | `version = "1.2.0"` | the author's crate version (`CARGO_PKG_VERSION`) |
//! | `title` | `title = "Weather Server"` | absent |
//! | `description` | `description = "Forecasts by city"` | absent |
//! | `website` | `website = "https://example.com"` (`websiteUrl`) | absent |
//! | `icon` (repeatable) | `icon(src = "https://example.com/i.png", mime_type = "image/png", sizes = ["48x48"], theme = "dark")` | none; `src` required, `theme` is `light` or `dark` |
//! | `instructions` | `instructions = "Ask for a city first."` | absent |
//! | `instructions_file` | `instructions_file = "INSTRUCTIONS.md"` (relative to the crate's `Cargo.toml`; embedded with `include_str!`) | absent; exclusive with `instructions` |
//!
//! ## Versions
//!
//! ```text
//! versions(modern = ["2026-07-28"], legacy = ["2025-11-25"])
//! ```
//!
//! * `modern`: the 2026-era versions served. Default: every modern version
//!   the runtime implements ([`IMPLEMENTED_MODERN_VERSIONS`](protocol::IMPLEMENTED_MODERN_VERSIONS)), never merely
//!   one `mcp-types` has types for. Must not be empty.
//! * `legacy`: the versions a legacy `initialize` may agree to (dual-era),
//!   from [`IMPLEMENTED_LEGACY_VERSIONS`](protocol::IMPLEMENTED_LEGACY_VERSIONS). Default: all of them, so a
//!   server answers the legacy clients most hosts still run.
//!   `versions(legacy = [])` opts out: a modern-only server, which answers
//!   a legacy `initialize` with `-32601` naming the versions it speaks.
//!
//! Every entry must be a version the runtime implements
//! ([`IMPLEMENTED_VERSIONS`](protocol::IMPLEMENTED_VERSIONS)), of the right era: a known but unimplemented
//! one (2025-06-18, 2025-03-26, 2024-11-05, or a revision whose types were
//! just generated) is a compile error that says so. A legacy `initialize`
//! asking for such a version is answered with the newest declared legacy
//! version. Lists are stored newest first whatever the
//! order written. From them come three public lists on
//! [`ServerDeclaration`]:
//!
//! 1. [`advertised_versions`](ServerDeclaration::advertised_versions): what
//!    `server/discover` puts in `supportedVersions` and every `-32022` puts
//!    in `data.supported` (the modern list);
//! 2. [`accepted_versions`](ServerDeclaration::accepted_versions): what a
//!    request's `_meta` protocol version may be (the modern list, compared
//!    exactly);
//! 3. [`initialize_versions`](ServerDeclaration::initialize_versions): what
//!    a legacy `initialize` may agree to (the legacy list; never a modern
//!    version). A requested version outside it gets the newest one
//!    ([`negotiate_initialize`](ServerDeclaration::negotiate_initialize)).
//!
//! ## Capabilities
//!
//! | Key | Example | Served by |
//! |---|---|---|
//! | `tools` | `tools` or `tools(list_changed, scopes = ["tools"])` | `#[tool]` methods of a `#[router]` (no key needed), or a hand-written [`ToolsHandler`] |
//! | `resources` | `resources`, `resources(subscribe, list_changed, scopes = ["files:read"])` | `#[resource]` methods (no key needed), or a hand-written [`ResourcesHandler`] |
//! | `prompts` | `prompts` or `prompts(list_changed, scopes = [...])` | `#[prompt]` methods (no key needed), or a hand-written [`PromptsHandler`] |
//! | `completions` | `completions` or `completions(scopes = [...])` | `#[arg(complete = ...)]` or string-enum arguments (no key needed), or a hand-written [`CompletionsHandler`] |
//! | `logging` | `logging` | none |
//! | `experimental` | `experimental("com.example.fancy" = { "level": 2 })` | none |
//! | `extension` | `extension("io.modelcontextprotocol/tasks" = { "list": {} }, "com.example/ui")` or `extension("com.example/x" = my::settings_fn)` | none |
//!
//! A capability needs no key: the derive declares and serves every
//! capability whose handler trait the server implements, whether a
//! `#[router]` implements it or a person does. Write a key to give its
//! capability settings (they apply to the router's or the handler's
//! capability alike), and to make a missing implementation a compile error
//! that names the trait. A capability has a router or a hand-written
//! handler, never both (the two impls conflict). A generic server type is
//! served by hand-written handlers only, found when their impls need no
//! bound the type does not state (write the key otherwise: the error then
//! names the missing bound). The methods of a capability not served answer
//! `-32601` (HTTP 404).
//!
//! `experimental` and `extension` take comma-separated entries `"id"`,
//! `"id" = { JSON object }` or `"id" = path::to::function` where the
//! function is `fn() -> mcp_era_types::v2026_07_28::JSONObject`. A bare `"id"`
//! means `{}` (supported, no settings). Extension identifiers must follow
//! the `_meta` key syntax and have a prefix (`io.modelcontextprotocol/tasks`,
//! `com.example/ui`). The JSON literal accepts objects, arrays, strings,
//! numbers, `true`, `false` and `null`.
//!
//! ## Discover caching hints
//!
//! ```text
//! discover(ttl_ms = 300000, scope = "private")
//! ```
//!
//! * `ttl_ms`: an integer literal from 0 to 2^53 - 1. Default
//!   [`DEFAULT_DISCOVER_TTL_MS`] (60 000: the result only changes when the
//!   binary does, so a minute of caching saves re-probes while bounding
//!   staleness after a redeploy).
//! * `scope`: `"public"` or `"private"`. Default
//!   [`DEFAULT_DISCOVER_CACHE_SCOPE`] (`public`: the result comes from the
//!   declaration and holds nothing user-specific).
//!
//! ## Default caching hints of lists and reads
//!
//! ```text
//! cache(ttl_ms = 300000, scope = "public")
//! ```
//!
//! The defaults for `tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list` and `resources/read`: handlers read them with
//! [`RequestContext::cache_ttl_ms`] / [`RequestContext::cache_scope`] for the
//! typed constructors, and the runtime fills them into results built as raw
//! JSON that lack them. A handler overrides them per result by passing other
//! values. Same value rules as `discover(...)`. Default
//! [`DEFAULT_CACHE_TTL_MS`] (0) and [`DEFAULT_CACHE_SCOPE`] (`private`): the
//! runtime knows nothing about the handler's data, so no caching and no
//! sharing unless declared.
//!
//! ## OAuth scopes
//!
//! ```text
//! scopes = ["mcp"], tools(scopes = ["tools"])      // on #[mcp(...)]
//! #[tool(scopes = ["files:write"])]                // on a #[router] method
//! ```
//!
//! The scopes a token must hold: `scopes` on `#[mcp(...)]` for every
//! request, inside `tools(...)`, `resources(...)`, `prompts(...)` or
//! `completions(...)` for that capability's methods, and on `#[tool(...)]`
//! for the calls of that tool. Each is an RFC 6749 scope token (printable
//! ASCII without spaces, `"` or `\`), listed once.
//!
//! Declaring grants nothing and checks nothing by itself:
//! [`McpServer::declared_scopes`] reports the scopes (without the HTTP
//! `auth` feature that is all that happens, and stdio ignores them). With
//! `auth`, the HTTP transport adds them to `HttpConfig::auth`
//! (`mcp_era_server::http::auth::AuthConfig`) when it starts: a token lacking a
//! declared scope gets **403** `insufficient_scope` naming what the
//! request needs, the Protected Resource Metadata lists them in
//! `scopes_supported`, and `AuthConfig::scope_implies` applies to them.
//! Scopes set on `AuthConfig` by hand (`require_scopes`,
//! `capability_requires`, `tool_requires`) still apply: each list is the
//! union of both. A tool a token may not call is still listed by
//! `tools/list`. The tasks extension has no place to declare scopes; use
//! `AuthConfig::capability_requires("tasks", ...)`.
//!
//! ## Runtime path
//!
//! * `crate = "path"`: where generated code finds this crate (default
//!   `::mcp_era_server`), for crates that re-export it:
//!   `#[mcp(crate = "my_framework::mcp_era_server")]`. Generated code only uses
//!   `<path>::__private`.
//!
//! ## Compile-time diagnostics
//!
//! All are reported at once, each at the offending token, and a fallback
//! impl keeps the type an `McpServer` so no second wave of errors follows:
//! unknown protocol version (listing the known ones), a legacy version in
//! `modern` or a modern one in `legacy`, an empty `modern` list, duplicate
//! versions, extension identifiers that break the `_meta` key syntax or lack
//! a prefix, negative, overflowing or non-integer `ttl_ms`, unknown
//! `scope`, duplicate keys and entries, unknown keys (with "did you mean"),
//! `instructions` with `instructions_file`, an icon without `src` or with
//! an unknown theme, `scopes` that are not a list of valid, distinct OAuth
//! scopes, and a declared capability without its handler trait.
//!
//! ```compile_fail
//! use mcp_era_server::McpServer;
//! #[derive(McpServer)]
//! #[mcp(versions(modern = ["2025-11-25"]))] // a legacy version in `modern`
//! struct S;
//! ```
//!
//! # Generic servers
//!
//! Generic types are supported with hand-written handler impls; bounds the
//! handler impls need must be on the type itself (`struct S<T: Bound>`),
//! since the derive repeats the type's bounds only. A `#[router]` serves a
//! non-generic type: on one instance of a generic type (`impl S<u32>`) it is
//! a compile error, since the derive, written for every `S<T>`, cannot see
//! it.
//!
//! # The entry point
//!
//! [`handle_message`](transport::handle_message) / [`handle_value`](transport::handle_value) answer one message. The check order
//! (the one the conformance suite forces) is documented on [`handle_message`](transport::handle_message): parse
//! `-32700`, envelope `-32600`, notifications unanswered, era selection,
//! HTTP header present `-32020`, `_meta` `-32602`, header equals body
//! `-32020`, version `-32022`, method and capability `-32601`, params
//! `-32602`. The HTTP transport passes the `MCP-Protocol-Version` header in
//! [`MessageContext::http`]; stdio uses [`MessageContext::stdio`].
//! [`McpServerExt`] offers both as methods (`server.handle_value(..)`).
//!
//! # Layout
//!
//! The crate is built in layers, each depending only on those below it
//! (the repository's `ARCHITECTURE.md` has the code map; `cargo xtask
//! layers` checks it): `wire` (bytes ⇄ JSON-RPC, [`errors`]) ← `state`
//! (the event hub, the task engine and stores) ← `model` (the
//! declaration, contexts, handler traits, [`McpServer`]) ← [`router`] and
//! the features ([`tasks`], listen) ← `era` (the modern gate, the legacy
//! session) ← `dispatch` (the entry points above) ← the transports
//! [`stdio`] and [`http`], which never import each other.
//!
//! # Transports
//!
//! * [`stdio`] (feature `stdio`): `mcp_era_server::stdio::run(server)`; one
//!   message per line, concurrent requests, cancellation, EOF exit, a line
//!   limit with a documented recovery rule.
//! * [`http`] (feature `http`): `mcp_era_server::http::run(server, HttpConfig::bind("localhost:8101")?)`;
//!   one `/mcp` endpoint, JSON or SSE, header rules, DNS-rebinding
//!   protection, body limit, legacy sessions, the stale-session rule,
//!   connection limits, timeouts and graceful shutdown; or
//!   [`http::McpService`], the same as a `tower::Service` to mount in an
//!   axum or hyper application (handlers read the HTTP request through
//!   [`RequestContext::http_request`]).
//! * [`serve_from_args`] (features `stdio` and `http`): either, as the
//!   command line says (`stdio`, the default, or `http [HOST:PORT]`).
//!
//! Both wire a per-request notification sink into [`RequestContext`]:
//! [`RequestContext::log`] (only when the request asked for logs),
//! [`RequestContext::progress`] (`ctx.progress(step).total(t).message(m)`,
//! only with a `progressToken`),
//! [`RequestContext::require_client_capability`] (`-32021`),
//! [`RequestContext::events`] for server-wide list/resource changes that
//! `subscriptions/listen` streams and legacy sessions receive
//! (`ctx.events().tools_list_changed()`; [`McpServer::following`] tells
//! the server which resources clients follow, while they do), and over
//! HTTP [`RequestContext::extension`] for what middleware put in the
//! request.
//!
//! Legacy (2025-11-25) sessions are served by the same handlers; see the
//! legacy bridge rules on [`legacy_result`](transport::legacy_result) and [`MAX_INPUT_ROUNDS`](protocol::MAX_INPUT_ROUNDS): an
//! `input_required` result is fulfilled with real server→client requests.

#![deny(missing_docs)]

// Layers, lowest first; each imports only those below it (ARCHITECTURE.md,
// checked by `cargo xtask layers`).
#[cfg(all(feature = "stdio", feature = "http"))]
mod cli;
mod deprecated_root;
mod dispatch;
mod era;
mod features;
#[cfg(feature = "http")]
pub mod http;
pub mod middleware;
mod model;
#[cfg(feature = "otel")]
pub mod otel;
pub mod protocol;
mod router;
#[cfg(any(feature = "http", feature = "stdio"))]
mod runtime;
mod state;
#[cfg(feature = "stdio")]
pub mod stdio;
pub mod transport;
mod wire;

pub use features::skills;
pub use features::tasks;
pub use state::request_state;
pub use state::sessions;
pub use wire::errors;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

#[cfg(all(feature = "stdio", feature = "http"))]
pub use cli::{DEFAULT_HTTP_ADDR, LOG_ENV, log_to_stderr, serve_from_args};
pub use dispatch::McpServerExt;
pub use features::tasks::{TaskSupport, Tasks};
#[allow(deprecated)]
pub use model::context::EraOf;
pub use model::context::{Era, Following, Principal, Progress, RequestContext};
pub use model::declaration::{
    DEFAULT_CACHE_SCOPE, DEFAULT_CACHE_TTL_MS, DEFAULT_DISCOVER_CACHE_SCOPE,
    DEFAULT_DISCOVER_TTL_MS, DeclaredScopes, ServerDeclaration, VersionRejection,
};
pub use model::handlers::{CompletionsHandler, PromptsHandler, ResourcesHandler, ToolsHandler};
pub use model::server::McpServer;
pub use router::args::{ArgumentError, Arguments};
pub use router::completions::CompletionArguments;
pub use router::input;
pub use router::input::{InputRequired, PromptAnswer, ToolAnswer};
pub use router::prompts::{IntoPromptResult, PromptCall, PromptRouter};
pub use router::resource_router::ResourceRouter;
pub use router::resources::{Blob, IntoReadResult, ResourceRequest};
pub use router::resources::{IntoListing, ListedResource};
pub use router::tools::ToolVisibility;
pub use router::tools::{
    IntoToolError, IntoToolResult, Json, JsonWithText, ParamHeader, ToolCall, ToolError, ToolRouter,
};
pub use router::{Elicitation, RetryInput};
#[cfg(feature = "redis")]
pub use state::events::EventBusStats;
pub use state::events::{ServerEvent, ServerEvents};
#[cfg(feature = "redis")]
pub use state::redis_events::{EventBusError, RedisEventBus};
pub use state::request_state::{RequestStateKeys, RequestStateSealing};
pub use wire::errors::{ErrorObject, HandlerResult};
pub use wire::reply::{Reply, ResultMeta};

// The paths of earlier releases, deprecated (`deprecated_root.rs`).
pub use deprecated_root::*;

/// Turns the `#[tool]`, `#[resource]` and `#[prompt]` methods of an `impl`
/// block into the server's tools, resources and prompts; see the crate docs.
pub use mcp_era_derive::router;

/// JSON Schema generation (schemars 1, JSON Schema 2020-12), re-exported
/// so that argument and output types derive `JsonSchema` with the version
/// the runtime reads: `use mcp_era_server::schemars::{self, JsonSchema};`
/// then `#[derive(JsonSchema)]` (its derive finds `schemars` in scope; no
/// `#[schemars(crate = ...)]` needed), or `schemars = "1"` in your own
/// `Cargo.toml`.
pub use schemars;

/// Derives [`McpServer`](trait@McpServer); see the crate docs for every
/// attribute.
pub use mcp_era_derive::McpServer;

/// The protocol types this runtime speaks (re-exported `mcp-types`).
pub use mcp_era_types;
