//! [`ResourceRouter`]: resources and resource templates known only at run
//! time, added and removed while the server serves.

use std::borrow::Cow;
use std::future::Future;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use mcp_era_types::v2026_07_28::{
    CacheHints, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResultResponseResult, Resource, ResourceTemplate,
    methods,
};

use super::names::Ordered;
use super::page::page;
use super::rendered::RenderedPages;
use super::resources::{IntoReadResult, ReadOutcome, ResourceRequest, check_app};
use super::tools::BoxFuture;
use super::uri_template::UriTemplate;
use super::{RetryInput, StateSeal};
use crate::model::context::RequestContext;
use crate::state::events::ServerEvents;
use crate::state::request_state::arguments_digest;
use crate::wire::errors::{self, HandlerResult};
use crate::wire::reply::Reply;

type DynReadFn =
    Arc<dyn Fn(ResourceRequest, RequestContext) -> BoxFuture<'static, ReadOutcome> + Send + Sync>;

struct Fixed {
    resource: Resource,
    read: DynReadFn,
}

struct Templated {
    template: ResourceTemplate,
    parsed: UriTemplate,
    read: DynReadFn,
}

/// The catalogue of one version, and the pages rendered from it.
#[derive(Default)]
struct Catalogue {
    resources: Ordered<Fixed>,
    templates: Ordered<Templated>,
    pages: RenderedPages,
    template_pages: RenderedPages,
}

impl Catalogue {
    fn list(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourcesResult> {
        let (fixed, next) = page(self.resources.entries(), params.cursor.as_deref())?;
        let resources = fixed.iter().map(|f| f.resource.clone()).collect();
        let mut result = ListResourcesResult::new(resources, ctx.cache_hints());
        result.next_cursor = next;
        Ok(result)
    }

    fn list_templates(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourceTemplatesResult> {
        let (templated, next) = page(self.templates.entries(), params.cursor.as_deref())?;
        let templates = templated.iter().map(|t| t.template.clone()).collect();
        let mut result = ListResourceTemplatesResult::new(templates, ctx.cache_hints());
        result.next_cursor = next;
        Ok(result)
    }

    /// What reads `uri`: its resource, else the first template matching
    /// it, with the template's variables.
    fn reader(&self, uri: &str) -> Option<(ResourceRequestParts, DynReadFn)> {
        if let Some(fixed) = self.resources.get(uri) {
            let parts = ResourceRequestParts {
                variables: Vec::new(),
                mime_type: fixed.resource.mime_type.clone(),
                meta: fixed.resource.meta.clone(),
            };
            return Some((parts, Arc::clone(&fixed.read)));
        }
        self.templates.entries().iter().find_map(|t| {
            let parts = ResourceRequestParts {
                variables: t.parsed.matches(uri)?,
                mime_type: t.template.mime_type.clone(),
                meta: t.template.meta.clone(),
            };
            Some((parts, Arc::clone(&t.read)))
        })
    }
}

/// What a read takes from the catalogue entry that serves it.
struct ResourceRequestParts {
    variables: Vec<(String, String)>,
    mime_type: Option<String>,
    meta: Option<mcp_era_types::v2026_07_28::MetaObject>,
}

/// Resources and resource templates known only at run time (read from a
/// file, a backend's): build and change the catalogue without macros.
/// Cheap to clone; clones share the catalogue. Every change publishes
/// `notifications/resources/list_changed` on the hub given to
/// [`with_events`](Self::with_events) and forgets the rendered list pages;
/// [`updated`](Self::updated) publishes `notifications/resources/updated`.
///
/// `resources/read` is answered by the resource of the URI, else by the
/// first template (in the order added) that matches it, else
/// `resource_not_found`. A handler returns anything a `#[resource]` method
/// may ([`IntoReadResult`]: text, a [`Blob`](super::resources::Blob),
/// contents, a whole result, `None` for "not found"); the contents carry
/// the resource's `mimeType` and `_meta`.
///
/// ```
/// use mcp_era_server::mcp_era_types::v2026_07_28::{Resource, ResourceTemplate};
/// use mcp_era_server::{ResourceRequest, ResourceRouter, ServerEvents};
///
/// let events = ServerEvents::new(); // also give it to `StdioConfig`/`HttpConfig`
/// let resources = ResourceRouter::new().with_events(events.clone());
/// let motd = Resource::builder().name("motd").uri("config://motd").build();
/// resources.add(motd, |_, _| async { "Servers can be data." }).unwrap();
/// let notes = ResourceTemplate::builder().name("note").uri_template("notes://{id}").build();
/// resources
///     .add_template(notes, |request: ResourceRequest, _| async move {
///         format!("note {}", request.variables[0].1)
///     })
///     .unwrap();
/// assert_eq!(resources.uris(), ["config://motd"]);
/// assert!(resources.remove("config://motd"));
/// ```
#[derive(Clone, Default)]
pub struct ResourceRouter {
    catalogue: Arc<RwLock<Catalogue>>,
    events: Option<ServerEvents>,
}

impl std::fmt::Debug for ResourceRouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceRouter")
            .field("resources", &self.uris())
            .field("templates", &self.uri_templates())
            .finish_non_exhaustive()
    }
}

impl ResourceRouter {
    /// An empty router that announces no changes.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same router, announcing changes on `events`.
    pub fn with_events(mut self, events: ServerEvents) -> Self {
        self.events = Some(events);
        self
    }

    fn read(&self) -> RwLockReadGuard<'_, Catalogue> {
        self.catalogue
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Catalogue> {
        self.catalogue
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A changed catalogue: its pages go, its listeners hear of it.
    fn changed(&self, mut catalogue: RwLockWriteGuard<'_, Catalogue>) {
        catalogue.pages.clear();
        catalogue.template_pages.clear();
        drop(catalogue);
        if let Some(events) = &self.events {
            events.resources_list_changed();
        }
    }

    /// Adds `resource` (or replaces the one at its URI), read by
    /// `handler`. An MCP App resource (`ui://`, or the App MIME type) must
    /// meet the extension's rules; one that does not is refused, naming the
    /// problem.
    pub fn add<F, Fut, R>(&self, resource: Resource, handler: F) -> Result<(), String>
    where
        F: Fn(ResourceRequest, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult,
    {
        check_app(&resource)?;
        let read = dyn_read(handler);
        let mut catalogue = self.write();
        catalogue
            .resources
            .insert(resource.uri.clone(), Fixed { resource, read });
        self.changed(catalogue);
        Ok(())
    }

    /// Adds `template` (or replaces the one of the same `uriTemplate`),
    /// read by `handler` for every URI it matches that no resource holds;
    /// the request's `variables` are the template's, percent-decoded. A
    /// template that does not parse (RFC 6570 level 1–3 expressions, the
    /// operators URIs can be matched back against) is refused.
    pub fn add_template<F, Fut, R>(
        &self,
        template: ResourceTemplate,
        handler: F,
    ) -> Result<(), String>
    where
        F: Fn(ResourceRequest, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult,
    {
        let parsed = UriTemplate::parse(&template.uri_template)
            .map_err(|e| format!("resource template `{}`: {e}", template.name))?;
        let read = dyn_read(handler);
        let mut catalogue = self.write();
        let key = template.uri_template.clone();
        catalogue.templates.insert(
            key,
            Templated {
                template,
                parsed,
                read,
            },
        );
        self.changed(catalogue);
        Ok(())
    }

    /// Removes the resource at `uri`; `false` when there was none.
    pub fn remove(&self, uri: &str) -> bool {
        let mut catalogue = self.write();
        let removed = catalogue.resources.remove(uri).is_some();
        if removed {
            self.changed(catalogue);
        }
        removed
    }

    /// Removes the template `uri_template`; `false` when there was none.
    pub fn remove_template(&self, uri_template: &str) -> bool {
        let mut catalogue = self.write();
        let removed = catalogue.templates.remove(uri_template).is_some();
        if removed {
            self.changed(catalogue);
        }
        removed
    }

    /// Publishes `notifications/resources/updated` for `uri` (to the
    /// listeners subscribed to it).
    pub fn updated(&self, uri: &str) {
        if let Some(events) = &self.events {
            events.resource_updated(uri);
        }
    }

    /// The resource URIs, in listing order.
    pub fn uris(&self) -> Vec<String> {
        let catalogue = self.read();
        let entries = catalogue.resources.entries();
        entries.iter().map(|f| f.resource.uri.clone()).collect()
    }

    /// The templates' `uriTemplate`s, in listing order.
    pub fn uri_templates(&self) -> Vec<String> {
        let catalogue = self.read();
        let entries = catalogue.templates.entries();
        entries
            .iter()
            .map(|t| t.template.uri_template.clone())
            .collect()
    }

    /// `resources/list`: the resources (not the templates' instances).
    pub async fn list_resources(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourcesResult> {
        self.read().list(&params, ctx)
    }

    /// [`list_resources`](Self::list_resources)'s page as result bytes,
    /// each page rendered once per catalogue version.
    pub async fn list_resources_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        let catalogue = self.read();
        let cursor = params.cursor.as_deref();
        catalogue
            .pages
            .list_reply(cursor, ctx, || catalogue.list(&params, ctx))
    }

    /// `resources/templates/list`.
    pub async fn list_resource_templates(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourceTemplatesResult> {
        self.read().list_templates(&params, ctx)
    }

    /// [`list_resource_templates`](Self::list_resource_templates)'s page
    /// as result bytes, each page rendered once per catalogue version.
    pub async fn list_resource_templates_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        let catalogue = self.read();
        let cursor = params.cursor.as_deref();
        (catalogue.template_pages)
            .list_reply(cursor, ctx, || catalogue.list_templates(&params, ctx))
    }

    /// `resources/read`: an unknown URI is `resource_not_found` (`-32602`
    /// with `data.uri`; `-32002` for a legacy session).
    pub async fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        ctx: &RequestContext,
    ) -> ReadOutcome {
        let uri = params.uri;
        let (parts, read) = self
            .read()
            .reader(&uri)
            .ok_or_else(|| errors::resource_not_found(uri.clone()))?;
        let seal = StateSeal::new(
            ctx,
            methods::RESOURCES_READ,
            || Cow::Owned(uri.clone()),
            || arguments_digest(None),
        );
        let retry = RetryInput::new(params.input_responses, seal.open(params.request_state)?);
        let request = ResourceRequest {
            uri,
            variables: parts.variables,
            mime_type: parts.mime_type.map(Cow::Owned),
            meta: parts.meta,
            cache_hints: CacheHints::new(ctx.cache_ttl_ms(), ctx.cache_scope()),
            retry,
        };
        let mut outcome = read(request, ctx.clone()).await?;
        if let ReadResourceResultResponseResult::InputRequiredResult(result) = &mut outcome {
            seal.seal(result)?;
        }
        Ok(outcome)
    }
}

/// `handler` as a stored read: its answer made a result for the request.
fn dyn_read<F, Fut, R>(handler: F) -> DynReadFn
where
    F: Fn(ResourceRequest, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoReadResult,
{
    Arc::new(move |request: ResourceRequest, ctx: RequestContext| {
        let answer = handler(request.clone(), ctx.clone());
        Box::pin(async move { answer.await.into_read_result(&request, &ctx) })
    })
}
