//! Findings of a black-box probe, replayed over raw sockets (a hyper client
//! would normalize the very headers under test): repeated MCP header
//! lines, the `Host` rules of RFC 9112 §3.2 (missing, repeated, invalid,
//! absolute-form targets) and transfer codings other than `chunked`.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

mod common;

use std::sync::Arc;

use common::{GUARD, request};
use mcp_era_server::http::HttpConfig;
use mcp_everything::Everything;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Serves the fixture on a loopback port for the rest of the test.
async fn start(tweak: impl FnOnce(&mut HttpConfig)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(addr);
    tweak(&mut config);
    tokio::spawn(mcp_era_server::http::serve_listener(
        Arc::new(Everything::new()),
        listener,
        config,
    ));
    addr.to_string()
}

/// What came back on the wire for one raw request.
struct Wire {
    raw: String,
}

impl Wire {
    fn status(&self) -> u16 {
        self.raw
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }

    fn header(&self, name: &str) -> Option<&str> {
        let (head, _) = self.raw.split_once("\r\n\r\n")?;
        head.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    }

    /// The JSON body (these answers carry a `Content-Length`).
    fn json(&self) -> Value {
        let (_, body) = self.raw.split_once("\r\n\r\n").unwrap();
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {}", self.raw))
    }
}

/// Sends `head` (header lines, without the final blank line) and `body` in
/// one write, then reads until the server closes.
async fn exchange(addr: &str, head: &str, body: &str) -> Wire {
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let bytes = format!("{head}\r\n\r\n{body}");
        stream.write_all(bytes.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        // A reset after the answer (unread bytes) still leaves the answer.
        let _ = stream.read_to_end(&mut raw).await;
        String::from_utf8_lossy(&raw).into_owned()
    };
    Wire {
        raw: tokio::time::timeout(GUARD, exchange).await.unwrap(),
    }
}

/// A modern POST of `message` with `lines` as its MCP header lines.
async fn post_with(addr: &str, message: &Value, lines: &[&str]) -> Wire {
    let body = message.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}",
        body.len()
    );
    for line in lines {
        head.push_str("\r\n");
        head.push_str(line);
    }
    exchange(addr, &head, &body).await
}

fn code(wire: &Wire) -> Value {
    wire.json()["error"]["code"].clone()
}

#[tokio::test]
async fn repeated_mcp_header_lines_are_refused_with_32020() {
    let addr = start(|_| {}).await;
    let version = "MCP-Protocol-Version: 2026-07-28";
    let call = request(
        1,
        "tools/call",
        json!({"name": "test_simple_text", "arguments": {}}),
    );
    let discover = request(2, "server/discover", json!({}));
    let region = request(
        3,
        "tools/call",
        json!({"name": "test_custom_header", "arguments": {"region": "eu"}}),
    );
    let call_method = "Mcp-Method: tools/call";
    // One line each: served.
    for (message, lines) in [
        (
            &call,
            vec![version, call_method, "Mcp-Name: test_simple_text"],
        ),
        (&discover, vec![version, "Mcp-Method: server/discover"]),
        (
            &region,
            vec![
                version,
                call_method,
                "Mcp-Name: test_custom_header",
                "Mcp-Param-Region: eu",
            ],
        ),
    ] {
        let wire = post_with(&addr, message, &lines).await;
        assert_eq!(wire.status(), 200, "{}", wire.raw);
    }
    for (case, message, lines) in [
        (
            "Mcp-Name naming another tool",
            &call,
            vec![
                version,
                call_method,
                "Mcp-Name: test_simple_text",
                "Mcp-Name: test_error_handling",
            ],
        ),
        (
            "Mcp-Method naming another method",
            &discover,
            vec![
                version,
                "Mcp-Method: server/discover",
                "Mcp-Method: tools/list",
            ],
        ),
        (
            "MCP-Protocol-Version naming another version",
            &discover,
            vec![
                version,
                "mcp-protocol-version: 2025-11-25",
                "Mcp-Method: server/discover",
            ],
        ),
        (
            "Mcp-Param-Region with another value",
            &region,
            vec![
                version,
                call_method,
                "Mcp-Name: test_custom_header",
                "Mcp-Param-Region: eu",
                "mcp-param-region: us",
            ],
        ),
        (
            "Mcp-Name with the same value",
            &call,
            vec![
                version,
                call_method,
                "Mcp-Name: test_simple_text",
                "Mcp-Name: test_simple_text",
            ],
        ),
        (
            "Mcp-Param-Region with the same value",
            &region,
            vec![
                version,
                call_method,
                "Mcp-Name: test_custom_header",
                "Mcp-Param-Region: eu",
                "Mcp-Param-Region: eu",
            ],
        ),
    ] {
        let wire = post_with(&addr, message, &lines).await;
        assert_eq!(wire.status(), 400, "{case}: {}", wire.raw);
        assert_eq!(code(&wire), json!(-32020), "{case}: {}", wire.raw);
        assert_eq!(wire.json()["id"], message["id"], "{case}: {}", wire.raw);
    }
}

#[tokio::test]
async fn a_repeated_session_header_is_refused_unless_the_request_is_modern() {
    let addr = start(|_| {}).await;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}});
    let opened = post_with(&addr, &initialize, &[]).await;
    assert_eq!(opened.status(), 200, "{}", opened.raw);
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let twice = format!("Mcp-Session-Id: {session}\r\nMcp-Session-Id: {session}");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let once = format!("Mcp-Session-Id: {session}");
    assert_eq!(post_with(&addr, &ping, &[&once]).await.status(), 200);
    let legacy = post_with(&addr, &ping, &[&twice]).await;
    assert_eq!(legacy.status(), 400, "{}", legacy.raw);
    assert_eq!(code(&legacy), json!(-32600), "{}", legacy.raw);
    for method in ["GET", "DELETE"] {
        let head =
            format!("{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{twice}");
        let wire = exchange(&addr, &head, "").await;
        assert_eq!(wire.status(), 400, "{method}: {}", wire.raw);
        assert_eq!(code(&wire), json!(-32600), "{method}: {}", wire.raw);
        assert!(wire.json().get("id").is_none(), "{}", wire.raw);
    }
    // A modern request ignores the session header, however many lines.
    let modern = post_with(
        &addr,
        &request(3, "server/discover", json!({})),
        &[
            "MCP-Protocol-Version: 2026-07-28",
            "Mcp-Method: server/discover",
            &twice,
        ],
    )
    .await;
    assert_eq!(modern.status(), 200, "{}", modern.raw);
}

/// A modern `server/discover` POST to `target` with `host_lines`.
async fn discover_at(addr: &str, target: &str, host_lines: &str) -> Wire {
    let body = request(1, "server/discover", json!({})).to_string();
    let head = format!(
        "POST {target} HTTP/1.1\r\n{host_lines}Connection: close\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\nContent-Length: {}",
        body.len()
    );
    exchange(addr, &head, &body).await
}

fn assert_refused(case: &str, wire: &Wire, status: u16) {
    assert_eq!(wire.status(), status, "{case}: {}", wire.raw);
    assert_eq!(code(wire), json!(-32600), "{case}: {}", wire.raw);
    assert!(wire.json().get("id").is_none(), "{case}: {}", wire.raw);
}

#[tokio::test]
async fn host_follows_rfc_9112_section_3_2() {
    let addr = start(|_| {}).await;
    let allowed = format!("Host: {addr}\r\n");
    assert_eq!(discover_at(&addr, "/mcp", &allowed).await.status(), 200);
    for (case, target, host_lines, status) in [
        ("no Host", "/mcp", String::new(), 400),
        (
            "two Host lines, the first allowed",
            "/mcp",
            format!("Host: {addr}\r\nHost: evil.example\r\n"),
            400,
        ),
        (
            "the same Host twice",
            "/mcp",
            format!("{allowed}{allowed}"),
            400,
        ),
        (
            "an invalid Host",
            "/mcp",
            "Host: local host\r\n".to_owned(),
            400,
        ),
        ("an empty Host", "/mcp", "Host: \r\n".to_owned(), 400),
        (
            "a Host with userinfo",
            "/mcp",
            "Host: evil.example@localhost\r\n".to_owned(),
            400,
        ),
        (
            "an absolute-form target with another authority",
            "http://other.example/mcp",
            allowed.clone(),
            403,
        ),
        (
            "a disallowed Host",
            "/mcp",
            "Host: evil.example\r\n".to_owned(),
            403,
        ),
        (
            "a second Origin line, not allowed",
            "/mcp",
            format!("{allowed}Origin: http://localhost\r\nOrigin: http://evil.example\r\n"),
            403,
        ),
    ] {
        let wire = discover_at(&addr, target, &host_lines).await;
        assert_refused(case, &wire, status);
    }
    // The target's authority counts, not the Host line (RFC 9112 §3.2.2).
    let absolute = format!("http://{addr}/mcp");
    let wire = discover_at(&addr, &absolute, "Host: evil.example\r\n").await;
    assert_eq!(wire.status(), 200, "{}", wire.raw);
}

#[tokio::test]
async fn any_host_still_needs_exactly_one_valid_host_line() {
    let addr = start(|c| *c = c.clone().allow_any_host()).await;
    let absolute = discover_at(&addr, "http://other.example/mcp", "Host: x\r\n").await;
    assert_eq!(absolute.status(), 200, "{}", absolute.raw);
    assert_eq!(
        discover_at(&addr, "/mcp", "Host: anything.example\r\n")
            .await
            .status(),
        200
    );
    for (case, host_lines) in [
        ("no Host", ""),
        ("two Host lines", "Host: a.example\r\nHost: b.example\r\n"),
        ("an invalid Host", "Host: a.example:80x\r\n"),
    ] {
        let wire = discover_at(&addr, "/mcp", host_lines).await;
        assert_refused(case, &wire, 400);
    }
}

#[tokio::test]
async fn a_transfer_coding_other_than_chunked_gets_501() {
    let addr = start(|_| {}).await;
    let body = request(1, "server/discover", json!({})).to_string();
    let chunked = format!("{:x}\r\n{body}\r\n0\r\n\r\n", body.len());
    let with_coding = |coding: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n{coding}"
        )
    };
    for coding in ["Transfer-Encoding: chunked", "Transfer-Encoding:  Chunked "] {
        let wire = exchange(&addr, &with_coding(coding), &chunked).await;
        assert_eq!(wire.status(), 200, "{coding}: {}", wire.raw);
    }
    for coding in [
        "Transfer-Encoding: gzip, chunked",
        "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked",
        "Transfer-Encoding: identity, chunked",
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked",
    ] {
        let wire = exchange(&addr, &with_coding(coding), &chunked).await;
        assert_refused(coding, &wire, 501);
        assert_eq!(wire.header("connection"), Some("close"), "{}", wire.raw);
    }
}
