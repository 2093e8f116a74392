//! One round trip: a request goes out with its envelope (`_meta`, the
//! Streamable HTTP headers, `Mcp-Param-*`), is cancelled if its future is
//! dropped or times out, and its reply comes back as a JSON-RPC outcome;
//! a modern request is retried once on `-32022`. Also the JSON helpers the
//! rest of the client shares.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use mcp_era_types::v2026_07_28::{RequestMetaObject, meta_keys, methods};
use mcp_era_types::versions::Era;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::options::TASKS_EXTENSION;
use super::{Client, Conn, lock};
use crate::error::{Error, Result};
use crate::headers;
use crate::negotiate::{self, ModernError, recognise_modern_error, select_version, split_response};

/// What the transport brought back for one request.
pub(super) struct Exchange {
    pub(super) status: Option<u16>,
    pub(super) message: Option<Value>,
    pub(super) body: String,
}

/// Cancels a request whose future is dropped before its answer arrived.
struct InFlight {
    conn: Conn,
    id: Value,
    /// `Some(version)` in a legacy HTTP session (which takes the notification by POST).
    legacy_http: Option<String>,
    armed: bool,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": self.id, "reason": "the client no longer waits for this request"}});
        match &self.conn {
            Conn::Stdio(t) => {
                t.forget(&self.id);
                let t = t.clone();
                rt.spawn(async move {
                    let _ = t.send(&note).await;
                });
            }
            // Modern HTTP: dropping the response stream is the cancellation.
            Conn::Http(t) => {
                if let Some(version) = self.legacy_http.clone() {
                    let t = t.clone();
                    rt.spawn(async move {
                        let h = [
                            (headers::MCP_PROTOCOL_VERSION, version),
                            (headers::MCP_METHOD, "notifications/cancelled".to_owned()),
                        ];
                        let _ = t.post(&note, &h, Duration::from_secs(5)).await;
                    });
                }
            }
        }
    }
}

impl Client {
    pub(super) async fn notify(&self, notification: &impl Serialize) -> Result<()> {
        let message = to_value(notification)?;
        match &self.inner.conn {
            Conn::Stdio(t) => t.send(&message).await,
            Conn::Http(t) => {
                let method = message
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let mut h = vec![(headers::MCP_PROTOCOL_VERSION, self.state().version.clone())];
                h.push((headers::MCP_METHOD, headers::encode_value(&method)));
                // A notification is accepted with 202; a refusal is not worth failing the connection.
                t.post(&message, &h, self.request_timeout()).await.map(drop)
            }
        }
    }

    /// Sends one request and returns what came back. `modern_version` set:
    /// add `_meta` and the modern headers for that version (plus
    /// `extra_headers`). Dropping the future, or `timeout` expiring,
    /// cancels the request.
    pub(super) async fn exchange(
        &self,
        method: &str,
        params: Value,
        modern_version: Option<&str>,
        timeout: Duration,
        extra_headers: Vec<(String, String)>,
    ) -> Result<Exchange> {
        let id = json!(self.inner.next_id.fetch_add(1, Ordering::Relaxed) + 1);
        let params = match modern_version {
            Some(v) => with_meta(params, self.meta(v)?),
            None => params,
        };
        #[cfg(feature = "otel")]
        let params = with_trace_context(params);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let legacy_version = match modern_version {
            Some(_) => None,
            None => Some(self.state().version.clone()),
        };
        // The probe and the handshake are never cancelled: a legacy server
        // may not even know the notification yet.
        let mut guard = InFlight {
            conn: self.inner.conn.clone(),
            id,
            legacy_http: legacy_version
                .clone()
                .filter(|_| self.session_id().is_some()),
            armed: method != methods::SERVER_DISCOVER && method != "initialize",
        };
        let conn = &self.inner.conn;
        let sent = async {
            match conn {
                Conn::Stdio(t) => {
                    let response = t.request(&message, timeout).await?;
                    Ok(Exchange {
                        status: None,
                        message: Some(response),
                        body: String::new(),
                    })
                }
                Conn::Http(t) => {
                    let mut h: Vec<(&str, String)> = match modern_version {
                        Some(v) => headers::standard_headers(v, method, &message["params"]),
                        None => {
                            let mut h = Vec::new();
                            if let Some(v) =
                                legacy_version.clone().filter(|_| method != "initialize")
                            {
                                h.push((headers::MCP_PROTOCOL_VERSION, v));
                            }
                            h.extend(
                                headers::standard_headers("", method, &message["params"])
                                    .into_iter()
                                    .skip(1),
                            );
                            h
                        }
                    };
                    h.extend(extra_headers.iter().map(|(n, v)| (n.as_str(), v.clone())));
                    let r = t.post(&message, &h, timeout).await?;
                    if method == "initialize" && (200..300).contains(&r.status) {
                        t.set_session_id(r.session_id.clone());
                    }
                    Ok(Exchange {
                        status: Some(r.status),
                        message: r.message,
                        body: r.body,
                    })
                }
            }
        };
        let outcome = match tokio::time::timeout(timeout, sent).await {
            Ok(outcome) => outcome,
            Err(_) => Err(Error::Timeout {
                method: method.to_owned(),
                after: timeout,
            }),
        };
        // A timed-out request stays armed: the server is told to stop.
        if !matches!(outcome, Err(Error::Timeout { .. })) {
            guard.armed = false;
        }
        outcome
    }

    /// Turns an exchange into the JSON-RPC outcome, or a transport error
    /// when the answer holds no JSON-RPC response.
    pub(super) fn reply(&self, method: &str, x: Exchange) -> Result<negotiate::Reply> {
        if let Some(reply) = x.message.as_ref().and_then(split_response) {
            return Ok(reply);
        }
        Err(match x.status {
            Some(status) if !(200..300).contains(&status) => Error::Http {
                method: method.to_owned(),
                status: Some(status),
                detail: x.body,
            },
            _ => Error::InvalidMessage {
                detail: format!("no JSON-RPC response to `{method}` in the answer"),
            },
        })
    }

    pub(super) fn meta(&self, version: &str) -> Result<Value> {
        let mut capabilities = self.opts().capabilities.clone();
        if self.opts().tasks {
            capabilities
                .extensions
                .get_or_insert_with(BTreeMap::new)
                .entry(TASKS_EXTENSION.to_owned())
                .or_default();
        }
        let mut meta = RequestMetaObject::new(capabilities, version.to_owned());
        meta.client_info = Some(self.opts().client_info.clone().into());
        to_value(&meta)
    }

    /// The `Mcp-Param-*` headers of a modern `tools/call` over HTTP.
    fn param_headers(&self, method: &str, params: &Value) -> Vec<(String, String)> {
        if method != methods::TOOLS_CALL || !matches!(self.inner.conn, Conn::Http(_)) {
            return Vec::new();
        }
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Vec::new();
        };
        let empty = Map::new();
        let args = params
            .get("arguments")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        match lock(&self.inner.tool_headers).get(name) {
            Some(annotations) => headers::param_headers(annotations, args),
            None => Vec::new(),
        }
    }

    /// A modern request at `version`; if `may_retry`, retried once on
    /// `-32022` with a version re-selected from `data.supported`.
    pub(super) async fn modern_request_with(
        &self,
        method: &str,
        params: Value,
        mut version: String,
        may_retry: bool,
        timeout: Duration,
    ) -> Result<Value> {
        let mut retried = !may_retry;
        let extra = self.param_headers(method, &params);
        loop {
            let x = self
                .exchange(
                    method,
                    params.clone(),
                    Some(&version),
                    timeout,
                    extra.clone(),
                )
                .await?;
            match self.reply(method, x)? {
                Ok(result) => {
                    let changed = {
                        let mut st = self.state();
                        let changed = version != st.version;
                        st.version = version.clone();
                        changed
                    };
                    if changed {
                        self.opts().cache.remember_era(
                            self.inner.server.clone(),
                            Era::Modern,
                            version,
                        );
                    }
                    return Ok(result);
                }
                Err(error) => match recognise_modern_error(&error) {
                    Some(ModernError::UnsupportedVersion { supported, .. }) if !retried => {
                        version = select_version(&self.opts().modern_versions, &supported)?;
                        retried = true;
                    }
                    _ => {
                        return Err(Error::Rpc {
                            method: method.to_owned(),
                            error,
                        });
                    }
                },
            }
        }
    }
}

/// Puts our `_meta` into `params`, keeping any other `_meta` keys the caller
/// set, and a `clientInfo` or `clientCapabilities` the caller set: a proxy
/// speaks for its own client (the handler still answers only the kinds of
/// input the options declare).
pub(super) fn with_meta(params: Value, meta: Value) -> Value {
    let mut params = match params {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let mut merged = match params.remove("_meta") {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    if let Value::Object(ours) = meta {
        for (key, value) in ours {
            let callers = key == meta_keys::CLIENT_INFO || key == meta_keys::CLIENT_CAPABILITIES;
            if !callers || !merged.contains_key(&key) {
                merged.insert(key, value);
            }
        }
    }
    params.insert("_meta".to_owned(), Value::Object(merged));
    Value::Object(params)
}

/// The current OpenTelemetry span's W3C trace context as the `_meta` keys
/// the spec reserves for it (`traceparent`, `tracestate`); nothing outside
/// a valid span. Written here rather than by the global propagator, which
/// may be set to another format: these keys are W3C by the spec.
#[cfg(feature = "otel")]
fn trace_context() -> Option<Map<String, Value>> {
    use opentelemetry::trace::TraceContextExt as _;
    let cx = opentelemetry::Context::current();
    let span = cx.span();
    let parent = span.span_context();
    if !parent.is_valid() {
        return None;
    }
    let mut keys = Map::new();
    keys.insert(
        "traceparent".to_owned(),
        Value::String(format!(
            "00-{}-{}-{:02x}",
            parent.trace_id(),
            parent.span_id(),
            parent.trace_flags().to_u8()
        )),
    );
    let state = parent.trace_state().header();
    if !state.is_empty() {
        keys.insert("tracestate".to_owned(), Value::String(state));
    }
    Some(keys)
}

/// `params` with the current trace context in `_meta`; trace keys the
/// caller set stay as they are.
#[cfg(feature = "otel")]
fn with_trace_context(params: Value) -> Value {
    let Some(keys) = trace_context() else {
        return params;
    };
    let mut params = match params {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    if let Value::Object(meta) = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()))
    {
        for (key, value) in keys {
            meta.entry(key).or_insert(value);
        }
    }
    Value::Object(params)
}

pub(super) fn to_value(v: &impl Serialize) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| Error::InvalidMessage {
        detail: e.to_string(),
    })
}

/// Typed parse of a result, naming the failing field.
pub(super) fn parse<T: DeserializeOwned>(method: &str, value: Value) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| Error::InvalidResult {
        method: method.to_owned(),
        detail: format!("at `{}`: {}", e.path(), e.inner()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_is_merged_into_params() {
        let p = with_meta(
            json!({"name": "x", "_meta": {"progressToken": 1, "io.modelcontextprotocol/protocolVersion": "old"}}),
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}),
        );
        assert_eq!(
            p,
            json!({"name": "x", "_meta": {"progressToken": 1, "io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
        );
        assert_eq!(
            with_meta(Value::Null, json!({"a": 1})),
            json!({"_meta": {"a": 1}})
        );
        let forwarded = json!({"name": "legacy-host", "version": "1"});
        let ours = json!({"io.modelcontextprotocol/clientInfo": {"name": "proxy", "version": "2"}});
        assert_eq!(
            with_meta(
                json!({"_meta": {"io.modelcontextprotocol/clientInfo": forwarded}}),
                ours.clone()
            ),
            json!({"_meta": {"io.modelcontextprotocol/clientInfo": forwarded}})
        );
        assert_eq!(with_meta(json!({}), ours.clone()), json!({"_meta": ours}));
        let narrower = json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}});
        let all = json!({"io.modelcontextprotocol/clientCapabilities": {"sampling": {}}});
        assert_eq!(with_meta(narrower.clone(), all), narrower);
    }

    #[cfg(feature = "otel")]
    #[test]
    fn current_trace_context_goes_into_meta() {
        use opentelemetry::trace::{
            SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState,
        };
        use std::str::FromStr as _;

        let params = json!({"name": "x", "_meta": {"progressToken": 1}});
        // Outside a span nothing is added.
        assert_eq!(with_trace_context(params.clone()), params);

        let parent = SpanContext::new(
            TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").expect("trace id"),
            SpanId::from_hex("00f067aa0ba902b7").expect("span id"),
            TraceFlags::SAMPLED,
            true,
            TraceState::from_str("vendor=value").expect("trace state"),
        );
        let _guard = opentelemetry::Context::new()
            .with_remote_span_context(parent)
            .attach();
        assert_eq!(
            with_trace_context(params),
            json!({"name": "x", "_meta": {
                "progressToken": 1,
                "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "tracestate": "vendor=value",
            }})
        );
        // A caller's own traceparent wins; params without `_meta` get one.
        let own = json!({"_meta": {"traceparent": "00-11111111111111111111111111111111-2222222222222222-00"}});
        assert_eq!(
            with_trace_context(own.clone())["_meta"]["traceparent"],
            own["_meta"]["traceparent"]
        );
        assert_eq!(
            with_trace_context(Value::Null)["_meta"]["tracestate"],
            json!("vendor=value")
        );
    }
}
