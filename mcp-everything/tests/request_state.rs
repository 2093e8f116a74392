//! Sealed `requestState` across processes and transports: a round sealed
//! by this process's HTTP server opens on an `mcp-everything stdio`
//! process given the same keys (`--request-state-keys`, or
//! `MCP_REQUEST_STATE_KEYS`), and is refused by one with other keys or
//! none; a changed state, or one replayed to another tool, is `-32602`
//! from the runtime.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;

use mcp_era_server::http::HttpConfig;
use mcp_era_server::{McpServer, RequestStateKeys};
use mcp_everything::Everything;
use serde_json::{Value, json};
use tokio::net::TcpListener;

mod common;

use common::{post, request};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-everything");
/// `kid:base64url` of 32 bytes of 0x07 (shared) and 0x09 (other).
const SHARED: &str = "k1:BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc";
const OTHER: &str = "k1:CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQk";

/// An `mcp-everything stdio` process, killed when dropped.
struct StdioServer {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl StdioServer {
    fn start(flag: Option<&str>, env: Option<&str>) -> Self {
        let mut command = Command::new(BIN);
        command.arg("stdio");
        if let Some(keys) = flag {
            command.args(["--request-state-keys", keys]);
        }
        command.env_remove("MCP_REQUEST_STATE_KEYS");
        if let Some(keys) = env {
            command.env("MCP_REQUEST_STATE_KEYS", keys);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            input,
            output,
        }
    }

    fn call(&mut self, message: &Value) -> Value {
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const TOOL: &str = "test_input_required_result_request_state";

fn retry(tool: &str, state: &str) -> Value {
    request(
        2,
        "tools/call",
        json!({
            "name": tool,
            "arguments": {},
            "requestState": state,
            "inputResponses": { "confirm": { "action": "accept", "content": { "ok": true } } },
        }),
    )
}

#[tokio::test]
async fn a_round_sealed_over_http_opens_on_another_process_with_the_same_keys() {
    Everything::new()
        .declaration()
        .request_state()
        .set_keys(RequestStateKeys::parse(SHARED).unwrap());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(mcp_era_server::http::serve_listener(
        Arc::new(Everything::new()),
        listener,
        HttpConfig::new(addr),
    ));
    let addr = format!("127.0.0.1:{}", addr.port());

    let first = post(
        &addr,
        &request(1, "tools/call", json!({"name": TOOL, "arguments": {}})),
        &[],
    )
    .await
    .json();
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    assert!(state.starts_with("v1.k1."), "{state}");
    assert!(!state.contains("kind"), "the plaintext shows: {state}");

    // The same keys by flag, and by environment: the round completes.
    for mut other in [
        StdioServer::start(Some(SHARED), None),
        StdioServer::start(None, Some(SHARED)),
        // The flag wins over the environment.
        StdioServer::start(Some(SHARED), Some(OTHER)),
    ] {
        let done = other.call(&retry(TOOL, &state));
        assert_eq!(
            done["result"]["content"][0]["text"], "state-ok: requestState validated",
            "{done}"
        );
    }
    // Other bytes under the same id; no keys at all (a random key).
    for (mut other, reason) in [
        (StdioServer::start(Some(OTHER), None), "integrity"),
        (StdioServer::start(None, None), "unknown_key"),
    ] {
        let refused = other.call(&retry(TOOL, &state));
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert_eq!(refused["error"]["data"]["reason"], reason, "{refused}");
    }

    // Back on the HTTP server: a changed state, and this state replayed to
    // another MRTR tool.
    let mut tampered = state.clone().into_bytes();
    let at = tampered.len() - 5;
    tampered[at] = if tampered[at] == b'Q' { b'R' } else { b'Q' };
    let tampered = String::from_utf8(tampered).unwrap();
    let refused = post(&addr, &retry(TOOL, &tampered), &[]).await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert_eq!(refused.json()["error"]["data"]["reason"], "integrity");
    let replayed = post(
        &addr,
        &retry("test_input_required_result_tampered_state", &state),
        &[],
    )
    .await;
    assert_eq!(replayed.status, 400, "{}", replayed.body);
    assert_eq!(replayed.json()["error"]["data"]["reason"], "other_target");
}

#[test]
fn bad_keys_are_a_usage_error_that_names_no_key() {
    for (flag, env) in [
        (Some("k1:c2hvcnQ"), None),
        (None, Some("no-colon")),
        (
            Some("bad.kid:BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc"),
            None,
        ),
    ] {
        let mut command = Command::new(BIN);
        command.arg("stdio").env_remove("MCP_REQUEST_STATE_KEYS");
        if let Some(keys) = flag {
            command.args(["--request-state-keys", keys]);
        }
        if let Some(keys) = env {
            command.env("MCP_REQUEST_STATE_KEYS", keys);
        }
        let out = command.stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag:?} {env:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("request state key"), "{stderr}");
        assert!(
            !stderr.contains("c2hvcnQ") && !stderr.contains("BwcH"),
            "{stderr}"
        );
    }
}
