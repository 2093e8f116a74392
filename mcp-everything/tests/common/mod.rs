//! HTTP and JSON-RPC helpers shared by the fixture's transport tests:
//! requests with modern `_meta`, and raw HTTP/1.1 exchanges.
#![allow(dead_code, reason = "each test file uses its own part")]

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A hang guard only.
pub const GUARD: Duration = Duration::from_secs(20);

/// A child process, killed (and reaped) when dropped.
pub struct Process(pub std::process::Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Process {
    /// Sends `signal` (`-STOP`, `-CONT`, `-KILL`, …) with `kill`.
    pub fn signal(&self, signal: &str) {
        let status = std::process::Command::new("kill")
            .args([signal, &self.0.id().to_string()])
            .status()
            .expect("kill on PATH");
        assert!(status.success());
    }
}

/// A loopback port free now.
pub fn free_port() -> u16 {
    let socket = std::net::TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
    socket.local_addr().expect("its address").port()
}

/// Waits (within [`GUARD`]) until something listens on loopback `port`.
pub async fn wait_listening(port: u16) {
    let wait = async {
        while TcpStream::connect(("127.0.0.1", port)).await.is_err() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(GUARD, wait)
        .await
        .expect("the port listens in time");
}

pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

pub fn request(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }

    /// The `data:` payloads of an SSE body.
    pub fn events(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }
}

fn dechunk(mut raw: &str) -> String {
    let mut out = String::new();
    loop {
        let Some((size, rest)) = raw.split_once("\r\n") else {
            return out;
        };
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        raw = &rest[size + 2..];
    }
}

pub async fn http(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: {addr}\r\n"));
        }
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).await.unwrap();
        raw
    };
    let raw = tokio::time::timeout(GUARD, exchange).await.unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Reply {
        status,
        headers,
        body,
    }
}

/// A modern POST with correct headers.
pub async fn post(addr: &str, message: &Value, extra: &[(&str, &str)]) -> Reply {
    let method = message["method"].as_str().unwrap().to_owned();
    let name = mcp_era_server::mcp_era_types::headers::mcp_name(&method, &message["params"])
        .map(str::to_owned);
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method.as_str()),
    ];
    if let Some(name) = &name {
        headers.push(("Mcp-Name", name.as_str()));
    }
    for (n, v) in extra {
        headers.retain(|(h, _)| !h.eq_ignore_ascii_case(n));
        headers.push((n, v));
    }
    http(addr, "POST", &headers, &message.to_string()).await
}

/// Opens a 2025-11-25 session with a headerless `initialize`; its id.
pub async fn open_legacy_session(addr: &str) -> String {
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    let reply = http(
        addr,
        "POST",
        &[("Content-Type", "application/json")],
        &init.to_string(),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.header("mcp-session-id").unwrap().to_owned()
}

/// Spawns `command` (an `mcp-everything http …` without `--listen`) on
/// `127.0.0.1:0` and waits for the address its startup line names; every
/// stderr line then goes to `on_line`. Port 0, not a port probed here and
/// handed over: another test thread forking at that moment holds a copy of
/// the probe socket, which accepts a connection and then resets it.
pub fn spawn_http(
    command: &mut std::process::Command,
    mut on_line: impl FnMut(&str) + Send + 'static,
) -> (std::process::Child, String) {
    use std::io::BufRead as _;
    let mut child = command
        .args(["--listen", "127.0.0.1:0"])
        .env("MCP_LOG", "info")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the server");
    let stderr = child.stderr.take().expect("piped stderr");
    let (found, address) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { return };
            if let Some((_, rest)) = line.split_once(" listening on http://") {
                let addr = rest.split('/').next().unwrap_or_default().to_owned();
                let _ = found.send(addr);
            }
            on_line(&line);
        }
    });
    match address.recv_timeout(GUARD) {
        Ok(addr) => (child, addr),
        Err(e) => {
            let _ = child.kill();
            panic!("the server named no address: {e}");
        }
    }
}
