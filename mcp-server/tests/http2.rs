//! HTTP/2 on the server's own listener (feature `http2`): prior knowledge
//! beside HTTP/1.1 on one port, requests and listen streams as streams of
//! one connection, and an idle connection closed after the header timeout
//! while one with an open stream is kept.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http2::SendRequest;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use mcp_era_server::http::HttpConfig;
use mcp_era_server::{McpServer, router};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(McpServer)]
#[mcp(name = "two", version = "1.0.0")]
struct Two;

#[router]
impl Two {
    /// Says hello.
    #[tool]
    fn hello(&self) -> String {
        "hello".to_owned()
    }
}

const GUARD: Duration = Duration::from_secs(10);

async fn start(header_read_timeout: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(addr);
    config.header_read_timeout = header_read_timeout;
    tokio::spawn(mcp_era_server::http::serve_listener(
        std::sync::Arc::new(Two),
        listener,
        config,
    ));
    format!("127.0.0.1:{}", addr.port())
}

/// An HTTP/2 connection by prior knowledge, and the task driving it
/// (it ends when the server closes the connection).
async fn connect(addr: &str) -> (SendRequest<Full<Bytes>>, tokio::task::JoinHandle<()>) {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .unwrap();
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    (sender, driver)
}

fn post(addr: &str, method: &str, params: Value) -> Request<Full<Bytes>> {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let name = mcp_era_server::mcp_era_types::headers::mcp_name(method, &params);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = Request::post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    request
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

async fn json_answer(response: Response<hyper::body::Incoming>) -> Value {
    assert_eq!(response.status(), 200);
    assert_eq!(response.version(), hyper::Version::HTTP_2);
    let body = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&body).unwrap()
}

/// Reads a stream's body until `needle` has arrived.
async fn read_until(body: &mut hyper::body::Incoming, needle: &str) -> String {
    let mut seen = String::new();
    while !seen.contains(needle) {
        let frame = tokio::time::timeout(GUARD, body.frame())
            .await
            .expect("hang guard")
            .expect("the stream ended early")
            .unwrap();
        if let Ok(data) = frame.into_data() {
            seen.push_str(std::str::from_utf8(&data).unwrap());
        }
    }
    seen
}

#[tokio::test]
async fn requests_and_listen_streams_share_one_http2_connection() {
    let addr = start(Duration::from_secs(30)).await;
    let (mut sender, _driver) = connect(&addr).await;
    let discover = sender
        .send_request(post(&addr, "server/discover", json!({})))
        .await
        .unwrap();
    let discover = json_answer(discover).await;
    assert_eq!(
        discover["result"]["supportedVersions"],
        json!(["2026-07-28"]),
        "{discover}"
    );
    // Two listen streams stay open on the connection while a call goes by.
    let mut listens = Vec::new();
    for _ in 0..2 {
        let listen = post(
            &addr,
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        );
        let response = sender.send_request(listen).await.unwrap();
        assert_eq!(response.status(), 200);
        let mut body = response.into_body();
        read_until(&mut body, "notifications/subscriptions/acknowledged").await;
        listens.push(body);
    }
    let call = post(&addr, "tools/call", json!({"name": "hello"}));
    let call = json_answer(sender.send_request(call).await.unwrap()).await;
    assert_eq!(call["result"]["content"][0]["text"], "hello", "{call}");
    // HTTP/1.1 on the same port.
    let mut plain = TcpStream::connect(&addr).await.unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: server/discover\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    plain.write_all(head.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(GUARD, plain.read_to_string(&mut answer))
        .await
        .expect("hang guard")
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[tokio::test]
async fn an_idle_http2_connection_is_closed_and_one_with_a_stream_kept() {
    let timeout = Duration::from_millis(300);
    let addr = start(timeout).await;
    // Idle after one request: closed once the timeout has passed.
    let (mut sender, driver) = connect(&addr).await;
    let discover = sender
        .send_request(post(&addr, "server/discover", json!({})))
        .await
        .unwrap();
    json_answer(discover).await;
    tokio::time::timeout(GUARD, driver)
        .await
        .expect("an idle connection was kept")
        .unwrap();
    // An open listen stream keeps its connection past the timeout.
    let (mut sender, mut driver) = connect(&addr).await;
    let listen = post(
        &addr,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let mut body = sender.send_request(listen).await.unwrap().into_body();
    read_until(&mut body, "acknowledged").await;
    let kept = tokio::time::timeout(timeout * 4, &mut driver).await;
    assert!(kept.is_err(), "closed with a stream open");
    // Once the stream is closed, the connection is idle again.
    drop(body);
    tokio::time::timeout(GUARD, driver)
        .await
        .expect("kept after its last stream closed")
        .unwrap();
}

#[tokio::test]
async fn a_connection_that_never_asks_is_closed_after_its_preface() {
    let addr = start(Duration::from_millis(300)).await;
    // The handshake (preface and settings), then no request at all.
    let (_sender, driver) = connect(&addr).await;
    tokio::time::timeout(GUARD, driver)
        .await
        .expect("a connection without requests was kept")
        .unwrap();
}

#[tokio::test]
async fn a_connection_that_says_nothing_is_closed() {
    let addr = start(Duration::from_millis(300)).await;
    let mut silent = TcpStream::connect(&addr).await.unwrap();
    let mut buffer = [0u8; 16];
    let read = tokio::time::timeout(GUARD, silent.read(&mut buffer))
        .await
        .expect("a silent connection was kept");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
}
