//! The HTTP transport's limits against misbehaving clients: header and body
//! timeouts, the connection cap, the legacy session table under a flood,
//! the session header of modern requests, `-0` ids, graceful shutdown, and
//! `Connection: close` on answers given before the body is read.
//! Timeouts in the configs are set short so that each rule shows within a
//! second; the waits around them are hang guards or generous margins.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use common::{GUARD, http, open_legacy_session, post, request};
use mcp_era_server::http::HttpConfig;
use mcp_everything::Everything;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// Serves the fixture with `config` until the returned sender fires (or is
/// dropped); the join handle yields what `serve_listener_until` returned.
async fn start(
    tweak: impl FnOnce(&mut HttpConfig),
) -> (
    String,
    oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(addr);
    tweak(&mut config);
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(mcp_era_server::http::serve_listener_until(
        Arc::new(Everything::new()),
        listener,
        config,
        async {
            let _ = stopped.await;
        },
    ));
    (format!("127.0.0.1:{}", addr.port()), stop, server)
}

/// Reads until the peer closes; `true` when it closed within `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut sink = Vec::new();
    matches!(
        tokio::time::timeout(within, stream.read_to_end(&mut sink)).await,
        Ok(Ok(_)) | Ok(Err(_))
    )
}

#[tokio::test]
async fn a_slow_header_block_and_an_idle_connection_are_closed() {
    let (addr, _stop, _server) =
        start(|c| c.header_read_timeout = Duration::from_millis(300)).await;
    // Slowloris: a header block that never ends.
    let mut slow = TcpStream::connect(&addr).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1")
        .await
        .unwrap();
    assert!(closed_within(&mut slow, GUARD).await);
    // Connected, then silent.
    let mut idle = TcpStream::connect(&addr).await.unwrap();
    assert!(closed_within(&mut idle, GUARD).await);
    // Kept alive after a request, then silent.
    let mut kept = TcpStream::connect(&addr).await.unwrap();
    let body = request(1, "server/discover", json!({})).to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    kept.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0; 4096];
    let read = kept.read(&mut answer).await.unwrap();
    assert!(answer[..read].starts_with(b"HTTP/1.1 200"));
    assert!(closed_within(&mut kept, GUARD).await);
    // A normal client is still served.
    let discover = post(&addr, &request(1, "server/discover", json!({})), &[]).await;
    assert_eq!(discover.status, 200);
}

/// A keep-alive POST to `path` with `extra` header lines that sends 11 of
/// its 100 body bytes; everything the server writes until it closes.
async fn partial_post(addr: &str, path: &str, extra: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}Content-Length: 100\r\n\r\n{{\"jsonrpc\""
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = String::new();
    tokio::time::timeout(GUARD, stream.read_to_string(&mut raw))
        .await
        .unwrap()
        .unwrap();
    raw
}

#[tokio::test]
async fn a_body_that_never_arrives_gets_408_and_the_connection_closes() {
    let (addr, _stop, _server) = start(|c| c.body_read_timeout = Duration::from_millis(300)).await;
    let raw = partial_post(&addr, "/mcp", "Content-Type: application/json\r\n").await;
    assert!(raw.starts_with("HTTP/1.1 408"), "{raw}");
    assert!(
        raw.to_ascii_lowercase().contains("connection: close"),
        "{raw}"
    );
    assert!(
        raw.contains("Request body not received within 300 ms"),
        "{raw}"
    );
}

#[tokio::test]
async fn an_answer_given_before_the_body_is_read_closes_the_connection() {
    let (addr, _stop, _server) = start(|_| {}).await;
    for (case, path, extra, want) in [
        ("another path", "/elsewhere", "", "404"),
        ("Origin", "/mcp", "Origin: http://evil.example\r\n", "403"),
        (
            "Content-Type",
            "/mcp",
            "Content-Type: text/plain\r\n",
            "415",
        ),
        ("Accept", "/mcp", "Accept: text/html\r\n", "406"),
    ] {
        // Most of the body still to come: the answer must say the
        // connection ends rather than leave the client to race it.
        let raw = partial_post(&addr, path, extra).await;
        assert!(
            raw.starts_with(&format!("HTTP/1.1 {want}")),
            "{case}: {raw}"
        );
        assert!(
            raw.to_ascii_lowercase().contains("connection: close"),
            "{case}: {raw}"
        );
    }
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_for_a_free_slot() {
    let (addr, _stop, _server) = start(|c| c.max_connections = 2).await;
    let first = TcpStream::connect(&addr).await.unwrap();
    let second = TcpStream::connect(&addr).await.unwrap();
    // The kernel completes the third handshake, but the server does not
    // take the connection while both slots are held.
    let waiting = tokio::spawn({
        let addr = addr.clone();
        async move { post(&addr, &request(3, "server/discover", json!({})), &[]).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "served beyond the connection cap");
    drop(first);
    let served = tokio::time::timeout(GUARD, waiting).await.unwrap().unwrap();
    assert_eq!(served.status, 200);
    drop(second);
}

#[tokio::test]
async fn an_initialize_flood_does_not_end_a_session_in_use() {
    let (addr, _stop, _server) = start(|c| c.max_sessions = 3).await;
    let initialize = |id: i64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "flood", "version": "1"}}})
    };
    let legacy_headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let opened = http(&addr, "POST", &legacy_headers, &initialize(1).to_string()).await;
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    fn with_session<'a>(base: &[(&'a str, &'a str)], session: &'a str) -> Vec<(&'a str, &'a str)> {
        let mut headers = base.to_vec();
        headers.push(("Mcp-Session-Id", session));
        headers.push(("MCP-Protocol-Version", "2025-11-25"));
        headers
    }
    let used = http(
        &addr,
        "POST",
        &with_session(&legacy_headers, &session),
        &ping,
    )
    .await;
    assert_eq!(used.status, 200, "{}", used.body);
    let mut flood = Vec::new();
    for id in 10..30 {
        let reply = http(&addr, "POST", &legacy_headers, &initialize(id).to_string()).await;
        flood.push(reply.header("mcp-session-id").unwrap().to_owned());
    }
    let still = http(
        &addr,
        "POST",
        &with_session(&legacy_headers, &session),
        &ping,
    )
    .await;
    assert_eq!(
        still.status, 200,
        "the session in use was ended: {}",
        still.body
    );
    // The table stayed at its cap: the oldest flood sessions are gone.
    let oldest = http(
        &addr,
        "POST",
        &with_session(&legacy_headers, &flood[0]),
        &ping,
    )
    .await;
    assert_eq!(oldest.status, 404);
    let newest = http(
        &addr,
        "POST",
        &with_session(&legacy_headers, &flood[19]),
        &ping,
    )
    .await;
    assert_eq!(newest.status, 200);
}

#[tokio::test]
async fn a_modern_request_ignores_a_session_header_with_non_ascii_bytes() {
    let (addr, _stop, _server) = start(|_| {}).await;
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    let body = request(1, "server/discover", json!({})).to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\nContent-Length: {}\r\nMcp-Session-Id: ",
        body.len()
    )
    .into_bytes();
    head.extend_from_slice(b"caf\xc3\xa9\r\n\r\n");
    stream.write_all(&head).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut raw = String::new();
    tokio::time::timeout(GUARD, stream.read_to_string(&mut raw))
        .await
        .unwrap()
        .unwrap();
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
}

#[tokio::test]
async fn an_id_written_minus_zero_is_the_integer_zero() {
    let (addr, _stop, _server) = start(|_| {}).await;
    let body = request(0, "server/discover", json!({}))
        .to_string()
        .replace("\"id\":0", "\"id\":-0");
    assert!(body.contains("\"id\":-0"), "{body}");
    let headers = [
        ("Content-Type", "application/json"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "server/discover"),
    ];
    let reply = http(&addr, "POST", &headers, &body).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["id"], json!(0));
    // A float zero is still not an id: the error leaves it out.
    let float = body.replace("\"id\":-0", "\"id\":-0.0");
    let reply = http(&addr, "POST", &headers, &float).await;
    assert_eq!(reply.status, 400);
    assert!(reply.json().get("id").is_none(), "{}", reply.body);
}

#[tokio::test]
async fn shutdown_finishes_the_request_in_flight_then_stops_accepting() {
    let (addr, stop, server) = start(|c| c.shutdown_grace = Duration::from_secs(10)).await;
    let in_flight = tokio::spawn({
        let addr = addr.clone();
        async move {
            let call = request(1, "tools/call", json!({"name": "test_reconnection"}));
            post(&addr, &call, &[]).await
        }
    });
    tokio::time::sleep(Duration::from_millis(30)).await;
    stop.send(()).unwrap();
    let finished = tokio::time::timeout(GUARD, in_flight)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(finished.status, 200, "{}", finished.body);
    assert!(finished.body.contains("Reconnection test completed"));
    tokio::time::timeout(GUARD, server)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(TcpStream::connect(&addr).await.is_err(), "still accepting");
}

#[tokio::test]
async fn shutdown_ends_listen_streams_with_their_result() {
    let (addr, stop, server) = start(|_| {}).await;
    let listen = tokio::spawn({
        let addr = addr.clone();
        async move {
            let listen = request(
                7,
                "subscriptions/listen",
                json!({"notifications": {"toolsListChanged": true}}),
            );
            post(&addr, &listen, &[]).await
        }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.send(()).unwrap();
    let ended = tokio::time::timeout(GUARD, listen).await.unwrap().unwrap();
    let events = ended.events();
    let last = events.last().unwrap();
    assert_eq!(last["id"], json!(7), "{events:?}");
    assert_eq!(last["result"]["resultType"], "complete");
    tokio::time::timeout(GUARD, server)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_legacy_request_with_another_version_header_gets_400() {
    let (addr, _stop, _server) = start(|_| {}).await;
    let json = ("Content-Type", "application/json");
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}});
    let opened = http(&addr, "POST", &[json], &initialize.to_string()).await;
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let ask = |version: Option<&'static str>| {
        let session = session.clone();
        let addr = addr.clone();
        let ping = ping.clone();
        async move {
            let mut headers = vec![json, ("Mcp-Session-Id", session.as_str())];
            if let Some(version) = version {
                headers.push(("MCP-Protocol-Version", version));
            }
            http(&addr, "POST", &headers, &ping).await
        }
    };
    let other = ask(Some("2025-06-18")).await;
    assert_eq!(other.status, 400, "{}", other.body);
    assert_eq!(other.json()["id"], json!(2));
    assert_eq!(ask(Some("2025-11-25")).await.status, 200);
    assert_eq!(ask(None).await.status, 200);
}

/// Opens a `subscriptions/listen` on its own connection and reads until
/// its answer starts: (status, head and what came of the body, stream).
async fn open_listen(addr: &str, id: i64) -> (u16, String, TcpStream) {
    let body = request(
        id,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    )
    .to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut seen = String::new();
    // An admitted stream shows its acknowledgement, a refused one its error.
    while !seen.contains("acknowledged") && !seen.contains("\"error\"") {
        let mut chunk = vec![0; 4096];
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "closed before an answer: {seen}");
        seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
    }
    let status = seen[9..12].parse().unwrap();
    (status, seen, stream)
}

#[tokio::test]
async fn idle_listen_streams_past_their_cap_never_lock_out_other_requests() {
    let (addr, _stop, _server) = start(|c| {
        c.max_connections = 8;
        c.max_streams = 4;
    })
    .await;
    // Twelve idle listens, more than the connections: four are admitted,
    // the others refused with their connection closed.
    let opening: Vec<_> = (0..12)
        .map(|id| {
            let addr = addr.clone();
            tokio::spawn(async move { tokio::time::timeout(GUARD, open_listen(&addr, id)).await })
        })
        .collect();
    let mut open = Vec::new();
    for listen in opening {
        let (status, seen, mut stream) = listen.await.unwrap().expect("hang guard");
        match status {
            200 => open.push(stream),
            429 => {
                let lower = seen.to_ascii_lowercase();
                assert!(lower.contains("connection: close"), "{seen}");
                assert!(lower.contains("retry-after: 1"), "{seen}");
                let (_, body) = seen.split_once("\r\n\r\n").unwrap();
                let error: serde_json::Value = serde_json::from_str(body).unwrap();
                assert_eq!(error["error"]["code"], -32603, "{body}");
                assert!(error["id"].is_i64(), "{body}");
                assert!(closed_within(&mut stream, GUARD).await, "kept open");
            }
            other => panic!("{other}: {seen}"),
        }
    }
    assert_eq!(open.len(), 4);
    let discover = tokio::time::timeout(
        GUARD,
        post(&addr, &request(99, "server/discover", json!({})), &[]),
    )
    .await
    .expect("discover waited behind idle streams");
    assert_eq!(discover.status, 200);
    // A closed stream frees its place.
    drop(open.pop());
    let reopened = async {
        loop {
            let (status, _, stream) = open_listen(&addr, 100).await;
            if status == 200 {
                return stream;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(GUARD, reopened)
        .await
        .expect("no place freed");
}

#[tokio::test]
async fn legacy_get_streams_share_the_stream_cap() {
    let (addr, _stop, _server) = start(|c| c.max_streams = 1).await;
    let (_status, _, _held) = open_listen(&addr, 1).await;
    let session = open_legacy_session(&addr).await;
    let headers = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session.as_str()),
    ];
    let refused = http(&addr, "GET", &headers, "").await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(refused.json()["error"]["code"], -32603);
    assert_eq!(refused.header("connection"), Some("close"));
}
