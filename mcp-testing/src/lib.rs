//! # Testing your server
//!
//! Test an MCP server in-process, with no child process and no socket:
//! a typed client talking to the server value, raw JSON-RPC when a test
//! needs the exact bytes (and the HTTP status the Streamable HTTP
//! transport would answer), catalogue snapshots that catch an accidental
//! schema change, and a check of the protocol's rules every server must
//! follow. Through the facade: `mcp-era` with the `testing` feature, as
//! `mcp_era::testing`, usually as a dev-dependency.
//!
//! ```
//! use mcp_era_server::McpServer;
//! use mcp_era_testing::{TestClient, check_server};
//! use serde_json::json;
//!
//! #[derive(McpServer, Default)]
//! #[mcp(name = "adder", version = "1.0.0")]
//! struct Adder;
//!
//! #[mcp_era_server::router]
//! impl Adder {
//!     /// Adds two integers.
//!     #[tool(read_only)]
//!     fn add(&self, a: i64, b: i64) -> String {
//!         (a + b).to_string()
//!     }
//! }
//!
//! # #[allow(clippy::unwrap_used)]
//! # fn main() -> Result<(), mcp_era_client::Error> {
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! // In a test: #[tokio::test] async fn adds() -> Result<(), mcp_era::client::Error>
//! let client = TestClient::new(Adder::default()).await?;
//! assert_eq!(client.call_tool_text("add", json!({"a": 1, "b": 2})).await?, "3");
//!
//! // The same server to a 2025-11-25 client, through an `initialize` session.
//! let legacy = TestClient::legacy(Adder::default()).await?;
//! assert_eq!(legacy.call_tool_text("add", json!({"a": 1, "b": 2})).await?, "3");
//!
//! // Every rule of the protocol that applies to any server.
//! check_server(Adder::default()).await.assert_ok();
//! # Ok(()) })
//! # }
//! ```
//!
//! ## The test client
//!
//! [`TestClient::new`] serves the server with the stdio serving loop on
//! one end of an in-memory pipe and connects the typed client
//! ([`mcp_era_client::Client`]) to the other, so requests take the path
//! they take over stdio. All of the client's methods work through
//! `Deref`: `list_tools`, `list_resources`, `read_resource`,
//! `list_prompts`, `get_prompt`, `complete`, `discover`, `subscribe`
//! (`subscriptions/listen`). [`TestClient::call_tool`] takes the
//! arguments as one `json!` value; [`TestClient::call_tool_text`] returns
//! the text of the result.
//!
//! * **Eras**: [`TestClient::new`] speaks 2026-07-28;
//!   [`TestClient::legacy`] opens a 2025-11-25 `initialize` session, so a
//!   test can check that legacy clients see the same tools.
//! * **Input** (MRTR `input_required` rounds in the modern era, real
//!   server→client requests in a legacy session) is answered by closures:
//!   `TestClient::builder(server).on_elicit(|request| ElicitResult::new(ElicitResultAction::Accept)).connect().await?`;
//!   likewise [`on_sample`](TestClientBuilder::on_sample) and
//!   [`roots`](TestClientBuilder::roots). Each declares its capability.
//! * **Raw messages**: [`TestClient::send_raw`] answers a JSON-RPC value
//!   as a stdio line would be answered; [`TestClient::send_http`] as an
//!   HTTP POST body with the given headers, returning the status too.
//!   [`raw::request`] builds a message with the modern `_meta` and
//!   [`raw::headers_for`] the headers a correct client sends, for a test
//!   to break one at a time.
//!
//! ## Snapshots
//!
//! [`TestClient::assert_catalogue_snapshot`] compares the server's tools
//! (with their schemas), resources, templates and prompts, as pretty
//! JSON, with a file such as `tests/snapshots/catalogue.json`. Run the
//! tests with `MCP_SNAPSHOT_BLESS=1` to write or update it, then review
//! the diff and commit it: from then on a changed schema fails the test.
//! See [`snapshot`].
//!
//! ## The rule check
//!
//! [`check_server`] (or [`TestClient::check`]) probes the rules of MCP
//! 2026-07-28 that every server must follow, in the stdio and HTTP
//! contexts: `server/discover`'s shape, the version gate, the `_meta`
//! checks, unknown and removed methods, bad envelopes, notifications,
//! the HTTP header checks, truthful capabilities, paging, tool names and
//! schemas, `x-mcp-header`, the error codes of unknown tools, prompts and
//! resources in both eras, caching hints, and `initialize` for dual-era
//! and modern-only servers. Its [`Report`] names every violation with
//! the rule's section of the requirements digest;
//! [`Report::assert_ok`] panics with all of them. [`check::rules`] lists
//! the rules.

#![deny(missing_docs)]

pub mod check;
mod client;
pub mod raw;
pub mod snapshot;

pub use check::{Report, Rule, Violation, assert_conforms, check_server};
pub use client::{TestClient, TestClientBuilder};
pub use raw::HttpAnswer;

/// The typed client (`mcp-era-client`), for its types in tests
/// (`ByEra`, `Error`, the protocol types).
pub use mcp_era_client;
