//! `Mcp-Param-{Name}` headers (HTTP, modern `tools/call`): a tool input
//! property annotated `"x-mcp-header": "{Name}"` is mirrored into that
//! header by the client, and the server checks the two agree (the Streamable
//! HTTP transport's standard headers).
//!
//! The annotations come from the tools handler's own table when it has one
//! (`#[mcp_era_server::router]`, `ToolRouter`). A hand-written handler's come
//! from the server's own `tools/list` (all pages, up to [`MAX_PAGES`]),
//! cached on the declaration for the list's `ttlMs` when its `cacheScope`
//! is `public`; a `private` list is read again on every call.

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Duration;

use mcp_era_types::v2026_07_28::{ClientRequest, RequestId, RequestMetaObject};
use serde_json::{Map, Value, json};

use crate::model::context::{HttpHeaders, RequestContext};
use crate::model::server::McpServer;
use crate::wire::errors::{self, ErrorObject};
use mcp_era_types::headers::decode_value;

/// How many `tools/list` pages are read to find a tool's annotations.
pub const MAX_PAGES: usize = 16;

use crate::state::param_header_cache::Annotations;

fn annotations_of(tools: &[Value], into: &mut Annotations) {
    for tool in tools {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let Some(properties) = tool
            .pointer("/inputSchema/properties")
            .and_then(Value::as_object)
        else {
            continue;
        };
        let pairs: Vec<(String, String)> = properties
            .iter()
            .filter_map(|(arg, schema)| {
                let suffix = schema.get("x-mcp-header")?.as_str()?;
                Some((arg.clone(), suffix.to_ascii_lowercase()))
            })
            .collect();
        if !pairs.is_empty() {
            into.insert(name.to_owned(), pairs);
        }
    }
}

async fn load<S: McpServer>(
    server: &S,
    ctx: &RequestContext,
) -> Result<(Annotations, Option<Duration>), ErrorObject> {
    let mut annotations = Annotations::new();
    let mut cursor: Option<String> = None;
    let mut ttl: Option<Duration> = None;
    let mut public = true;
    for _ in 0..MAX_PAGES {
        let mut params = Map::new();
        params.insert(
            "_meta".into(),
            serde_json::to_value(&ctx.meta).unwrap_or_else(|_| json!({})),
        );
        if let Some(cursor) = &cursor {
            params.insert("cursor".into(), json!(cursor));
        }
        let request: ClientRequest = serde_json::from_value(json!({
            "jsonrpc": "2.0", "id": "mcp-param-headers", "method": "tools/list", "params": params,
        }))
        .map_err(|e| errors::internal_error(format!("tools/list for header checks: {e}")))?;
        let list_ctx = RequestContext::new(
            RequestId::String("mcp-param-headers".into()),
            ctx.meta.clone(),
        );
        let page = server
            .dispatch_capability(request, &list_ctx)
            .await?
            .to_value()?;
        if let Some(tools) = page.get("tools").and_then(Value::as_array) {
            annotations_of(tools, &mut annotations);
        }
        public &= page.get("cacheScope").and_then(Value::as_str) == Some("public");
        let page_ttl = page
            .get("ttlMs")
            .and_then(Value::as_u64)
            .map(Duration::from_millis);
        ttl = match (ttl, page_ttl) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        cursor = page
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    Ok((annotations, if public { ttl } else { None }))
}

/// Checks the `Mcp-Param-*` headers of a modern `tools/call` against its
/// arguments.
pub(crate) async fn check<S: McpServer>(
    server: &S,
    headers: &HttpHeaders,
    tool: Option<&str>,
    arguments: Option<&Map<String, Value>>,
    meta: &RequestMetaObject,
) -> Result<(), ErrorObject> {
    // A recognised header with bad characters is rejected whatever the body says.
    let mut decoded = HashMap::new();
    for (suffix, raw) in &headers.params {
        let value = decode_value(raw).map_err(|reason| {
            errors::header_mismatch(format!("Invalid Mcp-Param-{suffix} header: {reason}"))
        })?;
        decoded.insert(suffix.as_str(), value);
    }
    let Some(tool) = tool else {
        return Ok(());
    };
    if let Some(known) = server.tool_param_headers(tool) {
        let pairs = known.into_iter().map(|p| (p.argument, p.header)).collect();
        return compare(pairs, arguments, &decoded);
    }
    let declaration = server.declaration();
    let cache = &declaration.param_headers;
    let cached = cache.get(tool);
    let pairs = match cached {
        Some(pairs) => pairs,
        None => {
            let ctx =
                RequestContext::new(RequestId::String("mcp-param-headers".into()), meta.clone());
            let (annotations, ttl) = Box::pin(load(server, &ctx)).await?;
            let pairs = annotations.get(tool).cloned();
            if let Some(ttl) = ttl {
                cache.put(annotations, ttl);
            }
            pairs
        }
    };
    compare(pairs.unwrap_or_default(), arguments, &decoded)
}

fn compare(
    pairs: Vec<(String, String)>,
    arguments: Option<&Map<String, Value>>,
    decoded: &HashMap<&str, Cow<'_, str>>,
) -> Result<(), ErrorObject> {
    for (arg, suffix) in pairs {
        let body = match arguments.and_then(|a| a.get(&arg)) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        match decoded.get(suffix.as_str()) {
            None => {
                return Err(errors::header_mismatch(format!(
                    "Missing Mcp-Param-{suffix} header for argument {arg}"
                )));
            }
            Some(value) if **value != *body => {
                return Err(errors::header_mismatch(format!(
                    "Mcp-Param-{suffix} header does not match argument {arg}"
                )));
            }
            Some(_) => {}
        }
    }
    Ok(())
}
