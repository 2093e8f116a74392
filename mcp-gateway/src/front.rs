//! The front: a server of both eras, written by hand against the public
//! [`McpServer`] trait, whose declaration is the backend's and whose
//! capability requests are forwarded to it, through whichever connection
//! to the backend is up (see `supervise`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use mcp_era_client::Era;
use mcp_era_client::handler::with_call_tag;
use mcp_era_server::mcp_era_types::v2026_07_28::{
    CacheScope, ClientRequest, CompleteResult, GetPromptResultResponseResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    ReadResourceResultResponseResult, SubscriptionFilter,
};
use mcp_era_server::{
    Following, HandlerResult, McpServer, ParamHeader, Principal, Reply, RequestContext,
    ServerDeclaration, ServerEvents, errors,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::oneshot;

use mcp_era_server::mcp_era_types::ext::skills::EXTENSION_ID as SKILLS_EXTENSION;
use mcp_era_server::skills::SKILL_METHODS;
use mcp_era_server::tasks::{TASK_METHODS, TASKS_EXTENSION};

use crate::backend::{Backend, BackendOptions, BackendSpec, CAPABILITY_SETS};
use crate::instances::{self, Instances};
use crate::link::{Connection, Link, Shared};
use crate::supervise::supervise;
use crate::translate::{BACKEND, call_reply, checked, modern_result, with_client_meta};

/// A gateway in front of one backend: modern clients reach a legacy server
/// (and legacy clients reach it through a legacy session, as with any
/// server of ours); a modern backend is passed through.
pub struct Gateway {
    /// The front's state, and the link of the backend session it started
    /// with.
    shared: Shared,
    /// How long a request waits for a backend that is being started.
    patience: Duration,
    /// The backend session the gateway started with, while it serves.
    home: Mutex<Option<Home>>,
    /// The other backend sessions, when requests may need them.
    sessions: Option<Sessions>,
    /// This process's instance id and peers (see `instances`).
    instances: Instances,
}

/// The backend session started with the gateway (to learn the backend's
/// declaration), told every input capability the gateway forwards. It
/// serves the requests that would go to such a session; if the first
/// request needs another one, it is stopped instead, so that a gateway
/// whose clients all declare the same does not keep an idle process.
struct Home {
    /// What it was told, as a [`SessionKey`]'s `input`.
    input: String,
    /// Whether a request went to it.
    claimed: bool,
    /// Dropped with it, which stops the task restarting it.
    _stop: Option<oneshot::Sender<()>>,
}

/// The backend sessions started at a request's first need: one per front
/// principal ([`BackendOptions::per_principal`]) and per set of input
/// capabilities ([`BackendOptions::per_capability_set`]).
struct Sessions {
    spec: BackendSpec,
    options: BackendOptions,
    most: usize,
    links: Mutex<HashMap<SessionKey, KeptLink>>,
    /// Whether the backend was modern when first reached: it is then told
    /// each client's capabilities with each request, so one session (per
    /// principal) serves every capability set.
    modern: bool,
}

/// Which backend session a request goes to: its principal's, if each has
/// its own, told the input capabilities its client declared (as JSON), if
/// each set has its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SessionKey {
    principal: Option<String>,
    input: String,
}

/// A backend session kept: its link, the task keeping it up (stopped when
/// this is dropped), and when it was last used.
struct KeptLink {
    shared: Shared,
    _stop: oneshot::Sender<()>,
    used: Instant,
}

impl Sessions {
    /// The link of the backend session `key` names, started now if there
    /// is none (the one unused the longest makes room when there are
    /// `most`).
    fn link(&self, front: &Shared, key: SessionKey) -> Shared {
        let mut links = self.links.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(link) = links.get_mut(&key) {
            link.used = Instant::now();
            return link.shared.clone();
        }
        if links.len() >= self.most.max(1) {
            // Sessions whose resources someone follows go last.
            let oldest = links
                .iter()
                .min_by_key(|(_, link)| (link.shared.wanted.is_followed(), link.used))
                .map(|(key, _)| key.clone());
            if let Some(oldest) = oldest {
                tracing::info!(?oldest, "a backend session is stopped to make room");
                links.remove(&oldest);
            }
        }
        let input = serde_json::from_str(&key.input).unwrap_or_default();
        tracing::info!(?key, "a backend session is started");
        let shared = front.with_link(Link::Connecting);
        let (stop, stopped) = oneshot::channel();
        tokio::spawn(supervise(
            shared.clone(),
            self.spec.clone(),
            self.options.clone(),
            input,
            stopped,
        ));
        links.insert(
            key,
            KeptLink {
                shared: shared.clone(),
                _stop: stop,
                used: Instant::now(),
            },
        );
        shared
    }
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}

impl Gateway {
    /// A front for `backend`, declaring what it declared, whose list
    /// changes are published on [`events`](Self::events) from now on (give
    /// that hub to the transport's config). Nothing restarts it: see
    /// [`start`](Self::start).
    pub async fn new(backend: Backend) -> Self {
        // `attach` sets the backend's declaration.
        let placeholder = ServerDeclaration::new(crate::backend::unnamed());
        let shared = Shared::new(placeholder, Link::Connecting);
        let patience = backend.patience();
        let instances = backend.instances().clone();
        shared.attach(backend).await;
        let home = Home {
            input: String::new(),
            claimed: true,
            _stop: None,
        };
        Self {
            shared,
            patience,
            home: Mutex::new(Some(home)),
            sessions: None,
            instances,
        }
    }

    /// A front for the backend `spec` names, connected now and, whenever
    /// it cannot be started or a stdio backend exits, started again after
    /// a delay that doubles from 250 ms up to 30 s (and starts over once a
    /// backend has lasted a minute). Until a backend is up, the front
    /// declares tools, resources and prompts, and refuses their requests
    /// with the reason; once it is up, the declaration is the backend's and
    /// every list is announced as changed.
    pub async fn start(spec: BackendSpec, options: BackendOptions) -> Self {
        let input = options.input_for_all();
        let first = spec.connect_telling(&options, &input).await;
        let modern = first
            .as_ref()
            .is_ok_and(|backend| backend.era() == Era::Modern);
        let shared = Shared::new(provisional(&spec), Link::Connecting);
        match first {
            Ok(backend) => shared.attach(backend).await,
            Err(e) => {
                tracing::warn!("backend {spec}: {e}");
                shared
                    .link
                    .send_replace(Link::Down(format!("it could not be started: {e}").into()));
            }
        }
        let (stop, stopped) = oneshot::channel();
        let patience = options.request_timeout;
        let instances = options.instances.clone();
        let sessions = Sessions {
            spec: spec.clone(),
            options: options.clone(),
            most: options.per_principal.unwrap_or(CAPABILITY_SETS),
            links: Mutex::default(),
            modern,
        };
        let home = Home {
            input: input.to_string(),
            claimed: false,
            _stop: Some(stop),
        };
        tokio::spawn(supervise(shared.clone(), spec, options, input, stopped));
        Self {
            shared,
            patience,
            home: Mutex::new(Some(home)),
            sessions: Some(sessions),
            instances,
        }
    }

    /// The hub the backend's notifications are published on.
    pub fn events(&self) -> &ServerEvents {
        &self.shared.notes.events
    }

    /// Counts the backend sessions lost (exited, or their stream closed),
    /// changed at each loss.
    pub(crate) fn losses(&self) -> tokio::sync::watch::Receiver<u64> {
        self.shared.notes.losses.subscribe()
    }

    /// The backend session the gateway started with, if it is connected
    /// and serves (see [`BackendOptions::per_capability_set`]).
    pub fn backend(&self) -> Option<Arc<Backend>> {
        if self.lock_home().is_none() {
            return None;
        }
        match &*self.shared.link.borrow() {
            Link::Up(connection) => Some(Arc::clone(&connection.backend)),
            Link::Connecting | Link::Down(_) => None,
        }
    }

    /// The backend session `ctx`'s request goes to: its principal's, told
    /// its client's input capabilities, as the options say; the first one
    /// when that is the one.
    fn session_for(&self, ctx: &RequestContext) -> Shared {
        let Some(sessions) = &self.sessions else {
            return self.shared.clone();
        };
        let principal = match sessions.options.per_principal {
            Some(_) => ctx
                .http_request()
                .and_then(|request| request.extensions.get::<Principal>())
                .map(|Principal(name)| name.clone()),
            None => None,
        };
        let input = if sessions.modern {
            sessions.options.input_for_all()
        } else {
            sessions.options.input_for(ctx.client_capabilities())
        }
        .to_string();
        let mut home = self.lock_home();
        if let Some(first) = home.as_mut() {
            if principal.is_none() && input == first.input {
                first.claimed = true;
                return self.shared.clone();
            }
            if !first.claimed {
                tracing::info!(
                    "the first request needs another backend session: the first one is stopped"
                );
                *home = None;
            }
        }
        drop(home);
        let key = SessionKey { principal, input };
        sessions.link(&self.shared, key)
    }

    /// The answer to a retry of a round another gateway instance holds
    /// (forwarded to it, or refused: see `instances`), as the front got it;
    /// `None` when this instance serves the request. A modern backend's
    /// `requestState` is its own (a gateway in front of it mints ours), so
    /// it always reaches the backend.
    pub(crate) async fn held_elsewhere(
        &self,
        method: &str,
        params: &Value,
        ctx: &RequestContext,
    ) -> Option<HandlerResult<Value>> {
        if !may_ask(method) || self.modern_backend() {
            return None;
        }
        self.instances
            .take_over(method, params, ctx, self.patience)
            .await
    }

    /// Whether the backend was modern when first reached.
    fn modern_backend(&self) -> bool {
        match &self.sessions {
            Some(sessions) => sessions.modern,
            None => match &*self.shared.link.borrow() {
                Link::Up(connection) => connection.backend.era() == Era::Modern,
                Link::Connecting | Link::Down(_) => false,
            },
        }
    }

    fn lock_home(&self) -> MutexGuard<'_, Option<Home>> {
        self.home.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The connection to forward `ctx`'s request to (see
    /// [`session_for`](Self::session_for)): the one up, or the one being
    /// made (waited for up to the backend timeout); an error saying why
    /// there is none.
    async fn connection(&self, ctx: &RequestContext) -> HandlerResult<Arc<Connection>> {
        let mut link = self.session_for(ctx).link.subscribe();
        let settled = link.wait_for(|link| !matches!(link, Link::Connecting));
        match tokio::time::timeout(self.patience, settled).await {
            Ok(Ok(link)) => match &*link {
                Link::Up(connection) => Ok(Arc::clone(connection)),
                Link::Down(why) => Err(errors::internal_error(format!(
                    "the backend is unavailable: {why}"
                ))),
                Link::Connecting => Err(errors::internal_error("the backend is starting")),
            },
            Ok(Err(_)) => Err(errors::internal_error("the backend is gone")),
            Err(_) => Err(errors::timed_out(format!(
                "the backend did not start within {:?}",
                self.patience
            ))),
        }
    }

    /// Forwards `request` and returns the backend's result in its modern
    /// shape, checked against the modern type `T`. A call that may ask
    /// for input goes through the rounds, when the backend may ask.
    pub(crate) async fn forward<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
        ctx: &RequestContext,
    ) -> HandlerResult<T> {
        let connection = self.connection(ctx).await?;
        let told = connection.backend.told_for(ctx.client_capabilities());
        let params = with_client_meta(params, ctx, told);
        let first_tools_page = (method == "tools/list").then(|| params.get("cursor").is_none());
        let calls = &self.shared.notes.calls;
        let result = match &connection.rounds {
            Some(rounds) if may_ask(method) => {
                rounds
                    .call(&connection.backend, method, params, ctx, calls)
                    .await?
            }
            _ => {
                let mut params = params;
                let call = calls.open(ctx, &mut params);
                let forwarded = connection.backend.forward_call(method, params);
                let result = with_call_tag(call, forwarded).await;
                calls.close(call);
                result?
            }
        };
        if let Some(first_page) = first_tools_page {
            self.shared.notes.tool_headers.learn(first_page, &result);
        }
        let input_required = result.get("resultType") == Some(&Value::from("input_required"));
        let result = if connection.backend.era() == Era::Legacy && !input_required {
            modern_result(method, result, ctx.cache_hints())
        } else {
            result
        };
        checked(BACKEND, method, result)
    }
}

/// Whether `method` is one of the extensions' methods the front forwards
/// to a backend that declares the extension (tasks, skills).
pub(crate) fn forwarded_extension(declaration: &ServerDeclaration, method: &str) -> bool {
    let extension = if TASK_METHODS.contains(&method) {
        TASKS_EXTENSION
    } else if SKILL_METHODS.contains(&method) {
        SKILLS_EXTENSION
    } else {
        return false;
    };
    declaration
        .capabilities()
        .extensions
        .as_ref()
        .is_some_and(|extensions| extensions.contains_key(extension))
}

/// What the front declares before a backend was ever up: the three lists
/// it forwards, and instructions saying the backend is not up yet.
fn provisional(spec: &BackendSpec) -> ServerDeclaration {
    let capabilities = serde_json::from_value(serde_json::json!({
        "tools": {"listChanged": true},
        "resources": {"listChanged": true},
        "prompts": {"listChanged": true}
    }))
    .unwrap_or_default();
    ServerDeclaration::new(crate::backend::unnamed())
        .with_capabilities(capabilities)
        .with_cache_defaults(0, CacheScope::Private)
        .with_instructions(format!(
            "A gateway to {spec}, which is not up yet; its lists will be announced as changed once it is."
        ))
}

/// Whether the backend may ask for input during `method` (MRTR's three).
fn may_ask(method: &str) -> bool {
    matches!(method, "tools/call" | "prompts/get" | "resources/read")
}

/// The `params` of a typed request, as JSON.
pub(crate) fn params_of(request: &ClientRequest) -> HandlerResult<Value> {
    let mut request = serde_json::to_value(request)
        .map_err(|e| errors::internal_error(format!("request not serializable: {e}")))?;
    Ok(request
        .get_mut("params")
        .map(Value::take)
        .unwrap_or_else(|| Value::Object(serde_json::Map::new())))
}

impl McpServer for Gateway {
    /// From the backend's `tools/list` pages seen lately (see
    /// `tool_headers`); `None` makes the runtime list the tools.
    fn tool_param_headers(&self, name: &str) -> Option<Vec<ParamHeader>> {
        self.shared.notes.tool_headers.get(name)
    }

    /// The resources a client follows are subscribed at the backend
    /// session serving it (see `resources`).
    fn following(&self, filter: &SubscriptionFilter, ctx: &RequestContext) -> Option<Following> {
        let uris = filter
            .resource_subscriptions
            .as_deref()
            .filter(|uris| !uris.is_empty())?;
        Some(Box::new(self.session_for(ctx).wanted.follow(uris)))
    }

    fn declaration(&self) -> Arc<ServerDeclaration> {
        Arc::clone(
            &self
                .shared
                .declaration
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// A modern backend's tasks and skills: their methods are its own.
    fn serves_method(&self, method: &str) -> bool {
        forwarded_extension(&self.declaration(), method)
    }

    async fn handle_method(
        &self,
        method: &str,
        params: Option<Value>,
        ctx: &RequestContext,
    ) -> HandlerResult<Value> {
        let params = params.unwrap_or_else(|| Value::Object(serde_json::Map::new()));
        self.forward::<Value>(method, params, ctx).await
    }

    async fn dispatch_capability(
        &self,
        request: ClientRequest,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        let method = request.method();
        let params = params_of(&request)?;
        if let Some(answer) = self.held_elsewhere(method, &params, ctx).await {
            return instances::reply(method, answer?, ctx);
        }
        match request {
            ClientRequest::ListToolsRequest(_) => {
                ctx.reply(self.forward::<ListToolsResult>(method, params, ctx).await?)
            }
            ClientRequest::CallToolRequest(_) => call_reply(
                BACKEND,
                self.forward::<Value>(method, params, ctx).await?,
                ctx,
            ),
            ClientRequest::ListResourcesRequest(_) => ctx.reply(
                self.forward::<ListResourcesResult>(method, params, ctx)
                    .await?,
            ),
            ClientRequest::ListResourceTemplatesRequest(_) => ctx.reply(
                self.forward::<ListResourceTemplatesResult>(method, params, ctx)
                    .await?,
            ),
            ClientRequest::ReadResourceRequest(_) => ctx.reply(
                self.forward::<ReadResourceResultResponseResult>(method, params, ctx)
                    .await?,
            ),
            ClientRequest::ListPromptsRequest(_) => ctx.reply(
                self.forward::<ListPromptsResult>(method, params, ctx)
                    .await?,
            ),
            ClientRequest::GetPromptRequest(_) => ctx.reply(
                self.forward::<GetPromptResultResponseResult>(method, params, ctx)
                    .await?,
            ),
            ClientRequest::CompleteRequest(_) => {
                ctx.reply(self.forward::<CompleteResult>(method, params, ctx).await?)
            }
            other => Err(errors::method_not_found(format!(
                "{} is not forwarded",
                other.method()
            ))),
        }
    }
}
