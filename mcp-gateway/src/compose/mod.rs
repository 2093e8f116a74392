//! Several backends behind one front: a [`Composite`] of [`Gateway`]s, one
//! per backend, each in its own era. Tool and prompt names get the
//! backend's name in front as its [`PrefixMode`] says; resource URIs are
//! kept (an App's `ui://` resources and the URIs a server hands out stay
//! valid), and a URI two backends list is the first one's in file order;
//! a prefixed backend's skills get its name as their first `skill://`
//! path segment (see `skill_uris`). A modern backend's tasks and skills
//! reach the front as its own.
//! Lists are read from every backend at once (kept, per backend, until
//! they may have changed: see `catalogue`), merged, sorted by name, and
//! paged by the composite itself, with a cursor naming the last item
//! given, so a backend's list change between two pages neither repeats
//! nor skips what stayed. A backend that is lost leaves its items out,
//! and every listener is told. Filters per backend and per principal or
//! OAuth scope hide items from lists and calls alike; a bound per backend
//! on requests in flight keeps a slow one from holding back the others.
//! `docs/gateway.md` has the rules.

mod access;
mod catalogue;
mod config;
mod declaration;
mod filter;
mod kind;
mod lists;
mod owners;
mod relay;
mod route;
mod skill_uris;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_era_server::mcp_era_types::ext::skills::EXTENSION_ID as SKILLS_EXTENSION;
use mcp_era_server::mcp_era_types::v2026_07_28::{
    ClientRequest, CompleteResult, GetPromptResultResponseResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    ReadResourceResultResponseResult, RequestId, RequestMetaObject, SubscriptionFilter,
};
use mcp_era_server::tasks::TASK_METHODS;
use mcp_era_server::{
    Following, HandlerResult, McpServer, ParamHeader, Reply, RequestContext, ServerDeclaration,
    ServerEvents, errors,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub use access::Selector;
pub use config::{Access, Composition, DEFAULT_PAGE_SIZE, DEFAULT_SEPARATOR, Member, PrefixMode};
pub use filter::{Filter, Filters};

use catalogue::Catalogue;
use kind::Kind;
use owners::{Owners, TaskOwners};
use relay::Relay;

use crate::backend::BackendOptions;
use crate::front::{Gateway, forwarded_extension, params_of};
use crate::instances;
use crate::translate::{BACKEND, call_reply, checked};

/// MCP Apps: a host declares the HTML profile it renders.
const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// Several backends served as one (see the module's doc). Serve it as any
/// [`McpServer`], with [`events`](Self::events) in the transport's config.
pub struct Composite {
    composition: Composition,
    members: Vec<Gateway>,
    /// Each member's bound on requests in flight, if it has one.
    limits: Vec<Option<Arc<Semaphore>>>,
    /// How long a request waits for a member (its timeout).
    patience: Vec<Duration>,
    events: ServerEvents,
    /// Each member's lists, while they hold.
    catalogue: Arc<Catalogue>,
    owners: Mutex<Owners>,
    /// The members' declarations it was merged from, and the merge.
    declaration: Mutex<(Vec<Arc<ServerDeclaration>>, Arc<ServerDeclaration>)>,
    /// Which member made each task the front handed out.
    tasks: Mutex<TaskOwners>,
    /// The tasks handing the members' events on; stopped with it.
    relays: Vec<tokio::task::AbortHandle>,
}

impl std::fmt::Debug for Composite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self
            .composition
            .members
            .iter()
            .map(|m| m.name.as_str())
            .collect();
        f.debug_struct("Composite")
            .field("members", &names)
            .finish_non_exhaustive()
    }
}

impl Drop for Composite {
    fn drop(&mut self) {
        self.relays.iter().for_each(tokio::task::AbortHandle::abort);
    }
}

impl Composite {
    /// Starts every backend (each as [`Gateway::start`] does, with its own
    /// timeout and era when the file names them) and checks that no two
    /// claim one tool or prompt name: a collision is an error naming both
    /// backends and the setting that fixes it. A backend that cannot be
    /// started yet is no error: it is started again, and its names are
    /// claimed when it is up (a name another backend has then stays
    /// that backend's, and the collision is logged).
    pub async fn start(composition: Composition, options: BackendOptions) -> Result<Self, String> {
        let mut members = Vec::with_capacity(composition.members.len());
        let mut patience = Vec::with_capacity(composition.members.len());
        for member in &composition.members {
            let mut own = options.clone();
            if let Some(timeout) = member.timeout {
                own.request_timeout = timeout;
            }
            if let Some(era) = member.era {
                own.era = era;
            }
            if let Some(restart) = member.restart {
                own.restart = restart;
            }
            patience.push(own.request_timeout);
            members.push(Gateway::start(member.spec.clone(), own).await);
        }
        let limits = composition
            .members
            .iter()
            .map(|member| member.max_concurrent.map(|n| Arc::new(Semaphore::new(n))))
            .collect();
        let events = ServerEvents::new();
        let catalogue = Arc::new(Catalogue::new(members.len()));
        let several = members.len() > 1;
        let relays = members
            .iter()
            .enumerate()
            .map(|(index, member)| {
                let relay = Relay {
                    index,
                    to: events.clone(),
                    catalogue: Arc::clone(&catalogue),
                    several,
                };
                tokio::spawn(relay.run(member.events().clone(), member.losses())).abort_handle()
            })
            .collect();
        let placeholder = Arc::new(ServerDeclaration::new(crate::backend::unnamed()));
        let composite = Self {
            composition,
            members,
            limits,
            patience,
            events,
            catalogue,
            tasks: Mutex::default(),
            owners: Mutex::default(),
            declaration: Mutex::new((Vec::new(), placeholder)),
            relays,
        };
        composite.check_names().await?;
        Ok(composite)
    }

    /// The hub the members' list changes are published on.
    pub fn events(&self) -> &ServerEvents {
        &self.events
    }

    /// Lists every member's tools and prompts once, failing on a name two
    /// of them claim.
    async fn check_names(&self) -> Result<(), String> {
        // Declaring every kind of input the gateway forwards, the listing
        // goes to the backend session each gateway started with; declaring
        // the backends' extensions, it has what only their hosts see (an
        // App's app-only tools).
        let mut capabilities = crate::backend::all_input();
        let extensions: Map<String, Value> = self
            .merged_declaration()
            .capabilities()
            .extensions
            .iter()
            .flatten()
            .map(|(id, _)| {
                let settings = if id == APPS_EXTENSION {
                    json!({"mimeTypes": ["text/html;profile=mcp-app"]})
                } else {
                    json!({})
                };
                (id.clone(), settings)
            })
            .collect();
        if !extensions.is_empty() {
            capabilities["extensions"] = Value::Object(extensions);
        }
        let meta: RequestMetaObject = serde_json::from_value(json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities
        }))
        .map_err(|e| e.to_string())?;
        let ctx = RequestContext::new(RequestId::from(0), meta);
        for kind in [Kind::Tools, Kind::Prompts] {
            let mut claimed: HashMap<String, usize> = HashMap::new();
            for index in 0..self.members.len() {
                if !self.declares(index, kind) {
                    continue;
                }
                let Ok(listing) = self.listing(index, kind, json!({}), &ctx).await else {
                    continue; // not up yet: its names are claimed later
                };
                for item in &listing.items {
                    let Some(name) = item.get(kind.key()).and_then(Value::as_str) else {
                        continue;
                    };
                    if !self.composition.members[index].filters.allows(kind, name) {
                        continue; // hidden: it claims no name
                    }
                    let front = self.composition.front_name(index, name);
                    if let Some(&other) = claimed.get(&front) {
                        let (first, second) = (
                            &self.composition.members[other],
                            &self.composition.members[index],
                        );
                        return Err(format!(
                            "backends {:?} and {:?} both serve a {} named {front:?}: give one of them \
                             prefix = \"always\" in the composition file (now {:?} and {:?}), \
                             or exclude it from one",
                            first.name,
                            second.name,
                            &kind.items()[..kind.items().len() - 1],
                            first.prefix.as_str(),
                            second.prefix.as_str(),
                        ));
                    }
                    claimed.insert(front, index);
                }
            }
            self.lock_owners().by_kind.insert(kind.method(), claimed);
        }
        Ok(())
    }

    fn lock_owners(&self) -> std::sync::MutexGuard<'_, Owners> {
        self.owners.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether member `index` declares the capability behind `kind`.
    fn declares(&self, index: usize, kind: Kind) -> bool {
        let declaration = self.members[index].declaration();
        let capabilities = declaration.capabilities();
        match kind {
            Kind::Tools => capabilities.tools.is_some(),
            Kind::Prompts => capabilities.prompts.is_some(),
            Kind::Resources | Kind::Templates => capabilities.resources.is_some(),
            Kind::Skills => capabilities
                .extensions
                .as_ref()
                .is_some_and(|extensions| extensions.contains_key(SKILLS_EXTENSION)),
        }
    }

    /// Forwards `params` to member `index` and checks the result as `T`.
    async fn forward_to<T: DeserializeOwned>(
        &self,
        index: usize,
        method: &str,
        params: Value,
        ctx: &RequestContext,
    ) -> HandlerResult<T> {
        let _permit = self.permit(index).await?;
        self.members[index].forward(method, params, ctx).await
    }

    /// The answer to a retry of a round another gateway instance holds
    /// for member `index`, forwarded with the front's own `params` (the
    /// peer serves the same composition, so it routes the front's names
    /// as this one does); `None` when this instance serves it.
    async fn held_elsewhere(
        &self,
        index: usize,
        method: &str,
        params: &Value,
        ctx: &RequestContext,
    ) -> Option<HandlerResult<Value>> {
        self.members[index]
            .held_elsewhere(method, params, ctx)
            .await
    }

    /// A slot of member `index`'s requests in flight, when it has a bound:
    /// waited for up to its timeout, so that a slow backend holds its own
    /// requests back and nobody else's.
    async fn permit(&self, index: usize) -> HandlerResult<Option<OwnedSemaphorePermit>> {
        let Some(limit) = &self.limits[index] else {
            return Ok(None);
        };
        let patience = self.patience[index];
        match tokio::time::timeout(patience, Arc::clone(limit).acquire_owned()).await {
            Ok(Ok(permit)) => Ok(Some(permit)),
            Ok(Err(_)) | Err(_) => Err(errors::overloaded(format!(
                "backend {:?} is busy: no request of its {} in flight ended within {patience:?}",
                self.composition.members[index].name,
                self.composition.members[index]
                    .max_concurrent
                    .unwrap_or_default(),
            ))),
        }
    }

    /// The declaration merged from the members': one member's own, or the
    /// gateway's name with the union of their capabilities and each one's
    /// instructions under its name.
    fn merged_declaration(&self) -> Arc<ServerDeclaration> {
        let current: Vec<Arc<ServerDeclaration>> =
            self.members.iter().map(McpServer::declaration).collect();
        if let [only] = current.as_slice() {
            return Arc::clone(only);
        }
        let mut cached = self
            .declaration
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let same = cached.0.len() == current.len()
            && cached
                .0
                .iter()
                .zip(&current)
                .all(|(a, b)| Arc::ptr_eq(a, b));
        if same {
            return Arc::clone(&cached.1);
        }
        let names = self
            .composition
            .members
            .iter()
            .map(|member| member.name.as_str());
        let merged = declaration::merged(&current, names).with_state_of(&cached.1);
        *cached = (current, Arc::new(merged));
        Arc::clone(&cached.1)
    }
}

impl McpServer for Composite {
    fn tool_param_headers(&self, name: &str) -> Option<Vec<ParamHeader>> {
        let (index, bare) = self.route_known(Kind::Tools, name)?;
        self.members[index].tool_param_headers(&bare)
    }

    fn following(&self, filter: &SubscriptionFilter, ctx: &RequestContext) -> Option<Following> {
        let uris = filter.resource_subscriptions.as_deref()?;
        let mut per_member: Vec<Vec<String>> = vec![Vec::new(); self.members.len()];
        for uri in uris
            .iter()
            .filter(|uri| self.visible(ctx, Kind::Resources, uri))
        {
            let owner = self.lock_owners().of(Kind::Resources, uri);
            match owner.or((self.members.len() == 1).then_some(0)) {
                Some(index) => {
                    per_member[index].push(skill_uris::backend(&self.composition, index, uri));
                }
                None => tracing::info!(uri, "not followed: no backend listed it"),
            }
        }
        let followed: Vec<Following> = per_member
            .into_iter()
            .enumerate()
            .filter(|(_, uris)| !uris.is_empty())
            .filter_map(|(index, uris)| {
                let filter = SubscriptionFilter {
                    resource_subscriptions: Some(uris),
                    ..filter.clone()
                };
                self.members[index].following(&filter, ctx)
            })
            .collect();
        (!followed.is_empty()).then(|| Box::new(followed) as Following)
    }

    fn declaration(&self) -> Arc<ServerDeclaration> {
        self.merged_declaration()
    }

    /// The tasks and skills of the backends that declare them.
    fn serves_method(&self, method: &str) -> bool {
        forwarded_extension(&self.merged_declaration(), method)
    }

    async fn handle_method(
        &self,
        method: &str,
        params: Option<Value>,
        ctx: &RequestContext,
    ) -> HandlerResult<Value> {
        let mut params = params.unwrap_or_else(|| Value::Object(Map::new()));
        if TASK_METHODS.contains(&method) {
            let task_id = params.get("taskId").and_then(Value::as_str);
            let task_id = task_id.ok_or_else(|| {
                errors::invalid_params(format!("Invalid params for {method}: no taskId"))
            })?;
            let index = self.task_owner(task_id)?;
            return self.forward_to(index, method, params, ctx).await;
        }
        if method == Kind::Skills.method() {
            let resources = &self.composition.members[0].filters.resources;
            let as_it_is = self.members.len() == 1
                && !self.composition.prefixed(0)
                && self.composition.access.is_empty()
                && resources.include.is_empty()
                && resources.exclude.is_empty();
            if as_it_is {
                // One backend's skills pass as they are, cursors and all.
                return self.forward_to(0, method, params, ctx).await;
            }
            return self.merged(Kind::Skills, params, ctx).await;
        }
        // `skills/get`, `resources/directory/read`: by the skill's URI.
        let uri = params.get("uri").and_then(Value::as_str).ok_or_else(|| {
            errors::invalid_params(format!("Invalid params for {method}: no uri"))
        })?;
        let index = self.route_skill(uri, ctx).await?;
        params["uri"] = Value::String(skill_uris::backend(&self.composition, index, uri));
        let mut result: Value = self.forward_to(index, method, params, ctx).await?;
        skill_uris::to_front(&self.composition, index, &mut result);
        Ok(result)
    }

    async fn dispatch_capability(
        &self,
        request: ClientRequest,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        let method = request.method();
        let mut params = params_of(&request)?;
        match request {
            ClientRequest::ListToolsRequest(_) => ctx.reply(
                self.list::<ListToolsResult>(Kind::Tools, params, ctx)
                    .await?,
            ),
            ClientRequest::ListPromptsRequest(_) => ctx.reply(
                self.list::<ListPromptsResult>(Kind::Prompts, params, ctx)
                    .await?,
            ),
            ClientRequest::ListResourcesRequest(_) => ctx.reply(
                self.list::<ListResourcesResult>(Kind::Resources, params, ctx)
                    .await?,
            ),
            ClientRequest::ListResourceTemplatesRequest(_) => ctx.reply(
                self.list::<ListResourceTemplatesResult>(Kind::Templates, params, ctx)
                    .await?,
            ),
            ClientRequest::CallToolRequest(_) => {
                let name = params["name"].as_str().unwrap_or_default().to_owned();
                let (index, bare) = self.route(Kind::Tools, &name, ctx).await?;
                if let Some(answer) = self.held_elsewhere(index, method, &params, ctx).await {
                    return instances::reply(method, answer?, ctx);
                }
                params["name"] = Value::String(bare);
                let result = self.forward_to::<Value>(index, method, params, ctx).await;
                // A call may change the lists; a backend's `list_changed`
                // on another stream may come after its result.
                self.catalogue.forget(index, &Kind::ALL);
                let result = result?;
                if let Some(task_id) = result
                    .get("resultType")
                    .filter(|kind| *kind == "task")
                    .and(result.get("taskId"))
                    .and_then(Value::as_str)
                {
                    self.tasks
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .learn(task_id, index);
                }
                call_reply(BACKEND, result, ctx)
            }
            ClientRequest::GetPromptRequest(_) => {
                let name = params["name"].as_str().unwrap_or_default().to_owned();
                let (index, bare) = self.route(Kind::Prompts, &name, ctx).await?;
                if let Some(answer) = self.held_elsewhere(index, method, &params, ctx).await {
                    return instances::reply(method, answer?, ctx);
                }
                params["name"] = Value::String(bare);
                ctx.reply(
                    self.forward_to::<GetPromptResultResponseResult>(index, method, params, ctx)
                        .await?,
                )
            }
            ClientRequest::ReadResourceRequest(_) => {
                let uri = params["uri"].as_str().unwrap_or_default().to_owned();
                let index = self.route_uri(&uri, ctx).await?;
                if let Some(answer) = self.held_elsewhere(index, method, &params, ctx).await {
                    return instances::reply(method, answer?, ctx);
                }
                // A prefixed backend's skill files, by its own URIs.
                let bare = skill_uris::backend(&self.composition, index, &uri);
                params["uri"] = Value::String(bare);
                let mut result: Value = self.forward_to(index, method, params, ctx).await?;
                skill_uris::to_front(&self.composition, index, &mut result);
                ctx.reply(checked::<ReadResourceResultResponseResult>(
                    BACKEND, method, result,
                )?)
            }
            ClientRequest::CompleteRequest(_) => {
                let reference = &params["ref"];
                let index = match reference["type"].as_str() {
                    Some("ref/prompt") => {
                        let name = reference["name"].as_str().unwrap_or_default().to_owned();
                        let (index, bare) = self.route(Kind::Prompts, &name, ctx).await?;
                        params["ref"]["name"] = Value::String(bare);
                        index
                    }
                    _ => {
                        let uri = reference["uri"].as_str().unwrap_or_default().to_owned();
                        self.route_uri(&uri, ctx).await?
                    }
                };
                ctx.reply(
                    self.forward_to::<CompleteResult>(index, method, params, ctx)
                        .await?,
                )
            }
            other => Err(errors::method_not_found(format!(
                "{} is not forwarded",
                other.method()
            ))),
        }
    }
}
