//! Several gateway instances behind one address: each process has an
//! instance id, the `requestState` handles it mints for a legacy backend's
//! rounds name it, and a retry naming another instance is forwarded to that
//! instance's front (a configured peer) or refused with a clear, retryable
//! error. A pending round is a live backend call in one process's memory
//! (a request blocked on a stdio pipe), so it cannot be shared through a
//! store: only the process holding it can complete it. `docs/gateway.md`
//! ("Several gateway instances") argues it.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use mcp_era_server::mcp_era_types::v2026_07_28::{
    Error as ErrorObject, GetPromptResultResponseResult, ReadResourceResultResponseResult,
};
use mcp_era_server::{HandlerResult, Reply, RequestContext, errors};
use serde_json::{Value, json};

use crate::translate::{call_reply, checked};

/// The header a forwarded retry carries: the id of the instance that
/// forwarded it. A request carrying it is never forwarded again.
pub const FORWARDED_BY: &str = "mcp-gateway-forwarded-by";

/// The most of a peer's answer read: room for a large resource read,
/// a bound on what one peer can make this process hold.
const MOST_ANSWER_BYTES: usize = 32 << 20;

/// This gateway process's instance id and the HTTP fronts of the other
/// instances (its peers), shared by every backend session and member of a
/// composition ([`BackendOptions::instances`](crate::BackendOptions::instances)).
///
/// The `requestState` handles minted for a legacy backend's rounds read
/// `<instance>.<32 hex digits>`; a retry carrying one minted by a peer is
/// forwarded, as it came, to that peer's front, and one minted by an
/// instance that is neither this one nor a peer is refused (`-32602`,
/// `data.retryable: true`). Only configured peers are ever contacted.
#[derive(Clone)]
pub struct Instances {
    inner: Arc<Inner>,
}

struct Inner {
    id: String,
    peers: BTreeMap<String, hyper::Uri>,
    /// Made at the first forward (it needs no runtime before).
    client: OnceLock<HyperClient<HttpConnector, Full<Bytes>>>,
}

impl fmt::Debug for Instances {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Instances")
            .field("id", &self.inner.id)
            .field("peers", &self.inner.peers)
            .finish()
    }
}

impl Default for Instances {
    /// A random instance id (see [`random`](Self::random)), no peers.
    fn default() -> Self {
        Self::random()
    }
}

impl Instances {
    /// An instance named `id` (1 to 64 of `A-Z a-z 0-9 _ -`), no peers.
    pub fn new(id: impl Into<String>) -> Result<Self, String> {
        let id = id.into();
        check_id(&id)?;
        Ok(Self::with_id(id))
    }

    /// An instance with a random id of 8 hex digits (made at start; log
    /// it, so that a refusal naming it can be traced), no peers.
    pub fn random() -> Self {
        let mut bytes = [0u8; 4];
        if getrandom::fill(&mut bytes).is_err() {
            // Without randomness, the process id and time still tell
            // instances apart; the handles' own random part is checked.
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            bytes = (std::process::id() ^ now.subsec_nanos()).to_be_bytes();
        }
        Self::with_id(hex(&bytes))
    }

    fn with_id(id: String) -> Self {
        Self {
            inner: Arc::new(Inner {
                id,
                peers: BTreeMap::new(),
                client: OnceLock::new(),
            }),
        }
    }

    /// These instances with peer `id` reachable at `url`, the `http://`
    /// URL of its HTTP front (`http://host:port/mcp`).
    pub fn with_peer(self, id: impl Into<String>, url: &str) -> Result<Self, String> {
        let id = id.into();
        check_id(&id)?;
        if id == self.inner.id {
            return Err(format!("peer {id:?} is this instance's own id"));
        }
        let uri: hyper::Uri = url
            .parse()
            .map_err(|e| format!("peer {id}: bad URL {url:?}: {e}"))?;
        if uri.scheme_str() != Some("http") || uri.authority().is_none() {
            return Err(format!(
                "peer {id}: {url:?} is not an http://host:port/path URL (peers are reached over plain HTTP, on a private network)"
            ));
        }
        let mut peers = self.inner.peers.clone();
        peers.insert(id.clone(), uri);
        Ok(Self {
            inner: Arc::new(Inner {
                id: self.inner.id.clone(),
                peers,
                client: OnceLock::new(),
            }),
        })
    }

    /// This instance's id.
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The peers' ids.
    pub fn peers(&self) -> impl Iterator<Item = &str> {
        self.inner.peers.keys().map(String::as_str)
    }

    /// A fresh `requestState` handle of this instance: its id and 128
    /// random bits (unguessable, so no client can answer another's call).
    pub(crate) fn mint(&self) -> Result<String, ErrorObject> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| {
            errors::internal_error(format!("no randomness for a requestState: {e}"))
        })?;
        Ok(format!("{}.{}", self.inner.id, hex(&bytes)))
    }

    /// The answer to a retry (`method` with `params`, as the front got
    /// them) whose `requestState` another instance minted: the peer's
    /// answer, or the refusal. `None` when the request is this instance's
    /// to serve: no `requestState`, one of ours, one not in our shape (a
    /// modern backend's own), or a legacy front session (the runtime runs
    /// its rounds in this process).
    pub(crate) async fn take_over(
        &self,
        method: &str,
        params: &Value,
        ctx: &RequestContext,
        patience: Duration,
    ) -> Option<HandlerResult<Value>> {
        if ctx.is_legacy() {
            return None;
        }
        let state = params.get("requestState")?.as_str()?;
        let held_by = holder(state)?;
        if held_by == self.inner.id {
            return None;
        }
        let forwarded_by = ctx
            .http_request()
            .and_then(|request| request.headers.get(FORWARDED_BY));
        if let Some(by) = forwarded_by {
            // Loop guard: a forwarded retry is served here or refused.
            let by = String::from_utf8_lossy(by.as_bytes()).into_owned();
            tracing::warn!(
                held_by,
                forwarded_by = by,
                "a forwarded retry names another instance again: refused"
            );
            return Some(Err(self.refusal(held_by, "it was forwarded here already")));
        }
        let Some(peer) = self.inner.peers.get(held_by) else {
            tracing::info!(
                held_by,
                "a retry names an instance that is not a peer: refused"
            );
            return Some(Err(self.refusal(held_by, "it is not a peer")));
        };
        tracing::info!(held_by, %peer, method, "a retry forwarded to the instance holding its round");
        let forward = self.forward(peer, method, params, ctx);
        Some(match tokio::time::timeout(patience, forward).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(Unreached(why))) => {
                tracing::warn!(held_by, %peer, "the peer holding a round cannot be reached: {why}");
                Err(self.refusal(held_by, &why))
            }
            Err(_) => Err(errors::timed_out(format!(
                "gateway instance {held_by}, which holds this round, did not answer within {patience:?}"
            ))),
        })
    }

    /// The `-32602` a retry gets when the instance holding its round
    /// cannot complete it from here: retryable, by calling again without
    /// `requestState` (a fresh call) or on the instance that answered.
    fn refusal(&self, held_by: &str, why: &str) -> ErrorObject {
        let me = &self.inner.id;
        let mut error = errors::invalid_params(format!(
            "this round's state is held by gateway instance {held_by}, which instance {me} cannot reach ({why}): \
             call again without requestState, or route a call's retries to the instance that answered it"
        ));
        error.data = Some(json!({"instance": me, "heldBy": held_by, "retryable": true}));
        error
    }

    /// `method` posted to `peer`'s front as the JSON-RPC request the front
    /// got: the peer's result or error, or why it gave neither.
    async fn forward(
        &self,
        peer: &hyper::Uri,
        method: &str,
        params: &Value,
        ctx: &RequestContext,
    ) -> Result<HandlerResult<Value>, Unreached> {
        let mut params = params.clone();
        // The validated `_meta` (version, capabilities) as the client sent it.
        if let (Some(object), Ok(meta)) = (params.as_object_mut(), serde_json::to_value(&ctx.meta))
        {
            object.insert("_meta".into(), meta);
        }
        let body = json!({"jsonrpc": "2.0", "id": ctx.id, "method": method, "params": params});
        let body = serde_json::to_vec(&body).map_err(|e| Unreached(e.to_string()))?;
        let mut request = hyper::Request::post(peer.clone())
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| Unreached(e.to_string()))?;
        let headers = request.headers_mut();
        if let Some(front) = ctx.http_request() {
            for (name, value) in &front.headers {
                if kept(name) {
                    headers.append(name.clone(), value.clone());
                }
            }
        }
        let defaults = [
            (CONTENT_TYPE, "application/json".to_owned()),
            (ACCEPT, "application/json, text/event-stream".to_owned()),
            (
                HeaderName::from_static("mcp-protocol-version"),
                ctx.protocol_version().to_owned(),
            ),
            (HeaderName::from_static("mcp-method"), method.to_owned()),
        ];
        let name = params
            .get(if method == "resources/read" {
                "uri"
            } else {
                "name"
            })
            .and_then(Value::as_str)
            .map(|name| (HeaderName::from_static("mcp-name"), name.to_owned()));
        for (header, value) in defaults.into_iter().chain(name) {
            if !headers.contains_key(&header)
                && let Ok(value) = HeaderValue::from_str(&value)
            {
                headers.insert(header, value);
            }
        }
        if let Ok(me) = HeaderValue::from_str(&self.inner.id) {
            headers.insert(HeaderName::from_static(FORWARDED_BY), me);
        }
        let client = self
            .inner
            .client
            .get_or_init(|| HyperClient::builder(TokioExecutor::new()).build(HttpConnector::new()));
        let response = client
            .request(request)
            .await
            .map_err(|e| Unreached(chain(&e)))?;
        let status = response.status();
        let sse = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let body = Limited::new(response.into_body(), MOST_ANSWER_BYTES)
            .collect()
            .await
            .map_err(|e| Unreached(format!("its answer could not be read: {e}")))?
            .to_bytes();
        let answer = if sse {
            from_events(&body, &ctx.id)
        } else {
            serde_json::from_slice::<Value>(&body).ok()
        };
        let Some(answer) = answer else {
            return Err(Unreached(format!(
                "it answered HTTP {status} without a JSON-RPC response"
            )));
        };
        if let Some(error) = answer.get("error") {
            let error: ErrorObject = serde_json::from_value(error.clone())
                .map_err(|e| Unreached(format!("its error is not a JSON-RPC error: {e}")))?;
            return Ok(Err(error));
        }
        match answer.get("result") {
            Some(result) => Ok(Ok(result.clone())),
            None => Err(Unreached(format!(
                "it answered HTTP {status} without a result or an error"
            ))),
        }
    }
}

/// Why a peer gave no answer.
struct Unreached(String);

/// The front request headers a forwarded retry keeps (those its front
/// checks, and the client's credentials for the peer's own check).
fn kept(name: &HeaderName) -> bool {
    let name = name.as_str();
    name == CONTENT_TYPE.as_str()
        || name == ACCEPT.as_str()
        || name == AUTHORIZATION.as_str()
        || name == "mcp-protocol-version"
        || name == "mcp-method"
        || name == "mcp-name"
        || name.starts_with("mcp-param-")
}

/// The JSON-RPC response to request `id` among the `data:` of an SSE body.
fn from_events(body: &[u8], id: &impl serde::Serialize) -> Option<Value> {
    let id = serde_json::to_value(id).ok()?;
    let text = String::from_utf8_lossy(body);
    let mut data = String::new();
    let mut found = None;
    // An event ends at a blank line; its `data:` lines join with newlines.
    for line in text.lines().chain(std::iter::once("")) {
        if let Some(rest) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        } else if line.is_empty() && !data.is_empty() {
            if let Ok(message) = serde_json::from_str::<Value>(&data)
                && message.get("id") == Some(&id)
                && (message.get("result").is_some() || message.get("error").is_some())
            {
                found = Some(message);
            }
            data.clear();
        }
    }
    found
}

/// The instance a `requestState` of ours names: `<instance>.<32 hex>`.
/// `None` for any other shape (a modern backend's own state).
pub(crate) fn holder(state: &str) -> Option<&str> {
    let (instance, random) = state.split_once('.')?;
    let random_ok = random.len() == 32
        && random
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (random_ok && check_id(instance).is_ok()).then_some(instance)
}

/// The reply to `method` from a peer's result (already in the front's
/// shape), checked as its modern type.
pub(crate) fn reply(method: &str, result: Value, ctx: &RequestContext) -> HandlerResult<Reply> {
    const PEER: &str = "the peer";
    match method {
        "tools/call" => call_reply(PEER, result, ctx),
        "prompts/get" => ctx.reply(checked::<GetPromptResultResponseResult>(
            PEER, method, result,
        )?),
        "resources/read" => ctx.reply(checked::<ReadResourceResultResponseResult>(
            PEER, method, result,
        )?),
        other => Err(errors::internal_error(format!(
            "{other} has no rounds to forward"
        ))),
    }
}

/// Whether `id` is a valid instance id.
fn check_id(id: &str) -> Result<(), String> {
    let ok = (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "bad instance id {id:?}: 1 to 64 of A-Z a-z 0-9 _ -"
        ))
    }
}

/// `error` and its sources, `: `-separated (hyper's own message is only
/// "client error (Connect)"; the cause is in its sources).
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_states_name_their_instance() -> Result<(), String> {
        let instances = Instances::new("gw-a")?;
        let state = instances.mint().map_err(|e| e.message)?;
        assert_eq!(holder(&state), Some("gw-a"));
        assert_ne!(Some(state), instances.mint().ok());
        // A modern backend's sealed state, an old handle: not ours.
        assert_eq!(holder("v1.k1.AAAA"), None);
        assert_eq!(holder(&"ab".repeat(16)), None);
        assert_eq!(holder("a b.0123456789abcdef0123456789abcdef"), None);
        assert!(Instances::new("a.b").is_err());
        assert!(Instances::new("").is_err());
        assert_eq!(Instances::random().id().len(), 8);
        Ok(())
    }

    #[test]
    fn peers_are_plain_http_urls_of_other_ids() -> Result<(), String> {
        let instances = Instances::new("a")?;
        assert!(instances.clone().with_peer("a", "http://x:1/mcp").is_err());
        assert!(instances.clone().with_peer("b", "https://x:1/mcp").is_err());
        assert!(instances.clone().with_peer("b", "not a url").is_err());
        let with = instances.with_peer("b", "http://127.0.0.1:9/mcp")?;
        assert_eq!(with.peers().collect::<Vec<_>>(), ["b"]);
        Ok(())
    }

    #[test]
    fn the_response_is_found_among_events() {
        let body = b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n\
                     data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"a\":1}}\n\n";
        let found = from_events(body, &7);
        assert_eq!(
            found.and_then(|m| m.get("result").cloned()),
            Some(json!({"a": 1}))
        );
        assert_eq!(from_events(body, &8), None);
    }
}
