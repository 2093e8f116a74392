//! The Model Context Protocol toolkit for Rust, in one crate: servers and
//! clients of the modern 2026-07-28 revision that also serve and reach
//! legacy 2025-11-25 peers. Until the crates are published, depend on the
//! repository (`mcp-era = { path = "…/mcp-era" }` or `{ git = "…" }`);
//! then `cargo add mcp-era` (server and macros) or `cargo add mcp-era
//! --features client`. The features are listed under "What is in the
//! crate" below.
//!
//! # A server in 15 lines
//!
//! ```no_run
//! use mcp_era::prelude::*;
//!
//! #[derive(McpServer)]
//! #[mcp(name = "quickstart", version = "1.0.0")]
//! struct Quickstart;
//!
//! #[router]
//! impl Quickstart {
//!     /// Adds two integers.
//!     #[tool(read_only, idempotent)]
//!     fn add(&self, a: i64, b: i64) -> String {
//!         (a + b).to_string()
//!     }
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     serve_from_args(Quickstart) // `quickstart` (stdio) or `quickstart http localhost:8080`
//! }
//! ```
//!
//! Each `#[tool]` method is a tool: its parameters are the input schema,
//! its doc comment the description, its return type the result. The router
//! declares the `tools` capability (`resources`, `prompts` and
//! `completions` likewise); `#[mcp(...)]` says only what the code cannot
//! show: identity, versions, cache hints, settings such as
//! `tools(list_changed)`, OAuth scopes and extensions. Modern clients are
//! answered per request (`server/discover`, the version gate); legacy
//! clients get an `initialize` session unless the server opts out with
//! `versions(legacy = [])`. Every attribute and compile-time check is in
//! the [`server`] crate docs.
//!
//! # How do I…
//!
//! ## …keep state?
//!
//! The server is a value; methods take `&self`. Shared mutable state sits
//! behind a lock (requests run concurrently):
//!
//! ```
//! use mcp_era::prelude::*;
//! use std::sync::atomic::{AtomicU64, Ordering};
//!
//! #[derive(McpServer, Default)]
//! #[mcp(name = "counter", version = "1.0.0")]
//! struct Counter {
//!     count: AtomicU64,
//! }
//!
//! #[router]
//! impl Counter {
//!     /// Counts one more and says how many.
//!     #[tool]
//!     fn bump(&self) -> String {
//!         (self.count.fetch_add(1, Ordering::Relaxed) + 1).to_string()
//!     }
//! }
//! # assert_eq!(Counter::default().bump(), "1");
//! ```
//!
//! ## …return a struct?
//!
//! `Json<T>` is structured output: `structuredContent` is `T` as JSON, a
//! text block carries the same JSON, and the tool's `outputSchema` is
//! `T`'s schema. `T` derives `Serialize` and `JsonSchema`, both from the
//! prelude; `#[serde(crate = "mcp_era::serde")]` points serde's derive at
//! the serde `mcp-era` re-exports, so `mcp-era` stays the only dependency
//! (with `serde = { version = "1", features = ["derive"] }` of your own,
//! leave the attribute out). Argument structs derive `Deserialize` the
//! same way.
//!
//! ```
//! use mcp_era::prelude::*;
//!
//! #[derive(Serialize, JsonSchema)]
//! #[serde(crate = "mcp_era::serde")]
//! struct Bookmark {
//!     url: String,
//!     tags: Vec<String>,
//! }
//!
//! #[derive(McpServer)]
//! #[mcp(name = "bookmarks", version = "1.0.0")]
//! struct Bookmarks;
//!
//! #[router]
//! impl Bookmarks {
//!     /// The bookmark of a URL.
//!     #[tool(read_only)]
//!     fn bookmark(&self, url: String) -> Json<Bookmark> {
//!         Json(Bookmark { url, tags: vec!["unread".into()] })
//!     }
//! }
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! # let client = mcp_era::testing::TestClient::new(Bookmarks).await?;
//! # let text = client.call_tool_text("bookmark", serde_json::json!({"url": "https://a.example"})).await?;
//! # assert_eq!(text, r#"{"tags":["unread"],"url":"https://a.example"}"#);
//! # let catalogue = client.catalogue().await?;
//! # assert_eq!(catalogue["tools"][0]["outputSchema"]["required"], serde_json::json!(["url", "tags"]));
//! # Ok::<(), mcp_era::client::Error>(()) }).unwrap();
//! ```
//!
//! ## …list resources that come and go?
//!
//! A template names a `list` method; `resources/list` shows one resource
//! per value it returns, its URI expanded from the template:
//!
//! ```
//! use mcp_era::prelude::*;
//! use std::collections::BTreeMap;
//!
//! #[derive(McpServer)]
//! #[mcp(name = "notes", version = "1.0.0")]
//! struct Notes {
//!     notes: BTreeMap<u32, String>,
//! }
//!
//! #[router]
//! impl Notes {
//!     /// A note.
//!     #[resource(template = "note://{id}", mime_type = "text/plain", list = Self::all)]
//!     fn note(&self, id: u32) -> Option<String> {
//!         self.notes.get(&id).cloned() // `None`: resource not found
//!     }
//!
//!     fn all(&self) -> Vec<ListedResource<u32>> {
//!         self.notes.keys().map(|id| ListedResource::new(*id).title(format!("Note {id}"))).collect()
//!     }
//! }
//! # assert!(Notes { notes: BTreeMap::new() }.declaration().capabilities().resources.is_some());
//! ```
//!
//! `#[resource(uri = "...")]` is a fixed resource; `cache(ttl_ms = ...,
//! scope = ...)` on either sets the hints of its reads.
//!
//! To tell clients when the list changes, declare `resources(list_changed)`
//! in `#[mcp(...)]` **and** call `ctx.events().resources_list_changed()`
//! wherever it changes: the declaration alone sends nothing. The call
//! reaches every `subscriptions/listen` stream and legacy session that
//! asked for `notifications/resources/list_changed` (tools and prompts
//! likewise: `tools_list_changed()`, `prompts_list_changed()`):
//!
//! ```
//! use mcp_era::prelude::*;
//! use std::collections::BTreeMap;
//! use std::sync::Mutex;
//!
//! #[derive(McpServer, Default)]
//! #[mcp(name = "notes", version = "1.0.0", resources(list_changed))]
//! struct Notes {
//!     notes: Mutex<BTreeMap<u32, String>>,
//! }
//!
//! #[router]
//! impl Notes {
//!     /// Adds a note.
//!     #[tool]
//!     fn add(&self, ctx: &RequestContext, id: u32, text: String) -> String {
//!         self.notes.lock().unwrap_or_else(|e| e.into_inner()).insert(id, text);
//!         ctx.events().resources_list_changed(); // without it, no client hears of `note://{id}`
//!         format!("note://{id}")
//!     }
//!
//!     /// A note.
//!     #[resource(template = "note://{id}", mime_type = "text/plain", list = Self::all)]
//!     fn note(&self, id: u32) -> Option<String> {
//!         self.notes.lock().unwrap_or_else(|e| e.into_inner()).get(&id).cloned()
//!     }
//!
//!     fn all(&self) -> Vec<ListedResource<u32>> {
//!         let notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
//!         notes.keys().map(|id| ListedResource::new(*id)).collect()
//!     }
//! }
//! # let resources = Notes::default().declaration().capabilities().resources.clone().unwrap();
//! # assert_eq!(resources.list_changed, Some(true));
//! ```
//!
//! ## …complete a prompt argument?
//!
//! `#[arg(complete = Self::method)]` names the method that offers values;
//! an argument whose type is a string enum completes from its variants
//! with no code:
//!
//! ```
//! use mcp_era::prelude::*;
//!
//! #[derive(McpServer)]
//! #[mcp(name = "poet", version = "1.0.0")]
//! struct Poet;
//!
//! #[router]
//! impl Poet {
//!     /// Asks for a poem.
//!     #[prompt]
//!     fn poem(&self, #[arg(complete = Self::forms)] form: String) -> String {
//!         format!("Write a {form} about the sea.")
//!     }
//!
//!     fn forms(&self, partial: &str) -> Vec<&'static str> {
//!         ["haiku", "limerick", "sonnet"].into_iter().filter(|f| f.starts_with(partial)).collect()
//!     }
//! }
//! # assert!(Poet.declaration().capabilities().completions.is_some());
//! ```
//!
//! ## …say that a tool failed, or that the request was bad?
//!
//! "The tool failed" is a result the model reads (`isError: true`): return
//! `Err(e)` with any `e: Display`, or [`ToolError::failed`](server::ToolError::failed).
//! "The request was bad" is a JSON-RPC error: an
//! [`errors`](server::errors) constructor, through `?`. The whole story,
//! with what each spelling puts on the wire in both eras, is on one page:
//! [`server::errors`].
//!
//! ```
//! use mcp_era::prelude::*;
//! use mcp_era::server::errors;
//!
//! #[derive(McpServer)]
//! #[mcp(name = "calc", version = "1.0.0")]
//! struct Calc;
//!
//! #[router]
//! impl Calc {
//!     /// Divides `a` by `b`.
//!     #[tool]
//!     fn divide(&self, a: f64, b: f64) -> Result<String, ToolError> {
//!         if !b.is_finite() {
//!             return Err(errors::invalid_params("b must be a finite number").into());
//!         }
//!         if b == 0.0 {
//!             return Err(ToolError::failed("division by zero")); // isError: true
//!         }
//!         Ok((a / b).to_string())
//!     }
//! }
//! # assert!(matches!(Calc.divide(1.0, 0.0), Err(ToolError::Failed(_))));
//! ```
//!
//! ## …ask the user for input?
//!
//! A tool answers `input_required` with requests by key; the client answers
//! and calls again, and [`RetryInput`](server::RetryInput) reads the answers
//! by the same keys. Legacy sessions get the same requests as real
//! server→client requests, so the tool is written once
//! ([`server::input`] has sampling, roots and URL-mode elicitation):
//!
//! ```
//! use mcp_era::prelude::*;
//! use mcp_era::server::input;
//! use mcp_era::types::v2026_07_28::CallToolResult;
//!
//! #[derive(Deserialize, JsonSchema)]
//! #[serde(crate = "mcp_era::serde")]
//! struct Name {
//!     /// Your name
//!     name: String,
//! }
//!
//! #[derive(McpServer)]
//! #[mcp(name = "greeter", version = "1.0.0")]
//! struct Greeter;
//!
//! #[router]
//! impl Greeter {
//!     /// Greets whoever answers.
//!     #[tool]
//!     fn greet(&self, retry: &RetryInput) -> ToolAnswer {
//!         match retry.elicited::<Name>("who")? {
//!             Some(Elicitation::Accepted(Name { name })) => Ok(CallToolResult::text(format!("Hello, {name}!")).into()),
//!             Some(_) => Ok(CallToolResult::text("Hello, stranger!").into()),
//!             None => InputRequired::new().request("who", input::elicit::<Name>("Who are you?")?).into(),
//!         }
//!     }
//! }
//! # let first = serde_json::to_value(Greeter.greet(&RetryInput::default()).unwrap()).unwrap();
//! # assert_eq!(first["resultType"], "input_required");
//! ```
//!
//! ## …serve HTTP?
//!
//! [`serve_from_args`](server::serve_from_args) serves `http [HOST:PORT]`
//! as well as stdio. With settings of your own:
//! `mcp_era::server::http::run(server, HttpConfig::bind("localhost:8101")?.allow_host("mcp.example.com"))`.
//! Inside an axum or hyper application, mount the server as a
//! `tower::Service` ([`McpService`](server::http::McpService)):
//!
//! ```
//! # use mcp_era::prelude::*;
//! # #[derive(McpServer)] #[mcp(name = "s", version = "1.0.0")] struct S;
//! # #[router] impl S { /// T.
//! # #[tool] fn t(&self) -> String { String::new() } }
//! use mcp_era::server::http::{HttpConfig, McpService};
//!
//! let service = McpService::new(S, HttpConfig::default())?; // nest it at `/mcp`
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! A handler reads what a middleware put in the HTTP request with
//! `ctx.extension::<T>()` (the `axum` example of this crate).
//!
//! ## …require OAuth?
//!
//! With the `server-auth` feature the HTTP transport is an OAuth 2.1
//! resource server: set [`HttpConfig::auth`](server::http::HttpConfig::auth)
//! to an `AuthConfig` (a `JwtValidator` for JWTs, or token
//! introspection), and declare the scopes where they apply:
//! `#[mcp(scopes = ["mcp"])]` for every request, `#[tool(scopes =
//! ["files:write"])]` for one tool. A token without them gets 403
//! `insufficient_scope`, and the Protected Resource Metadata lists them.
//!
//! ## …time, limit or refuse requests?
//!
//! `server.layer(L)` puts a `tower` layer around every request a handler
//! serves, on stdio and HTTP alike; the layer sees the typed request (method,
//! tool name, arguments, caller, version, era) and may answer on its own.
//! tower's `TimeoutLayer` and `ConcurrencyLimitLayer` apply unchanged
//! (from `mcp_era::server::middleware::tower`, no `tower` dependency
//! needed), and [`server::middleware`] adds a per-caller rate limit, a
//! request log and a result size limit:
//!
//! ```
//! use mcp_era::prelude::*;
//! use mcp_era::server::middleware::{RateLimitLayer, RequestLogLayer, for_tools};
//! use mcp_era::server::middleware::tower::limit::ConcurrencyLimitLayer;
//! use mcp_era::server::middleware::tower::timeout::TimeoutLayer;
//! use std::time::Duration;
//!
//! #[derive(McpServer)]
//! #[mcp(name = "search", version = "1.0.0")]
//! struct Search;
//!
//! #[router]
//! impl Search {
//!     /// Searches the web.
//!     #[tool]
//!     async fn search(&self, query: String) -> String {
//!         query
//!     }
//! }
//!
//! let server = Search
//!     .layer(for_tools(["search"], TimeoutLayer::new(Duration::from_secs(10))))
//!     .layer(RateLimitLayer::per_principal(60, Duration::from_secs(60)))
//!     .layer(ConcurrencyLimitLayer::new(32))
//!     .layer(RequestLogLayer::new());
//! // serve_from_args(server), as any server
//! # let _ = server;
//! ```
//!
//! ## …see a log?
//!
//! The runtime and [`RequestLogLayer`](server::middleware::RequestLogLayer)
//! log through `tracing`. [`serve_from_args`](server::serve_from_args)
//! installs a subscriber that writes to stderr, filtered by `MCP_LOG` or
//! else `RUST_LOG` (`RUST_LOG=info` for one line per request,
//! `MCP_LOG=mcp_era_server=debug` for more; warnings and errors when
//! neither is set), unless the program installed its own first. A `main`
//! that runs a transport itself calls
//! [`server::log_to_stderr()`](server::log_to_stderr) first. A subscriber
//! of your own must write to stderr as well
//! (`tracing_subscriber::fmt().with_writer(std::io::stderr)`): over stdio,
//! stdout carries the protocol, and one log line there corrupts the stream
//! the client reads.
//!
//! ## …test a server?
//!
//! In-process, with no transport: with the `testing` feature (as a
//! dev-dependency: `mcp-era = { version = "…", features = ["testing"] }`),
//! [`mcp_era::testing`](https://docs.rs/mcp-era-testing) has a typed test client that talks to the
//! server value in either era, raw JSON-RPC with the HTTP status the HTTP
//! transport would use, catalogue snapshots, and a check of the protocol's
//! rules; its docs are the "Testing your server" guide.
//!
//! ```
//! use mcp_era::prelude::*;
//! use mcp_era::testing::{TestClient, check_server};
//!
//! #[derive(McpServer)]
//! #[mcp(name = "adder", version = "1.0.0")]
//! struct Adder;
//!
//! #[router]
//! impl Adder {
//!     /// Adds two integers.
//!     #[tool]
//!     fn add(&self, a: i64, b: i64) -> String {
//!         (a + b).to_string()
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let client = TestClient::new(Adder).await?;
//! assert_eq!(client.call_tool_text("add", serde_json::json!({"a": 2, "b": 3})).await?, "5");
//! check_server(Adder).await.assert_ok();
//! # Ok::<(), mcp_era::client::Error>(()) }).unwrap();
//! ```
//!
//! Without it, [`McpServerExt::handle_value`](server::McpServerExt::handle_value)
//! answers one JSON-RPC message as a transport would.
//!
//! ## …use my server from a desktop host?
//!
//! Desktop hosts (Claude Desktop, Cursor, VS Code and others) start a
//! stdio server themselves from an `mcpServers` entry in their JSON
//! configuration. Build the binary (`cargo build --release`) and give its
//! **absolute** path: the host starts it from a directory of its own, with
//! a `PATH` that need not have `cargo`, and `cargo run` would compile
//! first and keep the host waiting:
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "notes": {
//!       "command": "/home/me/notes/target/release/notes",
//!       "args": ["stdio"],
//!       "env": { "RUST_LOG": "info" }
//!     }
//!   }
//! }
//! ```
//!
//! stdout is the protocol: nothing else may be written there (no
//! `println!`, no log writer on stdout). Logs go to stderr, which hosts
//! keep in their log of the server ("…see a log?" above). A server that is
//! also reached over the network runs `notes http HOST:PORT` instead,
//! and a host that speaks Streamable HTTP takes its `http://HOST:PORT/mcp`.
//! Behind a load balancer, several instances share one Redis
//! (`server-redis`): `docs/scaling.md`, "Your own server", has the calls.
//!
//! ## …serve Skills or MCP Apps?
//!
//! Declare the extension in `#[mcp(...)]`; the [`server`] crate docs show
//! each ("Skills", "MCP Apps") and `docs/extensions.md` has the rules.
//! Skills are served to modern clients only: a legacy 2025-11-25
//! `initialize` result has no `extensions`, so a legacy session sees no
//! `skills/*` methods and no `skill://` files.
//!
//! ## …build a server without macros, from data?
//!
//! Implement [`McpServer`] by hand. Its one required
//! method returns the server's [`ServerDeclaration`](server::ServerDeclaration),
//! built at run time (identity, versions checked against what the runtime
//! implements, capabilities, instructions) and held per instance, so two
//! servers of one type may declare different things; `dispatch_capability`
//! answers the typed requests, each result rendered with
//! [`RequestContext::reply`](server::RequestContext::reply);
//! `serves_method` and `handle_method` answer methods the runtime does not
//! know, as raw JSON. The runtime does the rest as for a derived server:
//! the version gate, `server/discover`, the legacy `initialize`, both
//! transports. A [`ToolRouter`](server::ToolRouter), a
//! [`ResourceRouter`](server::ResourceRouter) and a
//! [`PromptRouter`](server::PromptRouter) hold tools, resources (and
//! templates) and prompts that come and go, each change announced as
//! `list_changed`; a declaration that changes is replaced with
//! `with_state_of` (give it a discover `ttlMs` no longer than clients may
//! trust the old one). `examples/dynamic.rs` reads its catalogue from a
//! JSON file and follows the file's changes while it serves.
//!
//! ```
//! use std::sync::Arc;
//! use mcp_era::server::{HandlerResult, McpServer, Reply, RequestContext, ServerDeclaration, errors};
//! use mcp_era::types::v2026_07_28::prelude::*;
//!
//! struct Echo {
//!     declaration: Arc<ServerDeclaration>,
//! }
//!
//! impl McpServer for Echo {
//!     fn declaration(&self) -> Arc<ServerDeclaration> {
//!         Arc::clone(&self.declaration)
//!     }
//!
//!     async fn dispatch_capability(&self, request: ClientRequest, ctx: &RequestContext) -> HandlerResult<Reply> {
//!         match request {
//!             ClientRequest::ListToolsRequest(_) => {
//!                 let input = serde_json::from_value(serde_json::json!({"type": "object"})).unwrap();
//!                 ctx.reply(ListToolsResult::new(vec![Tool::new(input, "echo")], ctx.cache_hints()))
//!             }
//!             ClientRequest::CallToolRequest(call) => {
//!                 let said = format!("{:?}", call.params.arguments.unwrap_or_default());
//!                 ctx.reply(CallToolResultResponseResult::from(CallToolResult::text(said)))
//!             }
//!             other => Err(errors::method_not_found(format!("{} is not served", other.method()))),
//!         }
//!     }
//! }
//!
//! let info = Implementation::builder().name("echo").version("1.0.0").build();
//! let declaration = ServerDeclaration::new(info)
//!     .with_versions(["2026-07-28"], ["2025-11-25"])?
//!     .with_capabilities(ServerCapabilities::new().with_tools(ServerCapabilitiesTools::new()));
//! let server = Echo { declaration: Arc::new(declaration) };
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! # let client = mcp_era::testing::TestClient::new(server).await.unwrap();
//! # let text = client.call_tool_text("echo", serde_json::json!({"a": 1})).await.unwrap();
//! # assert!(text.contains("\"a\""), "{text}");
//! # });
//! // mcp_era::server::stdio::run(server)
//! # Ok::<(), mcp_era::server::VersionRejection>(())
//! ```
//!
//! # What is in the crate
//!
//! | path | crate | feature |
//! |---|---|---|
//! | [`prelude`] | what a server author imports | `derive` (default) |
//! | [`types`] | `mcp-era-types`: protocol types generated from the official schemas, one module per revision | always |
//! | [`serde`] | serde, for your own types' derives (`#[serde(crate = "mcp_era::serde")]`) | always |
//! | [`server`] | `mcp-era-server`: runtime, handler traits, stdio and Streamable HTTP | `server` (default) |
//! | [`McpServer`], [`router`] | `mcp-era-derive`: `#[derive(McpServer)]`, `#[router]` | `derive` (default) |
//! | `client` | `mcp-era-client`: dual-era client with version negotiation | `client` (`rustls` for `https://`, `oauth` for OAuth 2.1) |
//! | `testing` | `mcp-era-testing`: the in-process test client, snapshots and the protocol rule check | `testing` |
//! | `gateway` | `mcp-era-gateway`: the era gateway, one backend server served to clients of both eras | `gateway` (`gateway-auth` for OAuth at both hops) |
//!
//! Feature `draft` adds `types::draft` (the upstream draft schema, never
//! served); `named` adds the by-name type lookup of `types`;
//! `server-tls` HTTPS for the server's listener, `server-auth` the OAuth
//! resource server, `server-redis` tasks and server events shared by
//! several instances on one Redis; `otel` OpenTelemetry: `server::otel::TraceLayer` (a
//! span per request, parented by the client's `_meta.traceparent`, and
//! request metrics) and, with `client`, the client's trace context in each
//! request's `_meta`.

#![deny(missing_docs)]

/// Protocol types generated from the official JSON schemas (`mcp-era-types`).
pub use mcp_era_types as types;

/// The server runtime (`mcp-era-server`).
///
/// Everything of `mcp-era-server`, except that the `McpServer` derive and
/// the `router` macro here generate code that reaches the runtime through
/// this crate, so a server written against `mcp-era` needs no other
/// dependency and no `crate = "..."` attribute.
#[cfg(feature = "server")]
pub mod server {
    #[doc(no_inline)]
    pub use mcp_era_server::*;

    // Explicit imports shadow the glob's macros of the same names; the
    // `McpServer` trait still comes from the glob.
    #[cfg(feature = "derive")]
    #[doc(inline)]
    pub use mcp_era_derive::{FacadeMcpServer as McpServer, facade_router as router};
}

/// serde, the one the runtime serializes with, so that a server's own
/// types derive `Serialize` and `Deserialize` with `mcp-era` as the only
/// dependency: `#[derive(Serialize)]` (the prelude has both derives) with
/// `#[serde(crate = "mcp_era::serde")]`, because serde's derive otherwise
/// looks for a `serde` crate of your own.
pub use serde;

/// The derive, the router macro and the `McpServer` trait.
#[cfg(feature = "derive")]
pub use server::{McpServer, router};

/// What a server author writes `use mcp_era::prelude::*;` for: the derive
/// and the trait (with `.layer(..)` for middleware), the router macro, the context, typed results and input
/// requests, the entry point, JSON Schema derivation (schemars 1,
/// whose derive finds `schemars` here), and serde's `Serialize` and
/// `Deserialize` (with `#[serde(crate = "mcp_era::serde")]`; see
/// [`crate::serde`]).
#[cfg(feature = "derive")]
pub mod prelude {
    pub use crate::serde::{Deserialize, Serialize};
    pub use crate::server::schemars::{self, JsonSchema};
    pub use crate::server::{
        Elicitation, InputRequired, Json, ListedResource, McpServer, McpServerExt, PromptAnswer,
        RequestContext, RetryInput, ToolAnswer, ToolError, router, serve_from_args,
    };
}

/// The dual-era client (`mcp-era-client`).
#[cfg(feature = "client")]
pub use mcp_era_client as client;

/// The era gateway (`mcp-era-gateway`): one backend server, of either era,
/// served to clients of both.
#[cfg(feature = "gateway")]
pub use mcp_era_gateway as gateway;

/// Testing your server (`mcp-era-testing`): the in-process test client,
/// catalogue snapshots and the protocol rule check.
#[cfg(feature = "testing")]
pub use mcp_era_testing as testing;

/// README.md's Rust snippets, compiled (and run unless `no_run`) as this
/// crate's doctests so that the README cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// docs/scaling.md's Rust snippets, compiled with `server-redis`
/// (`cargo test -p mcp-era --doc --features server-redis`).
#[cfg(all(doctest, feature = "server-redis"))]
#[doc = include_str!("../../docs/scaling.md")]
pub struct ScalingDoctests;
