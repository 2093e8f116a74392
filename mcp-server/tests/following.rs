//! `McpServer::following`: what a server keeps while a client follows its
//! events, from a `subscriptions/listen` stream (modern, on stdio and over
//! HTTP) or a legacy session's `resources/subscribe`, dropped when the
//! client stops.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_era_server::http::HttpConfig;
use mcp_era_server::mcp_era_types::v2026_07_28::{
    Implementation, ServerCapabilities, SubscriptionFilter,
};
use mcp_era_server::stdio::{self, StdioConfig};
use mcp_era_server::{Following, McpServer, RequestContext, ServerDeclaration};
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf,
    WriteHalf,
};
use tokio::net::{TcpListener, TcpStream};

/// The filters followed now, one per live guard.
#[derive(Clone, Default)]
struct Followed(Arc<Mutex<Vec<(u64, Value)>>>);

/// Removes its filter from [`Followed`] when dropped.
struct Guard(Followed, u64);

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.0.lock().unwrap().retain(|(id, _)| *id != self.1);
    }
}

impl Followed {
    fn now(&self) -> Vec<Value> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|(_, f)| f.clone())
            .collect()
    }

    /// Waits (boundedly) until the filters followed are `expected`.
    async fn become_(&self, expected: Vec<Value>) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while self.now() != expected {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{:?} != {expected:?}",
                self.now()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

struct Watcher {
    declaration: Arc<ServerDeclaration>,
    followed: Followed,
    next: Mutex<u64>,
}

impl McpServer for Watcher {
    fn declaration(&self) -> Arc<ServerDeclaration> {
        Arc::clone(&self.declaration)
    }

    fn following(&self, filter: &SubscriptionFilter, _: &RequestContext) -> Option<Following> {
        let id = {
            let mut next = self.next.lock().unwrap();
            *next += 1;
            *next
        };
        let filter = serde_json::to_value(filter).unwrap();
        self.followed.0.lock().unwrap().push((id, filter));
        Some(Box::new(Guard(self.followed.clone(), id)))
    }
}

type Pipe = (
    Lines<BufReader<ReadHalf<DuplexStream>>>,
    WriteHalf<DuplexStream>,
);

fn watcher() -> (Followed, Watcher) {
    let capabilities: ServerCapabilities =
        serde_json::from_value(json!({"resources": {"subscribe": true, "listChanged": true}}))
            .unwrap();
    let info = Implementation::builder()
        .name("watcher")
        .version("1")
        .build();
    let followed = Followed::default();
    let watcher = Watcher {
        declaration: Arc::new(ServerDeclaration::new(info).with_capabilities(capabilities)),
        followed: followed.clone(),
        next: Mutex::new(0),
    };
    (followed, watcher)
}

/// A watcher served over an in-memory stdio pipe.
fn serve() -> (Followed, Pipe) {
    let (followed, watcher) = watcher();
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(theirs);
    tokio::spawn(stdio::serve_with(
        Arc::new(watcher),
        read,
        write,
        StdioConfig::default(),
    ));
    let (read, write) = tokio::io::split(ours);
    (followed, (BufReader::new(read).lines(), write))
}

async fn send(pipe: &mut Pipe, message: Value) {
    pipe.1
        .write_all(format!("{message}\n").as_bytes())
        .await
        .unwrap();
}

/// The next message the server writes whose `field` is `value`.
async fn next(pipe: &mut Pipe, field: &str, value: Value) -> Value {
    loop {
        let line = tokio::time::timeout(Duration::from_secs(10), pipe.0.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message[field] == value {
            return message;
        }
    }
}

#[tokio::test]
async fn a_listen_stream_is_followed_until_it_is_cancelled() {
    let (followed, mut pipe) = serve();
    let listen = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["file:///a"], "toolsListChanged": true},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}
    }});
    send(&mut pipe, listen).await;
    next(
        &mut pipe,
        "method",
        json!("notifications/subscriptions/acknowledged"),
    )
    .await;
    // The part of the filter the server honours (it declares no tools).
    followed
        .become_(vec![json!({"resourceSubscriptions": ["file:///a"]})])
        .await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1}});
    send(&mut pipe, cancel).await;
    followed.become_(vec![]).await;
}

#[tokio::test]
async fn a_legacy_subscription_is_followed_until_unsubscribed_or_the_session_ends() {
    let (followed, mut pipe) = serve();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    send(&mut pipe, initialize).await;
    next(&mut pipe, "id", json!(1)).await;
    send(
        &mut pipe,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    let subscribe = |id: u64, method: &str, uri: &str| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"uri": uri}});
    for (id, uri) in [(2, "file:///a"), (3, "file:///b")] {
        send(&mut pipe, subscribe(id, "resources/subscribe", uri)).await;
        let answer = next(&mut pipe, "id", json!(id)).await;
        assert_eq!(answer["result"], json!({}), "{answer}");
    }
    let a = json!({"resourceSubscriptions": ["file:///a"]});
    let b = json!({"resourceSubscriptions": ["file:///b"]});
    followed.become_(vec![a.clone(), b.clone()]).await;
    send(
        &mut pipe,
        subscribe(4, "resources/unsubscribe", "file:///a"),
    )
    .await;
    next(&mut pipe, "id", json!(4)).await;
    followed.become_(vec![b]).await;
    drop(pipe);
    followed.become_(vec![]).await;
}

/// Over HTTP the stream outlives the handler that opened it (it is handed
/// to the transport once acknowledged): the guard still lives as long as
/// the stream, which still gets its events, and goes with its connection.
#[tokio::test]
async fn an_http_listen_stream_is_followed_until_its_connection_closes() {
    let (followed, watcher) = watcher();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = HttpConfig::new(addr);
    let events = config.events.clone();
    tokio::spawn(mcp_era_server::http::serve_listener(
        Arc::new(watcher),
        listener,
        config,
    ));
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["file:///a"]},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}
    }})
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut seen = String::new();
    let mut read_until = async |stream: &mut TcpStream, what: &str| {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !seen.contains(what) {
            let mut chunk = vec![0; 4096];
            let n = tokio::time::timeout_at(deadline, stream.read(&mut chunk))
                .await
                .unwrap()
                .unwrap();
            assert!(n > 0, "closed before {what}: {seen}");
            seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    };
    read_until(&mut stream, "notifications/subscriptions/acknowledged").await;
    followed
        .become_(vec![json!({"resourceSubscriptions": ["file:///a"]})])
        .await;
    events.resource_updated("file:///a");
    read_until(&mut stream, "notifications/resources/updated").await;
    assert!(
        seen.contains(r#""io.modelcontextprotocol/subscriptionId":5"#),
        "{seen}"
    );
    drop(stream);
    followed.become_(vec![]).await;
}
