//! Resources: the static table behind `#[resource]` methods (fixed URIs
//! and URI templates) and the results made from their return types.

use std::collections::HashMap;
use std::str::FromStr;

use mcp_types::v2026_07_28::{
    BlobResourceContents, InputRequiredResult, ListResourceTemplatesResult, ListResourcesResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResult,
    ReadResourceResultContentsItem, ReadResourceResultResponseResult, Resource, ResourceTemplate,
    TextResourceContents,
};

use super::RetryInput;
use super::page::page;
use super::tools::BoxFuture;
use super::uri_template::UriTemplate;
use crate::model::context::RequestContext;
use crate::wire::errors::{self, ErrorObject, HandlerResult};

/// What `resources/read` answers.
pub type ReadOutcome = HandlerResult<ReadResourceResultResponseResult>;

/// The resource a `#[resource]` method is asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceRequest {
    /// The requested URI.
    pub uri: String,
    /// The template variables (empty for a fixed URI), percent-decoded.
    pub variables: Vec<(String, String)>,
    /// The `mimeType` the method declared.
    pub mime_type: Option<&'static str>,
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
    note = "return `String` (text), `Blob` (bytes), `TextResourceContents`, `BlobResourceContents`, `Vec<ReadResourceResultContentsItem>`, `ReadResourceResult`, or an `Option`/`HandlerResult` of one of these"
)]
pub trait IntoReadResult {
    /// The `resources/read` answer for `request`.
    fn into_read_result(self, request: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome;
}

fn contents(items: Vec<ReadResourceResultContentsItem>, ctx: &RequestContext) -> ReadOutcome {
    Ok(ReadResourceResult::new(items, ctx.cache_hints()).into())
}

impl IntoReadResult for String {
    fn into_read_result(self, request: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome {
        let mut text = TextResourceContents::from_uri_and_text(request.uri.clone(), self);
        text.mime_type = request.mime_type.map(str::to_owned);
        text.into_read_result(request, ctx)
    }
}

impl IntoReadResult for Blob {
    fn into_read_result(self, request: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome {
        let mut blob = BlobResourceContents::from_uri_and_blob(
            request.uri.clone(),
            mcp_types::headers::base64_encode(&self.0),
        );
        blob.mime_type = request.mime_type.map(str::to_owned);
        blob.into_read_result(request, ctx)
    }
}

impl IntoReadResult for TextResourceContents {
    fn into_read_result(self, _: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome {
        contents(
            vec![ReadResourceResultContentsItem::TextResourceContents(self)],
            ctx,
        )
    }
}

impl IntoReadResult for BlobResourceContents {
    fn into_read_result(self, _: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome {
        contents(
            vec![ReadResourceResultContentsItem::BlobResourceContents(self)],
            ctx,
        )
    }
}

impl IntoReadResult for Vec<ReadResourceResultContentsItem> {
    fn into_read_result(self, _: &ResourceRequest, ctx: &RequestContext) -> ReadOutcome {
        contents(self, ctx)
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

/// The handler of a `#[resource]` method.
pub type ResourceFn<S> =
    for<'a> fn(&'a S, ResourceRequest, &'a RequestContext) -> BoxFuture<'a, ReadOutcome>;

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
    /// Builds the description; run once.
    pub describe: fn() -> ResourceDescription,
    /// The handler.
    pub read: ResourceFn<S>,
}

struct Fixed<S: 'static> {
    resource: Resource,
    mime_type: Option<&'static str>,
    read: ResourceFn<S>,
}

struct Templated<S: 'static> {
    template: ResourceTemplate,
    parsed: UriTemplate,
    mime_type: Option<&'static str>,
    read: ResourceFn<S>,
}

/// The resources of a `#[mcp_server::router]` impl, described once.
pub struct ResourceTable<S: 'static> {
    fixed: Vec<Fixed<S>>,
    by_uri: HashMap<String, usize>,
    templates: Vec<Templated<S>>,
    problems: Vec<String>,
}

impl<S> ResourceTable<S> {
    /// Describes every resource; duplicates and bad templates are left
    /// out and named in [`problems`](Self::problems).
    pub fn build(specs: &[ResourceSpec<S>]) -> Self {
        let mut table = Self {
            fixed: Vec::new(),
            by_uri: HashMap::new(),
            templates: Vec::new(),
            problems: Vec::new(),
        };
        for spec in specs {
            match (spec.describe)() {
                ResourceDescription::Fixed(resource) => {
                    if table.by_uri.contains_key(&resource.uri) {
                        table.problems.push(format!(
                            "resource method `{}`: URI `{}` is served twice",
                            spec.method, resource.uri
                        ));
                        continue;
                    }
                    table.by_uri.insert(resource.uri.clone(), table.fixed.len());
                    table.fixed.push(Fixed {
                        resource,
                        mime_type: spec.mime_type,
                        read: spec.read,
                    });
                }
                ResourceDescription::Template(template) => {
                    match UriTemplate::parse(&template.uri_template) {
                        Ok(parsed) => table.templates.push(Templated {
                            template,
                            parsed,
                            mime_type: spec.mime_type,
                            read: spec.read,
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

    /// `resources/list`: the fixed resources.
    pub fn list(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListResourcesResult> {
        let (fixed, next) = page(&self.fixed, params.cursor.as_deref())?;
        let resources = fixed.iter().map(|f| f.resource.clone()).collect();
        let mut result = ListResourcesResult::new(resources, ctx.cache_hints());
        result.next_cursor = next;
        Ok(result)
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

    /// `resources/read`: a fixed URI first, then the templates in
    /// declaration order; nothing matching is `resource_not_found`.
    pub async fn read(
        &self,
        server: &S,
        params: ReadResourceRequestParams,
        ctx: &RequestContext,
    ) -> ReadOutcome {
        let uri = params.uri;
        let retry = RetryInput::new(params.input_responses, params.request_state);
        if let Some(&at) = self.by_uri.get(&uri) {
            let fixed = &self.fixed[at];
            let request = ResourceRequest {
                uri,
                variables: Vec::new(),
                mime_type: fixed.mime_type,
                retry,
            };
            return (fixed.read)(server, request, ctx).await;
        }
        for templated in &self.templates {
            if let Some(variables) = templated.parsed.matches(&uri) {
                let request = ResourceRequest {
                    uri,
                    variables,
                    mime_type: templated.mime_type,
                    retry,
                };
                return (templated.read)(server, request, ctx).await;
            }
        }
        Err(errors::resource_not_found(uri))
    }
}
