//! [`TestClient`]: the typed client connected to a server value through an
//! in-memory pipe that speaks the stdio framing, and its raw escape hatches.

use std::ops::Deref;
use std::sync::Arc;

use mcp_era_client::mcp_era_types::v2025_11_25 as legacy;
use mcp_era_client::mcp_era_types::v2026_07_28 as modern;
use mcp_era_client::{
    ByEra, Client, ClientHandler, ClientOptions, EraMode, Error, HandlerError, Result,
};
use mcp_era_server::McpServer;
use mcp_era_server::stdio::{StdioConfig, serve_with};
use mcp_era_server::transport::HttpHeaders;
use serde_json::{Map, Value, json};

use crate::check::{Report, check_shared};
use crate::raw::{self, HttpAnswer};
use crate::snapshot;

/// How big the in-memory pipe's buffer is in each direction; a full one
/// only makes the writer wait, as a real pipe would.
const PIPE_BYTES: usize = 1 << 20;

type ElicitFn = dyn Fn(modern::ElicitRequestParams) -> modern::ElicitResult + Send + Sync;
type SampleFn =
    dyn Fn(modern::CreateMessageRequestParams) -> modern::CreateMessageResult + Send + Sync;

/// A client connected in-process to a server value: no process, no socket.
///
/// The server runs in the stdio serving loop on one end of an in-memory
/// pipe, the typed [`Client`] on the other, so a request takes the same
/// path as over stdio (framing, concurrency, cancellation, legacy
/// sessions). Every method of [`Client`] is available through `Deref`
/// (`list_tools`, `read_resource`, `get_prompt`, `complete`, `discover`,
/// `subscribe`, …); [`call_tool`](Self::call_tool) here takes the
/// arguments as one JSON value.
///
/// Build one with [`TestClient::new`] (modern era), [`TestClient::legacy`]
/// (a 2025-11-25 `initialize` session) or [`TestClient::builder`]
/// (elicitation, sampling and roots answered by closures). Needs a tokio
/// runtime (`#[tokio::test]`).
pub struct TestClient<S> {
    server: Arc<S>,
    client: Client,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl<S> std::fmt::Debug for TestClient<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestClient")
            .field("era", &self.client.era())
            .field("version", &self.client.protocol_version())
            .finish_non_exhaustive()
    }
}

impl<S: McpServer + 'static> TestClient<S> {
    /// Connects a modern (2026-07-28) client to `server`.
    pub async fn new(server: S) -> Result<Self> {
        Self::builder(server).connect().await
    }

    /// Connects a legacy (2025-11-25) client to `server`: an `initialize`
    /// session, as an older client would open. Fails for a modern-only
    /// server.
    pub async fn legacy(server: S) -> Result<Self> {
        Self::builder(server).legacy().connect().await
    }

    /// A builder, to answer elicitation, sampling or roots, or to change
    /// the client's options.
    pub fn builder(server: S) -> TestClientBuilder<S> {
        TestClientBuilder {
            server: Arc::new(server),
            options: ClientOptions {
                era: EraMode::Modern,
                ..ClientOptions::default()
            },
            elicit: None,
            sample: None,
            roots: None,
        }
    }

    /// The server value, shared with the serving loop (to look at its state).
    pub fn server(&self) -> &S {
        &self.server
    }

    /// The connected typed client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Calls a tool with `arguments`, a JSON object (`json!({"a": 1})`; `null`
    /// means none). `input_required` rounds are answered by the builder's
    /// closures. A tool that fails (`isError: true`) is a result, not an
    /// `Err`; a JSON-RPC error is [`Error::Rpc`].
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<ByEra<modern::CallToolResultResponseResult, legacy::CallToolResult>> {
        let arguments = match arguments {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(Error::InvalidResult {
                    method: "tools/call".into(),
                    detail: format!("the arguments must be a JSON object, not {other}"),
                });
            }
        };
        self.client.call_tool(name, arguments).await
    }

    /// Calls a tool and returns the text of its result (its text content
    /// blocks, joined by newlines), in either era. A failed tool
    /// (`isError: true`) or an answer that is not a complete result is an
    /// [`Error::InvalidResult`] naming it.
    pub async fn call_tool_text(&self, name: &str, arguments: Value) -> Result<String> {
        let result = match self.call_tool(name, arguments).await? {
            ByEra::Modern(r) => serde_json::to_value(r),
            ByEra::Legacy(r) => serde_json::to_value(r),
        }
        .map_err(|e| Error::InvalidResult {
            method: "tools/call".into(),
            detail: e.to_string(),
        })?;
        let failed = |detail: String| Error::InvalidResult {
            method: "tools/call".into(),
            detail,
        };
        if result.get("isError") == Some(&Value::Bool(true)) {
            return Err(failed(format!("tool `{name}` failed: {result}")));
        }
        let Some(content) = result.get("content").and_then(Value::as_array) else {
            return Err(failed(format!("tool `{name}` gave no content: {result}")));
        };
        let texts: Vec<&str> = content
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect();
        Ok(texts.join("\n"))
    }

    /// Sends one raw JSON-RPC message, as a stdio line, straight to the
    /// server's entry point (outside the client's connection and its legacy
    /// session) and returns the raw answer; `None` for a notification.
    pub async fn send_raw(&self, message: Value) -> Option<Value> {
        raw::stdio(&self.server, &message).await
    }

    /// Sends one raw JSON-RPC message as the body of an HTTP POST with
    /// `headers`, and returns the HTTP status the Streamable HTTP transport
    /// would use with the JSON-RPC answer. [`raw::headers_for`] builds the
    /// headers a correct client sends.
    pub async fn send_http(&self, message: Value, headers: HttpHeaders) -> HttpAnswer {
        raw::http(&self.server, &message, headers).await
    }

    /// The catalogue (tools with their schemas, resources, resource
    /// templates, prompts), fetched raw over every page; see
    /// [`snapshot`](crate::snapshot).
    pub async fn catalogue(&self) -> Result<Value> {
        snapshot::catalogue(&self.server).await
    }

    /// Compares the catalogue with the snapshot file at `path` (relative to
    /// the package root under `cargo test`); see
    /// [`assert_json_snapshot`](crate::snapshot::assert_json_snapshot).
    ///
    /// # Panics
    ///
    /// When the catalogue differs from the file (or the file is missing),
    /// unless `MCP_SNAPSHOT_BLESS=1` is set, which rewrites the file.
    pub async fn assert_catalogue_snapshot(&self, path: impl AsRef<std::path::Path>) {
        match self.catalogue().await {
            Ok(catalogue) => snapshot::assert_json_snapshot(path, &catalogue),
            Err(e) => panic!("the catalogue could not be fetched: {e}"),
        }
    }

    /// Runs the protocol rules every server must follow against this
    /// client's server; see [`check`](crate::check).
    pub async fn check(&self) -> Report {
        check_shared(&self.server).await
    }

    /// Closes the connection and waits for the serving loop to end,
    /// returning its result (an I/O error it met).
    pub async fn close(self) -> std::io::Result<()> {
        self.client.close().await;
        drop(self.client);
        match self.serving.await {
            Ok(result) => result,
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}

impl<S> Deref for TestClient<S> {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

/// Builds a [`TestClient`]: which era, and closures that answer what the
/// server asks of the client (MRTR `input_required` rounds in the modern
/// era, real server→client requests in a legacy session). Each closure
/// also declares its client capability.
pub struct TestClientBuilder<S> {
    server: Arc<S>,
    options: ClientOptions,
    elicit: Option<Box<ElicitFn>>,
    sample: Option<Box<SampleFn>>,
    roots: Option<Vec<modern::Root>>,
}

impl<S> std::fmt::Debug for TestClientBuilder<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestClientBuilder")
            .field("options", &self.options)
            .field("elicit", &self.elicit.is_some())
            .field("sample", &self.sample.is_some())
            .field("roots", &self.roots)
            .finish_non_exhaustive()
    }
}

impl<S: McpServer + 'static> TestClientBuilder<S> {
    /// Speak the legacy era: a 2025-11-25 `initialize` session.
    pub fn legacy(mut self) -> Self {
        self.options.era = EraMode::Legacy;
        self
    }

    /// Answer elicitation (form and URL mode) with `answer`, and declare
    /// the `elicitation` capability.
    pub fn on_elicit(
        mut self,
        answer: impl Fn(modern::ElicitRequestParams) -> modern::ElicitResult + Send + Sync + 'static,
    ) -> Self {
        self.elicit = Some(Box::new(answer));
        self
    }

    /// Answer sampling (`sampling/createMessage`) with `answer`, and
    /// declare the `sampling` capability.
    pub fn on_sample(
        mut self,
        answer: impl Fn(modern::CreateMessageRequestParams) -> modern::CreateMessageResult
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.sample = Some(Box::new(answer));
        self
    }

    /// Answer `roots/list` with `roots`, and declare the `roots` capability.
    pub fn roots(mut self, roots: Vec<modern::Root>) -> Self {
        self.roots = Some(roots);
        self
    }

    /// Changes the client's options (timeouts, versions offered, the tasks
    /// extension, …). The era and the handler are set by the builder.
    pub fn options(mut self, change: impl FnOnce(&mut ClientOptions)) -> Self {
        change(&mut self.options);
        self
    }

    /// Starts the server's serving loop on an in-memory pipe and connects
    /// the client to it. A server whose catalogue is invalid (the problems
    /// `stdio::run` refuses to start with) is an [`Error::Io`].
    pub async fn connect(self) -> Result<TestClient<S>> {
        let problems = self.server.catalogue_problems();
        if !problems.is_empty() {
            return Err(Error::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("the server's catalogue is invalid: {}", problems.join("; ")),
            )));
        }
        let mut options = self.options;
        let mut capabilities = serde_json::to_value(&options.capabilities)
            .map_err(|e| Error::Io(std::io::Error::other(e)))?;
        if self.elicit.is_some() {
            capabilities["elicitation"] = json!({"form": {}, "url": {}});
        }
        if self.sample.is_some() {
            capabilities["sampling"] = json!({});
        }
        if self.roots.is_some() {
            capabilities["roots"] = json!({});
        }
        options.capabilities = serde_json::from_value(capabilities)
            .map_err(|e| Error::Io(std::io::Error::other(e)))?;
        if self.elicit.is_some() || self.sample.is_some() || self.roots.is_some() {
            options.handler = Some(Arc::new(Closures {
                elicit: self.elicit,
                sample: self.sample,
                roots: self.roots,
            }));
        }
        let (client_end, server_end) = tokio::io::duplex(PIPE_BYTES);
        let (server_read, server_write) = tokio::io::split(server_end);
        let (client_read, client_write) = tokio::io::split(client_end);
        let serving = tokio::spawn(serve_with(
            Arc::clone(&self.server),
            server_read,
            server_write,
            StdioConfig::default(),
        ));
        let client = match Client::connect_streams(
            client_read,
            client_write,
            "in-process",
            0,
            options,
        )
        .await
        {
            Ok(client) => client,
            Err(e) => {
                serving.abort();
                return Err(e);
            }
        };
        Ok(TestClient {
            server: self.server,
            client,
            serving,
        })
    }
}

/// The builder's closures as a [`ClientHandler`].
struct Closures {
    elicit: Option<Box<ElicitFn>>,
    sample: Option<Box<SampleFn>>,
    roots: Option<Vec<modern::Root>>,
}

impl ClientHandler for Closures {
    fn elicit(
        &self,
        request: modern::ElicitRequestParams,
    ) -> mcp_era_client::transport::BoxFuture<
        '_,
        std::result::Result<modern::ElicitResult, HandlerError>,
    > {
        let answer = match &self.elicit {
            Some(elicit) => Ok(elicit(request)),
            None => Err(HandlerError::unsupported("elicitation/create")),
        };
        Box::pin(async move { answer })
    }

    fn create_message(
        &self,
        request: modern::CreateMessageRequestParams,
    ) -> mcp_era_client::transport::BoxFuture<
        '_,
        std::result::Result<modern::CreateMessageResult, HandlerError>,
    > {
        let answer = match &self.sample {
            Some(sample) => Ok(sample(request)),
            None => Err(HandlerError::unsupported("sampling/createMessage")),
        };
        Box::pin(async move { answer })
    }

    fn list_roots(
        &self,
    ) -> mcp_era_client::transport::BoxFuture<
        '_,
        std::result::Result<modern::ListRootsResult, HandlerError>,
    > {
        let roots = self.roots.clone().unwrap_or_default();
        Box::pin(async move { Ok(modern::ListRootsResult::new(roots)) })
    }
}
