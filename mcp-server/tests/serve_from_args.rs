//! `serve_from_args` as a program: this file has its own `main`
//! (`harness = false`); with [`CHILD`] set in its environment it is a
//! server whose `main` is `serve_from_args`, which the tests run with
//! different arguments. Also the HTTP startup line, and that stdio writes
//! nothing but protocol messages.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::panic;
use std::process::{Child, Command, ExitCode, Output, Stdio};
use std::time::Duration;

use mcp_era_server::McpServer;
use serde_json::{Value, json};

/// Set in a child's environment: run as the server.
const CHILD: &str = "MCP_SERVE_FROM_ARGS_CHILD";

/// A server that leaves its versions to the defaults.
#[derive(McpServer)]
#[mcp(name = "args-test", version = "1.0.0")]
struct Hello;

fn child(args: &[&str]) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args(args).env(CHILD, "1");
    command
}

fn run(args: &[&str]) -> Output {
    child(args).stdin(Stdio::null()).output().unwrap()
}

/// Kills the child when the test ends, passed or not.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One request to `addr`; the status and the body.
fn post(addr: &str, headers: &str, body: &Value) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let body = body.to_string();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n{headers}\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_owned())
}

/// `http 127.0.0.1:0`: one line on stderr (no subscriber installed) names
/// the real port; both eras are served there, since dual-era is the
/// default.
fn http_says_where_it_listens() {
    let mut server = Running(
        child(&["http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(server.0.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let prefix = "MCP server \"args-test\" 1.0.0 listening on http://127.0.0.1:";
    let port = line
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix("/mcp\n"))
        .unwrap_or_else(|| panic!("startup line: {line:?}"));
    let port: u16 = port.parse().unwrap();
    assert_ne!(port, 0);
    let addr = format!("127.0.0.1:{port}");

    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let (status, body) = post(
        &addr,
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n",
        &discover,
    );
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "args-test"
    );

    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}});
    let (status, body) = post(&addr, "", &initialize);
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["result"]["protocolVersion"], "2025-11-25", "{body}");

    // Nothing on stdout, over HTTP either.
    server.0.kill().unwrap();
    let mut out = String::new();
    server
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(out, "");
}

/// No arguments: stdio, whose stdout carries the answer and nothing else.
fn stdio_is_the_default_and_stdout_is_protocol_only() {
    for args in [&[][..], &["stdio"]] {
        let mut server = child(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = server.stdin.take().unwrap();
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
        .unwrap();
        drop(stdin);
        let out = server.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stdout}");
        let answer: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(
            answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "args-test"
        );
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
}

fn help_and_usage_errors() {
    let out = run(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("usage: serve_from_args"), "{text}");
    assert!(text.contains(" [stdio | http [ADDR]]\n"), "{text}");
    assert!(out.stderr.is_empty());

    for (args, says) in [
        (&["serve"][..], "unknown argument `serve`"),
        (
            &["http", "8080"],
            "invalid listen address \"8080\": no port",
        ),
        (
            &["http", "no-such-host.invalid:80"],
            "cannot resolve \"no-such-host.invalid:80\"",
        ),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(err.contains("\nusage: "), "{args:?}: {err}");
    }

    // Bad requestState keys in the environment: a usage error naming the
    // variable, never the key.
    let out = child(&["stdio"])
        .env("MCP_REQUEST_STATE_KEYS", "k1:c2hvcnQta2V5")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("MCP_REQUEST_STATE_KEYS: request state key `k1` has 9 bytes"),
        "{err}"
    );
    assert!(!err.contains("c2hvcnQta2V5"), "{err}");
}

/// A port in use: exit code 1 and the address in the message.
fn a_taken_port_is_a_runtime_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = run(&["http", &addr]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(": cannot listen on {addr}: ")),
        "{err}"
    );
    assert!(!err.contains("usage:"), "{err}");
}

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        return mcp_era_server::serve_from_args(Hello);
    }
    let tests: [(&str, fn()); 4] = [
        ("http_says_where_it_listens", http_says_where_it_listens),
        (
            "stdio_is_the_default_and_stdout_is_protocol_only",
            stdio_is_the_default_and_stdout_is_protocol_only,
        ),
        ("help_and_usage_errors", help_and_usage_errors),
        (
            "a_taken_port_is_a_runtime_error",
            a_taken_port_is_a_runtime_error,
        ),
    ];
    // Like libtest: the first argument not starting with `-` filters by name.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().find(|a| !a.starts_with('-'));
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, test) in tests {
        if filter.is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        let passed = panic::catch_unwind(test).is_ok();
        println!("test {name} ... {}", if passed { "ok" } else { "FAILED" });
        if !passed {
            failed.push(name);
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        ran - failed.len(),
        failed.len()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
