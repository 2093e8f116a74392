//! `mcp-everything demo`: starts `mcp-everything stdio` as a child process,
//! speaks to it in both eras, and prints every exchange. The toolkit end to
//! end on a fresh machine, with nothing but cargo.

use std::io;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

fn meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "mcp-everything-demo", "version": "0.1.0" },
    })
}

struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: tokio::io::Lines<BufReader<ChildStdout>>,
}

impl Peer {
    fn start() -> io::Result<Self> {
        let exe = std::env::current_exe()?;
        let mut child = Command::new(exe)
            .arg("stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| io::Error::other("no stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout"))?;
        Ok(Self {
            child,
            stdin,
            stdout: BufReader::new(stdout).lines(),
        })
    }

    async fn ask(&mut self, title: &str, request: Value) -> io::Result<Value> {
        println!("\n== {title}");
        println!("-> {request}");
        let mut line = serde_json::to_vec(&request).map_err(io::Error::other)?;
        line.push(b'\n');
        self.stdin.write_all(&line).await?;
        self.stdin.flush().await?;
        loop {
            let next = tokio::time::timeout(Duration::from_secs(10), self.stdout.next_line())
                .await
                .map_err(|_| io::Error::other("the server did not answer within 10 s"))??;
            let Some(line) = next else {
                return Err(io::Error::other("the server closed stdout"));
            };
            let message: Value = serde_json::from_str(&line).map_err(io::Error::other)?;
            println!("<- {line}");
            if message.get("id") == request.get("id") {
                return Ok(message);
            }
        }
    }

    async fn close(mut self) -> io::Result<()> {
        drop(self.stdin);
        let status = tokio::time::timeout(Duration::from_secs(10), self.child.wait())
            .await
            .map_err(|_| io::Error::other("the server did not exit on EOF"))??;
        println!("\n(server exited on EOF: {status})");
        Ok(())
    }
}

/// Runs the demo; fails when any answer is not what the protocol says.
pub fn run() -> io::Result<()> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(demo())
}

fn check(ok: bool, what: &str) -> io::Result<()> {
    if ok {
        Ok(())
    } else {
        Err(io::Error::other(format!("unexpected answer: {what}")))
    }
}

async fn demo() -> io::Result<()> {
    println!("mcp-everything demo: a dual-era MCP server over stdio (one JSON message per line)");
    let mut server = Peer::start()?;
    let discover = server
        .ask("modern: server/discover (no handshake)", json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":meta("2026-07-28")}}))
        .await?;
    let supported = discover
        .pointer("/result/supportedVersions")
        .cloned()
        .unwrap_or_default();
    check(
        supported.as_array().is_some_and(|v| !v.is_empty()),
        "discover lists supportedVersions",
    )?;
    let rejected = server
        .ask("version negotiation: a version the server does not speak", json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":meta("2099-01-01")}}))
        .await?;
    check(
        rejected.pointer("/error/code") == Some(&json!(-32022)),
        "-32022",
    )?;
    let chosen = rejected
        .pointer("/error/data/supported/0")
        .and_then(Value::as_str)
        .unwrap_or("2026-07-28")
        .to_owned();
    println!("   (the client picks {chosen} from error.data.supported and retries)");
    let listed = server
        .ask(
            "retry with the negotiated version",
            json!({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":meta(&chosen)}}),
        )
        .await?;
    check(
        listed.pointer("/result/tools/0/name").is_some(),
        "tools/list",
    )?;
    let called = server
        .ask("tools/call", json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":meta(&chosen),"name":"test_simple_text"}}))
        .await?;
    check(
        called.pointer("/result/resultType") == Some(&json!("complete")),
        "tools/call result",
    )?;
    server
        .ask(
            "a bad line gets its error; the server lives on",
            json!("not a request"),
        )
        .await
        .ok();
    server.close().await?;

    println!("\n-- legacy era (2025-11-25) on a fresh process --");
    let mut legacy = Peer::start()?;
    let init = legacy
        .ask("legacy: initialize", json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"old-client","version":"1.0"}}}))
        .await?;
    check(
        init.pointer("/result/protocolVersion") == Some(&json!("2025-11-25")),
        "initialize",
    )?;
    let mut note =
        serde_json::to_vec(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .map_err(io::Error::other)?;
    note.push(b'\n');
    legacy.stdin.write_all(&note).await?;
    legacy
        .ask(
            "legacy: ping",
            json!({"jsonrpc":"2.0","id":2,"method":"ping"}),
        )
        .await?;
    legacy
        .ask("legacy: tools/call (same handlers, legacy shape)", json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}))
        .await?;
    legacy.close().await?;
    println!(
        "\nOK: modern discover, version negotiation, tools, and a legacy session all answered."
    );
    Ok(())
}
