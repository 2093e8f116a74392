//! The server behind the gateway, reached with our client: a child process
//! over stdio (or any pair of streams) or a Streamable HTTP endpoint, its
//! era detected at connection.

use std::sync::Arc;
use std::time::Duration;

use mcp_era_client::{ByEra, Client, ClientOptions, EraMode, Subscription};
use mcp_era_server::mcp_era_types::v2026_07_28::{
    CacheScope, ClientCapabilities, Error as ErrorObject, Implementation, ServerCapabilities,
    SubscriptionFilter,
};
use mcp_era_server::{ServerDeclaration, ServerEvents, errors};
use serde_json::{Value, json};

use crate::calls::CallRoutes;
use crate::input::{Bridge, BridgeHandler, Rounds};
use crate::translate::{legacy_params, modern_error, without_rounds};

pub use mcp_era_client::Era;

/// How the gateway reaches its backend.
#[derive(Debug, Clone)]
pub struct BackendOptions {
    /// The era to speak: detected (the default), or forced (`Legacy` makes
    /// a dual-era server answer as a legacy one).
    pub era: EraMode,
    /// How long one forwarded request may take, and how long a call that
    /// asked its client for input waits for the answer.
    pub request_timeout: Duration,
    /// Whether the backend may ask the front's clients for input
    /// (elicitation, sampling, roots) during `tools/call`, `prompts/get`
    /// and `resources/read`. Over a legacy stdio backend the gateway then
    /// runs those calls one at a time, so that each request of the backend
    /// is known to be the running call's (see [`Backend::names_calls`]);
    /// without it they run side by side and the backend is told its client
    /// answers none.
    pub input: bool,
}

impl Default for BackendOptions {
    fn default() -> Self {
        Self {
            era: EraMode::Auto,
            request_timeout: Duration::from_secs(60),
            input: true,
        }
    }
}

impl BackendOptions {
    fn client_options(&self, bridge: Option<&Arc<Bridge>>) -> ClientOptions {
        let mut options = ClientOptions {
            era: self.era,
            client_info: Implementation::builder()
                .name("mcp-era-gateway")
                .version(env!("CARGO_PKG_VERSION"))
                .build(),
            // Without the bridge, nothing to ask the front's clients for:
            // the backend is told the gateway answers no input requests.
            capabilities: ClientCapabilities::new(),
            request_timeout: self.request_timeout,
            ..ClientOptions::default()
        };
        if let Some(bridge) = bridge {
            options.capabilities = serde_json::from_value(
                json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}),
            )
            .unwrap_or_default();
            options.handler = Some(Arc::new(BridgeHandler(Arc::clone(bridge))));
        }
        options
    }
}

/// Where the backend is, so that it can be started (again).
#[derive(Debug, Clone)]
pub enum BackendSpec {
    /// A program speaking stdio, started as a child process.
    Command {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A Streamable HTTP endpoint.
    Url(String),
}

impl BackendSpec {
    /// Starts (or reaches) the backend and connects to it.
    pub async fn connect(
        &self,
        options: &BackendOptions,
    ) -> Result<Backend, mcp_era_client::Error> {
        match self {
            Self::Command { program, args } => Backend::spawn(program, args, options).await,
            Self::Url(url) => Backend::connect_http(url, options).await,
        }
    }
}

impl std::fmt::Display for BackendSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Command { program, args } => {
                f.write_str(program)?;
                args.iter().try_for_each(|arg| write!(f, " {arg}"))
            }
            Self::Url(url) => f.write_str(url),
        }
    }
}

/// A connected backend.
pub struct Backend {
    client: Client,
    /// Where the backend's requests for input go, when it may ask.
    bridge: Option<Arc<Bridge>>,
    /// How long a call that asked the front's client for input waits.
    patience: Duration,
    /// Whether the backend is reached over HTTP, where a legacy server's
    /// requests come on the stream of the call they belong to.
    over_http: bool,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("era", &self.client.era())
            .field("version", &self.client.protocol_version())
            .finish_non_exhaustive()
    }
}

impl Backend {
    fn new(
        client: Client,
        bridge: Option<Arc<Bridge>>,
        options: &BackendOptions,
        over_http: bool,
    ) -> Self {
        Self {
            client,
            bridge,
            patience: options.request_timeout,
            over_http,
        }
    }

    /// Starts `program args…` and connects to it over stdio.
    pub async fn spawn(
        program: &str,
        args: &[String],
        options: &BackendOptions,
    ) -> Result<Self, mcp_era_client::Error> {
        let bridge = options.input.then(Arc::default);
        let client =
            Client::connect_stdio(program, args, options.client_options(bridge.as_ref())).await?;
        Ok(Self::new(client, bridge, options, false))
    }

    /// Connects to a Streamable HTTP endpoint (a legacy one through a
    /// session of its own).
    pub async fn connect_http(
        url: &str,
        options: &BackendOptions,
    ) -> Result<Self, mcp_era_client::Error> {
        let bridge = options.input.then(Arc::default);
        let client = Client::connect_http(url, options.client_options(bridge.as_ref())).await?;
        Ok(Self::new(client, bridge, options, true))
    }

    /// Connects over a pair of streams speaking the stdio framing
    /// (`reader` is the server's output); `label` names it in logs.
    pub async fn connect_streams(
        reader: impl tokio::io::AsyncRead + Send + Unpin + 'static,
        writer: impl tokio::io::AsyncWrite + Send + Unpin + 'static,
        label: &str,
        options: &BackendOptions,
    ) -> Result<Self, mcp_era_client::Error> {
        let bridge = options.input.then(Arc::default);
        let client = Client::connect_streams(
            reader,
            writer,
            label,
            0,
            options.client_options(bridge.as_ref()),
        )
        .await?;
        Ok(Self::new(client, bridge, options, false))
    }

    /// The era the backend speaks.
    pub fn era(&self) -> Era {
        self.client.era()
    }

    /// Waits until a stdio backend is gone (it exited, or closed its
    /// stdout), and says why; never resolves over HTTP.
    pub async fn closed(&self) -> String {
        self.client.closed().await
    }

    /// How long a forwarded request may take.
    pub(crate) fn patience(&self) -> Duration {
        self.patience
    }

    /// The declaration a front serves for this backend: its identity and
    /// instructions, the capabilities the gateway can forward, every
    /// version the runtime implements (the front is dual-era), and list
    /// results that may not be cached (a legacy server states no hints).
    pub fn declaration(&self) -> ServerDeclaration {
        let info = match self.client.server_info() {
            Some(ByEra::Modern(info)) => info,
            Some(ByEra::Legacy(info)) => converted(&info).unwrap_or_else(unnamed),
            None => unnamed(),
        };
        let capabilities = match self.client.capabilities() {
            ByEra::Modern(capabilities) => capabilities,
            ByEra::Legacy(legacy) => forwarded_capabilities(&legacy),
        };
        let mut declaration = ServerDeclaration::new(info)
            .with_capabilities(capabilities)
            .with_cache_defaults(0, CacheScope::Private);
        if let Some(instructions) = self.client.instructions() {
            declaration = declaration.with_instructions(instructions);
        }
        declaration
    }

    /// The backend's notifications from now on: those it sends with its
    /// answers (progress; a legacy session's list changes too) and, from a
    /// modern backend, a `subscriptions/listen` stream for every list
    /// change (acknowledged when this returns; left out when refused).
    pub async fn notifications(&self) -> Vec<Subscription> {
        let mut subscriptions = vec![self.client.notifications()];
        if self.era() == Era::Modern {
            let filter = SubscriptionFilter::new()
                .with_tools_list_changed(true)
                .with_prompts_list_changed(true)
                .with_resources_list_changed(true);
            match self.client.subscribe(filter).await {
                Ok(listen) => subscriptions.push(listen),
                Err(e) => tracing::warn!("the backend's list changes are not followed: {e}"),
            }
        }
        subscriptions
    }

    /// Whether each request of the backend says which call it belongs to:
    /// a modern backend's come as that call's `input_required` rounds, a
    /// legacy one's over HTTP on that call's own response stream; over a
    /// legacy stdio pipe they name no call.
    pub fn names_calls(&self) -> bool {
        self.era() == Era::Modern || self.over_http
    }

    /// The rounds the backend's requests for input go through, when it
    /// may ask.
    pub(crate) fn rounds(&self) -> Option<Rounds> {
        self.bridge
            .as_ref()
            .map(|bridge| Rounds::new(Arc::clone(bridge), self.patience, self.names_calls()))
    }

    /// Sends a modern request's `method` and `params`, in the backend's
    /// era, and returns its result as the backend gave it, or the error the
    /// front answers.
    pub(crate) async fn forward_call(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value, ErrorObject> {
        let params = if self.era() == Era::Legacy {
            legacy_params(params)
        } else {
            without_rounds(params)
        };
        self.client
            .request(method, params.clone())
            .await
            .map_err(|e| modern_error(method, &params, front_error(method, e)))
    }
}

/// A client error as the front's JSON-RPC error: the backend's own error
/// as it came, anything else (it died, it timed out, it answered garbage)
/// an internal error that says so.
fn front_error(method: &str, error: mcp_era_client::Error) -> ErrorObject {
    match error {
        mcp_era_client::Error::Rpc { error, .. } => error,
        mcp_era_client::Error::Timeout { after, .. } => errors::timed_out(format!(
            "the backend did not answer {method} within {after:?}"
        )),
        other => {
            tracing::warn!(method, "backend failed: {other}");
            errors::internal_error(format!("the backend failed on {method}: {other}"))
        }
    }
}

pub(crate) fn unnamed() -> Implementation {
    Implementation::builder()
        .name("mcp-era-gateway")
        .version(env!("CARGO_PKG_VERSION"))
        .build()
}

/// A value of one era as the same-shaped type of the other.
fn converted<T: serde::Serialize, U: serde::de::DeserializeOwned>(value: &T) -> Option<U> {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
}

/// A legacy server's capabilities as the front declares them: tools,
/// resources, prompts, completions, logging and experimental entries
/// forwarded, `listChanged` with them (the gateway forwards list changes);
/// `subscribe` dropped (the gateway does not subscribe the backend to
/// resources yet), and so are the 2025-11-25 core `tasks`.
fn forwarded_capabilities(
    legacy: &mcp_era_server::mcp_era_types::v2025_11_25::ServerCapabilities,
) -> ServerCapabilities {
    let Ok(Value::Object(legacy)) = serde_json::to_value(legacy) else {
        return ServerCapabilities::new();
    };
    let mut kept = serde_json::Map::new();
    for key in [
        "tools",
        "resources",
        "prompts",
        "completions",
        "logging",
        "experimental",
    ] {
        if let Some(Value::Object(mut value)) = legacy.get(key).cloned() {
            if key == "resources" {
                value.remove("subscribe");
            }
            kept.insert(key.to_owned(), Value::Object(value));
        }
    }
    serde_json::from_value(Value::Object(kept)).unwrap_or_default()
}

/// Publishes the list changes (and any `resources/updated`) of
/// `notifications` on `events`, and sends its progress and log messages to
/// the front requests they belong to, until the backend goes away.
pub(crate) async fn publish(
    mut notifications: Subscription,
    events: ServerEvents,
    calls: CallRoutes,
) {
    while let Some(notification) = notifications.next().await {
        match notification.method.as_str() {
            "notifications/progress" => calls.progress(&notification.params),
            "notifications/message" => calls.log(notification.call_tag, &notification.params),
            "notifications/tools/list_changed" => events.tools_list_changed(),
            "notifications/prompts/list_changed" => events.prompts_list_changed(),
            "notifications/resources/list_changed" => events.resources_list_changed(),
            "notifications/resources/updated" => {
                if let Some(uri) = notification.params.get("uri").and_then(Value::as_str) {
                    events.resource_updated(uri);
                }
            }
            _ => {}
        }
    }
}
