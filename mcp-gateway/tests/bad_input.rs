//! Bad input at the front: malformed requests sent to the `mcp-era-gateway`
//! binary's HTTP front and stdio front get the answers our transport gives
//! `mcp-everything` served directly (same HTTP status, same JSON-RPC
//! answer), none of them reaching the backend.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use mcp_era_server::http::{self, HttpConfig};
use mcp_era_server::stdio::{self, StdioConfig};
use mcp_everything::Everything;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

const GATEWAY: &str = env!("CARGO_BIN_EXE_mcp-era-gateway");

/// The longest one answer may take.
const PATIENCE: Duration = Duration::from_secs(10);

/// A legacy backend in `sh` that answers `initialize` and nothing else: a
/// request reaching it would never be answered, so every answer below is
/// the front's.
const BACKEND: &str = r#"while IFS= read -r line; do
  case "$line" in
    *'"method":"initialize"'*)
      id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"1"}}}\n' "$id" ;;
  esac
done"#;

/// One bad input: its name, the body (a stdio line), the `Mcp-Method` and
/// `Mcp-Protocol-Version` headers sent with it over HTTP, and the JSON-RPC
/// error code mcp-everything answers it with.
struct Case {
    name: &'static str,
    body: String,
    method: &'static str,
    version: &'static str,
    code: i64,
}

fn meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

fn request(method: &str, mut params: Value) -> Value {
    params["_meta"] = meta("2026-07-28");
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

fn cases() -> Vec<Case> {
    let case = |name, body: String, method, code| Case {
        name,
        body,
        method,
        version: "2026-07-28",
        code,
    };
    let mut no_jsonrpc = request("tools/list", json!({}));
    no_jsonrpc.as_object_mut().unwrap().remove("jsonrpc");
    let batch = json!([request("tools/list", json!({}))]);
    let old = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": meta("1999-01-01")}});
    // Over both limits (4 MiB: a body over HTTP, a line over stdio).
    let oversized = request("tools/list", json!({"pad": "a".repeat(5 << 20)}));
    vec![
        case(
            "invalid JSON",
            r#"{"jsonrpc":"2.0","id":1,"#.into(),
            "tools/list",
            -32700,
        ),
        case("not an object", "42".into(), "tools/list", -32600),
        case("no jsonrpc", no_jsonrpc.to_string(), "tools/list", -32600),
        case(
            "tools/call with a number for its name",
            request("tools/call", json!({"name": 7})).to_string(),
            "tools/call",
            -32602,
        ),
        case(
            "tools/call without its name",
            request("tools/call", json!({"arguments": {}})).to_string(),
            "tools/call",
            -32602,
        ),
        case(
            "unknown method",
            request("nope/nothing", json!({})).to_string(),
            "nope/nothing",
            -32601,
        ),
        case("a batch", batch.to_string(), "tools/list", -32600),
        case("oversized", oversized.to_string(), "tools/list", -32600),
        Case {
            name: "an unsupported version",
            body: old.to_string(),
            method: "tools/list",
            version: "1999-01-01",
            code: -32022,
        },
    ]
}

/// The gateway binary in front of [`BACKEND`], with `front` arguments
/// before the backend's command.
fn gateway(front: &[&str]) -> Child {
    Command::new(GATEWAY)
        .args(front)
        .args(["--", "sh", "-c", BACKEND])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

/// The status and the JSON body of a raw HTTP/1.1 POST of `case` to
/// `http://addr/mcp`.
async fn post(addr: &str, case: &Case) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: {}\r\n\
         Mcp-Method: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        case.version,
        case.method,
        case.body.len()
    );
    let (mut read, mut write) = stream.split();
    // Written beside the read: a server may answer an oversized body early.
    let send = async {
        let _ = write.write_all(head.as_bytes()).await;
        let _ = write.write_all(case.body.as_bytes()).await;
    };
    let mut answer = Vec::new();
    let receive = read.read_to_end(&mut answer);
    let ((), received) = tokio::time::timeout(PATIENCE, async { tokio::join!(send, receive) })
        .await
        .unwrap_or_else(|_| panic!("{}: no HTTP answer from {addr}", case.name));
    received.unwrap();
    let answer = String::from_utf8(answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = serde_json::from_str(body)
        .unwrap_or_else(|e| panic!("{}: body {body:?} ({head}): {e}", case.name));
    (status, body)
}

/// The answer to `case` written as one line to `to`, read from `from`.
async fn line(
    to: &mut (impl AsyncWrite + Unpin),
    from: &mut (impl AsyncBufReadExt + Unpin),
    case: &Case,
) -> Value {
    to.write_all(format!("{}\n", case.body).as_bytes())
        .await
        .unwrap();
    to.flush().await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(PATIENCE, from.read_line(&mut answer))
        .await
        .unwrap_or_else(|_| panic!("{}: no stdio answer", case.name))
        .unwrap();
    serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{}: {answer:?}: {e}", case.name))
}

/// Checks `direct`, mcp-everything's answer, is the error `case` expects,
/// and `gateway`'s the same.
fn same(case: &Case, front: &str, direct: &Value, gateway: &Value) {
    assert_eq!(
        direct["error"]["code"], case.code,
        "{}: mcp-everything over {front}: {direct}",
        case.name
    );
    if case.code == -32022 {
        let supported = &direct["error"]["data"]["supported"];
        assert!(
            supported
                .as_array()
                .is_some_and(|s| s.contains(&json!("2026-07-28"))),
            "{}: {direct}",
            case.name
        );
    }
    assert_eq!(gateway, direct, "{} over {front}", case.name);
}

#[tokio::test]
async fn malformed_requests_at_the_http_front_get_the_transports_answers() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let everything = listener.local_addr().unwrap().to_string();
    tokio::spawn(http::serve_listener_until(
        Arc::new(Everything::new()),
        listener,
        HttpConfig::bind("127.0.0.1:0").unwrap(),
        std::future::pending(),
    ));

    let mut child = gateway(&["--listen", "127.0.0.1:0"]);
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let front = tokio::time::timeout(PATIENCE, async {
        while let Some(line) = stderr.next_line().await.unwrap() {
            // "mcp-era-gateway: serving … on http://ADDR/mcp"
            if let Some(url) = line.split(" on http://").nth(1) {
                return url.trim_end_matches("/mcp").to_owned();
            }
        }
        panic!("the gateway ended without serving");
    })
    .await
    .expect("the gateway did not say where it serves");

    for case in cases() {
        let (direct_status, direct) = post(&everything, &case).await;
        let (status, answer) = post(&front, &case).await;
        same(&case, "HTTP", &direct, &answer);
        assert!(direct_status >= 400, "{}: {direct_status}", case.name);
        assert_eq!(status, direct_status, "{}: the HTTP status", case.name);
    }
}

#[tokio::test]
async fn malformed_requests_at_the_stdio_front_get_the_transports_answers() {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(theirs);
    tokio::spawn(stdio::serve_with(
        Arc::new(Everything::new()),
        server_read,
        server_write,
        StdioConfig::default(),
    ));
    let (read, mut direct_in) = tokio::io::split(ours);
    let mut direct_out = BufReader::new(read);

    let mut child = gateway(&[]);
    let mut front_in = child.stdin.take().unwrap();
    let mut front_out = BufReader::new(child.stdout.take().unwrap());

    for case in cases() {
        let direct = line(&mut direct_in, &mut direct_out, &case).await;
        let answer = line(&mut front_in, &mut front_out, &case).await;
        same(&case, "stdio", &direct, &answer);
    }
}
