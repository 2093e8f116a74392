//! What changes between a modern request or result and a legacy one
//! (`../shared/docs/gateway.md`, "Modern front, legacy backend"): the
//! modern `_meta` keys go, the legacy result gains `resultType` and, on the
//! list and read results, cache hints; a legacy "resource not found" error
//! becomes the modern one.

use mcp_era_server::mcp_era_types::v2026_07_28::{
    CacheHints, CallToolResultResponseResult, Error as ErrorObject, meta_keys,
};
use mcp_era_server::{HandlerResult, Reply, RequestContext, errors};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Who answered, as [`checked`] names it: the backend.
pub(crate) const BACKEND: &str = "the backend";

/// `from`'s result of `method` (the backend's, or a peer instance's),
/// checked as `T`.
pub(crate) fn checked<T: DeserializeOwned>(
    from: &str,
    method: &str,
    result: Value,
) -> HandlerResult<T> {
    serde_json::from_value(result).map_err(|e| {
        tracing::warn!(method, "{from}'s result is not a valid one: {e}");
        errors::internal_error(format!("{from}'s result of {method} is not valid: {e}"))
    })
}

/// A `tools/call`'s reply from `from`'s result: a task (the tasks
/// extension's `CreateTaskResult`, which the core result types do not
/// know) as it came, any other checked as a call's result.
pub(crate) fn call_reply(from: &str, result: Value, ctx: &RequestContext) -> HandlerResult<Reply> {
    if result.get("resultType").and_then(Value::as_str) == Some("task") {
        return Reply::from_serialize(&result);
    }
    ctx.reply(checked::<CallToolResultResponseResult>(
        from,
        "tools/call",
        result,
    )?)
}

/// The prefix of the `_meta` keys the modern era reserves (protocol version,
/// client capabilities, log level, `serverInfo`); the legacy schema knows
/// none of them.
const MODERN_META_PREFIX: &str = "io.modelcontextprotocol/";

/// The params of the front request of `ctx` with the `_meta` a modern
/// backend is to get from its client: the log level it asked for (a legacy
/// session's, from `logging/setLevel`; none, none), the `clientInfo` it
/// declared (a legacy session's, from `initialize`) and `capabilities`,
/// what the backend is told it declared. Our client adds the version.
pub(crate) fn with_client_meta(params: Value, ctx: &RequestContext, capabilities: Value) -> Value {
    let Value::Object(mut params) = params else {
        return params;
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if let Value::Object(meta) = meta {
        match ctx
            .log_level()
            .and_then(|level| serde_json::to_value(level).ok())
        {
            Some(level) => meta.insert(meta_keys::LOG_LEVEL.into(), level),
            None => meta.remove(meta_keys::LOG_LEVEL),
        };
        if let Some(info) = ctx
            .client_info()
            .and_then(|info| serde_json::to_value(info).ok())
        {
            meta.insert(meta_keys::CLIENT_INFO.into(), info);
        }
        meta.insert(meta_keys::CLIENT_CAPABILITIES.into(), capabilities);
    }
    Value::Object(params)
}

/// The params of a modern request as a legacy backend takes them: the
/// modern `_meta` keys and the MRTR fields (`inputResponses`,
/// `requestState`) removed, `progressToken` and any other `_meta` key kept.
pub(crate) fn legacy_params(params: Value) -> Value {
    let Value::Object(mut params) = params else {
        return params;
    };
    // The front's rounds are the gateway's own.
    params.remove("inputResponses");
    params.remove("requestState");
    if let Some(Value::Object(meta)) = params.get_mut("_meta") {
        meta.retain(|key, _| !key.starts_with(MODERN_META_PREFIX));
        if meta.is_empty() {
            params.remove("_meta");
        }
    }
    Value::Object(params)
}

/// Whether `method`'s modern result carries cache hints (`ttlMs`,
/// `cacheScope`): the list and read results.
fn has_cache_hints(method: &str) -> bool {
    matches!(
        method,
        "tools/list"
            | "resources/list"
            | "resources/templates/list"
            | "prompts/list"
            | "resources/read"
    )
}

/// A legacy backend's result of `method` in its modern shape: `resultType`
/// `complete` and, where the schema requires them, `hints` (a legacy
/// server states none). Keys the backend set are kept.
pub(crate) fn modern_result(method: &str, result: Value, hints: CacheHints) -> Value {
    let mut result = match result {
        Value::Object(result) => result,
        // Not a result object: left as is, for the typed check to refuse.
        other => return other,
    };
    result
        .entry("resultType")
        .or_insert_with(|| Value::from("complete"));
    if has_cache_hints(method) {
        result
            .entry("ttlMs")
            .or_insert_with(|| Value::from(hints.ttl_ms));
        if let Ok(scope) = serde_json::to_value(hints.scope) {
            result.entry("cacheScope").or_insert(scope);
        }
    }
    Value::Object(result)
}

/// A backend's error as the front answers it: a legacy "resource not
/// found" (`-32002`) becomes the modern `-32602` with `data.uri`; any other
/// error is passed on as it came.
pub(crate) fn modern_error(method: &str, params: &Value, error: ErrorObject) -> ErrorObject {
    const LEGACY_RESOURCE_NOT_FOUND: i64 = -32002;
    if method == "resources/read" && error.code == LEGACY_RESOURCE_NOT_FOUND {
        let uri = params
            .get("uri")
            .and_then(Value::as_str)
            .unwrap_or_default();
        return errors::resource_not_found(uri);
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_era_server::mcp_era_types::v2026_07_28::CacheScope;
    use serde_json::json;

    #[test]
    fn modern_keys_leave_the_params_and_a_progress_token_stays() {
        let params = json!({
            "name": "echo",
            "inputResponses": {},
            "requestState": "s",
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "progressToken": 7
            }
        });
        assert_eq!(
            legacy_params(params),
            json!({"name": "echo", "_meta": {"progressToken": 7}})
        );
        let only_modern = json!({"_meta": {"io.modelcontextprotocol/logLevel": "info"}});
        assert_eq!(legacy_params(only_modern), json!({}));
    }

    #[test]
    fn list_and_read_results_gain_cache_hints_and_every_result_a_type() {
        let hints = CacheHints::new(0, CacheScope::Private);
        let list = modern_result("tools/list", json!({"tools": []}), hints);
        assert_eq!(
            list,
            json!({"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"})
        );
        let call = modern_result("tools/call", json!({"content": []}), hints);
        assert_eq!(call, json!({"content": [], "resultType": "complete"}));
        let kept = modern_result("prompts/list", json!({"prompts": [], "ttlMs": 5}), hints);
        assert_eq!(kept["ttlMs"], 5);
    }

    #[test]
    fn a_legacy_resource_not_found_is_the_modern_one() {
        let legacy = serde_json::from_value(json!({"code": -32002, "message": "nope"}))
            .unwrap_or_else(|e| panic!("{e}"));
        let error = modern_error("resources/read", &json!({"uri": "file:///x"}), legacy);
        assert_eq!(error.code, -32602);
        assert_eq!(error.data.unwrap_or_default()["uri"], "file:///x");
    }
}
