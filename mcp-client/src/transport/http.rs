//! Streamable HTTP: each message is one POST to the endpoint. `http://`
//! always; `https://` with the `rustls` feature (web PKI roots bundled, plus
//! any extra roots the caller trusts). A request is answered with
//! `application/json` or with a `text/event-stream` whose events carry
//! notifications and, finally, the response; a notification with 202.
//!
//! The transport returns the HTTP status along with the JSON-RPC response
//! it found (if any), because era detection reads both. It also keeps the
//! legacy `Mcp-Session-Id` once the client sets it.
//!
//! On an SSE answer, notifications go to the [`Inbound`] sink and server
//! requests (legacy sessions) are answered through it with a POST of the
//! response. A stream that ends before the response after giving event ids
//! is resumed (2025-11-25 §resumability): wait the stream's `retry` (1 s when
//! it gave none), then `GET` with `Last-Event-ID`, up to [`MAX_RESUMES`] times.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Uri};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use crate::connector::{Connector, MAX_BODY, connector};
use crate::error::{Error, Result};
use crate::headers::MCP_SESSION_ID;
use crate::sse::SseParser;
use crate::transport::{Inbound, InboundSlot, answer, reply_message};

mod credentials;

/// How many times a cut SSE stream is resumed before giving up.
pub const MAX_RESUMES: usize = 5;
/// The wait before resuming when the stream gave no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// How much of a body goes into diagnostics.
const SNIPPET: usize = 300;

/// What came back for one POST.
#[derive(Debug, Clone)]
pub struct HttpReply {
    /// The HTTP status.
    pub status: u16,
    /// The JSON-RPC response to the request, if the body held one.
    pub message: Option<Value>,
    /// The start of the raw body (empty for SSE and empty bodies).
    pub body: String,
    /// The `Mcp-Session-Id` response header, if any.
    pub session_id: Option<String>,
}

/// A connection to one Streamable HTTP endpoint.
#[derive(Debug, Clone)]
pub struct HttpTransport {
    shared: Arc<Shared>,
}

struct Shared {
    client: HyperClient<Connector, Full<Bytes>>,
    uri: Uri,
    origin: String,
    authorization: Option<HeaderValue>,
    session_id: Mutex<Option<String>>,
    protocol_version: Mutex<Option<String>>,
    inbound: InboundSlot,
    /// Requests whose POST stream ended early, by id: a response found on
    /// another stream goes to them.
    pending: Mutex<std::collections::HashMap<String, tokio::sync::oneshot::Sender<Value>>>,
    #[cfg(feature = "oauth")]
    oauth: std::sync::OnceLock<Arc<crate::auth::oauth::OAuth>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("uri", &self.uri)
            .finish_non_exhaustive()
    }
}

/// What a POST's SSE stream said, besides the response.
#[derive(Default)]
struct StreamState {
    last_event_id: Option<String>,
    retry: Option<Duration>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl HttpTransport {
    /// A transport for `url` (`http://host[:port]/path`, or `https://` with
    /// the `rustls` feature). `authorization` is sent as the `Authorization`
    /// header on every request.
    pub fn new(url: &str, authorization: Option<&str>) -> Result<Self> {
        Self::with_extra_roots(url, authorization, &[])
    }

    /// Like [`HttpTransport::new`], also trusting the DER certificates in
    /// `extra_roots` for `https://` (a private CA; used with `rustls`).
    pub fn with_extra_roots(
        url: &str,
        authorization: Option<&str>,
        extra_roots: &[Vec<u8>],
    ) -> Result<Self> {
        let bad = |reason: &str| Error::InvalidUrl {
            url: url.to_owned(),
            reason: reason.to_owned(),
        };
        let uri: Uri = url
            .parse()
            .map_err(|e: hyper::http::uri::InvalidUri| bad(&e.to_string()))?;
        let (scheme, default_port) = match uri.scheme_str() {
            Some("http") => ("http", 80),
            Some("https") if cfg!(feature = "rustls") => ("https", 443),
            Some("https") => {
                return Err(bad(
                    "https needs TLS: build mcp-client (or mcp-probe) with the `rustls` feature",
                ));
            }
            _ => return Err(bad("expected an http:// or https:// URL")),
        };
        let host = uri.host().ok_or_else(|| bad("no host"))?;
        let origin = format!(
            "{scheme}://{}:{}",
            host.to_ascii_lowercase(),
            uri.port_u16().unwrap_or(default_port)
        );
        let authorization = authorization
            .map(HeaderValue::from_str)
            .transpose()
            .map_err(|_| bad("the authorization value is not a valid header value"))?;
        let client = HyperClient::builder(TokioExecutor::new())
            .build(connector(extra_roots).map_err(|reason| bad(&reason))?);
        Ok(Self {
            shared: Arc::new(Shared {
                client,
                uri,
                origin,
                authorization,
                session_id: Mutex::new(None),
                protocol_version: Mutex::new(None),
                inbound: InboundSlot::default(),
                pending: Mutex::default(),
                #[cfg(feature = "oauth")]
                oauth: std::sync::OnceLock::new(),
            }),
        })
    }

    /// The endpoint's origin, `http://host:port`: the key of the era cache.
    pub fn origin(&self) -> &str {
        &self.shared.origin
    }

    /// Sets (or clears) the legacy session id sent with every request.
    pub fn set_session_id(&self, id: Option<String>) {
        *lock(&self.shared.session_id) = id;
    }

    /// Sets where server requests and notifications found on SSE streams
    /// go (once; later calls are ignored).
    pub fn set_inbound(&self, sink: Arc<dyn Inbound>) {
        let _ = self.shared.inbound.set(sink);
    }

    /// The `MCP-Protocol-Version` sent with the messages the transport
    /// sends on its own (answers to server requests, resumption `GET`s).
    pub fn set_protocol_version(&self, version: Option<String>) {
        *lock(&self.shared.protocol_version) = version;
    }

    /// Authorizes with OAuth when the server asks (`401`, or `403` with
    /// `insufficient_scope`): the request is retried with the new token.
    #[cfg(feature = "oauth")]
    pub fn enable_oauth(&self, options: crate::auth::options::OAuthOptions) -> Result<()> {
        let oauth = crate::auth::oauth::OAuth::new(options, &self.shared.uri.to_string())
            .map_err(|e| Error::Auth { detail: e.0 })?;
        let _ = self.shared.oauth.set(Arc::new(oauth));
        Ok(())
    }

    /// The legacy session id in use.
    pub fn session_id(&self) -> Option<String> {
        lock(&self.shared.session_id).clone()
    }

    /// Ends a legacy session with `DELETE` (best effort: a 405 or a failure
    /// is ignored, the session is forgotten either way).
    pub async fn end_session(&self, protocol_version: &str, timeout: Duration) {
        let Some(id) = lock(&self.shared.session_id).take() else {
            return;
        };
        let ending = async {
            // Twice at most: once more for a DPoP nonce challenge.
            for _ in 0..2 {
                let req = Request::builder()
                    .method(Method::DELETE)
                    .uri(self.shared.uri.clone())
                    .header(MCP_SESSION_ID, id.as_str())
                    .header(crate::headers::MCP_PROTOCOL_VERSION, protocol_version);
                let Ok((req, creds)) = self.authorize(&Method::DELETE, req) else {
                    return;
                };
                let Ok(req) = req.body(Full::new(Bytes::new())) else {
                    return;
                };
                match self.shared.client.request(req).await {
                    Ok(resp)
                        if self.nonce_retry(&creds, resp.status().as_u16(), resp.headers()) => {}
                    _ => return,
                }
            }
        };
        let _ = tokio::time::timeout(timeout, ending).await;
    }

    /// POSTs `message` with the extra `headers` and waits up to `timeout`
    /// for the status and, for a request, its response.
    pub async fn post(
        &self,
        message: &Value,
        headers: &[(&str, String)],
        timeout: Duration,
    ) -> Result<HttpReply> {
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        match tokio::time::timeout(timeout, self.post_inner(message, headers, &method)).await {
            Ok(r) => r,
            Err(_) => Err(Error::Timeout {
                method,
                after: timeout,
            }),
        }
    }

    async fn post_inner(
        &self,
        message: &Value,
        headers: &[(&str, String)],
        method: &str,
    ) -> Result<HttpReply> {
        let fail = |status: Option<u16>, detail: String| Error::Http {
            method: method.to_owned(),
            status,
            detail,
        };
        let body = Bytes::from(mcp_era_types::json::to_vec(message).map_err(|e| {
            Error::InvalidMessage {
                detail: e.to_string(),
            }
        })?);
        let mut attempts = 0;
        let resp = loop {
            let (resp, creds) = self.send_post(headers, &body, true, &fail).await?;
            if self.reauthorize(&resp, &creds, &mut attempts).await? {
                continue;
            }
            break resp;
        };
        let status = resp.status().as_u16();
        let header = |name| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let session_id = header(MCP_SESSION_ID);
        let content_type = header(CONTENT_TYPE.as_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let id = message.get("id").cloned();
        let mut body = resp.into_body();
        if content_type.starts_with("text/event-stream") {
            // The response may also come on another stream of the session
            // (the standalone GET): the reader of that one hands it over.
            let key = id.as_ref().map(Value::to_string).unwrap_or_default();
            let (tx, mut rx) = tokio::sync::oneshot::channel();
            lock(&self.shared.pending).insert(key.clone(), tx);
            let mut state = StreamState::default();
            let oversized = |detail: String| fail(Some(status), detail);
            let mut found = self
                .read_stream(body, id.as_ref(), &mut state)
                .await
                .map_err(oversized)?;
            // A stream cut before the response is resumed if it gave an event id.
            let mut resumes = 0;
            while found.is_none() && resumes < MAX_RESUMES {
                if let Ok(msg) = rx.try_recv() {
                    found = Some(msg);
                    break;
                }
                let Some(last) = state.last_event_id.clone() else {
                    break;
                };
                resumes += 1;
                let step = async {
                    tokio::time::sleep(state.retry.unwrap_or(DEFAULT_RETRY)).await;
                    match self.resume(&last).await {
                        Some(body) => self.read_stream(body, id.as_ref(), &mut state).await,
                        None => Ok(None),
                    }
                };
                tokio::select! {
                    handed = &mut rx => found = handed.ok(),
                    read = step => found = read.map_err(oversized)?,
                }
            }
            lock(&self.shared.pending).remove(&key);
            return Ok(HttpReply {
                status,
                message: found,
                body: String::new(),
                session_id,
            });
        }

        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| fail(Some(status), error_chain(&e)))?;
            if let Some(chunk) = frame.data_ref() {
                bytes.extend_from_slice(chunk);
                if bytes.len() > MAX_BODY {
                    return Err(fail(
                        Some(status),
                        format!("body larger than {MAX_BODY} bytes"),
                    ));
                }
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let message = serde_json::from_slice::<Value>(&bytes)
            .ok()
            .filter(|m| is_response_to(m, id.as_ref()));
        Ok(HttpReply {
            status,
            message,
            body: text.chars().take(SNIPPET).collect(),
            session_id,
        })
    }
}

impl HttpTransport {
    /// Reads an SSE body until the response to `id`: notifications go to
    /// the inbound sink, server requests are answered, ids and `retry` are
    /// kept in `state` for resumption. `None` when the stream ended first;
    /// an error when an event was larger than [`MAX_BODY`].
    async fn read_stream(
        &self,
        mut body: hyper::body::Incoming,
        id: Option<&Value>,
        state: &mut StreamState,
    ) -> std::result::Result<Option<Value>, String> {
        let mut parser = SseParser::with_limit(MAX_BODY);
        while let Some(Ok(frame)) = body.frame().await {
            let Some(chunk) = frame.data_ref() else {
                continue;
            };
            let events = parser.feed(chunk);
            if parser.oversized() {
                return Err(oversized_event());
            }
            for event in events {
                if let Some(ms) = event.retry {
                    state.retry = Some(Duration::from_millis(ms));
                }
                if event.id.is_some() {
                    state.last_event_id = event.id.clone();
                }
                let Ok(msg) = serde_json::from_str::<Value>(&event.data) else {
                    continue;
                };
                if is_response_to(&msg, id) {
                    return Ok(Some(msg));
                }
                self.deliver(msg);
            }
        }
        Ok(None)
    }

    /// Hands a message that is not our response to the inbound sink: a
    /// server request is answered (its response POSTed back) on its own task.
    fn deliver(&self, msg: Value) {
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        match (method, msg.get("id").filter(|i| !i.is_null()).cloned()) {
            (Some(method), Some(req_id)) => {
                let this = self.clone();
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                // Answered on its own task, as part of the request whose
                // stream it came on (`handler::call_tag`).
                tokio::spawn(crate::handler::keep_call_tag(async move {
                    let outcome = answer(&this.shared.inbound, &method, params).await;
                    let reply = reply_message(&req_id, outcome);
                    let mut h = Vec::new();
                    if let Some(v) = lock(&this.shared.protocol_version).clone() {
                        h.push((crate::headers::MCP_PROTOCOL_VERSION, v));
                    }
                    let _ = this.post(&reply, &h, Duration::from_secs(30)).await;
                }));
            }
            (Some(_), None) => {
                if let Some(sink) = self.shared.inbound.get() {
                    sink.notification(msg);
                }
            }
            (None, Some(id)) => {
                if let Some(tx) = lock(&self.shared.pending).remove(&id.to_string()) {
                    let _ = tx.send(msg);
                }
            }
            _ => {}
        }
    }

    /// Opens the legacy session's standalone `GET` stream on a task: server
    /// requests and notifications not tied to a call arrive there. A 405 (or
    /// any failure) ends the task quietly; a cut stream with event ids is
    /// resumed like a POST's.
    /// Returns once the server accepted the stream (so nothing sent on it
    /// is missed), with the task reading it.
    pub async fn open_standalone_stream(&self) -> Option<tokio::task::JoinHandle<()>> {
        let body = self.get_stream(None).await?;
        let this = self.clone();
        Some(tokio::spawn(async move {
            let mut state = StreamState::default();
            let mut read = this.read_stream(body, None, &mut state).await;
            for _ in 0..MAX_RESUMES {
                if let Err(why) = read {
                    // Resuming would send the same event again.
                    tracing::warn!("{why}; the session's GET stream is closed");
                    return;
                }
                let Some(last) = state.last_event_id.clone() else {
                    return;
                };
                tokio::time::sleep(state.retry.unwrap_or(DEFAULT_RETRY)).await;
                read = match this.get_stream(Some(&last)).await {
                    Some(body) => this.read_stream(body, None, &mut state).await,
                    None => Ok(None),
                };
            }
        }))
    }

    /// `GET` with `Last-Event-ID`: the body of a resumed stream, if the
    /// server opened one.
    async fn resume(&self, last_event_id: &str) -> Option<hyper::body::Incoming> {
        self.get_stream(Some(last_event_id)).await
    }

    /// A `GET` SSE stream of the session (resuming after `last_event_id`).
    async fn get_stream(&self, last_event_id: Option<&str>) -> Option<hyper::body::Incoming> {
        let mut nonce_retried = false;
        let resp = loop {
            let mut req = Request::builder()
                .method(Method::GET)
                .uri(self.shared.uri.clone())
                .header(ACCEPT, "text/event-stream");
            if let Some(last) = last_event_id {
                req = req.header("last-event-id", last);
            }
            if let Some(v) = lock(&self.shared.protocol_version).clone() {
                req = req.header(crate::headers::MCP_PROTOCOL_VERSION, v);
            }
            let (mut req, creds) = self.authorize(&Method::GET, req).ok()?;
            if let Some(id) = self.session_id() {
                req = req.header(MCP_SESSION_ID, id);
            }
            let req = req.body(Full::new(Bytes::new())).ok()?;
            let resp = self.shared.client.request(req).await.ok()?;
            if self.nonce_retry(&creds, resp.status().as_u16(), resp.headers()) && !nonce_retried {
                nonce_retried = true;
                continue;
            }
            break resp;
        };
        let is_sse = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"));
        (resp.status().is_success() && is_sse).then(|| resp.into_body())
    }

    /// POSTs a long-lived request (`subscriptions/listen`) and forwards
    /// every message of its answer, notifications and the final response
    /// alike, to `sink` until the stream ends or `sink` is dropped. Returns
    /// the status, and the JSON-RPC message of a non-SSE answer.
    pub async fn post_streaming(
        &self,
        message: &Value,
        headers: &[(&str, String)],
        sink: tokio::sync::mpsc::UnboundedSender<Value>,
    ) -> Result<HttpReply> {
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        let fail = |status: Option<u16>, detail: String| Error::Http {
            method: method.clone(),
            status,
            detail,
        };
        let body = mcp_era_types::json::to_vec(message).map_err(|e| Error::InvalidMessage {
            detail: e.to_string(),
        })?;
        let body = Bytes::from(body);
        let (resp, _) = self.send_post(headers, &body, false, &fail).await?;
        let status = resp.status().as_u16();
        let is_sse = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"));
        let mut body = resp.into_body();
        if !is_sse {
            let bytes = body
                .collect()
                .await
                .map_err(|e| fail(Some(status), error_chain(&e)))?
                .to_bytes();
            return Ok(HttpReply {
                status,
                message: serde_json::from_slice(&bytes).ok(),
                body: String::from_utf8_lossy(&bytes)
                    .chars()
                    .take(SNIPPET)
                    .collect(),
                session_id: None,
            });
        }
        tokio::spawn(async move {
            let mut parser = SseParser::with_limit(MAX_BODY);
            while let Some(Ok(frame)) = body.frame().await {
                let Some(chunk) = frame.data_ref() else {
                    continue;
                };
                let events = parser.feed(chunk);
                if parser.oversized() {
                    // Nobody to answer: say it, and close the stream.
                    tracing::warn!("{}; the stream is closed", oversized_event());
                    return;
                }
                for event in events {
                    if let Ok(msg) = serde_json::from_str::<Value>(&event.data)
                        && sink.send(msg).is_err()
                    {
                        return; // Nobody listens: dropping the body closes the stream.
                    }
                }
            }
        });
        Ok(HttpReply {
            status,
            message: None,
            body: String::new(),
            session_id: None,
        })
    }
}

fn oversized_event() -> String {
    format!("an SSE event larger than {MAX_BODY} bytes")
}

/// Whether `msg` is a JSON-RPC response to the request with `id`. Errors
/// with a `null` or absent id count (the server could not read the id).
fn is_response_to(msg: &Value, id: Option<&Value>) -> bool {
    let is_response = msg.get("result").is_some() || msg.get("error").is_some();
    let same_id = match msg.get("id") {
        None | Some(Value::Null) => msg.get("error").is_some(),
        Some(got) => Some(got) == id,
    };
    is_response && same_id
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        source = inner.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn urls() {
        let https = HttpTransport::new("https://example.com/mcp", None);
        if cfg!(feature = "rustls") {
            assert!(https.is_ok_and(|t| t.origin() == "https://example.com:443"));
        } else {
            assert!(https.is_err_and(|e| e.to_string().contains("rustls")));
        }
        assert!(HttpTransport::new("ftp://x/", None).is_err());
        assert!(HttpTransport::new("not a url", None).is_err());
    }

    #[tokio::test]
    async fn origin_includes_the_default_port() {
        let t = HttpTransport::new("http://LocalHost/mcp", None);
        assert!(t.is_ok_and(|t| t.origin() == "http://localhost:80"));
    }

    #[test]
    fn response_matching() {
        let id = json!(3);
        assert!(is_response_to(&json!({"id":3,"result":{}}), Some(&id)));
        assert!(!is_response_to(&json!({"id":"3","result":{}}), Some(&id)));
        assert!(!is_response_to(&json!({"id":4,"result":{}}), Some(&id)));
        assert!(is_response_to(
            &json!({"id":null,"error":{"code":1,"message":""}}),
            Some(&id)
        ));
        assert!(!is_response_to(
            &json!({"method":"notifications/progress"}),
            Some(&id)
        ));
    }
}
