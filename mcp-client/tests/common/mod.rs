//! Fake servers for the integration tests: stdio servers as tokio tasks on
//! an in-memory pipe, HTTP servers as tokio tasks on a local port.

#![allow(dead_code)] // Each test file uses a different subset.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_era_client::{Client, ClientOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// What a fake server does with one request: `None` = stay silent.
pub type Handler = Arc<dyn Fn(&Value) -> Option<Value> + Send + Sync>;

/// Every message a fake server received.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<Value>>>);

impl Log {
    pub fn push(&self, v: Value) {
        self.0.lock().unwrap().push(v);
    }
    pub fn all(&self) -> Vec<Value> {
        self.0.lock().unwrap().clone()
    }
    pub fn methods(&self) -> Vec<String> {
        self.all()
            .iter()
            .map(|m| m["method"].as_str().unwrap_or("").to_owned())
            .collect()
    }
}

pub fn result(req: &Value, result: Value) -> Option<Value> {
    Some(json!({"jsonrpc": "2.0", "id": req["id"], "result": result}))
}

pub fn error(req: &Value, code: i64, message: &str, data: Option<Value>) -> Option<Value> {
    let mut e = json!({"code": code, "message": message});
    if let Some(d) = data {
        e["data"] = d;
    }
    Some(json!({"jsonrpc": "2.0", "id": req["id"], "error": e}))
}

pub fn discover_result(supported: &[&str], ttl: i64, scope: &str) -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": supported,
        "capabilities": {"tools": {"listChanged": true}},
        "instructions": "Be nice.",
        "ttlMs": ttl,
        "cacheScope": scope,
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake-modern", "version": "1.2.3"}}
    })
}

pub fn initialize_result(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "fake-legacy", "version": "0.9"},
        "instructions": "Old school."
    })
}

pub fn tools_list_modern() -> Value {
    json!({"resultType": "complete", "tools": [{"name": "add", "inputSchema": {"type": "object"}}],
        "ttlMs": 0, "cacheScope": "public"})
}

pub fn tools_list_legacy() -> Value {
    json!({"tools": [{"name": "add", "inputSchema": {"type": "object"}}]})
}

/// A modern server: discover, tools/list, tools/call; checks nothing.
pub fn modern_handler(supported: &'static [&'static str]) -> Handler {
    Arc::new(move |req| {
        let v = req["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
            .as_str()
            .unwrap_or("");
        if !supported.contains(&v) {
            return error(
                req,
                -32022,
                "Unsupported protocol version",
                Some(json!({"supported": supported, "requested": v})),
            );
        }
        match req["method"].as_str()? {
            "server/discover" => result(req, discover_result(supported, 60_000, "public")),
            "tools/list" => result(req, tools_list_modern()),
            "tools/call" => result(
                req,
                json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}),
            ),
            _ => error(req, -32601, "Method not found", None),
        }
    })
}

/// A legacy server answering `server/discover` with `discover_reply`.
pub fn legacy_handler(discover_reply: fn(&Value) -> Option<Value>) -> Handler {
    Arc::new(move |req| match req["method"].as_str()? {
        "server/discover" => discover_reply(req),
        "initialize" => result(req, initialize_result("2025-11-25")),
        "notifications/initialized" => None,
        "tools/list" => result(req, tools_list_legacy()),
        _ => error(req, -32601, "Method not found", None),
    })
}

/// Runs `handler` as a stdio server on an in-memory pipe and connects to it.
pub async fn stdio_client(
    handler: Handler,
    opts: ClientOptions,
) -> (mcp_era_client::Result<Client>, Log) {
    let (client_side, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, mut server_write) = tokio::io::split(server_side);
    let log = Log::default();
    let server_log = log.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(server_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let req: Value = serde_json::from_str(&line).unwrap();
            server_log.push(req.clone());
            if let Some(reply) = handler(&req) {
                let mut out = reply.to_string();
                out.push('\n');
                if server_write.write_all(out.as_bytes()).await.is_err() {
                    break;
                }
            }
        }
    });
    let (client_read, client_write) = tokio::io::split(client_side);
    let client = Client::connect_streams(client_read, client_write, "fake", 1, opts).await;
    (client, log)
}

/// One HTTP request as the fake server saw it.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub headers: HashMap<String, String>,
    pub body: Value,
}

/// A fake HTTP response.
pub struct HttpResponse {
    pub status: u16,
    pub content_type: &'static str,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    pub fn json(status: u16, body: &Value) -> Self {
        Self {
            status,
            content_type: "application/json",
            headers: vec![],
            body: body.to_string(),
        }
    }
    pub fn sse(body: &Value) -> Self {
        let note = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}});
        Self {
            status: 200,
            content_type: "text/event-stream",
            headers: vec![],
            body: format!(": hello\n\nevent: message\ndata: {note}\n\nid: 2\ndata: {body}\n\n"),
        }
    }
    pub fn empty(status: u16) -> Self {
        Self {
            status,
            content_type: "",
            headers: vec![],
            body: String::new(),
        }
    }
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

pub type HttpHandler = Arc<dyn Fn(&HttpRequest) -> HttpResponse + Send + Sync>;

/// Serves `handler` on a local port; returns the URL and the request log.
pub async fn http_server(handler: HttpHandler) -> (String, Arc<Mutex<Vec<HttpRequest>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let log: Arc<Mutex<Vec<HttpRequest>>> = Arc::default();
    let server_log = log.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                break;
            };
            let handler = handler.clone();
            let log = server_log.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut tmp = [0u8; 4096];
                let head_end = loop {
                    let n = sock.read(&mut tmp).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&tmp[..n]);
                    if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        break p + 4;
                    }
                };
                let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
                let mut headers = HashMap::new();
                for line in head.lines().skip(1) {
                    if let Some((k, v)) = line.split_once(':') {
                        headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
                    }
                }
                let len: usize = headers
                    .get("content-length")
                    .and_then(|l| l.parse().ok())
                    .unwrap_or(0);
                while buf.len() < head_end + len {
                    let n = sock.read(&mut tmp).await.unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&tmp[..n]);
                }
                let body: Value = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
                let req = HttpRequest { headers, body };
                log.lock().unwrap().push(req.clone());
                let resp = handler(&req);
                let mut out = format!(
                    "HTTP/1.1 {} X\r\nConnection: close\r\nContent-Length: {}\r\n",
                    resp.status,
                    resp.body.len()
                );
                if !resp.content_type.is_empty() {
                    out.push_str(&format!("Content-Type: {}\r\n", resp.content_type));
                }
                for (k, v) in &resp.headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                out.push_str(&resp.body);
                let _ = sock.write_all(out.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    (url, log)
}
