//! `mcp-everything demo`: starts `mcp-everything stdio` as a child process,
//! speaks to it in both eras, and prints every message sent and received
//! (a long line with its middle elided). The toolkit end to end on a fresh
//! machine, with nothing but cargo.

use std::io;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Lines longer than this are printed with their middle elided.
const MAX_SHOWN: usize = 480;
/// How much of an elided line's start is kept.
const KEEP_HEAD: usize = 320;
/// How much of an elided line's end is kept.
const KEEP_TAIL: usize = 120;

/// `line`, or when longer than [`MAX_SHOWN`] bytes its start and end
/// around ` … N bytes … ` (N: what was left out). The cuts fall after a
/// comma where one is near, so what is kept reads as JSON members.
fn abbreviate(line: &str) -> std::borrow::Cow<'_, str> {
    if line.len() <= MAX_SHOWN {
        return line.into();
    }
    let mut head = KEEP_HEAD;
    while !line.is_char_boundary(head) {
        head -= 1;
    }
    // Bytes, not `str` slices: the window's ends need not be char
    // boundaries, and a comma is one byte, so just after it always is.
    let bytes = line.as_bytes();
    if let Some(comma) = bytes[head / 2..head].iter().rposition(|&b| b == b',') {
        head = head / 2 + comma + 1;
    }
    let mut tail = line.len() - KEEP_TAIL;
    while !line.is_char_boundary(tail) {
        tail += 1;
    }
    if let Some(comma) = bytes[tail..line.len() - KEEP_TAIL / 2]
        .iter()
        .position(|&b| b == b',')
    {
        tail += comma + 1;
    }
    format!(
        "{} … {} bytes … {}",
        &line[..head],
        tail - head,
        &line[tail..]
    )
    .into()
}

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

    /// Writes `message` as one line, and shows it.
    async fn send(&mut self, message: &Value) -> io::Result<()> {
        let line = message.to_string();
        println!("-> {}", abbreviate(&line));
        self.stdin.write_all(line.as_bytes()).await?;
        self.stdin.write_all(b"\n").await?;
        self.stdin.flush().await
    }

    /// Sends a notification, which gets no answer.
    async fn notify(&mut self, title: &str, notification: Value) -> io::Result<()> {
        println!("\n== {title}");
        self.send(&notification).await
    }

    async fn ask(&mut self, title: &str, request: Value) -> io::Result<Value> {
        println!("\n== {title}");
        self.send(&request).await?;
        loop {
            let next = tokio::time::timeout(Duration::from_secs(10), self.stdout.next_line())
                .await
                .map_err(|_| io::Error::other("the server did not answer within 10 s"))??;
            let Some(line) = next else {
                return Err(io::Error::other("the server closed stdout"));
            };
            let message: Value = serde_json::from_str(&line).map_err(io::Error::other)?;
            println!("<- {}", abbreviate(&line));
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
    let tools: Vec<&str> = listed
        .pointer("/result/tools")
        .and_then(Value::as_array)
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    check(!tools.is_empty(), "tools/list")?;
    println!(
        "   ({} tools: {}, …)",
        tools.len(),
        tools[..tools.len().min(3)].join(", ")
    );
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
    legacy
        .notify(
            "legacy: notifications/initialized (a notification: no answer)",
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        )
        .await?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_shown_whole() {
        let line = json!({"jsonrpc": "2.0", "id": 2, "result": {}}).to_string();
        assert_eq!(abbreviate(&line), line);
        let edge = "x".repeat(MAX_SHOWN);
        assert_eq!(abbreviate(&edge), edge);
    }

    #[test]
    fn long_lines_keep_both_ends_and_count_the_middle() {
        let tools: Vec<Value> = (0..60)
            .map(|i| json!({"name": format!("tool_{i}"), "description": "é".repeat(20)}))
            .collect();
        let line = json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": tools}}).to_string();
        let shown = abbreviate(&line);
        let (head, rest) = shown.split_once(" … ").unwrap();
        let (count, tail) = rest.split_once(" bytes … ").unwrap();
        let count: usize = count.parse().unwrap();
        assert_eq!(head.len() + count + tail.len(), line.len());
        assert!(line.starts_with(head) && line.ends_with(tail));
        assert!(
            head.starts_with(r#"{"id":3,"jsonrpc":"2.0","result":{"tools":[{"#),
            "{head}"
        );
        assert!(head.ends_with(','), "{head}");
        assert!(tail.ends_with(r#""name":"tool_59"}]}}"#), "{tail}");
        assert!(shown.len() < MAX_SHOWN, "{}", shown.len());
        // Without commas, the cuts fall on char boundaries.
        let wide = "é".repeat(MAX_SHOWN);
        let shown = abbreviate(&wide);
        assert!(shown.starts_with('é') && shown.ends_with('é'), "{shown}");
        assert!(
            shown.contains(&format!(
                " … {} bytes … ",
                2 * MAX_SHOWN - KEEP_HEAD - KEEP_TAIL
            )),
            "{shown}"
        );
    }
}
