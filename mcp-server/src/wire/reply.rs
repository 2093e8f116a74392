//! Results serialized once, straight into bytes, with the constant
//! `_meta.serverInfo` spliced in pre-rendered: what a handler returns
//! reaches the transport without a `serde_json::Value` round trip.

use std::fmt;
use std::sync::Arc;

use mcp_era_types::json::WriteJson;
use mcp_era_types::v2026_07_28::{
    CallToolResult, CallToolResultResponseResult, CompleteResult, GetPromptResult,
    GetPromptResultResponseResult, Implementation, InputRequiredResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, ReadResourceResult,
    ReadResourceResultResponseResult, ResultMetaObject,
};
use serde::Serialize;
use serde_json::Value;

use crate::wire::errors::{self, HandlerResult};

/// One result object as JSON bytes, ready to be wrapped in a response.
#[derive(Clone)]
pub struct Reply(Bytes);

/// Where a reply's bytes live: a clone of a kept reply shares them.
#[derive(Clone)]
enum Bytes {
    Owned(Vec<u8>),
    Shared(Arc<[u8]>),
}

impl Reply {
    /// Bytes the runtime rendered itself from a typed value.
    pub(crate) fn from_rendered(bytes: Vec<u8>) -> Self {
        Self(Bytes::Owned(bytes))
    }

    /// A result built as JSON (listen streams, legacy bridging).
    pub(crate) fn from_value(value: &Value) -> HandlerResult<Self> {
        mcp_era_types::json::to_vec(value)
            .map(|bytes| Self(Bytes::Owned(bytes)))
            .map_err(unserializable)
    }

    /// The same reply, its bytes shared by every clone (a kept page).
    pub(crate) fn shared(self) -> Self {
        match self.0 {
            Bytes::Owned(bytes) => Self(Bytes::Shared(bytes.into())),
            kept => Self(kept),
        }
    }

    /// The result object's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Bytes::Owned(bytes) => bytes,
            Bytes::Shared(bytes) => bytes,
        }
    }

    /// A result made of `bytes`, which must be one JSON object (the
    /// `result` member of a response), for middleware that answers on its
    /// own.
    pub fn from_json_bytes(bytes: Vec<u8>) -> HandlerResult<Self> {
        match serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
            Ok(_) if bytes.first() == Some(&b'{') => Ok(Self(Bytes::Owned(bytes))),
            _ => Err(errors::internal_error("a result must be one JSON object")),
        }
    }

    /// A result serialized from any value (a typed result, `json!({..})`).
    pub fn from_serialize(result: &impl Serialize) -> HandlerResult<Self> {
        serde_json::to_vec(result)
            .map_err(unserializable)
            .and_then(Self::from_json_bytes)
    }

    /// Whether this is a tool result with `isError: true` (a tool that
    /// failed, as opposed to a JSON-RPC error).
    pub fn is_tool_error(&self) -> bool {
        #[derive(serde::Deserialize)]
        struct Probe {
            #[serde(rename = "isError", default)]
            is_error: bool,
        }
        serde_json::from_slice::<Probe>(self.as_bytes()).is_ok_and(|probe| probe.is_error)
    }

    /// The result as JSON, for the paths that still edit it (legacy
    /// bridging, the header-check fallback).
    pub fn to_value(&self) -> HandlerResult<Value> {
        serde_json::from_slice(self.as_bytes()).map_err(unserializable)
    }
}

impl PartialEq for Reply {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Reply {}

impl fmt::Debug for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Reply")
            .field(&String::from_utf8_lossy(self.as_bytes()))
            .finish()
    }
}

fn unserializable(e: serde_json::Error) -> errors::ErrorObject {
    errors::internal_error(format!("the result could not be serialized: {e}"))
}

/// Typed results whose `_meta` the runtime completes (and writes with
/// [`WriteJson`], the generated types' own writer).
pub trait ResultMeta: Serialize + WriteJson {
    /// Whether the result carries a `_meta` object at all.
    fn has_meta(&self) -> bool;
    /// Puts `serverInfo` into an existing `_meta` that lacks it.
    fn fill_server_info(&mut self, info: &Implementation);
}

fn fill(meta: &mut Option<ResultMetaObject>, info: &Implementation) {
    if let Some(meta) = meta
        && meta.server_info.is_none()
    {
        meta.server_info = Some(info.clone().into());
    }
}

macro_rules! result_meta {
    ($($ty:ty),*) => {$(
        impl ResultMeta for $ty {
            fn has_meta(&self) -> bool {
                self.meta.is_some()
            }
            fn fill_server_info(&mut self, info: &Implementation) {
                fill(&mut self.meta, info);
            }
        }
    )*};
}

result_meta!(
    CallToolResult,
    CompleteResult,
    GetPromptResult,
    InputRequiredResult,
    ListPromptsResult,
    ListResourceTemplatesResult,
    ListResourcesResult,
    ListToolsResult,
    ReadResourceResult
);

macro_rules! union_meta {
    ($ty:ident: $($variant:ident),*) => {
        impl ResultMeta for $ty {
            fn has_meta(&self) -> bool {
                match self {
                    $($ty::$variant(inner) => inner.has_meta(),)*
                }
            }
            fn fill_server_info(&mut self, info: &Implementation) {
                match self {
                    $($ty::$variant(inner) => inner.fill_server_info(info),)*
                }
            }
        }
    };
}

union_meta!(CallToolResultResponseResult: InputRequiredResult, CallToolResult);
union_meta!(GetPromptResultResponseResult: InputRequiredResult, GetPromptResult);
union_meta!(ReadResourceResultResponseResult: InputRequiredResult, ReadResourceResult);

/// The server identity for results: the typed value (for a `_meta` the
/// handler set itself) and its pre-rendered JSON.
#[derive(Clone, Copy)]
pub(crate) struct ServerInfo<'a> {
    pub(crate) typed: &'a Implementation,
    pub(crate) rendered: &'a [u8],
}

const META_PREFIX: &[u8] = b"{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":";

/// Serializes a typed result, adding `_meta.serverInfo` when `info` is
/// given and the handler did not set one.
pub(crate) fn render<T: ResultMeta>(
    mut result: T,
    info: Option<ServerInfo<'_>>,
) -> HandlerResult<Reply> {
    let mut out = Vec::with_capacity(256);
    match info {
        Some(info) if !result.has_meta() => {
            out.extend_from_slice(META_PREFIX);
            out.extend_from_slice(info.rendered);
            out.push(b'}');
            let start = out.len();
            result.write_json(&mut out).map_err(unserializable)?;
            // The result wrote `{…}` after `{"_meta":{…}`: join the two.
            match out.get(start..start + 2) {
                Some(b"{}") => {
                    out.truncate(start);
                    out.push(b'}');
                }
                Some([b'{', _]) => out[start] = b',',
                _ => {
                    return Err(errors::internal_error(
                        "the result did not serialize as a JSON object",
                    ));
                }
            }
        }
        Some(info) => {
            result.fill_server_info(info.typed);
            result.write_json(&mut out).map_err(unserializable)?;
        }
        None => result.write_json(&mut out).map_err(unserializable)?,
    }
    Ok(Reply(Bytes::Owned(out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_era_types::v2026_07_28::ContentBlock;
    use serde_json::json;

    fn info() -> Implementation {
        Implementation::builder()
            .name("s".to_owned())
            .version("1".to_owned())
            .build()
    }

    fn rendered(result: impl ResultMeta, with_info: bool) -> Value {
        let typed = info();
        let bytes = serde_json::to_vec(&typed).unwrap_or_default();
        let info = with_info.then_some(ServerInfo {
            typed: &typed,
            rendered: &bytes,
        });
        let reply = render(result, info).expect("renders");
        serde_json::from_slice(reply.as_bytes()).expect("valid JSON")
    }

    #[test]
    fn server_info_is_spliced_into_a_result_without_meta() {
        let result = CallToolResult::new(vec![ContentBlock::text("hi")]);
        let expected = json!({
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
            "content": [{"type": "text", "text": "hi"}],
            "resultType": "complete",
        });
        assert_eq!(rendered(result, true), expected);
    }

    #[test]
    fn a_handler_meta_gains_server_info_and_keeps_its_keys() {
        let mut meta = ResultMetaObject::new();
        meta.extra.insert("com.example/k".into(), json!(1));
        let result = CallToolResult::new(vec![]).with_meta(meta);
        let value = rendered(result, true);
        assert_eq!(value["_meta"]["com.example/k"], 1);
        assert_eq!(
            value["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "s"
        );
    }

    #[test]
    fn a_handler_server_info_wins_and_none_means_none() {
        let mut meta = ResultMetaObject::new();
        let mut own = info();
        own.name = "own".into();
        meta.server_info = Some(own.into());
        let value = rendered(CallToolResult::new(vec![]).with_meta(meta), true);
        assert_eq!(
            value["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "own"
        );
        let value = rendered(CallToolResult::new(vec![]), false);
        assert!(value.get("_meta").is_none());
    }
}
