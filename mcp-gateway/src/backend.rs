//! The server behind the gateway, reached with our client: a child process
//! over stdio (or any pair of streams) or a Streamable HTTP endpoint, its
//! era detected at connection.

use std::sync::Arc;
use std::time::Duration;

use mcp_era_client::handler::HandlerError;
use mcp_era_client::transport::BoxFuture;
use mcp_era_client::{ByEra, Client, ClientHandler, ClientOptions, EraMode};
use mcp_era_server::mcp_era_types::v2026_07_28::{
    self as modern, CacheScope, ClientCapabilities, Error as ErrorObject, Implementation,
    ServerCapabilities, SubscriptionFilter,
};
use mcp_era_server::{ServerDeclaration, errors};
use serde_json::{Value, json};

use crate::bridge::Bridge;
use crate::instances::Instances;
use crate::notes::{Notes, NotesSlot};
use crate::translate::{legacy_params, modern_error};

pub use mcp_era_client::Era;

/// How the gateway reaches its backend.
#[derive(Debug, Clone)]
pub struct BackendOptions {
    /// The era to speak: detected (the default), or forced (`Legacy` makes
    /// a dual-era server answer as a legacy one).
    pub era: EraMode,
    /// How long one forwarded request may take.
    pub request_timeout: Duration,
    /// How long a call that asked its client for input waits for the
    /// client's retry with the answers; then the call is cancelled at the
    /// backend (over a legacy stdio backend, the lane it held is freed).
    /// A person answers an elicitation: keep it long enough for one.
    pub input_timeout: Duration,
    /// Whether the backend may ask the front's clients for input
    /// (elicitation, sampling, roots) during `tools/call`, `prompts/get`
    /// and `resources/read`. Over a legacy stdio backend the gateway then
    /// runs those calls one at a time, so that each request of the backend
    /// is known to be the running call's (see [`Backend::names_calls`]);
    /// without it they run side by side and the backend is told its client
    /// answers none.
    pub input: bool,
    /// With `Some(n)`, each front principal (the [`Principal`] of an HTTP
    /// request: the OAuth subject with the `auth` feature, or what your
    /// middleware names) gets a backend of its own, started at its first
    /// request, so that no backend session state (a login, files opened,
    /// pending input, the lane of a stdio backend) is shared between
    /// principals; at most `n` are kept, the one unused the longest
    /// stopped first. Requests with no principal share one backend.
    ///
    /// [`Principal`]: mcp_era_server::Principal
    pub per_principal: Option<usize>,
    /// Whether each backend session is told the input capabilities of the
    /// clients it serves (with [`input`](Self::input)): the requests of
    /// clients that declared different ones (elicitation modes, sampling,
    /// roots) go to backend sessions of their own, started at their first
    /// request, so that a backend never asks a client for what it cannot
    /// answer and checks what it is told as it would directly. Off, one
    /// backend session is told every kind the gateway forwards, and a
    /// request for input the client did not declare is refused at the
    /// gateway. Needs a [`BackendSpec`] to start sessions from
    /// ([`Gateway::start`](crate::Gateway::start)); with
    /// [`per_principal`](Self::per_principal), per principal too (its
    /// bound counts both), else at most [`CAPABILITY_SETS`] sets are kept.
    pub per_capability_set: bool,
    /// How an HTTP backend is authorized (feature `auth`): the gateway's
    /// own grant at the backend's authorization server, run when the
    /// backend answers `401`. A front client's token is never forwarded:
    /// the backend sees only tokens issued to the gateway for it.
    #[cfg(feature = "auth")]
    pub oauth: Option<mcp_era_client::auth::OAuthOptions>,
    /// Whether a backend that exits, or cannot be started, is started
    /// again (after a growing delay).
    pub restart: Restart,
    /// This gateway process's instance id and its peers (`--instance`,
    /// `--peer`): the `requestState` of a legacy backend's round names the
    /// instance holding the call, and a retry reaching another instance is
    /// forwarded to it when it is a peer, else refused with a retryable
    /// error. The default is a random id and no peers. Give every backend
    /// session and composition member of one process the same.
    pub instances: Instances,
}

/// Whether a backend is started again when it is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Restart {
    /// After 250 ms, then a delay doubling up to 30 s (back to 250 ms once
    /// one has lasted a minute).
    #[default]
    Always,
    /// Never: once gone, its requests are refused with the reason, and a
    /// composite serves on without its items.
    Never,
}

/// How many backend sessions told different capabilities are kept when
/// they are not per principal (the one unused the longest stopped first).
pub const CAPABILITY_SETS: usize = 8;

impl Default for BackendOptions {
    fn default() -> Self {
        Self {
            era: EraMode::Auto,
            request_timeout: Duration::from_secs(60),
            input_timeout: Duration::from_secs(60),
            input: true,
            per_principal: None,
            per_capability_set: true,
            #[cfg(feature = "auth")]
            oauth: None,
            restart: Restart::Always,
            instances: Instances::default(),
        }
    }
}

impl BackendOptions {
    /// Our client's options for one connection, told `input` (the client
    /// capabilities it declares to the backend, see [`told_input`]), and
    /// what its handler hands the backend's requests and notifications to.
    fn wiring(&self, input: &Value) -> (ClientOptions, Wiring) {
        // Told no input capability, the backend has nothing to ask: no
        // bridge, so its calls run side by side even over legacy stdio.
        let may_ask = input.as_object().is_some_and(|told| !told.is_empty());
        let wiring = Wiring {
            bridge: may_ask.then(Arc::default),
            notes: NotesSlot::default(),
        };
        let (bridge, notes) = (wiring.bridge.as_ref(), &wiring.notes);
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
            handler: Some(Arc::new(BackendHandler {
                bridge: bridge.cloned(),
                notes: Arc::clone(notes),
            })),
            #[cfg(feature = "auth")]
            oauth: self.oauth.clone(),
            ..ClientOptions::default()
        };
        if bridge.is_some() {
            options.capabilities = serde_json::from_value(input.clone()).unwrap_or_default();
        }
        (options, wiring)
    }

    /// What a backend session serving every client is told.
    pub(crate) fn input_for_all(&self) -> Value {
        if self.input { all_input() } else { json!({}) }
    }

    /// What a backend session serving clients that declared `declared`
    /// is told: nothing without [`input`](Self::input), every kind the
    /// gateway forwards when the sessions are not per capability set, else
    /// the client's own (see [`told_input`]).
    pub(crate) fn input_for(&self, declared: &ClientCapabilities) -> Value {
        match (self.input, self.per_capability_set) {
            (false, _) => json!({}),
            (true, false) => all_input(),
            (true, true) => told_input(declared),
        }
    }
}

/// Every input capability the gateway can forward, as a backend session
/// serving all clients is told.
pub(crate) fn all_input() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
}

/// The input capabilities in `declared` that the gateway forwards, as a
/// backend is told them: `elicitation` (an empty one is form mode, as the
/// spec reads it), `sampling` as declared, `roots` without `listChanged`
/// (the gateway forwards no change of the client's roots).
pub(crate) fn told_input(declared: &ClientCapabilities) -> Value {
    let Ok(Value::Object(declared)) = serde_json::to_value(declared) else {
        return json!({});
    };
    let mut told = serde_json::Map::new();
    if let Some(Value::Object(elicitation)) = declared.get("elicitation") {
        let mut modes = elicitation.clone();
        modes.retain(|mode, _| mode == "form" || mode == "url");
        if modes.is_empty() {
            modes.insert("form".into(), json!({}));
        }
        told.insert("elicitation".into(), Value::Object(modes));
    }
    if let Some(sampling @ Value::Object(_)) = declared.get("sampling") {
        told.insert("sampling".into(), sampling.clone());
    }
    if let Some(Value::Object(_)) = declared.get("roots") {
        told.insert("roots".into(), json!({}));
    }
    Value::Object(told)
}

/// Where the backend is, so that it can be started (again).
#[derive(Clone)]
pub enum BackendSpec {
    /// A program speaking stdio, started as a child process.
    Command {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set in its environment, beside the gateway's own
        /// (their values are never shown: API keys live there).
        env: Vec<(String, String)>,
    },
    /// A Streamable HTTP endpoint.
    Url(String),
}

impl std::fmt::Debug for BackendSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Command { program, args, env } => f
                .debug_struct("Command")
                .field("program", program)
                .field("args", args)
                .field("env", &env.iter().map(|(name, _)| name).collect::<Vec<_>>())
                .finish(),
            Self::Url(url) => f.debug_tuple("Url").field(url).finish(),
        }
    }
}

impl BackendSpec {
    /// Starts (or reaches) the backend and connects to it, telling it
    /// every input capability the gateway forwards (none without
    /// [`BackendOptions::input`]).
    pub async fn connect(
        &self,
        options: &BackendOptions,
    ) -> Result<Backend, mcp_era_client::Error> {
        self.connect_telling(options, &options.input_for_all())
            .await
    }

    /// Starts (or reaches) the backend and connects to it, telling it the
    /// client capabilities `input`.
    pub(crate) async fn connect_telling(
        &self,
        options: &BackendOptions,
        input: &Value,
    ) -> Result<Backend, mcp_era_client::Error> {
        let (client_options, wiring) = options.wiring(input);
        match self {
            Self::Command { program, args, env } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).envs(env.iter().map(|(k, v)| (k, v)));
                let label = self.to_string();
                let client = Client::connect_command(command, label, client_options).await?;
                Ok(Backend::new(client, wiring, options, false))
            }
            Self::Url(url) => {
                let client = Client::connect_http(url, client_options).await?;
                Ok(Backend::new(client, wiring, options, true))
            }
        }
    }
}

impl std::fmt::Display for BackendSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Command { program, args, .. } => {
                f.write_str(program)?;
                args.iter().try_for_each(|arg| write!(f, " {arg}"))
            }
            Self::Url(url) => f.write_str(url),
        }
    }
}

/// Where one connection's handler sends the backend's requests for input
/// (when it may ask) and its notifications.
struct Wiring {
    bridge: Option<Arc<Bridge>>,
    notes: NotesSlot,
}

/// Our client's handler for one backend connection.
struct BackendHandler {
    bridge: Option<Arc<Bridge>>,
    notes: NotesSlot,
}

impl BackendHandler {
    async fn ask<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, HandlerError> {
        match &self.bridge {
            Some(bridge) => bridge.ask(method, params).await,
            None => Err(HandlerError::unsupported(method)),
        }
    }
}

impl ClientHandler for BackendHandler {
    fn elicit(
        &self,
        request: modern::ElicitRequestParams,
    ) -> BoxFuture<'_, Result<modern::ElicitResult, HandlerError>> {
        let params = serde_json::to_value(request).unwrap_or_default();
        Box::pin(self.ask("elicitation/create", params))
    }

    fn create_message(
        &self,
        request: modern::CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<modern::CreateMessageResult, HandlerError>> {
        let params = serde_json::to_value(request).unwrap_or_default();
        Box::pin(self.ask("sampling/createMessage", params))
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<modern::ListRootsResult, HandlerError>> {
        Box::pin(self.ask("roots/list", json!({})))
    }

    fn notified(&self, method: &str, params: &Value) {
        if let Some(notes) = self.notes.get() {
            notes.notified(method, params);
        }
    }
}

/// A connected backend.
pub struct Backend {
    client: Client,
    /// Where the backend's requests for input go, when it may ask.
    bridge: Option<Arc<Bridge>>,
    /// Where its notifications go, once the front serves it.
    notes: NotesSlot,
    /// How long a forwarded request may take.
    request_timeout: Duration,
    /// How long a call that asked the front's client for input waits.
    input_timeout: Duration,
    /// Whether the backend is reached over HTTP, where a legacy server's
    /// requests come on the stream of the call they belong to.
    over_http: bool,
    /// The instance minting the `requestState` of its rounds.
    instances: Instances,
    /// The task following a modern backend's list changes, ended with
    /// this connection (its listen stream would otherwise outlive it, and
    /// keep publishing what a newer connection publishes too).
    follower: std::sync::Mutex<Option<tokio::task::AbortHandle>>,
}

impl Drop for Backend {
    fn drop(&mut self) {
        let follower = self.follower.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(follower) = follower.take() {
            follower.abort();
        }
    }
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
    fn new(client: Client, wiring: Wiring, options: &BackendOptions, over_http: bool) -> Self {
        Self {
            client,
            bridge: wiring.bridge,
            notes: wiring.notes,
            request_timeout: options.request_timeout,
            input_timeout: options.input_timeout,
            over_http,
            instances: options.instances.clone(),
            follower: std::sync::Mutex::default(),
        }
    }

    /// Starts `program args…` and connects to it over stdio.
    pub async fn spawn(
        program: &str,
        args: &[String],
        options: &BackendOptions,
    ) -> Result<Self, mcp_era_client::Error> {
        let spec = BackendSpec::Command {
            program: program.to_owned(),
            args: args.to_vec(),
            env: Vec::new(),
        };
        spec.connect(options).await
    }

    /// Connects to a Streamable HTTP endpoint (a legacy one through a
    /// session of its own).
    pub async fn connect_http(
        url: &str,
        options: &BackendOptions,
    ) -> Result<Self, mcp_era_client::Error> {
        BackendSpec::Url(url.to_owned()).connect(options).await
    }

    /// Connects over a pair of streams speaking the stdio framing
    /// (`reader` is the server's output); `label` names it in logs.
    pub async fn connect_streams(
        reader: impl tokio::io::AsyncRead + Send + Unpin + 'static,
        writer: impl tokio::io::AsyncWrite + Send + Unpin + 'static,
        label: &str,
        options: &BackendOptions,
    ) -> Result<Self, mcp_era_client::Error> {
        let (client_options, wiring) = options.wiring(&options.input_for_all());
        let client = Client::connect_streams(reader, writer, label, 0, client_options).await?;
        Ok(Self::new(client, wiring, options, false))
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
        self.request_timeout
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
            // Its extensions too: the front forwards their methods (tasks,
            // skills) or passes their items through (Apps).
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

    /// Sends the backend's notifications to `notes` from now on: those it
    /// sends with its answers (progress, log messages; a legacy session's
    /// list changes too) as our client reads them and, from a modern
    /// backend, those of a `subscriptions/listen` stream for every list
    /// change (acknowledged when this returns; left out when refused).
    pub(crate) async fn serve_notes(&self, notes: Notes) {
        let _ = self.notes.set(notes.clone());
        if self.era() == Era::Modern {
            let filter = SubscriptionFilter::new()
                .with_tools_list_changed(true)
                .with_prompts_list_changed(true)
                .with_resources_list_changed(true);
            match self.client.subscribe(filter).await {
                Ok(listen) => {
                    let follower = tokio::spawn(notes.follow(listen)).abort_handle();
                    let mut slot = self.follower.lock().unwrap_or_else(|p| p.into_inner());
                    *slot = Some(follower);
                }
                Err(e) => tracing::warn!("the backend's list changes are not followed: {e}"),
            }
        }
    }

    /// A modern backend's `subscriptions/listen` stream for `filter`.
    pub(crate) async fn listen(
        &self,
        filter: SubscriptionFilter,
    ) -> Result<mcp_era_client::Subscription, mcp_era_client::Error> {
        self.client.subscribe(filter).await
    }

    /// Whether each request of the backend says which call it belongs to:
    /// a modern backend's come as that call's `input_required` rounds, a
    /// legacy one's over HTTP on that call's own response stream; over a
    /// legacy stdio pipe they name no call.
    pub fn names_calls(&self) -> bool {
        self.era() == Era::Modern || self.over_http
    }

    /// Where the backend's requests for input go, when it may ask.
    /// The input capabilities a request of a client that declared
    /// `declared` tells this backend (a modern one reads them per request;
    /// a legacy one was told its session's at `initialize`): the client's
    /// own that the gateway forwards ([`told_input`]), none when this
    /// session has nothing to ask the clients with.
    ///
    /// A modern backend is also told the client's extensions that it
    /// declares (an App host's `io.modelcontextprotocol/ui`, so that its
    /// app-only tools are listed to the App and to no one else; a tasks
    /// client's, so that it may answer with a task); they ask nothing of
    /// the client, so they are told without input too.
    pub(crate) fn told_for(&self, declared: &ClientCapabilities) -> Value {
        let mut told = match self.bridge {
            Some(_) => told_input(declared),
            None => json!({}),
        };
        if let Some(extensions) = self.forwarded_extensions(declared)
            && let Value::Object(told) = &mut told
        {
            told.insert("extensions".into(), extensions);
        }
        told
    }

    /// The client's extensions (of `declared`) this modern backend
    /// declares, less those the front serves itself (tasks, skills); none
    /// for a legacy backend, whose extensions the front does not declare.
    fn forwarded_extensions(&self, declared: &ClientCapabilities) -> Option<Value> {
        let ByEra::Modern(capabilities) = self.client.capabilities() else {
            return None;
        };
        let theirs = capabilities.extensions?;
        let kept: serde_json::Map<String, Value> = declared
            .extensions
            .as_ref()?
            .iter()
            .filter(|(id, _)| theirs.contains_key(id.as_str()))
            .filter_map(|(id, settings)| Some((id.clone(), serde_json::to_value(settings).ok()?)))
            .collect();
        (!kept.is_empty()).then_some(Value::Object(kept))
    }

    pub(crate) fn bridge(&self) -> Option<Arc<Bridge>> {
        self.bridge.clone()
    }

    /// How long a call that asked the front's client for input waits.
    pub(crate) fn input_timeout(&self) -> Duration {
        self.input_timeout
    }

    /// The gateway instance this backend session serves (see
    /// [`BackendOptions::instances`]).
    pub fn instances(&self) -> &Instances {
        &self.instances
    }

    /// Sends a modern request's `method` and `params`, in the backend's
    /// era, and returns its result as the backend gave it, or the error the
    /// front answers.
    pub(crate) async fn forward_call(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value, ErrorObject> {
        // Boxed: the front's request future is deep enough already.
        let (sent, params): (BoxFuture<'_, _>, _) = if self.era() == Era::Legacy {
            let params = legacy_params(params);
            (
                Box::pin(self.client.request(method, params.clone())),
                params,
            )
        } else {
            // A modern backend's rounds pass through: its own keys and
            // requestState go to the front's client and come back in the
            // retry, so the gateway keeps nothing between rounds.
            let sent = Box::pin(self.client.request_one_round(method, params.clone()));
            (sent, params)
        };
        match (sent.await, params) {
            (Ok(result), _) => Ok(result),
            (Err(e), params) => Err(modern_error(method, &params, front_error(method, e))),
        }
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
/// forwarded, `listChanged` and `subscribe` with them (the gateway forwards
/// list changes, and subscribes the backend to the resources its clients
/// follow); the 2025-11-25 core `tasks` are dropped.
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
        if let Some(value @ Value::Object(_)) = legacy.get(key) {
            kept.insert(key.to_owned(), value.clone());
        }
    }
    serde_json::from_value(Value::Object(kept)).unwrap_or_default()
}
