//! Several backends behind one front: a [`Composite`] of [`Gateway`]s, one
//! per backend, each in its own era. Tool and prompt names get the
//! backend's name in front as its [`PrefixMode`] says; resource URIs are
//! kept (an App's `ui://` resources and the URIs a server hands out stay
//! valid), and a URI two backends list is the first one's in file order.
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

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::future::join_all;
use mcp_era_server::mcp_era_types::ext::skills::EXTENSION_ID as SKILLS_EXTENSION;
use mcp_era_server::mcp_era_types::v2026_07_28::{
    ClientRequest, CompleteResult, GetPromptResultResponseResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    ReadResourceResultResponseResult, RequestId, RequestMetaObject, SubscriptionFilter,
};
use mcp_era_server::tasks::TASK_METHODS;
use mcp_era_server::{
    Following, HandlerResult, McpServer, ParamHeader, Reply, RequestContext, ServerDeclaration,
    ServerEvent, ServerEvents, errors,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

pub use access::Selector;
pub use config::{Access, Composition, DEFAULT_PAGE_SIZE, DEFAULT_SEPARATOR, Member, PrefixMode};
pub use filter::{Filter, Filters};

use catalogue::{Catalogue, Listing};
use kind::Kind;

use crate::backend::BackendOptions;
use crate::front::{Gateway, call_reply, forwarded_extension, params_of};
use crate::instances;

/// Where a skill's files are.
const SKILL_SCHEME: &str = "skill://";

/// MCP Apps: a host declares the HTML profile it renders.
const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// Pages read from one backend for one merged list, at most: a backend
/// whose cursors never end is cut off there.
const MOST_PAGES: usize = 1000;

/// Which backend each front name (or URI, or template) is served by, as
/// the last listing found it: the first backend that listed it keeps it.
#[derive(Default)]
struct Owners {
    by_kind: HashMap<&'static str, HashMap<String, usize>>,
    /// The keys two backends served, logged once each.
    reported: HashSet<(&'static str, String)>,
}

impl Owners {
    fn of(&self, kind: Kind, key: &str) -> Option<usize> {
        self.by_kind.get(kind.method())?.get(key).copied()
    }
}

/// How many task ids a composite remembers the backend of; the oldest
/// are forgotten first (a task outliving that many newer ones is unknown).
const MOST_TASKS: usize = 100_000;

/// The member each task id came from, oldest first.
#[derive(Default)]
struct TaskOwners {
    owners: HashMap<String, usize>,
    order: std::collections::VecDeque<String>,
}

impl TaskOwners {
    fn learn(&mut self, task_id: &str, index: usize) {
        if self.owners.insert(task_id.to_owned(), index).is_none() {
            self.order.push_back(task_id.to_owned());
        }
        while self.order.len() > MOST_TASKS {
            if let Some(oldest) = self.order.pop_front() {
                self.owners.remove(&oldest);
            }
        }
    }
}

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

    /// Member `index`'s list `kind` as `ctx`'s client would get it: kept,
    /// or read (and kept when the member announces its changes).
    async fn listing(
        &self,
        index: usize,
        kind: Kind,
        params: Value,
        ctx: &RequestContext,
    ) -> HandlerResult<Arc<Listing>> {
        if !self.announces_changes(index, kind) {
            return Ok(Arc::new(self.all_pages(index, kind, params, ctx).await?));
        }
        // Its backend session, and what a modern backend is told, follow
        // the principal and the client's declared capabilities.
        let audience = format!(
            "{:?} {}",
            access::principal_of(ctx),
            serde_json::to_string(ctx.client_capabilities()).unwrap_or_default()
        );
        let generation = match self.catalogue.get(index, kind, &audience) {
            Ok(kept) => return Ok(kept),
            Err(generation) => generation,
        };
        let listing = Arc::new(self.all_pages(index, kind, params, ctx).await?);
        self.catalogue
            .keep(index, kind, audience, generation, Arc::clone(&listing));
        Ok(listing)
    }

    /// Whether member `index` declares that it announces changes of its
    /// list `kind`.
    fn announces_changes(&self, index: usize, kind: Kind) -> bool {
        let declaration = self.members[index].declaration();
        let capabilities = declaration.capabilities();
        let announced = match kind {
            Kind::Tools => capabilities.tools.as_ref().and_then(|c| c.list_changed),
            Kind::Prompts => capabilities.prompts.as_ref().and_then(|c| c.list_changed),
            Kind::Resources | Kind::Templates => {
                capabilities.resources.as_ref().and_then(|c| c.list_changed)
            }
            // Skill changes are announced as resource list changes, which
            // do not say whose: read afresh.
            Kind::Skills => None,
        };
        announced == Some(true)
    }

    /// Every item of member `index`'s list `kind`, page after page, asked
    /// with `params` (the client's, without its cursor), and the first
    /// page's result (its cache hints).
    async fn all_pages(
        &self,
        index: usize,
        kind: Kind,
        mut params: Value,
        ctx: &RequestContext,
    ) -> HandlerResult<Listing> {
        let member = &self.members[index];
        let mut items = Vec::new();
        let mut first = None;
        for page_number in 1..=MOST_PAGES {
            let permit = self.permit(index).await?;
            let mut page: Value = member.forward(kind.method(), params.clone(), ctx).await?;
            drop(permit);
            if let Some(Value::Array(more)) = page.get_mut(kind.items()).map(Value::take) {
                items.extend(more);
            }
            let next = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            first.get_or_insert(page);
            match next {
                Some(_) if page_number == MOST_PAGES => {
                    tracing::warn!(backend = %self.composition.members[index].name, "{} gave more than {MOST_PAGES} pages", kind.method());
                }
                Some(cursor) => params["cursor"] = Value::String(cursor),
                None => break,
            }
        }
        Ok(Listing {
            items,
            first: first.unwrap_or_default(),
        })
    }

    /// One page of the merged list `kind`: every member's items under
    /// their front names, sorted, after the client's cursor.
    async fn merged(
        &self,
        kind: Kind,
        mut params: Value,
        ctx: &RequestContext,
    ) -> HandlerResult<Value> {
        let after = match params.as_object_mut().and_then(|p| p.remove("cursor")) {
            None | Some(Value::Null) => None,
            Some(Value::String(cursor)) => Some(
                cursor
                    .strip_prefix("gw:")
                    .map(str::to_owned)
                    .ok_or_else(|| errors::invalid_params(format!("invalid cursor {cursor:?}")))?,
            ),
            Some(other) => return Err(errors::invalid_params(format!("invalid cursor {other}"))),
        };
        let mut listed: Vec<(String, usize, Value)> = Vec::new();
        let mut shape: Option<Value> = None;
        let mut ttl: Option<u64> = None;
        let mut failed = Vec::new();
        // Every backend at once: a list costs the slowest backend's, not
        // the sum.
        let asked: Vec<usize> = (0..self.members.len())
            .filter(|&index| self.members.len() == 1 || self.declares(index, kind))
            .collect();
        let listings = join_all(
            asked
                .iter()
                .map(|&index| self.listing(index, kind, params.clone(), ctx)),
        )
        .await;
        for (index, listing) in asked.into_iter().zip(listings) {
            let listing = match listing {
                Ok(listing) => listing,
                // One backend alone answers as it would directly.
                Err(e) if self.members.len() == 1 => return Err(e),
                Err(e) => {
                    tracing::warn!(backend = %self.composition.members[index].name, "{} left out: {}", kind.method(), e.message);
                    failed.push(index);
                    continue;
                }
            };
            let first = &listing.first;
            if let Some(member_ttl) = first.get("ttlMs").and_then(Value::as_u64) {
                ttl = Some(ttl.map_or(member_ttl, |t| t.min(member_ttl)));
            }
            shape.get_or_insert_with(|| first.clone());
            for item in &listing.items {
                let Some(key) = item.get(kind.key()).and_then(Value::as_str) else {
                    continue;
                };
                if !self.composition.members[index].filters.allows(kind, key) {
                    continue;
                }
                let mut item = item.clone();
                let key = if kind.prefixed() {
                    let front = self.composition.front_name(index, key);
                    item[kind.key()] = Value::String(front.clone());
                    front
                } else {
                    key.to_owned()
                };
                listed.push((key, index, item));
            }
        }
        let listed = self.claim(kind, listed, &failed);
        let mut rest = listed
            .into_iter()
            .filter(|(key, _)| self.visible(ctx, kind, key))
            .filter(|(key, _)| after.as_deref().is_none_or(|after| key.as_str() > after))
            .peekable();
        let size = self.composition.page_size;
        let mut page: Vec<Value> = Vec::with_capacity(size.min(1024));
        let mut last = None;
        while page.len() < size {
            let Some((key, item)) = rest.next() else {
                break;
            };
            page.push(item);
            last = Some(key);
        }
        let next = rest.peek().and(last).map(|last| format!("gw:{last}"));
        let mut result = match shape {
            Some(Value::Object(first)) => first,
            _ => Map::new(),
        };
        result.remove("nextCursor");
        if self.members.len() > 1 {
            result.remove("_meta"); // one backend's, not the merge's
        }
        result.insert(kind.items().into(), Value::Array(page));
        if let Some(cursor) = next {
            result.insert("nextCursor".into(), Value::String(cursor));
        }
        if let Some(ttl) = ttl {
            result.insert("ttlMs".into(), ttl.into());
        }
        Ok(Value::Object(result))
    }

    /// The listed items each front key's owner serves, sorted by key: the
    /// backend that had the key keeps it while it lists it (or could not
    /// be asked); otherwise the first in file order that lists it takes
    /// it. A key two backends list is logged.
    fn claim(
        &self,
        kind: Kind,
        listed: Vec<(String, usize, Value)>,
        failed: &[usize],
    ) -> Vec<(String, Value)> {
        let mut owners = self.lock_owners();
        let Owners { by_kind, reported } = &mut *owners;
        let known = by_kind.entry(kind.method()).or_default();
        let mut by_key: HashMap<String, Vec<(usize, Value)>> = HashMap::new();
        for (key, index, item) in listed {
            by_key.entry(key).or_default().push((index, item));
        }
        // A key this listing lacks stays its owner's: another audience may
        // see it (an App's app-only tool), and if it is gone the owner
        // answers for it. It goes to another backend only when that one
        // lists it and the owner, asked, does not.
        let mut kept: Vec<(String, Value)> = Vec::with_capacity(by_key.len());
        for (key, mut claimants) in by_key {
            let owner = match known.get(&key) {
                Some(&owner)
                    if claimants.iter().any(|(index, _)| *index == owner)
                        || failed.contains(&owner) =>
                {
                    owner
                }
                _ => claimants
                    .iter()
                    .map(|(index, _)| *index)
                    .min()
                    .unwrap_or_default(),
            };
            if claimants.len() > 1 && reported.insert((kind.method(), key.clone())) {
                let names: Vec<&str> = claimants
                    .iter()
                    .map(|(index, _)| self.composition.members[*index].name.as_str())
                    .collect();
                tracing::warn!(
                    key,
                    backends = ?names,
                    owner = %self.composition.members[owner].name,
                    "a {} key served by two backends: the first owner keeps it",
                    kind.items()
                );
            }
            known.insert(key.clone(), owner);
            if let Some(position) = claimants.iter().position(|(index, _)| *index == owner) {
                kept.push((key, claimants.swap_remove(position).1));
            }
        }
        kept.sort_by(|a, b| a.0.cmp(&b.0));
        kept
    }

    /// The member serving front name `name` of `kind`, and the name it
    /// knows: by its prefix, else by the last listing (listed again once
    /// when unknown), else the one backend if there is one.
    async fn find(
        &self,
        kind: Kind,
        name: &str,
        ctx: &RequestContext,
    ) -> HandlerResult<(usize, String)> {
        if let Some(found) = self.route_known(kind, name) {
            return Ok(found);
        }
        let _ = self.merged(kind, json!({}), ctx).await;
        if let Some(found) = self.route_known(kind, name) {
            return Ok(found);
        }
        if self.members.len() == 1 {
            return Ok((0, name.to_owned()));
        }
        Err(unknown(kind, name))
    }

    /// [`find`](Self::find), for an item `ctx`'s principal may see (a
    /// hidden one is as unknown as one no backend has).
    async fn route(
        &self,
        kind: Kind,
        name: &str,
        ctx: &RequestContext,
    ) -> HandlerResult<(usize, String)> {
        let (index, bare) = self.find(kind, name, ctx).await?;
        if self.shown(index, kind, &bare, name, ctx) {
            Ok((index, bare))
        } else {
            Err(unknown(kind, name))
        }
    }

    /// [`find_uri`](Self::find_uri), for a resource `ctx`'s principal may
    /// see.
    async fn route_uri(&self, uri: &str, ctx: &RequestContext) -> HandlerResult<usize> {
        let index = self.find_uri(uri, ctx).await?;
        if self.shown(index, Kind::Resources, uri, uri, ctx) {
            Ok(index)
        } else {
            Err(unknown(Kind::Resources, uri))
        }
    }

    /// Whether member `index`'s item (`bare` there, `front` at the front)
    /// is shown to `ctx`'s principal.
    fn shown(
        &self,
        index: usize,
        kind: Kind,
        bare: &str,
        front: &str,
        ctx: &RequestContext,
    ) -> bool {
        self.composition.members[index].filters.allows(kind, bare) && self.visible(ctx, kind, front)
    }

    /// Whether the access rules that apply to `ctx` (by its principal, or
    /// its token's scopes) show `front`: every one of them must.
    fn visible(&self, ctx: &RequestContext, kind: Kind, front: &str) -> bool {
        let (principal, scopes) = (access::principal_of(ctx), access::scopes_of(ctx));
        self.composition
            .access
            .iter()
            .filter(|rule| rule.selector.applies(principal, scopes))
            .all(|rule| rule.filters.allows(kind, front))
    }

    fn route_known(&self, kind: Kind, name: &str) -> Option<(usize, String)> {
        let separator = &self.composition.separator;
        for (index, member) in self.composition.members.iter().enumerate() {
            if kind.prefixed()
                && self.composition.prefixed(index)
                && let Some(bare) = name
                    .strip_prefix(member.name.as_str())
                    .and_then(|rest| rest.strip_prefix(separator.as_str()))
            {
                return Some((index, bare.to_owned()));
            }
        }
        let owner = self.lock_owners().of(kind, name)?;
        (!kind.prefixed() || !self.composition.prefixed(owner)).then(|| (owner, name.to_owned()))
    }

    /// The member serving resource `uri`: the one that listed it, else the
    /// one whose template's fixed start it has (the longest), else as
    /// [`route`](Self::route).
    async fn find_uri(&self, uri: &str, ctx: &RequestContext) -> HandlerResult<usize> {
        for attempt in 0..2 {
            if let Some(owner) = self.lock_owners().of(Kind::Resources, uri) {
                return Ok(owner);
            }
            if let Some(owner) = self.skill_owner(uri) {
                return Ok(owner);
            }
            let by_template = {
                let owners = self.lock_owners();
                owners
                    .by_kind
                    .get(Kind::Templates.method())
                    .into_iter()
                    .flatten()
                    .filter_map(|(template, &owner)| {
                        let fixed = template.split('{').next().unwrap_or_default();
                        (!fixed.is_empty() && uri.starts_with(fixed))
                            .then_some((fixed.len(), owner))
                    })
                    .max()
                    .map(|(_, owner)| owner)
            };
            if let Some(owner) = by_template {
                return Ok(owner);
            }
            if self.members.len() == 1 {
                return Ok(0);
            }
            if attempt == 0 {
                let _ = self.merged(Kind::Resources, json!({}), ctx).await;
                let _ = self.merged(Kind::Templates, json!({}), ctx).await;
                if uri.starts_with(SKILL_SCHEME) {
                    let _ = self.merged(Kind::Skills, json!({}), ctx).await;
                }
            }
        }
        Err(errors::resource_not_found(uri))
    }

    /// The member serving the skill `uri` is in (a file under the skill
    /// whose `SKILL.md` URI shares the longest start with it), as the last
    /// `skills/list` found them.
    fn skill_owner(&self, uri: &str) -> Option<usize> {
        if !uri.starts_with(SKILL_SCHEME) {
            return None;
        }
        let owners = self.lock_owners();
        owners
            .by_kind
            .get(Kind::Skills.method())?
            .iter()
            .filter_map(|(skill, &owner)| {
                let root = skill.strip_suffix("SKILL.md")?;
                (uri.starts_with(root) || uri == root.trim_end_matches('/'))
                    .then_some((root.len(), owner))
            })
            .max()
            .map(|(_, owner)| owner)
    }

    /// The member a request of the skills extension about `uri` goes to.
    async fn route_skill(&self, uri: &str, ctx: &RequestContext) -> HandlerResult<usize> {
        let index = match self.skill_owner(uri) {
            Some(index) => index,
            None => {
                let _ = self.merged(Kind::Skills, json!({}), ctx).await;
                match self.skill_owner(uri) {
                    Some(index) => index,
                    None if self.members.len() == 1 => 0,
                    None => return Err(unknown(Kind::Skills, uri)),
                }
            }
        };
        if self.shown(index, Kind::Skills, uri, uri, ctx) {
            Ok(index)
        } else {
            Err(unknown(Kind::Skills, uri))
        }
    }

    /// The member that made task `task_id` (its `tools/call` answered a
    /// task), or the one member.
    fn task_owner(&self, task_id: &str) -> HandlerResult<usize> {
        let tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        match tasks.owners.get(task_id) {
            Some(&index) => Ok(index),
            None if self.members.len() == 1 => Ok(0),
            // As the runtime answers an unknown task.
            None => Err(errors::invalid_params(
                "Failed to retrieve task: Task not found",
            )),
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

    /// The merged list `kind`, checked as `T`.
    async fn list<T: DeserializeOwned>(
        &self,
        kind: Kind,
        params: Value,
        ctx: &RequestContext,
    ) -> HandlerResult<T> {
        let merged = self.merged(kind, params, ctx).await?;
        serde_json::from_value(merged).map_err(|e| {
            errors::internal_error(format!("the merged {} is not valid: {e}", kind.method()))
        })
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

/// The error for an item no backend serves to the caller.
fn unknown(kind: Kind, name: &str) -> mcp_era_server::mcp_era_types::v2026_07_28::Error {
    match kind {
        Kind::Tools => errors::invalid_params(format!("Unknown tool: {name}")),
        Kind::Prompts => errors::invalid_params(format!("Unknown prompt: {name}")),
        Kind::Resources | Kind::Templates => errors::resource_not_found(name),
        Kind::Skills => errors::invalid_params(format!("Unknown skill: {name}")),
    }
}

/// Hands a member's events on to the composite's hub (list changes and
/// resource updates: URIs are kept, so they need no rewriting), first
/// dropping the lists of the member that may have changed.
struct Relay {
    index: usize,
    to: ServerEvents,
    catalogue: Arc<Catalogue>,
    /// Whether the composite has other members, whose clients learn of a
    /// lost member's items going (one member alone, as directly, fails).
    several: bool,
}

impl Relay {
    async fn run(self, from: ServerEvents, mut losses: watch::Receiver<u64>) {
        let mut events = from.subscribe();
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(event) => self.pass(event),
                    Err(RecvError::Lagged(_)) => self.all_changed(),
                    Err(RecvError::Closed) => return,
                },
                lost = losses.changed() => {
                    if lost.is_err() {
                        return;
                    }
                    self.catalogue.forget(self.index, &Kind::ALL);
                    if self.several {
                        self.all_changed();
                    }
                }
            }
        }
    }

    fn pass(&self, event: ServerEvent) {
        let kinds: &[Kind] = match &event {
            ServerEvent::ToolsListChanged => &[Kind::Tools],
            ServerEvent::PromptsListChanged => &[Kind::Prompts],
            ServerEvent::ResourcesListChanged => &[Kind::Resources, Kind::Templates],
            ServerEvent::ResourceUpdated(_) => &[],
            _ => return,
        };
        if !kinds.is_empty() {
            self.catalogue.forget(self.index, kinds);
        }
        self.to.publish(event);
    }

    fn all_changed(&self) {
        self.catalogue.forget(self.index, &Kind::ALL);
        self.to.tools_list_changed();
        self.to.prompts_list_changed();
        self.to.resources_list_changed();
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
                Some(index) => per_member[index].push(uri.clone()),
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
        let params = params.unwrap_or_else(|| Value::Object(Map::new()));
        let index = if TASK_METHODS.contains(&method) {
            let task_id = params
                .get("taskId")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    errors::invalid_params(format!("Invalid params for {method}: no taskId"))
                })?;
            self.task_owner(task_id)?
        } else if method == Kind::Skills.method() {
            let resources = &self.composition.members[0].filters.resources;
            let unfiltered = self.composition.access.is_empty()
                && resources.include.is_empty()
                && resources.exclude.is_empty();
            if self.members.len() == 1 && unfiltered {
                0 // one backend's skills pass as they are, cursors and all
            } else {
                return self.merged(Kind::Skills, params, ctx).await;
            }
        } else {
            let uri = params.get("uri").and_then(Value::as_str).ok_or_else(|| {
                errors::invalid_params(format!("Invalid params for {method}: no uri"))
            })?;
            self.route_skill(uri, ctx).await?
        };
        self.forward_to::<Value>(index, method, params, ctx).await
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
                call_reply(result, ctx)
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
                ctx.reply(
                    self.forward_to::<ReadResourceResultResponseResult>(index, method, params, ctx)
                        .await?,
                )
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
