//! Transport tests against the fixture: the HTTP server in-process on
//! `127.0.0.1:0` spoken to over raw HTTP/1.1, and the stdio transport over
//! an in-memory duplex. Timeouts are hang guards only.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::sync::Arc;

use mcp_era_server::http::HttpConfig;
use mcp_era_server::stdio::StdioConfig;
use mcp_everything::Everything;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

mod common;

use common::{GUARD, http, open_legacy_session, post, request};

// ---------------------------------------------------------------- HTTP ----

async fn start_http(max_body: Option<usize>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(addr);
    if let Some(max) = max_body {
        config.max_body_bytes = max;
    }
    tokio::spawn(mcp_era_server::http::serve_listener(
        Arc::new(Everything::new()),
        listener,
        config,
    ));
    format!("127.0.0.1:{}", addr.port())
}

#[tokio::test]
async fn http_json_answers_and_statuses() {
    let addr = start_http(None).await;
    let ok = post(&addr, &request(1, "server/discover", json!({})), &[]).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.header("content-type"), Some("application/json"));
    // A whole JSON answer has its length, not chunked encoding.
    assert_eq!(ok.header("transfer-encoding"), None);
    assert_eq!(
        ok.header("content-length")
            .and_then(|n| n.parse::<usize>().ok()),
        Some(ok.body.len())
    );
    assert_eq!(ok.json()["result"]["resultType"], "complete");
    assert!(ok.json()["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());

    // An HTTP-layer error never echoes an id that is not a valid one.
    for bad_id in [
        json!({"a": 1}),
        json!([1]),
        json!(1.5),
        json!(18446744073709551615u64),
    ] {
        let mut message = request(9, "tools/list", json!({}));
        message["id"] = bad_id.clone();
        let refused = post(&addr, &message, &[("Mcp-Method", "tools/list\u{e9}")]).await;
        assert_eq!(refused.status, 400, "{bad_id}");
        assert!(
            refused.json().get("id").is_none(),
            "{bad_id}: {}",
            refused.body
        );
    }

    // Media types: a body that is not JSON, a client that takes neither
    // JSON nor SSE.
    let text_body = post(
        &addr,
        &request(1, "server/discover", json!({})),
        &[("Content-Type", "text/plain")],
    )
    .await;
    assert_eq!(text_body.status, 415);
    assert_eq!(text_body.json()["error"]["code"], -32600);
    let html_only = post(
        &addr,
        &request(1, "server/discover", json!({})),
        &[("Accept", "text/html")],
    )
    .await;
    assert_eq!(html_only.status, 406);
    let charset = post(
        &addr,
        &request(1, "server/discover", json!({})),
        &[
            ("Content-Type", "application/json; charset=utf-8"),
            ("Accept", "*/*"),
        ],
    )
    .await;
    assert_eq!(charset.status, 200);

    let removed = post(&addr, &request(2, "ping", json!({})), &[]).await;
    assert_eq!(removed.status, 404);
    assert_eq!(removed.json()["error"]["code"], -32601);
    assert_eq!(removed.json()["id"], 2);

    let mismatch = post(
        &addr,
        &request(3, "tools/list", json!({})),
        &[("MCP-Protocol-Version", "2025-11-25")],
    )
    .await;
    assert_eq!(
        (mismatch.status, mismatch.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );

    let wrong_method = post(
        &addr,
        &request(4, "tools/list", json!({})),
        &[("mcp-method", " prompts/list ")],
    )
    .await;
    assert_eq!(wrong_method.status, 400);
    assert_eq!(wrong_method.json()["error"]["code"], -32020);

    // Trimmed whitespace and case-insensitive names are accepted.
    let trimmed = post(
        &addr,
        &request(5, "tools/call", json!({"name": "test_simple_text"})),
        &[("MCP-NAME", "  test_simple_text  ")],
    )
    .await;
    assert_eq!(trimmed.status, 200, "{}", trimmed.body);

    // The base64 sentinel is decoded (dGVzdF9zaW1wbGVfdGV4dA== = test_simple_text).
    let b64 = post(
        &addr,
        &request(6, "tools/call", json!({"name": "test_simple_text"})),
        &[("Mcp-Name", "=?base64?dGVzdF9zaW1wbGVfdGV4dA==?=")],
    )
    .await;
    assert_eq!(b64.status, 200, "{}", b64.body);
    let bad_b64 = post(
        &addr,
        &request(7, "tools/call", json!({"name": "test_simple_text"})),
        &[("Mcp-Name", "=?base64?dGVzdF9z!!!?=")],
    )
    .await;
    assert_eq!(
        (bad_b64.status, bad_b64.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );

    // Mcp-Param-* mirrors of x-mcp-header arguments.
    let call = request(
        10,
        "tools/call",
        json!({"name": "test_custom_header", "arguments": {"region": "eu"}}),
    );
    let missing = post(&addr, &call, &[]).await;
    assert_eq!(
        (missing.status, missing.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );
    let mirrored = post(&addr, &call, &[("Mcp-Param-Region", "=?base64?ZXU=?=")]).await;
    assert_eq!(mirrored.status, 200, "{}", mirrored.body);
    let wrong = post(&addr, &call, &[("mcp-param-region", "us")]).await;
    assert_eq!(wrong.status, 400);
    let absent = request(11, "tools/call", json!({"name": "test_custom_header"}));
    assert_eq!(post(&addr, &absent, &[]).await.status, 200);

    let capability = post(
        &addr,
        &request(8, "tools/call", json!({"name": "test_missing_capability"})),
        &[],
    )
    .await;
    assert_eq!(capability.status, 400);
    assert_eq!(
        capability.json()["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );

    let unsupported = post(
        &addr,
        &json!({"jsonrpc":"2.0","id":9,"method":"server/discover","params":{"_meta":{
            "io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}}}}),
        &[("MCP-Protocol-Version", "v999")],
    )
    .await;
    assert_eq!(unsupported.status, 400);
    assert_eq!(unsupported.json()["error"]["data"]["requested"], "v999");

    let note = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    let accepted = http(
        &addr,
        "POST",
        &[("MCP-Protocol-Version", "2026-07-28")],
        &note.to_string(),
    )
    .await;
    assert_eq!((accepted.status, accepted.body.as_str()), (202, ""));

    let parse = http(&addr, "POST", &[], "{not json").await;
    assert_eq!(
        (parse.status, parse.json()["error"]["code"].clone()),
        (400, json!(-32700))
    );
    let batch = http(&addr, "POST", &[], "[]").await;
    assert_eq!(
        (batch.status, batch.json()["error"]["code"].clone()),
        (400, json!(-32600))
    );

    assert_eq!(http(&addr, "GET", &[], "").await.status, 405);
    assert_eq!(http(&addr, "DELETE", &[], "").await.status, 405);
}

#[tokio::test]
async fn http_origin_host_and_body_limit() {
    let addr = start_http(Some(256)).await;
    let discover = request(1, "server/discover", json!({})).to_string();
    let evil = http(
        &addr,
        "POST",
        &[
            ("Host", "evil.example.com"),
            ("Origin", "http://evil.example.com"),
        ],
        &discover,
    )
    .await;
    assert_eq!(evil.status, 403);
    let bad_origin = post(
        &addr,
        &request(1, "server/discover", json!({})),
        &[("Origin", "http://evil.example.com")],
    )
    .await;
    assert_eq!(bad_origin.status, 403);
    let local_origin = format!("http://{addr}");
    let good = post(
        &addr,
        &request(1, "server/discover", json!({})),
        &[("Origin", local_origin.as_str())],
    )
    .await;
    assert_eq!(good.status, 200);
    let big = request(
        2,
        "tools/call",
        json!({"name": "test_simple_text", "arguments": {"pad": "x".repeat(1000)}}),
    );
    let too_large = post(&addr, &big, &[]).await;
    assert_eq!(too_large.status, 413);
    assert_eq!(too_large.json()["error"]["code"], -32600);
}

#[tokio::test]
async fn http_sse_when_the_handler_streams() {
    let addr = start_http(None).await;
    let mut call = request(1, "tools/call", json!({"name": "test_tool_with_progress"}));
    call["params"]["_meta"]["progressToken"] = json!("tok");
    let reply = post(&addr, &call, &[]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    let events = reply.events();
    assert_eq!(events.len(), 4, "{}", reply.body);
    for (event, progress) in events.iter().zip([0, 50, 100]) {
        assert_eq!(event["method"], "notifications/progress");
        assert_eq!(event["params"]["progress"], progress);
        assert_eq!(event["params"]["progressToken"], "tok");
    }
    assert_eq!(events[3]["id"], 1);
    assert_eq!(events[3]["result"]["resultType"], "complete");
    // Every event is one `event:`/`data:` pair on single lines.
    assert!(
        reply
            .body
            .split("\n\n")
            .filter(|e| !e.is_empty())
            .all(|e| e.lines().count() == 2)
    );

    // Without a progress token or logLevel: plain JSON, no log notifications.
    let quiet = post(
        &addr,
        &request(2, "tools/call", json!({"name": "test_logging_tool"})),
        &[],
    )
    .await;
    assert_eq!(quiet.header("content-type"), Some("application/json"));
    let mut loud = request(3, "tools/call", json!({"name": "test_logging_tool"}));
    loud["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    let loud = post(&addr, &loud, &[]).await;
    assert_eq!(loud.events()[0]["method"], "notifications/message");
}

#[tokio::test]
async fn http_legacy_session_lifecycle_and_stale_session_rule() {
    let addr = start_http(None).await;
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    let reply = http(
        &addr,
        "POST",
        &[("Content-Type", "application/json")],
        &init.to_string(),
    )
    .await;
    assert_eq!(reply.status, 200);
    let session = reply.header("mcp-session-id").unwrap().to_owned();
    assert!(session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    let with_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let ping = json!({"jsonrpc":"2.0","id":2,"method":"ping"}).to_string();
    let pong = http(&addr, "POST", &with_session, &ping).await;
    assert_eq!(pong.json()["result"], json!({}));
    let listed = http(
        &addr,
        "POST",
        &with_session,
        &json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}).to_string(),
    )
    .await;
    assert!(listed.json()["result"].get("resultType").is_none());
    let missing = http(
        &addr,
        "POST",
        &with_session,
        &json!({"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://nope"}})
            .to_string(),
    )
    .await;
    assert_eq!(missing.json()["error"]["code"], -32002);
    // Inside a legacy session a JSON-RPC error is an HTTP 200 answer; a 404
    // would read as "session gone" and a 400 as a transport failure.
    assert_eq!(missing.status, 200);
    let unknown_tool = http(
        &addr,
        "POST",
        &with_session,
        &json!({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"no_such_tool"}})
            .to_string(),
    )
    .await;
    assert_eq!(
        (
            unknown_tool.status,
            unknown_tool.json()["error"]["code"].clone()
        ),
        (200, json!(-32602))
    );
    let unknown_method = http(
        &addr,
        "POST",
        &with_session,
        &json!({"jsonrpc":"2.0","id":7,"method":"no/such/method"}).to_string(),
    )
    .await;
    assert_eq!(
        (
            unknown_method.status,
            unknown_method.json()["error"]["code"].clone()
        ),
        (200, json!(-32601))
    );
    // Stale session id on a modern request: ignored, served statelessly.
    let modern = post(
        &addr,
        &request(5, "tools/list", json!({})),
        &[("Mcp-Session-Id", "no-such-session")],
    )
    .await;
    assert_eq!(modern.status, 200);
    assert!(modern.header("mcp-session-id").is_none());
    assert_eq!(http(&addr, "DELETE", &with_session, "").await.status, 200);
    assert_eq!(http(&addr, "POST", &with_session, &ping).await.status, 404);
    // A response posted to an ended session gets 404 without its id.
    let answer = json!({"jsonrpc":"2.0","id":"srv-1","result":{}}).to_string();
    let gone = http(&addr, "POST", &with_session, &answer).await;
    assert_eq!(gone.status, 404);
    assert!(gone.json().get("id").is_none(), "{}", gone.body);
}

/// A tool whose structured output is an array (`Json<Vec<_>>`): modern
/// answers keep the array, a 2025-11-25 session (whose schema wants objects
/// there) gets neither `outputSchema` nor `structuredContent`, only the
/// text block with the same JSON.
/// The headers of a POST inside legacy session `session`.
fn legacy_headers(session: &str) -> [(&str, &str); 4] {
    [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25"),
    ]
}

/// The `id:` lines of an SSE body, in order.
fn event_ids(body: &str) -> Vec<String> {
    body.lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .map(str::to_owned)
        .collect()
}

/// In a legacy session every SSE event has an id, a priming event comes
/// first, and a stream the server closed early (SEP-1699 polling) is
/// resumed with GET and `Last-Event-ID`, its response included, as often
/// as asked, with the ids it was first given.
#[tokio::test]
async fn http_legacy_streams_are_resumable() {
    let addr = start_http(None).await;
    let session = open_legacy_session(&addr).await;
    let legacy = legacy_headers(&session);
    let logged = json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"test_tool_with_logging","arguments":{}}});
    let reply = http(&addr, "POST", &legacy, &logged.to_string()).await;
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let ids = event_ids(&reply.body);
    assert_eq!(
        ids.len(),
        5,
        "priming, three logs, the response: {}",
        reply.body
    );
    let stream = ids[0].rsplit_once('-').unwrap().0;
    for (n, id) in ids.iter().enumerate() {
        assert_eq!(id, &format!("{stream}-{}", n + 1));
    }
    assert!(
        reply
            .body
            .starts_with(&format!("id: {}\ndata:\n\n", ids[0]))
    );

    let polled = json!({"jsonrpc":"2.0","id":3,"method":"tools/call",
        "params":{"name":"test_reconnection","arguments":{}}});
    let cut = http(&addr, "POST", &legacy, &polled.to_string()).await;
    assert_eq!(cut.header("content-type"), Some("text/event-stream"));
    assert!(
        cut.events().is_empty(),
        "closed before the result: {}",
        cut.body
    );
    assert!(cut.body.contains("retry: 500\n"), "{}", cut.body);
    let priming = event_ids(&cut.body).remove(0);
    let resume = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Last-Event-ID", priming.as_str()),
    ];
    let mut first = None;
    for _ in 0..2 {
        let resumed = http(&addr, "GET", &resume, "").await;
        assert_eq!(resumed.status, 200);
        let events = resumed.events();
        assert_eq!(events.len(), 1, "{}", resumed.body);
        assert_eq!(events[0]["id"], 3);
        assert!(
            events[0]["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("Reconnection test completed successfully")
        );
        let ids = event_ids(&resumed.body);
        assert_eq!(first.get_or_insert_with(|| ids.clone()), &ids);
    }
}

/// Inside a legacy session every answer of a request is HTTP 200, errors
/// included; a message that is no JSON-RPC request at all (a batch) gets
/// 400 with a session id as without one.
#[tokio::test]
async fn http_legacy_session_statuses() {
    let addr = start_http(None).await;
    let session = open_legacy_session(&addr).await;
    let legacy = legacy_headers(&session);
    let unknown = json!({"jsonrpc":"2.0","id":2,"method":"no/such"});
    let answer = http(&addr, "POST", &legacy, &unknown.to_string()).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.json()["error"]["code"], -32601);
    let bad_params = json!({"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{}});
    let answer = http(&addr, "POST", &legacy, &bad_params.to_string()).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.json()["id"], 3);
    let batch = json!([{"jsonrpc":"2.0","id":4,"method":"ping"}]);
    let answer = http(&addr, "POST", &legacy, &batch.to_string()).await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert_eq!(answer.json()["error"]["code"], -32600);
}

#[tokio::test]
async fn http_list_shaped_structured_output_in_both_eras() {
    let addr = start_http(None).await;
    let find = |listed: &Value| {
        listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "list_notes")
            .cloned()
            .unwrap()
    };
    let call = json!({"name": "list_notes", "arguments": {"title": "Shop"}});
    let notes = json!([{"title": "Shopping", "body": "Milk, bread and tea"}]);

    let listed = post(&addr, &request(1, "tools/list", json!({})), &[]).await;
    assert_eq!(find(&listed.json())["outputSchema"]["type"], "array");
    let called = post(&addr, &request(2, "tools/call", call.clone()), &[]).await;
    assert_eq!(called.json()["result"]["structuredContent"], notes);

    let session = open_legacy_session(&addr).await;
    let legacy = legacy_headers(&session);
    let message = json!({"jsonrpc":"2.0","id":3,"method":"tools/list"});
    let listed = http(&addr, "POST", &legacy, &message.to_string()).await;
    let tool = find(&listed.json());
    assert!(tool.get("outputSchema").is_none(), "{tool}");
    assert_eq!(tool["inputSchema"]["type"], "object");
    let message = json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params": call});
    let called = http(&addr, "POST", &legacy, &message.to_string()).await;
    let result = &called.json()["result"];
    assert!(result.get("structuredContent").is_none(), "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), notes);

    // Both legacy answers fit the 2025-11-25 schema, when it is at hand.
    let Some(dir) = std::env::var_os("MCP_SCHEMA_DIR").map(std::path::PathBuf::from) else {
        return;
    };
    let dir = if dir.is_relative() {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(dir)
    } else {
        dir
    };
    let text = std::fs::read_to_string(dir.join("2025-11-25/schema.json")).unwrap();
    let mut schema: Value = serde_json::from_str(&text).unwrap();
    for (answer, result_def) in [
        (listed.json(), "ListToolsResult"),
        (called.json(), "CallToolResult"),
    ] {
        schema["$ref"] = json!(format!("#/$defs/{result_def}"));
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&answer["result"])
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{result_def}: {errors:?}");
    }
}

// --------------------------------------------------------------- stdio ----

struct StdioPeer {
    input: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    output: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    done: tokio::task::JoinHandle<std::io::Result<()>>,
}

fn start_stdio(config: StdioConfig) -> StdioPeer {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server);
    let (client_read, client_write) = tokio::io::split(client);
    let done = tokio::spawn(mcp_era_server::stdio::serve_with(
        Arc::new(Everything::new()),
        server_read,
        server_write,
        config,
    ));
    StdioPeer {
        input: client_write,
        output: BufReader::new(client_read).lines(),
        done,
    }
}

impl StdioPeer {
    async fn send(&mut self, line: &str) {
        self.input.write_all(line.as_bytes()).await.unwrap();
        self.input.write_all(b"\n").await.unwrap();
    }

    async fn next(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(GUARD, self.output.next_line())
            .await
            .unwrap()
            .unwrap()?;
        Some(serde_json::from_str(&line).unwrap())
    }

    /// Closes stdin and returns every remaining line; the server must exit.
    async fn finish(mut self) -> Vec<Value> {
        self.input.shutdown().await.unwrap();
        drop(self.input);
        let mut rest = Vec::new();
        while let Some(line) = tokio::time::timeout(GUARD, self.output.next_line())
            .await
            .unwrap()
            .unwrap()
        {
            rest.push(serde_json::from_str(&line).unwrap());
        }
        tokio::time::timeout(GUARD, self.done)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        rest
    }
}

#[tokio::test]
async fn stdio_bad_lines_get_errors_and_the_server_lives_on() {
    let config = StdioConfig {
        max_line_bytes: 512,
        ..StdioConfig::default()
    };
    let mut peer = start_stdio(config);
    peer.send("{oops").await;
    assert_eq!(peer.next().await.unwrap()["error"]["code"], -32700);
    peer.send("[1,2]").await;
    assert_eq!(peer.next().await.unwrap()["error"]["code"], -32600);
    peer.send(&format!("{{\"pad\":\"{}\"}}", "x".repeat(5000)))
        .await;
    let too_long = peer.next().await.unwrap();
    assert_eq!(too_long["error"]["code"], -32600);
    assert!(too_long.get("id").is_none());
    assert!(
        too_long["error"]["message"]
            .as_str()
            .unwrap()
            .contains("512-byte line limit")
    );
    peer.send("").await;
    // Modern requests need no prior discover.
    peer.send(&request(7, "tools/list", json!({})).to_string())
        .await;
    let listed = peer.next().await.unwrap();
    assert_eq!(listed["id"], 7);
    assert_eq!(listed["result"]["resultType"], "complete");
    assert!(peer.finish().await.is_empty());
}

#[tokio::test]
async fn stdio_cancellation_sends_nothing_further_and_eof_exits() {
    let mut peer = start_stdio(StdioConfig::default());
    let listen = request(
        1,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    peer.send(&listen.to_string()).await;
    let ack = peer.next().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    peer.send(&request(2, "tools/call", json!({"name": "test_trigger_tool_change"})).to_string())
        .await;
    let mut seen = [peer.next().await.unwrap(), peer.next().await.unwrap()];
    seen.sort_by_key(|m| m.get("id").is_some());
    assert_eq!(seen[0]["method"], "notifications/tools/list_changed");
    assert_eq!(
        seen[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    assert_eq!(seen[1]["id"], 2);
    peer.send(
        &json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})
            .to_string(),
    )
    .await;
    let rest = peer.finish().await;
    assert!(
        rest.iter().all(|m| m.get("id") != Some(&json!(1))),
        "{rest:?}"
    );
}

#[tokio::test]
async fn stdio_legacy_session_is_scoped_to_the_process() {
    let mut peer = start_stdio(StdioConfig::default());
    peer.send(
        &json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})
        .to_string(),
    )
    .await;
    assert_eq!(
        peer.next().await.unwrap()["result"]["protocolVersion"],
        "2025-11-25"
    );
    peer.send(&json!({"jsonrpc":"2.0","id":2,"method":"ping"}).to_string())
        .await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc":"2.0","id":2,"result":{}})
    );
    // Modern requests still work beside the legacy session.
    peer.send(&request(3, "server/discover", json!({})).to_string())
        .await;
    assert_eq!(
        peer.next().await.unwrap()["result"]["resultType"],
        "complete"
    );
    assert!(peer.finish().await.is_empty());
}

/// Found by `fuzz/stdio_lines` (with `FUZZ_STDIO_IN_FLIGHT=small`): with
/// every in-flight slot held by a legacy tool waiting on its server→client
/// request, the requests behind it must not stop the server reading, or the
/// client's answer after them is never read and everything hangs.
#[tokio::test]
async fn stdio_reads_on_while_every_slot_waits_on_the_client() {
    let mut peer = start_stdio(StdioConfig {
        max_in_flight: 1,
        ..StdioConfig::default()
    });
    peer.send(
        &json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},
            "clientInfo":{"name":"t","version":"1"}}})
        .to_string(),
    )
    .await;
    assert_eq!(peer.next().await.unwrap()["id"], 1);
    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"test_elicitation","arguments":{"message":"hi"}}});
    peer.send(&call.to_string()).await;
    let ask = peer.next().await.unwrap();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    // The slot is taken: these requests wait; the answer after them must
    // still reach the tool.
    for id in [3, 4] {
        peer.send(&json!({"jsonrpc":"2.0","id":id,"method":"ping"}).to_string())
            .await;
    }
    let answer = json!({"jsonrpc":"2.0","id":ask["id"],
        "result":{"action":"accept","content":{"response":"yes"}}});
    peer.send(&answer.to_string()).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(peer.next().await.unwrap()["id"].clone());
    }
    ids.sort_by_key(Value::to_string);
    assert_eq!(ids, [json!(2), json!(3), json!(4)]);
    assert!(peer.finish().await.is_empty());
}
