//! Resources: the static table behind `#[resource]` methods (fixed URIs
//! and URI templates, with the live instances of listed templates) and the
//! results made from their return types.

use std::borrow::Cow;
use std::fmt::Display;
use std::str::FromStr;

use mcp_era_types::ext::apps;
use mcp_era_types::v2026_07_28::{
    Annotations, BlobResourceContents, CacheHints, CacheScope, InputRequiredResult,
    ListResourceTemplatesResult, ListResourcesResult, MetaObject, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResult, ReadResourceResultContentsItem,
    ReadResourceResultResponseResult, Resource, ResourceTemplate, TextResourceContents, methods,
};

use super::names::NameMap;
use super::page::{Resume, live_page, page};
use super::rendered::{PageKey, RenderedPages};
use super::tools::BoxFuture;
use super::uri_template::UriTemplate;
use super::{RetryInput, StateSeal};
use crate::model::context::RequestContext;
use crate::state::request_state::arguments_digest;
use crate::wire::errors::{self, ErrorObject, HandlerResult};
use crate::wire::reply::{self, Reply};

/// What `resources/read` answers.
pub type ReadOutcome = HandlerResult<ReadResourceResultResponseResult>;

/// The resource a `#[resource]` method is asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceRequest {
    /// The requested URI.
    pub uri: String,
    /// The template variables (empty for a fixed URI), percent-decoded.
    pub variables: Vec<(String, String)>,
    /// The `mimeType` the method (or the run-time resource) declared.
    pub mime_type: Option<Cow<'static, str>>,
    /// The contents' `_meta` the method (or the run-time resource)
    /// declared (an MCP App's `_meta.ui`).
    pub meta: Option<MetaObject>,
    /// The result's cache hints: the method's `cache(...)`, each value the
    /// server default (`#[mcp(cache(...))]`) where it says none.
    pub cache_hints: CacheHints,
    /// The answers and state of a retried read.
    pub retry: RetryInput,
}

impl ResourceRequest {
    /// Template variable `name` parsed as a `T`. A value that does not
    /// parse names no resource: `resource_not_found`.
    pub fn variable<T: FromStr>(&self, name: &str) -> HandlerResult<T> {
        self.variables
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, value)| value.parse().ok())
            .ok_or_else(|| errors::resource_not_found(self.uri.clone()))
    }
}

/// Binary resource contents; sent as Base64.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Blob(pub Vec<u8>);

/// A value a resource method may return. `None` (of an `Option`) is
/// `resource_not_found`; an `Err` is a JSON-RPC error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a resource",
    note = "return `String` or `&'static str` (text), `Blob` (bytes), `TextResourceContents`, `BlobResourceContents`, `Vec<ReadResourceResultContentsItem>`, `ReadResourceResult`, or an `Option`/`HandlerResult` of one of these"
)]
pub trait IntoReadResult {
    /// The `resources/read` answer for `request`.
    fn into_read_result(self, request: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome;
}

fn contents(items: Vec<ReadResourceResultContentsItem>, request: &ResourceRequest) -> ReadOutcome {
    Ok(ReadResourceResult::new(items, request.cache_hints).into())
}

impl IntoReadResult for String {
    fn into_read_result(self, request: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome {
        let mut text = TextResourceContents::from_uri_and_text(request.uri.clone(), self);
        text.mime_type = request.mime_type.as_deref().map(str::to_owned);
        text.meta = request.meta.clone();
        text.into_read_result(request, ctx)
    }
}

impl IntoReadResult for &'static str {
    fn into_read_result(self, request: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome {
        self.to_owned().into_read_result(request, ctx)
    }
}

impl IntoReadResult for Blob {
    fn into_read_result(self, request: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome {
        let mut blob = BlobResourceContents::from_uri_and_blob(
            request.uri.clone(),
            mcp_era_types::headers::base64_encode(&self.0),
        );
        blob.mime_type = request.mime_type.as_deref().map(str::to_owned);
        blob.meta = request.meta.clone();
        blob.into_read_result(request, ctx)
    }
}

impl IntoReadResult for TextResourceContents {
    fn into_read_result(self, request: &ResourceRequest, _: &RequestContext) -> ReadOutcome {
        contents(
            vec![ReadResourceResultContentsItem::TextResourceContents(self)],
            request,
        )
    }
}

impl IntoReadResult for BlobResourceContents {
    fn into_read_result(self, request: &ResourceRequest, _: &RequestContext) -> ReadOutcome {
        contents(
            vec![ReadResourceResultContentsItem::BlobResourceContents(self)],
            request,
        )
    }
}

impl IntoReadResult for Vec<ReadResourceResultContentsItem> {
    fn into_read_result(self, request: &ResourceRequest, _: &RequestContext) -> ReadOutcome {
        contents(self, request)
    }
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(self, _: &ResourceRequest, _: &RequestContext) -> ReadOutcome {
        Ok(self.into())
    }
}

impl IntoReadResult for InputRequiredResult {
    fn into_read_result(self, _: &ResourceRequest, _: &RequestContext) -> ReadOutcome {
        Ok(self.into())
    }
}

impl IntoReadResult for ReadResourceResultResponseResult {
    fn into_read_result(self, _: &ResourceRequest, _: &RequestContext) -> ReadOutcome {
        Ok(self)
    }
}

impl<T: IntoReadResult> IntoReadResult for Option<T> {
    fn into_read_result(self, request: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome {
        match self {
            Some(value) => value.into_read_result(request, ctx),
            None => Err(errors::resource_not_found(request.uri.clone())),
        }
    }
}

impl<T: IntoReadResult> IntoReadResult for Result<T, ErrorObject> {
    fn into_read_result(self, request: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome {
        self.and_then(|value| value.into_read_result(request, ctx))
    }
}

/// One live instance of a listed template (`#[resource(template = ...,
/// list = method)]`): its template variables `V` (one value, or a tuple in
/// the template's order) and what it says besides the template's
/// declaration. `V` alone converts into one with the declared defaults.
///
/// ```
/// use mcp_era_server::ListedResource;
///
/// let note = ListedResource::new(42_u32).name("groceries").size(120);
/// let plain: ListedResource<u32> = 7.into(); // the template's name, title, ...
/// # let _ = (note, plain);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ListedResource<V> {
    variables: V,
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    mime_type: Option<String>,
    size: Option<u64>,
    annotations: Option<Annotations>,
}

impl<V> ListedResource<V> {
    /// The instance whose template variables are `variables`.
    pub fn new(variables: V) -> Self {
        Self {
            variables,
            name: None,
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
        }
    }

    /// Its `name` (default: the template's).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Its `title` (default: the template's).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Its `description` (default: the template's).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Its `mimeType` (default: the template's).
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Its `size` in bytes (default: absent).
    pub fn size(mut self, bytes: u64) -> Self {
        self.size = Some(bytes);
        self
    }

    /// Its `annotations` (default: absent).
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// The template variables.
    pub fn variables(&self) -> &V {
        &self.variables
    }

    /// The same instance with its variables turned into `W`.
    pub fn map_variables<W>(self, f: impl FnOnce(V) -> W) -> ListedResource<W> {
        ListedResource {
            variables: f(self.variables),
            name: self.name,
            title: self.title,
            description: self.description,
            mime_type: self.mime_type,
            size: self.size,
            annotations: self.annotations,
        }
    }

    /// The `resources/list` entry at `uri`, the rest from `template`.
    fn describe(self, uri: String, template: &ResourceTemplate) -> Resource {
        let mut resource = Resource::builder()
            .name(self.name.unwrap_or_else(|| template.name.clone()))
            .uri(uri)
            .build();
        resource.title = self.title.or_else(|| template.title.clone());
        resource.description = self.description.or_else(|| template.description.clone());
        resource.mime_type = self.mime_type.or_else(|| template.mime_type.clone());
        resource.icons.clone_from(&template.icons);
        resource.annotations = self.annotations.or_else(|| template.annotations.clone());
        resource.size = self
            .size
            .map(|bytes| i64::try_from(bytes).unwrap_or(i64::MAX));
        resource
    }
}

impl<V> From<V> for ListedResource<V> {
    fn from(variables: V) -> Self {
        Self::new(variables)
    }
}

/// What a template's `list` method may return: `Vec<V>` or
/// `Vec<ListedResource<V>>`, or a `HandlerResult` of one (an `Err` answers
/// `resources/list` with that JSON-RPC error).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a resource `list` method of a template whose variables are `{V}`",
    note = "return `Vec<{V}>` or `Vec<mcp_era_server::ListedResource<{V}>>` (one value per template variable, a tuple in the template's order when there are several), or a `HandlerResult` of one"
)]
pub trait IntoListing<V> {
    /// The listed instances.
    fn into_listing(self) -> HandlerResult<Vec<ListedResource<V>>>;
}

impl<V, T: IntoListed<V>> IntoListing<V> for Vec<T> {
    fn into_listing(self) -> HandlerResult<Vec<ListedResource<V>>> {
        Ok(self.into_iter().map(IntoListed::into_listed).collect())
    }
}

/// One item of a `list` method's `Vec`: the template variables `V`, or a
/// [`ListedResource<V>`].
#[diagnostic::on_unimplemented(
    message = "a `list` method of a template whose variables are `{V}` cannot list `{Self}`",
    note = "list `{V}` (one value per template variable, a tuple in the template's order when there are several, typed as the resource method's parameters) or `mcp_era_server::ListedResource<{V}>`"
)]
pub trait IntoListed<V> {
    /// The listed instance.
    fn into_listed(self) -> ListedResource<V>;
}

impl<V> IntoListed<V> for V {
    fn into_listed(self) -> ListedResource<V> {
        ListedResource::new(self)
    }
}

impl<V> IntoListed<V> for ListedResource<V> {
    fn into_listed(self) -> ListedResource<V> {
        self
    }
}

impl<V, T: IntoListing<V>> IntoListing<V> for Result<T, ErrorObject> {
    fn into_listing(self) -> HandlerResult<Vec<ListedResource<V>>> {
        self.and_then(IntoListing::into_listing)
    }
}

/// A type a listed template variable may have: its `Display` text is the
/// value expanded into the URI (and read back with `FromStr`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a listed URI template variable: it does not implement `Display`",
    note = "a listed instance's variables are written into its URI with `Display` and read back with `FromStr`"
)]
pub trait TemplateValue: Display {}
impl<T: Display + ?Sized> TemplateValue for T {}

/// The text of one listed template variable.
pub fn variable_text<T: TemplateValue>(value: &T) -> String {
    value.to_string()
}

/// The handler of a `#[resource]` method.
pub type ResourceFn<S> =
    for<'a> fn(&'a S, ResourceRequest, &'a RequestContext) -> BoxFuture<'a, ReadOutcome>;

/// The `list` method of a template, its variables as text in template order.
pub type ListFn<S> = for<'a> fn(
    &'a S,
    &'a RequestContext,
) -> BoxFuture<'a, HandlerResult<Vec<ListedResource<Vec<String>>>>>;

/// What a `#[resource]` method describes.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceDescription {
    /// A resource at a fixed URI.
    Fixed(Resource),
    /// A family of resources named by a URI template.
    Template(ResourceTemplate),
}

/// One `#[resource]` method as the router macro writes it down.
pub struct ResourceSpec<S> {
    /// The method, for messages.
    pub method: &'static str,
    /// The declared `mimeType`.
    pub mime_type: Option<&'static str>,
    /// The declared `_meta` (JSON text of an object), on the listed
    /// resource and on the contents of a `String` or `Blob` read.
    pub meta: Option<&'static str>,
    /// `cache(ttl_ms = ...)` of its reads.
    pub ttl_ms: Option<u64>,
    /// `cache(scope = ...)` of its reads.
    pub cache_scope: Option<CacheScope>,
    /// Builds the description; run once.
    pub describe: fn() -> ResourceDescription,
    /// The handler.
    pub read: ResourceFn<S>,
    /// A template's live instances (`list = method`).
    pub list: Option<ListFn<S>>,
}

/// How one method's reads are answered.
struct Reader<S: 'static> {
    mime_type: Option<&'static str>,
    meta: Option<MetaObject>,
    ttl_ms: Option<u64>,
    cache_scope: Option<CacheScope>,
    read: ResourceFn<S>,
}

impl<S> Reader<S> {
    fn request(
        &self,
        uri: String,
        variables: Vec<(String, String)>,
        retry: RetryInput,
        ctx: &RequestContext,
    ) -> ResourceRequest {
        ResourceRequest {
            uri,
            variables,
            mime_type: self.mime_type.map(Cow::Borrowed),
            meta: self.meta.clone(),
            cache_hints: CacheHints::new(
                self.ttl_ms.unwrap_or_else(|| ctx.cache_ttl_ms()),
                self.cache_scope.unwrap_or_else(|| ctx.cache_scope()),
            ),
            retry,
        }
    }
}

struct Fixed<S: 'static> {
    resource: Resource,
    reader: Reader<S>,
}

struct Templated<S: 'static> {
    template: ResourceTemplate,
    parsed: UriTemplate,
    reader: Reader<S>,
    list: Option<ListFn<S>>,
    method: &'static str,
}

/// An MCP App (a `ui://` URI or the App MIME type) as the extension wants
/// it: both together, and a `_meta.ui` whose CSP lists only origins.
pub(crate) fn check_app(resource: &Resource) -> Result<(), String> {
    let is_app = resource.uri.starts_with(apps::URI_PREFIX)
        || resource.mime_type.as_deref() == Some(apps::MIME_TYPE);
    if !is_app {
        return Ok(());
    }
    apps::check_ui_uri(&resource.uri)?;
    if resource.mime_type.as_deref() != Some(apps::MIME_TYPE) {
        return Err(format!(
            "UI resource `{}` must have mimeType `{}`",
            resource.uri,
            apps::MIME_TYPE
        ));
    }
    let ui = match &resource.meta {
        Some(meta) => apps::McpUiResourceMeta::from_meta(meta)
            .map_err(|e| format!("UI resource `{}`: _meta.ui: {e}", resource.uri))?,
        None => None,
    };
    let problems = ui.map(|ui| ui.problems()).unwrap_or_default();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "UI resource `{}`: _meta.ui.{}",
            resource.uri,
            problems.join("; ")
        ))
    }
}

/// The resources of a `#[mcp_era_server::router]` impl, described once.
pub struct ResourceTable<S: 'static> {
    fixed: Vec<Fixed<S>>,
    by_uri: NameMap<String, usize>,
    templates: Vec<Templated<S>>,
    problems: Vec<String>,
    /// `resources/list` pages of fixed resources alone.
    pages: RenderedPages,
    template_pages: RenderedPages,
}

impl<S> ResourceTable<S> {
    /// Describes every resource; duplicates and bad templates are left
    /// out and named in [`problems`](Self::problems).
    pub fn build(specs: &[ResourceSpec<S>]) -> Self {
        let mut table = Self {
            fixed: Vec::new(),
            by_uri: NameMap::default(),
            templates: Vec::new(),
            problems: Vec::new(),
            pages: RenderedPages::default(),
            template_pages: RenderedPages::default(),
        };
        for spec in specs {
            let meta = match spec
                .meta
                .map(serde_json::from_str::<MetaObject>)
                .transpose()
            {
                Ok(meta) => meta,
                Err(e) => {
                    table
                        .problems
                        .push(format!("resource method `{}`: _meta: {e}", spec.method));
                    continue;
                }
            };
            let reader = Reader {
                mime_type: spec.mime_type,
                meta: meta.clone(),
                ttl_ms: spec.ttl_ms,
                cache_scope: spec.cache_scope,
                read: spec.read,
            };
            match (spec.describe)() {
                ResourceDescription::Fixed(mut resource) => {
                    if let Some(meta) = meta {
                        resource
                            .meta
                            .get_or_insert_with(MetaObject::new)
                            .extend(meta);
                    }
                    if let Err(e) = check_app(&resource) {
                        table
                            .problems
                            .push(format!("resource method `{}`: {e}", spec.method));
                        continue;
                    }
                    if table.by_uri.contains_key(&resource.uri) {
                        table.problems.push(format!(
                            "resource method `{}`: URI `{}` is served twice",
                            spec.method, resource.uri
                        ));
                        continue;
                    }
                    table.by_uri.insert(resource.uri.clone(), table.fixed.len());
                    table.fixed.push(Fixed { resource, reader });
                }
                ResourceDescription::Template(template) => {
                    match UriTemplate::parse(&template.uri_template) {
                        Ok(parsed) => table.templates.push(Templated {
                            template,
                            parsed,
                            reader,
                            list: spec.list,
                            method: spec.method,
                        }),
                        Err(e) => table
                            .problems
                            .push(format!("resource method `{}`: {e}", spec.method)),
                    }
                }
            }
        }
        table
    }

    /// What went wrong while describing the resources.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// `resources/list`: the fixed resources, then the live instances of
    /// the listed templates in URI order (past the fixed ones a cursor
    /// names the last URI sent; see the crate docs). A `list` method's
    /// error answers the request.
    pub async fn list(
        &self,
        server: &S,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourcesResult> {
        let listed = self.templates.iter().any(|t| t.list.is_some());
        let at = Resume::read(params.cursor.as_deref(), self.fixed.len(), listed)?;
        let live = if listed && at.needs_live(self.fixed.len()) {
            self.live(server, ctx).await?
        } else {
            Vec::new()
        };
        Ok(self.page_at(&at, &live, ctx))
    }

    /// [`list`](Self::list)'s page as result bytes; a page of fixed
    /// resources alone is rendered once, one with live instances each time.
    pub async fn list_reply(
        &self,
        server: &S,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        let listed = self.templates.iter().any(|t| t.list.is_some());
        let at = Resume::read(params.cursor.as_deref(), self.fixed.len(), listed)?;
        if listed && at.needs_live(self.fixed.len()) {
            let live = self.live(server, ctx).await?;
            return reply::render(self.page_at(&at, &live, ctx), ctx.result_server_info());
        }
        let key = PageKey::new(params.cursor.as_deref(), false, ctx);
        self.pages.get_or_render(key, || {
            reply::render(self.page_at(&at, &[], ctx), ctx.result_server_info())
        })
    }

    fn page_at(&self, at: &Resume, live: &[Resource], ctx: &RequestContext) -> ListResourcesResult {
        let fixed: Vec<&Resource> = self.fixed.iter().map(|f| &f.resource).collect();
        let live: Vec<&Resource> = live.iter().collect();
        let (resources, next) = live_page(&fixed, &live, |r| r.uri.as_str(), at);
        let mut result =
            ListResourcesResult::new(resources.into_iter().cloned().collect(), ctx.cache_hints());
        result.next_cursor = next;
        result
    }

    /// Every live instance, sorted by URI, each listed once and only if
    /// `resources/read` can serve it: a URI its template does not match
    /// back (an empty value) or that a fixed resource holds is left out.
    async fn live(&self, server: &S, ctx: &RequestContext) -> HandlerResult<Vec<Resource>> {
        let mut live = Vec::new();
        for templated in &self.templates {
            let Some(list) = templated.list else { continue };
            for item in list(server, ctx).await? {
                let uri = match templated.parsed.expand(item.variables()) {
                    Ok(uri) => uri,
                    Err(e) => {
                        tracing::error!(method = templated.method, "listed resource left out: {e}");
                        continue;
                    }
                };
                if templated.parsed.matches(&uri).is_none() {
                    tracing::error!(
                        method = templated.method,
                        uri,
                        "listed resource left out: its template does not match its URI back (an empty value?)"
                    );
                    continue;
                }
                if self.by_uri.contains_key(&uri) {
                    continue;
                }
                live.push(item.describe(uri, &templated.template));
            }
        }
        // Stable: of two instances at one URI the first template's stays.
        live.sort_by(|a, b| a.uri.cmp(&b.uri));
        live.dedup_by(|later, earlier| later.uri == earlier.uri);
        Ok(live)
    }

    /// `resources/templates/list`.
    pub fn list_templates(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourceTemplatesResult> {
        let (templates, next) = page(&self.templates, params.cursor.as_deref())?;
        let templates = templates.iter().map(|t| t.template.clone()).collect();
        let mut result = ListResourceTemplatesResult::new(templates, ctx.cache_hints());
        result.next_cursor = next;
        Ok(result)
    }

    /// [`list_templates`](Self::list_templates)'s page as result bytes,
    /// each page rendered once.
    pub fn list_templates_reply(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        self.template_pages
            .list_reply(params.cursor.as_deref(), ctx, || {
                self.list_templates(params, ctx)
            })
    }

    /// `resources/read`: a fixed URI first, then the templates in
    /// declaration order; nothing matching is `resource_not_found`. Listing
    /// plays no part: any URI a template matches is read.
    pub async fn read(
        &self,
        server: &S,
        params: ReadResourceRequestParams,
        ctx: &RequestContext,
    ) -> ReadOutcome {
        let uri = params.uri;
        let (reader, variables) = match self.by_uri.get(&uri) {
            Some(&at) => (&self.fixed[at].reader, Vec::new()),
            None => self
                .templates
                .iter()
                .find_map(|t| Some((&t.reader, t.parsed.matches(&uri)?)))
                .ok_or_else(|| errors::resource_not_found(uri.clone()))?,
        };
        let seal = StateSeal::new(
            ctx,
            methods::RESOURCES_READ,
            || Cow::Owned(uri.clone()),
            || arguments_digest(None),
        );
        let retry = RetryInput::new(params.input_responses, seal.open(params.request_state)?);
        let request = reader.request(uri, variables, retry, ctx);
        let mut outcome = (reader.read)(server, request, ctx).await?;
        if let ReadResourceResultResponseResult::InputRequiredResult(result) = &mut outcome {
            seal.seal(result)?;
        }
        Ok(outcome)
    }
}
